"""Per-run, per-step, per-dimension statistics of a score log, and the drill-down samples behind each point.

Runs are keyed by the record's `run` (the trainer's run name), or by suite when a record has none. Steps come from
the record's `step`. Records without one (offline scoring) are bucketed in log order, `UNSTEPPED_BUCKET` records
per bucket, under the run name plus " (no step)" so they never mix with a run's real steps; log order is the
order `read_log` yields, segment by segment, and segment names start with their opening time.

The records are consumed as a stream: a long run's log never sits in memory. Per (run, step) only the numbers are
kept (scores as packed float arrays) plus a bounded set of drill-down candidates per dimension: the lowest-scoring
few (unscored first) and a seeded reservoir sample of a few more. Samples are kept for at most `sample_steps`
steps per run (an evenly thinned set, always including the latest step), so the page stays small for a run of
thousands of steps; the drill-down on a step without samples shows the nearest step that has them.
"""

from __future__ import annotations

import datetime as dt
import heapq
import random
from array import array
from collections import Counter, defaultdict
from collections.abc import Iterable

import numpy as np

from reward.scorelog import ScoreRecord
from reward.scorelog.store import REWARD, SAMPLE_LOWEST as SAMPLES_LOWEST, SAMPLE_RANDOM as SAMPLES_RANDOM
from reward.scorelog.store import TIME_FORMAT, UNSTEPPED_BUCKET, UNSTEPPED_SUFFIX, cascade_counts, cascade_series

SAMPLE_STEPS = 50
EXCERPT_CHARS = 280



