"""Bucketing: stable, balanced, independent across experiments; the SRM check; experiment files."""

import numpy as np
import pytest
from scipy.stats import chi2_contingency, chisquare

from reward.online.experiments import Experiment, bucket_point, load_experiments, sample_ratio_check
from reward.online.log import hash_user

USERS = [hash_user(f"user-{i}", "test") for i in range(40_000)]
HALF = Experiment(name="a", salt="salt-a", arms={"control": 0.5, "treatment": 0.5}, control="control")
SKEW = Experiment(name="b", salt="salt-b", arms={"current": 0.8, "shorter": 0.2}, control="current")


def test_assignment_is_a_pure_function_of_salt_and_user():
    # golden values: a change of the hash would silently move live users between arms
    assert [HALF.assign(u) for u in USERS[:8]] == [HALF.assign(u) for u in USERS[:8]]
    assert bucket_point("salt-a", "00000000000000aa") == pytest.approx(0.021990, abs=1e-6)
    assert [HALF.assign(f"{i:016x}") for i in range(6)] == ["treatment", "treatment", "treatment", "control", "treatment", "control"]
    assert HALF.model_copy(update={"name": "renamed"}).assign(USERS[0]) == HALF.assign(USERS[0])


@pytest.mark.parametrize("experiment", [HALF, SKEW])
def test_split_is_balanced(experiment):
    arms = [experiment.assign(u) for u in USERS]
    counts = [arms.count(a) for a in experiment.arms]
    expected = [share * len(USERS) for share in experiment.arms.values()]
    assert chisquare(counts, expected).pvalue > 0.001
    assert max(abs(c - e) / len(USERS) for c, e in zip(counts, expected)) < 0.01


def test_concurrent_experiments_split_independently():
    table = np.zeros((2, 2))
    for user in USERS:
        table[list(HALF.arms).index(HALF.assign(user)), list(SKEW.arms).index(SKEW.assign(user))] += 1
    assert chi2_contingency(table).pvalue > 0.001
    # and the same salt would be fully dependent, which is why salts must differ
    same = Experiment(name="c", salt="salt-a", arms={"x": 0.5, "y": 0.5}, control="x")
    assert all((HALF.assign(u) == "control") == (same.assign(u) == "x") for u in USERS[:1000])


def test_srm_flags_a_broken_split_and_passes_a_sound_one():
    sound = {"control": 10_050, "treatment": 9_950}
    assert not sample_ratio_check(sound, HALF).mismatch
    broken = {"control": 10_300, "treatment": 9_700}  # 51.5 / 48.5: the size of a typical logging bug
    check = sample_ratio_check(broken, HALF)
    assert check.mismatch and check.p_value < 0.001
    assert sample_ratio_check({"current": 8000, "shorter": 2000}, SKEW).mismatch is False
    assert sample_ratio_check({"current": 5000, "shorter": 5000}, SKEW).mismatch is True
    unknown = sample_ratio_check({"control": 100, "treatment": 100, "other": 1}, HALF)
    assert unknown.mismatch and unknown.unknown_arms == ["other"]


def test_srm_catches_dropped_logging_in_one_arm():
    """A/A users, but the treatment client loses 5% of its users' logs: the check must notice."""
    rng = np.random.default_rng(1)
    seen = {"control": 0, "treatment": 0}
    for user in USERS:
        arm = HALF.assign(user)
        if arm == "control" or rng.random() > 0.05:
            seen[arm] += 1
    assert sample_ratio_check(seen, HALF).mismatch


@pytest.mark.parametrize("body, message", [
    ("experiments: [{name: x, salt: s, control: a, arms: {a: 0.5, b: 0.4}}]", "shares must sum to 1"),
    ("experiments: [{name: x, salt: s, control: c, arms: {a: 0.5, b: 0.5}}]", "control"),
    ("experiments: [{name: x, salt: s, control: a, arms: {a: 1.0}}]", "at least two arms"),
    ("experiments: [{name: x, salt: s, control: a, arms: {a: .5, b: .5}}, {name: y, salt: s, control: a, arms: {a: .5, b: .5}}]",
     "duplicate salt"),
    ("experiments: [{name: x, salt: s, control: a, arms: {a: .5, b: .5}, colour: red}]", "experiments.0.colour: unknown key"),
    ("experiments: [", "invalid YAML"),
])
def test_bad_experiment_files_name_file_and_key(tmp_path, body, message):
    path = tmp_path / "experiments.yaml"
    path.write_text(body)
    with pytest.raises(ValueError, match=message) as error:
        load_experiments(path)
    assert str(path) in str(error.value)


def test_shipped_experiments_file_loads():
    experiments = load_experiments("configs/online/experiments.yaml")
    assert set(experiments) == {"reward-v2", "answer-length"}
