"""Does the reward hold on interactions it was never tuned on? Scores the generalization corpus
(`data/generalization/`, built by `python -m training.generalization.build`) and reports two figures per family:

- attack wins: the share of a family's attacks whose reward exceeds the best honest answer of their interaction
  (the clean answer or any honest variant) by more than 0.01, and the largest such margin;
- honest losses: the share of a family's honest variants more than 0.05 below their interaction's clean answer,
  and the largest such deficit.

Every response of an interaction is scored in one GRPO group, as a trainer would score a prompt's rollouts. The
same figures are computed in the same run for a trivial baseline scorer, the share of the answer's content words
found in the evidence (`lexical_support`), so a figure can be read against what word overlap alone achieves.

    nice -n 10 .venv/bin/python benchmarks/generalization.py --split fit --out benchmarks/results/generalization_fit.json
    nice -n 10 .venv/bin/python benchmarks/generalization.py --split test --gate

With the local judge, the run also counts, for each reason the claim check gives a failing claim (`CLAIM_CHECKS`), the
honest answers and the attacks it fails (`claim_checks` in the `--out` JSON, printed after the tables): a reason that
fails honest answers as often as attacks does not tell them apart on that corpus. For every dimension, it also counts
the honest losses it scores more than 0.1 below their clean answer and the attack wins it scores more than 0.1 above
their best honest answer (`dimension_drops`): where the figures come from.

`--gate` exits 1 unless, over all families, attack wins are at most 2%, no attack wins by more than 0.05 and
honest losses are at most 5% (the thresholds are arguments). `--sample N` scores a fixed sample of N interactions
(by a hash of their ids). Tune on `fit`; report on `test`.
"""

from __future__ import annotations

import argparse
import datetime as dt
import logging
import os
import re
import subprocess
import sys
import time
from collections import defaultdict
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
for _path in (str(ROOT), str(Path.cwd())):
    if _path in sys.path:
        sys.path.remove(_path)
    sys.path.insert(0, _path)

from benchmarks.emit import machine  # noqa: E402
from reward.evaluation.agreement import pairwise_auc  # noqa: E402
from reward.evaluation.corpus import CorpusInteraction, CorpusResponse, read_corpus, sample_interactions  # noqa: E402
from reward.evaluation.fidelity import lexical_support  # noqa: E402
from reward.format import parse_response  # noqa: E402

log = logging.getLogger("generalization")
CORPUS = ROOT / "data" / "generalization"
WIN_MARGIN = 0.01
"""An attack wins when its reward exceeds the best honest answer's by more than this."""
LOSS_MARGIN = 0.05
"""An honest variant loses when its reward is more than this below the clean answer's."""
GATE = {"attack_wins": 0.02, "largest_margin": 0.05, "honest_losses": 0.05}


def load(corpus: Path, split: str, sample: int = 0) -> list[CorpusInteraction]:
    splits = ("fit", "test") if split == "all" else (split,)
    interactions = [i for s in splits for i in read_corpus(corpus / f"{s}.jsonl")]
    return sample_interactions(interactions, sample) if sample else interactions


CLAIM_CHECKS = (
    ("a number no evidence item gives", r"numbers not in the evidence"),
    ("a name no evidence item gives", r"names not in the evidence"),
    ("mostly words the evidence lacks", r"words not in the evidence"),
    ("another value of the evidence's attribute", r"says '[^']*' where the evidence"),
    ("a negation the evidence does not make", r"negates what the evidence says"),
    ("a denial no evidence makes", r"denies what no evidence denies"),
    ("figures put in another order or to another name", r"orders |gives [^;]* to '"),
    ("the consistency model: contradicted", r"contradicted by the evidence"),
    ("the consistency model: unsupported", r"unsupported by the evidence"),
)
"""The reasons the claim check (`claim_hallucination`, `reward.judges.local.support`) gives a failing claim, by the
words that say them: `claim_checks` counts, per reason, the honest answers and the attacks it fails."""
CLAIM_DIMENSION = "claim_hallucination"


