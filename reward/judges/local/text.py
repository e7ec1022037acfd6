"""The text heuristics the local methods share: content words and stems, numbers and names, contrasting words,
claim extraction from an answer sentence, stale future dates, query echoes, keyword lists and copies of the evidence.
Pure functions of strings (and evidence), cached by text where every rollout of a group reads the same evidence."""

from __future__ import annotations

import difflib
import functools
import os
import re
from collections.abc import Sequence

from reward.format import split_sentences, strip_citations
from reward.memo import by_content
from reward.rules.checks import tokens
from reward.rules.declining import ABSENT_HERE, LACKED_ITEM, NOTHING_SAID, SOURCES_SILENT
from reward.rules.verdicts import DISCOURSE, correction_only, is_premise_verdict, MARKUP as _MARKUP
from reward.schema import Evidence
from reward.textnorm import MIXED_IN, reading_form

# -- lexical helpers -------------------------------------------------------------------------------------------
STOPWORDS = frozenset(
    """a an the and or but if then than so of to in on at by for with from into onto over under about as is are was
    were be been being it its this that these those there here which who whom whose what when where why how can could
    may might must should would will shall do does did done have has had having not no nor only also just very more
    most much many some any each every both either neither all few other such own same too i you he she we they me
    him her us them my your his our their mine yours out up down off again further once likely usually often
    typically generally instead however therefore thus while during before after above below between through per via
    yes get gets got make makes made use used using one two new first last now within without since""".split()
)
_NUMBER = re.compile(r"(?<![^\W_])\d+(?:[.,:]\d+)*")  # not glued to a word: "m2", "CO2" hold no figure
TIME_FRAME = re.compile(r"^(?:mon|tues|wednes|thurs|fri|satur|sun)days?$|^(?:january|february|march|april|may|june|"
                        r"july|august|september|october|november|december)$")
"""A day or month (lower-cased): a time frame, as a query names it or an answer to "when" gives it."""
_CAPITALISED = re.compile(r"(?<![.!?]\s)(?<!^)(?<![\n|])(?<![\n|][ \t])"  # not a sentence's, line's or cell's first
                          r"\b[a-z]*[A-Z][a-zA-Z0-9]*(?:[ \t]+[A-Z][a-zA-Z0-9]+)*")  # word; no line break inside a name
NOT_NAMES = frozenset({"ok", "gp"})  # "OK", a GP (a unit the evidence never uses, "45 dB", stays one: a measure it lacks)
# Words whose siblings contradict them: a claim using one where the evidence uses another is a swapped attribute
# (the classic "bacterial" for a fungal disease), which overlap and embeddings do not see.
CONTRASTS = [
    {"fungal", "bacterial", "viral"}, {"free", "paid", "subscription"}, {"open", "closed"},
    {"increase", "increases", "decrease", "decreases"}, {"upcoming", "ended", "over", "past"},
    {"safe", "unsafe", "dangerous", "toxic"},
    {"north", "south", "east", "west"}, {"morning", "evening", "night"}, {"weekday", "weekend"},
    {"cheaper", "expensive"}, {"before", "after"}, {"antibiotic", "antibiotics", "fungicide", "fungicides"},
]
_CONTRAST_OF = {word: group for group in CONTRASTS for word in group}


_SUFFIX = re.compile(r"(?:ing|ed|es|s|ly)$")


@functools.lru_cache(maxsize=65536)
def stem(word: str) -> str:
    """A crude stemmer: common suffixes off, then a final "e", then the first 5 characters ("needed" -> "need",
    "favoured" -> "favou"), so that a word and its inflections meet ("give", "gives", "giving"; "price", "prices").
    Cached by word: the evidence's words are stemmed again for every claim checked against it.

    >>> [stem(w) for w in ("give", "gives", "giving", "price", "prices", "needed")]
    ['giv', 'giv', 'giv', 'pric', 'pric', 'need']
    """
    if len(word) > 4:
        word = _SUFFIX.sub("", word)
    if len(word) > 3 and word.endswith("e"):
        word = word[:-1]
    return word[:5]


