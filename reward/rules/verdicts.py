"""Verdicts on the user's premise ("That premise is not right.", "Premise: not correct"): the lead of a
correction, which the sentences after it carry. Read by the rules (the length rule counts the correction a verdict
leads as the answer's own) and by the local judge tier. Also the verdict that the sources do not cover the question,
said by what they cover instead ("[Doc 1] covers Warsaw, but not this."), and the frame that says which source a
claim follows ("Going by the more recent one, ..."), which the local tier reads."""

from __future__ import annotations

import re

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


_SOURCE_NOUNS = r"(?:(?:web\s*)?pages?|sources?|documents?|docs?|articles?|versions?|editions?|reports?|(?:web)?sites?|entry|entries|passages?)"
_SOURCE_AGE = r"(?:(?:more\s+|most\s+)?(?:recent|newer|newest|older|oldest|latest|earlier|later|current|updated|archived|outdated)|\d{4})"
_SOURCE_FRAME = re.compile(
    r"^\W*(?:going by|according to|per|based on|judging by|following|trusting)\s+(?:the\s+|this\s+|that\s+)?"
    rf"(?:{_SOURCE_AGE}\s+)+(?:one|{_SOURCE_NOUNS})\b\s*[,:]\s*", re.IGNORECASE)


def source_frame_removed(text: str) -> str:
    """`text` without a frame in front that only says which of the sources the claim follows ("Going by the more
    recent one, the answer is 1816."): the claim after it is checked as any claim is.

    >>> source_frame_removed("Going by the more recent one, the answer is 1816.")
    'the answer is 1816.'
    >>> source_frame_removed("According to the 2025 source: it opened in 1999."), source_frame_removed("By 1816, it had opened.")
    ('it opened in 1999.', 'By 1816, it had opened.')
    """
    return _SOURCE_FRAME.sub("", text, count=1).strip() or text


def source_age_words(text: str) -> set[str]:
    """The words of a sentence that say how old a source is ("an older page from 2010", "the 2025 source is the more
    recent one"): they describe the sources, not the world the claim is about.

    >>> sorted(source_age_words("An older page gives 2002, but the 2025 source is the more recent one."))
    ['older', 'recent']
    >>> source_age_words("The older bridge is 212 metres tall.")
    set()
    """
    if not re.search(rf"\b{_SOURCE_NOUNS}\b", text, re.IGNORECASE) and not _SOURCE_FRAME.match(text):
        return set()
    found = re.finditer(rf"\b{_SOURCE_AGE}(?=\s+(?:\d{{4}}\s+)?(?:one|{_SOURCE_NOUNS})\b)", text, re.IGNORECASE)
    return {w.lower() for m in found for w in re.findall(r"[A-Za-z]+", m.group(0)) if w.lower() not in ("more", "most")}


_NEWER = ("recent", "newer", "newest", "latest", "current", "updated")
_AGED = re.compile(rf"\b(?P<age>{_SOURCE_AGE})(?:\s+(?P<year>\d{{4}}))?\s+(?P<noun>one|{_SOURCE_NOUNS})\b(?:\s+(?:from|of|dated)\s+"
                   r"(?P<from>\d{4}))?", re.IGNORECASE)


def source_ages(text: str) -> list[tuple[bool | None, str | None]]:
    """What a sentence says of its sources' age, per source it describes: (newer, year), newer True for "the more
    recent one", False for "an older page", None where only a year names it ("the 2025 source"); year the publication
    year it gives that source, if any. Empty for a sentence that describes no source.

    >>> source_ages("An older page from 2010 gives 2002 instead, but the 2025 source is the more recent one.")
    [(False, '2010'), (None, '2025'), (True, None)]
    >>> source_ages("The older bridge is 212 metres tall."), source_ages("The most recent one is from 2022: 1,020 euros.")
    ([], [])
    >>> source_ages("Going by the more recent one, the answer is 1816.")
    [(True, None)]
    """
    out = []
    frame = _SOURCE_FRAME.match(text)
    for match in _AGED.finditer(text):
        # "one" is a source where a source was named before it ("the 2025 source is the more recent one") or in a
        # frame that says which source a claim follows; elsewhere it may be anything ("the most recent one is from
        # 2022", of a figure).
        if match.group("noun").lower() == "one" and not (
                (frame and match.end() <= frame.end()) or re.search(rf"\b{_SOURCE_NOUNS}\b", text[:match.start()], re.I)):
            continue
        age = match.group("age").lower()
        year = match.group("year") or match.group("from") or (age if age.isdigit() else None)
        word = age.split()[-1]
        out.append((None if word.isdigit() else word in _NEWER, year))
    return out
