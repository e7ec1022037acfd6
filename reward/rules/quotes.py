"""Verbatim-quote verification: does a span a judge quoted really occur in the evidence?

Evidence-grounded judging asks the judge to quote the supporting or contradicting span; a quote that is not in
the evidence makes the judgment invalid (it is retried, then unscored). Matching is on NFKC-normalised text with
whitespace collapsed and typographic quotes and dashes unified, so line breaks and full-width characters do not
fail an honest quote; an ellipsis splits a quote into parts that must occur in order.
"""

from __future__ import annotations

import re
import unicodedata

from reward.schema import Evidence

_TYPOGRAPHY = str.maketrans({"\u2018": "'", "\u2019": "'", "\u201c": '"', "\u201d": '"', "\u2013": "-", "\u2014": "-"})
_ELLIPSIS = re.compile(r"\s*(?:\.\.\.|\u2026)\s*")
MIN_QUOTE_CHARS = 8


def normalise(text: str) -> str:
    """NFKC, unified typography, collapsed whitespace.

    >>> normalise("Ｆｕｎｇａｌ  disease\\n(“Colletotrichum”)")
    'Fungal disease ("Colletotrichum")'
    """
    text = unicodedata.normalize("NFKC", text).translate(_TYPOGRAPHY)
    return re.sub(r"\s+", " ", text).strip()


def quote_in_text(quote: str, text: str) -> bool:
    """True when every ellipsis-separated part of `quote` (at least 8 characters in all) occurs in order.

    >>> quote_in_text("caused by Colletotrichum ... high humidity", "It is caused by Colletotrichum, often in high humidity.")
    True
    >>> quote_in_text("caused by bacteria", "It is caused by Colletotrichum.")
    False
    """
    parts = [normalise(p) for p in _ELLIPSIS.split(quote.strip().strip('"'))]
    parts = [p for p in parts if p]
    if sum(len(p) for p in parts) < MIN_QUOTE_CHARS:
        return False
    haystack = normalise(text)
    position = 0
    for part in parts:
        found = haystack.find(part, position)
        if found < 0:
            return False
        position = found + len(part)
    return True


def verify_quote(quote: str, evidence: list[Evidence], doc: str | None = None) -> bool:
    """Whether `quote` occurs in the named evidence item, or in any item when `doc` is None or unknown."""
    docs = [d for d in evidence if d.id == doc] or evidence if doc is not None else evidence
    return any(quote_in_text(quote, f"{d.title}\n{d.text}") for d in docs)
