"""The lexical checks of one claim against its evidence (`claim_support`): its figures (given by the evidence,
derived from two of its figures, denied by the claim, or the user's own against another figure in the evidence's
unit), a contrasting word swapped in, and how much of its wording is new. Pure functions of strings and evidence.
"""

from __future__ import annotations

import difflib
import functools
import re
from collections.abc import Sequence

from reward.format import split_sentences, strip_citations
from reward.judges.local.arithmetic import (_DENIED_NUMBER, _RELATION_WORDS, denied_numbers, derived_numbers, with_rates,
                                            wrong_difference)
from reward.judges.local.bands import band_swapped, row_swapped, unit_swapped
from reward.judges.local.figures import (_ORDER_STEMS, _SPELLED, _YEAR_UNIT, _given, _quantities, _unit, misattributed,
                                         ordered_reading, ordering)
from reward.judges.local.growth import (CHANGE_STEMS, change_misstated, changed_elsewhere, growth_verdict)
from reward.judges.local.negation import (_DUTY, _DUTY_DENIED, _DUTY_WORDS, DUTY_CONFLICTS, _negated_scope,
                                          duty_conflict, obligation)
from reward.judges.local.numbercheck import answer_figures, dated_text, figures_read
from reward.judges.local.text import _CONTRAST_OF, FINITE, STOPWORDS, content_words, numbers, stem, stems
from reward.memo import by_content
from reward.schema import Evidence


_FIGURE = re.compile(r"[$€£¥]?\d[\d.,]*(?:%|m|bn|k)?")
_THOUSANDS = re.compile(r"(?<=\d),(?=\d{3}(?!\d))")
"""A thousands separator ("3,390"), which `numbers` drops."""


def _windows(docs: Sequence[Evidence]) -> tuple[str, ...]:
    """Each evidence sentence with the one before it (where a pronoun's name is) and its document's title."""
    out = []
    for d in docs:
        sentences = split_sentences(d.text)
        out += [" ".join(x for x in (d.title and d.title.rstrip(".") + ".", *sentences[max(0, i - 1): i + 1]) if x)
                for i in range(len(sentences))]
    return tuple(out)


@functools.lru_cache(maxsize=1024)
def _replaced(haystack: str) -> frozenset[str]:
    """Numbers the evidence gives only to deny or replace them ("17:00 instead of 18:00", "not 30")."""
    return frozenset(denied_numbers(haystack) - numbers(_DENIED_NUMBER.sub(" ", strip_citations(haystack))))


_LABEL = re.compile(r"^\W*([A-Za-z][\w'’()/+-]*(?:\s+[\w'’()/+-]+){0,2}):\s+(?=\S)")
"""A line's label of up to three words ("Best method: ...", "Next step: ..."): what the line is about."""


