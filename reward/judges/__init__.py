"""Judge backends behind one async interface, prompt rendering and reply parsing."""

from reward.judges.base import Completion, Judge, JudgeReply, JudgeRequest, JudgeTransportError
from reward.judges.llm import LLMJudge
from reward.judges.mock import ScriptedJudge, best_label_script, by_dimension, tag_reply
from reward.judges.prompt import prefix_share, render_messages

__all__ = [
    "Completion",
    "Judge",
    "JudgeReply",
    "JudgeRequest",
    "JudgeTransportError",
    "LLMJudge",
    "ScriptedJudge",
    "best_label_script",
    "by_dimension",
    "prefix_share",
    "render_messages",
    "tag_reply",
]
