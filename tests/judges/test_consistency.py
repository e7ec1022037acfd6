"""The claim-consistency model of the local tier: the committed artifact loads offline and verifies, ranks supported
claims above altered ones, and the local tier's hallucination dimensions and reward fall on each probe category
(negation, copied sentence with a negation, false claim with a valid citation, entity swap, hedged wrong date).
A non-English answer is unscored (`unsupported_language`), never a false 0."""

import json
import shutil

import pytest

from reward.engine import Engine
from reward.judges.consistency import (ARTIFACT, COMBINATION, ArtifactError, ClaimCombination, artifact_digest,
                                       consistency_model, is_english, verify_artifact, write_checksums)
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


def test_the_artifact_digest_follows_its_checksum_file(tmp_path):
    copy = tmp_path / "model"
    shutil.copytree(ARTIFACT, copy)
    first = artifact_digest(copy)
    assert first == artifact_digest(ARTIFACT) and first == artifact_digest(copy)
    sums = copy / "SHA256SUMS"
    sums.write_text(sums.read_text() + "# retrained\n")
    assert artifact_digest(copy) not in (first, "none")
    sums.unlink()
    assert artifact_digest(copy) == "none"


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


def test_a_frame_that_only_announces_the_answer_is_no_claim_of_its_own():
    """"So the answer is X", "X is the answer", "In short, X" and "Answer: X" claim what X claims, no more: the
    checker reads X, as it reads a bare answer, so announcing the answer is neither a penalty nor a way around it."""
    bare = claim_text("Kinematic measurements [Doc 1].")
    for framed in ("So the answer is kinematic measurements [Doc 1].", "Kinematic measurements is the answer [Doc 1].",
                   "In short, kinematic measurements [Doc 1].", "Answer: kinematic measurements [Doc 1].",
                   "The short answer is kinematic measurements [Doc 1]."):
        assert claim_text(framed).lower() == bare.lower(), framed
    assert claim_text("The answer key was lost in 1998 [Doc 1].") == "The answer key was lost in 1998."


def test_a_premise_verdict_leading_a_correction_is_no_claim_and_a_derived_figure_may_name_its_relation():
    from reward.judges.local.claims import claim_support
    from reward.schema import Evidence

    assert claim_text("The question rests on a false premise: black widows live on land [Doc 1].") == "black widows live on land."
    assert claim_text("Actually, that is not the case: koalas have no tails [Doc 2].") == "Actually, koalas have no tails."
    docs = [Evidence(id="1", title="EU law", text="The competence was contested in 2005 at the Court. A directive followed in 2007.")]
    assert claim_support("That is 2 years before 2007, the other year the source gives.", docs)[0]
    assert not claim_support("That is 3 years before 2007, the other year the source gives.", docs)[0]
    # Attribution words do not dilute the new words of a claim.
    assert not claim_support("The directive offers free parking, as the source says and states and reports.", docs, 0.55)[0]
    # The relation words are known only beside a derived figure: without one they are new content as before.
    assert not claim_support("The directive came earlier than the treaty and longer than the ruling.", docs)[0]


def test_a_labelled_line_is_its_own_sentence_and_a_source_line_claims_nothing():
    from reward.format import split_sentences

    assert split_sentences("Answer: improved markedly [Doc 2]\nSource: Warsaw") == ["Answer: improved markedly [Doc 2]",
                                                                                   "Source: Warsaw"]
    assert split_sentences("| Question | Answer |\n|---|---|\n| Who | Watt [Doc 1] |") == ["| Question | Answer |", "|---|---|",
                                                                                      "| Who | Watt [Doc 1] |"]
    # A hard-wrapped sentence stays one sentence.
    assert split_sentences("The engine was designed\nby James Watt in 1765.") == ["The engine was designed\nby James Watt in 1765."]
    assert claim_text("Source: Warsaw") is None and claim_text("**Sources:** Doc 2") is None
    # A claim put behind a source label is still a claim.
    assert claim_text("Source: the tablets are safe at 4 g a day [Doc 1].") == "the tablets are safe at 4 g a day."
    assert claim_text("Source: aspirin 4g") == "aspirin 4g"
    assert claim_text("Answer: improved markedly [Doc 2]") == "improved markedly"


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


@pytest.mark.parametrize("seed", range(3))
def test_a_long_window_is_encoded_exactly_as_when_all_of_it_was_tokenized(seed):
    import random

    from reward.judges.consistency import HEAD_CHARS

    model = consistency_model()
    rng = random.Random(seed)
    words = ["cars", "pay", "the", "toll", "£2.90,", "vans", "(more)", "naïve", "Ünïcode", "2024-06-01", "多菌灵",
             "don't", "e.g.", "state-of-the-art", "\u200b", "Zürich", "x" * 60]
    claims = ["Cars pay £2.90.", " ".join(rng.choice(words) for _ in range(40)),
              " ".join(rng.choice(words) for _ in range(150))]
    for _ in range(6):
        evidence = " ".join(rng.choice(words) for _ in range(rng.randint(600, 6000)))
        if rng.random() < 0.3:
            evidence = "\u200b" * (HEAD_CHARS + 10) + " " + evidence  # a head of format characters: read whole
        for claim in claims:
            full = model.tokenizer([evidence], [claim], truncation="longest_first", max_length=model.max_length,
                                   return_token_type_ids=True)
            cut = model.tokenizer([model._head(evidence)], [claim], truncation="longest_first",
                                  max_length=model.max_length, return_token_type_ids=True)
            assert cut["input_ids"] == full["input_ids"] and cut["token_type_ids"] == full["token_type_ids"]
    assert len(model._head("word " * 5000)) < HEAD_CHARS < 5000 * 5