LIST_MARKER = re.compile(r"^\s*(?:#+|[-*+]|\d+[.)](?=\s|$)|(?:step|stage|option|tip)\s+\d+\s*[.:)–—-](?=\s))\s*",
                         re.IGNORECASE)
"""A heading's or list item's marker at a line's start ("## ", "- ", "2. ", "Step 3: "): not a figure."""


def list_marker_removed(sentence: str) -> str:
    """
    >>> list_marker_removed("2. Pump to 5.5 bar"), list_marker_removed("5.5 to 7 bar"), list_marker_removed("Step 2: call")
    ('Pump to 5.5 bar', '5.5 to 7 bar', 'call')
    """
    return LIST_MARKER.sub("", LIST_MARKER.sub("", sentence, count=1), count=1).strip()  # "- Step 2: call"


_CACHED_TEXT_CHARS = 50_000
"""Texts up to this long have their content words cached (at most 2,048 of them: a few MB, 100 MB at worst)."""


@functools.lru_cache(maxsize=2048)
def _cached_content_words(text: str) -> tuple[str, ...]:
    return tuple(_content_words(text))


_CONTRACTED_NOT = re.compile(r"\b(?:(ca)|(wo)|(sha)|(\w+?))n['’]t\b", re.IGNORECASE)
"""A negative contraction ("isn't", "won't", "can't"), read as its words: it leaves no word "isn" or "won"."""

_CONTRACTED, _CONTRACTION = (re.compile(r"(?<=[a-z])['’](re|ll|ve|d|m)\b", re.IGNORECASE),
                              {"re": " are", "ll": " will", "ve": " have", "d": " would", "m": " am"})
"""Other contractions ("you're", "we'll", "they've"), read as their words: "you're" leaves no word "re"."""


def _uncontracted(text: str) -> str:
    """
    >>> _uncontracted("It isn't safe, so I won't and can't; they don't.")
    'It is not safe, so I will not and can not; they do not.'
    >>> _uncontracted("You're inside it, so you'll get a refund; they've said I'd be fine.")
    'You are inside it, so you will get a refund; they have said I would be fine.'
    """
    if "'" not in text and "’" not in text:
        return text
    text = _CONTRACTED.sub(lambda m: _CONTRACTION[m.group(1).lower()], text)
    return _CONTRACTED_NOT.sub(lambda m: ("can" if m.group(1) else "will" if m.group(2) else "shall" if m.group(3)
                                          else m.group(4)) + " not", text)


def _content_words(text: str) -> list[str]:
    return [w for w in tokens(strip_citations(_uncontracted(text))) if w not in STOPWORDS and not w.isdigit()
            and len(w) > 1]


def content_words(text: str) -> list[str]:
    """The text's words without citations, stop words, bare numbers and single letters. Cached by text: every
    rollout of a group and every dimension reads the same evidence again (~0.5 CPU-s per 256-item GRPO step)."""
    return _content_words(text) if len(text) > _CACHED_TEXT_CHARS else list(_cached_content_words(text))


def numbers(text: str) -> set[str]:
    return {n.replace(",", "") for n in _NUMBER.findall(strip_citations(text))}


def salient_terms(text: str) -> set[str]:
    """Capitalised names and numbers: what an answer must match exactly."""
    names = {m.group(0).lower() for m in _CAPITALISED.finditer(text)}
    return {n for n in names if n not in STOPWORDS and n not in NOT_NAMES} | numbers(text)


