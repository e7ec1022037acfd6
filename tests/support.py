"""Test helpers: the small test suite's location, evidence, and items built in the policy format."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from policy.format import Facet, render_response
from reward.schema import Evidence, Item

ROOT = Path(__file__).resolve().parent.parent
FIXTURE_RUBRICS = ROOT / "tests" / "fixtures" / "rubrics"
EXAMPLES = ROOT / "examples" / "items.jsonl"
TOKEN = "test-token-123"
AUTH = {"Authorization": f"Bearer {TOKEN}"}


def free_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def mini_app_args(tmp_path: Path, monkeypatch, **overrides):
    """Server args serving the `mini` suite from a copy of the fixture rubrics (`tmp_path / "rubrics"`, without
    `mini-linear`), the mock judge, the score log in `tmp_path / "scores"` and the test token."""
    import shutil

    from reward.serve import ServerArgs

    rubrics = tmp_path / "rubrics"
    shutil.copytree(FIXTURE_RUBRICS, rubrics)
    (rubrics / "suites" / "mini-linear.yaml").unlink()
    monkeypatch.setenv("REWARD_TEST_TOKEN", TOKEN)
    return ServerArgs(suites=["mini"], rubrics=str(rubrics), judge="mock", score_log=str(tmp_path / "scores"),
                      token_env="REWARD_TEST_TOKEN", **overrides)


def in_process_ingress(args):
    """The ingress and one scorer of the reward app, in this process (no Ray): the scorer's handle calls it directly."""
    import asyncio

    from reward.serve import Ingress, Scorer

    scorer = Scorer.func_or_class(args)

    class Handle:
        class score:
            @staticmethod
            async def remote(suite, items):
                return await scorer.score(suite, items)

    ingress = Ingress.func_or_class.__new__(Ingress.func_or_class)  # the ASGI wrapper's __init__ is async
    asyncio.run(ingress.__init__(Handle(), args))
    return ingress


def scripted_judge_config(folder: Path, port: int) -> Path:
    """A judge config for the scripted judge server on `port`: no retries, so a scripted failure reaches the engine."""
    config = folder / "judge.yaml"
    config.write_text(f"parse_retries: 0\nendpoints:\n  - base_url: http://127.0.0.1:{port}/v1\n    model: mock-judge\n"
                      "    timeout_s: 5\n    max_retries: 0\n    backoff_s: 0.01\n")
    return config

# A two-magazine passage and an unrelated one: the local tier's same-evidence cases.
MAGAZINES = Evidence(id="1", title="Women's magazines", text=(
    "Arthur's Magazine was an American literary periodical published in Philadelphia in the 19th century. "
    "It was founded in 1844 by Timothy Shay Arthur. First for Women is a women's magazine published by Bauer Media "
    "Group in the USA. It was started in 1989."))
PORTS = Evidence(id="2", title="Port of Philadelphia", text=(
    "The Port of Philadelphia handles cargo on the Delaware River. Its terminals were modernised in the 1990s "
    "and serve container ships from Europe."))

EVIDENCE = [
    Evidence(id="1", title="Streaming", text="Skibidi is now streaming on Spotify, Apple Music and KKBox; the free tier is supported.",
             source="web", published=dt.date(2025, 9, 2)),
    Evidence(id="2", title="Premiere", text="The song premiered worldwide on 27 August 2025 at 10:00 on radio stations.",
             source="news", published=dt.date(2025, 8, 20)),
    Evidence(id="3", title="Succulents", text="Peach Egg succulents need bright light and little water.", source="note"),
]


def make_item(item_id: str, answer: str, *, group: str | None = "g1", selected=("1",), query="Where can I listen to Skibidi for free?") -> Item:
    response = render_response([Facet("Where to stream it for free?", tuple(selected))], list(selected), answer)
    return Item(id=item_id, group=group, query=query, evidence=EVIDENCE, response=response, now=dt.date(2026, 1, 10))


