"""How a text says the sources do not answer (`declines`), read alike by the refusal rule (`reward.rules.checks`,
`refusal.detect`) and the local tier's claim reading (`reward.judges.local.text`), so the two never drift apart."""

from __future__ import annotations

import re

from reward.memo import by_content
from reward.textnorm import reading_form


LACKED_ITEM = r"(?:[\w'-]+ ){0,3}?(?:answer|information|mention|figure|number|date|details?|data|hours|price)s?\b"
"""What a sentence says the sources lack ("the evidence has no opening-weekend figure"): read by the refusal rule
and by the local tier's claim reading alike."""
ABSENT_HERE = (r"there(?:'s|’s| is| are) no " + LACKED_ITEM + r"(?: [\w'’-]+){0,6}? (?:here|in (?:the|these|my|any) "
               r"(?:sources?|documents?|results?|evidence|passages?|texts?))\b")
"""A sentence that says what is absent from the sources ("There's no 2024 figure for two-bedroom flats here"),
read by the refusal rule and the local tier's claim reading alike."""
_SOURCES = (r"(?:(?:the|these|this|those|my|our|any|either|both) (?:[\w&'’-]+ ){0,4}?(?:sources?|documents?|results?|"
            r"evidence|passages?|texts?|pages?|articles?|excerpts?|snippets?|information|material|notes)"
            r"(?: (?:i|we) (?:have|found|(?:was|were) given))?|(?:what|anything) (?:i|we) (?:have|found|(?:was|were) given))")
"""The sources as a sentence names them ("these pages", "the search results", "the Harrow & Finch returns
information", "what I have", "anything I have")."""
SOURCES_SILENT = (
    r"(?:(?:sources?|documents?|evidence|passages?|pages?|results?|texts?) (?:are|is|were|was|remains?|stays?) "
    r"(?:\w+ )?silent\b"
    r"|(?:(?:is|are|was|were)(?:n't|n’t| not)|(?:^|(?<=:)|(?<=:\s))not) (?:(?:given|listed|mentioned|stated|"
    r"provided|specified|named|reported|included|covered|shown|found) (?:anywhere )?(?:here|(?:in|by) " + _SOURCES +
    r")|(?:anywhere )?in " + _SOURCES + r")\b"
    r"|(?:do|does|did)(?:n't|n’t| not) (?:appear|feature|come up|show up)(?: anywhere)? (?:here|in " + _SOURCES +
    r")(?: at all)?"
    r"|\bno (?:[\w'’-]+ ){1,6}?(?:appears?|features?|is (?:given|listed|mentioned|stated|shown|included)"
    r"|(?:has|have) been (?:given|listed|mentioned|stated|shown|included|published|announced|provided|released))"
    r" (?:anywhere )?(?:here|in " + _SOURCES + r")\b"
    r"|there(?:'s|’s| is| are) no (?:[\w'’-]+ ){1,4}?in " + _SOURCES + r"\b"
    r")(?:\s+(?:on|about|for|regarding)\b[^;:,.!?—–]{0,80})?(?:\s*\([^()]*\))?(?:\s*\[[^\[\]]*\])*"
    r"[ \t]*(?:[.!?]|\n|$)")
"""A sentence that says the sources are silent on something, in the words of its own that a reader would use ("The
sources are silent on sale items", "Net profit isn't in these pages", "No seat figure for the Greens appears here",
"There's no repotting schedule in what I have"), and as a labelled line writes it ("Nightly permit limit: not given in
the sources"): read by the refusal rule and the local tier's claim reading alike.
Something the sources lack "here" is a lacked item (`ABSENT_HERE`, a participle of saying) or not read: "parking
isn't free here" is a claim. The statement ends its sentence: one leading into an answer from the sources ("Strictly
speaking the sources are silent; it closes at 16:00") is a disclaimer, read as the claim it makes.

>>> silent = re.compile(SOURCES_SILENT, re.IGNORECASE)
>>> [bool(silent.search(t)) for t in ("The sources are silent on sale items.", "No seat figure appears here.",
...  "Holiday openings don't appear here at all.", "Bank holidays aren't covered by anything I have.",
...  "Strictly speaking the sources are silent; it closes at 16:00.", "Parking isn't free here.",
...  "Nightly permit limit: not given in the sources", "Cost: not listed in these pages (only paper prints are).",
...  "Not stated in these sources; the 2023 figure is £96m.", "The fee isn't listed in the sources [Doc 1].")]
[True, True, True, True, False, False, True, True, False, True]
"""
_NAMED_SOURCES = (r"(?:(?:the|these|this|those|[A-Z][\w&'’-]*['’]s) (?:[\w&'’-]+ ){0,3}?|[A-Z][\w&'’-]* )"
                  r"(?:leaflets?|pages?|notices?|guides?|manuals?|handbooks?|timetables?|tables?|lists?|websites?|"
                  r"terms|polic(?:y|ies)|reports?|summar(?:y|ies)|excerpts?|extracts?|details|documents?|sources?|"
                  r"passages?|texts?|results?|articles?)")