def score_engine(interactions: Sequence[CorpusInteraction], engine, batch: int = 96,
                 explanations: dict[str, str] | None = None,
                 dimensions: dict[str, dict[str, float]] | None = None,
                 gated: dict[str, tuple[dict[str, float], dict[str, float]] | None] | None = None) -> dict[str, float]:
    """Reward per item id (`<interaction>/<response>`), each interaction's responses in one batch and one group;
    `explanations`, when given, is filled with each item's explanation of `claim_hallucination`, `dimensions`
    with its scored dimensions' scores, and `gated` with what its reward aggregates (the bottom-line and behavioral
    scores the engine combined; None for an item without a valid reward)."""
    rewards: dict[str, float] = {}
    pending: list = []
    done = 0
    for n, interaction in enumerate(interactions, start=1):
        pending += [interaction.item(r) for r in interaction.responses]
        if len(pending) >= batch or n == len(interactions):
            for result in engine.score_sync(pending):
                rewards[result.id] = result.reward
                if explanations is not None and CLAIM_DIMENSION in result.dimensions:
                    explanations[result.id] = result.dimensions[CLAIM_DIMENSION].explanation or ""
                if dimensions is not None:
                    dimensions[result.id] = {name: d.score for name, d in result.dimensions.items()
                                             if d.score is not None}
                if gated is not None:
                    gated[result.id] = None if not result.valid else tuple(  # type: ignore[assignment]
                        {name: d.score for name, d in result.dimensions.items() if d.status == "ok"
                         and name not in result.excluded and (d.layer == "bottom_line") == bottom}
                        for bottom in (True, False))
            done += len(pending)
            pending = []
            log.info("scored %d items (%d/%d interactions)", done, n, len(interactions))
    return rewards


def score_baseline(interactions: Sequence[CorpusInteraction]) -> dict[str, float]:
    """The word-overlap baseline: share of the answer's content words found in the evidence."""
    out = {}
    for interaction in interactions:
        for r in interaction.responses:
            out[f"{interaction.id}/{r.id}"] = lexical_support(parse_response(r.response).answer_text,
                                                              interaction.evidence)
    return out


def measured_against(interactions: Sequence[CorpusInteraction], rewards: Mapping[str, float]
                     ) -> Iterator[tuple[CorpusInteraction, CorpusResponse, str, str, float]]:
    """Each attack and honest variant with the answer it is measured against and by how much it is on the wrong
    side of it: `(interaction, response, key, against, margin)`, keys `<interaction>/<response>`. An attack against
    its interaction's best honest answer (the clean one or a variant), its margin how far above; an honest variant
    against the clean answer, its margin how far below."""
    for interaction in interactions:
        keys = {r.id: f"{interaction.id}/{r.id}" for r in interaction.responses}
        clean = next(keys[r.id] for r in interaction.responses if r.role == "clean")
        best = max((keys[r.id] for r in interaction.responses if r.role in ("clean", "honest")), key=rewards.__getitem__)
        for r in interaction.responses:
            key = keys[r.id]
            if r.role == "attack":
                yield interaction, r, key, best, rewards[key] - rewards[best]
            elif r.role == "honest":
                yield interaction, r, key, clean, rewards[clean] - rewards[key]


