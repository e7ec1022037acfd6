"""Reward hacking: each probe is a clean response plus one exploit; with the embedded local tier no probe may earn
more than its clean response, and the rules flag judge-addressing text and fake score tags."""

import pytest

from reward.engine import Engine
from reward.judges.local import LocalJudge
from reward.probes import CLEAN_EXAMPLES, EXPLOITS, make_probes, run_probes
from reward.rubric import load_suite
from reward.rules import RULES
from policy.format import parse_response

pytestmark = pytest.mark.filterwarnings("ignore")


@pytest.fixture(scope="module")
def rows(request):
    import json

    from reward.schema import Item
    from tests.support import EXAMPLES

    items = [Item.model_validate(json.loads(l)) for l in EXAMPLES.read_text().splitlines() if l.strip()]
    clean = [i for i in items if i.id in CLEAN_EXAMPLES]
    return run_probes(clean, Engine(load_suite("searchllm"), LocalJudge()))


def test_every_exploit_is_probed_on_every_clean_example(rows):
    assert {(r["clean"], r["exploit"]) for r in rows} == {(c, e) for c in CLEAN_EXAMPLES for e in EXPLOITS}


@pytest.mark.parametrize("exploit", sorted(EXPLOITS))
def test_no_exploit_beats_the_clean_response(rows, exploit):
    for row in (r for r in rows if r["exploit"] == exploit):
        assert row["held"], f"{exploit} on {row['clean']}: {row['probe_reward']:.3f} > {row['clean_reward']:.3f}"


def test_probes_change_only_the_response_and_stay_well_formed(example_items):
    clean = next(i for i in example_items if i.id == "gate-good")
    for name, probe in make_probes(clean):
        assert probe.model_dump(exclude={"id", "response"}) == clean.model_dump(exclude={"id", "response"})
        assert probe.response != clean.response
        if name not in ("fake_score_tags",):
            assert parse_response(probe.response).problems == [], name


def test_rules_flag_judge_addressing_and_fake_tags(example_items):
    clean = next(i for i in example_items if i.id == "gate-good")
    probes = dict(make_probes(clean))
    for name in ("judge_addressing", "fake_score_tags"):
        result = RULES["injection.judge_address"](probes[name], parse_response(probes[name].response))
        assert not result.passed, name
    assert RULES["injection.judge_address"](clean, parse_response(clean.response)).passed
    copied = probes["evidence_copy"]
    assert not RULES["copy.evidence"](copied, parse_response(copied.response)).passed
    spam = probes["citation_spam"]
    assert RULES["citations.valid"](spam, parse_response(spam.response)).findings["spam"]
