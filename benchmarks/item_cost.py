"""Cost of one item for the embedded local tier as the answer and the evidence grow, up to the per-item ceilings.

Each size is scored in a fresh process (so its peak RSS is its own, model load included) through `reward score`'s
engine with the searchllm suite and the local judge. Shapes: an answer that repeats one sentence (a policy stuck
in a repetition loop), an answer of distinct sentences, and an item with many evidence documents. The claim: time
and peak memory grow at most linearly with the sentences and documents, up to the ceilings in `reward/schema.py`.

    .venv/bin/python benchmarks/item_cost.py --out benchmarks/results/item_cost.json
"""

from __future__ import annotations

import argparse
import json
import platform
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

CHILD = r"""
import json, sys, time, resource
sys.path.insert(0, {root!r})
from policy.format import Facet, render_response
from reward.engine import Engine
from reward.judges.local import LocalJudge
from reward.rubric import load_suite
from reward.schema import Evidence, Item
shape, n = sys.argv[1], int(sys.argv[2])
evidence = [Evidence(id="1", title="Skibidi on Spotify", text="Skibidi is on Spotify's free tier with ads. It premiered on 27 August 2025.")]
if shape == "repeated":
    answer = " ".join("Skibidi is free on Spotify with ads [Doc 1]." for _ in range(n))
elif shape == "distinct":
    answer = " ".join(f"Claim number {{i}} says track {{i}} streams in region {{i % 97}} [Doc 1]." for i in range(n))
else:
    evidence = [Evidence(id=str(i), title=f"Doc {{i}}", text=f"Document {{i}} mentions venue {{i}} and price {{i}} dollars.") for i in range(1, n + 1)]
    answer = "Skibidi is free on Spotify with ads [Doc 1]."
item = Item(id="x", group="g", query="Where can I hear Skibidi for free?", evidence=evidence,
            response=render_response([Facet("where", ("1",))], ["1"], answer))
engine = Engine(load_suite("searchllm"), LocalJudge())
engine.score_sync([Item(id="warm", query="warm up", evidence=evidence[:1], response=render_response([Facet("w", ("1",))], ["1"], "Warm up [Doc 1]."))])
started = time.perf_counter()
[result] = engine.score_sync([item])
print(json.dumps({{"seconds": time.perf_counter() - started, "reward": result.reward, "valid": result.valid,
                   "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}}))
"""


def run(shape: str, n: int) -> dict:
    started = time.perf_counter()
    out = subprocess.run([sys.executable, "-c", CHILD.format(root=str(ROOT)), shape, str(n)], capture_output=True,
                         text=True, cwd=ROOT, timeout=1800)
    if out.returncode != 0:
        return {"shape": shape, "n": n, "error": out.stderr.strip().splitlines()[-1:]}
    row = json.loads(out.stdout.strip().splitlines()[-1])
    return {"shape": shape, "n": n, "score_s": round(row["seconds"], 3), "peak_rss_mb": round(row["peak_rss_mb"], 1),
            "process_s": round(time.perf_counter() - started, 1), "valid": row["valid"]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sentences", type=int, nargs="+", default=[10, 100, 300, 1000])
    parser.add_argument("--documents", type=int, nargs="+", default=[10, 100, 512])
    parser.add_argument("--out")
    args = parser.parse_args()
    rows = [run(shape, n) for shape in ("repeated", "distinct") for n in args.sentences]
    rows += [run("documents", n) for n in args.documents]
    for row in rows:
        print(json.dumps(row), flush=True)
    report = {"benchmark": "item_cost", "rows": rows, "command": " ".join(["benchmarks/item_cost.py", *sys.argv[1:]]),
              "machine": f"{platform.machine()}, Python {platform.python_version()}",
              "note": "peak RSS includes the MiniLM and consistency models and the interpreter"}
    if args.out:
        Path(args.out).write_text(json.dumps(report, indent=2) + "\n")


if __name__ == "__main__":
    main()