@by_content
def names_in(names: set[str], lowered: str) -> float:
    """How many of the (lower-cased) names a lower-cased text names, read as a reader reads a name. As written, a
    plural name by its singular too ("Sundays" asked of a timetable that lists "Sunday"), or with accents dropped on
    both sides ("Ogedei Khan" names "Ögedei Khan"): each counts 1. A name whose words, in order, are the text's
    words but for a slip (one letter off in a word of six letters or more: "Telnet" and "Telenet") or another form
    ("European" and "Europe's", "Sudanese" and "Sudan"): users misspell the names they ask about, but a near
    spelling may be another name, so each counts a half.

    >>> names_in({"sundays", "saturday", "riverside"}, "saturday: 10:00. sunday: closed.")
    2.0
    >>> names_in({"ogedei khan", "telnet", "european"}, "ögedei khan ... telenet ... europe's colonies")
    2.0
    >>> names_in({"south sudan", "indiana", "austria", "energy department"},
    ...          "sudan, which lies south of egypt; india; australia; the department of energy")
    0.0
    """
    plain, sequence = _name_reading(lowered)
    count = 0.0
    for name in names:
        folded = reading_form(name).lower()
        if folded in plain or (len(folded) > 3 and folded.endswith("s") and folded[:-1] in plain):
            count += 1.0
            continue
        parts = _NAME_WORD.findall(folded)
        if parts and any(all(_word_named(part, sequence[i + k]) for k, part in enumerate(parts))
                         for i in range(len(sequence) - len(parts) + 1)):
            count += 0.5
    return count


_NAME_WORD = re.compile(r"[^\W_]+")


@by_content
def _name_reading(lowered: str) -> tuple[str, tuple[str, ...]]:
    plain = reading_form(lowered).lower()
    return plain, tuple(_NAME_WORD.findall(plain))


def _word_named(word: str, other: str) -> bool:
    """Whether a name's word is a word of the text: as written, by its singular, as another form of it
    (`_same_stem`), or, at six letters or more, one letter inserted, dropped, changed or two swapped away from one
    with the same first letter (`_one_slip`)."""
    if word == other or (len(word) > 3 and word.endswith("s") and word[:-1] == other):
        return True
    if len(word) < 5 or len(other) < 5 or word[0] != other[0]:
        return False
    return (len(word) >= 6 and abs(len(other) - len(word)) <= 1 and _one_slip(word, other)) or _same_stem(word, other)


_FORM_ENDINGS = frozenset(("n", "an", "ian", "ean", "ese", "ish", "ic", "ary", "s", "'s", "ns", "ans", "ians"))


def _same_stem(a: str, b: str) -> bool:
    """Whether two words are forms of one name: the shorter, but for at most its last letter, begins the longer,
    five letters or more, and the longer ends as a people's or an adjective's form does ("European" and "Europe",
    "Sudanese" and "Sudan", "Revolutionary" and "Revolution"; not "Indiana" and "India", "Austria" and "Australia").

    >>> [_same_stem("european", w) for w in ("europe", "eurostar")], _same_stem("indiana", "india")
    ([True, False], False)
    >>> _same_stem("austrian", "austria"), _same_stem("austria", "australia")
    (True, False)
    """
    shorter, longer = sorted((a, b), key=len)
    shared = len(os.path.commonprefix([a, b]))
    return shared >= 5 and shared >= len(shorter) - 1 and longer[shared:] in _FORM_ENDINGS


def _one_slip(a: str, b: str) -> bool:
    """Whether two different words are one edit apart (an insertion, a deletion, a substitution or two adjacent
    letters swapped).

    >>> [_one_slip("telnet", x) for x in ("telenet", "telnt", "telnat", "tlenet", "telnets", "tenlte")]
    [True, True, True, True, True, False]
    """
    if len(a) > len(b):
        a, b = b, a
    i = 0
    while i < len(a) and a[i] == b[i]:
        i += 1
    if len(a) == len(b):
        return a[i + 1:] == b[i + 1:] or (i + 1 < len(a) and a[i] == b[i + 1] and a[i + 1] == b[i]
                                          and a[i + 2:] == b[i + 2:])
    return a[i:] == b[i + 1:]


def doc_text(doc: Evidence) -> str:
    return f"{doc.title}. {doc.text}"


@by_content
def lexical_coverage(claim: str, haystack: str) -> float:
    """Share of the claim's content words (stems compared) found in the haystack: the trivial baseline's signal.

    >>> lexical_coverage("The cat sat on a red mat.", "A cat sat down on the mat.")
    0.75
    """
    words = content_words(claim)
    if not words:
        return 1.0
    known = stems(haystack)
    return sum(1 for w in words if stem(w) in known) / len(words)