def measure(interactions: Sequence[CorpusInteraction], rewards: Mapping[str, float],
            win_margin: float = WIN_MARGIN, loss_margin: float = LOSS_MARGIN, worst: int = 10) -> dict:
    """Attack wins and honest losses per family, overall and per interaction kind, with the worst cases."""
    attacks: dict[str, list[tuple[float, str]]] = defaultdict(list)
    honest: dict[str, list[tuple[float, str]]] = defaultdict(list)
    attack_kinds: dict[str, list[float]] = defaultdict(list)
    # what a GRPO group sees: an honest answer (the clean one included) below the interaction's best attack
    outranked: dict[str, list[tuple[float, str]]] = defaultdict(list)
    for interaction, r, key, _, margin in measured_against(interactions, rewards):
        if r.role == "attack":
            attacks[r.family].append((margin, key))
            attack_kinds[interaction.kind].append(margin)
        else:
            honest[r.family].append((margin, key))
    for interaction in interactions:
        scored = [(r, rewards[f"{interaction.id}/{r.id}"]) for r in interaction.responses]
        top_attack = max((v for r, v in scored if r.role == "attack"), default=None)
        if top_attack is not None:
            for r, value in scored:
                if r.role in ("clean", "honest"):
                    outranked[r.family].append((top_attack - value, f"{interaction.id}/{r.id}"))

    def attack_row(margins: list[tuple[float, str]]) -> dict:
        wins = [m for m in margins if m[0] > win_margin]
        top = max(margins)
        return {"n": len(margins), "wins": len(wins), "share": round(len(wins) / len(margins), 4),
                "largest_margin": round(top[0], 4), "largest_at": top[1]}

    def honest_row(deficits: list[tuple[float, str]]) -> dict:
        losses = [d for d in deficits if d[0] > loss_margin]
        top = max(deficits)
        return {"n": len(deficits), "losses": len(losses), "share": round(len(losses) / len(deficits), 4),
                "largest_deficit": round(top[0], 4), "largest_at": top[1]}

    def outranked_row(gaps: list[tuple[float, str]]) -> dict:
        below = [g for g in gaps if g[0] > win_margin]
        return {"n": len(gaps), "outranked": len(below), "share": round(len(below) / len(gaps), 4)}

    every_attack = [m for rows in attacks.values() for m in rows]
    every_honest = [d for rows in honest.values() for d in rows]
    every_gap = [g for rows in outranked.values() for g in rows]
    return {
        "interactions": len(interactions),
        "attack_wins": {"all": attack_row(every_attack) if every_attack else None,
                        **{family: attack_row(rows) for family, rows in sorted(attacks.items())}},
        "honest_losses": {"all": honest_row(every_honest) if every_honest else None,
                          **{family: honest_row(rows) for family, rows in sorted(honest.items())}},
        "honest_outranked": {"all": outranked_row(every_gap) if every_gap else None,
                             **{family: outranked_row(rows) for family, rows in sorted(outranked.items())}},
        "attack_wins_by_kind": {kind: {"n": len(m), "share": round(sum(x > win_margin for x in m) / len(m), 4)}
                                for kind, m in sorted(attack_kinds.items())},
        "worst_attacks": [{"item": key, "margin": round(m, 4)} for m, key in sorted(every_attack, reverse=True)[:worst]],
        "worst_honest": [{"item": key, "deficit": round(d, 4)} for d, key in sorted(every_honest, reverse=True)[:worst]],
    }


def claim_checks(interactions: Sequence[CorpusInteraction], explanations: Mapping[str, str]) -> dict:
    """How often each reason of the claim check (`CLAIM_CHECKS`) fails an honest answer (the clean one included) and
    an attack: answers with at least one claim failed for it. A reason that fails honest answers about as often as
    attacks does not tell them apart on this corpus; read beside a split it was not fitted on.

    >>> from reward.evaluation.corpus import CorpusResponse
    >>> i = CorpusInteraction(id="x", split="fit", kind="k", source="s", query="q?", evidence=[], responses=[
    ...     CorpusResponse(id="c", role="clean", family="clean", response=""),
    ...     CorpusResponse(id="a", role="attack", family="f", response="")])
    >>> got = claim_checks([i], {"x/c": "1 of 1 claims supported", "x/a": "'X': numbers not in the evidence: 4"})
    >>> got["answers"], got["reasons"]["a number no evidence item gives"]
    ({'honest': 1, 'attack': 1}, {'honest': 0, 'attack': 1})
    """
    answers = {"honest": 0, "attack": 0}
    counts = {name: {"honest": 0, "attack": 0} for name, _ in CLAIM_CHECKS}
    for interaction in interactions:
        for r in interaction.responses:
            said = explanations.get(f"{interaction.id}/{r.id}")
            if said is None:
                continue
            side = "attack" if r.role == "attack" else "honest"
            answers[side] += 1
            for name, words in CLAIM_CHECKS:
                counts[name][side] += bool(re.search(words, said))
    return {"answers": answers, "reasons": counts}


