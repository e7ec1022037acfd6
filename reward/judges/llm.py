"""`LLMJudge`: the judgment every text-answering backend shares (OpenAI-compatible endpoints, the scripted mock).

A backend implements `complete` (send the rendered messages, return the text and, where the server gives them, label
probabilities); `judge` does the rest the same way for all of them: render the prompt, parse the reply per the
rubric's output contract, verify evidence quotes, retry unparseable or out-of-scale replies a bounded number of times
(a reply cut at `max_tokens` is `truncated` at once: the same budget would cut it again), and turn a transport failure
or what is left into an `unscored` reply with its reason and the raw text. Token usage is summed over the calls.
"""

from __future__ import annotations

import abc
import logging

from reward.judges.base import Completion, Judge, JudgeReply, JudgeRequest, JudgeTransportError, add_usage
from reward.judges.parse import ParseError, parse_reply
from reward.judges.prompt import render_messages

log = logging.getLogger(__name__)


class LLMJudge(Judge):
    """Shared judgment logic for backends that answer with text."""

    def __init__(self, *, parse_retries: int = 2):
        self.parse_retries = parse_retries

    @abc.abstractmethod
    async def complete(self, messages: list[dict[str, str]], request: JudgeRequest, attempt: int) -> Completion:
        """Send the messages; raise `JudgeTransportError` when the endpoint cannot answer."""

    def adapt(self, request: JudgeRequest) -> JudgeRequest:
        """The request as this backend asks it: e.g. the JSON contract where the endpoint constrains the reply to a
        JSON schema. The prompt is rendered and the reply parsed from what this returns."""
        return request

    async def judge(self, request: JudgeRequest) -> JudgeReply:
        request = self.adapt(request)
        messages = render_messages(request)
        backend = self.backend_for(request)
        last_error, last_raw, usage = "unparseable", None, None
        for attempt in range(1, self.parse_retries + 2):
            try:
                completion = await self.complete(messages, request, attempt)
            except JudgeTransportError as exc:
                log.warning("judge %s failed on %s/%s: %s", backend, request.item.id, request.dimension.name, exc)
                return JudgeReply.unscored(backend, exc.reason, explanation=exc.detail or None, attempts=attempt,
                                           usage=usage)
            usage = add_usage(usage, completion.usage)
            if completion.finish_reason == "length":
                log.info("judge %s reply cut at max_tokens on %s/%s", backend, request.item.id, request.dimension.name)
                return JudgeReply.unscored(backend, "truncated", raw=completion.raw, attempts=attempt, usage=usage,
                                           explanation="the reply reached max_tokens before its verdict was complete")
            try:
                parsed = parse_reply(completion, request)
            except ParseError as exc:
                last_error, last_raw = exc.reason, completion.raw
                log.info("judge %s reply rejected (%s), attempt %d", backend, exc, attempt)
                continue
            return JudgeReply(
                backend=backend,
                score=parsed.score,
                label=parsed.label,
                explanation=parsed.explanation,
                quotes=parsed.quotes,
                attempts=attempt,
                score_source=parsed.score_source,
                usage=usage,
            )
        return JudgeReply.unscored(backend, last_error, raw=last_raw, attempts=self.parse_retries + 1, usage=usage)