@by_content
def claim_support(claim: str, docs: Sequence[Evidence], similarity: float = 0.0, asked: str = "",
                  closest: str = "", worked: frozenset[str] = frozenset()) -> tuple[bool, str]:
    """Whether the evidence supports a claim: its numbers all occur in the evidence or follow from two of its figures
    by one subtraction or addition (`derived_numbers`), no word swaps in a contrasting sibling of what the evidence
    says, and few of its content words are new (stems compared) unless it is a close paraphrase (`similarity`, the
    best embedding similarity to an evidence sentence). The user's words (`asked`) are no evidence: a number only the
    query gives is missing where the evidence gives another figure in its unit (a false premise, "30 euros" where
    the evidence says 18 euros), and no name; the query's words, which a claim repeats to say what it is about ("your
    laptop"), are not counted as new words. A figure the evidence names only to deny or replace it ("closes at 17:00
    instead of 18:00") is one it denies. Returns (supported, why not).

    >>> museum = [Evidence(id="1", text="From 2026 the museum closes at 17:00 on Sundays instead of 18:00.")]
    >>> claim_support("The museum closes at 18:00 on Sundays.", museum), claim_support("It closes at 17:00.", museum)
    ((False, 'says 18:00 where the evidence says not 18:00'), (True, ''))
    """
    if not docs:
        return False, "no evidence to support it"
    haystack = " ".join(dated_text(d) for d in docs)
    missing_numbers, derived, sizes, spans, totals = figures_read(claim, docs, asked, worked)
    readings = [claim] + ([with_rates(claim, totals)] if totals else [])
    if missing_numbers:
        return False, f"numbers not in the evidence: {', '.join(sorted(missing_numbers))}"
    difference = wrong_difference(claim)
    if difference:
        return False, difference
    # A figure the evidence gives only to deny or replace it ("17:00 instead of 18:00", "not 30") is not stated by it.
    replaced = _replaced(haystack)
    stated = sorted((numbers(claim) - denied_numbers(claim)) & replaced)
    if stated:
        return False, f"says {stated[0]} where the evidence says not {stated[0]}"
    sentences = [s for d in docs for s in split_sentences(d.text)]
    for reading in readings:
        swap = swapped(reading, docs, asked, sentences, haystack)
        if swap:
            return False, swap if reading == claim else f"{swap}, in a total worked from it"
    order = ordering(claim, haystack)
    if order and not order[0]:
        return order
    moved = changed_elsewhere(claim, docs) or change_misstated(claim, docs)
    if moved:
        return False, moved
    growth = growth_verdict(claim)
    if growth and not growth[0]:
        return growth
    evidence_words = set(content_words(haystack))
    asked_words, closest_words = set(content_words(asked)), set(content_words(closest))
    denied = _negated_scope(strip_citations(claim))
    for word in content_words(claim):
        group = None if stem(word) in denied else _CONTRAST_OF.get(word)  # "never closed" agrees with "open"
        # A word the query gives ("is it free?", "is it open?") is read against the evidence sentence closest to
        # the claim: "open" fails where that sentence says "closed", not where another passage says "closed" of
        # another date. (Whether something is required or optional is read by `obligation_swapped`, in any words.)
        against = closest_words if word in asked_words else evidence_words
        if group and word not in evidence_words and (group - {word}) & against:
            return False, f"says {word!r} where the evidence says {sorted((group - {word}) & against)[0]!r}"
    duty = obligation_swapped(claim, sentences)
    if duty:
        return False, duty
    # Words that say where the claim comes from, and beside a figure derived from the evidence's (or two of its
    # figures rightly ordered) the relation and unit that derive it ("2 years before 2007", "a difference of 8
    # years", "the second came before the first"), state no fact: they are left out of the count, so they neither
    # count as new nor dilute the words that are.
    # (... as are the words of a change whose size or verdict the arithmetic checked: "added", "in absolute terms")
    # (... and a span of time worked out between two times: "takes 2 hours 25 minutes")
    framing = _ATTRIBUTION | _INDEFINITE | (_RELATION | _ORDER_STEMS if derived or order or sizes or growth or spans
                              else frozenset()) | (CHANGE_STEMS if sizes or growth else frozenset()) | (
        _SPAN_STEMS if spans else frozenset())
    # (... and beside a source it names, the words that say which source is the newer: "the newer source is more
    # likely to be current", "Going by the more recent one", "Older listings that say 18:00 are out of date")
    if {stem(w) for w in re.findall(r"[a-z]+", claim.lower())} & _SOURCES:
        framing = framing | _RECENCY | (_GOING if re.search(r"\bgoing\s+by\b", claim, re.IGNORECASE) else frozenset())
    # (... and beside a figure worked out from others, the words that work it: "plus the £10 fee, comes to £346")
    if numbers(claim) - _given(haystack) - denied_numbers(claim):
        framing = framing | _WORKING
    units = {unit for _, _, unit in _quantities(claim) if unit} if derived else set()
    # A figure ("€15") is the number check's; so is one spelled out whose value the evidence or the user gives ("three
    # days" for "3 days", "at four" for a 4-year-old): one they do not give stays a new word.
    figures = _given(haystack) | numbers(asked)
    # (... and a line's label, "Best method: fridge at 4°C", which names what the line gives, not a fact of it)
    label = _LABEL.match(strip_citations(claim))
    framing = framing | (stems(label.group(1)) if label else frozenset())
    words = [w for w in content_words(claim) if stem(w) not in framing and _unit(None, w) not in units
             and not _FIGURE.fullmatch(w) and _SPELLED.get(w) not in figures]
    if not words:
        return True, ""
    known = {stem(w) for w in evidence_words} | stems(asked)
    # what the evidence says was done again was done: "open" is in "reopened", "built" in "rebuilt"
    # ... and an obligation in the evidence's sense is no new word, however it is said ("compulsory" for "required")
    duties = obligation(haystack)
    novel = [w for w in words if stem(w) not in known and "re" + stem(w) not in known
             and not (duties and obligation(w) & duties)]
    ratio = len(novel) / len(words)
    if len(novel) <= 1 or ratio <= 0.25 or (ratio <= 0.5 and similarity >= 0.5) or (ratio <= 0.7 and similarity >= 0.7):
        return True, ""
    return False, f"words not in the evidence: {', '.join(novel[:5])} (closest evidence similarity {similarity:.2f})"


