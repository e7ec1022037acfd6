"""Verdicts on the user's premise ("That premise is not right.", "Premise: not correct"): the lead of a
correction, which the sentences after it carry. Read by the rules (the length rule counts the correction a verdict
leads as the answer's own) and by the local judge tier. Also the verdict that the sources do not cover the question,
said by what they cover instead ("[Doc 1] covers Warsaw, but not this."), which the local tier reads."""

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