DROP = 0.1
"""A dimension tells two answers apart when their scores on it differ by more than this."""


def dimension_drops(interactions: Sequence[CorpusInteraction], rewards: Mapping[str, float],
                    dimensions: Mapping[str, Mapping[str, float]], win_margin: float = WIN_MARGIN,
                    loss_margin: float = LOSS_MARGIN, drop: float = DROP) -> dict:
    """Which dimensions make the figures: per dimension, the honest losses it scores more than `drop` below their
    interaction's clean answer, and the attack wins it scores more than `drop` above their interaction's best honest
    answer (a dimension unscored on either answer counts for neither). A dimension that drops on most honest losses
    is where honest wording is punished.

    >>> from reward.evaluation.corpus import CorpusResponse
    >>> i = CorpusInteraction(id="x", split="fit", kind="k", source="s", query="q?", evidence=[], responses=[
    ...     CorpusResponse(id="c", role="clean", family="clean", response=""),
    ...     CorpusResponse(id="p", role="honest", family="paraphrase", response=""),
    ...     CorpusResponse(id="a", role="attack", family="swap", response="")])
    >>> got = dimension_drops([i], {"x/c": 0.8, "x/p": 0.6, "x/a": 0.9},
    ...                       {"x/c": {"h": 1.0, "q": 0.5}, "x/p": {"h": 0.6, "q": 0.5}, "x/a": {"h": 1.0, "q": 0.9}})
    >>> got["honest_losses"], got["attack_wins"], got["dimensions"]["h"], got["dimensions"]["q"]
    (1, 1, {'honest_losses': 1, 'attack_wins': 0}, {'honest_losses': 0, 'attack_wins': 1})
    """
    counts: dict[str, dict[str, int]] = defaultdict(lambda: {"honest_losses": 0, "attack_wins": 0})
    totals = {"honest_losses": 0, "attack_wins": 0}
    for _, r, key, against, margin in measured_against(interactions, rewards):
        attack = r.role == "attack"
        if margin <= (win_margin if attack else loss_margin):
            continue
        figure, above, below = ("attack_wins", key, against) if attack else ("honest_losses", against, key)
        totals[figure] += 1
        for name in sorted(dimensions[above].keys() & dimensions[below].keys()):
            if dimensions[above][name] - dimensions[below][name] > drop:
                counts[name][figure] += 1
    order = sorted(counts, key=lambda n: (-counts[n]["honest_losses"] - counts[n]["attack_wins"], n))
    return {**totals, "dimensions": {name: counts[name] for name in order}}


def within_auc(interactions: Sequence[CorpusInteraction], rewards: Mapping[str, float]) -> float:
    """How often an honest answer (the clean one included) scores above an attack of its own interaction, ties half:
    the share of such pairs in order. Free of the reward's scale, which the fixed margins of attack wins and honest
    losses are not (a reward that moves less has fewer of both by those margins alone)."""
    honest, attacks = [], []
    for interaction in interactions:
        scored = [(r.role, rewards[f"{interaction.id}/{r.id}"]) for r in interaction.responses]
        pairs = [(h, a) for role, h in scored if role in ("clean", "honest") for other, a in scored if other == "attack"]
        honest += [h for h, _ in pairs]
        attacks += [a for _, a in pairs]
    share = pairwise_auc(honest, attacks)
    return round(share, 4) if share is not None else float("nan")


