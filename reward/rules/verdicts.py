"""Verdicts on the user's premise ("That premise is not right.", "Premise: not correct"): the lead of a
correction, which the sentences after it carry. Read by the rules (the length rule counts the correction a verdict
leads as the answer's own) and by the local judge tier."""

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
