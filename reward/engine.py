"""The scoring engine: one batch of items in, one result per item out, in order.

For a batch the engine parses every response once, runs the rule dimensions and the judges' pre-checks, then
plans every (item, judge dimension) call: calls with the same content key (same prompt: GRPO groups repeat
responses; evidence-only dimensions do not read the answer) are made once, cached results are reused, and the
rest run concurrently under a limit, group by group so an endpoint's prefix cache stays warm. It then assembles
each item's score vector, aggregates it per the suite, and gives invalid items their group's mean reward.
"""

from __future__ import annotations

import asyncio
import hashlib
import time
import json
import logging
from cachetools import LRUCache
from collections.abc import Sequence
from dataclasses import dataclass, field

from reward.format import ParsedResponse, parse_response
from reward.aggregate import aggregate, fill_invalid_rewards
from reward.judges.base import Judge, JudgeReply, JudgeRequest
from reward.judges.prompt import render_context, render_response_part
from reward.rubric import Dimension, LoadedSuite
from reward.rules import RULES, RuleResult
from reward.schema import DimensionScore, Item, ItemResult, reason_kind

log = logging.getLogger(__name__)



@dataclass
class EngineStats:
    """Counters since the engine started (exported as Prometheus metrics by the server)."""

    items: int = 0
    judge_calls_planned: int = 0
    judge_calls_deduped: int = 0
    judge_cache_hits: int = 0
    judge_calls_made: int = 0
    unscored: dict[str, int] = field(default_factory=dict)
    judge_latencies: list[float] = field(default_factory=list)
    """Seconds per judge call since the last `drain_latencies()` (the server turns them into a histogram)."""

    def drain_latencies(self) -> list[float]:
        latencies, self.judge_latencies = self.judge_latencies, []
        return latencies


class ReplyCache:
    """Exact-match cache of judge replies keyed by call content, bounded (least recently used out: cachetools)."""

    def __init__(self, max_entries: int = 200_000):
        self.max_entries = max_entries
        self._entries: LRUCache[str, JudgeReply] = LRUCache(maxsize=max(max_entries, 1))

    def get(self, key: str) -> JudgeReply | None:
        return self._entries.get(key)

    def put(self, key: str, reply: JudgeReply) -> None:
        if reply.status != "ok" or self.max_entries <= 0:
            return  # failures are retried next time, not remembered
        self._entries[key] = reply

    def __len__(self) -> int:
        return len(self._entries)


class SqliteReplyCache(ReplyCache):
    """The exact-match cache on disk (SQLite), for re-scoring the same data later (calibration, audits).

    Successful replies only, keyed by the same content key as the in-memory cache, which stays in front of it.
    """

    def __init__(self, path: str, max_entries: int = 200_000):
        import sqlite3

        super().__init__(max_entries)
        self._db = sqlite3.connect(path, check_same_thread=False)
        self._db.execute("CREATE TABLE IF NOT EXISTS replies (key TEXT PRIMARY KEY, reply TEXT NOT NULL)")
        self._db.commit()

    def get(self, key: str) -> JudgeReply | None:
        reply = super().get(key)
        if reply is not None:
            return reply
        row = self._db.execute("SELECT reply FROM replies WHERE key = ?", (key,)).fetchone()
        if row is None:
            return None
        data = json.loads(row[0])
        from reward.schema import Quote

        reply = JudgeReply(**{**data, "quotes": [Quote(**q) for q in data.get("quotes", [])]})
        super().put(key, reply)
        return reply

    def put(self, key: str, reply: JudgeReply) -> None:
        if reply.status != "ok":
            return
        super().put(key, reply)
        data = {**reply.__dict__, "quotes": [q.model_dump() for q in reply.quotes], "cached": False}
        self._db.execute("INSERT OR REPLACE INTO replies VALUES (?, ?)", (key, json.dumps(data)))
        self._db.commit()

    def __len__(self) -> int:
        return self._db.execute("SELECT COUNT(*) FROM replies").fetchone()[0]


