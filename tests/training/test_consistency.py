"""The consistency model's training pipeline (`training/consistency/`): public fit cases go either to the model or
to the combination, never both, and never from the test split; the pairs it builds (WiCE partial support, negation
paraphrases) read as labelled; the combination is fitted past every trained range, keeps its weights on their
allowed side, and its support reading is chosen against the lexical baseline."""

import json
import re

import pytest

from reward.judges.consistency import ARTIFACT, COMBINATION, ClaimCombination

pytestmark = pytest.mark.filterwarnings("ignore")


def test_the_combination_fit_refuses_public_cases_outside_the_fit_split(tmp_path):
    from reward.evaluation.fidelity import FidelityCase, render_case
    from training.consistency.combine import public_claims, refuse_unless_fit
    from reward.schema import Evidence

    evidence = [Evidence(id="1", title="Ferry", text="The ferry leaves Central Pier 4 every 30 minutes.")]
    item = render_case("c-1", "When does the ferry leave?", evidence, "The ferry leaves every 30 minutes.")
    fit = FidelityCase(set="toy", label=1, item=item, split="fit")
    refuse_unless_fit([fit])
    for split in ("test", None):
        stray = fit.model_copy(update={"split": split})
        with pytest.raises(SystemExit, match="not in the fit split"):
            refuse_unless_fit([fit, stray])
        cases = tmp_path / f"{split}.jsonl"
        cases.write_text(fit.model_dump_json() + "\n" + stray.model_dump_json() + "\n")
        with pytest.raises(SystemExit, match="1 of 2 public cases"):
            public_claims(cases, per_set=10, seed=0)


def test_public_fit_cases_go_either_to_the_model_or_to_the_combination_never_both(tmp_path):
    """The model trains on its part of the fit split (exported as the tier reads each claim); the combination is
    fitted on the rest; the test split is refused by both."""
    from reward.evaluation.fidelity import FidelityCase, render_case
    from training.consistency import public as consistency_public
    from training.consistency.combine import public_claims
    from training.consistency.data import case_document, case_in_model_part, public_claim_pairs
    from reward.schema import Evidence

    cases, keys = [], [f"toy-{i}" for i in range(40)]
    for number, key in enumerate(keys):
        # two pairs per document, as SummEdits has several edited summaries of one document
        evidence = [Evidence(id="1", title="Ferry", text=f"The ferry leaves Central Pier {number // 2} every 30 "
                                                          "minutes. Tickets cost 5 dollars on weekdays.")]
        good = render_case(f"{key}-1", "When does the ferry leave?", evidence, "The ferry leaves every 30 minutes.")
        bad = render_case(f"{key}-0", "When does the ferry leave?", evidence, "The ferry leaves every 30 minutes. "
                          "It stops at Lamma Island twice a night.")
        cases += [FidelityCase(set="toy", label=1, pair=key, item=good, split="fit"),
                  FidelityCase(set="toy", label=0, pair=key, item=bad, split="fit")]
    model_keys = {c.pair for c in cases if case_in_model_part(c)}
    by_document = {}
    for case in cases:
        by_document.setdefault(case_document(case), set()).add(case_in_model_part(case))
    assert len(by_document) == len(keys) // 2 and all(len(parts) == 1 for parts in by_document.values())
    assert 0 < len(model_keys) < len(keys)
    path = tmp_path / "cases.jsonl"
    path.write_text("".join(c.model_dump_json() + "\n" for c in cases))
    out = tmp_path / "pairs.jsonl"
    consistency_public.main(["--cases", str(path), "--out", str(out)])
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert {r["key"] for r in rows} == model_keys
    # the faithful claim is supported; the hallucinated response's own claim (the one its pair lacks) is not
    assert {(r["label"], r["claim"].startswith("It stops at Lamma")) for r in rows} == {(1, False), (0, True)}
    assert all("Central Pier" in r["evidence"] for r in rows)
    assert {r["document"] for r in rows} == {case_document(c) for c in cases if c.pair in model_keys}
    assert {p.label for p in public_claim_pairs(out)} == {0, -1}
    assert json.loads((tmp_path / "pairs.jsonl.json").read_text())["pairs"] == len(rows)
    fitted, counts = public_claims(path, per_set=100, seed=0)
    assert counts["cases"] == 2 * (len(keys) - len(model_keys))
    assert counts["cases_left_to_the_model"] == 2 * len(model_keys)
    assert len(fitted) == counts["cases"]  # one claim per case: the faithful one, and the hallucinated one


