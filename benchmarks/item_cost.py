"""Cost of one item for the embedded local tier as the answer and the evidence grow, up to the per-item ceilings.

Each size is scored in a fresh process (so its peak RSS is its own, model load included) through `reward score`'s
engine with the searchllm suite and the local judge. Shapes: an answer that repeats one sentence (a policy stuck
in a repetition loop), an answer of distinct sentences, an item with many evidence documents, one answer sentence
of many figures (a policy listing prices and years without a full stop), a long session of earlier turns, a run of
spaces inside a sentence, a long question without a comma or question mark beside many answer sentences, a long
question repeating "which" and a capitalised word, and an answer sentence stating again the n prices an evidence item
lists. The claim: time and peak memory grow at most linearly with the sentences and documents, up to the ceilings in
`reward/schema.py`.

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
from reward.schema import Evidence, Item, Turn
shape, n = sys.argv[1], int(sys.argv[2])
history = []
query = "Where can I hear Skibidi for free?"
tolls = [Evidence(id="1", title="Toll prices (March 2024)", text="Cars pay £2.40 and vans pay £4.50 on the bridge. The toll rose in 2023 from £2.00. Published 3 March 2024."),
         Evidence(id="2", title="Toll prices (June 2025)", text="Since June 2025 cars pay £2.90 and vans £5.10. Motorbikes remain free. Updated 1 June 2025.")]
evidence = [Evidence(id="1", title="Skibidi on Spotify", text="Skibidi is on Spotify's free tier with ads. It premiered on 27 August 2025.")]
if shape == "repeated":
    answer = " ".join("Skibidi is free on Spotify with ads [Doc 1]." for _ in range(n))
elif shape == "figures":
    # one sentence of many figures, the dated evidence giving some of them (the stale-figure and arithmetic checks)
    evidence = tolls
    answer = "Cars pay " + ", ".join(f"£2.40 in {{2000 + i % 24}} and vans pay £4.50 on day {{i}}" for i in range(n)) + " [Doc 1]."
elif shape == "session":
    # a long session: n earlier turns of 5,000 characters each, every one stating prices
    said = "Cars pay £{{a}}.{{b}}0 on the bridge and vans pay £5.10 while motorbikes ride free on weekdays. "
    history = [Turn(role="user" if t % 2 == 0 else "assistant",
                    content=(said.format(a=2 + t % 7, b=t % 10) * 60)[:5000]) for t in range(n)]
    evidence, answer = tolls, "Cars pay £2.90 [Doc 2]. Vans pay £5.10 [Doc 2]."
elif shape == "spaces":
    # a figure, then a run of n spaces inside the sentence
    evidence, answer = tolls, "Cars pay £2.90" + " " * n + "per day [Doc 2]."
elif shape == "question":
    # a 10,000-character question with no comma, colon or question mark, and n answer sentences
    query = ("I have thirty euros with me and want a ticket " * 250)[:10_000]
    evidence = tolls
    answer = " ".join(f"Cars pay £2.{{i % 90 + 10}} on route {{i}} [Doc 2]." for i in range(n))
elif shape == "prices":
    # an evidence list of n prices per trip and one answer sentence stating all of them, then a total and a difference
    prices = [f"£{{i}}.{{i % 90 + 10}}" for i in range(n)]
    evidence = [Evidence(id="1", title="Fares", text="Prices: " + ", ".join(f"{{p}} per trip" for p in prices) + ".")]
    query = "I make 22 trips. How much will it cost?"
    answer = "At " + ", ".join(prices) + " each, your 22 trips total £135.52, £22.22 more than before [Doc 1]."
elif shape == "which":
    # a question of n characters that repeats "which" and a capitalised word, with no "or" and no question mark
    query, evidence = ("which Abc " * n)[:n], tolls
    answer = "Cars pay £2.90 [Doc 2]."
elif shape == "distinct":
    answer = " ".join(f"Claim number {{i}} says track {{i}} streams in region {{i % 97}} [Doc 1]." for i in range(n))
else:
    evidence = [Evidence(id=str(i), title=f"Doc {{i}}", text=f"Document {{i}} mentions venue {{i}} and price {{i}} dollars.") for i in range(1, n + 1)]
    answer = "Skibidi is free on Spotify with ads [Doc 1]."
item = Item(id="x", group="g", query=query, evidence=evidence, history=history,
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
    parser.add_argument("--figures", type=int, nargs="*", default=[500, 1000, 2150],
                        help="figures in one answer sentence (2,150 is about the 100,000-character ceiling)")
    parser.add_argument("--session", type=int, nargs="*", default=[20, 100],
                        help="earlier turns of 5,000 characters each (100 is the ceiling on turns)")
    parser.add_argument("--spaces", type=int, nargs="*", default=[25_000], help="spaces in a run inside one sentence")
    parser.add_argument("--question", type=int, nargs="*", default=[40],
                        help="answer sentences beside a 10,000-character question without a comma or question mark")
    parser.add_argument("--prices", type=int, nargs="*", default=[500, 2000],
                        help="prices an evidence item lists and one answer sentence states again")
    parser.add_argument("--which", type=int, nargs="*", default=[5000, 10_000],
                        help="characters of a question repeating 'which' and a capitalised word")
    parser.add_argument("--out")
    args = parser.parse_args()
    rows = [run(shape, n) for shape in ("repeated", "distinct") for n in args.sentences]
    rows += [run("documents", n) for n in args.documents]
    rows += [run("figures", n) for n in args.figures]
    rows += [run("session", n) for n in args.session]
    rows += [run("spaces", n) for n in args.spaces]
    rows += [run("question", n) for n in args.question]
    rows += [run("which", n) for n in args.which]
    rows += [run("prices", n) for n in args.prices]
    for row in rows:
        print(json.dumps(row), flush=True)
    report = {"benchmark": "item_cost", "rows": rows, "command": " ".join(["benchmarks/item_cost.py", *sys.argv[1:]]),
              "machine": f"{platform.machine()}, Python {platform.python_version()}",
              "note": "peak RSS includes the MiniLM and consistency models and the interpreter"}
    if args.out:
        Path(args.out).write_text(json.dumps(report, indent=2) + "\n")


if __name__ == "__main__":
    main()
