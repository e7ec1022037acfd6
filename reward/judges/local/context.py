"""What a local method reads: the `Context` of one (item, dimension) request in its reading form (accents,
look-alike letters and zero-width characters folded), the answer's sentences sorted into claims and non-claims,
and `Unscored`, which a method raises when it cannot judge an item.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass

import numpy as np

from reward.format import parse_response, split_sentences, strip_citations, tables_as_lines
from reward.judges.base import JudgeRequest
from reward.judges.consistency import ConsistencyScorer, is_english
from reward.judges.local.echo import restates_query
from reward.judges.local.embed import Embedder
from reward.judges.local.text import (
    _HEADER_LINE,
    _LEAD,
    content_words,
    copies_evidence,
    list_marker_removed,
    numbers,
    stems,
)
from reward.memo import by_content
from reward.rules import RULES
from reward.rules.declining import declines
from reward.rules.keywords import keyword_list_share
from reward.rules.verdicts import is_premise_verdict, scope_topic
from reward.schema import Evidence, Item
from reward.textnorm import reading_form

LocalMethod = Callable[["Context"], Awaitable[tuple[float, str] | tuple[float, str, float]]]
"""A local method returns (score, explanation) or (score, explanation, confidence): its own confidence in the
verdict (pass/fail at 0.5), where the score's distance from 0.5 would mislead (a saturated score)."""


def nearest_label(request: JudgeRequest, score: float) -> str | None:
    spec = request.dimension.judge
    if spec is None:
        return None
    return min(spec.scale, key=lambda entry: abs(entry.score - score)).label


def clip(value: float) -> float:
    return float(min(1.0, max(0.0, value)))


@dataclass
class Context:
    """What a local method reads, with cached derived views."""

    request: JudgeRequest
    embedder: Embedder
    scorer: ConsistencyScorer | None = None

    @property
    def item(self):
        return self.request.item

    @property
    def parsed(self):
        return self.request.parsed

    def rule(self, name: str):
        return self.request.prechecks.get(name) or RULES[name](self.item, self.parsed)

    def docs(self, ids: Sequence[str]) -> list[Evidence]:
        by_id = self.item.evidence_by_id()
        return [by_id[i] for i in ids if i in by_id]

    @property
    def selected(self) -> list[Evidence]:
        return self.docs(self.parsed.selected)

    @property
    def used(self) -> set[str]:
        """Evidence ids the answer or the plan cites: what the response actually used of its selection."""
        return set(self.parsed.cited_ids) | {i for facet in self.parsed.plan for i in facet.evidence}

    @property
    def need(self) -> str:
        """The user's need: the query read with the session's last earlier user turn, whatever the query's length (a
        follow-up, "And can I take that tram with a wheelchair?", inherits its topic from the turn before)."""
        users = [t.content for t in self.item.history if t.role == "user"]
        return f"{users[-1]} {self.item.query}" if users else self.item.query

    async def similarity(self, left: Sequence[str], right: Sequence[str]) -> np.ndarray:
        if not left or not right:
            return np.zeros((len(left), len(right)), dtype=np.float32)
        vectors = await self.embedder.embed([*left, *right])
        return vectors[: len(left)] @ vectors[len(left) :].T


class Unscored(Exception):
    """Raised by a local method that cannot judge this item (e.g. a language its model does not read)."""

    def __init__(self, reason: str, explanation: str):
        super().__init__(explanation)
        self.reason, self.explanation = reason, explanation


def sentence_evidence(ctx: Context, sentence_with_citations: str) -> list[Evidence]:
    """The evidence a sentence should be checked against: what it cites, else the selected evidence."""
    cited = [i for c in re.findall(r"\[\s*Doc\s*([^\]]+)\]", sentence_with_citations, re.IGNORECASE)
             for i in re.split(r"[,;]\s*(?:Doc\s*)?", c.strip())]
    if len(cited) > 3:
        return []  # citing (nearly) everything supports nothing in particular
    docs = ctx.docs(cited)
    return docs or ctx.selected


