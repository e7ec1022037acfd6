"""Text folding for security checks: what a piece of text looks like to a reader, not what its code points are.

A policy (or a hostile client) can spell a fence marker or a judge-addressing phrase so that a plain substring
check misses it while an LLM judge still reads it: fullwidth or small-form brackets, zero-width characters,
other case, extra spaces, Cyrillic or Greek letters that look Latin. `fold` maps such text to a canonical form
(NFKC, format characters removed, confusable letters and brackets mapped to ASCII, case folded) and keeps, for
every folded character, the index of the original character it came from, so a match found in the folded text can
be cut out of the original. The fence of the judge prompt and the injection rule use the same folding.

This module imports nothing from the package (it sits at the bottom, beside `schema`).
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

# Letters that render like ASCII letters in common fonts (Unicode's confusables, the subset that matters for
# English words and markers), and bracket look-alikes NFKC leaves alone.
_CONFUSABLES = {
    # Cyrillic
    "а": "a", "в": "b", "е": "e", "ё": "e", "к": "k", "м": "m", "н": "h", "о": "o", "р": "p", "с": "c", "т": "t",
    "у": "y", "х": "x", "ѕ": "s", "і": "i", "ї": "i", "ј": "j", "ԁ": "d", "ԛ": "q", "ԝ": "w", "һ": "h", "ӏ": "l",
    "ɡ": "g", "ո": "n", "ս": "u",
    # Greek
    "α": "a", "β": "b", "ε": "e", "η": "n", "ι": "i", "κ": "k", "ν": "v", "ο": "o", "ρ": "p", "τ": "t", "υ": "u",
    "χ": "x", "ς": "s", "ϲ": "c", "ϳ": "j",
    # Brackets and angle quotes
    "‹": "<", "›": ">", "«": "<", "»": ">", "〈": "<", "〉": ">", "⟨": "<", "⟩": ">", "˂": "<", "˃": ">",
    "ᐸ": "<", "ᐳ": ">", "❮": "<", "❯": ">", "⋖": "<", "⋗": ">", "《": "<", "》": ">", "≪": "<<", "≫": ">>",
    "⋘": "<<<", "⋙": ">>>",
}


@lru_cache(maxsize=4096)
def _fold_char(ch: str) -> str:
    if unicodedata.category(ch) == "Cf":  # zero-width spaces and joiners, bidi controls, soft hyphen
        return ""
    out = []
    for c in unicodedata.normalize("NFKC", ch):
        if unicodedata.category(c) == "Cf":
            continue
        c = c.lower()
        c = _CONFUSABLES.get(c, c)
        out.append(unicodedata.normalize("NFKC", c).casefold())
    return "".join(out)


def fold(text: str) -> tuple[str, list[int]]:
    """The folded text and, for each of its characters, the index of the original character it came from.

    >>> folded, index = fold("ＥＮＤ\\u200b оf")  # fullwidth letters, a zero-width space, a Cyrillic "о"
    >>> folded, index
    ('end of', [0, 1, 2, 4, 5, 6])
    """
    chars: list[str] = []
    index: list[int] = []
    for position, ch in enumerate(text):
        if ch.isascii():
            chars.append(ch.lower())
            index.append(position)
            continue
        for c in _fold_char(ch):
            chars.append(c)
            index.append(position)
    return "".join(chars), index


def folded(text: str) -> str:
    """Just the folded text."""
    return fold(text)[0]


def replace_folded(text: str, pattern: re.Pattern[str], replacement: str) -> tuple[str, int]:
    """Replace in `text` every span whose folded form matches `pattern` (compiled for folded text).

    Returns the new text and the number of spans replaced.

    >>> replace_folded("a <\\u200b<< b", re.compile(r"<\\s*<\\s*<"), "[x]")
    ('a [x] b', 1)
    """
    folded_text, index = fold(text)
    spans = [(index[m.start()], index[m.end() - 1] + 1) for m in pattern.finditer(folded_text) if m.end() > m.start()]
    if not spans:
        return text, 0
    out, last = [], 0
    for start, end in spans:
        if start < last:  # overlapping folded matches from one original character
            start = last
        out.append(text[last:start])
        out.append(replacement)
        last = end
    out.append(text[last:])
    return "".join(out), len(spans)
