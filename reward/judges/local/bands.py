"""Bands the evidence gives a rule for ("Children 2 to 5 years: 2.5 ml", "aged 12 and over", "under 16s"), and the
user's own figure read against them: a 4-year-old is inside "2 to 5 years", so restating the user's age is no figure
the evidence contradicts; giving that 4-year-old the figure of the "6 to 11 years" row is a swap. So is a figure the
evidence gives only for other days than the user's (`day_swapped`), for another entry of a table or list
(`row_swapped`), or only in another unit (`unit_swapped`)."""

from __future__ import annotations

import functools
import math
import re
from collections.abc import Sequence

from reward.format import split_sentences, strip_citations
from reward.judges.local.arithmetic import spelled_out
from reward.judges.local.clock import _times
from reward.judges.local.figures import _MEASURES, _quantities, _unit
from reward.judges.local.text import STOPWORDS, days_in, stems

_NUMBER = r"(\d+(?:\.\d+)?)"
_UNIT = r"(?:-|\s*)([a-z]+|%)?"
_CLOSED = re.compile(r"(?:\bbetween\s+" + _NUMBER + r"\s+and\s+|\b" + _NUMBER + r"\s*(?:[a-z]+\s+)?(?:to|–|—|-)\s*)" + _NUMBER
                     + _UNIT, re.IGNORECASE)  # ("4.5 kg to 6.5 kg" too)
_FROM = re.compile(_NUMBER + _UNIT + r"\s+(?:and|or)\s+(?:over|above|older|more|upwards)\b|" + _NUMBER + _UNIT + r"\+",
                   re.IGNORECASE)
_BELOW = re.compile(r"\b(?:under|below|younger than|less than)\s+" + _NUMBER + _UNIT, re.IGNORECASE)
_ABOVE = re.compile(r"^\W*(?:over|above|older than|more than)\s+" + _NUMBER + _UNIT + r"\s*:", re.IGNORECASE)
"""A table's row for everything above a figure ("Over 6.5 kg: ...")."""
_UP_TO = re.compile(r"\b(?:(?:over|above|more than)\s+" + _NUMBER + _UNIT + r"\s+)?up\s+to\s+" + _NUMBER + _UNIT,
                    re.IGNORECASE)
"""A band with an upper end it includes ("up to 2 kg"), and a lower end it leaves out ("over 2 kg up to 10 kg")."""


@functools.lru_cache(maxsize=4096)
def bands(text: str, limits: bool = True) -> tuple[tuple[float, float, str], ...]:
    """(low, high, unit stem) of every band a text gives, ends included ("under 2 years" ends below 2); with
    `limits`, also those an upper limit gives ("up to 2 kg", "over 2 kg up to 10 kg"), which may be a cap rather than
    a row of a table ("fences up to 1.0 m need no permission").

    >>> bands("Children 2 to 5 years: 2.5 ml. Aged 12 years and over: 10 ml. Not for under 2s.")
    ((2.0, 5.0, 'year'), (12.0, inf, 'year'), (-inf, 1.999, ''))
    >>> bands("Up to 2 kg £5.69; over 2 kg up to 10 kg £7.49.")
    ((-inf, 2.0, 'kilogram'), (2.001, 10.0, 'kilogram'))
    >>> bands("4.5 kg to 6.5 kg: 20 minutes per kg."), bands("Over 6.5 kg: 20 minutes per kg plus 110 minutes.")
    (((4.5, 6.5, 'kilogram'),), ((6.501, inf, 'kilogram'),))
    """
    text = strip_citations(text)
    out = []
    for match in _CLOSED.finditer(text):
        low = float(match.group(1) or match.group(2))
        high = float(match.group(3))
        if low < high:
            out.append((low, high, _unit(None, match.group(4))))
    for match in _FROM.finditer(text):
        out.append((float(match.group(1) or match.group(3)), math.inf, _unit(None, match.group(2) or match.group(4))))
    taken = []
    for match in _UP_TO.finditer(text) if limits else ():
        low = float(match.group(1)) + 0.001 if match.group(1) else -math.inf
        out.append((low, float(match.group(3)), _unit(None, match.group(4) or match.group(2))))
        taken.append(match.span())
    for match in _BELOW.finditer(text):
        if not any(start <= match.start() < end for start, end in taken):
            out.append((-math.inf, float(match.group(1)) - 0.001, _unit(None, match.group(2))))
    for match in _ABOVE.finditer(text):
        out.append((float(match.group(1)) + 0.001, math.inf, _unit(None, match.group(2))))
    return tuple(out)


