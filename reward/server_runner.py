"""Start and stop the reward server on a local Ray, and score a JSONL file through its HTTP API.

Used by `reward serve`, `make run`, the integration tests and the benchmarks, so all of them run the same app the
same way.
"""

from __future__ import annotations

import json
import logging
import os
import time
from pathlib import Path

import httpx

from reward.serve import ServerArgs, build_app

log = logging.getLogger(__name__)


def start_server(args: ServerArgs, *, host: str = "127.0.0.1", port: int = 8000, num_cpus: int | None = None,
                 timeout_s: float = 120.0) -> str:
    """Start a local Ray (unless RAY_ADDRESS names a cluster), deploy the app, wait until healthy; returns its URL."""
    import ray
    from ray import serve

    if not ray.is_initialized():
        ray.init(
            address=os.environ.get("RAY_ADDRESS"),
            num_cpus=num_cpus,
            include_dashboard=False,
            logging_level=logging.WARNING,
            log_to_driver=False,
            # Workers import this project from the working tree, like the driver.
            runtime_env={"env_vars": {"PYTHONPATH": os.pathsep.join(filter(None, [str(Path.cwd()), os.environ.get("PYTHONPATH")]))}},
        )
    for attempt in range(3):
        try:
            serve.start(http_options={"host": host, "port": port})
            break
        except ray.exceptions.RayActorError:
            # Serve gives its HTTP proxy 60 s to start and kills it after; on an overloaded machine that is not
            # enough the first time, while the workers it started meanwhile make the next try quicker.
            if attempt == 2:
                raise
            log.warning("Serve's HTTP proxy did not start in time; retrying (%d of 2)", attempt + 1)
    serve.run(build_app(args), name="reward", route_prefix="/", blocking=False)
    url = f"http://{host}:{port}"
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        try:
            if httpx.get(f"{url}/healthz", timeout=2.0).status_code == 200:
                return url
        except httpx.HTTPError:
            pass
        time.sleep(0.5)
    raise TimeoutError(f"the reward server did not become healthy at {url} within {timeout_s:.0f} s")


def stop_server() -> None:
    import ray
    from ray import serve

    try:
        serve.shutdown()
    finally:
        ray.shutdown()


def score_file_over_http(url: str, path: Path, *, suite: str = "searchllm", token: str | None = None) -> list:
    """POST a JSONL file of items to `/v1/score` and print the reward and per-dimension tables."""
    from reward.report import print_report
    from reward.rubric import load_suite
    from reward.schema import ScoreResponse

    items = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    reply = httpx.post(f"{url}/v1/score", json={"suite": suite, "items": items}, headers=headers, timeout=600.0)
    reply.raise_for_status()
    results = ScoreResponse.model_validate_json(reply.content).results
    print_report(results, load_suite(suite))
    return results
