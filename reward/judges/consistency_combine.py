"""The old `python -m reward.judges.consistency_combine` path: the checksummed recipes of the shipped artifact
(`reward/judges/consistency_model/`) and of the candidates in `benchmarks/results/consistency_candidates/` name it.
It runs `python -m training.consistency.combine` with the same arguments, from a checkout (`training/` is not in the
wheel)."""

import runpy
import sys

if __name__ == "__main__":
    try:
        runpy.run_module("training.consistency.combine", run_name="__main__", alter_sys=True)
    except ImportError as exc:
        if getattr(exc, "name", None) not in ("training", "training.consistency", "training.consistency.combine"):
            raise
        sys.exit("training.consistency.combine is not installed with the package: run it from a checkout of the repository")