def inside_band(value: float, unit: str, text: str) -> bool:
    """Whether a figure in `unit` falls inside a band `text` gives in that unit, an upper limit's included: a
    "4-year-old" inside "2 to 5 years", which the evidence does not contradict, though it never writes the figure.

    >>> inside_band(4, "year", "Children 2 to 5 years: 2.5 ml."), inside_band(7, "year", "Children 2 to 5 years: 2.5 ml.")
    (True, False)
    """
    return any(low <= value <= high and band_unit == unit for low, high, band_unit in bands(text))


_ROW = re.compile(r"^\W*[^\W\d_][\w '’()+/-]{0,40}:\s")
"""A labelled row of a table ("Adults: €3.40"): a band of its own, though no figure says it."""


_CODES = re.compile(r"\b(GBP|EUR|USD)\s?(?=\d)")
_SIGNS = {"GBP": "£", "EUR": "€", "USD": "$"}


@functools.lru_cache(maxsize=8192)
def _figures_of(text: str) -> str:
    """The text with small numbers in words written as figures ("a four-year-old": "a 4-year-old"), and a currency's
    code as its sign ("GBP 7.49": "£7.49").

    >>> _figures_of("A four-year-old pays GBP 7.49.")
    'A 4-year-old pays £7.49.'
    """
    return _CODES.sub(lambda m: _SIGNS[m.group(1)], spelled_out(text))


