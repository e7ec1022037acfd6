"""What every source of the generalization corpus shares: text helpers, the answer templates, the labelled-response
collector (`Builder`), the split, and the rendering of an interaction's answers in the policy format."""

from __future__ import annotations

import datetime as dt
import hashlib
import random
import re

from reward.evaluation.corpus import CorpusInteraction, CorpusResponse
from reward.format import Facet, render_response
from reward.schema import Evidence, Turn

FIT_SHARE = 50
"""Percent of passages whose interactions go to `fit`."""

_YEAR = re.compile(r"^(1[0-9]{3}|20[0-9]{2})$")
_NUMBER = re.compile(r"^\d[\d,]*(?:\.\d+)?$")
_DETERMINERS = frozenset("the a an my your his her their our its this that these those some many most all".split())


def split_of(key: str) -> str:
    return "fit" if int(hashlib.sha256(key.encode()).hexdigest()[:8], 16) % 100 < FIT_SHARE else "test"


# -- text helpers -----------------------------------------------------------------------------------------------------
def cap(text: str) -> str:
    return text[:1].upper() + text[1:]


_LEADING_COMMON = _DETERMINERS | frozenset("""it in on at by for from with after before during since although while when
    there he she they we as one two three several each both however because during under over between what who
    where which why how is are was were did do does can could will would should""".split())


def low(text: str) -> str:
    """Lower the first letter when the first word is a common word (a name keeps its capital).

    >>> low("The cat sat."), low("Paris is big.")
    ('the cat sat.', 'Paris is big.')
    """
    first = text.split(" ", 1)[0]
    return text[:1].lower() + text[1:] if first.lower() in _LEADING_COMMON else text


def cite(sentence: str, *docs: str) -> str:
    """`sentence` with `[Doc ...]` before its final punctuation."""
    marker = f"[Doc {','.join(docs)}]"
    body = sentence.strip()
    match = re.search(r"[.!?]+[\"')\]]*$", body)
    if match:
        return f"{body[:match.start()]} {marker}{body[match.start():]}"
    return f"{body} {marker}."


_ABBREVIATION = re.compile(r"(?:\b(?:St|Mr|Mrs|Ms|Dr|Jr|Sr|Gen|Col|Lt|Mt|Ft|Co|Inc|Ltd|vs|etc|ca|c|No|Nos|approx|"
                           r"e\.g|i\.e|U\.S|U\.K|a\.m|p\.m)|\b[A-Z])\.$")


def sentence_span(context: str, start: int, end: int) -> tuple[int, int]:
    """The sentence of `context` around [start, end): ends are [.!?] before a space and a capital, digit or quote,
    not after an abbreviation ("St.", "e.g.") or an initial."""
    ends = [m.end() for m in re.finditer(r"[.!?][\"')\]]?(?=\s+[\"'(A-Z0-9])", context)
            if not _ABBREVIATION.search(context[max(0, m.start() - 6):m.start() + 1])]
    left = max((e for e in ends if e <= start), default=0)
    right = min((e for e in ends if e >= end), default=len(context))
    return left, right


def sentence_at(context: str, sentences: list[str], position: int) -> int | None:
    """The index of the sentence of `sentences` (`reward.format.split_sentences(context)`) that holds character
    `position` of `context`, or None."""
    cursor = 0
    for index, sentence in enumerate(sentences):
        start = context.find(sentence, cursor)
        start = cursor if start < 0 else start
        cursor = start + len(sentence)
        if start <= position < cursor:
            return index
    return None


def answer_kind(text: str) -> str:
    text = text.strip()
    if _YEAR.match(text):
        return "year"
    if _NUMBER.match(text):
        return "number"
    return "name" if text[:1].isupper() else "phrase"


def as_number(text: str) -> float:
    return float(text.replace(",", ""))


def fmt_number(value: float) -> str:
    """A figure as the evidence would write it (thousands separated, no trailing zeros)."""
    return f"{int(value):,}" if value == int(value) else f"{value:,.2f}".rstrip("0").rstrip(".")


