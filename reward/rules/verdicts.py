"""Verdicts on the user's premise ("That premise is not right.", "Premise: not correct"): the lead of a
correction, which the sentences after it carry. Read by the rules (the length rule counts the correction a verdict
leads as the answer's own) and by the local judge tier. Also the verdict that the sources do not cover the question,
said by what they cover instead ("[Doc 1] covers Warsaw, but not this."), which the local tier reads."""

from __future__ import annotations

import re
from collections.abc import Callable

from reward.format import strip_citations

# A verdict on the user's premise ("That premise is not right", "Premise: not correct", "That's a misreading"): it
# says the question is mistaken, which the claims after it must show; it claims nothing about the world itself.
_PREMISE_VERDICT = re.compile(
    r"^\W*(?:(?:that|the|this|your)\s+)?(?:premise|assumption|question)\b[^,;:.]{0,20}?(?:\s+(?:is|was)\b|\s*:)\s*"
    r"(?:not\s+(?:quite\s+|entirely\s+|exactly\s+)?(?:right|correct|true|accurate)|(?:in)?correct|wrong|false|mistaken|"
    r"a misreading|a misconception|"
    r"based on a misunderstanding)\W*$|^\W*that(?:'s| is) (?:a misreading|a misconception|not (?:right|correct|true|so))\W*$"
    r"|^\W*(?:(?:that|the|this|your)\s+)?(?:premise|assumption|question)\b[^,;:.]{0,30}?\b(?:rests|is based|relies|"
    r"depends)\s+on\s+(?:a\s+)?(?:false|wrong|mistaken|incorrect|faulty)\s+(?:premise|assumption)\W*$"
    r"|^\W*(?:actually\W+)?(?:that|this)(?:'s| is) not (?:the case|how it works|quite right)\W*$"
    # what the question does with the facts ("The question mixes up two events"), not a fact itself
    r"|^\W*(?:(?:the|this|that|your)\s+)?(?:question|premise|assumption)\s+(?:mixes\s+up|mixes|confuses|conflates|"
    r"misreads|misremembers|rests\s+on|is\s+based\s+on|gets\s+\w+\s+wrong)\b(?![^,;:]*\b(?:correctly|rightly)\b)[^,;:]*$",
    re.IGNORECASE)
MARKUP = re.compile(r"[*_`#>|]+")
"""Emphasis, heading, quote and table markers: no words of a sentence."""


_CORRECTS = re.compile(
    r"\b(?:corrections?|to\s+correct|mix(?:ed|ing|es)?[\s-]*ups?|mistak(?:e|es|en)|misunderst\w*|misconceptions?|"
    r"misread\w*|confus(?:ed|ing|ion)|push(?:ing)?\s+back|premise|assumption|wrong|false|untrue|incorrect|inaccurate|"
    r"(?:not|n't)\s+(?:quite\s+|really\s+|entirely\s+|exactly\s+)?(?:the\s+case|right|true|accurate|correct|so|hold\w*))\b",
    re.IGNORECASE)
_NOT_MISTAKEN = re.compile(r"\b(?:not|no|never|n't|nothing)\s+(?:\w+\s+){0,2}?(?:wrong|false|mistak\w*|misunderst\w*|"
                           r"misconceptions?|misread\w*|confus\w*|mix\w*|incorrect|untrue|inaccurate)\b", re.IGNORECASE)
_ACCEPTS = re.compile(r"(?<!\bto\s)\b(?:right|correct|true|accurate|yes|exactly|spot\s+on)\b", re.IGNORECASE)
DISCOURSE = frozenset(("actually", "unfortunately", "sadly", "honestly", "afraid", "well", "however", "indeed",
                       "first", "gently", "just", "think", "small", "slight", "quick", "one", "thing"))
"""Words that lead a correction without saying anything of the world ("Actually,", "Just a small correction first")."""