def stems(text: str) -> frozenset[str]:
    """The stems of a text's content words; cached by text (up to `_CACHED_TEXT_CHARS`, longer ones by content in the
    budgeted store: a long session's user turns), since one evidence text is the haystack of every claim of every
    rollout in its group."""
    return _cached_stems(text) if len(text) <= _CACHED_TEXT_CHARS else _long_stems(text)


def _stems_of(text: str) -> frozenset[str]:
    return frozenset(stem(w) for w in content_words(text))


_cached_stems, _long_stems = functools.lru_cache(maxsize=2048)(_stems_of), by_content(_stems_of)


_REFUSAL_SENTENCE = re.compile(
    r"\b(?:do(?:es)? not|don't|doesn't|cannot|can't|could not|couldn't|unable to|not able to|none of (?:the|these|my) "
    r"(?:documents|sources|passages|results|texts)|no (?:document|source|passage|result|text))\b"
    r"(?!\s+(?:needs?|require[sd]?|ha(?:ve|s)\s+to)\b).{0,40}"
    r"\b(?:mention|say|contain|cover|confirm|find|answer|know|state|verify|give|list|provide|include|specify|"
    r"report|show|tell|indicate)s?\b"
    r"|\b(?:says?|mentions?|gives?|states?) nothing (?:about|on|that|to)\b|\b(?:sources|documents|reports|figures) "
    r"(?:disagree|differ|conflict)(?=\s*(?:[.:;,!]|$))|\bneither (?:of the )?(?:documents?|sources?|passages?|results?|texts?)\b.{0,40}\b(?:mentions?|says?|covers?|"
    r"gives?|answers?|states?|lists?|includes?|specif(?:y|ies)|addresses?)\b"
    r"|\b(?:no \w+(?: \w+)? (?:is|are)|(?:is|are|was|were) not) (?:given|listed|mentioned|stated|provided|specified|"
    r"named|reported|included) (?:in|by) (?:the|any|these|either|my|our) (?:sources?|documents?|passages?|evidence|"
    r"results?|texts?)\b"
    r"|\b(?:sources?|documents?|evidence|passages?)(?:\s+[\w'-]+){0,2}?\s+(?:gives?|contains?|has|have|provides?|"
    r"offers?) no " + LACKED_ITEM + r"|\bno answer in the (?:sources|documents|evidence|passages)\b|\b" + ABSENT_HERE
    + r"|\b(?:" + SOURCES_SILENT + r")|\b" + NOTHING_SAID,
    re.IGNORECASE)


# Clause boundaries inside a sentence: a hedge ("..., though I could not confirm this") is one clause, the claim
# it hedges another, and only the hedge is exempt from the check.
_CLAUSE = re.compile(r"\s*(?:[;()]|,(?!\d{3})|:(?!\d)|\s-\s|\s—\s|\bbut\b|\balthough\b|\bthough\b)\s*", re.IGNORECASE)
# Imperative advice ("Check the official site before you go") is not a claim about the world unless it carries one.
_ADVICE = re.compile(r"^\W*(?:check|visit|ask|contact|call|try|consider|see|look|make sure|keep|remember to|"
                     r"don't forget|do not forget)\b", re.IGNORECASE)
# Lead-ins that state what follows ("Note that X", "Remember: X", "Keep in mind that X"): X is the claim.
_LEAD = re.compile(r"^\W*(?:(?:please )?note|remember|keep in mind|be aware|bear in mind)\b\s*(?:that\b|:|,)\s*",
                   re.IGNORECASE)

# Frames that only announce the answer ("So the answer is X", "In short, X", "X is the answer", "Answer: X"): they
# add no claim of their own, so the claim is X, read as a bare answer would be.
_ANSWER_LEAD = re.compile(
    r"^\W*(?:(?:so|thus|hence|therefore|in short|in brief|in summary|in sum|to sum up|briefly|simply put|put simply)"
    r"\s*[,:]?\s*)?(?:(?:the|my|our)\s+)?(?:(?:short|direct|final|simple|brief)\s+)?answer(?:\s+(?:is|would be)\b|\s*[:-])\s*"
    r"|^\W*(?:so|thus|hence|therefore|in short|in brief|in summary|in sum|to sum up|briefly|simply put|put simply)\s*[,:]\s*",
    re.IGNORECASE)
