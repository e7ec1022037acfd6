"""Claim-consistency model runtimes: pairs/s, agreement with fp32 and batch independence, on held-out pairs.

    .venv/bin/python benchmarks/consistency_model.py --pairs 256 --threads 1

Runtimes: torch fp32 (what the local tier runs), torch int8 dynamic quantisation batched (32 pairs per forward) and
one pair per forward, and ONNX Runtime fp32 (the merged model exported with `torch.onnx.export`, needs
`.venv/bin/pip install onnxruntime==1.32.0 onnx==1.23.2`, not part of any extra). The pairs are synthetic held-out pairs of `reward.judges.consistency_data` (needs
`data/public/`, see the recipe). Per runtime: load time, pairs/s, the share of pairs on which it gives the same
supported / not verdict as torch fp32 and the largest difference in P(supported), and batch dependence: the
largest change of a pair's probabilities when it is scored alone instead of among the others (a reward must not
depend on what else was in flight).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from reward.judges.consistency import ARTIFACT, LABELS, ConsistencyModel  # noqa: E402
from reward.judges.consistency_data import build  # noqa: E402

INPUTS = ("input_ids", "attention_mask", "token_type_ids")


class OnnxRuntimeModel:
    """The fp32 model exported to ONNX and run by ONNX Runtime, with `ConsistencyModel.predict`'s batching."""

    def __init__(self, torch_model: ConsistencyModel, threads: int, folder: Path):
        import onnxruntime as ort
        import torch

        self.tokenizer, self.batch_size, self.max_length = (torch_model.tokenizer, torch_model.batch_size,
                                                            torch_model.max_length)
        sample = self.tokenizer(["a b", "c"], ["d", "e f g"], padding=True, return_tensors="pt")
        path = folder / "consistency.onnx"
        torch.onnx.export(torch_model.model, tuple(sample[k] for k in INPUTS), str(path), input_names=list(INPUTS),
                          output_names=["logits"], opset_version=17, dynamo=False,
                          dynamic_axes={**{k: {0: "batch", 1: "tokens"} for k in INPUTS}, "logits": {0: "batch"}})
        options = ort.SessionOptions()
        options.intra_op_num_threads, options.inter_op_num_threads = threads, 1
        self.session = ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])

    def predict(self, pairs):
        order = sorted(range(len(pairs)), key=lambda i: len(pairs[i][0]) + len(pairs[i][1]))
        out = np.zeros((len(pairs), len(LABELS)), dtype=np.float32)
        for start in range(0, len(order), self.batch_size):
            chunk = order[start:start + self.batch_size]
            features = self.tokenizer([pairs[i][0] for i in chunk], [pairs[i][1] for i in chunk],
                                      truncation="longest_first", max_length=self.max_length, padding=True,
                                      return_tensors="np")
            logits = self.session.run(None, {k: features[k].astype(np.int64) for k in INPUTS})[0]
            logits = np.exp(logits - logits.max(axis=1, keepdims=True))
            out[chunk] = logits / logits.sum(axis=1, keepdims=True)
        return out


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
    with tempfile.TemporaryDirectory() as folder:
        runtimes = {
            "torch_fp32": lambda: ConsistencyModel(ARTIFACT, quantize=False, threads=args.threads),
            "torch_int8_dynamic_batched": lambda: ConsistencyModel(ARTIFACT, quantize=True, threads=args.threads),
            "torch_int8_dynamic_one_pair_per_forward": lambda: ConsistencyModel(
                ARTIFACT, quantize=True, threads=args.threads, batch_size=1),
            "onnxruntime_fp32": lambda: OnnxRuntimeModel(ConsistencyModel(ARTIFACT, quantize=False,
                                                                          threads=args.threads),
                                                         args.threads, Path(folder)),
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
