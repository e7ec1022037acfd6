"""Packaging beyond pyproject.toml: `rubrics/` and `configs/` ship inside the package as `reward/rubrics` and
`reward/configs` (package data), so a non-editable install finds them (see reward/shipped.py). pyproject.toml's
tables cannot map a folder outside the package into it, hence this file."""

from setuptools import find_namespace_packages, setup

setup(
    packages=[*find_namespace_packages(include=["reward*", "policy*"], exclude=["reward.rubrics*", "reward.configs*"]),
              "reward.rubrics", "reward.configs"],
    package_dir={"reward.rubrics": "rubrics", "reward.configs": "configs"},
    package_data={
        # The trained consistency model: LoRA adapter, head, recipe, combination and checksums (verified at load).
        "reward.judges": ["consistency_model/*.json", "consistency_model/*.safetensors", "consistency_model/SHA256SUMS"],
        "reward.rubrics": ["*/*.yaml", "schemas/*.json"],
        "reward.configs": ["*/*.yaml", "*/*/*.yaml"],
        # The dashboard page's HTML and script.
        "reward.dashboard": ["assets/*.html", "assets/*.js"],
    },
)
