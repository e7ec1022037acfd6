"""Judge nodes needed per GRPO step time, from token counts per judge call.

A step scores `prompts x rollouts` items on every judge dimension; dedupe removes a share of those calls. Each
remaining call costs its uncached prompt tokens (prefill) and its reply tokens (decode) on one judge node, so

    node_seconds = calls * (uncached_prompt_tokens / prefill_tps + reply_tokens / decode_tps)
    nodes(T)     = ceil(node_seconds / (T * utilisation))

Token counts come from a measurement file when given (`--measured`, the JSON that `benchmarks/llm_judge.py`
writes: `prompt_tokens_per_call`, `cached_tokens_per_call` or `cached_share_of_prompt_tokens`,
`completion_tokens_per_call`, each a number or a summary with a `mean`), otherwise from the README's estimates,
the defaults below. A reply length measured on a small judge is not an R1 reply length: `--reply-tokens` overrides
it. Node throughputs are assumptions about the judge model on the judge hardware (defaults: a 671B MoE at TP=8 on
one 8 x H800 node), to be replaced by a measurement on that hardware.

    .venv/bin/python benchmarks/sizing.py --out benchmarks/results/sizing.json
    .venv/bin/python benchmarks/sizing.py --measured benchmarks/results/llm_judge_llamacpp.json --reply-tokens 750
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path

from pydantic import BaseModel, Field

# The README's estimates (section Cluster, "Sizing"): the defaults when nothing is measured.
DEFAULTS = {
    "prompts": 128, "rollouts": 16, "judge_dimensions": 18,
    "dedupe_rate": 0.19,               # 36,864 planned calls -> ~30,000 made
    "prompt_tokens": 5800,             # ~5k shared prefix (evidence, history, query) + ~0.8k response and criterion
    "cached_tokens": 5000,             # the shared prefix, served from vLLM's prefix cache
    "reply_tokens": 750,               # an R1-style judge reasons ~0.5-1k tokens before its label
    "decode_tps": 2500.0,              # output tokens/s per judge node at a full batch
    "prefill_tps": 10000.0,            # uncached prompt tokens/s per judge node
    "utilisation": 1.0,                # share of a step the judges are busy (1.0: perfectly overlapped)
}


class Sizing(BaseModel):
    """The inputs of one sizing and where each came from."""

    prompts: int = Field(ge=1)
    rollouts: int = Field(ge=1)
    judge_dimensions: int = Field(ge=1)
    dedupe_rate: float = Field(ge=0, lt=1)
    prompt_tokens: float = Field(gt=0)
    """Prompt tokens per judge call."""
    cached_tokens: float = Field(ge=0)
    """Of those, tokens served from the prefix cache."""
    reply_tokens: float = Field(gt=0)
    decode_tps: float = Field(gt=0)
    prefill_tps: float = Field(gt=0)
    utilisation: float = Field(gt=0, le=1)
    sources: dict[str, str]
    """For each input: `default (README estimate)`, `measured (<file>)` or `command line`."""

    @property
    def calls(self) -> float:
        return self.prompts * self.rollouts * self.judge_dimensions * (1 - self.dedupe_rate)

    @property
    def node_seconds(self) -> float:
        uncached = max(0.0, self.prompt_tokens - self.cached_tokens)
        return self.calls * (uncached / self.prefill_tps + self.reply_tokens / self.decode_tps)

    def nodes_for(self, step_seconds: float) -> int:
        """Judge nodes that score one step's calls within `step_seconds`.

        >>> sizing = Sizing(**DEFAULTS, sources={})
        >>> sizing.nodes_for(600), sizing.nodes_for(900)
        (19, 13)
        """
        return max(1, math.ceil(self.node_seconds / (step_seconds * self.utilisation)))


def _number(value) -> float | None:
    if isinstance(value, dict):
        value = value.get("mean")
    return float(value) if isinstance(value, int | float) else None


def measured_tokens(path: Path) -> dict[str, float]:
    """Prompt, cached and reply tokens per call from a measurement file; keys it lacks are left out."""
    data = json.loads(path.read_text(encoding="utf-8"))
    found: dict[str, float] = {}
    prompt = _number(data.get("prompt_tokens_per_call"))
    if prompt:
        found["prompt_tokens"] = prompt
        cached = _number(data.get("cached_tokens_per_call"))
        share = _number(data.get("cached_share_of_prompt_tokens"))
        if cached is not None:
            found["cached_tokens"] = cached
        elif share is not None:
            found["cached_tokens"] = prompt * share
    reply = _number(data.get("completion_tokens_per_call"))
    if reply:
        found["reply_tokens"] = reply
    return found


def build(args: argparse.Namespace) -> Sizing:
    values = dict(DEFAULTS)
    sources = {key: "default (README estimate)" for key in DEFAULTS}
    if args.measured:
        for key, value in measured_tokens(Path(args.measured)).items():
            values[key], sources[key] = value, f"measured ({args.measured})"
    for key in DEFAULTS:
        given = getattr(args, key)
        if given is not None:
            values[key], sources[key] = given, "command line"
    return Sizing(**values, sources=sources)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--measured", help="JSON with measured token counts per call (benchmarks/llm_judge.py)")
    for key, value in DEFAULTS.items():
        parser.add_argument(f"--{key.replace('_', '-')}", dest=key, type=type(value), default=None,
                            help=f"default {value}")
    parser.add_argument("--step-minutes", type=float, nargs="+", default=[5, 10, 15, 20],
                        help="step times to size for (minutes of judge time per GRPO step)")
    parser.add_argument("--out", help="write the sizing as JSON here")
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    sizing = build(args)
    table = {f"{m:g}": sizing.nodes_for(m * 60) for m in args.step_minutes}
    result = {"inputs": sizing.model_dump(), "judge_calls_per_step": round(sizing.calls),
              "judge_node_seconds_per_step": round(sizing.node_seconds),
              "judge_nodes_by_step_minutes": table,
              "command": "python benchmarks/sizing.py " + " ".join(sys.argv[1:] if argv is None else argv)}
    print(f"{result['judge_calls_per_step']} judge calls per step, {result['judge_node_seconds_per_step']} "
          "judge-node seconds")
    print("| step time (min) | judge nodes |\n|---|---|")
    for minutes, nodes in table.items():
        print(f"| {minutes} | {nodes} |")
    for key, source in sizing.sources.items():
        if not source.startswith("default"):
            print(f"{key}: {getattr(sizing, key)} from {source}")
    if args.out:
        Path(args.out).write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