_ALTERNATIVES = re.compile(r"([^,:;?]+?)\s+or\s+([^,:;?]+?)\s*\?*\s*$", re.IGNORECASE)


@by_content
def _alternatives(question: str) -> tuple[frozenset[str], frozenset[str]] | None:
    """The stems of the two alternatives a choice question ends with, read once per question. Neither can hold a comma,
    a colon, a semicolon or a question mark, so only the question's last clause is searched, and only where it says
    "or" (searched whole, a long text without one cost the square of its length)."""
    body_end = len(question.rstrip().rstrip("?").rstrip())  # before what ends it: "?", spaces
    clause = question[max(question.rfind(c, 0, body_end) for c in ",:;?") + 1:]
    match = _ALTERNATIVES.search(clause) if re.search(r"\sor\s", clause, re.IGNORECASE) else None
    return (stems(match.group(1)), stems(match.group(2))) if match else None


def chosen_alternative(question: str, text: str) -> set[str]:
    """For a choice question ("..., A or B?"), the stems of the alternative the text names and the other does not
    (the answer to a choice question is in the question); empty when it names both, neither, or there is no choice.

    >>> sorted(chosen_alternative("Which was started first, Arthur's Magazine or First for Women?", "Arthur's Magazine."))
    ['arthu', 'magaz']
    >>> chosen_alternative("Which was started first, Arthur's Magazine or First for Women?", "Arthur's or Women's.")
    set()
    """
    sides = _alternatives(question.strip())
    if not sides:
        return set()
    left, right = sides
    own = stems(text)
    picked_left, picked_right = own & (left - right), own & (right - left)
    return set(picked_left) if picked_left and not picked_right else set(picked_right) if picked_right and not picked_left else set()


def _answer_sentences(ctx: Context) -> list[str]:
    """Answer sentences that carry content, citation markers kept; headings and bare list markers dropped."""
    return [body for body, _ in _answer_parts(ctx)]


_HEDGE_OPENING = re.compile(r"^\W*(?:it (?:may|might|could) (?:possibly |perhaps )?be (?:that|the case that)|it is "
                            r"(?:possible|conceivable) that|(?:perhaps|possibly|maybe),? (?:it is possible that )?)",
                            re.IGNORECASE)


def copy_reading(text: str) -> str:
    """A sentence as the copy checks read it: without a "Note that", an "It may possibly be that", a verdict on the
    premise ("The question rests on a false premise: X") or a decline ("The sources do not state this directly, but
    X") in front, which do not make a sentence copied from the evidence the answer's own (the verdict said apart,
    "That premise is not right. X", leaves X a copy too).

    >>> copy_reading("Note that it may possibly be that the museum opens at 9 am.")
    'the museum opens at 9 am.'
    >>> copy_reading("That premise is wrong: the museum opens at 9 am.")
    'the museum opens at 9 am.'
    >>> copy_reading("The sources do not state this directly, but the museum opens at 9 am.")
    'the museum opens at 9 am.'
    >>> copy_reading("Not stated explicitly; the museum opens at 9 am.")
    'the museum opens at 9 am.'
    >>> copy_reading("Not stated directly — the museum opens at 9 am."), copy_reading("At the gate: show your ticket.")
    ('the museum opens at 9 am.', 'At the gate: show your ticket.')
    """
    head, *rest = _VERDICT_HEAD.split(text, maxsplit=1)
    if rest and rest[0].strip() and is_premise_verdict(head):
        text = rest[0]
    head, *rest = _DECLINE_HEAD.split(text, maxsplit=1)
    if rest and rest[0].strip() and declines(head):
        text = rest[0]
    text = LEAD_CLAUSE.sub("", text, count=1).strip() or text
    text = DASH_HEAD.sub("", text, count=1).strip() or text
    return _HEDGE_OPENING.sub("", _LEAD.sub("", text).strip()).strip() or text


