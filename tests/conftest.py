"""Shared fixtures: the small test suite and the bundled examples."""

from __future__ import annotations

import json

import pytest

from reward.rubric import load_suite
from reward.schema import Item
from tests.support import EXAMPLES, FIXTURE_RUBRICS


@pytest.fixture
def mini_suite():
    return load_suite("mini", FIXTURE_RUBRICS)


@pytest.fixture
def example_items() -> list[Item]:
    return [Item.model_validate(json.loads(line)) for line in EXAMPLES.read_text().splitlines() if line.strip()]
