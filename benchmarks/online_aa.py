"""A/A interval coverage of the online report's lifts: simulated A/A tests, users split by the real bucketing.

    nice -n 10 .venv/bin/python benchmarks/online_aa.py --simulations 1000

Users have Beta(2, 3) propensities and Pareto-tailed session counts (1 to 200), so sessions of one user are
correlated, as in real traffic. Writes benchmarks/results/online_aa.json: the share of 95% lift intervals that
contain 0 for the delta method over users (the report's method), and for a naive session-level interval.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from reward.online.synthetic import aa_coverage  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--simulations", type=int, default=1000)
    parser.add_argument("--users", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--out", default=str(ROOT / "benchmarks/results/online_aa.json"))
    args = parser.parse_args()
    started = time.perf_counter()
    result = aa_coverage(args.simulations, args.users, seed=args.seed)
    n = result["simulations"]
    se = (result["coverage"] * (1 - result["coverage"]) / n) ** 0.5
    result.update(coverage_standard_error=round(se, 4), seconds=round(time.perf_counter() - started, 1), seed=args.seed,
                  command=f"nice -n 10 .venv/bin/python benchmarks/online_aa.py --simulations {args.simulations}")
    Path(args.out).write_text(json.dumps(result, indent=2) + "\n")
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
