"""The `openai` backend against a real LLM: `reward judge-server` (llama.cpp's server, Gemma 3 270M from PyPI) on
loopback, with `configs/judges/llamacpp.yaml`. One server for the module (start ~10 s; each call a few seconds on
a quiet 2-core machine). llama-cpp-python is a declared test dependency (extra `judge-server`): this module fails,
never skips, where it is missing.

Checked: every dimension ends `ok` or `unscored` with a specific reason; with structured outputs (the verdict
schema as a grammar) >= 90% of the calls end `ok`; the prompt count from `/tokenize` (the model's chat template)
equals what the server then charges; a prompt that cannot fit the context is `unscored: context_overflow` with
no completion call; without structured outputs, what the model writes is kept raw when it does not parse.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time

import httpx
import llama_cpp  # noqa: F401 - a declared test dependency: an ImportError here must fail the run, not skip it
import pytest
import yaml

from policy.format import parse_response
from reward.engine import Engine
from reward.judges.base import JudgeRequest
from reward.judges.openai_judge import JudgeConfig, OpenAIJudge
from reward.judges.prompt import render_messages
from reward.rubric import LoadedSuite, load_suite
from reward.schema import Evidence, Item
from tests.support import EXAMPLES, ROOT, free_port

DIMENSIONS = ("claim_hallucination", "query_satisfaction", "answer_useful")
ITEMS = ("gate-good", "concert-irrelevant-evidence")
# What a real judge call may end as besides `ok`: each names its cause.
KNOWN_REASONS = {"unparseable", "label_out_of_scale", "missing_quote", "quote_not_in_evidence", "truncated",
                 "judge_timeout", "context_overflow", "template_echo"}
N_CTX = 4096


@pytest.fixture(scope="module")
def judge_url(tmp_path_factory):
    log_path = tmp_path_factory.mktemp("judge-server") / "server.log"
    port = free_port()
    with log_path.open("w") as log:
        process = subprocess.Popen([sys.executable, "-m", "reward.cli", "judge-server", "--port", str(port),
                                    "--n-ctx", str(N_CTX), "--cache-dir", str(ROOT / "var" / "models")],
                                   cwd=ROOT, stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}/v1"
    try:
        deadline = time.monotonic() + 180
        while True:
            if process.poll() is not None:
                raise RuntimeError(f"judge server exited with {process.returncode}:\n{log_path.read_text()[-3000:]}")
            try:
                if httpx.get(f"{url}/models", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if time.monotonic() > deadline:
                raise RuntimeError(f"judge server did not start in 180 s:\n{log_path.read_text()[-3000:]}")
            time.sleep(0.5)
        yield url
    finally:
        process.terminate()
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()


def judge_for(url: str, **overrides) -> OpenAIJudge:
    """The bundled llamacpp config, pointed at the test's server."""
    data = yaml.safe_load((ROOT / "configs" / "judges" / "llamacpp.yaml").read_text())
    data["endpoints"][0].update(base_url=url, **overrides)
    return OpenAIJudge(JudgeConfig.model_validate(data))


def few_dimensions(names=DIMENSIONS) -> LoadedSuite:
    suite = load_suite("searchllm")
    return LoadedSuite(suite=suite.suite.model_copy(update={"dimensions": {n: suite.suite.dimensions[n] for n in names}}),
                       dimensions={n: suite.dimensions[n] for n in names}, version=suite.version, files=suite.files)


def items(ids=ITEMS) -> list[Item]:
    rows = [Item.model_validate(json.loads(line)) for line in EXAMPLES.read_text().splitlines() if line.strip()]
    return [row for row in rows if row.id in ids]