_EXCEPTING = re.compile(r"\b(?:unless|except|other than|apart from|save for)\b", re.IGNORECASE)
_PROVIDED = re.compile(r"\b(?:if|only|when|whenever|provided|as long as)\b", re.IGNORECASE)
_THRESHOLD = re.compile(r"\b(?:(?:under|over|below|above)\s+(?:the\s+age\s+of\s+)?\d+|younger|older|aged|until|no one|"
                        r"nobody|none|anyone who|those who|\w+er than|or (?:more|less|fewer|over|under|above|below|"
                        r"older|younger)|before|prior to|without)\b", re.IGNORECASE)
"""A rule's scope that takes a comparison to apply ("under 16", "longer than 90 days", "before the 1993 Act"), or
another duty ("not permitted without planning permission": the permission is required): its duty is not read from
words. ("Since 2022", "after 6 pm" say when the rule holds, now included.)"""
_CLAIM_SCOPE = re.compile(_THRESHOLD.pattern.replace("|without", ""), re.IGNORECASE)
"""A claim's own scope ("optional before the Act"), which is no claim about now; "prohibited without a permit" is
one."""
_CLAUSE = re.compile(r";\s+|,?\s+(?:but|though|although|while|whereas|because|since|so)\b|,\s+and\b|(?<=[.!?])\s+",
                     re.IGNORECASE)
_RELATIVE = re.compile(r",\s+(?:which|who|where)\b", re.IGNORECASE)
_FRAME = re.compile(r":\s+|\s+that\s+", re.IGNORECASE)


def _duty_of(sentence: str, topic: frozenset[str], restated: bool = False) -> frozenset[str]:
    """What an evidence sentence says the claim's topic is (required, optional, allowed, prohibited); empty where it
    takes more than words to tell.

    - A sentence that says both ("Registering is optional, but you must keep the receipt") is read in the one clause
      whose own words (no other clause has them) the topic shares; in none where more than one clause's are shared.
    - A rule with an exception ("required unless your home university provides cover") says its duty of what does
      not name the exception and the other duty of what does; a claim that gives the rule with an exception of its
      own (`restated`: "you need insurance unless your university covers you") is read against the rule's duty, and
      against the other one where the evidence gives a proviso ("needed only if symptoms return": "you don't need
      it unless they return"); a rule with a proviso ("optional if you use self-raising flour") says its duty only
      of what names the proviso; a threshold ("under 16", "longer than 90 days", "before the Act") is not read.

    >>> rule = "Travel insurance is required unless your home university provides cover."
    >>> [sorted(_duty_of(rule, stems(t))) for t in ("travel insurance", "insurance if my university covers me")]
    [['required'], ['optional']]
    >>> sorted(_duty_of("Riders under 16 must wear a helmet.", stems("helmet")))
    []
    """
    said = obligation(sentence)
    if len(said) > 1:
        clauses = [c for c in _CLAUSE.split(sentence) if c.strip()]
        parts = [stems(c) for c in clauses]
        own = [i for i, words in enumerate(parts)
               if topic & words - frozenset().union(*(other for j, other in enumerate(parts) if j != i))]
        return _duty_of(clauses[own[0]], topic, restated) if len(own) == 1 and len(clauses) > 1 else frozenset()
    if not said or _THRESHOLD.search(sentence):
        return frozenset()
    condition = _EXCEPTING.search(sentence) or _PROVIDED.search(sentence)
    if not condition:
        return said
    # (the exception's own words: "except the beginner trail" is not named by "helmets on the trails")
    named = bool(topic & (stems(re.split(r"[,;.]", sentence[condition.start():])[0])
                          - stems(sentence[:condition.start()])))
    excepting = bool(_EXCEPTING.match(condition.group(0)))
    if not named:
        return said if excepting else frozenset()
    # What names the condition is its case, unless the claim gives the rule with the other kind of condition:
    # "you don't need a second course unless symptoms return" for "needed only if symptoms return".
    return frozenset(_DUTY_DENIED[d] for d in said) if excepting != restated else said