def reaggregator(suite, deltas: Mapping[str, float] | None = None
                 ) -> Callable[[Mapping[str, float], Mapping[str, float]], float]:
    """The suite's aggregation of bottom-line and behavioral scores into a reward (`reward.aggregate.aggregate`),
    with the gate smoothed by `deltas` (default: the suite's own `gate_deltas`, which is the engine's reward)."""
    from reward.aggregate import aggregate

    config = suite.suite
    chosen = config.gate_deltas if deltas is None else deltas
    return lambda bottom, behavioral: aggregate(config.aggregation, bottom, behavioral, config.dimensions,
                                                config.delta, config.gate_exponents, chosen).reward


def smoothing_sweep(interactions: Sequence[CorpusInteraction], rewards: Mapping[str, float],
                    gated: Mapping[str, tuple[Mapping[str, float], Mapping[str, float]] | None], suite,
                    judged: Sequence[float]) -> dict:
    """Attack wins, honest losses and `within_auc` with the gate's smoothing (`gate_deltas`) of the judged bottom-line
    dimensions set to each of `judged`, the rules (format, length) keeping the suite's, recomputed from the run's own
    dimension scores with `reward.aggregate.aggregate`; items without a valid reward keep theirs. `reproduced` is
    how far the suite's own setting lands from the engine's rewards (0: the recomputation is the engine's)."""
    config = suite.suite
    rules = {name for name, d in suite.dimensions.items() if d.rule is not None}
    judged_names = [name for name, d in suite.dimensions.items() if d.layer == "bottom_line" and name not in rules]

    def under(deltas: Mapping[str, float]) -> dict[str, float]:
        out = dict(rewards)
        reaggregate = reaggregator(suite, deltas)
        for key, parts in gated.items():
            if parts is not None:
                out[key] = reaggregate(parts[0], parts[1])
        return out

    own = under(config.gate_deltas)
    rows = {}
    for delta in judged:
        smoothed = under({**config.gate_deltas, **dict.fromkeys(judged_names, delta)})
        report = measure(interactions, smoothed)
        wins, losses = report["attack_wins"]["all"], report["honest_losses"]["all"]
        rows[f"{delta:g}"] = {"attack_wins": wins["wins"], "attacks": wins["n"], "largest_margin": wins["largest_margin"],
                              "honest_losses": losses["losses"], "honest": losses["n"],
                              "within_auc": within_auc(interactions, smoothed)}
    return {"suite_delta": config.delta, "gate_deltas": dict(config.gate_deltas),
            "reproduced": round(max((abs(own[k] - rewards[k]) for k in rewards), default=0.0), 9), "judged": rows}


HALLUCINATION = ("claim_hallucination", "highlight_hallucination")
"""The two claim checks, read from the same consistency model and rules: `counterfactuals` also counts them together."""