def test_public_pairs_keep_the_claim_as_written_when_the_tier_also_reads_it_without_its_lead_in(tmp_path):
    """The claim check reads a claim as written and without each hedge or lead-in it opens with, two model reads for
    one claim ("Maybe ..."): the export pairs the claim with its reading as written, once."""
    from reward.evaluation.fidelity import FidelityCase, render_case
    from training.consistency import public as consistency_public
    from training.consistency.data import case_in_model_part
    from reward.schema import Evidence

    cases = []
    for number in range(40):
        evidence = [Evidence(id="1", title="Ferry", text=f"The ferry leaves Central Pier {number} every 30 minutes. "
                                                          "Tickets cost 5 dollars on weekdays.")]
        item = render_case(f"lead-{number}", "When does the ferry leave?", evidence,
                           "Maybe the ferry leaves every 30 minutes.")
        cases.append(FidelityCase(set="toy", label=1, item=item, split="fit"))
    path = tmp_path / "cases.jsonl"
    path.write_text("".join(c.model_dump_json() + "\n" for c in cases))
    out = tmp_path / "pairs.jsonl"
    consistency_public.main(["--cases", str(path), "--out", str(out)])
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(rows) == sum(case_in_model_part(c) for c in cases) > 0
    assert {r["claim"] for r in rows} == {"Maybe the ferry leaves every 30 minutes."}, rows[:2]
    assert all(r["label"] == 1 and "every 30 minutes" in r["evidence"] for r in rows)


def test_wice_partially_supported_sub_claims_read_against_their_supporting_sentences(tmp_path):
    import dataclasses
    import hashlib

    from training.consistency.data import NOT_SUPPORTED, WICE_PARTIAL, SourceError, wice_partial_pairs

    rows = [{"label": "partially_supported", "claim": "The pier opened in 1912 with a tram line.",
             "evidence": ["(meta data) TITLE: Pier", "The pier opened in 1912.", "It is 200 m long.", "Trams ran later."],
             "supporting_sentences": [[1], [3]]},
            {"label": "partially_supported", "claim": "No evidence marked.", "evidence": ["x"], "supporting_sentences": []}]
    path = tmp_path / "train.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    source = dataclasses.replace(WICE_PARTIAL, path="train.jsonl", sha256=hashlib.sha256(path.read_bytes()).hexdigest())
    [pair] = wice_partial_pairs(tmp_path, source=source)
    assert pair.evidence == "The pier opened in 1912. Trams ran later." and pair.label == NOT_SUPPORTED
    assert pair.claim == rows[0]["claim"] and pair.kind == "public:wice_partial"
    path.write_text("changed")
    with pytest.raises(SourceError, match="sha256"):
        wice_partial_pairs(tmp_path, source=source)


def test_negation_paraphrases_keep_the_meaning_and_dropping_the_negation_contradicts():
    from training.consistency.data import negation_paraphrase_pairs

    passage = ("The official video is on YouTube. Both platforms let you watch it for free without an account. "
               "A lyric video was uploaded a week later.")
    pairs = list(negation_paraphrase_pairs([("p", passage)], seed=13))
    assert [(p.label, p.kind) for p in pairs] == [(0, "supported:negation_paraphrase"),
                                                  (1, "contradicted:negation_dropped")]
    supported, contradicted = pairs[0].claim, pairs[1].claim
    assert supported.startswith("Both platforms let you watch it for free with no account")
    assert "without" not in contradicted and "no account" not in contradicted
    assert "without an account" in pairs[0].evidence


def test_hard_pairs_support_a_claim_beside_a_negation_and_a_denial_of_the_opposite():
    from training.consistency.hard import beside_negation_pairs, denial_pairs

    passage = ("Take one or two tablets every 4 to 6 hours with food. Do not take more than 8 tablets in 24 hours. "
               "The pharmacy on Main Street is open until 22:00 every day.")
    beside = list(beside_negation_pairs([("p", passage)], seed=13))
    kinds = {(p.label, p.kind) for p in beside}
    # either sentence restated is supported, so a "not" in the claim or in the window decides nothing on its own
    assert {(0, "supported:beside_negation"), (0, "supported:negated_restated"),
            (1, "contradicted:beside_negation")} <= kinds
    for pair in beside:
        assert "Do not take more than 8 tablets" in pair.evidence  # the negated sentence is in view
        if pair.kind == "supported:negated_restated":
            assert "not take more than 8 tablets" in pair.claim
        if pair.kind == "contradicted:negation_dropped_beside":
            assert " not " not in f" {pair.claim.lower()} "
    denial = list(denial_pairs([("p", passage)], seed=13))
    assert [(p.label, p.kind) for p in denial] == [(0, "supported:denial_of_opposite"), (1, "contradicted:opposite")]
    assert "is not closed until 22:00" in denial[0].claim and "is closed until 22:00" in denial[1].claim