def band_swapped(claim: str, sentences: Sequence[str], asked: str) -> str:
    """Why the claim gives the user's figure (`asked`) the figures of another band, or "": the user's figure falls
    inside the band of one evidence sentence (or of one of its parts between semicolons), and a figure of the claim in
    another unit is given only by another row of the same table (one with a band in the user's unit that leaves the
    figure out, or a labelled row). A
    claim that names a band of its own (another figure in the user's unit) is about that band.

    >>> rows = ["Children 2 to 5 years: 2.5 ml twice a day.", "Children 6 to 11 years: 5 ml twice a day.", "Adults: 10 ml."]
    >>> band_swapped("For a 4-year-old the dose is 5 ml twice a day.", rows, "How much for my 4-year-old?")
    "gives 5 to '4' where the evidence says 5 is for another band"
    >>> band_swapped("At four, give 10 ml.", rows, "How much for my four-year-old?")
    "gives 10 to '4' where the evidence says 10 is for another band"
    >>> band_swapped("A 4-year-old can have 5 ml.", rows, "My son is 4. How much can I give him?")
    "gives 5 to '4' where the evidence says 5 is for another band"
    >>> band_swapped("She can have 5 ml up to 4 times a day.", rows, "My son is 4. How much can I give him?")
    "gives 5 where the evidence says 5 is for another band than the user's '4'"
    >>> band_swapped("For a 4-year-old the dose is 2.5 ml twice a day.", rows, "How much for my 4-year-old?")
    ''
    >>> notice = ["At least one week for each year if employed between 2 and 12 years; 12 weeks if employed 12 years or more."]
    >>> band_swapped("With 6 years' service you get 12 weeks' notice.", notice, "I've worked here 6 years.")
    "gives 12 to '6' where the evidence says 12 is for another band"
    >>> band_swapped("5 ml is for 6 to 11 years, so a 4-year-old takes 2.5 ml.", rows, "Is 5 ml right for my 4-year-old?")
    ''

    A claim that leaves the user's figure out is about it, unless it names the row its figure is from:

    >>> band_swapped("You can give 5 ml twice a day.", rows, "How much for my 4-year-old?")
    "gives 5 where the evidence says 5 is for another band than the user's '4'"
    >>> band_swapped("Give 2.5 ml twice a day; adults take 10 ml.", rows, "How much for my 4-year-old?")
    ''
    >>> weekly = ["Compact cars cost £38 a day.", "Hires of 7 days or more get a weekly rate of £232."]
    >>> band_swapped("The weekly rate of £232 covers your 6 days, plus the £20 fee.", weekly + ["A £20 fee."], "6 days?")
    "gives 232 to '6' where the evidence says 232 is for another band"
    >>> band_swapped("Your 6 days at £38 a day come to £228; the £232 weekly rate needs 7 days.", weekly, "A car for 6 days?")
    ''
    """
    rows, units = _rows(tuple(sentences))
    if not any(bands(row) for row in rows):
        return ""  # no band anywhere: no row holds or leaves out the user's figure
    claim, asked = _figures_of(strip_citations(claim)), _figures_of(asked)
    figures = _user_figures(asked, units)
    user = {written: unit for _, written, unit in figures if unit in units or not unit}
    quantities = _quantities(claim)
    # (the user's figure restated, not the same number in another unit: "3 times a day" is no "3-year-old")
    given = [(value, written, unit or user.get(written, "")) for value, written, unit in quantities
             if written in user and unit in ("", user[written])]
    # a claim that leaves the user's figure out ("You can give 5 ml") is about the figure the user gave in its unit
    # ("my 4-year-old"), unless it names a band of its own or the row its figure is from ("adults take 10 ml")
    # (of one figure in its unit: "my 4-year-old and my 8-year-old" may be asked about either)
    theirs = [(value, written, unit) for value, written, unit in figures if unit in units]
    left_out = (not given and len({unit for _, _, unit in theirs}) == len(theirs)
                and not any(unit in {u for _, _, u in theirs} for _, _, unit in quantities))
    for value, written, unit in given or (theirs if left_out else []):
        # the user's figure in the unit either gives it ("My son is 4" and "a 4-year-old", "a 4-year-old" and "at 4")
        if user[written] not in ("", unit) or not unit:
            continue
        if any(u == unit and w != written for _, w, u in quantities) or any(
                not low <= value <= high for low, high, band_unit in bands(claim) if band_unit in ("", unit)):
            continue  # the claim names a band of its own ("5 ml is for 6 to 11 years", "10 ml is for ages 4-6")
        inside = [row for row in rows if inside_band(value, unit, row)]
        outside = [row for row in rows if row not in inside and ((_ROW.match(row) and inside) or any(
            band_unit == unit for _, _, band_unit in bands(row)))]
        if not outside:
            continue
        # (where no band holds the user's figure, "6 days" against a weekly rate "for 7 days or more", every other
        # row is theirs: only a figure of a band that leaves the user out is another band's)
        own = {(v, u) for row in (inside or [r for r in rows if r not in outside]) for v, _, u in _quantities(row)}
        ours = stems(" ".join(inside)) | stems(asked)
        # a claim that gives the user's row its own figure in a unit may work it out from others ("7.5 ml: a 5 ml and
        # a 2.5 ml fill")
        right = {u for v, _, u in quantities if (v, u) in own} if inside else set()
        for other, figure, other_unit in quantities:
            if not other_unit or other_unit == unit or other_unit in right:
                continue
            rows_of = [row for row in outside if (other, other_unit) in {(v, u) for v, _, u in _quantities(row)}]
            if rows_of and given:
                return f"gives {figure} to '{written}' where the evidence says {figure} is for another band"
            if rows_of and not any(stems(claim) & (stems(_label(row)) - ours) for row in rows_of):
                return f"gives {figure} where the evidence says {figure} is for another band than the user's '{written}'"
    return ""


_AGE = re.compile(r"\b(?:is|turned|turns|aged|age|just)\s+$", re.IGNORECASE)


@functools.lru_cache(maxsize=1024)
def _rows(sentences: tuple[str, ...]) -> tuple[tuple[str, ...], frozenset[str]]:
    """The evidence's rows (sentences, or their parts between semicolons: "...: 1 week; 12 weeks if ..."), small numbers
    in words written as figures, and the units its sentences give bands in; once per evidence."""
    rows = tuple(_figures_of(row) for sentence in sentences for row in re.split(r";\s+", sentence))
    return rows, frozenset(unit for sentence in sentences for _, _, unit in bands(sentence) if unit)


