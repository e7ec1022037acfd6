"""The server's configuration: request limits (`Limits`, changeable through `user_config`), the application
builder's arguments (`ServerArgs`), and the secrets check every replica runs at start (a replica that lacks a secret
the app was built with, or holds a different one, refuses to start)."""

import hashlib
import os
import socket

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from pathlib import Path

from reward.rubric import DEFAULT_RUBRIC_DIR, list_suites
from reward.scorelog import Retention
from reward.shipped import resolve_config


class Limits(BaseModel):
    """Request limits and fan-out, changeable at run time through `user_config`."""

    model_config = ConfigDict(extra="forbid")

    max_items: int = Field(default=4096, ge=1)
    """Most items in one request (a GRPO step of 128 prompts x 16 rollouts is 2048)."""
    max_bytes: int = Field(default=64 * 1024 * 1024, ge=1024)
    """Largest request body, in bytes."""
    chunk_items: int = Field(default=256, ge=1)
    """Items per scoring call; groups are never split across chunks."""
    chunks_per_scorer: int = Field(default=2, ge=1)
    """Chunks one ingress replica keeps in flight per scoring replica. The requests in flight take turns for these
    slots, one chunk each, so a small request waits for one chunk, not for a large request's whole batch; two per
    scorer keep a scorer busy (its judge calls run `judge_concurrency` at a time) while the queue stays short."""
    chunk_retries: int = Field(default=2, ge=0)
    """Retries of a chunk whose scoring replica failed (e.g. died mid-request)."""
    max_depth: int = Field(default=16, ge=6)
    """Deepest JSON nesting accepted (the wire format needs 5: body, items, item, evidence, document)."""
    max_string_chars: int = Field(default=1_000_000, ge=1024)
    """Longest string (value or key) accepted, in characters."""
    max_items_in_flight: int = Field(default=8192, ge=1)
    """Items admitted and not yet answered on one ingress replica; a request that would exceed it gets 503."""
    max_bytes_in_flight: int = Field(default=192 * 1024 * 1024, ge=1024)
    """Request body bytes admitted and not yet answered on one ingress replica, counted before a body is read or
    parsed (a declared length up front, a chunked body as it arrives); beyond it: 503 with `Retry-After`. With
    `max_bytes` it bounds the ingress's memory for bodies and their parsed items."""
    small_items: int = Field(default=16, ge=0)
    """A request of at most this many items is small: when every chunk slot is busy it takes one of the express
    slots beyond them (one per scoring replica), so it waits for no other request's chunk; its parsing, validation
    and reply stay on the event loop, while a larger request's run in worker threads. 0: no request is small."""
    retry_after_s: int = Field(default=2, ge=1)
    """`Retry-After` of a 503 (server busy, judge outage or score log unavailable); clients add jitter."""
    max_failed_share: float = Field(default=0.5, ge=0.0, le=1.0)
    """Largest share of a request's items that may be invalid for a judge failure (timeout, rate limit, judge
    down) and still be answered; beyond it the request gets 503 with `Retry-After` and nothing of it is logged, so a
    trainer retries instead of stepping on masked items (`reward.serve.outage`). 1.0 answers every batch."""

    @model_validator(mode="after")
    def _one_request_fits_in_flight(self) -> "Limits":
        if self.max_items_in_flight < self.max_items:
            raise ValueError(f"max_items_in_flight ({self.max_items_in_flight}) must be at least max_items ({self.max_items}), "
                             "or a full request could never be admitted")
        if self.max_bytes_in_flight < self.max_bytes:
            raise ValueError(f"max_bytes_in_flight ({self.max_bytes_in_flight}) must be at least max_bytes ({self.max_bytes}), "
                             "or a full request could never be admitted")
        return self