_VERDICT_HEAD = re.compile(r"\s*(?::|\s[—–-]\s)\s*")
LEAD_CLAUSE = re.compile(r"^\W*(?:[^\W\d_][\w'’-]*\s+){0,3}[^\W\d_][\w'’-]*\s*;\s*")
"""A clause of at most four words that a sentence opens with and closes with a semicolon ("Not stated explicitly;",
"Short answer;"): words put in front of a copied sentence do not make it the answer's own, and the claim check
reads a claim with and without them (`lead_readings`)."""
_DECLINE_HEAD = re.compile(r"\s*(?:[:;]|,\s*but\b|\s[—–-]\s)\s*", re.IGNORECASE)
DASH_HEAD = re.compile(r"^\W*(?:[^\W\d_][\w'’-]*\s+){0,3}[^\W\d_][\w'’-]*\s+[—–-]\s+(?!(?:or|and|nor|to)\b)")
"""A head of at most four words that a dash closes ("Not stated directly -"): what follows it is copied or not
whatever the head says. (A label closed by a colon, "At the gate: ...", is a line of a layout, about what it names;
"machine - or hand - knit" is a spaced-out compound.)"""


_HEDGE_LEAD = re.compile(
    r"^\W*(?:it (?:may|might|could)(?: (?:possibly|perhaps|well))? be(?: the case)? that|it is (?:possible|conceivable|"
    r"likely|probable) that|it (?:seems|appears)(?: that)?|as far as (?:i|we) know|perhaps|possibly|probably|maybe|"
    r"presumably|arguably)\b,?\s*", re.IGNORECASE)


_SOURCES_GIVE = re.compile(r"^\W*only\b.{0,80}?\b(?:is|are)\s+(?:given|stated|listed|mentioned|reported|shown)\b",
                           re.IGNORECASE)
"""A clause saying what the sources give instead ("only operating profit (£96m) is given"): about the sources."""


_STANCE = re.compile(r"^\W*(?:yes|no|not\s+(?:quite|really|exactly|so|true|correct)|correct|right|wrong|true|false|partly|"
                     r"actually|indeed)\b", re.IGNORECASE)
"""A reply's stance ("No -", "Not quite -"), which a head closed by a dash may be: it stays."""


_ABOUT_THE_ANSWER = re.compile(r"\b(?:stated|said|says?|mentioned|given|listed|specified|explicit(?:ly)?|directly|clear(?:ly)?|"
                               r"answer|news|note|short|brief(?:ly)?|summary|simply|put)\b", re.IGNORECASE)
"""Words of a frame about the answer or the sources ("Not stated directly", "Short answer", "Good news"), not the world."""


def _frame(head: str, content: frozenset[str] | None) -> bool:
    """Whether a head in front of a claim is a frame: words about the answer or the sources, or at most one word the
    user or the evidence uses (`content`, stems)."""
    return content is None or bool(_ABOUT_THE_ANSWER.search(head)) or len(stems(head) & content) <= 1