"""The sources as an answer names them by what they are and whose ("the leaflet", "FitHaven's terms", "Harbourline's
fee list", "the Corvin D7 manual excerpts"): one that "doesn't say" declines, unless it goes on to say what they do
say instead (`_SAYS_INSTEAD`)."""
_SAYS_INSTEAD = r"(?![^.;!?]{0,80}?[—–,;-]\s*(?:but\s+)?(?:it|they)\s+(?:says?|states?|shows?))"
"""What keeps a statement that the sources do not say something from declining: it goes on to say what they do say
instead ("The report doesn't say the lake got colder: it says it warmed" corrects the user)."""
_IN_SOURCES = r"(?:here|in (?:" + _SOURCES + "|" + _NAMED_SOURCES + r"))"
NOTHING_SAID = (r"(?:nothing " + _IN_SOURCES + r" (?:says?|gives?|mentions?|states?|lists?|covers?|shows?|tells?|"
                r"specifies|answers?|sets? out)\b(?! (?:otherwise|differently|the opposite)\b)"
                r"|there(?:'s|’s| is) nothing " + _IN_SOURCES + r" (?:about|on|regarding|that (?:says|gives|mentions|"
                r"covers|states))\b)" + _SAYS_INSTEAD)
"""A sentence that says nothing in the sources answers ("Nothing here says when Millbrook opens on a Saturday",
"There's nothing in these Ashgrove pages about notice periods"), read by the refusal rule and the local tier's claim
reading alike; one that goes on to say what they do say instead corrects the user.

>>> said = re.compile(NOTHING_SAID, re.IGNORECASE)
>>> [bool(said.search(t)) for t in ("Nothing here says when it opens on a Saturday.",
...  "There's nothing in these Ashgrove pages about notice periods.", "There's nothing about it to worry you.",
...  "Nothing in the leaflet says it's optional — it says a permit is required.", "Nothing here says otherwise.")]
[True, True, False, False, False]
"""
_CANT = r"(?:can ?n[o']t|can[o']?t)"
""""cannot", "can not", "can't" (a typeset apostrophe is read as a plain one first, `_refusal_in`)."""
_REFUSAL = re.compile(
    r"\b(?:" + ABSENT_HERE + "|" + SOURCES_SILENT + "|" + NOTHING_SAID + "|"
    r"(?:i|we) (?:could ?n[o']t|" + _CANT + r"|am unable to|was unable to|were unable to|do not|don't) "
    r"(?:find|determine|confirm|verify|answer|provide|tell|say|give|advise|point|work out|be sure|calculate|compute|"
    r"compare|recommend|quote|work (?:it|this|that) out)"
    r"|(?:(?:is ?n[o']t|is not|not) |im)possible to (?:say|tell|determine|know|confirm|work out|calculate|compare)\b"
    r"|there(?:'s| is) no way (?:for (?:me|us) )?to (?:say|tell|know|determine|confirm|work out|calculate|compare|"
    r"be sure)\b|no way of (?:knowing|telling|saying|working out)\b"
    r"|" + _CANT + r" be (?:determined|confirmed|worked out|told)\b"
    r"|" + _NAMED_SOURCES + r" (?:do(?:es)? ?n[o']t|do(?:es)? not) (?:say|mention|give|list|include|explain|cover|describe|"
    r"state|separate|set out|specify|show|provide)\b" + _SAYS_INSTEAD +
    r"|(?:the |these |my )?(?:(?:(?:provided|available|retrieved|given|search|cited) )?(?:evidence|sources?|"
    r"documents?|passages?)|(?:provided|available|retrieved|given|search|cited) (?:results?|notes?|information)) "
    r"(?:do(?:es)? ?n[o']t|do(?:es)? not|did ?n[o']t|did not|contains? no|has no|have no|fails? to) "
    r"(?:contain|mention|say|include|cover|provide|support|address|specify|answer|state|give|list|tell|show|report|"
    r"indicate)"
    r"|(?:there is|there's|there are) (?:no|not enough|insufficient) (?:reliable |relevant |sufficient )?"
    r"(?:information|evidence|sources?|data|details)"
    r"|none of the (?:provided |available |retrieved |cited )?(?:evidence|sources|documents|passages|results) "
    r"(?:answers?|says?|mentions?|gives?|states?|contains?|covers?)"
    r"|(?:sources?|documents?|evidence|passages?) (?:gives?|contains?|has|have|provides?|offers?) no " + LACKED_ITEM +
    r"|no answer in the (?:sources|documents|evidence|passages)"
    r"|not enough (?:information|evidence)|insufficient (?:information|evidence)"
    r"|no (?:reliable|relevant|available) (?:information|evidence|sources?)"
    r"|neither (?:of the )?(?:documents?|sources?|passages?|results?|texts?)\b.{0,40}?\b(?:mentions?|says?|covers?|"
    r"gives?|answers?|states?|lists?|includes?|specif(?:y|ies)|address(?:es)?)"
    r"|no \w+(?: \w+)? (?:is|are) (?:given|listed|mentioned|stated|provided|specified|named) (?:in|by) "
    r"(?:the|any|these|either) (?:sources?|documents?|passages?|evidence|results?|texts?)"
    r")",
    re.IGNORECASE,
)


