"""The kind of answer a question asks for, and whether a text holds one: a price for "how much does it cost", a span
of time for "how long", a frequency for "how often", a number for "how many", a date or time for "when", a name for
"who" / "where". Query satisfaction reads an answer sentence that holds none of the kinds asked as no answer (an
answer to another question: ages when asked for a price, a download speed's rule when asked how long a refund takes),
and the supply reading reads an evidence sentence that holds none as not supplying the need.

Question words count where they ask, not in a relative clause ("the landlord who wants to end it", "a place where
I can park") or a clause of condition ("Can I cancel when I'm abroad?"): there they ask for no kind.
"""

from __future__ import annotations

import functools
import re

from reward.judges.local.clock import _MONTH_WORD
from reward.judges.local.dates import dated_months, dated_weekdays, frame_named
from reward.judges.local.figures import _SPELLED
from reward.judges.local.text import TIME_FRAME, names_in, numbers, salient_terms
from reward.memo import by_content

_MONEY_WORDS = (r"cost|costs|costing|charge|charges|charged|pay|paying|paid|fare|fares|fine|fines|fee|fees|price|"
                r"prices|priced|spend|earn|earns|owe|worth|refund|refunded|toll|rent|membership|subscription|ticket|"
                r"tickets|premium|salary|wage|wages|excess|deposit|bill")
_ASKS_MONEY = re.compile(r"\bhow\s+much\b(?:(?![?.;]).)*?\b(?:" + _MONEY_WORDS + r")\b|\bhow\s+expensive\b|"
                         r"\bwhat(?:['’]s)?\s+(?:(?:is|are|was|were|will\s+be|would\s+be|does|do|did)\s+)?(?:(?:the|it|they|a|an)\s+)?"
                         r"(?:[a-z-]+\s+){0,2}?(?:price|cost|fee|fare|charge|fine|toll)s?\b(?!-|\s+(?:structure|policy|rules?|"
                         r"band|category)\b)", re.IGNORECASE)
"""A price asked: "how much" with a word of paying in the same clause ("How much is an adult single fare?", "How much
does it cost to ..."), "how expensive", "what is the fee", "what's the exit fee"; not "how much notice", "how much
paracetamol", "what is the fee policy", "what was the cost-of-living index"."""
_ASKS_SPAN = re.compile(r"\bhow\s+(?:long|soon)\b|\bhow\s+much\s+(?:notice|time)\b", re.IGNORECASE)
"""A span asked: "how long", "how soon", "how much notice"; "how many days" asks for a number, which a date or two
years can give ("by how many years is it older?")."""
_ASKS_OFTEN = re.compile(r"\bhow\s+(?:often|frequently)\b", re.IGNORECASE)
"""A frequency asked; "how many times has it won" asks for a count (a number)."""
_ASKS_NUMBER = re.compile(r"\b(?:how\s+(?:many|much|old|far|big|large|tall|high|deep|wide|heavy|fast|hot|cold|warm)|"
                          r"what\s+(?:year|number|percentage|percent|age|temperature|speed|size|dose)|in\s+which\s+year|"
                          r"(?:at|from)\s+what\s+age|what(?:['’]s|\s+is|\s+are|\s+was)?\s+(?:the\s+)?(?:[a-z-]+\s+){0,2}?"
                          r"(?:limit|maximum|minimum|max|cap|capacity|allowance|population|consumption|height|length|"
                          r"width|depth|distance|weight|area|volume|score|turnout|margin|majority|headcount|attendance))\b"
                          r"(?![\s-]+(?:polic(?:y|ies)|rules?|strategy|plan|structure|band|category)\b)",
                          re.IGNORECASE)
"""A number asked: "how many", "how old", "what percentage", "what is the limit", a measure asked by its name ("what's
the current population", "what is the annual energy consumption")."""
_WH = re.compile(r"\b(who|whom|whose|where|when)(?:['’]s)?\b", re.IGNORECASE)
_AUXILIARY = re.compile(r"^\s*(?:exactly\s+|else\s+|roughly\s+|about\s+)?(?:do|does|did|is|are|was|were|can|could|will|"
                        r"would|should|shall|may|might|must|has|have|had|to)\b|^['’]s\b|^\s*[?]", re.IGNORECASE)