def lead_readings(claim: str, names: frozenset[str] = frozenset(), content: frozenset[str] | None = None,
                  strict: bool = False) -> list[str]:
    """The claim without each hedge it opens with, one more at a time ("It may possibly be that", "Perhaps"). The
    model reads a hedge as support or as doubt, neither of which the evidence gives; the claim check takes the
    reading it supports least, so a hedge can lower a claim's support but never raise it. A reply's stance ("No,",
    "Not quite -") stays: without it an honest correction is a fragment the model reads as unsupported.

    >>> lead_readings("It may possibly be that yes: the market is open until 15:00.")
    ['yes: the market is open until 15:00.']
    >>> lead_readings("Perhaps it seems that it opens at 9."), lead_readings("No, it opens at 9."), lead_readings("Maybe.")
    (['it seems that it opens at 9.', 'it opens at 9.'], [], [])

    So is a lead-in of a few words closed by a semicolon ("Not stated explicitly; it opens at 9."), unless what
    follows says what the sources give ("Not stated; only the 2023 figure is given"), which needs it:

    >>> lead_readings("Not stated explicitly; it opens at 9."), lead_readings("Not stated; only the 2023 figure is given.")
    (['it opens at 9.'], [])

    So is a head of at most four words closed by a dash that names nothing the user or the evidence names (`names`,
    lower-cased) and is a frame (`_frame`: "Not stated directly -", "Good news -"), not a
    stance ("No -") nor what the claim is about ("Roadline -", "the library's way older -"). A head closed by a colon
    stays: it labels what follows ("What the source says:"), and the model reads a label's claim alone no better
    than with it. With `strict`, so does a lead-in closed by a semicolon that is no frame: it says something ("Bring a
    ticket;"):

    >>> names = frozenset({"roadline", "kestrel"})
    >>> lead_readings("Not stated directly — Roadline is cheaper.", names), lead_readings("Roadline — 185 against 190.", names)
    (['Roadline is cheaper.'], [])
    >>> content = stems("Bring a return ticket. It is required.")
    >>> lead_readings("No — Roadline is cheaper.", names), lead_readings("Bring a ticket; it is required.", content=content,
    ...                                                                  strict=True)
    ([], [])
    >>> lead_readings("Good news; it is required.", content=content, strict=True)
    ['it is required.']
    """
    out, text = [], claim
    while True:
        led = _HEDGE_LEAD.sub("", text, count=1)
        clause = LEAD_CLAUSE.match(text) if led == text else None
        if clause and (not strict or _frame(clause.group(0), content)):
            unled = text[clause.end():]
            led = text if _SOURCES_GIVE.match(unled) else unled
        if led == text:
            head = DASH_HEAD.match(text)
            if (head and not _STANCE.match(head.group(0))
                    and not set(re.findall(r"\w+", head.group(0).lower())) & names
                    and _frame(head.group(0), content)
                    and not _SOURCES_GIVE.match(text[head.end():])):
                led = text[head.end():]
        if led == text or not led.strip(" .") or len(out) >= 4:
            return out
        out.append(led)
        text = led



def _answer_parts(ctx: Context) -> tuple[tuple[str, str], ...]:
    """(sentence, kind) for every answer sentence that carries content, in order; kind is `claim`, or what makes it
    no claim of the answer's own: `header` ("## Summary", "**Answer:**"), `quote` (a Markdown quote), `restatement`
    (of the query), `copy` (of an evidence sentence, nearly verbatim), `keywords` (a keyword list, not a sentence),
    `hedge` (a claim behind a stacked hedge, "It may possibly be that ...": it commits to nothing) or `scope` (what the
    sources cover instead of the answer, "[Doc 1] covers Warsaw, but not this.": it answers nothing).
    Cached per answer and interaction."""
    evidence = tuple((d.id, d.title, d.text) for d in ctx.item.evidence)
    return _parts_of(ctx.parsed.answer or "", ctx.item.query, evidence)


@functools.lru_cache(maxsize=1024)
def _parts_of(answer: str, query: str, evidence: tuple[tuple[str, str, str], ...]) -> tuple[tuple[str, str], ...]:
    docs = [Evidence(id=i, title=t, text=x) for i, t, x in evidence]
    out = []
    for sentence in split_sentences(answer):
        body = list_marker_removed(sentence)
        # A sentence in a script the word tokenizer does not split (Chinese) has no content words but is content.
        if not (len(content_words(body)) >= 2 or (len(_LETTERS.findall(body)) >= 4 and not is_english(body))):
            continue
        if sentence.lstrip().startswith(">"):
            kind = "quote"
        elif _HEADER_LINE.search(sentence):
            kind = "header"
        elif scope_topic(body):
            kind = "scope"
        elif (restates_query(strip_citations(body), query) and not numbers(body) - numbers(query)
              and not chosen_alternative(query, strip_citations(body))):
            # (a figure the query does not give is stated, whatever the words around it: "The 15:50 gets you to
            # Skerrin at 18:25" to "When do I get to Skerrin on the 15:50?" is a claim, checked as one; so is the
            # alternative a choice question's answer picks, "The Teschen Institute is older.")
            kind = "restatement"
        elif copies_evidence(copy_reading(strip_citations(body)), docs):
            kind = "copy"
        elif keyword_list_share(body) == 1.0:
            kind = "keywords"
        elif _HEDGE_OPENING.match(strip_citations(body)):
            kind = "hedge"
        else:
            kind = "claim"
        out.append((body, kind))
    return tuple(out)