def obligation_swapped(claim: str, sentences: Sequence[str]) -> str:
    """A clause of the claim says a duty that the evidence sentence it is about cannot also say (`duty_conflict`):
    "optional" where it says "required", "allowed" where it says "prohibited". The sentence it is about is the one
    sharing most of its words, at least two besides the duty's (sentences sharing as many are read together, and
    where they disagree the clause is not read); what it says of the clause's topic is `_duty_of`. Said in any words
    (`obligation`): "A helmet is optional on public roads" beside "Riders must wear a helmet on all public roads".
    Not read where another sentence that says the clause's duty shares two of its words too, one of them its own
    ("Office staff don't have to wear vests" beside "All staff in the loading area must wear vests" and "In the
    offices vests are optional"), or where the clause itself has a scope ("before the 1993 Act").

    >>> rules = ["Visitors must book a time slot online.", "Guided tours run at 11:00; joining one is optional."]
    >>> obligation_swapped("Joining a guided tour is mandatory.", rules)
    "says 'required' where the evidence says 'optional'"
    >>> obligation_swapped("You don't have to join a guided tour, but you must book a slot online.", rules)
    ''
    >>> obligation_swapped("Visitors must be told that joining a guided tour is mandatory.", rules)
    "says 'required' where the evidence says 'optional'"
    """
    for part in _duty_parts(strip_citations(claim)):
        said = obligation(part)
        topic = stems(part) - {stem(w) for w in _DUTY_WORDS}
        if _CLAIM_SCOPE.search(part):
            continue
        restated = bool(_EXCEPTING.search(part))
        overlaps = [len(topic & stems(s)) for s in sentences]
        most = max(overlaps, default=0)
        enough = min(2, len(topic))
        if not most or most < enough:
            continue
        aligned = [s for s, n in zip(sentences, overlaps) if n == most]
        duties = [_duty_of(s, topic, restated) for s in aligned]
        if len(aligned) > 1 and any(pair <= frozenset().union(*duties) for pair in DUTY_CONFLICTS):
            # sentences as close that disagree: the claim's figures other than years tell which it is about
            # ("Calculators are optional in Paper 1" against Paper 1's rule and Paper 2's)
            figures = {f for f in numbers(part) if not _YEAR.match(f)}
            shared = [len(figures & numbers(s)) for s in aligned]
            duties = [d for d, n in zip(duties, shared) if n == max(shared)]
        theirs = frozenset().union(*duties)
        if any(pair <= theirs for pair in DUTY_CONFLICTS):
            continue
        conflict = duty_conflict(said, theirs)
        # ... unless another sentence that says the clause's duty shares two of its words too, one of them its own
        # ("In the offices vests are optional" for "Office staff don't have to wear vests", beside "Staff in the
        # loading area must wear vests")
        near = frozenset().union(*(stems(s) for s in aligned))
        if conflict and not any(n >= enough and said & _duty_of(s, topic, restated) and (topic & stems(s)) - near
                                for s, n in zip(sentences, overlaps)):
            return f"says {conflict[0]!r} where the evidence says {conflict[1]!r}"
    return ""


def _duty_parts(text: str) -> list[str]:
    """The parts of a claim that each say one duty of one thing: its clauses (`_CLAUSE`, and at a colon or "that"
    after a duty when a clause follows: "Yes, you'll need one: only volunteering is exempt", "Visitors must be told
    that tours are mandatory"); in a clause saying duties that conflict, the last one with what comes after the duty
    before it ("Visitors must be told hard hats are optional": "be told hard hats are optional"), a frame's duty
    with what it frames.

    >>> _duty_parts("Yes, you'll need one: only unpaid volunteering is exempt; helmets: required.")
    ["Yes, you'll need one", 'helmets: required.']
    """
    parts = []
    for clause in _CLAUSE.split(text):
        # a relative clause that says no duty ("..., which lasts 2 years") is no part of what the clause says of its
        # thing; one that does ("..., which does not need a permit") says it of the clause's thing
        main, *relative = _RELATIVE.split(clause, maxsplit=1)
        clause = clause if relative and obligation(relative[0]) else main
        frame = _FRAME.search(clause)
        head, rest = (clause[:frame.start()], clause[frame.end():]) if frame else (clause, "")
        pieces = [head, rest] if rest and obligation(head) and len(rest.split()) >= 3 else [clause]
        for piece in pieces:
            said = obligation(piece)
            if not said:
                continue
            if any(pair <= said for pair in DUTY_CONFLICTS):
                duties = list(_DUTY.finditer(piece))
                if len(duties) < 2:
                    continue  # (one of the duties is an instruction opening it: which is the frame is not told)
                piece = piece[duties[-2].end():]
            parts.append(piece)
    return parts


_ATTRIBUTION = frozenset(stem(w) for w in (
    "source", "sources", "document", "documents", "passage", "passages", "evidence", "article", "page", "according",
    "says", "gives", "states", "mentions", "reports", "lists", "cites", "table", "row", "rows", "column", "band",
    "bands", "bracket", "tier"))
