"""Build a judge backend from a command-line or config spec: `local`, `mock`, or a judge config YAML."""

from __future__ import annotations

from reward.judges.base import Judge
from reward.shipped import resolve_config


def make_judge(spec: str) -> Judge:
    """`mock` (scripted best labels), `local` (embedded CPU tier) or a path to a judge endpoint config."""
    if spec == "mock":
        from reward.judges.mock import ScriptedJudge

        return ScriptedJudge()
    if spec == "local":
        from reward.judges.local import LocalJudge

        return LocalJudge()
    path = resolve_config(spec)
    if path.suffix in (".yaml", ".yml"):
        from reward.judges.openai_judge import OpenAIJudge

        return OpenAIJudge.from_config(path)
    raise ValueError(f"unknown judge {spec!r}: expected 'local', 'mock' or a configs/judges/*.yaml file")