_LETTERS = re.compile(r"[^\W\d_]")


@functools.lru_cache(maxsize=1024)
def _parsed_reading(response: str):
    return parse_response(response)


_READING_ITEMS: dict[int, tuple[Item, Item]] = {}
_SPACES = re.compile(r"[^\S\n]{2,}")
_BLANK_LINES = re.compile(r"\n(?:[^\S\n]*\n){2,}")
_DIGIT_RUN = re.compile(r"\d{41,}")


def _read(text: str) -> str:
    r"""A text in its reading form, with each run of spaces read as one space, each run of blank lines as one, and a
    run of more than 40 digits (no figure anyone writes) as groups of 40: what a reader sees, and what keeps a run of
    thousands of spaces or digits from costing every clause or figure pattern the square of its length.

    >>> _read("Cars pay £2.90" + " " * 5000 + "per day.\n\n\n\nVans pay £5.10.")
    'Cars pay £2.90 per day.\n\nVans pay £5.10.'
    >>> _read("Route " + "1" * 85 + ".")
    'Route 1111111111111111111111111111111111111111 1111111111111111111111111111111111111111 11111.'
    """
    text = _BLANK_LINES.sub("\n\n", _SPACES.sub(" ", reading_form(text)))
    return _DIGIT_RUN.sub(lambda run: " ".join(run.group(0)[i:i + 40] for i in range(0, len(run.group(0)), 40)), text)


def _reading_item(item: Item) -> Item:
    """`item` with every text in its reading form (`reward.textnorm.reading_form`); the item itself when nothing
    changes. Remembered per item object for the batch (the engine asks for 20 dimensions of one item)."""
    hit = _READING_ITEMS.get(id(item))
    if hit is not None and hit[0] is item:
        return hit[1]
    update: dict = {}
    for field_name in ("query", "response"):
        text = getattr(item, field_name)
        read = _read(text) if field_name == "query" else tables_as_lines(_read(text))
        if read != text:
            update[field_name] = read
    read_docs = [(d, _read(d.text), _read(d.title)) for d in item.evidence]
    evidence = [d if (text, title) == (d.text, d.title) else d.model_copy(update={"text": text, "title": title})
                for d, text, title in read_docs]
    if any(a is not b for a, b in zip(evidence, item.evidence, strict=True)):
        update["evidence"] = evidence
    history = [t if content == t.content else t.model_copy(update={"content": content})
               for t, content in ((t, _read(t.content)) for t in item.history)]
    if any(a is not b for a, b in zip(history, item.history, strict=True)):
        update["history"] = history
    read = item.model_copy(update=update) if update else item
    if len(_READING_ITEMS) > 512:
        _READING_ITEMS.clear()
    _READING_ITEMS[id(item)] = (item, read)
    return read


def reading_request(request: JudgeRequest) -> JudgeRequest:
    """The request as the local methods read it: accents, look-alike letters, fullwidth forms and zero-width
    characters folded in the response, the query, the history and the evidence alike, so none of them can take a
    sentence out of a check (or into a wrong one); a table in the response read as one sentence per row
    (`reward.format.tables_as_lines`), so a claim is judged alike in a table and in prose."""
    item = _reading_item(request.item)
    if item is request.item:
        return request
    parsed = request.parsed if item.response == request.item.response else _parsed_reading(item.response)
    return JudgeRequest(request.dimension, item, parsed, request.prechecks, request.key)
