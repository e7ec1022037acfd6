"""`reward data` never writes an empty split silently: with few prompts each parquet gets at least one, and a set
that cannot be split (or has no prompt) exits non-zero with a message, writing nothing."""

import json

import pandas as pd

from reward.cli import main
from tests.support import EXAMPLES


def _logs(tmp_path, count: int):
    lines = [json.loads(line) for line in EXAMPLES.read_text().splitlines() if line.strip()]
    source = tmp_path / "logs.jsonl"
    source.write_text("".join(json.dumps({**lines[0], "query": f"question {k}?"}) + "\n" for k in range(count)))
    return source


def test_four_prompts_at_a_fifth_held_out_give_both_splits_a_row(tmp_path, capsys):
    train, val = tmp_path / "train.parquet", tmp_path / "val.parquet"
    for fraction in ("0.2", "0.01", "0.99"):  # whatever the hash puts on either side of the cut
        args = ["data", "--input", str(_logs(tmp_path, 4)), "--output", str(train), "--val-fraction", fraction,
                "--val-output", str(val)]
        assert main(args) == 0
        frames = pd.read_parquet(train), pd.read_parquet(val)
        assert all(len(frame) >= 1 for frame in frames) and sum(map(len, frames)) == 4
        assert [e["index"] for e in frames[0]["extra_info"]] == list(range(len(frames[0])))
        assert f"and{len(frames[1])}to{val}" in "".join(capsys.readouterr().err.split())


def test_a_set_that_cannot_be_split_or_is_empty_exits_non_zero_writing_nothing(tmp_path, capsys):
    train = tmp_path / "train.parquet"
    one = ["data", "--input", str(_logs(tmp_path, 1)), "--output", str(train), "--val-fraction", "0.2"]
    assert main(one) == 1 and not train.exists()
    assert "1 prompt cannot be split" in " ".join(capsys.readouterr().err.split())
    empty = tmp_path / "empty.jsonl"
    empty.write_text("not json\n")
    assert main(["data", "--input", str(empty), "--output", str(train), "--skip-bad"]) == 1 and not train.exists()
    assert "no prompt to write" in " ".join(capsys.readouterr().err.split())