"""Words that say where a claim comes from ("the other year the source gives", "according to the article", "the 4-6
row", "your band"), not what it claims: never new content."""
_SOURCES = _ATTRIBUTION | frozenset(stem(w) for w in (
    "one", "ones", "listing", "listings", "timetable", "timetables", "edition", "version", "versions", "notice",
    "leaflet", "website", "site", "update"))
"""What names a source, or one of several ("the more recent one"): beside it, words of recency are about the source."""
_RECENCY = frozenset(stem(w) for w in (
    "recent", "recently", "newer", "newest", "older", "oldest", "latest", "current", "currently", "outdated",
    "superseded", "updated", "predates", "date", "dated"))
"""Which of the sources is the newer: beside a source named (`_SOURCES`), no fact of the world but which page says it."""
_GOING = frozenset((stem("going"),))
_INDEFINITE = frozenset(stem(w) for w in ("anything", "something", "anyone", "someone", "anybody", "somebody"))
"""Pronouns that name nothing ("You don't need to book anything yet"): no word a claim could add a fact with."""

_RELATION = frozenset(stem(w) for w in _RELATION_WORDS)
"""Words of a comparison or a sum that derives a figure from two of the evidence's."""
_WORKING = frozenset(stem(w) for w in ("plus", "minus", "times", "total", "totals", "comes", "makes", "works", "altogether",
                                        "overall", "add", "adds", "added", "sum", "each", "left", "remaining"))
"""Words that work a figure out of others ("24 × £14 = £336, plus the £10 fee, comes to £346"): no fact of their own."""
_SPAN_STEMS = frozenset(stem(w) for w in ("hour", "hours", "minute", "minutes", "min", "mins", "h", "hr", "hrs"))
"""The units of a span of time worked out between two times of day."""


_ABOUT_SOURCES = re.compile(r"^\W*(?:the|both|all|these|those|two|neither|either|each)\s+(?:\w+\s+)?"
                            r"(?:sources?|documents?|passages?|articles?|evidence|results?|reports?|texts?)"
                            r"\s+(?!of\b)[a-z]", re.IGNORECASE)
_PARTICIPLE = re.compile(r"(?:(?:not|only|also|usually|always|never|still)\s+)?(?:[a-z]+ed|paid|given|made|held|kept|set|"
                         r"shut|shown|known|sold|taken|written|done|seen|built|run|sent|left|spent|brought|bought|"
                         r"found|won|lost|told|meant|charged)(?:\s+(?:by|for|in|on|at|to|from|with|until|within|after|"
                         r"before|during|as|only|once|every|each|under|over|separately)\b|\s*[.,;:!]|\s*$)")
"""A past participle after a copula: the sentence is a passive ("It's reserved for ...", "It was paid in full")."""
_PRONOUN_COPULA = re.compile(r"^\W*(?:it|this|that|they|these|those)(?:'s|’s|\s+(?:is|was|are|were))\s+", re.IGNORECASE)


@by_content
def swapped(claim: str, docs: Sequence[Evidence], asked: str = "", sentences: Sequence[str] = (),
            haystack: str = "") -> str:
    """Why the claim puts a figure or name of the evidence in another's place, or "": in the sentence it follows, to
    another name, in another unit, in one of its clauses, for another band, row or entry than the user's."""
    sentences = sentences or [s for d in docs for s in split_sentences(d.text)]
    haystack = haystack or " ".join(dated_text(d) for d in docs)
    return (swapped_value(claim, sentences) or misattributed(claim, _windows(docs)) or unit_swapped(claim, haystack)
            or swapped_in_clause(claim, sentences) or band_swapped(claim, sentences, asked)
            or row_swapped(claim, sentences, asked))


@by_content
def answer_worked(sentences: Sequence[str], docs: Sequence[Evidence], asked: str = "") -> frozenset[str]:
    """The figures the answer works out for all its sentences (`numbercheck.answer_figures`), from its sentences that
    put no figure in another's place: a total worked from lamb's rate for a beef joint makes no "about 1 hour 59
    minutes" elsewhere. Cached by content: every claim check of one response reads it."""
    given = _given(" ".join(dated_text(d) for d in docs))
    return answer_figures([s for s in sentences if not (numbers(s) - given and swapped(s, docs, asked))], docs, asked)