def _hash(*parts: str) -> str:
    digest = hashlib.sha256()
    for part in parts:
        digest.update(part.encode())
        digest.update(b"\x00")
    return digest.hexdigest()


class Engine:
    """Scores batches of items with one suite and one judge backend."""

    def __init__(self, suite: LoadedSuite, judge: Judge, *, max_concurrency: int = 256, cache: ReplyCache | None = None):
        self.suite = suite
        self.judge = judge
        self.max_concurrency = max_concurrency
        self.cache = cache if cache is not None else ReplyCache()
        self.stats = EngineStats()
        self._dimension_hash = {
            name: _hash(json.dumps(dim.model_dump(mode="json"), sort_keys=True)) for name, dim in suite.dimensions.items()
        }

    # -- rules ---------------------------------------------------------------------------------------------
    def _run_rule(self, name: str, params: dict, item: Item, parsed: ParsedResponse) -> RuleResult | Exception:
        try:
            return RULES[name](item, parsed, params)
        except Exception as exc:  # a rule bug must not take the batch down; the item records it
            log.exception("rule %s failed on item %s", name, item.id)
            return exc

    def _rule_score(self, dimension: Dimension, item: Item, parsed: ParsedResponse) -> DimensionScore:
        assert dimension.rule is not None
        result = self._run_rule(dimension.rule.check, dimension.rule.params, item, parsed)
        if isinstance(result, Exception):
            return DimensionScore.unscored(dimension.layer, "rule", "rule_error", explanation=f"{type(result).__name__}: {result}")
        return DimensionScore(score=result.score, layer=dimension.layer, backend="rule", explanation=result.explanation)

    def _prechecks(self, dimension: Dimension, item: Item, parsed: ParsedResponse) -> dict[str, RuleResult]:
        assert dimension.judge is not None
        found = {}
        for name in dimension.judge.prechecks:
            result = self._run_rule(name, {}, item, parsed)
            if isinstance(result, RuleResult):
                found[name] = result
        return found

    # -- judge planning --------------------------------------------------------------------------------------
    def judge_request(self, name: str, item: Item) -> JudgeRequest:
        """The request `score` sends the judge for one (item, judge dimension), prechecks included: what
        `reward rubric preview` renders."""
        dimension = self.suite.dimensions[name]
        parsed = parse_response(self.suite.suite.response_preprocess.apply(item.response))
        return JudgeRequest(dimension, item, parsed, self._prechecks(dimension, item, parsed))

    def _call_key(self, name: str, request: JudgeRequest, context_hash: str) -> str:
        # What the judge's answer depends on: the dimension's declared parts of the response, or all of it for a
        # judge that reads beyond them (`Judge.reads_whole_response`).
        response = request.item.response if self.judge.reads_whole_response else render_response_part(request)
        return _hash(self.judge.identity, self._dimension_hash[name], context_hash, response, json.dumps(
            {rule: result.explanation for rule, result in request.prechecks.items()}, sort_keys=True))

    async def _run_calls(self, requests: dict[str, JudgeRequest]) -> dict[str, JudgeReply]:
        semaphore = asyncio.Semaphore(self.max_concurrency)

        async def run(key: str, request: JudgeRequest) -> tuple[str, JudgeReply]:
            async with semaphore:
                started = time.perf_counter()
                try:
                    reply = await self.judge.judge(request)
                except Exception as exc:  # backends return unscored replies; this guards against their bugs
                    log.exception("judge backend raised on %s/%s", request.item.id, request.dimension.name)
                    reply = JudgeReply.unscored(self.judge.name, "judge_error", explanation=f"{type(exc).__name__}: {exc}")
                if len(self.stats.judge_latencies) < 100_000:
                    self.stats.judge_latencies.append(time.perf_counter() - started)
            self.cache.put(key, reply)
            return key, reply

        done = await asyncio.gather(*(run(key, request) for key, request in requests.items()))
        return dict(done)

    # -- scoring ---------------------------------------------------------------------------------------------
    async def score(self, items: Sequence[Item]) -> list[ItemResult]:
        """Score a batch; one `ItemResult` per item, in order. Never raises for a failed judgment."""
        return self.finish(items, await self.vectors(items))

    async def vectors(self, items: Sequence[Item]) -> list[dict[str, DimensionScore]]:
        """Every item's score vector (rules and judge replies, before aggregation). What `finish` needs, so the
        items of one GRPO group may be scored in parts (on several replicas) and finished together."""
        suite = self.suite
        parsed_by_response: dict[str, ParsedResponse] = {}
        prepare = suite.suite.response_preprocess.apply  # the suite's preprocessing, before parsing only
        parsed = [parsed_by_response.setdefault(item.response, parse_response(prepare(item.response))) for item in items]
        context_hashes: dict[int, str] = {}

        scores: list[dict[str, DimensionScore]] = [{} for _ in items]
        pending: dict[str, JudgeRequest] = {}
        slots: list[tuple[int, str, str]] = []
        cached: dict[str, JudgeReply] = {}

        # Group by group, in first-appearance order, so one group's calls are sent together.
        group_rank: dict[str | None, int] = {}
        order = sorted(range(len(items)), key=lambda i: group_rank.setdefault(items[i].group or f"\x00{i}", len(group_rank)))
        for index in order:
            item, item_parsed = items[index], parsed[index]
            for name, dimension in suite.dimensions.items():
                if dimension.rule is not None:
                    scores[index][name] = self._rule_score(dimension, item, item_parsed)
                    continue
                request = JudgeRequest(dimension, item, item_parsed, self._prechecks(dimension, item, item_parsed))
                context = context_hashes.get(id(item))
                if context is None:
                    context = context_hashes[id(item)] = _hash(render_context(item))
                key = self._call_key(name, request, context)
                request.key = key
                slots.append((index, name, key))
                self.stats.judge_calls_planned += 1
                if key in pending or key in cached:
                    self.stats.judge_calls_deduped += 1
                    continue
                hit = self.cache.get(key)
                if hit is not None:
                    self.stats.judge_cache_hits += 1
                    cached[key] = JudgeReply(**{**hit.__dict__, "cached": True})
                    continue
                pending[key] = request

        self.stats.judge_calls_made += len(pending)
        replies = {**cached, **(await self._run_calls(pending) if pending else {})}
        for index, name, key in slots:
            scores[index][name] = replies[key].to_dimension_score(suite.dimensions[name])
        return scores

    def finish(self, items: Sequence[Item], scores: list[dict[str, DimensionScore]]) -> list[ItemResult]:
        """Aggregate the score vectors of a batch into results. Group statistics (a group's mean for a tolerated
        unscored dimension, and the group mean an invalid item gets) need every item of a group in `items`."""
        group_means = self._group_means(items, scores)
        results = [
            self._assemble(item, vector, group_means.get(item.group, {}) if item.group is not None else {})
            for item, vector in zip(items, scores, strict=True)
        ]
        filled = fill_invalid_rewards([r.reward if r.valid else None for r in results], [i.group for i in items])
        for result, reward in zip(results, filled, strict=True):
            result.reward = reward
        self.stats.items += len(items)
        return results

    @staticmethod
    def _group_means(items: Sequence[Item], scores: list[dict[str, DimensionScore]]) -> dict[str, dict[str, float]]:
        """Mean of each dimension's scored values per GRPO group: what a tolerated unscored dimension is scored as."""
        sums: dict[str, dict[str, list[float]]] = {}
        for item, vector in zip(items, scores, strict=True):
            if item.group is None:
                continue
            for name, score in vector.items():
                if score.status == "ok" and score.score is not None:
                    sums.setdefault(item.group, {}).setdefault(name, []).append(score.score)
        return {group: {name: sum(v) / len(v) for name, v in dims.items()} for group, dims in sums.items()}

    def _assemble(self, item: Item, vector: dict[str, DimensionScore], group_means: dict[str, float]) -> ItemResult:
        """Aggregate one item's vector. Unscored dimensions by the kind of their reason (`reward.schema.reason_kind`):
        structural ones are left out (every response to the interaction alike); response-caused ones count as
        failed (0); infrastructure failures on the bottom line make the item invalid (`finish` gives it its group's
        mean: no penalty for a failure the response did not cause); infrastructure failures on behavioral
        dimensions within the suite's tolerance take their group's mean. Monitor-only dimensions stay in the vector
        as scored and take no part in any of it."""
        suite = self.suite
        bottom_line, behavioral, excluded, missing, failed_behavioral = {}, {}, [], [], []
        monitor = suite.monitor
        for name, score in vector.items():
            if score.status == "unscored":
                self.stats.unscored[score.reason or "unknown"] = self.stats.unscored.get(score.reason or "unknown", 0) + 1
            if name in monitor:
                continue  # monitor-only: logged as scored, whatever its score or status, never aggregated
            if score.status == "unscored":
                kind = reason_kind(score.reason)
                if kind == "structural":
                    excluded.append(name)
                elif kind == "response":
                    # Whatever the response did to go unjudged (a language the interaction does not use, a judge
                    # reply it provoked into nonsense), it is judged as failing: causing a gap never pays.
                    (bottom_line if score.layer == "bottom_line" else behavioral)[name] = 0.0
                    score.explanation = f"{score.explanation + '; ' if score.explanation else ''}scored as failed (0): " \
                                        f"the reason '{score.reason}' is one the response can cause"
                elif score.layer == "behavioral":
                    failed_behavioral.append(name)
                else:
                    missing.append(name)
                continue
            (bottom_line if score.layer == "bottom_line" else behavioral)[name] = score.score

        def invalid(reason: str) -> ItemResult:
            # `finish` replaces the reward with the group's valid mean (advantage zero) before anyone sees it.
            return ItemResult(id=item.id, reward=0.0, valid=False, reason=reason, dimensions=vector, excluded=excluded)

        if missing:
            return invalid("bottom-line unscored: " + ", ".join(f"{name} ({vector[name].reason})" for name in missing))
        # A behavioral call that failed is not dropped from the utility (dropping a weak dimension would raise it).
        # Within the suite's tolerance it takes its group's mean.
        imputable = [name for name in failed_behavioral if name in group_means]
        if failed_behavioral and (len(failed_behavioral) > suite.suite.behavioral_tolerance or len(imputable) < len(failed_behavioral)):
            return invalid("behavioral unscored: " + ", ".join(f"{name} ({vector[name].reason})" for name in failed_behavioral))
        for name in failed_behavioral:
            behavioral[name] = group_means[name]
            vector[name].explanation = (
                f"unscored ({vector[name].reason}); scored as its group's mean {group_means[name]:.3f} within the "
                f"suite's behavioral_tolerance {suite.suite.behavioral_tolerance}"
            )
        if suite.suite.aggregation == "gated" and not any(suite.weight(n) > 0 for n in behavioral):
            return ItemResult(
                id=item.id, reward=0.0, valid=False, reason="no behavioral dimension scored", dimensions=vector, excluded=excluded
            )
        combined = aggregate(suite.suite.aggregation, bottom_line, behavioral, suite.suite.dimensions, suite.suite.delta,
                             suite.suite.gate_exponents, suite.suite.gate_deltas)
        return ItemResult(
            id=item.id, reward=combined.reward, gate=combined.gate, utility=combined.utility, valid=True,
            dimensions=vector, excluded=excluded,
        )

    def score_sync(self, items: Sequence[Item]) -> list[ItemResult]:
        """`score` for callers without an event loop."""
        return asyncio.run(self.score(items))