def _excerpt(text: str | None, limit: int = EXCERPT_CHARS) -> str:
    text = " ".join((text or "").split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _r(value: float) -> float:
    return round(float(value), 4)


def _answer_of(response: str) -> str:
    if not response:
        return ""
    from reward.format import parse_response

    parsed = parse_response(response)
    return parsed.answer if parsed.answer is not None else response


class _Candidates:
    """Drill-down candidates of one (run, step, channel): the lowest few and a seeded reservoir of the others."""

    __slots__ = ("lowest", "reservoir", "seen")

    def __init__(self):
        # Entries are (item, score) references; excerpts are made at the end, only for the chosen ones.
        self.lowest: list[tuple[float, int, tuple]] = []  # max-heap on rank via negation
        self.reservoir: list[tuple[int, tuple]] = []
        self.seen = 0

    def offer(self, rank: float, seq: int, entry: tuple, rng: random.Random) -> None:
        self.seen += 1
        if len(self.lowest) < SAMPLES_LOWEST or rank < -self.lowest[0][0]:
            item = (-rank, seq, entry)
            if len(self.lowest) < SAMPLES_LOWEST:
                heapq.heappush(self.lowest, item)
            else:
                heapq.heapreplace(self.lowest, item)
        # Reservoir of SAMPLES_LOWEST + SAMPLES_RANDOM so that enough remain after removing the lowest ones.
        size = SAMPLES_LOWEST + SAMPLES_RANDOM
        if len(self.reservoir) < size:
            self.reservoir.append((seq, entry))
        else:
            slot = int(rng.random() * self.seen)
            if slot < size:
                self.reservoir[slot] = (seq, entry)

    def chosen(self) -> list[tuple]:
        lowest = [entry for _, _, entry in sorted(self.lowest, key=lambda t: (-t[0], t[1]))]
        taken = {seq for _, seq, _ in self.lowest}
        extra = [entry for seq, entry in sorted(self.reservoir, key=lambda t: t[0]) if seq not in taken]
        return lowest + extra[:SAMPLES_RANDOM]


def item_ref(record: ScoreRecord) -> tuple:
    """What a sample shows of its item; references only (not the evidence), so evicted candidates free their record."""
    result = record.result
    return (result.id, record.group, result.reward, result.valid, record.item.query if record.item else "",
            record.item.response if record.item else "")


def offer(candidates: dict[str, _Candidates], record: ScoreRecord, seq: int, rng: random.Random) -> None:
    """Offer a record to the drill-down candidates of its step (every dimension and the reward channel)."""
    result = record.result
    item = item_ref(record)
    for name, score in result.dimensions.items():
        candidates[name].offer(-1.0 if score.score is None else score.score, seq, (item, score), rng)
    candidates[REWARD].offer(result.reward, seq, (item, result), rng)


def step_samples(candidates: dict[str, _Candidates]) -> dict:
    """The drill-down samples of one step: per channel the chosen samples, each naming its item by index."""
    return format_samples({channel: offered.chosen() for channel, offered in candidates.items()})


def format_samples(chosen_by_channel: dict[str, list[tuple]]) -> dict:
    """Per channel, the chosen (item ref, dimension score or item result) pairs as the page shows them; an item
    picked by several channels is stored once (`items`) and named by index."""
    items: list[dict] = []
    index_of: dict[int, int] = {}
    channels: dict[str, list[dict]] = {}
    for channel, picked in sorted(chosen_by_channel.items()):
        chosen = []
        for item, verdict in picked:
            key = id(item)
            if key not in index_of:
                index_of[key] = len(items)
                items.append(_item_entry(item))
            sample = _reward_sample(verdict) if channel == REWARD else _dimension_sample(verdict)
            # Empty fields are left out: a long run's page carries thousands of samples.
            chosen.append({**{k: v for k, v in sample.items() if v not in (None, [], "")}, "item": index_of[key]})
        channels[channel] = chosen
    return {"channels": channels, "items": items}


def sample_step(records: Iterable[ScoreRecord], seed: int = 0) -> dict:
    """The drill-down samples of one step's records (the lowest few per channel and a seeded random few)."""
    rng = random.Random(seed)
    candidates: dict[str, _Candidates] = defaultdict(_Candidates)
    for seq, record in enumerate(records):
        offer(candidates, record, seq, rng)
    return step_samples(candidates)


class _Step:
    __slots__ = ("count", "valid", "reward", "gate", "utility", "scores", "seen", "unscored", "candidates", "time",
                 "cascade")

    def __init__(self, sampled: bool):
        self.time = None
        self.count = 0
        self.valid = 0
        self.reward, self.gate, self.utility = array("d"), array("d"), array("d")
        self.scores: dict[str, array] = defaultdict(lambda: array("d"))
        self.seen: Counter = Counter()  # dimension -> scores seen (scored or not)
        self.unscored: dict[str, Counter] = defaultdict(Counter)  # dimension -> reason -> count
        self.candidates: dict[str, _Candidates] | None = defaultdict(_Candidates) if sampled else None
        self.cascade: dict[str, list[int]] = {}  # dimension -> CASCADE_COUNTS of the scores a cascade routed


class _Run:
    def __init__(self):
        self.steps: dict[int, _Step] = {}
        self.suites: set[str] = set()
        self.arrivals = 0
        self.stride = 1
        self.latest: int | None = None

    def step(self, step: int, sample_steps: int) -> _Step:
        current = self.steps.get(step)
        if current is None:
            previous_latest = self.latest
            if self.latest is None or step > self.latest:
                self.latest = step
            current = self.steps[step] = _Step(sampled=step % self.stride == 0 or step == self.latest)
            if previous_latest is not None and previous_latest != self.latest:
                self._drop_unless_on_stride(previous_latest)
            self._thin(sample_steps)
        return current

    def _drop_unless_on_stride(self, step: int) -> None:
        if step % self.stride and step != self.latest:
            self.steps[step].candidates = None

    def _thin(self, sample_steps: int) -> None:
        # Doubling the stride halves the sampled steps; the latest step always keeps its samples.
        while sum(1 for s in self.steps.values() if s.candidates is not None) > sample_steps:
            self.stride *= 2
            for step in self.steps:
                self._drop_unless_on_stride(step)


class Summary:
    """Consumes score records one by one; `result()` gives everything the dashboard draws as JSON-ready data."""

    def __init__(self, *, seed: int = 0, sample_steps: int = SAMPLE_STEPS):
        if sample_steps < 1:
            raise ValueError(f"sample_steps must be at least 1, got {sample_steps}")
        self.rng = random.Random(seed)
        self.sample_steps = sample_steps
        self.runs: dict[str, _Run] = defaultdict(_Run)
        self.layers: dict[str, str] = {}
        self.records = 0

    def add(self, record: ScoreRecord) -> None:
        base = record.run or record.suite
        if record.step is None:
            run = self.runs[base + UNSTEPPED_SUFFIX]
            step_number = run.arrivals // UNSTEPPED_BUCKET
        else:
            run = self.runs[base]
            step_number = record.step
        run.arrivals += 1
        run.suites.add(record.suite)
        step = run.step(step_number, self.sample_steps)
        seq = self.records
        self.records += 1
        result = record.result
        step.count += 1
        step.time = record.time if step.time is None else max(step.time, record.time)
        step.valid += bool(result.valid)
        step.reward.append(result.reward)
        if result.gate is not None:
            step.gate.append(result.gate)
        if result.utility is not None:
            step.utility.append(result.utility)
        for name, score in result.dimensions.items():
            self.layers.setdefault(name, score.layer)
            step.seen[name] += 1
            if score.score is None:
                step.unscored[name][score.reason or "unknown"] += 1
            else:
                step.scores[name].append(score.score)
        for name, counts in cascade_counts([result]).items():
            step.cascade[name] = [a + b for a, b in zip(step.cascade.get(name, [0] * len(counts)), counts, strict=True)]
        if step.candidates is not None:
            offer(step.candidates, record, seq, self.rng)

    def result(self) -> dict:
        runs = {name: {**_finish(run), "unstepped": name.endswith(UNSTEPPED_SUFFIX)}
                for name, run in sorted(self.runs.items())}
        return {"runs": runs, "layers": self.layers, "records": self.records}


def _item_entry(item: tuple) -> dict:
    key, group, reward, valid, query, response = item
    return {"id": key, "group": group, "reward": _r(reward), "valid": valid, "query": _excerpt(query),
            "answer": _excerpt(_answer_of(response))}


def _dimension_sample(score) -> dict:
    return {
        "score": score.score, "status": score.status, "reason": score.reason, "backend": score.backend,
        "label": score.label, "explanation": _excerpt(score.explanation, 300),
        "quotes": [{"doc": q.doc, "text": _excerpt(q.text, 120), "verified": q.verified} for q in score.quotes[:2]],
    }


def _reward_sample(result) -> dict:
    scored = sorted((s.score, n) for n, s in result.dimensions.items() if s.score is not None)
    unscored = [n for n, s in result.dimensions.items() if s.score is None]
    parts = []
    if result.gate is not None:
        parts.append(f"gate {result.gate:.3f} · utility {result.utility if result.utility is not None else float('nan'):.3f}")
    parts.append("lowest: " + ", ".join(f"{n} {v:.2f}" for v, n in scored[:3]))
    if unscored:
        parts.append("unscored: " + ", ".join(unscored))
    return {
        "score": _r(result.reward), "status": "ok" if result.valid else "invalid", "reason": result.reason,
        "backend": "aggregate", "label": None, "explanation": " · ".join(parts), "quotes": [],
    }


def _stats(values: array) -> tuple[float | None, float | None, float | None]:
    if not values:
        return None, None, None
    data = np.frombuffer(values, dtype=np.float64)
    p10, p90 = np.percentile(data, [10, 90])
    return _r(data.mean()), _r(p10), _r(p90)


def _finish(run: _Run) -> dict:
    ordered = sorted(run.steps)
    steps = [run.steps[s] for s in ordered]
    curves = {}
    for key in ("reward", "gate", "utility"):
        triples = [_stats(getattr(s, key)) for s in steps]
        curves[key] = {"mean": [t[0] for t in triples], "p10": [t[1] for t in triples], "p90": [t[2] for t in triples]}
    names = sorted({name for s in steps for name in s.seen})
    dimensions = {}
    for name in names:
        triples = [_stats(s.scores[name]) if name in s.scores else (None, None, None) for s in steps]
        reasons = sorted({reason for s in steps for reason in s.unscored.get(name, {})})
        arrays = [np.frombuffer(s.scores[name], dtype=np.float64) for s in steps if name in s.scores]
        # A pass/fail judge's p10-p90 band is [0, 1] or a point: the page draws its mean as a pass rate instead.
        binary = bool(arrays) and all(bool(np.all((a == 0) | (a == 1))) for a in arrays)
        dimensions[name] = {
            "binary": binary,
            "mean": [t[0] for t in triples], "p10": [t[1] for t in triples], "p90": [t[2] for t in triples],
            "count": [len(s.scores[name]) if name in s.scores else 0 for s in steps],
            "seen": [s.seen[name] for s in steps],
            "unscored": {reason: [s.unscored[name][reason] if name in s.unscored else 0 for s in steps]
                         for reason in reasons},
        }
    # Unscored share of all dimension scores of a step, by reason.
    totals = [sum(s.seen.values()) for s in steps]
    by_reason: dict[str, list[float]] = {}
    for position, s in enumerate(steps):
        for counts in s.unscored.values():
            for reason, count in counts.items():
                by_reason.setdefault(reason, [0.0] * len(steps))[position] += count
    unscored = {reason: [_r(c / n) if n else 0.0 for c, n in zip(counts, totals, strict=True)]
                for reason, counts in sorted(by_reason.items())}
    # Drill-down samples of the sampled steps, each step with its own item excerpts.
    samples = {str(number): step_samples(s.candidates) for number, s in zip(ordered, steps, strict=True)
               if s.candidates is not None}
    return {
        "steps": ordered,
        "items": [s.count for s in steps],
        "suites": sorted(run.suites),
        "curves": curves,
        "valid_rate": [_r(s.valid / s.count) for s in steps],
        "time": [s.time.astimezone(dt.UTC).strftime(TIME_FORMAT) for s in steps],
        "unscored": unscored,
        "dimensions": dimensions,
        "cascade": cascade_series([s.cascade for s in steps]),
        "step_samples": samples,
        "sampled_steps": [n for n, s in zip(ordered, steps, strict=True) if s.candidates is not None],
    }


def summarise(records: Iterable[ScoreRecord], seed: int = 0, sample_steps: int = SAMPLE_STEPS) -> dict:
    """Everything the dashboard draws, as plain JSON-ready data (the records are read once, as a stream)."""
    summary = Summary(seed=seed, sample_steps=sample_steps)
    for record in records:
        summary.add(record)
    return summary.result()