def test_a_combination_is_fitted_only_on_pairs_past_every_trained_range():
    from training.consistency.combine import sick_used_until, used_end

    first = {"hyperparameters": {"pairs": 2880}}
    second = {"skipped_pairs": 2880, "hyperparameters": {"pairs_planned": 9400}, "sick": {"train_pairs_used": 3000},
              "continued_from": {"recipe": first}}
    third = {"skipped_pairs": 9280, "hyperparameters": {"pairs_planned": 3760},
             "sick": {"train_pairs_used": 1000, "used_until": 4000}, "negation_paraphrase": {"train_pairs_used": 500},
             "continued_from": {"recipe": second}}
    assert used_end(first) == 2880 and used_end(second) == 9280 and used_end(third) == 11540
    # a continued run that replays earlier pairs beside hard ones reads no further than its parent
    fourth = {"skipped_pairs": 0, "hyperparameters": {"pairs_planned": 3000}, "sick": {"train_pairs_used": 600},
              "negation_paraphrase": {"train_pairs_used": 300}, "hard": {"train_pairs_used": 900},
              "continued_from": {"recipe": third}}
    assert used_end(fourth) == 11540
    assert sick_used_until(second) == 3000 and sick_used_until(third) == 4000


def test_the_monotone_fit_keeps_each_weight_on_its_side():
    """A feature whose free fit would take the wrong sign is held at 0; the others are fitted as usual."""
    import numpy as np

    from training.consistency.combine import fit_monotone

    rng = np.random.default_rng(0)
    coverage = rng.uniform(size=400)
    noise = rng.normal(size=400)
    y = (coverage + 0.3 * rng.normal(size=400) > 0.5).astype(float)
    x = np.stack([coverage, noise + 2.0 * (1 - y)], axis=1)  # the second feature rises on unsupported claims
    _, free = fit_monotone(x, y, np.ones(400), [0, 0])
    _, held = fit_monotone(x, y, np.ones(400), [1, 1])
    assert free[0] > 1.0 and free[1] < -0.5
    assert held[0] > 1.0 and held[1] == 0.0


def test_a_sign_constrained_combination_rises_with_coverage_and_the_model(tmp_path):
    """The claim score of a combination fitted by `training.consistency.combine` (the recorded monotone candidate) never falls
    as the claim's coverage or the model's P(supported) rises: every weight has the sign
    `training.consistency.combine.SIGNS` allows, and the probability is monotone along each input."""
    from training.consistency.combine import SIGNS

    candidate = ARTIFACT.parents[2] / "benchmarks" / "results" / "consistency_candidates" / "issue29-monotone-cs025-combination.json"
    (tmp_path / COMBINATION).write_text(candidate.read_text())
    combination = ClaimCombination.load(tmp_path)
    weights = {"logit_p_supported": combination.logit_weight, "coverage": combination.coverage_weight,
               **dict(combination.extra)}
    assert set(weights) <= set(SIGNS)
    assert all(w * SIGNS[name] >= 0 for name, w in weights.items()), weights
    assert sum(w for name, w in weights.items() if "coverage" in name) > 0
    base = {"novel_names": 0.0, "negation_flip": 0.0}
    for p in (0.1, 0.5, 0.9):
        grid = [combination.probability(p, c, base | {"coverage_all": c, "coverage_evidence": c}) for c in (0.0, 0.5, 1.0)]
        assert grid == sorted(grid) and grid[-1] > grid[0]
    for c in (0.2, 0.8):
        row = [combination.probability(p, c, base | {"coverage_all": c, "coverage_evidence": c}) for p in (0.05, 0.5, 0.95)]
        assert row == sorted(row)


