"""The JSON schema of a dimension's verdict, for endpoints that constrain decoding to it (structured outputs).

The schema follows the `json` output contract: `reasoning` (a string, optionally bounded so the verdict always fits
in `max_tokens`), `label` (one of the scale's labels, nothing else) and, where the rubric asks for quotes, `quotes`:
each a `doc` from the item's evidence ids and a `text` that is one sentence (or the title) of that document, copied
verbatim. So a constrained reply always parses, its label is always in the scale, and its quotes always verify.
Two request shapes carry it, read from the servers' sources:

- `json_schema` (OpenAI, vLLM): `response_format={"type": "json_schema", "json_schema": {"name", "schema",
  "strict"}}` (vLLM's `ResponseFormat` / `JsonSchemaResponseFormat`; guided decoding by xgrammar or outlines).
- `llamacpp` (llama-cpp-python's server): `response_format={"type": "json_object", "schema": ...}`; its
  `ChatCompletionRequestResponseFormat` knows only `text` and `json_object`, and turns `schema` into a GBNF grammar
  (`llama_grammar.json_schema_to_gbnf`, which keeps the properties' order: reasoning is written before the label).
"""

from __future__ import annotations

import re
from typing import Any, Literal

from reward.judges.base import JudgeRequest

StructuredOutputs = Literal["off", "json_schema", "llamacpp"]

_SENTENCE_END = re.compile(r"(?<=[.!?。！？])\s+")
MAX_QUOTES = 2


def sentences(text: str) -> list[str]:
    """Sentences of an evidence text, stripped, in order, without duplicates.

    >>> sentences("Free on Spotify. Apple Music needs a plan!  Free on Spotify.")
    ['Free on Spotify.', 'Apple Music needs a plan!']
    """
    seen: dict[str, None] = {}
    for part in _SENTENCE_END.split(text.strip()):
        part = part.strip()
        if part:
            seen.setdefault(part, None)
    return list(seen)


def verdict_schema(request: JudgeRequest, reasoning_max_chars: int | None = None) -> dict[str, Any]:
    """JSON schema of the verdict for one (item, dimension)."""
    spec = request.dimension.judge
    if spec is None:
        raise ValueError(f"dimension {request.dimension.name!r} is not judged by an LLM")
    reasoning: dict[str, Any] = {"type": "string"}
    if reasoning_max_chars is not None:
        reasoning["maxLength"] = reasoning_max_chars
    properties: dict[str, Any] = {"reasoning": reasoning, "label": {"type": "string", "enum": [s.label for s in spec.scale]}}
    required = ["reasoning", "label"]
    evidence = [doc for doc in request.item.evidence if sentences(doc.text) or doc.title.strip()]
    if spec.quotes != "none" and evidence:
        choices = [{
            "type": "object",
            "properties": {"doc": {"type": "string", "const": doc.id},
                           "text": {"type": "string", "enum": ([doc.title.strip()] if doc.title.strip() else []) + sentences(doc.text)}},
            "required": ["doc", "text"],
            "additionalProperties": False,
        } for doc in evidence]
        quotes: dict[str, Any] = {"type": "array", "items": {"anyOf": choices} if len(choices) > 1 else choices[0],
                                  "maxItems": MAX_QUOTES}
        if spec.quotes == "required":
            quotes["minItems"] = 1
        properties["quotes"] = quotes
        required.append("quotes")
    return {"type": "object", "properties": properties, "required": required, "additionalProperties": False}


def response_format(request: JudgeRequest, style: StructuredOutputs, reasoning_max_chars: int | None = None) -> dict | None:
    """The `response_format` request field for an endpoint of this style (None when off)."""
    if style == "off":
        return None
    schema = verdict_schema(request, reasoning_max_chars)
    if style == "llamacpp":
        return {"type": "json_object", "schema": schema}
    return {"type": "json_schema", "json_schema": {"name": f"verdict_{request.dimension.name}", "schema": schema, "strict": True}}