_ANSWER_TAIL = re.compile(r"\s+(?:is|would be)\s+(?:the|my|our)\s+(?:(?:short|direct|final|simple|brief)\s+)?answer\W*$",
                          re.IGNORECASE)


# An attribution left dangling once the citation marker is stripped ("Mongol Empire, according to [Doc 2].", "...,
# as the source states"): it says where the claim comes from, not what it claims.
_ATTRIBUTION_TAIL = re.compile(
    r"[,;]?\s*(?:according to|as (?:the |this |that )?(?:sources?|documents?|articles?|passages?|evidence|page) "
    r"(?:says?|states?|puts? it|reports?|notes?|shows?)|(?:says|per|from|see) (?:the )?(?:sources?|documents?))\s*([.!]?)\s*$",
    re.IGNORECASE)


def answer_frame_removed(text: str) -> str:
    """`text` without a frame that only announces the answer.

    >>> answer_frame_removed("So the answer is kinematic.")
    'kinematic.'
    >>> answer_frame_removed("Joy is the answer."), answer_frame_removed("1944 is the answer.")
    ('Joy.', '1944.')
    >>> answer_frame_removed("In short, Rankine.")
    'Rankine.'
    >>> answer_frame_removed("Answer: improved markedly")
    'improved markedly'
    >>> answer_frame_removed("The answer key was lost in 1998.")
    'The answer key was lost in 1998.'
    >>> answer_frame_removed("Mongol Empire, according to ."), answer_frame_removed("It is Rankine, as the source states.")
    ('Mongol Empire.', 'It is Rankine.')
    """
    kept = _ANSWER_LEAD.sub("", text, count=1)
    kept = _ANSWER_TAIL.sub(".", kept) if _ANSWER_TAIL.search(kept) else kept
    kept = _ATTRIBUTION_TAIL.sub(r"\1", kept)
    return kept.strip() if content_words(kept) or numbers(kept) else text


# A line that names where the answer comes from ("Source: Warsaw", "References: [Doc 2]") claims nothing itself; what
# follows the label is a claim like any other when it says more than a name (a figure, more than five words).
_SOURCE_LINE = re.compile(r"^\W*(?:sources?|references?|citations?|cited|documents?|evidence|from)\s*:\s*", re.IGNORECASE)
_SOURCE_NAME = re.compile(r"^(?:doc(?:ument)?s?\s*[\d, ]+|[^\d]+?)\W*$", re.IGNORECASE)


def _specific(text: str, user_words: str) -> list[str]:
    """Numbers and names in `text` that the user's own words do not already contain."""
    known = user_words.lower()
    return [t for t in salient_terms(text) if t.split("'")[0] not in known]


@by_content
def _verdict_clause(clause: str, content: frozenset[str] | None) -> bool:
    """A verdict on the user's premise (`is_premise_verdict`), or, given the stems the user and the evidence use
    (`content`), a clause that only says the user is mistaken and names none of them (`correction_only`)."""
    return is_premise_verdict(clause) or (content is not None and correction_only(
        clause, lambda word: word.lower() not in STOPWORDS and stem(word.lower()) in content))


FINITE = re.compile(r"\b(?:is|are|was|were|be|been|being|am|has|have|had|does|did|do|can|could|will|would|should|"
                    r"may|might|must|shall)\b|n't\b", re.IGNORECASE)
"""A finite auxiliary: what makes a phrase a statement (`claims.is_fragment`, `_finite`)."""


_LEADING = frozenset(("on", "in", "at", "for", "or", "and", "nor", "with", "by", "from", "to", "of", "about", "whether",
                      "if", "when", "where", "which", "what", "how", "as", "than", "either", "neither", "both", "not"))
"""Words a clause that states nothing opens with: a phrase hanging off a decline ("on public holidays or otherwise")."""