def test_the_support_reading_is_chosen_on_recorded_cases_against_the_lexical_baseline():
    """`select_reading` ranks readings by the dimension's worst-set AUC margin over the lexical baseline."""
    from training.consistency.combine import dimension_score, select_reading

    def claim(p, coverage):
        return {"sentence": "s", "support": 0.0, "hard": False, "cap": None,
                "features": {"p_supported": p, "coverage": coverage}}

    # supported claims at P 0.75-0.95, unsupported at 0.55-0.70: a reading that saturates at 0.7 ties them
    records = [{"set": "toy", "label": 1, "pair": None, "id": f"g{i}", "claims": [claim(0.75 + 0.05 * i, 0.5)],
                "lexical": 0.5} for i in range(5)]
    records += [{"set": "toy", "label": 0, "pair": None, "id": f"b{i}", "claims": [claim(0.55 + 0.05 * i, 0.5)],
                 "lexical": 0.5} for i in range(4)]
    combination = ClaimCombination(0.0, 1.0, 0.0)
    assert dimension_score(records[0], combination, (0.1, 0.4), "min_mean") == 1.0
    chosen = select_reading(records, combination, [(0.1, 0.4), (0.0, 1.0)])
    assert chosen["chosen"]["support"] == [0.0, 1.0] and chosen["chosen"]["auc"]["toy"] == 1.0
    assert chosen["lexical_baseline_auc"]["toy"] == 0.5
    saturated = [c for c in chosen["candidates"] if c["support"] == [0.1, 0.4] and c["aggregation"] == "min_mean"]
    assert saturated[0]["auc"]["toy"] < 1.0


@pytest.mark.parametrize(("old", "flag"), [("reward.judges.consistency_train", "--init-from"),
                                           ("reward.judges.consistency_combine", "--public-per-set")])
