"""Build a judge backend from a command-line or config spec: `local`, `mock`, or a judge config YAML."""

from __future__ import annotations

from reward.judges.base import Judge
from reward.shipped import resolve_config


MOCK_SCRIPTS = {"mock": "best_label_script", "mock-hash": "response_hash_script"}
"""Scripted judges by spec name -> their script in `reward.judges.mock`."""


def make_judge(spec: str) -> Judge:
    """`mock` (scripted best labels; `mock:0.05` answers each call after 0.05 s, for load tests), `mock-hash` (a
    label that follows a hash of the response: rewards that differ between rollouts, for training tests), `local`
    (embedded CPU tier), a path to a judge endpoint config, or a cascade config (a YAML with a `cascade:` block: the
    cheap tier decides what it is sure of, the LLM judge the rest)."""
    name, _, latency = spec.partition(":")
    if name in MOCK_SCRIPTS:
        from reward.judges import mock

        try:
            latency_s = float(latency) if latency else 0.0
        except ValueError:
            raise ValueError(f"judge {spec!r}: expected '{name}:<seconds per call>', e.g. '{name}:0.05'") from None
        return mock.ScriptedJudge(getattr(mock, MOCK_SCRIPTS[name]), latency_s=latency_s)
    if spec == "local":
        from reward.judges.local import LocalJudge

        return LocalJudge()
    path = resolve_config(spec)
    if path.suffix in (".yaml", ".yml"):
        import yaml

        if path.exists() and "cascade" in (yaml.safe_load(path.read_text(encoding="utf-8")) or {}):
            from reward.judges.cascade import CascadeJudge

            config, llm = CascadeJudge.load_config(path)
            return CascadeJudge(make_judge(config.cheap), make_judge(llm), config)
        from reward.judges.openai_judge import OpenAIJudge

        return OpenAIJudge.from_config(path)
    raise ValueError(f"unknown judge {spec!r}: expected 'local', 'mock', 'mock-hash' or a configs/judges/*.yaml file")
