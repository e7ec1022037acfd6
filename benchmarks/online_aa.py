"""A/A interval coverage of the online statistics: the report's lifts, the audit's bad-case rates, and the
offline-online link's AUCs, each against an interval that ignores the clustering.

    nice -n 10 .venv/bin/python benchmarks/online_aa.py --simulations 1000

1. Report lifts: users with Beta(2, 3) propensities and Pareto-tailed session counts (1 to 200), split by the real
   bucketing; share of 95% lift intervals holding 0, delta method over users against a session-level interval.
2. BCR: per arm a pool of 60 responses (each bad with probability 0.2, two policies of equal quality), Pareto
   popularity, 100 sampled sessions per arm (about 35 distinct labelled responses); share of intervals holding the
   true rate (per arm) and 0 (the absolute difference), clustered by response against session-level Wilson / z.
3. Link: 66 responses whose scores say nothing about users (true AUC 0.5), each with its own effect on the
   outcome, shown in 12,000 sessions; share of 95% AUC intervals holding 0.5, clustered by response against
   DeLong over sessions.

Writes benchmarks/results/online_aa.json.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from reward.online.synthetic import aa_bcr_coverage, aa_coverage, aa_link_coverage  # noqa: E402


def _standard_error(coverage: float, n: int) -> float:
    return round((coverage * (1 - coverage) / n) ** 0.5, 4)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--simulations", type=int, default=1000)
    parser.add_argument("--users", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--out", default=str(ROOT / "benchmarks/results/online_aa.json"))
    args = parser.parse_args()
    result: dict = {"seed": args.seed,
                    "command": f"nice -n 10 .venv/bin/python benchmarks/online_aa.py --simulations {args.simulations}"}
    started = time.perf_counter()
    lifts = aa_coverage(args.simulations, args.users, seed=args.seed)
    lifts.update(coverage_standard_error=_standard_error(lifts["coverage"], lifts["simulations"]),
                 seconds=round(time.perf_counter() - started, 1))
    started = time.perf_counter()
    bcr = aa_bcr_coverage(args.simulations, seed=args.seed)
    bcr.update(difference_coverage_standard_error=_standard_error(bcr["difference_coverage"], bcr["simulations"]),
               seconds=round(time.perf_counter() - started, 1))
    started = time.perf_counter()
    link = aa_link_coverage(args.simulations, seed=args.seed)
    link.update(coverage_standard_error=_standard_error(link["coverage"], link["simulations"]),
                seconds=round(time.perf_counter() - started, 1))
    result.update(report_lifts=lifts, bcr=bcr, link=link)
    Path(args.out).write_text(json.dumps(result, indent=2) + "\n")
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