def is_fragment(claim: str) -> bool:
    """A claim that is no sentence: a name, a figure or a phrase of at most six words with no finite verb of the
    usual kinds, what a terse answer gives ("Zhenjin.", "Patrimonial feudalism.", "1906."), also behind a pronoun
    and a copula ("It is Zhenjin.").

    >>> is_fragment("Patrimonial feudalism."), is_fragment("Twice."), is_fragment("Arthur's Magazine was founded in 1844.")
    (True, True, False)
    >>> is_fragment("It is Zhenjin."), is_fragment("They were the Iroquois.")
    (True, True)

    A denial of more than two words is a statement, whatever its verb: "The lighthouse never closed."

    >>> is_fragment("The lighthouse never closed."), is_fragment("Not Zhenjin.")
    (False, True)

    A sentence about the sources ("The sources disagree.", "Both documents agree.") is a statement with a verb the
    auxiliaries above do not cover, not an answer to the question:

    >>> is_fragment("The sources disagree."), is_fragment("Both documents agree on 1998.")
    (False, False)

    Behind a pronoun, a passive is a statement about what the pronoun names, no answer's name ("It's reserved for
    Sundays and public holidays.", after "Double time isn't the weekday rate."):

    >>> is_fragment("It's reserved for Sundays and public holidays."), is_fragment("It was built in 1906.")
    (False, False)
    >>> is_fragment("It is Reserved matters, as the source states."), is_fragment("It is frozen yogurt.")
    (True, True)
    """
    if _ABOUT_SOURCES.match(claim):
        return False
    copula = _PRONOUN_COPULA.match(claim)
    if copula and _PARTICIPLE.match(claim[copula.end():]):
        return False  # a passive says something of what the pronoun names: "It's reserved for Sundays."
    claim = _PRONOUN_COPULA.sub("", claim, count=1)  # "It is Zhenjin" claims what "Zhenjin" does
    words = re.findall(r"[\w'’-]+", claim)
    return 0 < len(words) <= 6 and not FINITE.search(claim) and not (len(words) > 2 and _negated_scope(claim))



def corrects_question(claim: str, asked: str) -> bool:
    """The claim denies a figure or a word the question gives ("Prices rose 8%, not 100%." to "They put prices up
    100%, why?"; "Not Zhenjin." to "Why did Zhenjin succeed him?"): a correction of the question, not its answer, so a
    fragment saying so is not read as the question answered by it.

    >>> corrects_question("Prices rose 8%, not 100%.", "They put prices up 100%. Why?"), corrects_question("8%.", "By how much?")
    (True, False)
    >>> corrects_question("Not Zhenjin.", "Why did Zhenjin succeed Kublai?"), corrects_question("Not Zhenjin.", "Who succeeded Kublai?")
    (True, False)
    >>> corrects_question("No, Galileo Galilei.", "Who was influenced by early Medieval ideas?")
    False
    """
    text = strip_citations(claim)
    # (Not a bare "No," in front: "No, Galileo Galilei." to a question the evidence does not answer would escape the
    # question it answers.)
    return bool(denied_numbers(text) & numbers(asked)) or bool(_negated_scope(text) & stems(asked))


_LEXICAL_DENIAL = re.compile(r"\b(?:refus|ban(?:s|ned)?\b|prohibit|forb[ai]d|barred|without|exclud|reject|den(?:y|ied|ies)|"
                             r"prevent|fail|lack|unable|never|except)", re.IGNORECASE)


def denies_in_words(sentence: str) -> bool:
    """The sentence denies in words, not with a negator ("The crown's refusal to allow non-Catholics to settle",
    "banned", "except"; not "only", which restricts): a negated question it answers ("What persons were not allowed to settle?") agrees
    with it, which a reading of negators alone takes for a flip.

    >>> denies_in_words("The French crown's refusal to allow non-Catholics to settle"), denies_in_words("Chemists made it.")
    (True, False)
    """
    return bool(_LEXICAL_DENIAL.search(sentence))


_USERS_FIGURE_DENIED = r"\s*(?:,|;|\(|—|–|-)?\s*(?:but\s+|and\s+)?(?:not|rather than|instead of)\s+(?:the\s+|a\s+|an\s+)?[$€£¥]?({})(?![\d.,]\d)(?:\s*(?:%|per\s?cent\b|[a-zA-Z]+\b))?\s*\)?"


def without_users_figures_denied(claim: str, asked: str) -> str:
    """The claim without the figures of the user's it denies in passing ("Prices rose 8%, not 100%."), as the
    consistency model reads it: the denial corrects the user, which the number check reads (`denied_numbers`); what
    the claim asserts is the rest. A figure the user does not give stays.

    >>> without_users_figures_denied("Prices rose 8%, not 100% [Doc 1].", "They put prices up 100%.")
    'Prices rose 8% [Doc 1].'
    >>> without_users_figures_denied("It is £18 (not £30) at the door.", "Is it £30?")
    'It is £18 at the door.'
    >>> without_users_figures_denied("Prices rose 8%, not 100%.", "Why did prices rise?")
    'Prices rose 8%, not 100%.'
    """
    figures = sorted(numbers(asked) & denied_numbers(claim), key=len, reverse=True)
    if not figures:
        return claim
    pattern = _USERS_FIGURE_DENIED.format("|".join(re.escape(f) for f in figures))
    return re.sub(pattern, " ", claim).replace("  ", " ").replace(" .", ".").strip()


