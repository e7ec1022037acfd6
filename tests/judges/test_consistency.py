"""The claim-consistency model of the local tier: the committed artifact loads offline and verifies, ranks supported
claims above altered ones, and the local tier's hallucination dimensions and reward fall on each probe category
(negation, copied sentence with a negation, false claim with a valid citation, entity swap, hedged wrong date).
A non-English answer is unscored (`unsupported_language`), never a false 0."""

import json
import shutil

import pytest

from reward.engine import Engine
from reward.judges.consistency import (ARTIFACT, COMBINATION, ArtifactError, ClaimCombination, consistency_model,
                                       is_english, verify_artifact, write_checksums)
from reward.judges.local import LocalJudge
from reward.judges.local.text import claim_text
from reward.rubric import load_suite
from reward.schema import Item
from tests.support import EXAMPLES

pytestmark = pytest.mark.filterwarnings("ignore")


def test_artifact_checksums_verify_and_a_changed_byte_is_refused(tmp_path):
    assert len(verify_artifact(ARTIFACT)) == 16
    copy = tmp_path / "model"
    shutil.copytree(ARTIFACT, copy)
    weights = copy / "adapter_model.safetensors"
    data = bytearray(weights.read_bytes())
    data[-1] ^= 1
    weights.write_bytes(bytes(data))
    with pytest.raises(ArtifactError, match="does not match"):
        verify_artifact(copy)
    recipe = json.loads((ARTIFACT / "recipe.json").read_text())
    assert {s["name"] for s in recipe["sources"]} >= {"squad-dev-wikipedia", "rte-train"}
    assert all(len(s["sha256"]) == 64 for s in recipe["sources"])
    assert recipe["seed"] == 13 and recipe["hyperparameters"]["pairs"] > 0


def test_a_claim_combination_is_checksummed_with_the_artifact(tmp_path):
    copy = tmp_path / "model"
    shutil.copytree(ARTIFACT, copy)
    weights = {"logit_p_supported": 1.5, "coverage": 3.0}
    (copy / COMBINATION).write_text(json.dumps({"intercept": -2.0, "weights": weights}))
    write_checksums(copy)
    verify_artifact(copy)
    combination = ClaimCombination.load(copy)
    assert combination == ClaimCombination(-2.0, 1.5, 3.0)
    assert combination.probability(0.8, 0.9) > combination.probability(0.8, 0.3) > combination.probability(0.2, 0.3)
    (copy / COMBINATION).write_text(json.dumps({"intercept": 5.0, "weights": weights}))
    with pytest.raises(ArtifactError, match="does not match"):
        verify_artifact(copy)
    (copy / COMBINATION).unlink()
    with pytest.raises(ArtifactError, match="missing"):
        verify_artifact(copy)


def test_the_combination_fit_refuses_public_cases_outside_the_fit_split(tmp_path):
    from reward.evaluation.fidelity import FidelityCase, render_case
    from reward.judges.consistency_combine import public_claims, refuse_unless_fit
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
    from reward.judges import consistency_public
    from reward.judges.consistency_combine import public_claims
    from reward.judges.consistency_data import case_document, case_in_model_part, public_claim_pairs
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


def test_wice_partially_supported_sub_claims_read_against_their_supporting_sentences(tmp_path):
    import dataclasses
    import hashlib

    from reward.judges.consistency_data import NOT_SUPPORTED, WICE_PARTIAL, SourceError, wice_partial_pairs

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


def test_a_combination_with_extra_features_loads_and_weighs_them(tmp_path):
    copy = tmp_path / "model"
    shutil.copytree(ARTIFACT, copy)
    weights = {"logit_p_supported": 1.0, "coverage": 1.0, "novel_names": -1.5}
    (copy / COMBINATION).write_text(json.dumps({"intercept": 0.0, "weights": weights}))
    write_checksums(copy)
    combination = ClaimCombination.load(copy)
    assert combination.features == ("novel_names",)
    assert combination.probability(0.7, 0.8, {"novel_names": 2.0}) < combination.probability(0.7, 0.8, {"novel_names": 0.0})


EVIDENCE = ("The Eiffel Tower was completed in 1889 and is 330 metres tall. It was designed by the engineering company "
            "of Gustave Eiffel and built for the World's Fair in Paris.")
ALTERED = {
    "negated": "The Eiffel Tower was not completed in 1889.",
    "entity swapped": "The Eiffel Tower was designed by the engineering company of Thomas Edison.",
    "number swapped": "The Eiffel Tower is 520 metres tall.",
    "unsupported addition": "The Eiffel Tower was completed in 1889 at a cost of $40 million, making it the largest in the world.",
}