_OPENS_CLAUSE = re.compile(r"(?:^|[.?!,;:(—–-]|\b(?:and|but|so|or|then|also|ok|okay|if\s+so|to|from|with|for|by|at|in|"
                           r"of|on|know|tell|say|says|ask|asking|wonder|wondering|check|see|find|explain|show|"
                           r"remember|decide|me|us))\s*$", re.IGNORECASE)
_CLAUSE_HEAD = re.compile(r"(?:^|[.?!;:]\s*|\b(?:and|but|so|or|then|also|if\s+so),?\s*)$", re.IGNORECASE)
_SUBJECT = re.compile(r"\s+(?:i|you|we|they|he|she|it|my|your|our|their|the|a|an|this|that)\b", re.IGNORECASE)
_TIME_WORD = re.compile(r"\b(?:now|already|today|tonight|tomorrow|yesterday|currently|soon|since|until|till|before|"
                        r"after|during|morning|afternoon|evening|night|weekends?|weekdays?|spring|summer|autumn|fall|"
                        r"winter|century|decade|year|month|week)\b", re.IGNORECASE)
_COUNT_WORDS = re.compile(r"\b(?:once|twice|thrice|dozens?|hundreds|thousands|millions|none|" + "|".join(
    w for w in _SPELLED if w != "one") + r")\b")
_FIGURE = r"(?:\d[\d.,]*|a|an|one|half\s+an?|" + "|".join(w for w in _SPELLED if w.isalpha()) + r")"
_MONEY = re.compile(r"[£$€¥₹]|\b\d[\d.,]*\s*(?:p|c|k|pence|cents?|pounds?|quid|euros?|dollars?|gbp|usd|eur)\b|"
                    r"\b(?:pence|pounds?|euros?|dollars?|cents?)\b|\bfree\b|\bno\s+(?:extra\s+)?(?:charge|cost|fee)s?\b|"
                    r"\bnothing\b|\bwaived\b|%|\bper\s*cent\b", re.IGNORECASE)
"""A price or an amount of money: a currency, "free", "nothing", "waived", or a share of a price ("25%")."""
_SPAN = re.compile(r"\b" + _FIGURE + r"(?:\s*(?:-|to|or|and)\s*" + _FIGURE + r")?[\s-]*(?:full\s+|more\s+|working\s+|"
                   r"calendar\s+|business\s+|clear\s+|extra\s+|further\s+)?(?:seconds?|secs?|minutes?|mins?|hours?|hrs?|"
                   r"h|days?|nights?|weeks?|wks?|fortnights?|months?|years?|yrs?|decades?|km|kilomet(?:er|re)s?|miles?|"
                   r"met(?:er|re)s?|m|feet|ft)\b|\b(?:fortnight|overnight|immediately|instantly|straight\s+away|"
                   r"right\s+away|same\s+day|next\s+day|indefinitely|forever|permanent(?:ly)?|no\s+time\s+limit|"
                   r"no\s+limit|no\s+notice)\b|\b\d{1,2}(?:[:.]\d\d)?\s*(?:am|pm)\b|\b\d{1,2}:\d\d\b", re.IGNORECASE)
"""A span of time (or a length, for "how long is the trail"): a figure with its unit, written or spelled ("two
weeks", "30-day", "a fortnight"), or what ends or has none ("until 8pm", "straight away", "no notice")."""
_WEEKDAY = r"(?:mon|tues|wednes|thurs|fri|satur|sun)days?"
_FRAME = (r"(?:" + _WEEKDAY + r",?\s+)?(?:\d{1,2}(?:st|nd|rd|th)?\s+(?:of\s+)?)?(?:(?:early|late|mid|the\s+(?:start|beginning|end)\s+of)[\s-]+)?"
          r"(?:" + _MONTH_WORD + r"|spring|summer|autumn|fall|winter)\b\.?"
          r"(?:\s+\d{1,2}(?:st|nd|rd|th)?\b)?")
_FRAME_RANGE = re.compile(r"\bbetween\s+" + _FRAME + r"\s+and\s+" + _FRAME + r"|\b" + _FRAME
                          + r"\s*(?:-|–|—|\bto\b|\buntil\b|\btill\b|\bthrough\b|\bthru\b)\s*" + _FRAME, re.IGNORECASE)