def test_the_old_module_paths_the_checksummed_recipes_name_still_run(old, flag):
    """The shipped recipe.json and combination.json (checksummed) name `python -m reward.judges.consistency_train`
    / `_combine`: those paths still run the scripts, now in `training/consistency/`."""
    import subprocess
    import sys

    from tests.support import ROOT

    recipes = (ARTIFACT / "recipe.json").read_text() + (ARTIFACT / COMBINATION).read_text()
    assert f"python -m {old} " in recipes
    run = subprocess.run([sys.executable, "-m", old, "--help"], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    assert flag in run.stdout and "usage:" in run.stdout


def test_the_answer_stack_fit_keeps_every_weight_non_negative_and_refuses_the_test_split(tmp_path):
    """`training.consistency.answer.fit`: a feature that ranks the labels the wrong way gets weight 0 (it may only
    say an answer is better grounded), one that ranks them right a positive weight; the CLI refuses test cases."""
    import numpy as np

    from reward.evaluation.fidelity import FidelityCase, render_case
    from reward.schema import Evidence
    from training.consistency.answer import fit, main, sample_weights

    rng = np.random.default_rng(0)
    y = (rng.random(400) < 0.5).astype(float)
    helpful = y + rng.normal(0, 0.8, 400)
    misleading = -y + rng.normal(0, 0.8, 400)
    rows = [{"set": "a" if i % 3 else "b", "label": int(v)} for i, v in enumerate(y)]
    intercept, weights, means, scales = fit(np.column_stack([helpful, misleading]), y, sample_weights(rows), 0.01)
    assert weights[0] > 0.5 and weights[1] == 0.0, weights
    assert means.shape == scales.shape == (2,) and (scales > 0).all()

    evidence = [Evidence(id="1", title="Ferry", text="The ferry leaves Central Pier 4 every 30 minutes.")]
    item = render_case("c-1", "When does the ferry leave?", evidence, "The ferry leaves every 30 minutes.")
    cases = tmp_path / "cases.jsonl"
    cases.write_text(FidelityCase(set="toy", label=1, item=item, split="test").model_dump_json() + "\n")
    with pytest.raises(SystemExit, match="not in the fit split"):
        main(["--cases", str(cases), "--dry-run"])
    with pytest.raises(SystemExit, match="--features: unknown"):
        main(["--cases", str(cases), "--features", "coverage,vibes", "--dry-run"])


def test_corpus_pairs_label_honest_claims_supported_and_false_attack_claims_not(tmp_path):
    """The generalization corpus's fit split gives the model hard pairs as the local tier reads them: every claim of
    an honest answer supported, the first claim of a swapped-value attack not, nothing from an attack that states
    true things (another question's answer) or nothing (a refusal); the test split is refused."""
    from benchmarks.generalization import CORPUS
    from training.consistency.corpus import export

    wanted = "squad2-factoid-e2b0456ee5929122e93737d5e"
    line = next(line for line in (CORPUS / "fit.jsonl").read_text().splitlines() if wanted in line)
    (tmp_path / "fit.jsonl").write_text(line + "\n")
    rows, counts = export(tmp_path)
    interaction = json.loads(line)
    family = {r["id"]: r.get("family") for r in interaction["responses"]}
    by_response = {}
    for row in rows:
        by_response.setdefault(row["key"].split("/")[-1], []).append(row)
    assert rows and counts["supported"] >= 3, counts
    for rid, got in by_response.items():
        if family[rid] in ("clean", "terse", "paraphrase", "layout"):
            assert all(r["label"] == 1 for r in got), got
        else:
            assert family[rid] in ("same_evidence_swap", "unsupported_confident"), (rid, family[rid])
            assert [r["label"] for r in got] == [0], got
    assert any(family[rid] == "same_evidence_swap" for rid in by_response), by_response.keys()
    assert not any(family[rid] == "refusal_despite_evidence" for rid in by_response)
    said = {r["claim"] for r in rows if r["label"] == 1}
    assert not any(r["claim"] in said for r in rows if r["label"] == 0)
    with pytest.raises(SystemExit):
        export(tmp_path, "test")


def test_corpus_pairs_hold_only_the_answers_claims_not_the_evidence_read_against_itself(tmp_path):
    """The model also reads one evidence item against another (conflicting sources) and an answer against its earlier
    turns; those pairs say nothing of an answer's support, so none is exported with the answer's label: every exported
    claim is read from the answer (or is its bare answer read with the question)."""
    from benchmarks.generalization import CORPUS
    from reward.format import parse_response
    from training.consistency.corpus import export

    wanted = "squad2-conflict-c3eafe03401f32a22bd8b8fed"
    line = next(line for line in (CORPUS / "fit.jsonl").read_text().splitlines() if wanted in line)
    (tmp_path / "fit.jsonl").write_text(line + "\n")
    rows, _ = export(tmp_path)
    interaction = json.loads(line)
    answers = {r["id"]: parse_response(r["response"]).answer_text for r in interaction["responses"]}

    def words(text: str) -> set[str]:
        return set(re.findall(r"[a-z0-9]+", text.lower()))

    asked = words(interaction["query"])
    assert rows
    for row in rows:
        answer = words(answers[row["key"].split("/")[-1]])
        assert words(row["claim"]) <= answer | asked, row


def test_reordered_pairs_swap_the_claims_halves_and_keep_every_label():
    import random

    from training.consistency.data import NOT_SUPPORTED, Pair
    from training.consistency.train import reordered_pairs

    pairs = [Pair("ev", "If you live in the US, the Paperwhite is a fair alternative [Doc 1].", 0, "public:corpus", "a"),
             Pair("ev", "At 74 euros a month, the Coastline pass costs more than the Nordlink pass.", NOT_SUPPORTED,
                  "public:corpus", "b"),
             Pair("ev", "Yes, it is.", 0, "supported:as_is", "c")]
    out = reordered_pairs(pairs, 1.0, random.Random(0))
    assert [(p.claim, p.label, p.kind) for p in out] == [
        ("The Paperwhite is a fair alternative, if you live in the US.", 0, "public:corpus:reordered"),
        ("The Coastline pass costs more than the Nordlink pass, at 74 euros a month.", NOT_SUPPORTED,
         "public:corpus:reordered")]
    assert reordered_pairs(pairs, 0.0, random.Random(0)) == []


def test_lead_pairs_put_a_lead_in_front_and_keep_every_label_and_scope_pairs_are_not_supported():
    import random

    from training.consistency.data import NOT_SUPPORTED, Pair
    from training.consistency.train import _PHRASE, LEADS, lead_pairs, scope_pairs

    pairs = [Pair("Tickets for the adult day pass cost £12 at the Riverside Station.", "The pass costs £12.", 0,
                  "public:corpus", "a"),
             Pair("The child fare is half the adult fare on weekdays.", "Kestrel is cheaper.", NOT_SUPPORTED,
                  "contradicted:number", "b")]
    led = lead_pairs(pairs, 1.0, random.Random(0))
    assert [(p.label, p.kind) for p in led] == [(0, "public:corpus:lead"), (NOT_SUPPORTED, "contradicted:number:lead")]
    for pair, out in zip(pairs, led, strict=True):
        lead = next(lead for lead in LEADS if out.claim.startswith(lead + " "))
        rest = out.claim[len(lead) + 1:]
        assert rest[1:] == pair.claim[1:] and rest[0].lower() == pair.claim[0].lower()  # "the pass", "Kestrel"
    assert led[1].claim.endswith("Kestrel is cheaper.")
    assert lead_pairs(pairs, 0.0, random.Random(0)) == []
    scoped = scope_pairs(pairs, 6, random.Random(1))
    assert len(scoped) == 6 and {p.label for p in scoped} == {NOT_SUPPORTED} and {p.kind for p in scoped} == {"scope"}
    for pair in scoped:  # what it says the sources cover is a thing its own window names
        assert any(f" {phrase}" in pair.claim for phrase in _PHRASE.findall(pair.evidence)), pair
