"""Words of the question whose opposite the evidence says (`question_opposite`): a terse answer is the question
answered by it, so "Galileo Galilei." to "Who was influenced by early Medieval ideas?" claims what the evidence says
of the late Medieval idea. Pure functions of strings.
"""

from __future__ import annotations

import re

from reward.format import split_sentences
from reward.judges.local.negation import _negated_scope
from reward.judges.local.text import stem

_PAIRS = (
    ("early earlier earliest", "late later latest"),
    ("first", "last final"),
    ("large larger largest big bigger biggest", "small smaller smallest little"),
    ("high higher highest", "low lower lowest"),
    ("most", "least fewest"),
    ("maximum max", "minimum min"),
    ("increase increased increases increasing rise rose risen rising", "decrease decreased decreases decreasing fall fell fallen falling"),
    ("strong stronger strongest", "weak weaker weakest"),
    ("win won wins winning victory", "lose lost loses losing defeat"),
    ("accept accepted accepts", "reject rejected rejects"),
    ("allow allowed allows permit permitted", "forbid forbade forbidden forbids ban banned bans prohibit prohibited"),
    ("support supported supports supporting", "oppose opposed opposes opposing"),
    ("love loved loves", "hate hated hates"),
    ("friend friends ally allies allied", "enemy enemies"),
    ("same similar", "different"),
    ("inside internal interior", "outside external exterior"),
    ("import imported imports", "export exported exports"),
    ("ancient", "modern"),
    ("public", "private"),
    ("rich richer richest wealthy", "poor poorer poorest"),
    ("positive", "negative"),
    ("legal", "illegal"),
    ("include included includes", "exclude excluded excludes"),
    ("top", "bottom"),
    ("upper", "lower"),
    ("long longer longest", "short shorter shortest"),
    ("fast faster fastest", "slow slower slowest"),
    ("heavy heavier heaviest", "light lighter lightest"),
    ("success successful succeeded", "failure failed unsuccessful"),
    ("domestic", "foreign"),
    ("gain gained gains", "loss losses"),
    ("north northern", "south southern"),
    ("east eastern", "west western"),
    ("major", "minor"),
    ("old older oldest", "new newer newest young younger youngest"),
    ("majority", "minority"),
)
_OPPOSITE: dict[str, frozenset[str]] = {}
for _left, _right in _PAIRS:
    for _word in _left.split():
        _OPPOSITE[_word] = _OPPOSITE.get(_word, frozenset()) | frozenset(_right.split())
    for _word in _right.split():
        _OPPOSITE[_word] = _OPPOSITE.get(_word, frozenset()) | frozenset(_left.split())
_FORMS = {word: frozenset(forms.split()) for pair in _PAIRS for forms in pair for word in forms.split()}
"""Each word's own forms ("early", "earlier", "earliest"): a form of the question's word in the sentence is the word."""

_WORD = re.compile(r"[a-z][a-z-]*")
_ORDINALS = frozenset(("first", "last", "final"))


def _negated_form(word: str, said: set[str]) -> str:
    """A word of the sentence that is the word with a negating prefix taken off or put on ("uninvited" and
    "invited", "temperate" and "non-temperate"), or ""."""
    for prefix in ("non-", "non", "un"):
        if word.startswith(prefix) and len(word) - len(prefix) >= 4 and word[len(prefix):] in said:
            return word[len(prefix):]
        if prefix + word in said:
            return prefix + word
    return ""


def _asked(question: str) -> str:
    """What the query asks: its questions ("... How long should I cool it?"), not the situation it tells of ("I
    burned my forearm on a hot pan."); the whole query where it asks nothing with a question mark."""
    asked = [s for s in split_sentences(question) if s.rstrip().endswith("?")]
    return " ".join(asked) or question


def question_opposite(question: str, sentence: str, claim: str | None = None) -> str:
    """Why the evidence sentence that gives a terse answer says the opposite of a word of its question, or "": the
    question's word (any of its forms) is not in the sentence, and a word of the opposite sense is ("early" where the
    sentence says "late", "hated" where it says "supported", "uninvited" where it says "invited"). Only what the
    query asks is read, not the situation it tells of. With a `claim` (one that is not the question answered by it),
    only the question's words the claim repeats.

    >>> question_opposite("Who was influenced by early Medieval ideas?", "Galileo was influenced by the late Medieval idea.")
    "the question's 'early' where the evidence says 'late'"
    >>> question_opposite("Who was influenced by late Medieval ideas?", "Galileo was influenced by the late Medieval idea.")
    ''
    >>> question_opposite("What is the earliest train?", "The early train leaves at 6:10; the late one at 23:40.")
    ''
    >>> question_opposite("Who uninvited Washington?", "Saint-Pierre invited Washington to dine with him.")
    "the question's 'uninvited' where the evidence says 'invited'"
    >>> question_opposite("My first pan was old. Which new pan is best?", "The newest pan is the best one.")
    ''
    >>> question_opposite("What non-Chinese empire did it succeed?", "It succeeded the Mongol Empire; it was a Chinese dynasty.")
    ''
    >>> [question_opposite("Are dogs banned on the trails?", "Dogs are allowed on the Kestrel trail.", c)
    ...  for c in ("Dogs are banned on the trails.", "They aren't banned on every trail.")]
    ["the question's 'banned' where the evidence says 'allowed'", '']
    """
    asked = re.findall(r"[A-Za-z][A-Za-z-]*", _asked(question))
    if claim is not None:
        # (... that it asserts: "They aren't banned on every trail" denies "banned"; and an ordinal a claim uses to name
        # what it compares, "the first (1978) came before the second", says no sense of the question's)
        repeated = set(_WORD.findall(claim.lower())) - _ORDINALS
        denied = _negated_scope(claim)
        asked = [w for w in asked if w.lower() in repeated and stem(w.lower()) not in denied]
    said = set(_WORD.findall(sentence.lower()))
    for written in asked:
        word = written.lower()
        forms = _FORMS.get(word, frozenset((word,)))
        if forms & said:
            continue
        opposite = _OPPOSITE.get(word, frozenset()) - forms
        # (a name's negation is no opposite: "non-Chinese" beside "a Chinese dynasty and successor to the Mongol Empire")
        found = sorted(opposite & said) or [_negated_form(word, said) if written.islower() else ""]
        if found[0]:
            return f"the question's {word!r} where the evidence says {found[0]!r}"
    return ""