class ServerArgs(BaseModel):
    """Arguments of the application builder (the `args:` of a Serve config file)."""

    model_config = ConfigDict(extra="forbid")

    suites: list[str] | None = None
    """Suites to serve; a request names one of them. None (the default): every suite file in `rubrics`, following
    hot reload (a suite file added while serving is served from the next poll on, a deleted one is not)."""
    rubrics: str = str(DEFAULT_RUBRIC_DIR)
    """Rubric folder."""
    rubric_poll_s: float = Field(default=2.0, ge=0)
    """Hot reload: a request checks the rubric files for changes at most this often; 0 turns the watch off
    (`POST /v1/admin/reload` still reloads)."""
    rubric_allow_shrink: bool = False
    """Hot reload accepts a suite that loses dimensions or keys against its running version (off: such a reload is
    refused as a probably half-written file; `reward serve --allow-shrink` turns it on)."""
    drain_timeout_s: float = Field(default=120.0, gt=0)
    """At SIGTERM, `reward serve` stops admitting requests (503 with `Retry-After`) and waits up to this long for
    the requests in flight to finish and be logged before it stops the app."""
    judge: str = "local"
    """Judge backend: `local`, `mock` / `mock-hash` (test judges: the best label / a grade hashed from what the
    judge reads), or a judge endpoint config (configs/judges/*.yaml)."""
    judge_concurrency: int = Field(default=256, ge=1)
    """Judge calls in flight per scoring replica."""
    score_log: str | None = "var/scores"
    """Folder of the durable score log; None disables it."""
    score_log_retention: Retention | None = None
    """Delete score-log segments past a maximum age or beyond a total size (checked when a segment opens)."""
    score_store: str | None = None
    """Where the score log's shared state lives (request-id claims, batch completeness, the aggregates): None, the
    SQLite file beside the segments (one host); or a PostgreSQL URL (`postgresql://reward@db:5432/rewards`) that every
    reward node writes through, with the password in `PGPASSWORD` or a password file, never in the URL. Each node's
    segments stay on its own disk (docs/cluster.md#score-store)."""
    dashboard_trainer_metrics: dict[str, str] = Field(default_factory=dict)
    """Run name -> the trainer's metrics file (TRL trainer_state.json, verl file-logger JSONL or console output, CSV
    with `step`; "" for the only run), drawn on `GET /dashboard` beside the reward curves. A file not written yet is
    named on the page, not an error."""
    token_env: str = "REWARD_SERVER_TOKEN"
    """Environment variable holding the bearer token; when it is unset or empty, no auth."""
    require_token: bool = False
    """Refuse to build or start when `token_env` is unset (cluster configs set it: no replica serves without auth)."""
    secrets: dict[str, str] = Field(default_factory=dict)
    """Filled by `build_app`: the SHA-256 of each secret variable (`token_env`, the judge config's `api_key_env`s)
    that was set where the app was built. A replica where one is unset or different refuses to start."""
    limits: Limits = Field(default_factory=Limits)
    scorer_replicas: int = Field(default=1, ge=1)
    scorer_cpus: float = Field(default=1.0, gt=0)
    """CPUs reserved per scoring replica (rules and the local tier run there)."""
    express_scorers: int = Field(default=0, ge=0)
    """Scoring replicas that take only small requests' chunks (`limits.small_items`), so a probe, a validation item
    or an online shadow score never shares a scorer with large batches. Each loads its own judge models (memory);
    no CPU is reserved for them. 0: small requests take express chunk slots on the shared scorers."""
    scorer_nice: int = Field(default=0, ge=0, le=19)
    """CPU priority of the shared scorers' processes below the rest of the app's (a Linux nice increment, which any
    user may take). With `express_scorers`, a positive value lets a small request's scorer, the ingress and the
    proxy take the CPU first while large batches saturate it; when nothing else wants the CPU the scorers get all of
    it, so large batches lose throughput only to the work that took priority."""
    bulk_ingress: bool = False
    """Large requests (bodies above 256 KiB) are parsed, validated, scored, logged and answered by a replica of
    their own (`BulkIngress`, in its own process, at the shared scorers' `scorer_nice`); the ingress only passes
    their bytes on. A small request then never waits for the ingress's interpreter behind a large one's work."""
    ingress_replicas: int = Field(default=1, ge=1)
    replica_resources: dict[str, float] = Field(default_factory=dict)
    """Custom Ray resources every replica asks for. Cluster configs ask for `reward`, which only the judge nodes
    offer, so the app never takes CPUs on trainer nodes (see cluster/)."""
    ingress_max_ongoing_requests: int = Field(default=256, ge=1)
    """Serve's cap on requests inside one ingress replica. High on purpose: a request waiting there mostly awaits
    scorers, and the ingress's own bound (`limits.max_items_in_flight`, counted in items, not requests) answers 503
    with `Retry-After` quickly; Serve's default of 5 would instead queue requests silently in the proxy."""
    ingress_max_queued_requests: int = Field(default=512, ge=1)
    """Requests the proxy queues for busy ingress replicas before it answers 503 itself."""
    scorer_max_ongoing_requests: int = Field(default=16, ge=1)
    """Chunks scored at once per scoring replica; with `chunk_items` this bounds its items in flight, and its judge
    calls share `judge_concurrency`."""


def served_suites(args: ServerArgs) -> list[str]:
    """The names of the suites the app serves now: `args.suites`, or every suite file in the rubric folder."""
    return list(args.suites) if args.suites is not None else list_suites(Path(args.rubrics))


def _fingerprint(value: str) -> str:
    return hashlib.sha256(value.encode()).hexdigest()


def secret_names(args: ServerArgs) -> list[str]:
    """The environment variables the replicas need: the server token and the judge endpoints' API keys."""
    names = [args.token_env]
    if args.judge.endswith((".yaml", ".yml")):
        from reward.judges.openai_judge import JudgeConfig

        try:
            config = JudgeConfig.model_validate(yaml.safe_load(resolve_config(args.judge).read_text(encoding="utf-8")))
        except (OSError, yaml.YAMLError, ValidationError):
            return names  # the Scorer reports the broken judge config, naming the file
        names += sorted({e.api_key_env for e in config.endpoints if e.api_key_env} - {args.token_env})
    return names


def check_secrets(args: ServerArgs, role: str) -> None:
    """Refuse to start a replica that lacks a secret the app was built with (or that `require_token` asks for)."""
    where = f"{role} replica on {socket.gethostname()}"
    hint = ("set it on every node that runs the reward app (cluster/kuberay: the `reward-secrets` Secret; "
            "cluster/slurm: the job environment)")
    if args.require_token and not os.environ.get(args.token_env):
        raise RuntimeError(f"{where}: {args.token_env} is unset but require_token is on; {hint}")
    for name, digest in args.secrets.items():
        value = os.environ.get(name)
        if not value:
            raise RuntimeError(f"{where}: {name} is unset here but was set where the app was built; {hint}")
        if _fingerprint(value) != digest:
            raise RuntimeError(f"{where}: {name} differs from its value where the app was built; {hint}")