def correction_only(clause: str, known: Callable[[str], bool]) -> bool:
    """Whether a clause only says that the user's premise is mistaken ("Small correction", "You're mixing up two
    dates", "I'd gently push back on that", "That premise doesn't hold up"): a word of correction, at most ten
    words, no figure, no word of agreement, and at most one word that the user or the evidence uses (`known`). It
    names nothing a claim could be about, so it is a verdict on the premise like "The premise is wrong": the claims
    after it carry the correction.

    >>> known = lambda word: word.lower() in {"free", "period", "charges", "rovers"}
    >>> [correction_only(c, known) for c in ("Small correction", "One thing to correct first", "I think there's a mix-up",
    ...  "That premise doesn't hold up", "Actually, it is wrong")]
    [True, True, True, True, True]

    Agreement, a denied mistake, or a clause about what the user or the evidence names is no such verdict:

    >>> [correction_only(c, known) for c in ("You're right", "There's no mistake there", "That's correct",
    ...  "The free period is wrong", "Charges are not 6pm")]
    [False, False, False, False, False]
    """
    text = MARKUP.sub("", strip_citations(clause)).strip()
    words = re.findall(r"[^\W\d_][\w'’-]*", text)
    if len(words) > 10 or re.search(r"\d", text) or _NOT_MISTAKEN.search(text):
        return False
    rest = _CORRECTS.sub(" ", text)
    if rest == text or _ACCEPTS.search(rest):
        return False
    return sum(1 for w in re.findall(r"[^\W\d_][\w'’-]*", rest) if w.lower() not in DISCOURSE and known(w)) <= 1


def is_premise_verdict(sentence: str) -> bool:
    """Whether a sentence is only a verdict on the user's premise ("That premise is not right.", "Premise: not
    correct [Doc 2]"): the lead of a correction, which the sentence after it carries.

    >>> is_premise_verdict("That premise is not right."), is_premise_verdict("- **Premise:** not correct [Doc 2]")
    (True, True)
    >>> is_premise_verdict("The premise is wrong: pandas cannot be kept as pets.")
    False
    """
    return bool(_PREMISE_VERDICT.match(MARKUP.sub("", strip_citations(sentence)).strip()))


_SCOPE_SENTENCE = re.compile(
    r"^\W*(?:(?:\[\s*doc[^\]]*\]|doc(?:ument)?\s*\d+|(?:the |these |both |all )?(?:sources?|documents?|passages?|"
    r"results?|articles?|texts?|evidence)|it|they|this (?:document|source|passage|article))\s+)?(?:covers?|"
    r"discuss(?:es)?|describes?|concerns?|(?:is|are) about|deals? with|talks? about|focus(?:es)? on|address(?:es)?)\s+"
    r"(?P<topic>[^\W\d][^,;:.!?\d]{0,40}?)\s*[,;]?\s+(?:but |and )?not (?:with )?(?:(?:this|that) (?:question|point)|"
    r"this|that|it|the (?:question|answer)|your question|what (?:you asked|was asked))\W*$", re.IGNORECASE)


def scope_topic(text: str) -> str | None:
    """The topic of a sentence that says what the sources cover and that the question is not among it ("[Doc 2]
    covers Force, but not this."): a decline that claims only that the sources name the topic. None for any other
    sentence, and for a topic of more than four words or with a figure (what a source is said to cover that way
    may carry a claim of its own).

    >>> scope_topic("covers Force, but not this."), scope_topic("Doc 1 covers the Yuan dynasty, not this question.")
    ('Force', 'the Yuan dynasty')
    >>> scope_topic("Doc 1 covers Warsaw."), scope_topic("It covers doubling the dose being safe, but not this.")
    (None, None)
    """
    match = _SCOPE_SENTENCE.match(MARKUP.sub("", strip_citations(text)).strip())
    topic = match.group("topic").strip() if match else ""
    return topic if 0 < len(topic.split()) <= 4 else None