def response(plan: str, docs: list[str], answer: str, selected: list[str] | None = None) -> str:
    return render_response([Facet(plan.strip()[:200], tuple(docs))], docs if selected is None else selected, answer)


class Builder:
    """Collects an interaction's labelled responses; the first honest one given is the clean answer."""

    def __init__(self, rng: random.Random):
        self.rng = rng
        self.responses: list[CorpusResponse] = []

    def add(self, role: str, family: str, text: str) -> None:
        if any(r.response == text for r in self.responses):
            return
        count = sum(1 for r in self.responses if r.family == family)
        self.responses.append(CorpusResponse(id=f"{family}-{count}", role=role, family=family, response=text))

    def pick(self, options: list, k: int = 1) -> list:
        return self.rng.sample(options, min(k, len(options)))


# -- templates --------------------------------------------------------------------------------------------------------
SILENT = [
    "The sources do not answer {gist}. {context}",
    "None of the documents answers this. {context} It says nothing that settles the question.",
    "I could not find this in the evidence. {context} That does not answer {gist}.",
    "The provided sources do not contain the answer, so I cannot give one from them. {context}",
    "{context} Beyond that, the documents give no answer to this question.",
]
REFUSALS = [
    "The sources do not answer {gist}.",
    "I could not find an answer to this in the provided documents.",
    "None of the documents answers this question, so I cannot give a reliable answer.",
    "The evidence does not cover {gist}; I would rather not guess.",
    "Unfortunately the search results do not contain this information.",
    "There is not enough information in the sources to answer this.",
]
PARAPHRASE = [
    "According to the article on {title} [Doc {d}]: {sentence}",
    "The source puts it this way: {sentence_cited}",
    "{answer_cap} is the answer. {sentence_cited}",
    "In short, {answer} [Doc {d}]. The relevant passage: {sentence}",
    "{sentence_cited} So the answer is {answer}.",
]
LAYOUTS = [
    "- **Answer:** {answer} [Doc {d}]\n- **Source:** {title}\n- **Detail:** {sentence_cited}",
    "| Question | Answer |\n|---|---|\n| {question} | {answer} [Doc {d}] |\n\n{sentence_cited}",
    "**{answer_cap}** [Doc {d}]\n\n- {sentence_cited}",
    "Answer: {answer} [Doc {d}]\nSource: {title}",
]
CONFIDENT = [
    "{answer_cap} [Doc {d}].",
    "The answer is {answer} [Doc {d}].",
    "It is {answer}, as the source states [Doc {d}].",
    "Clearly {answer} [Doc {d}]; the documents are explicit about it.",
]


def gist(question: str, rng: random.Random | None = None) -> str:
    """What a "the sources do not answer ..." sentence names: the question quoted, or a plain "this"."""
    quoted = f"“{question.strip()}”"
    return quoted if rng is None else rng.choice([quoted, quoted, "this question", "that"])


def fill(template: str, **values: str) -> str:
    return template.format(**values).strip()


def interaction(ident: str, key: str, kind: str, source: str, query: str, history: list[Turn],
                evidence: list[Evidence], now: dt.date | None, plan: str, docs: list[str], b: Builder,
                ) -> CorpusInteraction:
    """Render every labelled answer into the policy format: one plan facet citing `docs`; refusals select none."""
    rendered = []
    for r in b.responses:
        refusal = r.family in ("refusal_despite_evidence", "sources_silent") or (r.role == "clean" and kind == "unanswerable")
        cited = sorted(set(re.findall(r"\[Doc (\d+)", r.response)) | set(re.findall(r"\[Doc \d+,(\d+)", r.response)))
        selected = cited or ([] if refusal else docs)
        rendered.append(r.model_copy(update={"response": response(plan, docs if not refusal or cited else [], r.response,
                                                                  selected)}))
    return CorpusInteraction(id=ident, split=split_of(key), kind=kind, source=source, query=query, history=history,
                             evidence=evidence, now=now, responses=rendered)


def published(rng: random.Random) -> dt.date:
    """A publication date for a document whose date does not matter to the interaction."""
    return dt.date(2017, 1, 1) + dt.timedelta(days=rng.randrange(0, 6 * 365))

