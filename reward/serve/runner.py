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

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from reward.serve.app import build_app
from reward.serve.config import ServerArgs

log = logging.getLogger(__name__)

LOOPBACK = ("127.", "::1", "localhost")


class _Config(BaseModel):
    model_config = ConfigDict(extra="forbid")


class HttpOptions(_Config):
    """`http_options` of a Serve config file, as `reward serve` applies them."""

    host: str = "127.0.0.1"
    port: int = Field(default=8000, ge=0, le=65535)
    request_timeout_s: float | None = Field(default=None, gt=0)
    """End-to-end timeout of one HTTP request at the proxy (a GRPO step's batch may take minutes of judge time)."""
    keep_alive_timeout_s: float | None = Field(default=None, gt=0)


class ActorOptions(_Config):
    num_cpus: float = Field(gt=0)


class DeploymentOptions(_Config):
    """A `deployments:` entry: the options `reward serve` honours for its two deployments."""

    name: Literal["Scorer", "Ingress"]
    num_replicas: int = Field(default=1, ge=1)
    ray_actor_options: ActorOptions | None = None
    """Only for Scorer: CPUs per scoring replica."""


class Application(_Config):
    name: str = "reward"
    route_prefix: Literal["/"] = "/"
    import_path: Literal["reward.serve:build_app"] = "reward.serve:build_app"
    args: dict = Field(default_factory=dict)
    deployments: list[DeploymentOptions] = Field(default_factory=list)


class ServeConfig(_Config):
    """A Serve config file (configs/serve/*.yaml) as `reward serve --config` reads it: every key it documents is
    applied, any other key is refused (`serve run CONFIG` takes Serve's full schema)."""

    proxy_location: Literal["EveryNode", "HeadOnly", "Disabled"] = "EveryNode"
    http_options: HttpOptions = Field(default_factory=HttpOptions)
    applications: list[Application] = Field(min_length=1, max_length=1)

    def server_args(self) -> ServerArgs:
        app = self.applications[0]
        args = dict(app.args)
        for deployment in app.deployments:
            if deployment.name == "Scorer":
                args["scorer_replicas"] = deployment.num_replicas
                if deployment.ray_actor_options is not None:
                    args["scorer_cpus"] = deployment.ray_actor_options.num_cpus
            else:
                if deployment.ray_actor_options is not None:
                    raise ValueError("deployments.Ingress.ray_actor_options: not applied to the ingress; remove it")
                args["ingress_replicas"] = deployment.num_replicas
        return ServerArgs.model_validate(args)


def is_loopback(host: str) -> bool:
    return host.startswith(LOOPBACK)


def require_auth_off_loopback(host: str, token_env: str, insecure: bool = False) -> None:
    """Refuse to serve on a non-loopback address without a bearer token, unless told `insecure` explicitly."""
    if is_loopback(host) or insecure or os.environ.get(token_env):
        return
    raise PermissionError(
        f"refusing to bind {host} without a token: set {token_env} (every client then sends "
        f"'Authorization: Bearer <token>'), bind 127.0.0.1, or pass --insecure on a network you trust"
    )


def start_server(args: ServerArgs, *, host: str = "127.0.0.1", port: int = 8000, num_cpus: int | None = None,
                 timeout_s: float = 600.0, http: HttpOptions | None = None,
                 proxy_location: str = "EveryNode") -> str:
    """Start a local Ray (unless RAY_ADDRESS names a cluster), deploy the app, wait until healthy (which includes the
    scorers' warm-up: the local tier's models load before `/healthz` says ok); returns its URL."""
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
    extra = http.model_dump(exclude={"host", "port"}, exclude_none=True) if http else {}
    if not os.environ.get("RAY_ADDRESS"):
        # A server stopped a moment ago (a restart, a redeploy with other arguments) may still hold the port while
        # its proxy process exits; Serve's new proxy would fail to bind it and the app would never come up.
        _wait_until_free(host, port, timeout_s=20.0)
    for attempt in range(3):
        try:
            serve.start(http_options={"host": host, "port": port, **extra}, proxy_location=proxy_location)
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