_DAY_RANGE = re.compile(r"\b" + _WEEKDAY + r"\s*(?:-|–|—|\bto\b|\buntil\b|\btill\b|\bthrough\b)\s*" + _WEEKDAY + r"\b",
                        re.IGNORECASE)
"""A range of months or dates, which is a span too ("between 1 March and 31 July", "from April to September", "late
May to early September", "Monday 9 June to Friday 13 June"); "July and August" is a list. A range of weekdays
(`_DAY_RANGE`, "closed Monday to Thursday") supplies a span in the evidence, but an answer giving one has not given a
length: it is as often another thing's days ("the mobile library visits Tuesday to Thursday")."""
_PERSON = re.compile(r"\b(?:you|yourself|anyone|anybody|everyone|everybody|no\s+one|nobody|people|persons?|adults?|"
                     r"child(?:ren)?|kids?|babies|baby|infants?|parents?|guardians?|carers?|members?|customers?|"
                     r"patients?|residents?|staff|landlords?|tenants?|owners?|employers?|employees?|workers?|drivers?|"
                     r"passengers?|travell?ers?|visitors?|users?|buyers?|sellers?|retailers?|applicants?|claimants?|"
                     r"students?|pupils?|teachers?|doctors?|gps?|nurses?|pharmacists?|dentists?|vets?|managers?|"
                     r"partners?|spouses?|council|company|insurers?|bank|provider|school|police|court|government)\b",
                     re.IGNORECASE)
"""A person, a group of people or a body, for "who": "you", "anyone", "adults", a role ("the driver", "a pharmacist",
"the applicant"), "the council", "your insurer"."""
_PLACE = re.compile(r"\b(?:at|in|on|from|near|behind|outside|inside|beside|opposite|via|through|into|next\s+to)\s+"
                    r"(?:the|a|an|any|your|our|their|its|this|that|each|every)\b|\b(?:online|at\s+home|anywhere|"
                    r"nowhere|everywhere|upstairs|downstairs|nearby)\b", re.IGNORECASE)
"""A place said in words, for "where": "at reception", "in the app", "online"."""
_OFTEN = re.compile(r"\b(?:every|each|per|once|twice|thrice|times|daily|weekly|monthly|yearly|annually|hourly|nightly|"
                    r"fortnightly|a\s+(?:day|week|month|year)|an\s+hour|\d+[\s-]*hourly|at\s+most|no\s+more\s+than|"
                    r"up\s+to|never|always)\b", re.IGNORECASE)


def _asking(query: str, match: re.Match[str]) -> bool:
    """A question word that asks, not one in a relative clause ("the landlord who wants", "a place where I can park")
    or a clause of condition ("Can I cancel when I'm abroad?"): "who" at the head of a clause or after a verb of asking
    ("tell me who"); "when" / "where" followed by its auxiliary ("where can I park?", "when's it open?", "open
    when?"), or at the head of a clause and not followed by its subject ("When I cancel, do I pay?" asks no time)."""
    before, after = query[:match.start()], query[match.end():]
    if match.group(1).lower() in ("who", "whom", "whose"):
        return bool(_OPENS_CLAUSE.search(before))
    if match.group(0)[-2:] in ("'s", "’s") or _AUXILIARY.match(after):
        return True
    return bool(_CLAUSE_HEAD.search(before)) and not _SUBJECT.match(after)


@functools.lru_cache(maxsize=2048)
def asked_kinds(query: str) -> frozenset[str]:
    """The kinds of answer a question asks for: any of "money", "span", "often", "number", "time", "name" (who),
    "place" (where); empty when it asks for none of these (a yes-or-no question, "what", "why", "how do I").

    >>> sorted(asked_kinds("How much does Oakdene Surgery charge adults for the chickenpox vaccine?"))
    ['money']
    >>> sorted(asked_kinds("How much notice do I need to give?")), sorted(asked_kinds("How much syrup can I give her, and how often?"))
    (['span'], ['number', 'often'])
    >>> sorted(asked_kinds("And if it's the landlord who wants to end it?")), sorted(asked_kinds("Who pays the fee?"))
    ([], ['name'])
    >>> sorted(asked_kinds("Can I cancel when I'm abroad?")), sorted(asked_kinds("When does the museum open?"))
    ([], ['time'])
    """
    kinds = set()
    if _ASKS_MONEY.search(query):
        kinds.add("money")
    if _ASKS_SPAN.search(query):
        kinds.add("span")
    if _ASKS_OFTEN.search(query):
        kinds.add("often")
    # "how much" / "how many" that asks for no price, span or frequency asks for a number ("how much syrup")
    rest = _ASKS_OFTEN.sub(" ", _ASKS_SPAN.sub(" ", _ASKS_MONEY.sub(" ", query)))
    if _ASKS_NUMBER.search(rest):
        kinds.add("number")
    for match in _WH.finditer(query):
        if _asking(query, match):
            word = match.group(1).lower()
            kinds.add("time" if word == "when" else "place" if word == "where" else "name")
    if re.search(r"\bwhat\s+(?:date|time|day|month|century|decade)\b", query, re.IGNORECASE):
        kinds.add("time")
    return frozenset(kinds)


