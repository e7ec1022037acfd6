"""Hot reload of rubrics in the running server: a changed weight takes effect without a restart, a request in
flight finishes on the version it started with, the score log records each item's version, and a rubric tree that
fails lint is refused with its messages while the old version keeps serving. The ingress and scorer classes run
here without Ray (Ray pickles the suite the ingress sends; that is checked too)."""

from __future__ import annotations

import asyncio
import json
import os
import pickle
import re
import shutil
import time

import pytest
from starlette.requests import Request

from reward.serve import Ingress, Scorer, ServerArgs
from tests.support import FIXTURE_RUBRICS, TOKEN, make_item, mini_app_args


def request(method: str, path: str, body: dict | None = None, token: str | None = TOKEN) -> Request:
    raw = json.dumps(body).encode() if body is not None else b""
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(raw)).encode())]
    if token:
        headers.append((b"authorization", f"Bearer {token}".encode()))

    async def receive():
        return {"type": "http.request", "body": raw, "more_body": False}

    return Request({"type": "http", "method": method, "path": path, "headers": headers, "query_string": b""}, receive)


class GatedHandle:
    """Stands in for the scorer's DeploymentHandle: calls a real Scorer, after `gate` opens (a request in flight)."""

    def __init__(self, scorer):
        self.gate = asyncio.Event()
        self.gate.set()
        self.seen: list[str] = []
        outer = self

        class Method:
            async def remote(self, suite, items):
                outer.seen.append(suite.version)
                await outer.gate.wait()
                return await scorer.score(pickle.loads(pickle.dumps(suite)), items)

        self.score = Method()


@pytest.fixture
def app(tmp_path, monkeypatch):
    args = mini_app_args(tmp_path, monkeypatch, rubric_poll_s=0.01)
    rubrics = tmp_path / "rubrics"
    handle = GatedHandle(Scorer.func_or_class(args))
    ingress = Ingress.func_or_class.__new__(Ingress.func_or_class)
    asyncio.run(ingress.__init__(handle, args))
    return ingress, handle, rubrics, tmp_path / "scores"


def body(n: int = 2) -> dict:
    items = [make_item(f"i{k}", "Skibidi streams on Spotify [1].", group="g") for k in range(n)]
    return {"suite": "mini", "items": [item.model_dump(mode="json") for item in items]}


def reply(response) -> dict:
    return json.loads(response.body)


def set_weight(rubrics, weight: str) -> None:
    path = rubrics / "suites" / "mini.yaml"
    path.write_text(re.sub(r"useful: [-0-9.]+", f"useful: {weight}", path.read_text()))
    future = time.time() + 5  # a new mtime even on coarse file-system clocks
    os.utime(path, (future, future))


@pytest.mark.filterwarnings("ignore:coroutine .*__del__' was never awaited")
def test_a_changed_weight_takes_effect_while_in_flight_requests_finish_on_their_version(app):
    ingress, handle, rubrics, scores = app

    async def scenario():
        first = reply(await ingress.score(request("POST", "/v1/score", body())))
        handle.gate.clear()
        in_flight = asyncio.create_task(ingress.score(request("POST", "/v1/score", body())))
        while not handle.seen[1:]:
            await asyncio.sleep(0.01)
        set_weight(rubrics, "5.0")
        await asyncio.sleep(0.02)
        detail = reply(ingress.suite_detail("mini", request("GET", "/v1/suites/mini")))  # the watch reloads here
        handle.gate.set()
        return first, reply(await in_flight), detail, reply(await ingress.score(request("POST", "/v1/score", body())))

    first, in_flight, detail, after = asyncio.run(scenario())
    assert in_flight["suite_version"] == first["suite_version"]
    assert after["suite_version"] == detail["version"] != first["suite_version"]
    assert {d["name"]: d["weight"] for d in detail["dimensions"]}["useful"] == 5.0
    assert handle.seen == [first["suite_version"], first["suite_version"], after["suite_version"]]
    from reward.scorelog import read_log

    logged = [record.suite_version for record in read_log(scores)]
    assert sorted(logged) == sorted([first["suite_version"]] * 4 + [after["suite_version"]] * 2)


@pytest.mark.filterwarnings("ignore:coroutine .*__del__' was never awaited")
def test_a_rubric_that_fails_lint_is_refused_and_the_old_version_keeps_serving(app):
    ingress, _, rubrics, _ = app
    before = ingress.suites["mini"].version
    denied = ingress.admin_reload(request("POST", "/v1/admin/reload", token=None))
    assert denied.status_code == 401
    set_weight(rubrics, "-1.0")
    useful = rubrics / "dimensions" / "useful.yaml"
    useful.write_text(useful.read_text() + "colour: red\n")
    refused = ingress.admin_reload(request("POST", "/v1/admin/reload"))
    assert refused.status_code == 422
    errors = "\n".join(reply(refused)["errors"])
    assert "useful.yaml: key 'colour': unknown key" in errors and "weights must be >= 0" in errors
    assert reply(refused)["versions"] == {"mini": before}
    scored = reply(asyncio.run(ingress.score(request("POST", "/v1/score", body()))))
    assert scored["suite_version"] == before and all(r["valid"] for r in scored["results"])
    set_weight(rubrics, "3.0")  # undo the weight; the unknown key is still there
    assert not ingress.reload_rubrics()["reloaded"]
    useful.write_text(useful.read_text().replace("colour: red\n", ""))
    outcome = ingress.reload_rubrics()
    assert outcome["reloaded"] and outcome["versions"] == {"mini": before} and outcome["changed"] == []


