"""`reward serve` as an operator runs it: a rubric file broken while it serves is refused, printed on the terminal and
flagged in replies; SIGTERM with a request in flight: new requests get 503 with `Retry-After`, the request in flight
is answered and logged once, then the server exits 0. The real app on a local Ray (run inside a private network
namespace, like every test that starts Ray)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections import Counter

import httpx

from reward.scorelog import read_log
from tests.support import EXAMPLES, ROOT, free_port


def test_a_refused_reload_is_printed_and_sigterm_drains_the_request_in_flight_then_exits(tmp_path):
    import shutil

    rubrics = tmp_path / "rubrics"
    shutil.copytree(ROOT / "rubrics", rubrics)
    port = free_port()
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("REWARD_SERVER_TOKEN", None)
    server = subprocess.Popen(
        [sys.executable, "-m", "reward.cli", "serve", "--judge", "mock:6", "--port", str(port), "--log-dir",
         str(tmp_path / "scores"), "--drain-timeout", "60", "--rubrics", str(rubrics)],
        cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 240
        while time.monotonic() < deadline:
            try:
                if httpx.get(f"{url}/healthz", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                time.sleep(0.5)
        else:
            raise AssertionError("the server did not start")
        broken = rubrics / "dimensions" / "format.yaml"
        broken.write_text(broken.read_text() + "scale: [\n")
        for _ in range(40):  # the watch polls every 2 s; /healthz probes run it
            if httpx.get(f"{url}/healthz", timeout=5).json().get("rubrics") == "stale":
                break
            time.sleep(0.5)
        items = [{**json.loads(line), "id": f"d{n}"} for n, line in enumerate(EXAMPLES.read_text().splitlines()[:4])]
        answered: dict = {}

        def send():
            answered["reply"] = httpx.post(f"{url}/v1/score", json={"items": items, "run": "drain", "step": 1},
                                           timeout=120)

        sender = threading.Thread(target=send)
        sender.start()
        time.sleep(1.5)  # the request is in flight: every judge call takes 6 s
        server.send_signal(signal.SIGTERM)
        for _ in range(200):  # the drain reaches the replica within moments; /healthz says so without scoring
            if httpx.get(f"{url}/healthz", timeout=5).json().get("draining"):
                break
            time.sleep(0.02)
        refused = None
        for _ in range(50):
            refused = httpx.post(f"{url}/v1/score", json={"items": items[:1]}, timeout=30)
            if refused.status_code == 503:
                break
            time.sleep(0.1)
        sender.join(120)
        status = server.wait(120)
    finally:
        if server.poll() is None:
            server.kill()
    output = server.stdout.read()
    assert refused is not None and refused.status_code == 503, refused and refused.text
    assert refused.headers.get("retry-after") and "shutting down" in refused.json()["error"]
    reply = answered["reply"]
    assert reply.status_code == 200 and [r["id"] for r in reply.json()["results"]] == [i["id"] for i in items]
    assert "format.yaml" in reply.json()["rubric_warning"]
    assert status == 0, output[-2000:]
    assert "rubric reload refused, still serving the previous versions" in output and "format.yaml" in output
    assert "every request in flight finished" in output
    logged = Counter(r.result.id for r in read_log(tmp_path / "scores") if r.run == "drain")
    assert logged == Counter({i["id"]: 1 for i in items})


def test_a_restart_on_the_same_port_waits_until_the_stopped_server_lets_go_of_it(caplog):
    """A redeploy right after `stop_server` must not race the old proxy for its port: the start waits until the port
    can be bound, and where it never frees, says so and goes on (the proxy's own error then names the port)."""
    import socket

    from reward.serve.runner import _wait_until_free

    held = socket.socket()
    held.bind(("127.0.0.1", 0))
    held.listen()
    port = held.getsockname()[1]
    threading.Timer(1.0, held.close).start()
    started = time.monotonic()
    _wait_until_free("127.0.0.1", port, timeout_s=20.0)
    assert 0.9 <= time.monotonic() - started < 15.0
    with socket.socket() as again:  # free now: a new listener binds it
        again.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        again.bind(("127.0.0.1", port))
        again.listen()
        with caplog.at_level("WARNING", logger="reward.serve.runner"):
            _wait_until_free("127.0.0.1", port, timeout_s=0.5)
    assert f"127.0.0.1:{port} is still in use after 0 s" in caplog.text