def missing_kind(query: str, part: str, evidence: str = "", given: str = "", supplied: bool = False) -> str | None:
    """What the question asks for that the part's new words hold none of (`asked_kinds`; the query's own words do
    not count): None when the part holds one of the kinds asked, or the question asks for none.

    - a price: a currency, "free", "nothing", a share ("25%");
    - a span: a figure with a unit of time or length, "until ...", "straight away", a range of months or dates ("from
      April to September"), and in the evidence (`supplied`) a range of weekdays;
    - a frequency: "every", "twice", "a day", "no more than";
    - a number: any figure or count in words ("twice", "a dozen");
    - a date or time: a number, a day's or month's name, a word of time ("already out", "in spring");
    - a name: one the query or the earlier turns (`given`) do not already give, or a capitalised word opening the part
      that the evidence writes capitalised ("Shangdu." to "Where did he die?"); for "who" a person or group ("your
      landlord", "anyone over 65") too, for "where" a place said in words ("at reception", "online").

    >>> missing_kind("How much does the vet charge to microchip a cat?", "Kittens can be chipped from 8 weeks.")
    'a price'
    >>> missing_kind("How much does the vet charge to microchip a cat?", "It's free at the spring clinic.") is None
    True
    >>> missing_kind("How long does a refund take?", "Refunds go back to the card you paid with."), missing_kind(
    ...     "How long does a refund take?", "Up to ten working days.")
    ('a span of time', None)
    >>> missing_kind("How long must dogs be kept on a lead?", "Dogs must be on a lead from 1 March to 31 July.") is None
    True
    """
    kinds = asked_kinds(query)
    if not kinds:
        return None
    known = salient_terms(query) | salient_terms(given)
    names = {t for t in salient_terms(part) if not t.isdigit()} - known
    opening = re.match(r"^\W*([A-Z][\w'’-]*)", part)
    if opening and opening.group(1).lower() in _names_of(evidence):
        names |= {opening.group(1).lower()} - known
    has_number = bool(numbers(part) - numbers(query)) or bool(set(_COUNT_WORDS.findall(part.lower()))
                                                              - set(_COUNT_WORDS.findall(query.lower())))
    held = {
        "money": lambda: bool(_MONEY.search(part)),
        "span": lambda: bool(_SPAN.search(part)) or (has_number and bool(_TIME_WORD.search(part))) or bool(
            re.search(r"\b(?:until|till|within)\b", part, re.IGNORECASE)) or bool(_FRAME_RANGE.search(part)) or (
            supplied and bool(_DAY_RANGE.search(part))),
        "often": lambda: bool(_OFTEN.search(part)),
        "number": lambda: has_number,
        "time": lambda: has_number or any(TIME_FRAME.match(n) for n in names) or bool(_TIME_WORD.search(part)),
        "name": lambda: bool(names) or bool(_PERSON.search(part)),
        "place": lambda: bool(names) or bool(_PLACE.search(part)),
    }
    if any(held[kind]() for kind in kinds):
        return None
    label = {"money": "a price", "span": "a span of time", "often": "a frequency", "number": "a number",
             "time": "a number or date", "name": "a name", "place": "a place"}
    order = ("money", "span", "often", "number", "time", "name", "place")
    return " or ".join(label[k] for k in order if k in kinds)


