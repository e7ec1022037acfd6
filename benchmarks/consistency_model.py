"""Claim-consistency model: pairs/s and agreement of fp32 vs int8 (torch dynamic quantisation) on held-out pairs.

    .venv/bin/python benchmarks/consistency_model.py --pairs 256

The pairs are synthetic held-out pairs of `reward.judges.consistency_data` (needs `data/public/`, see the recipe);
agreement is the share of pairs on which both precisions give the same supported / not verdict, and the largest
difference in P(supported).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from reward.judges.consistency import ARTIFACT, ConsistencyModel  # noqa: E402
from reward.judges.consistency_data import build  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=256)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results" / "consistency_model.json")
    args = parser.parse_args()
    _, held, _ = build(13)
    pairs = [(p.evidence, p.claim) for p in random.Random(0).sample(held, min(args.pairs, len(held)))]
    rows, results = {}, {}
    for name, quantize in (("fp32", False), ("int8_dynamic", True)):
        started = time.perf_counter()
        model = ConsistencyModel(ARTIFACT, quantize=quantize, threads=args.threads)
        load_s = time.perf_counter() - started
        model.predict(pairs[:8])
        started = time.perf_counter()
        rows[name] = model.predict(pairs)
        elapsed = time.perf_counter() - started
        results[name] = {"load_s": round(load_s, 2), "pairs_per_s": round(len(pairs) / elapsed, 1)}
    agree = float(np.mean((rows["fp32"][:, 0] >= 0.5) == (rows["int8_dynamic"][:, 0] >= 0.5)))
    report = {
        "benchmark": "consistency_model", "pairs": len(pairs), "held_out_pairs_available": len(held),
        "precisions": results, "verdict_agreement_int8_vs_fp32": round(agree, 4),
        "max_abs_diff_p_supported": round(float(np.abs(rows["fp32"][:, 0] - rows["int8_dynamic"][:, 0]).max()), 4),
        "torch_threads": args.threads, "load_average_1min": round(os.getloadavg()[0], 1),
        "machine": f"{platform.machine()}, {os.cpu_count()} cores (shared), Python {platform.python_version()}",
    }
    args.out.write_text(json.dumps(report, indent=2) + "\n")
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
