"""Experiments: deterministic bucketing of users into arms by a salted hash, and the sample-ratio-mismatch check.

An experiment names its arms with their traffic shares and a salt. A user's arm is a pure function of (salt, hashed
user id), so every server and every day agree without a lookup table, and experiments with different salts split
users independently of each other (a user's arm in one says nothing about the other). The SRM check compares the
observed users per arm with the configured split (chi-square); a mismatch means the assignment or the logging is
broken and the experiment's metrics must not be trusted.

    # configs/online/experiments.yaml
    experiments:
      - name: reward-v2
        salt: reward-v2-2026-01
        control: control
        arms: {control: 0.5, treatment: 0.5}
"""

from __future__ import annotations

import hashlib
import math
from pathlib import Path

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

SRM_ALPHA = 0.001
"""p-value below which the observed split is called a sample-ratio mismatch (the usual, deliberately strict bar:
SRM checks run on every report, so a 5% bar would cry wolf weekly)."""


class Experiment(BaseModel):
    """One A/B (or A/B/n) experiment."""

    model_config = ConfigDict(extra="forbid")

    name: str = Field(min_length=1)
    """Name used in the log's `arms` mapping and on the command line."""
    salt: str = Field(min_length=1)
    """Hash salt; distinct per experiment so concurrent experiments split users independently."""
    arms: dict[str, float]
    """Arm name -> share of users (positive, summing to 1), in assignment order."""
    control: str
    """The arm lifts are measured against."""

    @model_validator(mode="after")
    def _valid_split(self) -> Experiment:
        if len(self.arms) < 2:
            raise ValueError("arms: an experiment needs at least two arms")
        if any(share <= 0 for share in self.arms.values()):
            raise ValueError("arms: every share must be positive")
        if not math.isclose(sum(self.arms.values()), 1.0, abs_tol=1e-9):
            raise ValueError(f"arms: shares must sum to 1, got {sum(self.arms.values()):g}")
        if self.control not in self.arms:
            raise ValueError(f"control: {self.control!r} is not one of the arms {sorted(self.arms)}")
        return self

    def assign(self, user: str) -> str:
        """The arm of a (hashed) user: the first arm whose cumulative share exceeds the user's hash point in [0, 1).

        >>> Experiment(name="x", salt="s", arms={"a": 0.5, "b": 0.5}, control="a").assign("9f86d081884c7d65")
        'b'
        """
        point = bucket_point(self.salt, user)
        cumulative = 0.0
        for arm, share in self.arms.items():
            cumulative += share
            if point < cumulative:
                return arm
        return next(reversed(self.arms))  # floating-point shortfall of the cumulative sum


def bucket_point(salt: str, user: str) -> float:
    """A uniform point in [0, 1) from the salted hash of the user (64 bits of BLAKE2b)."""
    digest = hashlib.blake2b(f"{salt}\x00{user}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big") / 2**64


class ExperimentsFile(BaseModel):
    model_config = ConfigDict(extra="forbid")

    experiments: list[Experiment]

    @model_validator(mode="after")
    def _distinct(self) -> ExperimentsFile:
        for key in ("name", "salt"):
            values = [getattr(e, key) for e in self.experiments]
            duplicates = sorted({v for v in values if values.count(v) > 1})
            if duplicates:
                raise ValueError(f"experiments: duplicate {key} {duplicates}")
        return self


def load_experiments(path: str | Path) -> dict[str, Experiment]:
    """Experiments by name; a bad file raises ValueError naming the file and the key."""
    path = Path(path)
    try:
        parsed = ExperimentsFile.model_validate(yaml.safe_load(path.read_text(encoding="utf-8")))
    except yaml.YAMLError as exc:
        raise ValueError(f"{path}: invalid YAML: {exc}") from None
    except ValidationError as exc:
        problems = "; ".join(f"{'.'.join(str(p) for p in e['loc']) or '(file)'}: "
                             f"{'unknown key' if e['type'] == 'extra_forbidden' else e['msg']}" for e in exc.errors()[:5])
        raise ValueError(f"{path}: {problems}") from None
    return {e.name: e for e in parsed.experiments}


class SampleRatioCheck(BaseModel):
    """Observed users per arm against the configured split."""

    observed: dict[str, int]
    """Users per arm seen in the log (arms outside the configuration included)."""
    expected_share: dict[str, float]
    """Configured share per arm."""
    chi2: float | None
    """Pearson chi-square statistic over the configured arms (None when no user was seen)."""
    p_value: float | None
    """p-value of the chi-square test with (arms - 1) degrees of freedom."""
    unknown_arms: list[str]
    """Arms in the log that the experiment does not configure (always a mismatch)."""
    mismatch: bool
    """True when p < SRM_ALPHA or the log holds unknown arms."""


def sample_ratio_check(observed: dict[str, int], experiment: Experiment, alpha: float = SRM_ALPHA) -> SampleRatioCheck:
    """Chi-square goodness of fit of the users per arm against the experiment's split.

    >>> sample_ratio_check({"a": 5000, "b": 5000}, Experiment(name="x", salt="s", arms={"a": .5, "b": .5}, control="a")).mismatch
    False
    >>> sample_ratio_check({"a": 5300, "b": 4700}, Experiment(name="x", salt="s", arms={"a": .5, "b": .5}, control="a")).mismatch
    True
    """
    from scipy.stats import chisquare

    counts = [observed.get(arm, 0) for arm in experiment.arms]
    unknown = sorted(set(observed) - set(experiment.arms))
    total = sum(counts)
    chi2 = p_value = None
    if total:
        result = chisquare(counts, [share * total for share in experiment.arms.values()])
        chi2, p_value = float(result.statistic), float(result.pvalue)
    return SampleRatioCheck(observed=dict(observed), expected_share=dict(experiment.arms), chi2=chi2, p_value=p_value,
                            unknown_arms=unknown, mismatch=bool(unknown) or (p_value is not None and p_value < alpha))