def _finite(clause: str) -> bool:
    """Whether a clause has a finite auxiliary or a contracted "is" ("it's"): what the words after a decline's "and"
    need to be read as a statement of their own, not a second thing the decline lacks ("Sunday and holiday rates")."""
    return bool(FINITE.search(clause) or re.search(r"\w['’]s\b", clause))


def _fragment(clause: str) -> bool:
    """A clause that states nothing on its own: no finite auxiliary or "'s", and a phrase that opens with a preposition
    or a conjunction ("on public holidays or otherwise") or has two words at most; not "weekday overtime is paid at
    double time", "Oakfield includes daily walks" or "over-50s get it free".

    >>> [_fragment(c) for c in ("on public holidays or otherwise", "Oakfield includes daily walks", "it's free after 6pm")]
    [True, False, False]
    """
    words = re.findall(r"[\w'’-]+", clause)
    if _finite(clause):
        return False
    return len(words) <= 2 or (bool(words) and words[0].lower() in _LEADING)


@by_content
def claim_text(sentence: str, user_words: str = "", content: frozenset[str] | None = None) -> str | None:
    """The factual content of an answer sentence, as the claim checker reads it: citation markers stripped, a
    hedging clause that declines ("though I could not confirm this") dropped, a leading "Note that" /
    "Remember:" dropped. None for a sentence without a claim: a genuine refusal ("The sources do not say when it
    opens") or advice that names nothing specific ("Check the official site before you go").

    >>> claim_text("The show premiered in 1998, though I could not confirm this [Doc 1].")
    'The show premiered in 1998.'
    >>> claim_text("Note that the track opened on 3 May 2019.")
    'the track opened on 3 May 2019.'
    >>> claim_text("The evidence does not say when the museum opens.") is None
    True
    >>> claim_text("Check the official site before you go.") is None
    True
    >>> claim_text("Note that capping at 80% slowly damages the battery; it is a fault.", "My battery stops at 80%")
    'capping at 80% slowly damages the battery; it is a fault.'
    >>> claim_text("Capping at 80% extends battery life; it is not a fault, though the sources do not say more.", "stops at 80%")
    'Capping at 80% extends battery life, it is not a fault.'
    >>> claim_text("The premise is wrong: rocks do crave water [Doc 2].", "Why do rocks crave water?")
    'rocks do crave water.'
    >>> claim_text("1413 [Doc 1].")  # a bare figure is a claim: the figure the question asks for
    '1413.'
    >>> claim_text("The question mixes up two events.") is None
    True

    Beside a decline, a fragment echoing the question states nothing; a statement of the user's premise does:

    >>> claim_text("The sources don't say, on public holidays or otherwise.", "Is it open on public holidays?") is None
    True
    >>> [claim_text(t, "Overtime is paid at double time. What do I get for a weekday week?") for t in (
    ...  "I can't say your exact pay, but weekday overtime is paid at double time.",
    ...  "I cannot tell you the exact figure and weekday overtime is paid at double time.")]
    ['weekday overtime is paid at double time.', 'weekday overtime is paid at double time.']
    >>> claim_text("The sources don't mention Sunday and holiday rates.", "What do I get on a Sunday?") is None
    True
    >>> claim_text("It is likely to be higher now, but the sources don't say by how much.", "What was the rent?") is None
    True
    >>> claim_text("MSc word limit: not given in these documents", "What's the MSc dissertation word limit?") is None
    True

    Given the stems the user and the evidence use (`content`), a clause that only says the user is mistaken and
    names none of them is such a verdict too (`reward.rules.verdicts.correction_only`):

    >>> content = stems("Is parking free after 6pm? Charges apply 8am to 8pm.")
    >>> claim_text("Small correction: charges apply until 8pm [Doc 1].", "Is parking free after 6pm?", content)
    'charges apply until 8pm.'
    """
    text = _MARKUP.sub("", strip_citations(sentence)).strip()
    if _verdict_clause(text, content):
        return None
    label = _SOURCE_LINE.match(text)
    if label:
        named = text[label.end():].strip()
        if not named or (_SOURCE_NAME.match(named) and len(named.split()) <= 5):
            return None
        text = named
    # "Note that X" / "Remember: X" states X: the lead-in goes, X is checked like any claim.
    text = _LEAD.sub("", text).strip() or text
    text = answer_frame_removed(text)
    refusing = bool(_REFUSAL_SENTENCE.search(text))
    if refusing or any(_verdict_clause(c, content) for c in _CLAUSE.split(text) if c):
        # What is left once the declining clauses (and a verdict on the user's premise) are gone is still a claim (a
        # hedge exempts only itself), unless it is advice that names nothing specific ("so check the official
        # site"). Beside a refusal, a fragment echoing the question ("on public holidays or otherwise") is no claim;
        # beside a verdict on the premise, what follows is the correction the verdict rests on, and it is checked
        # however many of the question's words it repeats ("The premise is wrong: rocks do crave water" claims
        # what the question assumed).
        # (a statement joined to a decline by "and" is a clause of its own: "I cannot tell you the figure and weekday
        # overtime is paid at double time" states the second half; not inside a quoted question)
        clauses = [part for c in _CLAUSE.split(text) if c for part in (
            [c] if not _REFUSAL_SENTENCE.search(c) or re.search(r"[\"“”?]", c) else
            [c, *(p for p in re.split(r"\s+and\s+", c)[1:] if not _REFUSAL_SENTENCE.search(p) and _finite(p))])]
        kept = [c for c in clauses if c and c.strip(" .") and not _REFUSAL_SENTENCE.search(c)
                and not _verdict_clause(c, content)]
        # ... and a word that only leads the correction ("Actually, that is not the case") is no claim either
        kept = [c for c in kept if not (content is not None and content_words(c)
                                        and {w.lower() for w in content_words(c)} <= DISCOURSE)]
        kept = [c for c in kept if not (_ADVICE.match(c) and not _specific(c, user_words))]
        asked = {stem(w) for w in content_words(user_words)}
        said = {stem(w) for c in kept for w in content_words(c)} - asked
        # (a statement of the user's own words beside a decline, "I can't say your exact pay, but weekday overtime is
        # paid at double time", accepts the user's premise and is checked like any claim; a fragment is still none,
        # nor is a line's label, "MSc word limit: not given in these documents")
        echo = (refusing and len(said) < 2 and not any(_specific(c, user_words) for c in kept)
                and not any(not _fragment(c) and not re.search(re.escape(c.strip()) + r"\s*:", text)
                            and len(asked & {stem(w) for w in content_words(c)}) >= 2 for c in kept))
        if not kept or echo:
            return None
        text = ", ".join(c.strip(" .") for c in kept) + "."
    if _ADVICE.match(text) and not _specific(text, user_words):
        return None
    return text if content_words(text) or numbers(text) else None


