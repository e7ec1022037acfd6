"""Judge backends behind one async interface (`Judge`), and `make_judge(spec)`, which builds one from a name or a
judge config file: the embedded CPU tier (`LocalJudge`), OpenAI-compatible endpoints (`OpenAIJudge`, e.g. vLLM or
llama.cpp), and the cascade of the two (`CascadeJudge`). The names load on first use, so importing this package
loads no model runtime. Test doubles (`ScriptedJudge` and its script helpers) stay in `reward.judges.mock`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from reward._lazy import lazy_exports

_import_structure = {
    "base": ["Completion", "Judge", "JudgeReply", "JudgeRequest", "JudgeTransportError"],
    "llm": ["LLMJudge"],
    "local": ["LocalJudge"],
    "openai_judge": ["JudgeConfig", "OpenAIJudge"],
    "cascade": ["CascadeConfig", "CascadeJudge"],
    "factory": ["make_judge"],
    "prompt": ["prefix_share", "render_messages"],
}

__all__ = ["CascadeConfig", "CascadeJudge", "Completion", "Judge", "JudgeConfig", "JudgeReply", "JudgeRequest",
           "JudgeTransportError", "LLMJudge", "LocalJudge", "OpenAIJudge", "make_judge", "prefix_share",
           "render_messages"]

if TYPE_CHECKING:
    from reward.judges.base import Completion, Judge, JudgeReply, JudgeRequest, JudgeTransportError
    from reward.judges.cascade import CascadeConfig, CascadeJudge
    from reward.judges.factory import make_judge
    from reward.judges.llm import LLMJudge
    from reward.judges.local import LocalJudge
    from reward.judges.openai_judge import JudgeConfig, OpenAIJudge
    from reward.judges.prompt import prefix_share, render_messages


__getattr__, __dir__ = lazy_exports(__name__, _import_structure, globals(), __all__)