@pytest.mark.filterwarnings("ignore:coroutine .*__del__' was never awaited")
def test_a_suite_file_added_to_the_served_folder_answers_within_one_poll_and_a_deleted_one_stops(tmp_path, monkeypatch):
    rubrics = tmp_path / "rubrics"
    shutil.copytree(FIXTURE_RUBRICS, rubrics)
    (rubrics / "suites" / "mini-linear.yaml").unlink()
    monkeypatch.setenv("REWARD_TEST_TOKEN", TOKEN)
    args = ServerArgs(rubrics=str(rubrics), judge="mock", score_log=None, token_env="REWARD_TEST_TOKEN",
                      rubric_poll_s=0.05)  # no `suites`: every suite in the folder
    ingress = Ingress.func_or_class.__new__(Ingress.func_or_class)
    asyncio.run(ingress.__init__(GatedHandle(Scorer.func_or_class(args)), args))
    assert sorted(ingress.suites) == ["mini"]
    fresh = {**body(), "suite": "mini-copy"}
    assert asyncio.run(ingress.score(request("POST", "/v1/score", fresh))).status_code == 404
    copy = rubrics / "suites" / "mini-copy.yaml"
    copy.write_text((rubrics / "suites" / "mini.yaml").read_text().replace("name: mini", "name: mini-copy"))
    time.sleep(0.06)  # one poll
    scored = asyncio.run(ingress.score(request("POST", "/v1/score", fresh)))
    assert scored.status_code == 200 and reply(scored)["suite"] == "mini-copy"
    assert [s["name"] for s in reply(ingress.suites_index(request("GET", "/v1/suites")))["suites"]] == ["mini", "mini-copy"]
    copy.unlink()
    time.sleep(0.06)
    assert asyncio.run(ingress.score(request("POST", "/v1/score", fresh))).status_code == 404
    assert sorted(ingress.suites) == ["mini"]


def test_suites_restricts_the_served_folder(tmp_path):
    from reward.serve.config import served_suites

    assert served_suites(ServerArgs(rubrics=str(FIXTURE_RUBRICS))) == ["mini", "mini-linear"]
    assert served_suites(ServerArgs(rubrics=str(FIXTURE_RUBRICS), suites=["mini"])) == ["mini"]


def test_serve_flags_serve_the_rubric_folder_unless_suites_restricts_it():
    from reward.cli.main import build_parser
    from reward.cli.serve import apply_flags

    parser, _ = build_parser()
    config = {"suites": ["searchllm"], "judge": "local"}
    folder = apply_flags(dict(config), parser.parse_args(["serve", "--rubrics", "my-rubrics"]))
    assert folder == {"judge": "local", "rubrics": "my-rubrics"}
    restricted = apply_flags(dict(config), parser.parse_args(["serve", "--rubrics", "r", "--suites", "a, b"]))
    assert restricted["suites"] == ["a", "b"]
    assert apply_flags(dict(config), parser.parse_args(["serve"]))["suites"] == ["searchllm"]


def test_suite_index_names_the_dimensions_the_local_tier_leaves_unscored(monkeypatch):
    from reward.rubric import DEFAULT_RUBRIC_DIR

    monkeypatch.setenv("REWARD_TEST_TOKEN", TOKEN)
    args = ServerArgs(rubrics=str(DEFAULT_RUBRIC_DIR), judge="local", score_log=None, token_env="REWARD_TEST_TOKEN",
                      suites=["searchllm", "genrm"])
    ingress = Ingress.func_or_class.__new__(Ingress.func_or_class)
    asyncio.run(ingress.__init__(None, args))
    index = {s["name"]: s for s in reply(ingress.suites_index(request("GET", "/v1/suites")))["suites"]}
    assert index["searchllm"]["structurally_unscored"] == ["llm_knowledge"]
    assert index["genrm"]["structurally_unscored"] == ["genrm_holistic"]


@pytest.mark.filterwarnings("ignore:coroutine .*__del__' was never awaited")
def test_a_refused_reload_shows_every_problem_and_a_good_one_logs_what_changed(app, caplog):
    ingress, _, rubrics, _ = app
    before = ingress.suites["mini"].version
    set_weight(rubrics, "-1.0")
    useful = rubrics / "dimensions" / "useful.yaml"
    useful.write_text(useful.read_text() + "colour: red\n")
    assert not ingress.reload_rubrics()["reloaded"]
    warning = reply(asyncio.run(ingress.score(request("POST", "/v1/score", body()))))["rubric_warning"]
    assert "more)" not in warning and warning.count("(1) ") == 1 and "(2) " in warning
    assert "key 'colour': unknown key" in warning and "weights must be >= 0" in warning
    useful.write_text(useful.read_text().replace("colour: red\n", ""))
    set_weight(rubrics, "5.0")
    with caplog.at_level("WARNING", logger="reward.serve.app"):
        outcome = ingress.reload_rubrics()
    after = outcome["versions"]["mini"]
    assert outcome["reloaded"] and outcome["changes"] == [f"suite mini {before} -> {after}: weights useful 3 -> 5"]
    assert f"rubrics reloaded from {rubrics}: suite mini {before} -> {after}: weights useful 3 -> 5" in caplog.text