@functools.lru_cache(maxsize=4096)
def _user_figures(asked: str, units: frozenset[str]) -> tuple[tuple[float, str, str], ...]:
    """The user's figures with their units, read against the units the evidence's bands are in: the word after the
    figure, else one of the two after it that is such a unit ("seven full years"), else years for an age ("she
    turned 3", "my son is 4") where the bands are in years.

    >>> _user_figures("My daughter turned 3 last month; I've done seven full years.", frozenset({"year", "month"}))
    ((3.0, '3', 'year'), (7.0, '7', 'year'))
    """
    out = []
    asked = _figures_of(asked)
    for match in re.finditer(r"(?<![\d.,:])(\d+(?:\.\d+)?)(?![\d:])((?:[\s-]+[a-z]+){0,2})", asked, re.IGNORECASE):
        _, written, unit = (_quantities(match.group(0)) or ((0.0, match.group(1), ""),))[0]
        if unit not in units and "year" in units and _AGE.search(asked[:match.start()]):
            unit = "year"
        elif unit not in units:
            unit = next((u for u in (_unit(None, w) for w in re.findall(r"[a-z]+", match.group(2).lower())) if u in units),
                        unit)
        out.append((float(match.group(1)), written, unit))
    return tuple(out)


def day_swapped(claim: str, sentences: Sequence[str], asked: str) -> str:
    """Why the claim gives a figure the evidence gives only for other days than the ones the user asks about, or "":
    rows (sentences, or their parts between semicolons) name days or parts of the week ("Weekend tickets: adult
    £14"), the user names a day ("on the Sunday"), and a figure of the claim is only in rows of other days. A claim
    that names other days is about them.

    >>> rows = ["Weekday tickets: adult £12, child £6.", "Weekend tickets: adult £14, child £7."]
    >>> day_swapped("Two adults at £12 and a child at £6.", rows, "We'll go on Sunday. How much?")
    'gives £12 where the evidence gives it for other days than Sunday'
    >>> day_swapped("£14 each; on weekdays it would be £12.", rows, "We'll go on Sunday. How much?")
    ''
    >>> ferry = ["Monday to Friday: departs 07:40, 15:50.", "Saturday and Sunday: departs 09:05, 14:30."]
    >>> day_swapped("The 14:30 gets you in at 17:05.", ferry, "I sail on a Thursday."), day_swapped("The 15:50.", ferry, "On Thursday.")
    ('gives 14:30 where the evidence gives it for other days than Thursday', '')
    """
    days = days_in(asked)
    if not days:
        return ""
    rows = [row for sentence in sentences for row in re.split(r";\s+", sentence)]
    inside = [row for row in rows if _row_days(row) & days]
    outside = [row for row in rows if _row_days(row) and not _row_days(row) & days]
    claim = strip_citations(claim)
    if not inside or not outside or days_in(claim) - days:
        return ""
    own = {(v, u) for row in inside for v, _, u in _quantities(row)}
    theirs = {(v, u) for row in outside for v, _, u in _quantities(row) if u} - own
    where = f"where the evidence gives it for other days than {', '.join(sorted(d.title() for d in days))}"
    for value, figure, unit in _quantities(claim):
        if (value, unit) in theirs:
            shown = re.search(r"[$€£¥]?" + re.escape(figure), claim)
            return f"gives {shown.group(0) if shown else figure} {where}"
    # ... and a time of day of a timetable's other days ("the 14:30", a weekend sailing, for a Thursday)
    own_times = {t for row in inside for *_, t, _ in _times(row)}
    their_times = {t for row in outside for *_, t, _ in _times(row)} - own_times
    for _, _, t, written in _times(claim):
        if t in their_times:
            return f"gives {written} {where}"
    return ""


_FOR = re.compile(r"\bfor\s+((?:an?\s+|the\s+)?[a-z][\w'’-]*(?:\s+[a-z][\w'’-]*)?)\s*$", re.IGNORECASE)
"""What a clause gives its figure for, at its end: "40 minutes per kg for rare", "£3 for adults"."""