@by_content
def without_derivation(claim: str, haystack: str, asked: str = "") -> str | None:
    """The claim as the consistency model reads it: each figure derived from the evidence's (`derived_numbers`) taken
    out with the relation that derives it ("2 years before 2007", ", a difference of 8 years"), which the model cannot
    compute and the arithmetic has checked. None when nothing is left but such derivations, their units and words
    that say where the claim comes from, or when all it says is how two of the evidence's figures are ordered
    (`_orders_only`); where it rightly orders two figures, without the words of order (`ordered_reading`).

    >>> without_derivation("Mir is older: 1977 against 1985, a difference of 8 years.", "Mir, 1977. Tor, 1985.")
    'Mir: 1977 and 1985.'
    >>> without_derivation("The first is earlier: 1977 against 1985, a difference of 8 years.", "in 1977. in 1985.") is None
    True
    >>> without_derivation("That is 2 years before 2007, the other year the source gives.", "in 2005. in 2007.") is None
    True
    >>> without_derivation("It opened 11 years later than the first line.", "opened in 1998; the second in 2009.")
    'It opened later than the first line.'
    >>> without_derivation("It opened 12 years later.", "opened in 1998; the second in 2009.")
    'It opened 12 years later.'
    >>> without_derivation("Halvard is older by 65 years: founded in 1764, Teschen in 1829.", "in 1764. in 1829.")
    'Halvard: founded in 1764, Teschen in 1829.'
    >>> without_derivation("Mir is older: built in 1413 against 1569 for Tor, a difference of 156 years.", "1413. 1569.")
    'Mir: built in 1413 and 1569 for Tor.'
    >>> without_derivation("Tarn costs £45 a month and Pelican £38, a difference of £7.", "Tarn: £45. Pelican: £38.")
    'Tarn costs £45 a month and Pelican £38.'
    """
    derived = derived_numbers(claim, haystack, asked)
    if not derived:
        return None if _orders_only(claim, haystack) else ordered_reading(claim, haystack)
    text = strip_citations(claim)
    for written in sorted(derived):
        text = re.sub(r"(?:,\s*)?(?:\b(?:a|an|the)\s+(?:difference|gap|span)\s+of\s+|\bby\s+)?[$€£¥]?(?<![\d.,])" + re.escape(written)
                      + r"(?!\d|[.,]\d)[\s-]*[^\W\d_]*(?:\s+(?:" + "|".join(sorted(_RELATION_WORDS)) + r")"
                      r"(?:\s+than)?\s+(?:in\s+)?\d+(?:[.,]\d+)*)?", "", text, flags=re.IGNORECASE)
    text = re.sub(r"\s+([,.;:])", r"\1", re.sub(r"\s{2,}", " ", text)).strip(" ,;")
    units = {_YEAR_UNIT} | {unit for _, _, unit in _quantities(claim) if unit}
    left = [w for w in content_words(text) if stem(w) not in _ATTRIBUTION and _unit(None, w) not in units]
    return ordered_reading(text, haystack) if (left or numbers(text)) and not _orders_only(text, haystack) else None


_COMPARING = frozenset(stem(w) for w in ("comparing", "compared", "comparison", "two", "both", "one", "other"))


def _orders_only(claim: str, haystack: str) -> bool:
    """Whether all a claim says is that two figures of the evidence are ordered as they are ("Comparing the two, the
    second (1264) came before the first (1269)"): the arithmetic has checked it, and the model cannot compare figures.

    >>> _orders_only("Comparing the two, the second (1264) came before the first (1269).", "1269. 1264.")
    True
    >>> _orders_only("The charter (1599) came before the settlement (1884).", "1599. 1884.")
    False
    """
    if ordering(claim, haystack) != (True, ""):
        return False
    return not [w for w in content_words(strip_citations(claim))
                if stem(w) not in _RELATION | _ATTRIBUTION | _COMPARING and not _FIGURE.fullmatch(w)]


_TOKEN = re.compile(r"\d+(?:[.,:]\d+)*|[^\W\d_]+(?:['’-][^\W\d_]+)*")
_YEAR = re.compile(r"^1\d{3}$|^20\d{2}$")


