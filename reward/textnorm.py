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

from reward.memo import by_content

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


_NOT_ASCII = re.compile(r"[^\x00-\x7f]")


def fold(text: str) -> tuple[str, list[int]]:
    """The folded text and, for each of its characters, the index of the original character it came from.

    >>> folded, index = fold("ＥＮＤ\\u200b оf")  # fullwidth letters, a zero-width space, a Cyrillic "о"
    >>> folded, index
    ('end of', [0, 1, 2, 4, 5, 6])

    An ASCII run folds to its lower case, one character for one, so runs are folded whole and only the other
    characters one by one (`_fold_char`): the rule tier folds every answer and evidence text.
    """
    chars: list[str] = []
    index: list[int] = []
    start = 0
    for other in _NOT_ASCII.finditer(text):
        position = other.start()
        if position > start:
            chars.append(text[start:position].lower())
            index.extend(range(start, position))
        for c in _fold_char(other.group()):
            chars.append(c)
            index.append(position)
        start = position + 1
    if start < len(text):
        chars.append(text[start:].lower())
        index.extend(range(start, len(text)))
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


# -- the reading form: what a reader sees, case kept --------------------------------------------------------------
_ZERO_WIDTH_OR_FORMAT = "Cf"
_UPPER_CONFUSABLES = {
    # Cyrillic and Greek capitals that render like Latin capitals
    "А": "A", "В": "B", "Е": "E", "К": "K", "М": "M", "Н": "H", "О": "O", "Р": "P", "С": "C", "Т": "T", "Х": "X",
    "Ѕ": "S", "І": "I", "Ј": "J", "Α": "A", "Β": "B", "Ε": "E", "Ζ": "Z", "Η": "H", "Ι": "I", "Κ": "K", "Μ": "M",
    "Ν": "N", "Ο": "O", "Ρ": "P", "Τ": "T", "Υ": "Y", "Χ": "X",
}


@lru_cache(maxsize=8192)
def _read_char(ch: str) -> str:
    if unicodedata.category(ch) == _ZERO_WIDTH_OR_FORMAT:
        return ""
    if ch in _UPPER_CONFUSABLES:
        return _UPPER_CONFUSABLES[ch]
    if ch in _CONFUSABLES and ch.isalpha():
        return _CONFUSABLES[ch]
    out = []
    for c in unicodedata.normalize("NFKD", ch):
        if unicodedata.category(c) in ("Mn", "Cf"):
            continue  # accents and other combining marks: "é" reads as "e"
        out.append(c)
    folded = unicodedata.normalize("NFC", "".join(out))
    # NFKD splits a CJK compatibility form or a Hangul syllable into parts a reader never sees apart: keep those whole.
    return folded if folded and all(c.isascii() or not c.isalpha() or unicodedata.category(c) != "Lo" for c in folded) else ch


# Vulgar fractions as a reader of figures reads them: "4½ years" is 4.5 years, "1¼ tsp" 1.25 (NFKD would make "41⁄2",
# read as the figures 41 and 2); fractions without a short decimal (thirds, sixths) are left to NFKD.
_FRACTIONS = {"½": "5", "¼": "25", "¾": "75", "⅕": "2", "⅖": "4", "⅗": "6", "⅘": "8", "⅛": "125", "⅜": "375",
              "⅝": "625", "⅞": "875", "⅒": "1"}
_FRACTION = re.compile(r"(?:(\d)\s?)?([" + "".join(_FRACTIONS) + "])")


def _read_form(text: str) -> str:
    return "".join(ch if ch.isascii() else _read_char(ch) for ch in _fractions(text))


# a sentence's in a cache of its own (hot, and bounded by its entries); a longer text's by content, however long (the
# store bounds what it keeps)
_short_reading_form, _long_reading_form = lru_cache(maxsize=4096)(_read_form), by_content(_read_form)


def _fractions(text: str) -> str:
    return _FRACTION.sub(lambda m: f"{m.group(1) or 0}.{_FRACTIONS[m.group(2)]}", text)


