"""Build a judge backend from a command-line or config spec: a backend name from `BACKENDS` (`local`, `mock`,
`mock-hash`), or a judge config YAML (an OpenAI-compatible endpoint, or a cascade)."""

from __future__ import annotations

import difflib
import importlib
from collections.abc import Callable

from reward.judges.base import Judge
from reward.shipped import resolve_config

BACKENDS: dict[str, str] = {
    "local": "reward.judges.local:LocalJudge",
    "mock": "reward.judges.mock:best_label_judge",
    "mock-hash": "reward.judges.mock:response_hash_judge",
}
"""Judge backends by name -> "module:callable", imported on first use (so naming `mock` loads no model runtime).
The callable builds the judge; a backend that takes `name:<seconds per call>` accepts `latency_s`."""

TAKES_LATENCY = frozenset({"mock", "mock-hash"})
"""Backends whose spec may carry a per-call latency, `name:<seconds>` (for load tests)."""


def backend(name: str) -> Callable[..., Judge]:
    """The builder `BACKENDS` names for `name`, imported now; an unknown name answers with the closest known ones.

    >>> backend("mock").__name__
    'best_label_judge'
    """
    target = BACKENDS.get(name)
    if target is None:
        close = difflib.get_close_matches(name, BACKENDS, n=3)
        hint = f"; did you mean {' or '.join(repr(c) for c in close)}?" if close else ""
        raise ValueError(f"unknown judge backend {name!r}: expected one of {', '.join(sorted(BACKENDS))}{hint}")
    module, _, attribute = target.partition(":")
    return getattr(importlib.import_module(module), attribute)


def make_judge(spec: str) -> Judge:
    """`mock` (scripted best labels; `mock:0.05` answers each call after 0.05 s, for load tests), `mock-hash` (a
    label that follows a hash of the response: rewards that differ between rollouts, for training tests), `local`
    (embedded CPU tier), a path to a judge endpoint config, or a cascade config (a YAML with a `cascade:` block: the
    cheap tier decides what it is sure of, the LLM judge the rest)."""
    name, colon, option = spec.partition(":")
    if name in BACKENDS:
        build = backend(name)
        if not colon:
            return build()
        if name not in TAKES_LATENCY:
            raise ValueError(f"judge {spec!r}: the {name!r} backend takes no ':' option; expected {name!r}")
        try:
            latency_s = float(option)
        except ValueError:
            raise ValueError(f"judge {spec!r}: expected '{name}:<seconds per call>', e.g. '{name}:0.05'") from None
        return build(latency_s=latency_s)
    path = resolve_config(spec)
    if path.suffix in (".yaml", ".yml"):
        import yaml

        if path.exists() and "cascade" in (yaml.safe_load(path.read_text(encoding="utf-8")) or {}):
            from reward.judges.cascade import CascadeJudge

            config, llm = CascadeJudge.load_config(path)
            return CascadeJudge(make_judge(config.cheap), make_judge(llm), config)
        from reward.judges.openai_judge import OpenAIJudge

        return OpenAIJudge.from_config(path)
    close = difflib.get_close_matches(spec, BACKENDS, n=3)
    hint = f"; did you mean {' or '.join(repr(c) for c in close)}?" if close else ""
    raise ValueError(f"unknown judge {spec!r}: expected one of {', '.join(sorted(BACKENDS))} or a "
                     f"configs/judges/*.yaml file{hint}")