_FIGURE_ONLY = re.compile(r"[\d.,:]+")  # a figure ("0.30", "10:00") is the number check's, no name


_WEEK_PARTS = (("weekday", frozenset({"monday", "tuesday", "wednesday", "thursday", "friday"})),
               ("working day", frozenset({"monday", "tuesday", "wednesday", "thursday", "friday"})),
               ("weekend", frozenset({"saturday", "sunday"})))
"""Parts of the week the evidence may name instead of their days: "weekdays" names Monday to Friday."""


def days_named(lowered: str) -> frozenset[str]:
    """The days of the week a lower-cased text names by the part of the week they are in ("weekdays")."""
    return frozenset().union(*(named for part, named in _WEEK_PARTS if part in lowered))


_DAYS = frozenset().union(*(named for _, named in _WEEK_PARTS))


@functools.lru_cache(maxsize=8192)
def days_in(text: str) -> frozenset[str]:
    """The days of the week a text names, by name or by the part of the week ("Saturdays", "weekdays")."""
    lowered = text.lower()
    return frozenset(d for d in _DAYS if d in lowered) | days_named(lowered)


def novel_names(claim: str, haystack: str) -> list[str]:
    """Capitalised names of the claim that the evidence never mentions, in the singular or the plural (the caller's
    haystack: the user's words are no evidence); a day of the week is mentioned by the part of the week it is in.

    >>> novel_names("It opens on Saturdays, and at Kessler.", "Open on Saturday."), novel_names("In Paris.", "Pari.")
    (['kessler'], ['paris'])
    >>> novel_names("5:42, Monday to Friday.", "On weekdays the first train leaves at 5:42."), novel_names("On Sunday.", "On weekdays.")
    ([], ['sunday'])
    >>> novel_names("Ögedei Khan succeeded him.", "His son Ogedei Khan followed.")
    []
    """
    lowered = reading_form(haystack).lower()  # accents dropped on both sides: "Ogedei" is the evidence's "Ögedei"
    days = days_named(lowered)
    return sorted(n for n in salient_terms(reading_form(claim)) if not _FIGURE_ONLY.fullmatch(n) and n not in lowered
                  and n.removesuffix("s") not in days
                  and not (len(n) > 5 and n.endswith("s") and n[:-1] in lowered)
                  and not any(part in lowered for part in n.split() if len(part) > 3))