_DEFAULT = frozenset(stems("adult standard regular normal"))
"""The row of a price list that applies to whoever the question names no other row for."""
_SOMEONE = re.compile(r"\b(?:sons?|daughters?|child(?:ren)?|kids?|bab(?:y|ies)|toddlers?|teen\w*|boys?|girls?|grand\w+|"
                      r"students?|seniors?|pensioners?|retired|famil(?:y|ies)|partner|wife|husband|friends?|group|"
                      r"members?|year[- ]olds?|aged?\s+\d+|under[- ]?\d+s?|over[- ]?\d+s?|concessions?|infants?|"
                      r"youths?|juniors?|(?:i'?m|i am|we'?re|he'?s|she'?s)\s+\d{1,3})\b|\d{1,3}\s?\+", re.IGNORECASE)
"""Words for someone other than an adult paying the standard price, in the question or the claim."""
_PRICED = re.compile(r"^\W*(?:(?:the|a|an)\s+)?((?:[a-z][\w'’-]*\s+){0,2}[a-z][\w'’-]*)\s+(?:(?:costs?|is|are|pays?|"
                     r"charges?)\s+(?:just\s+|only\s+)?)?[$€£¥]\s?\d", re.IGNORECASE)
"""A clause that prices what its subject names, of up to three words ("Compact cars cost £38", "children pay £7",
"adult £14")."""
_VERB_AFTER = re.compile(r"\s+(?:costs?|is|are|pays?|charges?)$", re.IGNORECASE)
_CLAUSES = re.compile(r",\s*(?:and\s+|or\s+)?|;\s+|\s+(?:and|or|while|whereas|but)\s+", re.IGNORECASE)
_GENERAL = re.compile(r"^\W*(?:all|every|any|each|both)\b", re.IGNORECASE)
"""A row for everything ("All rice: stand for 5 minutes"), no entry of its own."""


@functools.lru_cache(maxsize=1024)
def _entries(sentences: tuple[str, ...]) -> tuple[tuple[tuple[frozenset[str], str, bool], ...], ...]:
    """Groups of the evidence's entries, each (the stems that name it, its text, whether it is a labelled row): the
    labelled rows of a table ("Lamb: 55 minutes per kg"), and the clauses of one row or sentence that give figures
    for two or more things ("40 minutes per kg for rare, 50 minutes per kg for medium")."""
    # (an entry named by a figure, "12 years and over", is a band: `band_swapped` reads those)
    rows = [row for sentence in sentences for row in re.split(r";\s+", sentence)]
    # (a labelled row runs on past a semicolon to the next label: "Laptops: 30 days; opened items 10% fee")
    labelled = [row for sentence in sentences for row in re.split(r";\s+(?=" + _ROW.pattern.lstrip("^") + ")", sentence)]
    groups = [tuple((stems(_named_part(_label(row))), row, True) for row in labelled
                    if _ROW.match(row) and not re.search(r"\d", _label(row)) and not _GENERAL.match(_label(row)))]
    for row in rows:
        named = []
        for clause in re.split(r",\s*(?:and\s+|or\s+)?|\s+(?:and|or)\s+", row.rstrip(" .")):
            found = _FOR.search(clause)
            if found and _quantities(clause[:found.start()]) and stems(found.group(1)) and not re.search(r"\d", found.group(1)):
                named.append((stems(found.group(1)), clause, False))
        groups.append(tuple(named))
    # ... and the things a run of sentences prices one by one ("Compact cars cost £38 per day. SUVs cost £64 per day.",
    # "Adults pay £14 and children pay £7", "adult £14, child £7"): each priced clause's subject names an entry
    # (a sentence's clauses only where its first one prices too: "A return between Ashby and Colmere costs £6.80" names
    # no "Colmere"; a name of content words only, "the renewal fee to €100" names nothing)
    run: list = []
    for sentence in (*sentences, ""):
        clauses = _CLAUSES.split(sentence.rstrip(" ."))
        priced = [(stems(name), clause, None) for clause in (clauses if _PRICED.match(clauses[0]) else [])
                  for found in [_PRICED.match(clause)] if found
                  for name in [_VERB_AFTER.sub("", found.group(1))]
                  if not _GENERAL.match(name) and stems(name) and not set(name.lower().split()) & STOPWORDS]
        if priced:
            run += priced
            continue
        if len({names for names, _, _ in run}) >= 2:
            groups.append(tuple(run))
        run = []
    return tuple(g for g in groups if len(g) >= 2)