def test_the_model_loads_offline_and_ranks_supported_above_altered_claims(monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    model = consistency_model()
    claims = ["The Eiffel Tower was completed in 1889.", *ALTERED.values()]
    probs = model.predict([(EVIDENCE, c) for c in claims])
    assert probs.shape == (5, 3)
    supported = probs[0, 0]
    for (kind, _), row in zip(ALTERED.items(), probs[1:], strict=True):
        assert row[0] < supported, f"{kind}: P(supported) {row[0]:.2f} >= the supported claim's {supported:.2f}"


def test_hedges_and_refusal_framing_do_not_exempt_a_claim():
    assert claim_text("The show premiered in 1998, though I could not confirm this [Doc 1].") == "The show premiered in 1998."
    assert claim_text("Note that the song went live on 28 August 2019 [Doc 1].") == "the song went live on 28 August 2019."
    assert claim_text("I cannot find the opening hours in the sources.") is None
    assert claim_text("Check the official site before you go.") is None
    assert claim_text("Check Spotify, which carries the full track for free [Doc 1].") is not None


def test_language_check():
    assert is_english("The song went live on Spotify, Apple Music and KKBox a day after its radio premiere.")
    assert not is_english("这首歌已于2025年8月28日在Spotify上线，可以免费收听。")
    assert not is_english("Das Lied ist seit dem 28. August 2025 auf Spotify und in der kostenlosen Version verfügbar.")


def _song_good() -> Item:
    items = [Item.model_validate(json.loads(line)) for line in EXAMPLES.read_text().splitlines() if line.strip()]
    return next(i for i in items if i.id == "song-good")


def _answer(item: Item, answer: str) -> Item:
    head = item.response.split("<answer>")[0]
    return item.model_copy(update={"response": f"{head}<answer>\n{answer}\n</answer>"})


CLEAN = ("The song is already out: it went live on Spotify, Apple Music and KKBox a day after its radio premiere, "
         "so you can listen for free now [Doc 1].\n\n- **Spotify Free:** the full track with ads [Doc 1].\n"
         "- **Video:** the official music video is free on YouTube and Bilibili, no account needed [Doc 2].")
PROBES = {
    "negated supported sentence": CLEAN.replace("the full track with ads", "not the full track, only previews"),
    "evidence sentence copied with a negation": CLEAN + "\n\nSpotify's free tier does not carry the full track with ads [Doc 1].",
    "false claim with a valid citation": CLEAN + "\n\nApple Music is free forever for every listener, with no subscription [Doc 1].",
    "entities swapped for names the evidence never mentions": CLEAN.replace(
        "Spotify, Apple Music and KKBox", "Tidal, Deezer and Pandora").replace("YouTube and Bilibili", "Vimeo and Dailymotion"),
    "a 'Note that' sentence with a wrong date": CLEAN + "\n\nNote that the song went live on 28 August 2019 [Doc 1].",
    "a hedged invented claim": CLEAN + "\n\nThe song also won a Grammy award in 2025, though I could not confirm this [Doc 1].",
}


@pytest.fixture(scope="module")
def probe_results():
    base = _song_good()
    items = [_answer(base, CLEAN).model_copy(update={"id": "clean"})]
    items += [_answer(base, text).model_copy(update={"id": name}) for name, text in PROBES.items()]
    chinese = "这首歌已于2025年8月28日在Spotify、Apple Music和KKBox上线，Spotify免费版可以收听完整歌曲 [Doc 1]。"
    items.append(_answer(base, chinese).model_copy(update={"id": "chinese"}))
    items.append(_answer(base, chinese).model_copy(update={"id": "chinese-asked", "query": "我什么时候可以免费听 Skibidi 这首歌？"}))
    results = Engine(load_suite("searchllm"), LocalJudge()).score_sync(items)
    return {r.id: r for r in results}


KNOWN_MISSES: dict[str, str] = {}
"""Probe categories the local tier does not catch yet (strict xfail, with the reason). Empty: the reworded false
claim with a valid citation ("Apple Music is free forever ..., with no subscription") is caught since the retrained
model."""


@pytest.mark.parametrize("probe", [
    pytest.param(p, marks=pytest.mark.xfail(reason=KNOWN_MISSES[p], strict=True)) if p in KNOWN_MISSES else p
    for p in PROBES])
def test_each_probe_lowers_claim_hallucination_and_the_reward(probe_results, probe):
    clean, flawed = probe_results["clean"], probe_results[probe]
    clean_claims = clean.dimensions["claim_hallucination"].score
    flawed_claims = flawed.dimensions["claim_hallucination"].score
    assert clean_claims >= 0.6, clean.dimensions["claim_hallucination"].explanation
    assert flawed_claims <= clean_claims - 0.2, flawed.dimensions["claim_hallucination"].explanation
    assert flawed.reward < clean.reward


def test_an_answer_in_the_users_language_is_unscored_not_zero(probe_results):
    """Asked in Chinese, answered in Chinese: the local model cannot read the interaction, for any response alike."""
    result = probe_results["chinese-asked"]
    for name in ("claim_hallucination", "highlight_hallucination"):
        score = result.dimensions[name]
        assert score.status == "unscored" and score.reason == "unsupported_language", score
    assert "claim_hallucination" in result.excluded
    assert result.valid and result.gate > 0.3


def test_an_answer_in_a_language_the_user_did_not_use_switches_no_check_off(probe_results):
    """Asked in English, answered in Chinese: the sentences the model cannot read count as unsupported."""
    from reward.judges.local.support import SCORE_OFFSET

    result = probe_results["chinese"]
    for name in ("claim_hallucination", "highlight_hallucination"):
        # 0 for the unreadable sentences (claim_hallucination: but for the offset that keeps coverage's ranking)
        assert result.dimensions[name].status == "ok" and result.dimensions[name].score <= SCORE_OFFSET
    assert result.reward < probe_results["clean"].reward


def test_a_pairs_probabilities_do_not_depend_on_the_rest_of_its_batch():
    """The scorer batches the pairs of concurrent requests: a response's reward must not depend on what else was in
    flight. (int8 dynamic quantisation scales activations over the whole batch and fails this by up to ~0.03.)"""
    import numpy as np

    model = consistency_model()
    pairs = [("The laptop weighs 1.2 kg and has a 14-inch screen with 16 GB of RAM.", "The laptop weighs 1.2 kg."),
             ("The track opened on 3 May 2019 and is 5 km long.", "The track is not 5 km long."),
             ("Paris is the capital of France and has about two million inhabitants, many museums and the Louvre, "
              "whose collection is one of the largest in the world.", "It was recalled by the government.")]
    alone = np.stack([model.predict([p])[0] for p in pairs])
    crowded = model.predict(pairs * 12 + [(pairs[2][0] * 3, "A long neighbour changes the padding.")])[:3]
    assert np.abs(alone - crowded).max() < 1e-4


def test_negation_paraphrases_keep_the_meaning_and_dropping_the_negation_contradicts():
    from reward.judges.consistency_data import negation_paraphrase_pairs

    passage = ("The official video is on YouTube. Both platforms let you watch it for free without an account. "
               "A lyric video was uploaded a week later.")
    pairs = list(negation_paraphrase_pairs([("p", passage)], seed=13))
    assert [(p.label, p.kind) for p in pairs] == [(0, "supported:negation_paraphrase"),
                                                  (1, "contradicted:negation_dropped")]
    supported, contradicted = pairs[0].claim, pairs[1].claim
    assert supported.startswith("Both platforms let you watch it for free with no account")
    assert "without" not in contradicted and "no account" not in contradicted
    assert "without an account" in pairs[0].evidence


def test_a_combination_is_fitted_only_on_pairs_past_every_trained_range():
    from reward.judges.consistency_combine import sick_used_until, used_end

    first = {"hyperparameters": {"pairs": 2880}}
    second = {"skipped_pairs": 2880, "hyperparameters": {"pairs_planned": 9400}, "sick": {"train_pairs_used": 3000},
              "continued_from": {"recipe": first}}
    third = {"skipped_pairs": 9280, "hyperparameters": {"pairs_planned": 3760},
             "sick": {"train_pairs_used": 1000, "used_until": 4000}, "negation_paraphrase": {"train_pairs_used": 500},
             "continued_from": {"recipe": second}}
    assert used_end(first) == 2880 and used_end(second) == 9280 and used_end(third) == 11540
    assert sick_used_until(second) == 3000 and sick_used_until(third) == 4000


def test_the_monotone_fit_keeps_each_weight_on_its_side():
    """A feature whose free fit would take the wrong sign is held at 0; the others are fitted as usual."""
    import numpy as np

    from reward.judges.consistency_combine import fit_monotone

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
    """The claim score of a combination fitted by `consistency_combine` (the recorded monotone candidate) never falls
    as the claim's coverage or the model's P(supported) rises: every weight has the sign
    `consistency_combine.SIGNS` allows, and the probability is monotone along each input."""
    from reward.judges.consistency_combine import SIGNS

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
    from reward.judges.consistency_combine import dimension_score, select_reading

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
