"""benchmarks/local_tier.py: every group gets evidence no text cache has seen, with the same tokens as its prompt's
(so the same model work), and `distinct` rollouts share no answer sentence."""

import importlib.util

from policy.format import parse_response, split_sentences
from tests.support import ROOT


def _benchmark():
    spec = importlib.util.spec_from_file_location("local_tier", ROOT / "benchmarks" / "local_tier.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_groups_past_the_prompts_get_new_evidence_text_with_the_same_tokens():
    from transformers import AutoTokenizer

    from reward.judges.local_runtime import minilm_path

    bench = _benchmark()
    items = bench.grpo_batch(groups=15, rollouts=2)
    evidence_of = {}
    for item in items:
        evidence_of.setdefault(item.group, tuple(d.text for d in item.evidence))
    assert len(set(evidence_of.values())) == 15  # no two groups share their evidence text
    first, copy = items[0], items[26]  # group 13 re-uses prompt 0, re-spaced
    assert copy.query != first.query and copy.evidence[0].text != first.evidence[0].text
    tokenizer = AutoTokenizer.from_pretrained(str(minilm_path()))
    assert tokenizer(copy.evidence[0].text)["input_ids"] == tokenizer(first.evidence[0].text)["input_ids"]
    assert tokenizer(copy.query)["input_ids"] == tokenizer(first.query)["input_ids"]


def test_distinct_rollouts_share_no_answer_sentence():
    bench = _benchmark()
    shared = bench.grpo_batch(groups=1, rollouts=16)
    distinct = bench.grpo_batch(groups=1, rollouts=16, rollout_text="distinct")

    def sentences(items):
        return [s for item in items for s in split_sentences(parse_response(item.response).answer or "")
                if len(s.split()) >= 4 and "variant" not in s]

    assert len(set(sentences(shared))) < len(sentences(shared)) / 4  # rollouts re-use 4 example answers
    assert len(set(sentences(distinct))) == len(sentences(distinct))
    assert [s.replace("\u2000", " ") for s in sentences(distinct)] == sentences(shared)


def test_replicas_score_disjoint_shares_of_the_groups_and_start_together():
    """`--replicas 2`: two single-threaded processes, one per core, each scoring its share of the groups (no group
    twice), their items/s taken over the slower one's wall time."""
    import json
    import os
    import subprocess
    import sys

    import pytest

    if len(os.sched_getaffinity(0)) < 2:
        pytest.skip("SKIPPED LOUDLY: --replicas 2 needs two cores; this machine gives the test one")
    reply = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "local_tier.py"), "--replicas", "2", "--groups",
                            "3", "--rollouts", "2"], capture_output=True, text=True, timeout=600, check=True)
    report = json.loads(reply.stdout)
    assert report["replicas"] == 2 and report["items"] == 6
    assert [run["groups"] for run in report["runs"]] == [2, 1]
    assert sorted(tuple(run["cpu_affinity"]) for run in report["runs"]) == [(0,), (1,)]
    slowest = max(run["new_evidence"]["wall_s"] for run in report["runs"])
    assert report["items_per_s_new_evidence"] == round(6 / slowest, 2)
