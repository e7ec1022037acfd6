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
            into = val_rows if bucket < val_fraction else rows
            into.append(row_of(record, len(into), data_source, system_prompt))
        except (json.JSONDecodeError, ValueError, ValidationError) as exc:
            problems.append(f"{source}:{number}: {str(exc).splitlines()[0]}")
    target.parent.mkdir(parents=True, exist_ok=True)
    pd.DataFrame(rows).to_parquet(target, index=False)
    if val_target is not None:
        val_target.parent.mkdir(parents=True, exist_ok=True)
        pd.DataFrame(val_rows).to_parquet(val_target, index=False)
    return len(rows), problems


def validation_path(target: Path) -> Path:
    """Where the validation prompts go by default: `train.parquet` -> `train.val.parquet`.

    >>> str(validation_path(Path("data/train.parquet")))
    'data/train.val.parquet'
    """
    return target.with_name(target.stem + ".val" + target.suffix)