def _value_kind(tokens: Sequence[str], k: int) -> str:
    """What slot tokens[k] fills: "year", "number <unit stem>", "name" (capitalised, not a sentence's first word nor
    a stop word), or "" (an ordinary word)."""
    token = tokens[k]
    if token[0].isdigit():
        if _YEAR.match(token):
            return "year"
        after = tokens[k + 1].lower() if k + 1 < len(tokens) else ""
        return "number " + (stem(after.rstrip("s")) if after and after not in STOPWORDS else "")
    return "name" if token[0].isupper() and k > 0 and token.lower() not in STOPWORDS else ""


SWAP_COPIED_SHARE = 0.6
"""A claim is read as one evidence sentence with a value replaced when at least this share of its words follow that
sentence's words in order (`swapped_value`)."""


def swapped_in_clause(claim: str, sentences: Sequence[str]) -> str:
    """`swapped_value` of each clause of a claim that joins several ("the bus takes 20 minutes, and the tram 35"):
    each clause may follow its own evidence sentence, so two figures swapped between two sentences are two swaps.

    >>> s = ["The Number 42 bus takes 35 minutes to Brook Street.", "The tram takes 20 minutes to Brook Street."]
    >>> swapped_in_clause("The Number 42 bus takes 20 minutes to Brook Street, and the tram takes 35 minutes.", s)
    "says '20' where the evidence sentence it follows says '35'"
    >>> swapped_in_clause("The Number 42 bus takes 35 minutes to Brook Street, and the tram takes 20 minutes.", s)
    ''
    """
    clauses = [c for c in _CLAUSE.split(strip_citations(claim)) if len(_TOKEN.findall(c)) >= 5]
    # a figure, not a name: a clause is short, and a name of the place it is about is no swap ("Elm Street stays open")
    return next((why for c in clauses if len(clauses) > 1 for why in [swapped_value(c, sentences)]
                 if re.match(r"says '[^']*\d", why)), "")


@by_content
def swapped_value(claim: str, sentences: Sequence[str]) -> str:
    """A name or figure of the evidence put in another's place: the claim follows one evidence sentence word for
    word (`SWAP_COPIED_SHARE` of its words, in order) but where that sentence gives a name or figure, the claim
    gives another name or figure of the same kind (a year for a year, a figure in the same unit, a capitalised name
    for a capitalised name) that the sentence does not hold. The claim is checked against the sentence it is about,
    the one it copies the rest from, not against the passage at large, where the swapped value also occurs (the
    lexical checks find every number and name somewhere in it). Returns why, or "" for none.

    >>> s = ["Following the conquest of Dali in 1253, the Duan dynasty were appointed as governors.",
    ...      "He died in 1294."]
    >>> swapped_value("Following the conquest of Dali in 1294, the Duan dynasty were appointed as governors.", s)
    "says '1294' where the evidence sentence it follows says '1253'"
    >>> swapped_value("After Dali was conquered in 1253, the Duan dynasty became governors.", s)
    ''
    >>> swapped_value("The Duan dynasty were appointed as governors after the conquest of Dali in 1253.", s)
    ''
    """
    words = _TOKEN.findall(strip_citations(claim))
    if len(words) < 4:
        return ""
    best = None
    for sentence in sentences:
        theirs = _TOKEN.findall(sentence)
        matcher = difflib.SequenceMatcher(None, [w.lower() for w in words], [w.lower() for w in theirs], autojunk=False)
        copied = sum(block.size for block in matcher.get_matching_blocks())
        if best is None or copied > best[0]:
            best = (copied, theirs, matcher)
    if best is None or best[0] < SWAP_COPIED_SHARE * len(words):
        return ""
    _, theirs, matcher = best
    held = {w.lower() for w in theirs}
    for op, i1, i2, j1, j2 in matcher.get_opcodes():
        if op != "replace":
            continue
        ours: dict[str, str] = {}
        given: dict[str, str] = {}
        for k in range(i1, i2):
            if words[k].lower() not in held:
                ours.setdefault(_value_kind(words, k), words[k])
        for k in range(j1, j2):
            given.setdefault(_value_kind(theirs, k), theirs[k])
        # a figure's slot first, then a name's (`swapped_in_clause` reads figures only), in a fixed order: a set's
        # order follows the process's string hashing, so a clause's year and month swapped together had been read as
        # a swap by one server process and not by another
        for kind in sorted(ours.keys() & given.keys(), key=lambda k: (k == "name", k)):
            if kind and ours[kind].lower() != given[kind].lower():
                return f"says {ours[kind]!r} where the evidence sentence it follows says {given[kind]!r}"
    return ""
