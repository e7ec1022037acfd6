"""Turn JSONL logs of (query, history, evidence) into the parquet verl's `RLHFDataset` trains on.

Each row: `data_source`, `prompt` (chat messages from `policy.prompts`), `ability`, `reward_model`
(`{"style": "rule", "ground_truth": ""}`: the reward server needs no reference answer) and `extra_info` with what
the reward function sends back to the server: `query`, `history` and `evidence` (JSON strings, which survive
parquet and verl's collation unchanged), `group` (a stable id of the prompt, shared by its rollouts), `item_id`,
`now` and `index`. A log line may carry a `response` (as the examples do); it is ignored here.
"""

from __future__ import annotations

import json
import logging
from pathlib import Path

from pydantic import ValidationError

from policy.prompts import SYSTEM_PROMPT, build_messages
from reward.schema import Evidence, Turn

log = logging.getLogger(__name__)

DATA_SOURCE = "search_reward"


def row_of(record: dict, index: int, data_source: str = DATA_SOURCE, system_prompt: str = SYSTEM_PROMPT) -> dict:
    evidence = [Evidence.model_validate(e) for e in record.get("evidence", [])]
    history = [Turn.model_validate(t) for t in record.get("history", [])]
    now = record.get("now")
    import datetime as dt

    messages = build_messages(record["query"], evidence, history, dt.date.fromisoformat(now) if now else None,
                              system_prompt)
    item_id = str(record.get("id", index))
    return {
        "data_source": data_source,
        "prompt": messages,
        "ability": "search",
        "reward_model": {"style": "rule", "ground_truth": ""},
        "extra_info": {
            "index": index,
            "item_id": item_id,
            "group": str(record.get("group") or item_id),
            "query": record["query"],
            "history": json.dumps([t.model_dump(mode="json") for t in history]),
            "evidence": json.dumps([e.model_dump(mode="json") for e in evidence]),
            "now": now or "",
        },
    }


def convert(source: Path, target: Path, data_source: str = DATA_SOURCE, dedupe_prompts: bool = True,
            system_prompt: str = SYSTEM_PROMPT, val_fraction: float = 0.0,
            val_target: Path | None = None) -> tuple[int, list[str]]:
    """Write `target` parquet from a JSONL log; returns (rows written to `target`, problems by line). With
    `dedupe_prompts`, lines with the same query, history and evidence become one prompt (GRPO samples its own
    rollouts). With `val_fraction`, about that share of the prompts goes to `val_target` instead (the parquet verl's
    `data.val_files` reads): chosen by a hash of the prompt, so the split is the same on every run and a prompt and
    its duplicates never straddle it."""
    import hashlib

    import pandas as pd

    if not 0.0 <= val_fraction < 1.0:
        raise ValueError(f"val_fraction must lie in [0, 1), got {val_fraction}")
    if val_fraction and val_target is None:
        raise ValueError("val_fraction needs a val_target to write the validation prompts to")
    rows, val_rows, problems, seen = [], [], [], set()
    for number, line in enumerate(source.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
            if not isinstance(record, dict) or not isinstance(record.get("query"), str):
                raise ValueError("a line needs an object with a string 'query'")
            key = json.dumps([record["query"], record.get("history", []), record.get("evidence", [])], sort_keys=True)
            if dedupe_prompts and key in seen:
                continue
            seen.add(key)
            bucket = int.from_bytes(hashlib.sha256(key.encode()).digest()[:8], "big") / 2**64
            (val_rows if bucket < val_fraction else rows).append((bucket, row_of(record, 0, data_source, system_prompt)))
        except (json.JSONDecodeError, ValueError, ValidationError) as exc:
            problems.append(f"{source}:{number}: {str(exc).splitlines()[0]}")
    rows, val_rows = _nonempty_split(rows, val_rows, val_fraction, source)
    for split in (rows, val_rows):
        for index, row in enumerate(split):
            row["extra_info"]["index"] = index
    target.parent.mkdir(parents=True, exist_ok=True)
    pd.DataFrame(rows).to_parquet(target, index=False)
    if val_target is not None:
        val_target.parent.mkdir(parents=True, exist_ok=True)
        pd.DataFrame(val_rows).to_parquet(val_target, index=False)
    return len(rows), problems


class EmptySplit(ValueError):
    """No prompt to write, or too few to give both the training and the validation parquet one."""


def _nonempty_split(rows: list[tuple[float, dict]], val_rows: list[tuple[float, dict]], val_fraction: float,
                    source: Path) -> tuple[list[dict], list[dict]]:
    """The rows of each split, neither empty: with few prompts the hash split can leave one side empty (a 0 x 0
    parquet verl fails on much later), so the prompt nearest the cut moves over, with a warning.

    >>> train, val = _nonempty_split([(0.9, {"q": "a"}), (0.5, {"q": "b"})], [], 0.2, Path("x"))
    >>> [r["q"] for r in train], [r["q"] for r in val]
    (['a'], ['b'])
    """
    total = len(rows) + len(val_rows)
    if not total:
        raise EmptySplit(f"{source}: no prompt to write (no valid line)")
    if val_fraction and total < 2:
        raise EmptySplit(f"{source}: {total} prompt cannot be split into a training and a validation set; "
                         "drop --val-fraction or add prompts")
    if val_fraction and not val_rows:
        rows.sort(key=lambda pair: pair[0])
        val_rows.append(rows.pop(0))
        log.warning("%s: no prompt fell below --val-fraction %.2f; the one nearest the cut goes to validation",
                    source, val_fraction)
    elif val_fraction and not rows:
        val_rows.sort(key=lambda pair: pair[0])
        rows.append(val_rows.pop())
        log.warning("%s: every prompt fell below --val-fraction %.2f; the one nearest the cut goes to training",
                    source, val_fraction)
    return [row for _, row in rows], [row for _, row in val_rows]


def validation_path(target: Path) -> Path:
    """Where the validation prompts go by default: `train.parquet` -> `train.val.parquet`.

    >>> str(validation_path(Path("data/train.parquet")))
    'data/train.val.parquet'
    """
    return target.with_name(target.stem + ".val" + target.suffix)