@functools.lru_cache(maxsize=1024)
def _names_of(evidence: str) -> frozenset[str]:
    """`salient_terms` of an evidence text, read once per text (every sentence of a passage asks it)."""
    return frozenset(salient_terms(evidence))


_VARIANTS = tuple({name: re.compile(pattern, re.IGNORECASE) for name, pattern in group.items()} for group in (
    {"upload": r"\bupload|\bupstream", "download": r"\bdownload|\bdownstream"},
    {"winter": r"\bwinter", "summer": r"\bsummer", "spring": r"\bspring(?:time)?\b", "autumn": r"\bautumn"},
    {"domestic": r"\bdomestic\b", "international": r"\binternational\b|\boverseas\b|\babroad\b"},
))
"""Alternatives a thing's facts are given for one at a time (a direction, a season, a reach): a sentence naming only
another one of them than the query names states that one's facts ("average download speed 300Mbps" when asked about
the upload speed, the summer timetable when asked about this winter's). Only sets whose members a page names by these
words: a time band is "peak", "day", "overnight" or "before 09:30" by turns."""
_SEASON_MONTHS = {"winter": ("december", "january", "february"), "spring": ("march", "april"),
                  "summer": ("june", "july", "august"), "autumn": ("september", "october", "november")}
"""A text names a season by its months too ("from November to March" names the winter); May, a word of its own
besides, names none. One that holds all year ("open year-round") names every season."""
_ALL_YEAR = re.compile(r"\ball[- ](?:year|seasons)\b|\byear[- ]round\b|\b(?:throughout|every day of|all through) the year\b"
                       r"|\b(?:12|twelve) months a year\b|\b365 days\b|\bevery season\b", re.IGNORECASE)


def _alternatives_named(group: dict[str, re.Pattern], text: str) -> set[str]:
    """The alternatives of `group` a text names (a season by its months too)."""
    lowered = text.lower()
    return {name for name, pattern in group.items()
            if pattern.search(text) or (name in _SEASON_MONTHS and (_ALL_YEAR.search(text) or any(
                frame_named(m, lowered) for m in _SEASON_MONTHS[name])))}


def _alternatives_repeated(group: dict[str, re.Pattern], text: str) -> set[str]:
    """The alternatives of `group` whose words a text repeats: what a page is about, not a line in passing."""
    return {name for name, pattern in group.items() if len(pattern.findall(text)) >= 2}


def other_variant(query: str, sentence: str, title: str = "", passage: str = "") -> bool:
    """Whether a sentence names another variant of a thing the query names: another number of a numbered product,
    plan or line ("Fixed Saver 12" when asked about the Fixed Saver 24 tariff, "Route 7" when asked about route 9),
    or only another of a set of alternatives (`_VARIANTS`: the download speed when asked about the upload, the summer
    timetable when asked about the winter's), it or, where it names none of them, the page it is read in: its
    `title` ("Summer timetable") or a `passage` that repeats another's words and never names the asked one (download
    speeds row by row): what it says is that variant's.

    >>> q = "What's the exit fee if I leave Northgate's Fixed Saver 24 tariff early?"
    >>> other_variant(q, "Fixed Saver 12 has an exit fee of £75."), other_variant(q, "Fixed Saver 24 carries a £90 fee.")
    (True, False)
    >>> other_variant(q, "On any fixed tariff you won't pay an exit fee in the last 49 days.")
    False
    >>> other_variant(q, "Fixed Saver 24 costs £90 to leave; Fixed Saver 12, £75.")
    False
    >>> q = "What upload speed do I get on Fibre 300 this winter?"
    >>> [other_variant(q, s) for s in ("Fibre 300: average download speed 300Mbps.", "Summer Sundays start at 08:40.",
    ...  "Uploads run at 50Mbps, downloads at 300Mbps.", "The first winter bus leaves at 07:10.")]
    [True, True, False, False]

    A query naming two alternatives of a set asks about both: a sentence naming either one may answer it.

    >>> other_variant("Is the off-peak or the peak fare cheaper?", "Off-peak returns cost £6.80.")
    False

    A season is named by its months too:

    >>> other_variant("Is the castle open in winter?", "Summer: 10:00-18:00. November to March: weekends only.")
    False
    >>> q = "Is the castle open in winter?"
    >>> [other_variant(q, s, t) for s, t in (("Open daily.", "Summer timetable"), ("Winter: weekends.", "Summer times"))]
    [True, False]
    >>> [other_variant(q, "Open daily.", passage=p) for p in ("Summer hours: 10-6. Summer tours at noon.",
    ...  "Open daily. Summer late nights to 21:00.", "Summer hours: 10-6. Summer tours at noon. Closed in January.")]
    [True, False, False]
    """
    for group in _VARIANTS:
        asked = {name for name, pattern in group.items() if pattern.search(query)}
        if len(asked) == 1:
            said = _alternatives_named(group, sentence) or _alternatives_named(group, title) or (
                set() if asked & _alternatives_named(group, passage) else _alternatives_repeated(group, passage))
            if said and not said & asked:
                return True
    for match in _NUMBERED.finditer(query):
        name, number = match.group(1), match.group(2)
        if name.lower() in _NOT_NAMES or TIME_FRAME.match(name.lower()) or re.fullmatch(r"1\d{3}|20\d{2}", number):
            continue  # "In 2023", "June 2024": no variant
        said = {n.lower() for n in re.findall(r"\b" + re.escape(name) + r"\s+(\d[\w.]*)\b", sentence)}
        if said and number.lower() not in said:
            return True
    return False