MODEL_FLOOR, MODEL_SPAN = 0.1, 0.4
"""How the claim's P(supported) (the artifact's combination of the model with lexical coverage when it carries one,
else the model's own) reads as support: linearly, below MODEL_FLOOR none, above MODEL_FLOOR + MODEL_SPAN full. The
combination is calibrated on class-balanced training pairs, so a claim loses support only once it is more likely
unsupported than not; chosen on the project's constructed answers and calibration set, never on a held-out
benchmark."""


_HEADER_LINE = re.compile(r"^\s*(?:#+\s|\*\*[^*]+\*\*:?\s*$|__[^_]+__:?\s*$)|:\s*$")


@by_content
def copies_evidence(sentence: str, docs: Sequence[Evidence]) -> bool:
    """The sentence is (nearly) a verbatim copy of an evidence sentence: its words match one at a ratio of 0.8 or
    more, in order or in runs of three in any order (clauses swapped around a comma are still the sentence's).
    Both are read as a reader sees them (accents and look-alike letters folded), and another language's function
    words the evidence sentence lacks ("le", "est" put in for "the", "is") are gaps in the copy, not words of the
    answer's own.

    >>> doc = Evidence(id="1", text="The museum opens at 9 am on weekdays. Tickets cost 20 euros, and parking is free.")
    >>> copies_evidence("The museum opens at 9 am on weekdays [Doc 1].", [doc]), copies_evidence("It opens at 9 am.", [doc])
    (True, False)
    >>> copies_evidence("Parking is free, and tickets cost 20 euros.", [doc])
    True
    >>> copies_evidence("Le muséum opens at 9 am on weekdays.", [doc])
    True
    """
    words = re.findall(r"\w+", reading_form(strip_citations(sentence)).lower())
    if len(words) < 4:
        return False
    for doc in docs:
        for other, other_set, runs in _sentence_words(doc.title) + _sentence_words(doc.text):
            own = [w for w in words if w in other_set or w not in MIXED_IN]
            wanted = set(own)
            if len(own) < 4 or len(wanted & other_set) < 0.6 * len(wanted):
                continue
            matcher = difflib.SequenceMatcher(None, own, other, autojunk=False)
            if matcher.real_quick_ratio() >= 0.8 and matcher.quick_ratio() >= 0.8 and matcher.ratio() >= 0.8:
                return True  # (the two quick ratios bound the ratio from above in linear time)
            covered = {k for i in range(len(own) - 2) if tuple(own[i:i + 3]) in runs for k in range(i, i + 3)}
            if 2 * len(covered) / (len(own) + len(other)) >= 0.8:
                return True
    return False


@by_content
def _sentence_words(text: str) -> tuple[tuple[list[str], frozenset[str], frozenset[tuple[str, str, str]]], ...]:
    """Each sentence of an evidence text as (its words, lower-cased, their set and their runs of three): read once per
    text, however many answer sentences are compared with it."""
    out = []
    for sentence in split_sentences(text) if text else []:
        words = re.findall(r"\w+", reading_form(sentence).lower())
        out.append((words, frozenset(words), frozenset(zip(words, words[1:], words[2:]))))
    return tuple(out)