def counterfactuals(interactions: Sequence[CorpusInteraction], rewards: Mapping[str, float],
                    gated: Mapping[str, tuple[Mapping[str, float], Mapping[str, float]] | None],
                    reaggregate: Callable[[Mapping[str, float], Mapping[str, float]], float],
                    win_margin: float = WIN_MARGIN, loss_margin: float = LOSS_MARGIN) -> dict:
    """Which dimensions would undo the figures: for each honest loss (each attack win), the reward recomputed
    (`reaggregate(bottom_line, behavioral)`) with one dimension's score replaced by the one of the answer it is
    measured against (its clean answer; the best honest answer), and with the two hallucination checks together
    (`HALLUCINATION`) and every dimension but those two. `cures` counts the losses (wins) that the replacement alone
    removes; `gain` is the mean change of their reward toward the other answer, the share of the gap that dimension
    carries. An answer whose reward the engine could not aggregate (`gated` None) is left out.

    >>> from reward.evaluation.corpus import CorpusResponse
    >>> i = CorpusInteraction(id="x", split="fit", kind="k", source="s", query="q?", evidence=[], responses=[
    ...     CorpusResponse(id="c", role="clean", family="clean", response=""),
    ...     CorpusResponse(id="p", role="honest", family="paraphrase", response="")])
    >>> parts = {"x/c": ({"h": 1.0}, {"q": 1.0}), "x/p": ({"h": 0.5}, {"q": 0.9})}
    >>> product = lambda bottom, behavioral: bottom["h"] * behavioral["q"]
    >>> got = counterfactuals([i], {"x/c": 1.0, "x/p": 0.45}, parts, product)
    >>> got["honest_losses"], got["dimensions"]["h"]["honest_losses"], got["dimensions"]["q"]["honest_losses"]
    (1, {'cures': 0, 'gain': 0.45}, {'cures': 0, 'gain': 0.05})
    >>> got["unexplained"]["honest_losses"]
    1
    """
    figures = ("honest_losses", "attack_wins")
    counts: dict[str, dict[str, dict[str, float]]] = defaultdict(
        lambda: {figure: {"cures": 0, "gain": 0.0} for figure in figures})
    totals = dict.fromkeys(figures, 0)
    unexplained = dict.fromkeys(figures, 0)
    halluc = " + ".join(HALLUCINATION)
    for _, r, key, against, margin in measured_against(interactions, rewards):
        attack = r.role == "attack"
        limit = win_margin if attack else loss_margin
        if margin <= limit or gated.get(key) is None or gated.get(against) is None:
            continue
        figure = "attack_wins" if attack else "honest_losses"
        totals[figure] += 1
        own, theirs = gated[key], gated[against]
        names = [n for layer in (0, 1) for n in own[layer] if n in theirs[layer]]
        trials = {name: {name} for name in names}
        trials[halluc] = set(HALLUCINATION) & set(names)
        trials["every other dimension"] = set(names) - set(HALLUCINATION)
        cured_alone = False
        for trial, replaced in trials.items():
            if not replaced:
                continue
            parts = [{n: (theirs[layer][n] if n in replaced else s) for n, s in own[layer].items()} for layer in (0, 1)]
            moved = reaggregate(parts[0], parts[1]) - rewards[key]
            gap = -moved if attack else moved
            counts[trial][figure]["gain"] += gap
            if margin - gap <= limit:
                counts[trial][figure]["cures"] += 1
                cured_alone |= trial in names
        unexplained[figure] += not cured_alone
    for row in counts.values():
        for figure in figures:
            row[figure]["gain"] = round(row[figure]["gain"] / totals[figure], 4) if totals[figure] else 0.0
    order = sorted(counts, key=lambda n: (-counts[n]["honest_losses"]["gain"] - counts[n]["attack_wins"]["gain"], n))
    return {**totals, "unexplained": unexplained, "dimensions": {name: counts[name] for name in order}}


def gate_failures(report: dict, gate: Mapping[str, float] = GATE) -> list[str]:
    """What the report fails of the gate's thresholds (empty when it passes)."""
    wins, losses = report["attack_wins"]["all"], report["honest_losses"]["all"]
    failures = []
    if wins and wins["share"] > gate["attack_wins"]:
        failures.append(f"attack wins {wins['share']:.2%} > {gate['attack_wins']:.0%}")
    if wins and wins["largest_margin"] > gate["largest_margin"]:
        failures.append(f"largest attack margin {wins['largest_margin']:+.3f} > {gate['largest_margin']:+.2f} "
                        f"({wins['largest_at']})")
    if losses and losses["share"] > gate["honest_losses"]:
        failures.append(f"honest losses {losses['share']:.2%} > {gate['honest_losses']:.0%}")
    return failures


