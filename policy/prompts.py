"""The policy's system prompt and chat template: intent planning, evidence selection, grounded answer.

The prompt asks for exactly the format `policy.format` parses (and the reward rules check), and shows an example
rendered by `policy.format.render_response`, so the instructions and the parser cannot disagree.
"""

from __future__ import annotations

import datetime as dt

from policy.format import Facet, render_response
from reward.schema import Evidence, Turn

EXAMPLE = render_response(
    [Facet("Is the radio premiere still upcoming, or already over?", ("3",)),
     Facet("Where can the song be played for free now?", ("1", "2"))],
    ["1", "2"],
    "It is already out, so you can listen for free now: Spotify's free tier plays the full track with ads "
    "[Doc 1].\n\n- **Video:** the official music video is free on YouTube and Bilibili [Doc 2].",
)

SYSTEM_PROMPT = f"""You are a search assistant. You receive the user's query, the conversation so far, and a set of \
retrieved evidence documents, which may be noisy, redundant, outdated or contradictory. Work in three steps and \
write exactly three parts, in this order, each once:

1. <plan>: infer what the user really needs from the query and the conversation, including implicit needs. Split \
it into a few distinct facets, most important first, one per numbered line. After each facet cite the evidence it \
needs as [Doc i] or [Doc i,j]; a facet that no evidence supports gets no citation. When the query is ambiguous or \
time-sensitive, plan how to resolve that (which reading, what is still valid today).
2. <evidence>: the ids of a compact, non-redundant set of evidence that together cover the facets, comma-separated \
(for example: 1, 4). Leave out irrelevant, outdated and duplicate documents. Write none when nothing is usable.
3. <answer>: the answer in Markdown. Put the core answer in the first sentence. Ground every specific fact \
(names, numbers, dates, prices, steps) in the selected evidence and cite it right after the claim as [Doc i] or \
[Doc i,j]. Use widely accepted background knowledge only for general context. Treat information the evidence \
dates as past accordingly. Be concise: no filler, no repetition. If the evidence does not support an answer, say \
plainly what is unknown instead of guessing. Never address anyone but the user.

Write nothing outside the three parts: no greeting, preamble or closing remark before <plan> or after </answer>.

Example of the format:
{EXAMPLE}"""


COMPACT_SYSTEM_PROMPT = f"""You are a search assistant. Answer the user's query from the evidence documents. Write \
exactly three parts, in this order: <plan> the facets of what the user needs, one per numbered line, each citing \
the evidence it needs as [Doc i]; <evidence> the ids of the documents you use, comma-separated; <answer> the \
answer in Markdown, core answer first, every specific fact cited right after it as [Doc i]. Say plainly what the \
evidence does not support. Write nothing outside the three parts.

Example of the format:
{EXAMPLE}"""
"""The same format in a few lines, for small policies on CPU (policy/trl_train.py), whose steps pay for every
prompt token several times (generation, then the forward and backward pass of the update)."""


MINIMAL_SYSTEM_PROMPT = """Answer the query from the evidence. Write <plan> (numbered facets, each citing [Doc i]), \
<evidence> (the ids you use) and <answer> (core answer first, each fact cited as [Doc i]), nothing outside them."""
"""One sentence naming the three parts, for a policy that learned the format by a warm start (`policy/sft.py`):
a GRPO step on CPU then pays for a few dozen system-prompt tokens instead of a few hundred."""

SYSTEM_PROMPTS = {"full": SYSTEM_PROMPT, "compact": COMPACT_SYSTEM_PROMPT, "minimal": MINIMAL_SYSTEM_PROMPT}
"""The system prompts by the name a recipe gives (`prompt:` in configs/trl/*.yaml)."""


def render_evidence(evidence: list[Evidence]) -> str:
    blocks = []
    for doc in evidence:
        meta = ", ".join(p for p in (doc.source, doc.published.isoformat() if doc.published else "") if p)
        blocks.append(f"[Doc {doc.id}] {doc.title}" + (f" ({meta})" if meta else "") + f"\n{doc.text.strip()}")
    return "\n\n".join(blocks) if blocks else "(no documents were retrieved)"


def build_messages(query: str, evidence: list[Evidence], history: list[Turn] | None = None,
                   now: dt.date | None = None, system_prompt: str = SYSTEM_PROMPT) -> list[dict[str, str]]:
    """Chat messages for one interaction: system prompt, earlier turns, then evidence and query."""
    messages = [{"role": "system", "content": system_prompt}]
    for turn in history or []:
        if turn.role in ("user", "assistant"):
            messages.append({"role": turn.role, "content": turn.content})
    today = f"Today is {now.isoformat()}.\n\n" if now else ""
    messages.append({"role": "user", "content": f"{today}Evidence:\n{render_evidence(evidence)}\n\nQuery: {query.strip()}"})
    return messages
