"""Claim-consistency model runtimes: pairs/s, agreement with fp32 and batch independence, on held-out pairs.

    taskset -c 1 .venv/bin/python benchmarks/consistency_model.py --pairs 256 --threads 1

Runtimes (`reward.judges.local_runtime`): torch fp32, torch int8 dynamic quantisation batched (32 pairs per forward)
and one pair per forward, ONNX Runtime fp32 (`onnx`) and ONNX Runtime int8 weights (the tier's default recipe), one
pair per forward. The pairs are synthetic held-out pairs of `training.consistency.data` (needs `data/public/`,
see the recipe). Per runtime: load time (ONNX files already cached in var/onnx), pairs/s, the share of pairs on which
it gives the same supported / not verdict as torch fp32 and the largest difference in P(supported), and batch
dependence: the largest change of a pair's probabilities when it is scored alone instead of among the others (a
reward must not depend on what else was in flight).
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
from training.consistency.data import build  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=256)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--alone", type=int, default=16, help="pairs also scored one at a time (batch dependence)")
    parser.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results" / "consistency_model.json")
    args = parser.parse_args()
    _, held, _ = build(13)
    pairs = [(p.evidence, p.claim) for p in random.Random(0).sample(held, min(args.pairs, len(held)))]
    rows, results = {}, {}
    runtimes = {
        "torch_fp32": lambda: ConsistencyModel(ARTIFACT, threads=args.threads),
        "torch_int8_dynamic_one_pair_per_forward": lambda: ConsistencyModel(ARTIFACT, quantize=True, threads=args.threads),
        "onnxruntime_fp32": lambda: ConsistencyModel(ARTIFACT, runtime="onnx", threads=args.threads),
        "onnxruntime_int8_one_pair_per_forward": lambda: ConsistencyModel(ARTIFACT, runtime="onnx-int8",
                                                                         threads=args.threads),
    }
    for name, make in runtimes.items():
        started = time.perf_counter()
        model = make()
        load_s = time.perf_counter() - started
        model.predict(pairs[:8])
        started = time.perf_counter()
        rows[name] = model.predict(pairs)
        elapsed = time.perf_counter() - started
        alone = np.stack([model.predict([pair])[0] for pair in pairs[:args.alone]])
        results[name] = {"load_s": round(load_s, 2), "pairs_per_s": round(len(pairs) / elapsed, 1),
                         "batch_dependence_max_abs": round(float(np.abs(alone - rows[name][:args.alone]).max()), 6)}
    reference = rows["torch_fp32"]
    for name, row in rows.items():
        results[name]["verdict_agreement_with_torch_fp32"] = round(float(np.mean((row[:, 0] >= 0.5) == (reference[:, 0] >= 0.5))), 4)
        results[name]["max_abs_diff_p_supported_vs_torch_fp32"] = round(float(np.abs(row[:, 0] - reference[:, 0]).max()), 4)
    report = {
        "benchmark": "consistency_model", "command": " ".join(["benchmarks/consistency_model.py", *sys.argv[1:]]),
        "pairs": len(pairs), "held_out_pairs_available": len(held), "runtimes": results,
        "torch_threads": args.threads, "load_average_1min": round(os.getloadavg()[0], 1),
        "machine": f"{platform.machine()}, {os.cpu_count()} cores (shared), Python {platform.python_version()}",
    }
    args.out.write_text(json.dumps(report, indent=2) + "\n")
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