def test_structured_verdicts_from_a_real_model_parse(judge_url):
    suite = few_dimensions()
    results = Engine(suite, judge_for(judge_url), max_concurrency=2).score_sync(items())
    verdicts = [(r.id, name, d) for r in results for name, d in r.dimensions.items() if name in DIMENSIONS]
    assert len(verdicts) == len(ITEMS) * len(DIMENSIONS)
    for item_id, name, d in verdicts:
        assert d.backend == "openai:gemma3-270m"
        assert d.status == "ok" or d.reason in KNOWN_REASONS, (item_id, name, d.reason, d.explanation)
        if d.status == "ok":
            assert d.score is not None and 0.0 <= d.score <= 1.0 and d.label in {"0", "1", "2"}
            assert d.score_source == "label"  # this server returns no logprobs: the parsed label, said so
            assert all(q.verified for q in d.quotes)  # quotes are constrained to evidence sentences
        else:
            assert d.score is None and (d.raw or d.explanation)
        assert d.usage is not None and d.usage.prompt_tokens > 500 and d.usage.completion_tokens > 0
    # Structured outputs always give a well-formed verdict object; this small model sometimes fills its reasoning with
    # the contract's placeholder, which is no verdict (`template_echo`) and is never accepted as one.
    parsed = sum(d.status == "ok" or d.reason == "template_echo" for _, _, d in verdicts)
    assert parsed / len(verdicts) >= 0.9, [(i, n, d.reason, d.raw) for i, n, d in verdicts if d.status != "ok"]
    assert not any(d.status == "ok" and "criterion's checks one by one" in (d.explanation or "") for _, _, d in verdicts)
    claims = [d for _, name, d in verdicts if name == "claim_hallucination"]
    # Quotes come with the claim verdicts the model fills in; the ones it fills with the placeholder are no verdict.
    assert any(d.quotes for d in claims if d.status == "ok") or all(d.reason == "template_echo" for d in claims)


def test_the_counted_prompt_is_what_the_server_charges(judge_url):
    import asyncio

    suite = few_dimensions(("answer_useful",))
    item = items(("gate-good",))[0]
    counter = judge_for(judge_url)  # its client lives on this asyncio.run's loop; the engine gets its own judge
    request = counter.adapt(JudgeRequest(suite.dimensions["answer_useful"], item, parse_response(item.response)))
    counted, context = asyncio.run(counter.prompt_tokens(0, render_messages(request)))
    assert context == N_CTX
    result = Engine(suite, judge_for(judge_url)).score_sync([item])[0].dimensions["answer_useful"]
    # Each call (a re-ask after a reply that was no verdict included) is charged the counted prompt.
    assert result.usage.calls >= 1 and result.usage.prompt_tokens == counted * result.usage.calls


def test_a_prompt_that_cannot_fit_is_unscored_before_any_call(judge_url):
    suite = few_dimensions(("answer_useful",))
    item = items(("gate-good",))[0]
    filler = " ".join(f"Platform {i} of the station is served by line {i % 7}." for i in range(600))
    long_item = item.model_copy(update={"id": "too-long", "evidence": [*item.evidence, Evidence(id="99", title="Timetable", text=filler)]})
    started = time.perf_counter()
    result = Engine(suite, judge_for(judge_url)).score_sync([long_item])[0].dimensions["answer_useful"]
    assert result.status == "unscored" and result.reason == "context_overflow"
    assert f"context of {N_CTX} tokens" in result.explanation
    assert result.usage is None  # no completion was asked for
    assert time.perf_counter() - started < 30  # tokenizing only (a completion of this prompt would take minutes)


def test_free_text_replies_are_kept_raw_when_they_do_not_parse(judge_url):
    # Without the grammar a 270M model rarely follows the tags contract: whatever it writes must end `ok` or
    # `unscored` with a reason and the raw reply, never an exception or a guessed score.
    suite = few_dimensions(("answer_useful",))
    judge = judge_for(judge_url, structured_outputs="off", max_tokens=96)
    judge.parse_retries = 0
    result = Engine(suite, judge).score_sync(items(("gate-good",)))[0].dimensions["answer_useful"]
    assert result.status == "ok" or (result.reason in KNOWN_REASONS and result.raw)
    assert result.usage.completion_tokens > 0
