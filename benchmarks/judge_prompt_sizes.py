"""Judge prompt sizes measured with a real tokenizer: prompt tokens per call for every (bundled example, judge
dimension) of the searchllm suite, as sent with structured outputs (JSON contract), counted with Gemma 3's tokenizer
and chat format (`reward judge-server`'s model, vocabulary only: no inference), plus the share of prompt tokens a
prefix cache serves when each GRPO group's calls go together (`prefix_share`, 16-token blocks, real tokens).

    .venv/bin/python benchmarks/judge_prompt_sizes.py --out benchmarks/results/judge_prompt_sizes.json
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from benchmarks.emit import emit  # noqa: E402

from policy.format import parse_response  # noqa: E402
from reward.judges.base import JudgeRequest  # noqa: E402
from reward.judges.llamacpp_server import format_gemma3, model_file  # noqa: E402
from reward.judges.openai_judge import Endpoint, JudgeConfig, OpenAIJudge  # noqa: E402
from reward.judges.prompt import prefix_share, render_messages  # noqa: E402
from reward.rubric import load_suite  # noqa: E402
from reward.schema import Item  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out")
    args = parser.parse_args()
    from llama_cpp import Llama

    llama = Llama(model_path=str(model_file("gemma3-270m", ROOT / "var" / "models")), vocab_only=True, verbose=False)

    def tokens(messages) -> list[int]:
        return llama.tokenize(format_gemma3(messages).prompt.encode(), add_bos=True, special=True)

    suite = load_suite("searchllm")
    judge = OpenAIJudge(JudgeConfig(endpoints=[Endpoint(base_url="http://unused/v1", model="m", structured_outputs="llamacpp")]))
    items = [Item.model_validate_json(line) for line in (ROOT / "examples" / "items.jsonl").read_text().splitlines() if line.strip()]
    per_call, by_dimension, prompts_by_group = [], {}, {}
    for item in items:
        parsed = parse_response(item.response)
        for name, dimension in suite.dimensions.items():
            if dimension.kind != "judge":
                continue
            messages = render_messages(judge.adapt(JudgeRequest(dimension, item, parsed)))
            count = len(tokens(messages))
            per_call.append(count)
            by_dimension.setdefault(name, []).append(count)
            prompts_by_group.setdefault(item.group or item.id, []).append(messages)
    ordered = sorted(per_call)
    flat = [m for group in prompts_by_group.values() for m in group]
    report = {
        "command": ".venv/bin/python benchmarks/judge_prompt_sizes.py",
        "tokenizer": "Gemma 3 (gemma3-270m GGUF, vocabulary only), Gemma 3 chat format, JSON contract (structured outputs)",
        "items": len(items), "calls": len(per_call),
        "prompt_tokens_per_call": {"mean": round(statistics.fmean(per_call)), "median": statistics.median(per_call),
                                   "p90": ordered[int(0.9 * len(ordered))], "min": ordered[0], "max": ordered[-1]},
        "prompt_tokens_by_dimension": {k: round(statistics.fmean(v)) for k, v in sorted(by_dimension.items())},
        "prefix_share_groups_together": round(prefix_share(flat, tokenize=lambda text: llama.tokenize(text.encode(), special=False)), 3),
    }
    emit(report, args.out)


if __name__ == "__main__":
    main()
