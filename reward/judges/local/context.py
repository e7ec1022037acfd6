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
from reward.judges.local.embed import Embedder
from reward.judges.local.text import (
    _HEADER_LINE,
    _LEAD,
    content_words,
    copies_evidence,
    list_marker_removed,
    restates_query,
)
from reward.rules import RULES
from reward.rules.checks import declines
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
    """
    head, *rest = _VERDICT_HEAD.split(text, maxsplit=1)
    if rest and rest[0].strip() and is_premise_verdict(head):
        text = rest[0]
    head, *rest = _DECLINE_HEAD.split(text, maxsplit=1)
    if rest and rest[0].strip() and declines(head):
        text = rest[0]
    text = LEAD_CLAUSE.sub("", text, count=1).strip() or text
    return _HEDGE_OPENING.sub("", _LEAD.sub("", text).strip()).strip() or text


_VERDICT_HEAD = re.compile(r"\s*(?::|\s[—–-]\s)\s*")
LEAD_CLAUSE = re.compile(r"^\W*(?:[^\W\d_][\w'’-]*\s+){0,3}[^\W\d_][\w'’-]*\s*;\s*")
"""A clause of at most four words that a sentence opens with and closes with a semicolon ("Not stated explicitly;",
"Short answer;"): words put in front of a copied sentence do not make it the answer's own, and the claim check
reads a claim with and without them (`support.lead_readings`)."""
_DECLINE_HEAD = re.compile(r"\s*(?:[:;]|,\s*but\b|\s[—–-]\s)\s*", re.IGNORECASE)


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
        elif restates_query(strip_citations(body), query):
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


def _reading_item(item: Item) -> Item:
    """`item` with every text in its reading form (`reward.textnorm.reading_form`); the item itself when nothing
    changes. Remembered per item object for the batch (the engine asks for 20 dimensions of one item)."""
    hit = _READING_ITEMS.get(id(item))
    if hit is not None and hit[0] is item:
        return hit[1]
    update: dict = {}
    for field_name in ("query", "response"):
        text = getattr(item, field_name)
        read = reading_form(text) if field_name == "query" else tables_as_lines(reading_form(text))
        if read != text:
            update[field_name] = read
    evidence = [d if reading_form(d.text) == d.text and reading_form(d.title) == d.title
                else d.model_copy(update={"text": reading_form(d.text), "title": reading_form(d.title)}) for d in item.evidence]
    if any(a is not b for a, b in zip(evidence, item.evidence, strict=True)):
        update["evidence"] = evidence
    history = [t if reading_form(t.content) == t.content else t.model_copy(update={"content": reading_form(t.content)})
               for t in item.history]
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