def _wait_until_free(host: str, port: int, *, timeout_s: float) -> None:
    """Wait until `host:port` can be bound (the way Serve's proxy binds it); after `timeout_s`, warn and go on, so
    the proxy's own error names the port."""
    import socket

    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    deadline = time.monotonic() + timeout_s
    while True:
        with socket.socket(family, socket.SOCK_STREAM) as probe:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            try:
                probe.bind((host, port))
                return
            except OSError as exc:
                if time.monotonic() >= deadline:
                    log.warning("%s:%d is still in use after %.0f s (%s); starting anyway", host, port, timeout_s, exc)
                    return
        time.sleep(0.25)


def ingress_replicas(app_name: str = "reward") -> set[str]:
    """Ids of the app's live ingress replicas (Serve names their actors `SERVE_REPLICA::<app>#Ingress#<id>`)."""
    import ray

    prefix = f"SERVE_REPLICA::{app_name}#Ingress#"
    return {actor["name"][len(prefix):] for actor in ray.util.list_named_actors(all_namespaces=True)
            if actor["name"].startswith(prefix)}


def drain(timeout_s: float, *, app_name: str = "reward") -> tuple[bool, int]:
    """Stop admission on every ingress replica (new score requests get 503 with `Retry-After`) and wait up to
    `timeout_s` until none has a request in flight. Returns whether they all finished, and how many were still in
    flight at the end (0 when drained).

    Every replica must hear it: the handle routes each call to one replica, so the calls repeat until every live
    replica has answered; a replica's count only falls once it drains (a request is counted before it is admitted).
    """
    from ray import serve

    handle = serve.get_app_handle(app_name)
    expected = ingress_replicas(app_name)
    latest: dict[str, int] = {}
    deadline = time.monotonic() + timeout_s
    while True:
        left = deadline - time.monotonic()
        try:
            reply = handle.begin_drain.remote().result(timeout_s=max(1.0, min(left, 10.0)))
            latest[reply["replica"]] = reply["requests_in_flight"]
        except Exception as exc:  # a replica that died meanwhile has nothing left to finish
            log.warning("drain: %s", exc)
            expected = ingress_replicas(app_name)
        heard = expected <= set(latest)
        if heard and not any(latest.get(r, 0) for r in expected):
            return True, 0
        if left <= 0:
            return False, sum(latest.get(r, 0) for r in expected)
        time.sleep(0.2 if heard else 0.01)


def serve_until_stopped(url: str, args: ServerArgs, echo=print) -> int:
    """Run until SIGTERM or Ctrl-C, then drain and stop. Meanwhile print every refused rubric reload (and the
    reload that clears it), as `/healthz` reports them. Returns the exit status: 0 when every request in flight
    finished within `args.drain_timeout_s`, else 1."""
    import signal
    import threading

    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    reason: str | None = None
    try:
        while not stop.wait(1.0):
            try:
                reason = _report_rubrics(url, reason, echo)
            except Exception:  # reporting must never stop the server
                log.exception("could not report the rubric state")
    except KeyboardInterrupt:
        pass
    echo(f"stopping: new requests get 503; waiting up to {args.drain_timeout_s:g} s for those in flight")
    try:
        drained, left = drain(args.drain_timeout_s)
    except Exception as exc:  # Serve already gone: nothing left to wait for
        log.warning("drain failed: %s", exc)
        drained, left = True, 0
    echo("every request in flight finished" if drained else
         f"drain timeout: {left} requests still in flight are cut off")
    stop_server()
    return 0 if drained else 1


def _report_rubrics(url: str, reported: str | None, echo) -> str | None:
    try:
        health = httpx.get(f"{url}/healthz", timeout=5.0).json()
    except (httpx.HTTPError, ValueError):
        return reported
    reason = health.get("rubrics_reason")
    if reason and reason != reported:
        echo(f"rubric reload refused, still serving the previous versions: {reason}")
    elif reported and not reason:
        echo("rubrics reloaded; the refused change is resolved")
    return reason


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
