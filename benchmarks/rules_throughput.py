"""Rule tier throughput: items per second per core for all rule checks together on 2-4 KB responses.

Every registered rule (format, length, citations, repetition, refusal, judge-addressing) runs on each item, plus
the response parse they share, exactly as the engine does per rollout. One process, one core.

    .venv/bin/python benchmarks/rules_throughput.py [--items 2000] [--repeat 3]
"""

from __future__ import annotations

import argparse
import json
import platform
import random
import statistics
import time

from policy.format import Facet, parse_response, render_response
from reward.rules import RULES
from reward.schema import Evidence, Item

SENTENCES = [
    "The radio premiere took place on 27 August 2025 at 10:00 local time [Doc {a}].",
    "Spotify's free tier now carries the full track, with ads between songs [Doc {a},{b}].",
    "Apple Music requires a subscription after the one-month trial ends [Doc {b}].",
    "The official video is on YouTube and Bilibili, both free to watch [Doc {a}].",
    "KKBox lists the single under its new-release chart for this week [Doc {c}].",
    "Regional availability differs: some stores show it only after 24 hours [Doc {c}].",
    "A lyric video with translations was uploaded by the label's channel [Doc {b}].",
    "Concert dates for the next tour have not been announced yet [Doc {a}].",
]


VOCABULARY = (
    "album single chart label stream playlist region store premium ticket venue tour video lyric fan release week "
    "month price discount bundle family student trial device app web desktop mobile offline download quality audio"
).split()


def make_items(count: int, seed: int = 7) -> list[Item]:
    rng = random.Random(seed)
    evidence = [
        Evidence(id=str(i), title=f"Source {i}", text=" ".join(rng.sample(SENTENCES, 4)).replace("[Doc {a}]", "").format(a=1, b=2, c=3))
        for i in range(1, 7)
    ]
    items = []
    for index in range(count):
        chosen = sorted(rng.sample(["1", "2", "3", "4", "5", "6"], 3))
        a, b, c = chosen
        body = []
        while sum(len(s) for s in body) < rng.randint(2000, 3800):
            # Realistic answers rarely repeat themselves: vary each sentence with its own words and numbers.
            words = " ".join(rng.choice(VOCABULARY) for _ in range(rng.randint(4, 9)))
            sentence = rng.choice(SENTENCES).format(a=a, b=b, c=c).replace(" [Doc", f", {words} ({rng.randint(2, 999)}) [Doc", 1)
            body.append(("- " if rng.random() < 0.3 else "") + sentence)
        answer = "## Where to listen\n\n" + "\n".join(body)
        plan = [Facet("Is the premiere over?", (a,)), Facet("Where is it free now?", (b, c))]
        items.append(Item(id=f"i{index}", group=f"g{index // 16}", query="Where can I listen to the song for free?",
                          evidence=evidence, response=render_response(plan, chosen, answer)))
    return items


def run_once(items: list[Item]) -> float:
    rules = list(RULES.values())
    start = time.perf_counter()
    for item in items:
        parsed = parse_response(item.response)
        for rule in rules:
            rule(item, parsed)
    return len(items) / (time.perf_counter() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=2000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    items = make_items(args.items)
    sizes = [len(i.response.encode()) for i in items]
    run_once(items[:100])  # warm regex caches
    rates = [run_once(items) for _ in range(args.repeat)]
    print(json.dumps({
        "benchmark": "rules_throughput",
        "rules": sorted(RULES),
        "items": len(items),
        "response_bytes_median": int(statistics.median(sizes)),
        "items_per_s_per_core": {"median": round(statistics.median(rates)), "runs": [round(r) for r in rates]},
        "target_items_per_s_per_core": 1500,
        "python": platform.python_version(),
        "machine": platform.machine(),
    }, indent=2))


if __name__ == "__main__":
    main()