def row_swapped(claim: str, sentences: Sequence[str], asked: str) -> str:
    """Why the claim gives a figure the evidence gives only for another entry than the one it (or else the user) is
    about, or "": for other days (`day_swapped`), in another labelled row ("Lamb: 55 minutes per kg" for the user's
    beef), or in another clause of a list ("40 minutes per kg for rare" given for medium). The entry it is about must
    hold another figure in that unit; a claim about other entries than the user's is about them, and a figure its
    own figures make (a difference, a sum) is worked out.

    >>> roast = ["Beef: allow 40 minutes per kg for rare, 50 minutes per kg for medium and 60 minutes per kg for well "
    ...          "done.", "Lamb: 55 minutes per kg.", "Whole chicken: 45 minutes per kg."]
    >>> row_swapped("For a medium joint allow 55 minutes per kg.", roast, "A beef joint we want medium?")
    'gives 55 where the evidence gives it for lamb, not beef'
    >>> row_swapped("For medium beef allow 40 minutes per kg.", roast, "A beef joint we want medium?")
    'gives 40 where the evidence gives it for rare, not medium'
    >>> [row_swapped(c, roast, "A beef joint, medium?") for c in ("Allow 50 minutes per kg.", "Lamb takes 55 minutes per kg.")]
    ['', '']
    >>> hire = ["Compact (VW Golf or similar): £38 a day.", "Young driver surcharge: £12 a day."]
    >>> row_swapped("The compact is £38 a day, and under 25 the young driver surcharge adds £12.", hire, "I'm 23.")
    ''
    >>> fares = ["Car including driver: £89.", "Motorhome including driver: £120.", "Additional adult: £22."]
    >>> row_swapped("It's £89 for the car with you driving and £22 for your partner.", fares, "Me driving, my wife.")
    ''
    >>> ranger = ["The Ranger is priced at £27 for an adult and £13.50 for a child."]
    >>> [row_swapped(c, ranger, "Is the Ranger cheaper for 4 days?") for c in (
    ...     "For an adult the Ranger is £13.50.", "Four days at £13.50 come to £54.", "A child pays £13.50.")]
    ['gives £13.50 where the evidence gives it for a child, not an adult', 'gives £13.50 where the evidence gives it for a child, not an adult', '']
    >>> row_swapped("Four days at £13.50 come to £54.", ranger, "For my son, 4 days?")
    ''
    >>> cars = ["Compact cars cost £38 per day.", "SUVs cost £64 per day.", "A full week is charged at £230."]
    >>> [row_swapped(c, cars, "A compact car for 5 days?") for c in ("At £64 per day, 5 days cost £320.",
    ...                                                             "At £38 per day, 5 days cost £190.")]
    ['gives £64 where the evidence gives it for suvs, not compact cars', '']
    >>> row_swapped("An adult return is £7.", ["Adults pay £14 and children pay £7."], "A return?")
    'gives £7 where the evidence gives it for children, not adults'
    >>> gym = ["Annual membership costs £349.", "Monthly membership costs £34.99."]
    >>> row_swapped("Annual: £349, against 12 × £34.99.", gym, "Is monthly membership cheaper?")
    ''
    >>> rice = ["White basmati: 1½ cups water, simmer 12 minutes.", "Brown basmati: 2 cups water, simmer 25 minutes.",
    ...         "Wild rice: 3 cups water, simmer 40 minutes.", "For 3 cups of rice or more, add 5 minutes."]
    >>> [row_swapped(c, rice, "3 cups of brown basmati? How long for white basmati?") for c in (
    ...     "Brown basmati simmers 25 minutes, plus 5 for 3 cups or more.", "Brown basmati simmers 40 minutes.")]
    ['', 'gives 40 where the evidence gives it for wild rice, not brown basmati']
    """
    swap = day_swapped(claim, sentences, asked)
    if swap:
        return swap
    claim = strip_citations(claim)
    said = stems(claim)
    quantities = [(v, f, u) for v, f, u in _quantities(claim) if u]
    for group in _entries(tuple(sentences)) if quantities else ():
        by_claim = _named_in(group, said)
        # what the user asks about now: the first of their sentences that names an entry (the query comes before
        # their earlier turns: "And a beef joint?" after asking about a chicken)
        by_user = next((named for sentence in split_sentences(asked) for named in [_named_in(group, stems(sentence))]
                        if named), [])
        if by_claim and by_user and not set(by_claim) & set(by_user):
            continue  # about other entries than the user's
        # (neither names an entry: a price list's default row, the adult's or the standard one, is what the claim is
        # about unless someone else is in the question or the claim: "four days at £13.50" is the child's fare)
        ours = by_claim or by_user or ([e for e in group if e[0] & _DEFAULT] if not _SOMEONE.search(
            f"{claim} {asked}") else [])
        if not ours or len(ours) == len(group):
            continue
        own = {(v, u) for e in ours for v, _, u in _quantities(e[1])}
        others = [(e, v, u) for e in group if e not in ours for v, _, u in _quantities(e[1])]
        # (a figure only other entries give: not one the user gives, nor one the evidence gives outside them, "For 3
        # cups of rice or more, add 5 minutes")
        outside = {(v, u) for v, _, u in _quantities(_outside(sentences, group))} | {
            (v, u) for v, _, u in _quantities(asked)}
        theirs = [(e, v, u) for e, v, u in others if u and (v, u) not in own and (v, u) not in outside]
        # (a difference or sum of two of the claim's or its entry's figures is worked out, not another entry's: "£5
        # more than the previous £29.99", "Change: +£5")
        known = own | {(v, u) for v, _, u in quantities}
        # (a claim that also gives its entry's own figure in a unit, one no other entry has, gives the others' for
        # other things: "£89 for the car with you driving, £22 for your partner")
        distinct = own - {(v, u) for _, v, u in others}
        right = {u for v, _, u in quantities if (v, u) in distinct}
        for value, figure, unit in quantities:
            # (of figures other than this one: £13.50 is no difference of £27 and itself)
            operands = known - {(value, unit)}
            if unit in right or any(u == w == unit and (abs(abs(a - b) - value) < 1e-6 or abs(a + b - value) < 1e-6)
                   for a, u in operands for b, w in operands if a != b):
                continue
            owner = next((e for e, v, u in theirs if (v, u) == (value, unit)), None)
            if owner and any(u == unit and v != value for v, u in own):
                shown = re.search(r"[$€£¥]?" + re.escape(figure), claim)
                return (f"gives {shown.group(0) if shown else figure} where the evidence gives it for "
                        f"{_name_of(owner)}, not {_name_of(ours[0])}")
    return ""


