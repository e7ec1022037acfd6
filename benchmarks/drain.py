"""SIGTERM to `reward serve` while a large request is in flight: what the client of that request gets, what a new
request gets meanwhile, what reaches the score log, and how long the server takes to exit.

    unshare -n sh -c 'ip link set lo up && .venv/bin/python benchmarks/drain.py --items 4096'
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from reward.scorelog import read_log  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=4096)
    parser.add_argument("--judge", default="mock:0.05", help="judge backend (the delay makes the request last)")
    parser.add_argument("--term-after", type=float, default=3.0, help="seconds after sending the request")
    args = parser.parse_args()
    examples = [json.loads(line) for line in (ROOT / "examples" / "items.jsonl").read_text().splitlines() if line.strip()]
    items = [{**examples[i % len(examples)], "id": f"d{i}", "group": f"g{i // 16}",
              "response": examples[i % len(examples)]["response"] + f" <!-- {i} -->"} for i in range(args.items)]
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    url = f"http://127.0.0.1:{port}"
    with tempfile.TemporaryDirectory() as scratch:
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        env.pop("REWARD_SERVER_TOKEN", None)
        server = subprocess.Popen([sys.executable, "-m", "reward.cli", "serve", "--judge", args.judge, "--port", str(port),
                                   "--log-dir", f"{scratch}/scores", "--drain-timeout", "300"],
                                  cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        deadline = time.monotonic() + 300
        while time.monotonic() < deadline:
            try:
                if httpx.get(f"{url}/healthz", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                time.sleep(0.5)
        answer: dict = {}

        def send() -> None:
            t0 = time.monotonic()
            try:
                reply = httpx.post(f"{url}/v1/score", json={"items": items, "run": "drain", "step": 1}, timeout=900)
                answer.update(status=reply.status_code, results=len(reply.json().get("results", [])))
            except httpx.HTTPError as exc:
                answer.update(status=type(exc).__name__, results=0)
            answer["seconds"] = round(time.monotonic() - t0, 1)

        sender = threading.Thread(target=send)
        sender.start()
        time.sleep(args.term_after)
        server.send_signal(signal.SIGTERM)
        termed = time.monotonic()
        during = None
        for _ in range(100):
            try:
                reply = httpx.post(f"{url}/v1/score", json={"items": items[:1], "run": "late"}, timeout=60)
            except httpx.HTTPError as exc:
                during = {"status": type(exc).__name__}
                break
            if reply.status_code == 503:
                during = {"status": 503, "retry_after": reply.headers.get("retry-after"), "error": reply.json()["error"]}
                break
            time.sleep(0.1)
        sender.join(900)
        code = server.wait(900)
        exit_s = round(time.monotonic() - termed, 1)
        logged = Counter(r.result.id for r in read_log(f"{scratch}/scores") if r.run == "drain")
        tail = [line for line in server.stdout.read().splitlines() if "stopping" in line or "finished" in line
                or "cut off" in line]
    print(json.dumps({
        "benchmark": "drain", "items": args.items, "judge": args.judge, "sigterm_after_s": args.term_after,
        "in_flight_request": answer, "new_request_while_draining": during,
        "logged_once": sum(1 for i in items if logged[i["id"]] == 1), "missing": sum(1 for i in items if not logged[i["id"]]),
        "duplicated": sum(1 for n in logged.values() if n > 1), "exit_code": code, "sigterm_to_exit_s": exit_s,
        "server_said": tail,
        "machine": f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}, "
                   f"load average {os.getloadavg()[0]:.1f}",
    }, indent=2))


if __name__ == "__main__":
    main()