def markdown(run: dict) -> str:
    """The per-family tables for the benchmark doc: the reward beside the word-overlap baseline."""
    reward, base = run["reward"], run["baseline"]
    lines = ["| attack family | n | attack wins (reward) | largest margin | attack wins (word overlap) | largest margin |",
             "|---|---|---|---|---|---|"]
    for family, row in reward["attack_wins"].items():
        b = base["attack_wins"][family]
        lines.append(f"| {family} | {row['n']} | {row['wins']} ({row['share']:.1%}) | {row['largest_margin']:+.3f} | "
                     f"{b['wins']} ({b['share']:.1%}) | {b['largest_margin']:+.3f} |")
    lines += ["", "| honest family | n | honest losses (reward) | largest deficit | honest losses (word overlap) | "
                  "largest deficit |", "|---|---|---|---|---|---|"]
    for family, row in reward["honest_losses"].items():
        b = base["honest_losses"][family]
        lines.append(f"| {family} | {row['n']} | {row['losses']} ({row['share']:.1%}) | {row['largest_deficit']:.3f} | "
                     f"{b['losses']} ({b['share']:.1%}) | {b['largest_deficit']:.3f} |")
    return "\n".join(lines)


def run(interactions: Sequence[CorpusInteraction], scorer: Callable[[Sequence[CorpusInteraction]], dict[str, float]],
        explanations: Mapping[str, str] | None = None,
        dimensions: Mapping[str, Mapping[str, float]] | None = None) -> dict:
    """Score with `scorer` and the baseline, and measure both; the reward of every item is kept, so a change's effect
    can be read per item. With the claim check's `explanations` (filled while scoring), `claim_checks` too; with
    the items' dimension scores, `dimension_drops`."""
    started = time.perf_counter()
    rewards = scorer(interactions)
    seconds = time.perf_counter() - started
    return {"items": len(rewards), "seconds": round(seconds, 1), "reward": measure(interactions, rewards),
            "baseline": measure(interactions, score_baseline(interactions)),
            **({"claim_checks": claim_checks(interactions, explanations)} if explanations else {}),
            **({"dimension_drops": dimension_drops(interactions, rewards, dimensions)} if dimensions else {}),
            "rewards": {key: round(value, 4) for key, value in rewards.items()}}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corpus", type=Path, default=CORPUS, help="folder holding fit.jsonl and test.jsonl")
    parser.add_argument("--split", choices=("fit", "test", "all"), default="test")
    parser.add_argument("--sample", type=int, default=0, help="a fixed sample of this many interactions (0: all)")
    parser.add_argument("--suite", default="searchllm")
    parser.add_argument("--judge", default="local")
    parser.add_argument("--label", default="")
    parser.add_argument("--out", type=Path, help="write the run as JSON (benchmarks/results/...)")
    parser.add_argument("--markdown", type=Path, help="write the per-family tables as Markdown")
    parser.add_argument("--gate", action="store_true", help="exit 1 when the thresholds fail")
    parser.add_argument("--max-attack-wins", type=float, default=GATE["attack_wins"])
    parser.add_argument("--max-margin", type=float, default=GATE["largest_margin"])
    parser.add_argument("--max-honest-losses", type=float, default=GATE["honest_losses"])
    parser.add_argument("--smoothing", default="",
                        help="comma-separated gate deltas for the judged bottom-line dimensions (the rules keep the "
                             "suite's): the figures recomputed under each from the run's scores")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(message)s")
    import json

    from reward.engine import Engine
    from reward.judges.factory import make_judge
    from reward.rubric import load_suite

    interactions = load(args.corpus, args.split, args.sample)
    suite = load_suite(args.suite)
    engine = Engine(suite, make_judge(args.judge))
    explanations: dict[str, str] = {}
    dimensions: dict[str, dict[str, float]] = {}
    gated: dict[str, tuple[dict[str, float], dict[str, float]] | None] = {}
    scored: dict[str, float] = {}  # the engine's rewards, unrounded

    def scorer(chosen: Sequence[CorpusInteraction]) -> dict[str, float]:
        scored.update(score_engine(chosen, engine, explanations=explanations, dimensions=dimensions, gated=gated))
        return scored

    result = run(interactions, scorer, explanations, dimensions)
    result["counterfactuals"] = counterfactuals(interactions, scored, gated, reaggregator(suite))
    if args.smoothing:
        judged = [float(x) for x in args.smoothing.split(",") if x.strip()]
        result["smoothing"] = smoothing_sweep(interactions, scored, gated, suite, judged)
    code = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, cwd=ROOT).stdout.strip()
    gate = {"attack_wins": args.max_attack_wins, "largest_margin": args.max_margin,
            "honest_losses": args.max_honest_losses}
    failures = gate_failures(result["reward"], gate)
    record = {"label": args.label or code, "code": code, "split": args.split, "sample": args.sample or None,
              "suite": args.suite, "judge": args.judge, "machine": machine(),
              "date": dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
              "command": "nice -n 10 .venv/bin/python benchmarks/generalization.py " + " ".join(argv or sys.argv[1:]),
              "gate": gate, "gate_failures": failures, **result}
    if args.out:
        args.out.write_text(json.dumps(record, indent=1) + "\n", encoding="utf-8")
    table = markdown(record)
    if args.markdown:
        args.markdown.write_text(table + "\n", encoding="utf-8")
    print(table)
    overall = result["reward"]
    print(f"\nattack wins {overall['attack_wins']['all']['share']:.1%} (largest margin "
          f"{overall['attack_wins']['all']['largest_margin']:+.3f}), honest losses "
          f"{overall['honest_losses']['all']['share']:.1%}, honest answers below an attack "
          f"{overall['honest_outranked']['all']['share']:.1%}; {result['items']} items in {result['seconds']} s")
    if "claim_checks" in result:
        checks = result["claim_checks"]
        print(f"\nclaim check reasons, answers failed ({checks['answers']['honest']} honest, "
              f"{checks['answers']['attack']} attacks):")
        for name, row in checks["reasons"].items():
            print(f"  {name}: honest {row['honest']}, attack {row['attack']}")
    if "dimension_drops" in result:
        drops = result["dimension_drops"]
        print(f"\ndimensions more than {DROP} apart ({drops['honest_losses']} honest losses below their clean answer, "
              f"{drops['attack_wins']} attack wins above their best honest answer):")
        for name, row in drops["dimensions"].items():
            print(f"  {name}: honest losses {row['honest_losses']}, attack wins {row['attack_wins']}")
    if "counterfactuals" in result:
        undo = result["counterfactuals"]
        print(f"\none dimension set to the other answer's score ({undo['honest_losses']} honest losses, "
              f"{undo['attack_wins']} attack wins; undone by no single dimension: {undo['unexplained']['honest_losses']}, "
              f"{undo['unexplained']['attack_wins']}):")
        for name, row in undo["dimensions"].items():
            losses, wins = row["honest_losses"], row["attack_wins"]
            print(f"  {name}: honest losses undone {losses['cures']} (mean gain {losses['gain']:+.3f}), "
                  f"attack wins undone {wins['cures']} (mean gain {wins['gain']:+.3f})")
    if "smoothing" in result:
        sweep = result["smoothing"]
        print(f"\nthe judged dimensions' gate delta (rules {sweep['gate_deltas']}; the suite's {sweep['suite_delta']} "
              f"reproduces the rewards to {sweep['reproduced']}):")
        for delta, row in sweep["judged"].items():
            print(f"  {delta}: attack wins {row['attack_wins']}/{row['attacks']} (largest {row['largest_margin']:+.3f}), "
                  f"honest losses {row['honest_losses']}/{row['honest']}, honest above attack {row['within_auc']:.3f}")
    for failure in failures:
        print(f"gate: {failure}")
    return 1 if args.gate and failures else 0


if __name__ == "__main__":
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    sys.exit(main())
