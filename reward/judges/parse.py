"""Parse a judge's reply per the rubric's output contract, verify its quotes, map its label to a score.

Contracts: `tags` (`<think>...</think>`, optional `<quote doc="2">...</quote>`, then `<score>LABEL</score>`) and
`json` (`{"reasoning": ..., "label": ..., "quotes": [{"doc": ..., "text": ...}]}`, optionally in a ```json fence).
A label outside the scale is rejected, not clamped: clamping would let a response that injects "score: 10" win.
Where the backend returned label probabilities, the score is their probability-weighted value.

Reasoning models: the verdict is read from the content after the last `</think>`; a `<think>` that is never
closed leaves no verdict (its labels are drafts). Reasoning the server returned apart (`reasoning_content`) is
never searched for a label, only kept as the explanation. Prose around the JSON object is tolerated: every JSON
object in the verdict that has a `label` is read, and the reply parses when they agree on one label.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field

from reward.judges.base import Completion, JudgeRequest
from reward.rules import verify_quote
from reward.schema import Quote

_SCORE = re.compile(r"<score>\s*(.*?)\s*</score>", re.IGNORECASE | re.DOTALL)
_THINK = re.compile(r"<think>(.*?)</think>", re.IGNORECASE | re.DOTALL)
_QUOTE = re.compile(r"<quote(?:\s+doc\s*=\s*[\"']?\s*(?:Doc\s*)?([^\"'>\s]+)[\"']?)?\s*>(.*?)</quote>", re.IGNORECASE | re.DOTALL)
_JSON_FENCE = re.compile(r"```(?:json)?\s*(\{.*?\})\s*```", re.DOTALL)
MAX_EXPLANATION_CHARS = 2000


class ParseError(Exception):
    def __init__(self, reason: str, detail: str):
        self.reason = reason
        super().__init__(f"{reason}: {detail}")


@dataclass
class ParsedReply:
    label: str
    score: float
    explanation: str | None
    quotes: list[Quote] = field(default_factory=list)
    score_source: str = "label"
    """`label_probs`, `label` or `label_fallback` (logprobs requested, none usable at the label)."""


def _after_think(text: str) -> str:
    # Reasoning models may discuss labels inside <think>; only what follows it is the verdict.
    lowered = text.lower()
    end = lowered.rfind("</think>")
    if end >= 0:
        return text[end + len("</think>") :]
    if "<think>" in lowered:
        raise ParseError("unparseable", "the reasoning's <think> block is never closed: no verdict after it")
    return text


def _parse_tags(text: str) -> tuple[str, str | None, list[tuple[str | None, str]]]:
    verdict = _after_think(text)
    scores = _SCORE.findall(verdict)
    if not scores:
        raise ParseError("unparseable", "no <score>...</score> after the reasoning")
    if len(set(s.strip() for s in scores)) > 1:
        raise ParseError("unparseable", f"conflicting <score> tags {scores}")
    think = _THINK.search(text)
    explanation = think.group(1).strip() if think else _SCORE.sub("", verdict).strip() or None
    # Quotes count only outside the reasoning: a draft quote inside <think> is not the judge's answer.
    quotes = [(doc, body.strip()) for doc, body in _QUOTE.findall(_THINK.sub("", text))]
    return scores[-1].strip(), explanation, quotes


def _json_objects(text: str) -> list[dict]:
    """Every top-level JSON object in `text` (prose, fences and other text around them skipped)."""
    decoder, found, position = json.JSONDecoder(), [], text.find("{")
    while position >= 0:
        try:
            value, end = decoder.raw_decode(text, position)
        except json.JSONDecodeError:
            position = text.find("{", position + 1)
            continue
        if isinstance(value, dict):
            found.append(value)
        position = text.find("{", end)
    return found


def _parse_json(text: str) -> tuple[str, str | None, list[tuple[str | None, str]]]:
    verdict = _after_think(text)
    fenced = _JSON_FENCE.search(verdict)
    objects = [o for o in _json_objects(fenced.group(1) if fenced else verdict) if "label" in o]
    if not objects:
        if "{" not in verdict:
            raise ParseError("unparseable", "reply holds no JSON object")
        raise ParseError("unparseable", "reply holds no valid JSON object with a 'label'")
    labels = {str(o["label"]).strip() for o in objects}
    if len(labels) > 1:
        raise ParseError("unparseable", f"conflicting labels {sorted(labels)} in the reply's JSON objects")
    data = objects[-1]
    quotes = []
    for entry in data.get("quotes") or []:
        if isinstance(entry, dict) and isinstance(entry.get("text"), str):
            doc = entry.get("doc")
            quotes.append((str(doc).removeprefix("Doc ").strip() if doc is not None else None, entry["text"]))
        elif isinstance(entry, str):
            quotes.append((None, entry))
    reasoning = data.get("reasoning")
    return str(data["label"]).strip(), reasoning if isinstance(reasoning, str) else None, quotes


_PLACEHOLDER = re.compile(r"<(?!/|think|score|quote)([^<>]{12,})>", re.IGNORECASE)


def _squash(text: str) -> str:
    return " ".join(re.sub(r"[<>\"'.…]+", " ", text.lower()).split())


def template_echo(contract: str, texts: list[str | None]) -> str | None:
    """A placeholder of the output contract (`<the criterion's checks one by one...>`, `"..."`) that the reply copied
    as its reasoning or a quote instead of filling it in: a small judge echoing the prompt's schema has given no
    verdict, whatever label it put beside it. Returns the echoed placeholder, else None.

    >>> contract = '{"reasoning": "<the checks one by one, naming the text>", "label": "<one of: {labels}>"}'
    >>> template_echo(contract, ["<the checks one by one...>"])
    'the checks one by one, naming the text'
    >>> template_echo(contract, ["The answer's date matches [Doc 2]."]) is None
    True
    >>> template_echo('{"reasoning": "...", "label": one of {labels}}', ["..."])
    '...'
    """
    placeholders = [p.strip() for p in _PLACEHOLDER.findall(contract)]
    for text in texts:
        if text is None:
            continue
        if text.strip() and not _squash(text):
            return text.strip()  # only dots and brackets: the "..." of the contract
        squashed = _squash(text)
        for placeholder in placeholders:
            target = _squash(placeholder)
            if target and (target in squashed or (len(squashed) >= 20 and target.startswith(squashed[:60]))):
                return placeholder
    return None


def parse_reply(completion: Completion, request: JudgeRequest) -> ParsedReply:
    """Label, score, explanation and verified quotes of a reply; raises `ParseError` to trigger a retry."""
    spec = request.dimension.judge
    assert spec is not None
    text = completion.text or ""
    if not text.strip():
        raise ParseError("unparseable", "empty reply content" + (" (reasoning only)" if completion.reasoning else ""))
    label, explanation, raw_quotes = (_parse_tags if spec.output == "tags" else _parse_json)(text)
    if completion.reasoning and (not explanation or spec.output == "tags" and "<think>" not in text.lower()):
        explanation = completion.reasoning.strip()  # the tags contract's explanation is its reasoning
    label = label.strip().strip("\"'").strip()
    echoed = template_echo(spec.contract.get(spec.output, ""), [explanation, *(body for _, body in raw_quotes)])
    if echoed is not None:
        raise ParseError("template_echo", f"the reply copies the output contract's placeholder {echoed[:60]!r} instead of a verdict")
    score = spec.score_of(label)
    if score is None:
        allowed = ", ".join(entry.label for entry in spec.scale)
        raise ParseError("label_out_of_scale", f"label {label[:40]!r} is not one of {allowed}")
    quotes = [Quote(doc=doc, text=body, verified=verify_quote(body, request.item.evidence, doc)) for doc, body in raw_quotes]
    # With no evidence there is nothing to quote; requiring a quote would leave the item unscored exactly in the
    # no-evidence cases where refusal behaviour matters.
    if spec.quotes == "required" and not quotes and request.item.evidence:
        raise ParseError("missing_quote", "the rubric requires a verbatim evidence quote")
    failed = [q for q in quotes if not q.verified]
    if failed and spec.quotes != "none":
        raise ParseError("quote_not_in_evidence", f"quote {failed[0].text[:60]!r} is not in the evidence")
    weighted = _expected_score(completion.label_probs, request) if completion.label_probs else None
    source = "label_probs" if weighted is not None else "label_fallback" if completion.logprobs_requested else "label"
    if weighted is not None:
        score = weighted
    if explanation and len(explanation) > MAX_EXPLANATION_CHARS:
        explanation = explanation[:MAX_EXPLANATION_CHARS] + " …"
    return ParsedReply(label=label, score=score, explanation=explanation, quotes=quotes, score_source=source)


def _expected_score(label_probs: dict[str, float], request: JudgeRequest) -> float | None:
    """Probability-weighted label value over the scale's labels (renormalised over the labels seen)."""
    spec = request.dimension.judge
    assert spec is not None
    weights = {entry.label: label_probs.get(entry.label, 0.0) for entry in spec.scale}
    mass = sum(weights.values())
    if mass <= 0:
        return None
    value = sum(spec.score_of(label) * p for label, p in weights.items()) / mass
    return min(1.0, max(0.0, value))