def reading_form(text: str) -> str:
    """The text as a reader of Latin script sees it, case kept: compatibility forms (fullwidth letters) normalised,
    zero-width and other format characters removed, accents stripped, Cyrillic and Greek look-alikes of Latin
    letters mapped to them. Other scripts (Chinese, Arabic, ...) are left as they are. What a checker that reads
    Latin script must see, so that accents or homoglyphs cannot turn a check off.

    >>> reading_form("Thé sóng ís frее\\u200b on Ｓpotify")  # accents, Cyrillic "е", a zero-width space, fullwidth S
    'The song is free on Spotify'
    >>> reading_form("这首歌可以在Spotify免费收听。")
    '这首歌可以在Spotify免费收听。'
    >>> reading_form("about 4½ years, ½ price, 1 ¼ tsp")
    'about 4.5 years, 0.5 price, 1.25 tsp'
    """
    if text.isascii():
        return text
    return _short_reading_form(text) if len(text) <= 1_000 else _long_reading_form(text)


# Function words of English, and of other Latin-script languages (French, Spanish, Portuguese, Italian, German,
# Dutch) that are not English words: what tells a text in one language from one in another (`is_english`), and an
# English answer with another language's words mixed in from one written in English (`foreign_words`).
ENGLISH_FUNCTION_WORDS = frozenset("the a an and or of to in on at is are was were be it this that for with as by "
                                   "from not you your can will has have had its their they he she we which who".split())
OTHER_LATIN_FUNCTION_WORDS = frozenset("""le la les des du un une et est sont pour avec dans sur pas que qui au aux ce
    cette il elle nous vous ils ne se sa ses leur mais ou donc car comme plus tres el los las del y es para con por
    unos se su sus lo al como pero mas muy esta estan hay o os da dos das em um uma nao e sao der das und ist sind
    nicht mit von zu dem ein eine einer fur auf auch sich wie aber oder wird werden il gli della delle che di sono
    nel alla het een van en niet voor op dat""".split()) - ENGLISH_FUNCTION_WORDS
# ... of which these are also English words, abbreviations or name parts an English answer writes on its own ("car",
# "plus", "pour", "per se", "et al.", "em dash", "van"): never counted as mixed in. "de" is French, Spanish and
# Portuguese "of", and an English answer has no use for it outside a name ("de facto", a name the evidence gives).
_ENGLISH_HOMOGRAPHS = frozenset("car fur hay pour plus van um op lo mas o e y al et la el se sa ne ce em os da di "
                                "mit von es su del".split())
MIXED_IN = (OTHER_LATIN_FUNCTION_WORDS - _ENGLISH_HOMOGRAPHS) | {"de"}
_LATIN_WORD = re.compile(r"[A-Za-z]+")


def foreign_words(text: str, known: str = "") -> list[str]:
    """Function words of another Latin-script language in an English text that `known` (the interaction's own
    words: the query, the earlier turns, the evidence) never uses, lower-cased, in order: another language's words
    mixed into an English answer ("the Court de Justice est bound"). Read in `reading_form` (accents stripped).
    An acronym in capitals ("UNE", "DER") is not such a word, nor is a word the interaction uses itself ("Los
    Angeles", "de Gaulle" in the evidence).

    >>> foreign_words("As such le European Court de Justice est bound to draw inspiration.")
    ['le', 'de', 'est']
    >>> foreign_words("Charles de Gaulle flew to Los Angeles by car, plus a van.", known="de Gaulle; Los Angeles")
    []
    """
    candidates = [w.lower() for w in _LATIN_WORD.findall(reading_form(text))
                  if not (len(w) > 1 and w.isupper()) and w.lower() in MIXED_IN]
    if not candidates:  # most answers: the interaction's words need not be read
        return []
    used = {w.lower() for w in _LATIN_WORD.findall(reading_form(known))}
    return [w for w in candidates if w not in used]


def mixes_languages(text: str, known: str = "") -> list[str]:
    """The mixed-in words (`foreign_words`) when there are enough of them to be another language and not a
    borrowed phrase: at least three, and at least one in twenty of the text's words; else an empty list.

    >>> mixes_languages("As such le European Court de Justice est bound to draw inspiration from le traditions.")
    ['le', 'de', 'est', 'le']
    >>> mixes_languages("The menu is a la carte and the ban is de facto, not de jure, for the whole season.")
    []
    """
    mixed = foreign_words(text, known)
    words = _LATIN_WORD.findall(text)
    return mixed if len(mixed) >= 3 and len(mixed) >= 0.05 * len(words) else []