def _named_in(group: tuple, words: frozenset[str]) -> list:
    """The entries of a group a text (its stems, `words`) names: by all their names, else labelled rows by their head
    ("chicken" for "Whole chicken"; "basmati" names both basmati rows only where neither is named in full)."""
    singular = {w.removesuffix("s") for w in words}  # ("compact car" names "Compact cars")
    if group and all(e[2] is None for e in group):
        # (priced one by one: an entry is named by a word of its name no other entry's has, "Annual: £349" beside
        # "Annual membership" and "Monthly membership")
        own = [{w.removesuffix("s") for w in e[0]} - {w.removesuffix("s") for o in group if o is not e for w in o[0]}
               for e in group]
        return [e for e, mine in zip(group, own) if mine & singular]
    full = [e for e in group if e[0] and {w.removesuffix("s") for w in e[0]} <= singular]
    return full or [e for e in group if e[0] and e[2] and _head(e[1]) in words]


def _outside(sentences: Sequence[str], group: tuple) -> str:
    """The evidence's text outside a group's entries."""
    text = " ".join(sentences)
    for _, entry, _ in group:
        text = text.replace(entry, " ")
    return text


def _named_part(label: str) -> str:
    """A label without what it adds in brackets: "Compact (VW Golf or similar)" is compact."""
    return re.sub(r"\([^()]*\)", " ", label)