_NUMBERED = re.compile(r"\b([A-Z][a-z][\w'’&-]*)\s+(\d[\w.]*)\b")
"""A name's last word with its number ("Saver 24" of "Fixed Saver 24", "Fibre 150", "Route 9"): a variant of a
product, plan or line."""
_NOT_NAMES = frozenset("in on at by for from to of per the a an and or since after before until during is are was were "
                       "it its my our your their his her this that these those page section part chapter step day "
                       "week year age aged over under".split())


_NO_NAME = frozenset({"ok", "okay"})
"""Capitalised by convention, naming nothing ("Is it OK to ...?")."""


def asked_names(query: str, need: str) -> set[str]:
    """The names the evidence must give to answer the query (else the need, a follow-up's with its earlier turns): its
    capitalised words, not "OK", not a month or a day of the week the user gives only as part of a date ("a ticket on 3
    March", "issued in March 2019", "my train on Monday 3 March"), which says when something happened, not what is
    asked, and not the user's own figures ("a bill of £186.40", "a 1.8 m fence"), which the evidence need not repeat.

    >>> sorted(asked_names("I got a ticket on 3 March from Harlow Council. Is it OK to pay in April?", ""))
    ['april', 'harlow council']
    >>> sorted(asked_names("My Westmoor train on Saturday 14 March cost £38.40. Do trains run on Sundays?", ""))
    ['sundays', 'westmoor']
    """
    for text in (query, need):
        figures = numbers(text)
        names = {t for t in salient_terms(text) if t not in figures and t not in _NO_NAME
                 and t not in dated_months(text) and t not in dated_weekdays(text)}
        if names:
            return names
    return set()


@by_content
def names_covered(names: set[str], text: str) -> float:
    """How many of the (lower-cased) names a passage names (`text.names_in`), a name of several words also where the
    passage writes each of its words capitalised, as a name or a title writes it ("Cobalt Home Insurance Standard" of
    "Cobalt Home Insurance: excesses. Standard policy: £250"), not where they are words of a sentence ("South Sudan"
    is not named by "Sudan, which lies south of Egypt"): what a passage is about, for the supply reading.

    >>> names_covered({"cobalt home insurance standard", "south sudan"},
    ...               "Cobalt Home Insurance. Standard policy: £250. Sudan, which lies south of Egypt.")
    1.0
    """
    lowered, capitalised = text.lower(), _capitalised(text)
    covered = 0.0
    for name in names:
        found = names_in({name}, lowered)
        parts = re.findall(r"[a-z0-9]+", name)
        apart = len(parts) > 1 and all(w in capitalised or (w.endswith("s") and w[:-1] in capitalised) for w in parts)
        covered += 1.0 if apart else found
    return covered


@functools.lru_cache(maxsize=1024)
def _capitalised(text: str) -> frozenset[str]:
    """The words a passage writes capitalised, lower-cased, read once per passage (each of its sentences asks)."""
    return frozenset(w.lower() for w in re.findall(r"\b[A-Z][\w'’-]*", text))
