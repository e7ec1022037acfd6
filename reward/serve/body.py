"""Request bodies within limits: a depth-limited JSON parse and a walk that checks nesting and string sizes before
validation, so bad input of any shape is a 4xx naming the limit or field, never a 500."""

from typing import Any

import orjson
from pydantic import ValidationError

from reward.serve.config import Limits


class BodyRejected(Exception):
    """A request body that breaks a limit or is not JSON: the status and the message naming the limit."""

    def __init__(self, status: int, message: str):
        self.status = status
        self.message = message
        super().__init__(message)


def parse_body(body: bytes, limits: Limits) -> Any:
    """The JSON value of a request body, within `limits`; raises `BodyRejected` (413/422) naming the broken limit.

    orjson parses without Python recursion (its own depth limit is 1024) and rejects what Python's `json` lets
    through and later code trips over: lone surrogates, invalid UTF-8, NaN and infinities. The walk after it is
    iterative, so no input reaches a recursion limit.

    >>> parse_body(b'{"items": [{"id": "a"}]}', Limits())
    {'items': [{'id': 'a'}]}
    >>> try:
    ...     parse_body(b'{"items": [{"response": "' + b"x" * 2_000_000 + b'"}]}', Limits())
    ... except BodyRejected as exc:
    ...     print(exc.status, exc.message)
    413 string of 2000000 characters at (body).items.0.response exceeds the limit of 1000000 (limit max_string_chars)
    """
    try:
        value = orjson.loads(body)
    except orjson.JSONDecodeError as exc:
        if "depth limit" in str(exc) or "recursion" in str(exc):
            raise BodyRejected(422, f"JSON nested deeper than {limits.max_depth} levels (limit max_depth)") from None
        raise BodyRejected(422, f"malformed JSON: {exc}") from None
    stack: list[tuple[Any, int, tuple]] = [(value, 0, ())]
    while stack:
        node, depth, path = stack.pop()
        if isinstance(node, str):
            if len(node) > limits.max_string_chars:
                raise BodyRejected(413, f"string of {len(node)} characters at {_path(path)} exceeds the limit of "
                                        f"{limits.max_string_chars} (limit max_string_chars)")
        elif isinstance(node, (dict, list)):
            if depth >= limits.max_depth:
                raise BodyRejected(422, f"JSON nested deeper than {limits.max_depth} levels at {_path(path)} (limit max_depth)")
            for key, child in (node.items() if isinstance(node, dict) else enumerate(node)):
                if isinstance(key, str) and len(key) > limits.max_string_chars:
                    raise BodyRejected(413, f"key of {len(key)} characters at {_path(path)} exceeds the limit of "
                                            f"{limits.max_string_chars} (limit max_string_chars)")
                if isinstance(child, (str, dict, list)):
                    stack.append((child, depth + 1, (path, key)))
    return value


def _path(path: tuple) -> str:
    parts: list[str] = []
    while path:
        path, key = path
        parts.append(str(key)[:40])
    return ".".join(["(body)", *reversed(parts)])


def _field_errors(exc: ValidationError) -> list[dict[str, str]]:
    return [
        {"field": ".".join(str(p) for p in e["loc"]) or "(body)",
         "message": "unknown field" if e["type"] == "extra_forbidden" else e["msg"]}
        for e in exc.errors()[:20]
    ]