def _head(row: str) -> str:
    """The stem of the last word of a labelled row's label: "Whole chicken" is chicken."""
    words = re.findall(r"[a-z]+", _named_part(_label(row)).lower())
    return next(iter(stems(words[-1])), "") if words else ""


def _name_of(entry: tuple[frozenset[str], str, bool]) -> str:
    _, text, labelled = entry
    found = _FOR.search(text) or _PRICED.match(text)
    name = _label(text) if labelled else _VERB_AFTER.sub("", found.group(1)) if found else text
    return name.strip().lower()


_DAY_ORDER = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_DAY_RANGE = re.compile(r"\b(" + "|".join(_DAY_ORDER) + r")s?\s*(?:to|-|–|—|through|until|till)\s*(" + "|".join(_DAY_ORDER)
                        + r")s?\b", re.IGNORECASE)


def _row_days(row: str) -> frozenset[str]:
    """The days a row of the evidence is for: those it names, and those inside a range it names ("Monday to Friday").

    >>> sorted(_row_days("Monday to Friday: departs 07:40."))
    ['friday', 'monday', 'thursday', 'tuesday', 'wednesday']
    """
    days = set(days_in(row))
    for m in _DAY_RANGE.finditer(row):
        first, last = _DAY_ORDER.index(m.group(1).lower()), _DAY_ORDER.index(m.group(2).lower())
        days |= set(_DAY_ORDER[first:last + 1] if first <= last else _DAY_ORDER[first:] + _DAY_ORDER[:last + 1])
    return frozenset(days)


def _label(row: str) -> str:
    """What names a row: its label before a colon ("Adults: 10 ml"), else the whole row."""
    return row.split(":", 1)[0] if _ROW.match(row) else row


_AREA = re.compile(r"(\d)\s*(?:m²|m2\b|sq\.?\s?m\b|square\s+met(?:re|er)s?\b)", re.IGNORECASE)
"""An area in square metres, however written ("15 m²", "15 square metres"): one unit, not metres."""


@functools.lru_cache(maxsize=256)
def _units_and_values(haystack: str) -> tuple[dict[float, set[str]], dict[str, set[float]]]:
    """The evidence's units of each figure and figures of each unit, once per evidence text."""
    units_of: dict[float, set[str]] = {}
    values_of: dict[str, set[float]] = {}
    for value, _, unit in _quantities(haystack):
        if unit:
            units_of.setdefault(value, set()).add(unit)
            values_of.setdefault(unit, set()).add(value)
    return units_of, values_of


def unit_swapped(claim: str, haystack: str) -> str:
    """A figure of the evidence put in another unit: the claim gives it in a unit of measure or a currency in which
    the evidence gives only other figures, and the evidence gives that figure in another unit ("cool for 1.5
    minutes" where the evidence says 30 minutes and 1.5 bar). Returns why, or "" for none.

    >>> unit_swapped("Let it cool for 1.5 minutes.", "Wait 30 minutes. Top up to 1.5 bar.")
    'says 1.5 minute where the evidence gives 1.5 as bar and minute as 30'
    >>> unit_swapped("Let it cool for 30 minutes.", "Wait 30 minutes. Top up to 1.5 bar.")
    ''
    >>> unit_swapped("Sheds up to 15 m² need no permit.", "Sheds up to 15 square metres, or 2.5 m high, need none.")
    ''
    """
    units_of, values_of = _units_and_values(_AREA.sub(r"\1 sqm", haystack))
    for value, written, unit in _quantities(_AREA.sub(r"\1 sqm", claim)):
        if unit in _MEASURES and value not in values_of.get(unit, {value}) and units_of.get(value, set()) - {unit}:
            other = sorted(units_of[value] - {unit})[0]
            return (f"says {written} {unit} where the evidence gives {written} as {other} and {unit} as "
                    f"{min(values_of[unit]):g}")
    return ""
