"""The generalization corpus: interactions the reward was never tuned on, each with a clean answer, honest variants
and attacks, built from public data and a few hand-written interactions (`python -m training.generalization.build`),
scored by `benchmarks/generalization.py`."""
