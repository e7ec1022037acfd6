"""The interaction log: one JSONL line per answered search session, as the serving front end records it.

A row says who saw what (hashed user, experiment arms, policy version, query, the response id that joins the score
log), how long they dwelt on the answer, what they searched next and when, and any explicit feedback. Reading a log
yields every row or a line-numbered error; bad rows are counted and reported, never dropped without a word.

    {"session": "s-000001", "user": "9f86d081884c7d65", "arms": {"reward-v2": "treatment"}, "policy": "grpo-0412",
     "query": "peach egg succulent bumps on leaves", "response_id": "r-000001",
     "shown_at": "2026-01-12T09:30:00Z", "dwell_ms": 7400,
     "next_query": "peach egg succulent fungus treatment", "next_query_at": "2026-01-12T09:30:21Z", "feedback": null}
"""

from __future__ import annotations

import datetime as dt
import gzip
import hashlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from pydantic import AwareDatetime, BaseModel, ConfigDict, Field, ValidationError, model_validator

USER_HASH_PATTERN = r"^[0-9a-f]{12,64}$"


class Interaction(BaseModel):
    """One answered search session."""

    model_config = ConfigDict(extra="forbid")

    session: str = Field(min_length=1, max_length=128)
    """Unique id of the session; a second row with the same id is a duplicate and is not counted twice."""
    user: str = Field(pattern=USER_HASH_PATTERN)
    """Hashed user id (lower-case hex, 12-64 characters; see `hash_user`): raw ids never enter the log."""
    arms: dict[str, str] = Field(default_factory=dict)
    """Experiment name -> arm the user was bucketed into (several concurrent experiments, one arm each)."""
    policy: str = Field(min_length=1, max_length=128)
    """Version of the policy that wrote the answer."""
    query: str = Field(min_length=1)
    """The query the answer was written for."""
    response_id: str = Field(min_length=1, max_length=256)
    """Id of the response: the `id` of its item in the score log."""
    shown_at: AwareDatetime
    """When the answer was shown (with a time zone)."""
    dwell_ms: int = Field(ge=0, le=86_400_000)
    """Milliseconds the answer stayed in view."""
    next_query: str | None = Field(default=None, min_length=1)
    """The user's next query in the same session, if any."""
    next_query_at: AwareDatetime | None = None
    """When the next query was issued; given exactly when `next_query` is."""
    feedback: Literal["up", "down"] | None = None
    """Explicit feedback on the answer (thumbs up / down), if any."""

    @model_validator(mode="after")
    def _next_query_consistent(self) -> Interaction:
        if (self.next_query is None) != (self.next_query_at is None):
            raise ValueError("next_query and next_query_at go together: give both or neither")
        if self.next_query_at is not None and self.next_query_at < self.shown_at:
            raise ValueError("next_query_at is before shown_at")
        return self

    @property
    def gap_ms(self) -> int | None:
        """Milliseconds from the end of the answer view (shown_at + dwell) to the next query, floored at 0."""
        if self.next_query_at is None:
            return None
        gap = (self.next_query_at - self.shown_at) / dt.timedelta(milliseconds=1) - self.dwell_ms
        return max(0, int(gap))

    @property
    def day(self) -> dt.date:
        """UTC day of the session."""
        return self.shown_at.astimezone(dt.UTC).date()


def hash_user(raw_id: str, pepper: str) -> str:
    """The log's user id: a keyed hash of the raw id, so the log cannot be joined back to accounts without the pepper.

    >>> hash_user("alice@example.com", "pepper")[:16]
    '2b5c9eec0c92fe6b'
    """
    return hashlib.blake2b(raw_id.encode(), key=pepper.encode()[:64], digest_size=16).hexdigest()


@dataclass(frozen=True)
class RowError:
    """A log line that is not a valid `Interaction`."""

    path: str
    line: int
    message: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.message}"


def _message(exc: ValidationError) -> str:
    first = exc.errors()[0]
    if first["type"] == "json_invalid":
        return f"invalid JSON: {first['msg'].removeprefix('Invalid JSON: ')}"
    return "; ".join(
        f"{'.'.join(str(p) for p in e['loc']) or '(row)'}: {'unknown field' if e['type'] == 'extra_forbidden' else e['msg']}"
        for e in exc.errors()[:3]
    )


def read_interactions(path: str | Path) -> Iterator[tuple[int, Interaction | RowError]]:
    """(line number, row) for every non-empty line of a JSONL log (gzipped when the name ends in .gz); a bad line
    gives a `RowError` naming the line and the field."""
    path = Path(path)
    with (gzip.open(path, "rt", encoding="utf-8") if path.suffix == ".gz" else path.open(encoding="utf-8")) as handle:
        for number, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            try:
                yield number, Interaction.model_validate_json(line)
            except ValidationError as exc:
                yield number, RowError(str(path), number, _message(exc))


def log_files(paths: list[str | Path]) -> list[Path]:
    """The JSONL files named by `paths` (files, or folders whose *.jsonl / *.jsonl.gz files are taken in name order)."""
    files: list[Path] = []
    for path in map(Path, paths):
        if path.is_dir():
            files.extend(sorted([*path.glob("*.jsonl"), *path.glob("*.jsonl.gz")]))
        elif path.exists():
            files.append(path)
        else:
            raise FileNotFoundError(2, "no such log", str(path))
    return files