_APOSTROPHES = str.maketrans({"’": "'", "‘": "'", "ʼ": "'"})
# Every refusal pattern contains one of these; they gate the slower regex.
_REFUSAL_CUES = ("n't", "n'", "not", "impossible", "unable", "no ", "insufficient", "none of", "neither", "silent")


@by_content
def _refusal_in(read: str) -> re.Match | None:
    """The refusal phrase of a text already in its reading form, if any (the cues gate the slower pattern). A typeset
    apostrophe reads as a plain one: "can’t" declines as "can't" does."""
    read = read.translate(_APOSTROPHES)
    lowered = read.lower()
    return _REFUSAL.search(read) if any(cue in lowered for cue in _REFUSAL_CUES) else None


def declines(text: str) -> bool:
    """Whether a text says the sources do not answer, as the refusal rule reads a refusal ("None of the documents
    answers this.", "Thé sóurcés dó nót ánswér").

    >>> declines("Beyond that, the documents give no answer to this question."), declines("It opened in 1901.")
    (True, False)

    In the words an answer uses of itself and of the sources it names ("I can't say", "it isn't possible to tell",
    "FitHaven's terms don't set out ..."); a correction of the user is no decline, nor is what the user can't do:

    >>> [declines(t) for t in ("The leaflet doesn't mention aspirin, so I can't say whether it's safe.",
    ...  "The two pages conflict, so it isn't possible to say what a car pays.", "FitHaven's terms don't set out the fee.",
    ...  "The report doesn't say the lake got colder — it says it warmed.", "You can't cancel after 14 days.")]
    [True, True, True, False, False]
    >>> declines("I can’t say whether it’s safe."), declines("The leaflet doesn’t mention aspirin.")
    (True, True)

    ... and in the words of what the answer cannot work out from them ("I can't calculate", "there's no way to say"),
    not what the world does not allow:

    >>> [declines(t) for t in ("They don't say what rate applies, so I can't calculate what you're owed.",
    ...  "Without your region's rates there's no way to say which is cheaper.", "There's no way to schedule dark mode.",
    ...  "You can't compare them on price alone.")]
    [True, True, False, False]
    """
    return _refusal_in(reading_form(text)) is not None
