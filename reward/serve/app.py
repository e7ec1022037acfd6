"""The reward server: a Ray Serve application with an HTTP ingress and a scoring deployment it fans out to.

`build_app(args: ServerArgs)` is the typed builder (`serve run configs/serve/local.yaml` and `reward serve` both
use it). The ingress (FastAPI) checks the bearer token on every route but `/healthz`, admits a body by its bytes
before reading it (beyond `max_bytes_in_flight`: 503 with `Retry-After`), reads it within a byte limit, parses it
with a depth-limited parser and checks nesting and string sizes before validation (bad input of any shape is a 4xx
naming the limit or field, never a 500), admits a request only while the items in flight on this replica stay under
a bound (beyond it: 503 with `Retry-After`), refuses a `request_id` its run used for other content (409), splits a
batch into chunks (a group larger than a chunk is split and finished here), scores the chunks on `Scorer` replicas
through a `DeploymentHandle` with the requests in flight taking turns for the chunk slots, writes every scored item
to the durable score log before replying (a log that cannot be written: 503 with the reason, and `/healthz` says
`degraded`), and exports Prometheus metrics. Limits live in `user_config`, so they change without a redeploy;
rubrics reload without one (a watch on the rubric files, or `POST /v1/admin/reload`; a broken or shrunken suite is
refused and reported), and the ingress sends each chunk's exact suite version to the scorers. At shutdown
`reward serve` drains every ingress replica (`begin_drain`) before it stops the app.
"""


import asyncio
import hmac
import logging
import os
import pickle
import threading
import time
from pathlib import Path
from typing import Any

from fastapi import FastAPI, Request
from fastapi.openapi.docs import get_redoc_html, get_swagger_ui_html
from fastapi.responses import HTMLResponse, JSONResponse, Response
from pydantic import ValidationError
from starlette.requests import ClientDisconnect
from tenacity import AsyncRetrying, before_sleep_log, stop_after_attempt, wait_exponential_jitter
from ray import serve
from ray.exceptions import RayError, RayTaskError
from ray.serve import Application
from ray.serve.handle import DeploymentHandle

from reward.rubric import LoadedSuite, RubricError, UnknownSuite, did_you_mean, lint_report, load_suite
from reward.rubric_changes import suite_changes
from reward.schema import MAX_STEP, DimensionScore, Item, ItemResult, ScoreRequest, ScoreResponse
from reward.scorelog.segments import RequestConflict, batch_digest
from reward.serve.body import BodyRejected, _field_errors, parse_body
from reward.serve.chunks import (LARGE_BODY_BYTES, TURN_ITEMS, FairShare, chunk_by_group, chunk_reply, dump_items,
                                 in_worker, largest_group, off_loop, parse_items, results_in_order, vectors_in_turns)
from reward.serve.config import Limits, ServerArgs, _fingerprint, check_secrets, secret_names, served_suites
from reward.serve.metrics import Metrics, merged_exposition
from reward.serve.outage import judge_outage
from reward.serve.readiness import scorer_head_problems, scorers_ready, warm_up
from reward.serve.reload import rubric_stamp, suite_shrinkage

log = logging.getLogger(__name__)


@serve.deployment(ray_actor_options={"num_cpus": 1})
class Scorer:
    """Scores chunks of items with one engine per suite (rules on this CPU worker, judges concurrent)."""

    def __init__(self, args: ServerArgs, express: bool = False):
        from reward.engine import Engine
        from reward.judges.factory import make_judge

        check_secrets(args, "Scorer")
        if args.scorer_nice and not express:
            os.nice(args.scorer_nice)  # this replica's process only: the express scorers and the ingress keep theirs
        self.judge = make_judge(args.judge)
        self.engines = {
            name: Engine(load_suite(name, Path(args.rubrics)), self.judge, max_concurrency=args.judge_concurrency)
            for name in served_suites(args)
        }
        self.judge_concurrency = args.judge_concurrency
        self.reloaded: dict[tuple[str, str], Any] = {}  # engines of suite versions loaded after start
        self._warm: asyncio.Task | None = None
        try:  # in a Serve replica the constructor runs on its event loop: warm up right after it returns
            self._warm = asyncio.get_running_loop().create_task(warm_up(self.engines))
        except RuntimeError:  # constructed outside a loop (in-process tests): warmed by the first ready()
            pass

    async def ready(self) -> bool:
        """True once this replica's judge models are loaded and the warm-up item is scored (`reward.serve.readiness`)."""
        if self._warm is None:
            self._warm = asyncio.get_running_loop().create_task(warm_up(self.engines))
        await asyncio.shield(self._warm)
        return True

    def _engine(self, suite: str | LoadedSuite) -> Any:
        """The engine of a suite name (as loaded at start) or of the exact suite version the ingress sends."""
        from reward.engine import Engine

        if isinstance(suite, str):
            return self.engines[suite]
        current = self.engines.get(suite.name)
        if current is not None and current.suite.version == suite.version:
            return current
        key = (suite.name, suite.version)
        if key not in self.reloaded:
            while len(self.reloaded) >= 8:  # a few recent versions: requests in flight may still use them
                self.reloaded.pop(next(iter(self.reloaded)))
            self.reloaded[key] = Engine(suite, self.judge, max_concurrency=self.judge_concurrency)
        return self.reloaded[key]

    async def head_problems(self, suite: LoadedSuite) -> dict[str, str]:
        """The suite's dimensions whose example-fitted heads cannot separate their examples, with why."""
        problems = getattr(self.judge, "head_problems", None)
        return await problems(suite.dimensions.values()) if problems is not None else {}

    async def score(self, suite: str | LoadedSuite, items: list[dict]) -> dict[str, Any]:
        """Results of a chunk that holds its groups whole."""
        return await self._score(suite, items, finish=True)

    async def score_vectors(self, suite: str | LoadedSuite, items: list[dict]) -> dict[str, Any]:
        """Score vectors of a chunk that holds part of a group: the ingress finishes the group from all its parts."""
        return await self._score(suite, items, finish=False)

    async def _score(self, suite: str | LoadedSuite, items: list[dict], *, finish: bool) -> dict[str, Any]:
        engine = self._engine(suite)
        before = (engine.stats.judge_calls_made, engine.stats.judge_calls_deduped, engine.stats.judge_cache_hits)
        large = len(items) > TURN_ITEMS  # a large chunk's validation and reply run off the event loop
        parsed = await off_loop(large, parse_items, items)
        vectors = await vectors_in_turns(engine, parsed)  # a small chunk arriving waits for one turn, not all of it
        after = (engine.stats.judge_calls_made, engine.stats.judge_calls_deduped, engine.stats.judge_cache_hits)
        drain_cascade = getattr(self.judge, "drain_counts", None)
        body = await off_loop(large, chunk_reply, engine, parsed, vectors, finish)
        return {
            **body,
            "cascade": drain_cascade() if drain_cascade else {},
            "judge_latencies": engine.stats.drain_latencies(),
            "judge_calls": dict(zip(("made", "deduped", "cache_hit"), (a - b for a, b in zip(after, before)), strict=True)),
            "judge": self.judge.identity,
        }


# FastAPI's own docs routes would bypass the token check; the ingress serves them itself, behind it.
api = FastAPI(title="search-reward", description="Multi-dimensional reward server for generative search.",
              docs_url=None, redoc_url=None, openapi_url=None)

OPEN_ROUTES = frozenset({"/healthz"})
"""Routes served without the bearer token (liveness probes carry none); every other route requires it."""


def _replica_id() -> str:
    """This ingress replica's id in Serve ("local" outside Serve)."""
    try:
        return serve.get_replica_context().replica_id.unique_id
    except Exception:  # not inside a Serve replica (in-process tests)
        return "local"


NEED_SUITES = "need suites"
"""A bulk replica's answer to a request that names suite versions it does not hold: send them."""
WRITTEN = "written"
"""The score-log state a bulk replica reports for a batch it wrote (which clears the ingress's log problem)."""


def _error(status: int, message: str, headers: dict[str, str] | None = None, **extra: Any) -> JSONResponse:
    return JSONResponse(status_code=status, content={"error": message, **extra}, headers=headers)


class IngressReplica:
    """HTTP ingress: validation, limits, auth, fan-out to scorers, score log, metrics. Deployed twice: as `Ingress`
    (the FastAPI routes), and with `bulk_ingress` as `BulkIngress`, which takes large score requests' bodies from
    the ingress through `score_body`."""

    def __init__(self, scorer: DeploymentHandle, args: ServerArgs, express: DeploymentHandle | None = None,
                 bulk: DeploymentHandle | None = None, role: str = "ingress"):
        check_secrets(args, "Ingress")
        if role == "bulk" and args.scorer_nice:
            os.nice(args.scorer_nice)  # large requests' work yields the CPU to the ingress's, as the scorers do
        self.scorer = scorer
        self.bulk = bulk
        """The replica that handles large requests (`bulk_ingress`), or None."""
        self.bulk_metrics: bytes | None = None
        self._blob: tuple[tuple, bytes] | None = None
        self._served: dict[str, LoadedSuite] = {}
        self.express = express
        """The scorers that take only small requests' chunks (`express_scorers`), or None."""
        self.args = args
        self.limits = args.limits
        # The bulk replica reads no rubric file: each request brings the suites the ingress serves.
        self.suites = {} if role == "bulk" else {name: load_suite(name, Path(args.rubrics)) for name in served_suites(args)}
        self.rubric_stamp = rubric_stamp(Path(args.rubrics))
        self.rubric_checked = time.monotonic()
        self.rubric_problem: str | None = None
        """Why the last rubric reload was refused (the previous versions keep serving); None after a good one."""
        self.metrics = Metrics()
        self.scorers_warm = False
        self.head_problems: dict[tuple[str, str], dict[str, str]] = {}
        """By (suite, version): the dimensions whose example-fitted heads cannot separate their examples, with why."""
        token = os.environ.get(args.token_env) or None
        self.token = token.encode() if token else None
        self.items_in_flight = 0
        self.bytes_in_flight = 0
        self.fair_share: FairShare | None = None
        self.requests_in_flight = 0
        self.draining = False
        """Set by `begin_drain` (SIGTERM to `reward serve`): score requests get 503 while those in flight finish."""
        self._reload_lock = threading.Lock()
        self.log = None
        self.judge_identity: str | None = None
        """The scorers' judge identity, as their last reply named it: recorded with every logged item."""
        self.log_problem: str | None = None
        """Why the score log could not take the last batch; None while it works."""
        if args.score_log:
            from reward.scorelog import ScoreLog

            self.log = ScoreLog(args.score_log, retention=args.score_log_retention, store_url=args.score_store,
                                small_items=args.limits.small_items)  # small batches: a writer of their own

    def reconfigure(self, config: dict) -> None:
        self.limits = Limits.model_validate({**self.limits.model_dump(), **(config.get("limits") or config)})
        log.info("limits now %s", self.limits)

    def reload_rubrics(self, allow_shrink: bool | None = None) -> dict[str, Any]:
        """Load the served suites again. A rubric tree with lint errors is refused and the old versions keep
        serving, and so is a suite that shrinks against its running version (a dimension gone, or a file that
        parses to fewer keys: what a file caught half-written looks like) unless `allow_shrink` (default: the
        server's `rubric_allow_shrink`) confirms it. Files that change while they are read are read again at the
        next check. Otherwise the new versions replace the old in one assignment, so a request in flight finishes
        on the suite it started with and the next one gets the new version. A refusal is logged, counted in the
        metrics, reported by `/healthz` and flagged in every reply until a reload succeeds."""
        root = Path(self.args.rubrics)
        allow_shrink = self.args.rubric_allow_shrink if allow_shrink is None else allow_shrink
        before = rubric_stamp(root)
        report = lint_report(root)
        problems, suites = list(report.errors), {}
        for name in served_suites(self.args) if not problems else ():
            try:
                suites[name] = load_suite(name, root)
            except (RubricError, UnknownSuite) as exc:
                problems += getattr(exc, "problems", [str(exc)])
        after = rubric_stamp(root)
        if after != before:  # a file is being written: keep serving, read it again at the next check
            log.info("rubric files changed while being read; reading them again at the next check")
            self.rubric_stamp = before
            return {"reloaded": False, "versions": self._versions(), "errors": [], "retry": True,
                    "warnings": report.warnings}
        self.rubric_stamp = after
        if not problems and not allow_shrink:
            problems = [p for name, loaded in suites.items() if name in self.suites  # a new suite file cannot shrink
                        for p in suite_shrinkage(self.suites[name], loaded)]
            if problems:
                problems.append("a suite that shrinks is refused unless confirmed: `reward serve --allow-shrink`, or "
                                "POST /v1/admin/reload?allow_shrink=true")
        if problems:
            # Every problem, the root cause (lint's, in file order) first: /healthz and each reply's rubric_warning
            # show the whole list, not its first line.
            self.rubric_problem = problems[0] if len(problems) == 1 else f"{len(problems)} problems: " + "; ".join(
                f"({number}) {problem}" for number, problem in enumerate(problems, start=1))
            self.metrics.observe_refused_reload()
            log.error("rubric reload refused, still serving %s:\n%s", self._versions(), "\n".join(problems))
            return {"reloaded": False, "versions": self._versions(), "errors": problems, "warnings": report.warnings}
        changed = sorted(n for n, s in suites.items() if n not in self.suites or s.version != self.suites[n].version)
        changes = [suite_changes(self.suites.get(name), suites[name]) for name in changed]
        self.suites = suites
        self.rubric_problem = None
        # An operator reads this in the serve log at its default level: what changed, not just that something did.
        log.warning("rubrics reloaded from %s: %s", root, " | ".join(changes) or "no suite changed")
        return {"reloaded": True, "versions": self._versions(), "changed": changed, "changes": changes,
                "warnings": report.warnings}

    def _rubric_warning(self) -> str | None:
        if self.rubric_problem is None:
            return None
        return f"rubric reload refused, scored with the previous version: {self.rubric_problem}"

    def _versions(self) -> dict[str, str]:
        return {name: loaded.version for name, loaded in self.suites.items()}

    def _watch_rubrics(self) -> None:
        poll = self.args.rubric_poll_s
        if poll and time.monotonic() - self.rubric_checked >= poll and self._reload_lock.acquire(blocking=False):
            try:  # one check at a time; the others go on with the versions that are serving
                self.rubric_checked = time.monotonic()
                if rubric_stamp(Path(self.args.rubrics)) != self.rubric_stamp:
                    self.reload_rubrics()
            finally:
                self._reload_lock.release()

    def begin_drain(self) -> dict[str, Any]:
        """Stop admitting score requests (503 with `Retry-After` from now on) and say how many are still in flight
        on this replica; `reward serve` calls it on every ingress replica at SIGTERM and stops once all are idle."""
        if not self.draining:
            log.warning("draining: new score requests get 503; %d in flight finish", self.requests_in_flight)
        self.draining = True
        return {"replica": _replica_id(), "requests_in_flight": self.requests_in_flight}

    @api.post("/v1/admin/reload")
    def admin_reload(self, request: Request) -> Response:
        denied = self._unauthorised(request)
        if denied:
            return denied
        confirm = request.query_params.get("allow_shrink", "").lower() in ("1", "true", "yes")
        outcome = self.reload_rubrics(allow_shrink=confirm or None)
        if outcome.get("retry"):
            return _error(409, "rubric files changed while being read; the previous versions keep serving, try again",
                          **outcome)
        if not outcome["reloaded"]:
            return _error(422, "rubric reload refused; the previous versions keep serving", **outcome)
        return JSONResponse(outcome)

    def _unauthorised(self, request: Request) -> JSONResponse | None:
        if self.token is None:
            return None
        scheme, _, credentials = request.headers.get("authorization", "").partition(" ")
        given = credentials.strip().encode("utf-8", "surrogateescape")
        # compare_digest takes the same time wherever the strings differ: no timing oracle on the token.
        if scheme.lower() != "bearer" or not hmac.compare_digest(given, self.token):
            return _error(401, "missing or wrong bearer token", headers={"WWW-Authenticate": "Bearer"})
        return None

    @api.get("/healthz")
    def healthz(self) -> Any:
        """Health (no token): 503 `starting` until a scoring replica has loaded its models and scored a warm-up item;
        then `degraded` while the score log cannot be written, so scoring requests get 503;
        `rubrics: stale` with the reason while a refused reload leaves the previous versions serving; `draining`
        while shutting down. A probe also starts the rubric watch (in the background: a reload lints the whole tree,
        and a liveness probe must answer at once), so reloads and refusals happen without traffic."""
        if self.args.rubric_poll_s and time.monotonic() - self.rubric_checked >= self.args.rubric_poll_s:
            threading.Thread(target=self._watch_rubrics, name="rubric-watch", daemon=True).start()
        if not self.scorers_warm:  # ready means warm: models loaded, one item scored
            self.scorers_warm = scorers_ready(self.scorer)
            if not self.scorers_warm:
                return JSONResponse(status_code=503, headers=self._retry_after(), content={
                    "status": "starting", "error": "starting: the scorers are loading their judge models"})
        health: dict[str, Any] = {"status": "ok", "suites": sorted(self.suites)}
        if self.draining:
            health["draining"] = True
        if self.rubric_problem:  # serving, on the last good versions
            health.update(rubrics="stale", rubrics_reason=self.rubric_problem)
        if self.log_problem:
            health.update(status="degraded", score_log=f"unavailable: {self.log_problem}")
        return health

    @api.get("/readyz")
    def readyz(self, request: Request) -> Response:
        """Readiness: 503 while the score log cannot be written (a load balancer then routes elsewhere)."""
        denied = self._unauthorised(request)
        if denied:
            return denied
        if self.log_problem:
            return _error(503, f"score log unavailable: {self.log_problem}", headers=self._retry_after())
        if self.draining:
            return self._shutting_down()
        return JSONResponse({"status": "ready", "items_in_flight": self.items_in_flight})

    def _shutting_down(self) -> JSONResponse:
        return _error(503, "server shutting down: not admitting new requests; retry later", headers=self._retry_after())

    def _retry_after(self) -> dict[str, str]:
        return {"Retry-After": str(self.limits.retry_after_s)}

    @api.get("/openapi.json", include_in_schema=False)
    def openapi_schema(self, request: Request) -> Response:
        denied = self._unauthorised(request)
        if denied:
            return denied
        return JSONResponse(api.openapi())

    @api.get("/docs", include_in_schema=False)
    def swagger_docs(self, request: Request) -> Response:
        denied = self._unauthorised(request)
        if denied:
            return denied
        return get_swagger_ui_html(openapi_url="/openapi.json", title=f"{api.title} - docs")

    @api.get("/redoc", include_in_schema=False)
    def redoc_docs(self, request: Request) -> Response:
        denied = self._unauthorised(request)
        if denied:
            return denied
        return get_redoc_html(openapi_url="/openapi.json", title=f"{api.title} - ReDoc")

    @api.get("/v1/suites")
    def suites_index(self, request: Request) -> Response:
        denied = self._unauthorised(request)
        if denied:
            return denied
        self._watch_rubrics()
        return JSONResponse({"suites": [self._describe(name, brief=True) for name in sorted(self.suites)]})

    @api.get("/v1/suites/{name}")
    def suite_detail(self, name: str, request: Request) -> Response:
        denied = self._unauthorised(request)
        if denied:
            return denied
        self._watch_rubrics()
        if name not in self.suites:
            return self._unknown_suite(name)
        return JSONResponse(self._describe(name))

    def _describe(self, name: str, brief: bool = False) -> dict:
        loaded = self.suites[name]
        summary = {"name": name, "aggregation": loaded.suite.aggregation, "delta": loaded.suite.delta,
                   "gate_deltas": loaded.suite.gate_deltas, "gate_exponents": loaded.suite.gate_exponents,
                   "version": loaded.version, "description": loaded.suite.description}
        if self.args.judge == "local":  # dimensions left out of every item's reward, said up front
            from reward.judges.local_coverage import unscored_dimensions

            summary["structurally_unscored"] = [d.name for d in unscored_dimensions(loaded.dimensions)]
            if any(d.local is not None and d.local.fitted for d in loaded.dimensions.values()):
                # Heads that cannot separate their examples leave their dimensions out too; null until a warm
                # scoring replica has fitted them (asking a cold one would hold the request for its models' load).
                found = self.head_problems.get((name, loaded.version))
                if found is None and (self.scorers_warm or scorers_ready(self.scorer)):
                    found = scorer_head_problems(self.scorer, loaded)
                    if found is not None:
                        self.head_problems[(name, loaded.version)] = found
                summary["examples_not_separable"] = found
                summary["structurally_unscored"] += list(found or ())
        if brief:
            return summary
        summary["dimensions"] = [
            {"name": n, "title": d.title, "layer": d.layer, "requirement": d.requirement, "subset": d.subset,
             "kind": d.kind, "weight": loaded.weight(n), "monitor": n in loaded.monitor, "inputs": list(d.inputs)}
            for n, d in loaded.dimensions.items()
        ]
        return summary

    def _unknown_suite(self, name: str, suites: dict[str, LoadedSuite] | None = None) -> JSONResponse:
        known = sorted(self.suites if suites is None else suites)
        return _error(404, f"unknown suite {name!r}{did_you_mean(name, known)}", known_suites=known)

    @api.get("/metrics")
    def metrics(self, request: Request) -> Response:
        denied = self._unauthorised(request)
        if denied:
            return denied
        from prometheus_client import CONTENT_TYPE_LATEST

        if self.args.score_log:
            try:  # the training monitors' alerts, from the score log; a diagnostic never fails the scrape
                self.metrics.observe_alerts(self.args.score_log, self.args.rubrics)
            except Exception:
                log.exception("training monitors failed; /metrics without reward_alert")
        text = self.metrics.render()
        if self.bulk is not None and self.args.ingress_replicas == 1:
            # Large requests are counted on the one bulk replica. With several, a call reaches any of them, so each
            # replica's own series go through Ray's metrics agent instead (the `ray_` mirror), as the ingresses' do.
            try:
                self.bulk_metrics = self.bulk.metrics_text.remote().result(timeout_s=2)
            except Exception:  # busy or restarting: its last counts, so no counter seems to go back
                log.warning("the bulk ingress's metrics did not come in time; its last ones are shown", exc_info=True)
            if self.bulk_metrics:
                text = merged_exposition(text, self.bulk_metrics)
        return Response(text, media_type=CONTENT_TYPE_LATEST)

    @api.get("/dashboard")
    def dashboard(self, request: Request) -> Response:
        denied = self._unauthorised(request)
        if denied:
            return denied
        try:
            from reward.dashboard import render_from_log
            from reward.dashboard.page import rubric_titles
        except ImportError:
            return _error(404, "the dashboard is not installed in this build")
        if not self.args.score_log:
            return _error(404, "the score log is disabled, so there is nothing to chart")
        # The page carries the curves only; a click fetches that step's samples from /dashboard/samples.
        return HTMLResponse(render_from_log(self.args.score_log, samples_url="dashboard/samples",
                                            trainer=self.args.dashboard_trainer_metrics, trainer_missing_ok=True,
                                            titles=rubric_titles(self.args.rubrics),  # the served rubrics' titles
                                            rubrics=self.args.rubrics))  # and their monitor-only dimensions

    @api.get("/dashboard/samples")
    def dashboard_samples(self, request: Request, run: str | None = None, step: int | None = None,
                          channel: str | None = None, q: str = "", offset: int = 0, limit: int = 10) -> Response:
        denied = self._unauthorised(request)  # before any parameter check: nothing answers without the token
        if denied:
            return denied
        if run is None or step is None:
            return _error(422, "query parameters run and step are required", detail=[
                {"field": name, "message": "Field required"} for name, value in (("run", run), ("step", step)) if value is None])
        if not 0 <= step <= MAX_STEP:  # beyond SQLite's integers, and no step is ever stored there
            return _error(422, f"query parameter step must be between 0 and {MAX_STEP}",
                          detail=[{"field": "step", "message": f"Input should be between 0 and {MAX_STEP}"}])
        if not self.args.score_log:
            return _error(404, "the score log is disabled, so there are no samples")
        from reward.dashboard import drilldown
        from reward.dashboard.data import UnknownStep

        try:
            if channel is None:  # the step's kept samples of every channel
                return JSONResponse(drilldown(Path(self.args.score_log), run, step))
            from reward.dashboard.data import step_page

            # One page of all the step's items ranked for the channel, optionally searched by item or group id.
            return JSONResponse(step_page(Path(self.args.score_log), run, step, channel, search=q, offset=offset,
                                          limit=limit))
        except UnknownStep as exc:
            return _error(404, str(exc))
        except ValueError as exc:
            return _error(422, str(exc))

    @api.post("/v1/score")
    async def score(self, request: Request) -> Response:
        # Counted before the drain check: a request that got past it is waited for at shutdown.
        self.requests_in_flight += 1
        try:
            await asyncio.to_thread(self._watch_rubrics)  # a reload lints the tree: not on the event loop
            return await self._score(request)
        finally:
            self.requests_in_flight -= 1

    @api.post("/v1/openrlhf/{suite}")
    async def openrlhf(self, suite: str, request: Request) -> Response:
        """OpenRLHF's `--remote_rm_url` (`reward.serve.trainers`)."""
        return await self._trainer("openrlhf", suite, request)

    @api.post("/v1/slime/{suite}")
    async def slime(self, suite: str, request: Request) -> Response:
        """slime's `--rm-url` (`reward.serve.trainers`)."""
        return await self._trainer("slime", suite, request)

    @api.post("/verify")
    async def nemo_gym_verify(self, request: Request) -> Response:
        """NeMo Gym's resources-server verify route (`reward.serve.trainers`)."""
        return await self._trainer("nemo_gym", None, request)

    @api.post("/seed_session")
    def nemo_gym_seed_session(self, request: Request) -> Response:
        """NeMo Gym seeds a session before each rollout; a reward server keeps none."""
        return self._unauthorised(request) or JSONResponse({})

    async def _trainer(self, trainer: str, suite: str | None, request: Request) -> Response:
        from reward.serve.trainers import answer

        self.requests_in_flight += 1
        try:
            return await answer(self, trainer, suite, request)
        finally:
            self.requests_in_flight -= 1

    def _reserve_bytes(self, size: int) -> JSONResponse | None:
        """Count `size` more body bytes in flight on this replica, or answer 503 when that would pass the bound."""
        bound = self.limits.max_bytes_in_flight
        if self.bytes_in_flight + size > bound:
            return _error(503, f"server busy: {self.bytes_in_flight} request bytes in flight on this replica, {size} more "
                               f"would exceed the limit of {bound} (limit max_bytes_in_flight); retry later",
                          headers=self._retry_after())
        self.bytes_in_flight += size
        return None

    async def _read_body(self, request: Request, reserved: list[int]) -> bytes | JSONResponse:
        """The body, read within `max_bytes` and admitted by bytes before it is read or parsed: a declared length
        is reserved up front, a chunked body as it arrives. `reserved[0]` holds what this request reserved; the
        caller releases it once the request is answered (its parsed items live until then)."""
        limit = self.limits.max_bytes
        declared = request.headers.get("content-length")
        if declared and declared.isdigit() and int(declared) > limit:
            return _error(413, f"request body of {declared} bytes exceeds the limit of {limit} (limit max_bytes)")
        if declared and declared.isdigit():
            busy = self._reserve_bytes(int(declared))
            if busy:
                return busy
            reserved[0] = int(declared)
        chunks, size = [], 0
        try:
            async for chunk in request.stream():  # a chunked body has no declared length: stop at the limit
                size += len(chunk)
                if size > limit:
                    return _error(413, f"request body of more than {limit} bytes exceeds the limit of {limit} (limit max_bytes)")
                if size > reserved[0]:
                    busy = self._reserve_bytes(size - reserved[0])
                    if busy:
                        return busy
                    reserved[0] = size
                chunks.append(chunk)
        except ClientDisconnect:
            return _error(400, "the client closed the connection before the request body was complete")
        return b"".join(chunks)

    async def _score(self, request: Request) -> Response:
        denied = self._unauthorised(request)
        if denied:
            return denied
        if self.draining:
            return self._shutting_down()
        reserved = [0]
        try:
            return await self._score_body(request, reserved)
        finally:
            self.bytes_in_flight -= reserved[0]

    async def _score_body(self, request: Request, reserved: list[int]) -> Response:
        body = await self._read_body(request, reserved)
        if isinstance(body, Response):
            return body
        if self.bulk is not None and len(body) > LARGE_BODY_BYTES:
            return await self._forward(body)
        return await self._score_bytes(body)

    async def _forward(self, body: bytes) -> Response:
        """A large request's bytes to the bulk replica, with what this replica serves (its suites, their rubric
        warning, its limits: the bulk replica reads no rubric file and keeps no limits of its own), and its reply
        back as it came."""
        from ray.serve.exceptions import RayServeException

        key, blob = self._suites_blob()
        try:  # the suites go along only when the bulk replica asks for them (once per set of versions)
            reply = await self.bulk.score_body.remote(body, key, None, self._rubric_warning(), self.limits)
            if reply == NEED_SUITES:
                reply = await self.bulk.score_body.remote(body, key, blob, self._rubric_warning(), self.limits)
            status, headers, content, log_state = reply
        except RayTaskError as exc:  # a failure of the bulk replica's own code: no retry fixes it
            log.error("the bulk ingress failed on a request: %s", exc)
            return _error(500, f"the bulk ingress failed: {type(getattr(exc, 'cause', None) or exc).__name__}")
        except (RayError, RayServeException) as exc:  # the replica died, or is not deployed (yet, or any more)
            log.error("the bulk ingress is unavailable: %s", exc)
            return _error(503, f"bulk ingress unavailable ({type(exc).__name__}); retry later", headers=self._retry_after())
        if log_state:  # the same log: a problem there is this replica's too, and a batch written there clears it
            self.log_problem = log_state if log_state != WRITTEN else None
        return Response(content, status_code=status, headers=headers, media_type="application/json")

    def _suites_blob(self) -> tuple[tuple, bytes]:
        """The served suites, pickled once per set of versions (they are most of a megabyte), keyed by the versions."""
        key = tuple(sorted(self._versions().items()))
        if self._blob is None or self._blob[0] != key:
            self._blob = (key, pickle.dumps(self.suites))
        return self._blob

    async def score_body(self, body: bytes, key: tuple, blob: bytes | None, warning: str | None, limits: Limits
                         ) -> tuple[int, dict[str, str], bytes, str | None] | str:
        """The bulk replica's entry: a large score request's body, authorised at the ingress, scored with the
        suites, rubric warning and limits the ingress serves. Its reply as (status, headers, body, the score log's
        state: why it cannot be written, `WRITTEN` when this request's batch was written, or None), or
        `NEED_SUITES` when it does not hold the suites of `key` and `blob` (them, pickled) was not sent."""
        self.limits = limits
        if self._blob is None or self._blob[0] != key:  # another set of versions: read it once
            if blob is None:
                return NEED_SUITES
            self._blob, self._served = (key, blob), pickle.loads(blob)
        suites = self._served
        response = self._reserve_bytes(len(body))  # this process's own bound on the bodies it holds and parses
        if response is None:
            self.requests_in_flight += 1
            try:
                response = await self._score_bytes(body, suites, warning)
            finally:
                self.requests_in_flight -= 1
                self.bytes_in_flight -= len(body)
        headers = {k: v for k, v in response.headers.items() if k.lower() not in ("content-length", "content-type")}
        state = self.log_problem or (WRITTEN if response.status_code == 200 and self.log is not None else None)
        return response.status_code, headers, bytes(response.body), state

    def metrics_text(self) -> bytes:
        """This replica's Prometheus exposition (the ingress merges the bulk replica's into its `/metrics`)."""
        return self.metrics.render()

    async def _score_bytes(self, body: bytes, suites: dict[str, LoadedSuite] | None = None,
                           warning: str | None = None) -> Response:
        if suites is None:  # what this replica serves now: a reload while the request is in flight changes neither
            suites, warning = self.suites, self._rubric_warning()
        try:
            payload = await off_loop(len(body) > LARGE_BODY_BYTES, parse_body, body, self.limits)
        except BodyRejected as exc:
            return _error(exc.status, exc.message, detail=[{"field": "(body)", "message": exc.message}])
        count = len(payload["items"]) if isinstance(payload, dict) and isinstance(payload.get("items"), list) else 0
        if count > self.limits.max_items:
            return _error(413, f"{count} items exceed the limit of {self.limits.max_items} per request")
        try:
            score_request = await off_loop(count > self.limits.small_items, ScoreRequest.model_validate, payload)
        except ValidationError as exc:
            errors = _field_errors(exc)
            return _error(422, "invalid request: " + "; ".join(f"{e['field']}: {e['message']}" for e in errors[:3]), detail=errors)
        if score_request.suite not in suites:
            return self._unknown_suite(score_request.suite, suites)
        if self.items_in_flight + count > self.limits.max_items_in_flight:
            return _error(503, f"server busy: {self.items_in_flight} items in flight on this replica, {count} more would "
                               f"exceed the limit of {self.limits.max_items_in_flight} (limit max_items_in_flight); retry later",
                          headers=self._retry_after())
        # Reserved at the check, before any await: requests checked together must not all pass against the same count.
        self.items_in_flight += count
        try:
            return await self._score_checked(score_request, suites[score_request.suite], warning)
        finally:
            self.items_in_flight -= count

    async def _score_checked(self, score_request: ScoreRequest, loaded: LoadedSuite, warning: str | None) -> Response:
        if self.log is not None and self.log_problem:  # don't spend judge time on a batch that cannot be logged
            problem = await asyncio.to_thread(self.log.probe)
            if problem:
                self.log_problem = problem
                return self._log_unavailable()
        digest = None
        if self.log is not None and score_request.request_id is not None:
            # An id reused in this run for other items would be answered but never logged: refuse it before scoring.
            from reward.scorelog import ScoreLogUnavailable

            try:
                digest = await asyncio.to_thread(self._check_request, score_request)
            except RequestConflict as exc:
                return self._conflict(exc)
            except ScoreLogUnavailable as exc:  # the score store's database is down: nothing scored, retry later
                self.log_problem = exc.reason
                return self._log_unavailable()
        return await self._score_admitted(score_request, loaded, warning, digest)

    def _check_request(self, score_request: ScoreRequest) -> str:
        digest = batch_digest(score_request.items, suite=score_request.suite, step=score_request.step)
        self.log.check_request(score_request.run, score_request.request_id, digest)
        return digest

    @staticmethod
    def _conflict(exc: RequestConflict) -> JSONResponse:
        return _error(409, str(exc), request_id=exc.request, run=exc.scope or None, logged_digest=exc.earlier,
                      digest=exc.now)

    def _log_unavailable(self) -> JSONResponse:
        return _error(503, f"score log unavailable: {self.log_problem}", headers=self._retry_after())

    async def _score_admitted(self, score_request: ScoreRequest, loaded: LoadedSuite, warning: str | None,
                              digest: str | None = None) -> Response:
        from reward.scorelog import ScoreLogUnavailable

        try:
            results = await self._fan_out(score_request, loaded)
        except RayError as exc:  # scoring replicas dead or gone past the retries: a retryable 503, not a bare 500
            log.error("scoring failed after %d retries: %s", self.limits.chunk_retries, exc)
            return _error(503, f"scoring replicas unavailable ({type(exc).__name__}); retry later",
                          headers=self._retry_after())
        outage = judge_outage(results, self.limits.max_failed_share)
        if outage:  # a judge outage is not data: the trainer retries the batch, nothing is logged as scored
            log.warning("refusing a batch of suite %s: %s", loaded.name, outage)
            self.metrics.observe_outage(loaded.name)
            return _error(503, f"judge unavailable: {outage}; retry later", headers=self._retry_after())
        if self.log is not None:
            try:  # in a thread: fsync must not stall the other requests on this replica
                await in_worker(len(results) > self.limits.small_items, self.log.append, score_request.items, results,
                                suite=loaded.name, suite_version=loaded.version, run=score_request.run,
                                step=score_request.step, request=score_request.request_id, digest=digest,
                                judge=self.judge_identity)
            except RequestConflict as exc:  # another request took the id with other content while this one scored
                return self._conflict(exc)
            except ScoreLogUnavailable as exc:
                if self.log_problem is None:
                    log.error("%s; answering 503 until it can be written", exc)
                self.log_problem = exc.reason
                return self._log_unavailable()
            if self.log_problem is not None:
                log.warning("score log writable again")
            self.log_problem = None
        body = await off_loop(len(results) > self.limits.small_items, self._reply_body, loaded, results, warning)
        return Response(body, media_type="application/json")

    def _reply_body(self, loaded: LoadedSuite, results: list[ItemResult], warning: str | None) -> str:
        self.metrics.observe(loaded.name, results)
        reply = ScoreResponse(suite=loaded.name, suite_version=loaded.version, results=results, rubric_warning=warning)
        # `rubric_warning` only when there is one: the reply keeps its shape for clients that know no such key.
        return reply.model_dump_json(exclude={"rubric_warning"} if reply.rubric_warning is None else None)

    async def _fan_out(self, score_request: ScoreRequest, loaded: LoadedSuite) -> list[ItemResult]:
        """Score the request's chunks on the scorers, taking turns with the other requests for the chunk slots.
        A group larger than a chunk is split; its parts come back as score vectors and the group is finished here,
        so its group statistics see all of it."""
        items = score_request.items
        split = largest_group(items) > self.limits.chunk_items
        chunks = chunk_by_group(items, self.limits.chunk_items, split_large=split)
        turn = object()  # this request's place in the fair share
        small = len(items) <= self.limits.small_items

        async def call(payload: list[dict]) -> dict:
            # A dead replica: Serve routes the retry to a live one.
            retrying = AsyncRetrying(stop=stop_after_attempt(self.limits.chunk_retries + 1), reraise=True,
                                     wait=wait_exponential_jitter(multiplier=0.5, max=5.0),
                                     before_sleep=before_sleep_log(log, logging.WARNING, exc_info=True))
            scorer = self.express if small and self.express is not None else self.scorer
            method = scorer.score_vectors if split else scorer.score
            async for attempt in retrying:
                with attempt:
                    return await method.remote(loaded, payload)  # this exact version
            raise AssertionError("unreachable")

        async def run(indices: list[int]) -> dict:
            payload = await off_loop(not small, dump_items, items, indices)
            if small and self.express is not None:  # scorers of its own: no chunk slot to wait for
                return await call(payload)
            return await self._share().run(turn, lambda: call(payload), small=small)

        replies = await asyncio.gather(*(run(c) for c in chunks))
        # The judge's identity goes into the score log, so a replay can tell it re-scores with the same judge.
        self.judge_identity = "|".join(sorted({reply.get("judge", "") for reply in replies})) or None
        for reply in replies:
            self.metrics.observe_judges(reply["judge_calls"], reply.get("judge_latencies", []))
            self.metrics.observe_cascade(reply.get("cascade", {}))
        if split:
            vectors: list[dict] = [{}] * len(items)
            for indices, reply in zip(chunks, replies, strict=True):
                for index, vector in zip(indices, reply["vectors"], strict=True):
                    vectors[index] = {n: DimensionScore.model_validate(v) for n, v in vector.items()}
            return await asyncio.to_thread(self._finish, loaded, items, vectors)
        return await off_loop(not small, results_in_order, len(items), chunks, replies)

    @staticmethod
    def _finish(loaded: LoadedSuite, items: list[Item], vectors: list[dict]) -> list[ItemResult]:
        from reward.engine import Engine

        return Engine(loaded, judge=None).finish(items, vectors)

    def _share(self) -> FairShare:
        """The chunk slots of this replica: `limits.chunks_per_scorer` per scoring replica (re-read, as limits
        change at run time; chunks already granted keep their slots)."""
        slots = self.limits.chunks_per_scorer * self.args.scorer_replicas
        if self.fair_share is None or self.fair_share.slots != slots:
            if self.fair_share is None:
                self.fair_share = FairShare(slots, express=self.args.scorer_replicas)
            else:
                self.fair_share.slots = slots
                self.fair_share._grant()
        return self.fair_share


Ingress = serve.deployment(name="Ingress")(serve.ingress(api)(IngressReplica))
BulkIngress = serve.deployment(name="BulkIngress")(IngressReplica)


def build_app(args: ServerArgs) -> Application:
    """The reward application: `Ingress` fanning out to `Scorer` replicas."""
    args = ServerArgs.model_validate(args) if not isinstance(args, ServerArgs) else args
    if args.require_token and not os.environ.get(args.token_env):
        raise ValueError(f"require_token is on but {args.token_env} is unset where the app is built")
    found = {name: _fingerprint(os.environ[name]) for name in secret_names(args) if os.environ.get(name)}
    args = args.model_copy(update={"secrets": {**found, **args.secrets}})
    loaded = []
    for name in served_suites(args):  # fail at build time, naming file and key, not inside a replica
        try:
            loaded.append(load_suite(name, Path(args.rubrics)))
        except (RubricError, UnknownSuite) as exc:
            raise ValueError(f"suite {name!r} cannot be loaded: {exc}") from None
    if args.judge == "local":
        from reward.judges.local_coverage import suite_notices

        for notice in suite_notices(loaded):
            log.warning("%s", notice)
    resources = {"resources": args.replica_resources} if args.replica_resources else {}
    scorer = Scorer.options(num_replicas=args.scorer_replicas,
                            ray_actor_options={"num_cpus": args.scorer_cpus, **resources},
                            max_ongoing_requests=args.scorer_max_ongoing_requests).bind(args)
    express = None
    if args.express_scorers:  # mostly idle: no CPU reserved, so they fit beside the scorers
        express = Scorer.options(name="ExpressScorer", num_replicas=args.express_scorers,
                                 ray_actor_options={"num_cpus": 0, **resources},
                                 max_ongoing_requests=args.scorer_max_ongoing_requests).bind(args, True)
    placement = {"ray_actor_options": {"num_cpus": 1, **resources}} if resources else {}
    bulk = None
    if args.bulk_ingress:
        # No user_config: the limits come with each request, from the ingress.
        bulk = BulkIngress.options(num_replicas=args.ingress_replicas, ray_actor_options={"num_cpus": 0, **resources},
                               max_ongoing_requests=args.ingress_max_ongoing_requests,
                               graceful_shutdown_timeout_s=args.drain_timeout_s).bind(scorer, args, None, None, "bulk")
    return Ingress.options(num_replicas=args.ingress_replicas, **placement, user_config={"limits": args.limits.model_dump()},
                           max_ongoing_requests=args.ingress_max_ongoing_requests,
                           graceful_shutdown_timeout_s=args.drain_timeout_s,
                           max_queued_requests=args.ingress_max_queued_requests).bind(scorer, args, express, bulk)


__all__ = ["OPEN_ROUTES", "BodyRejected", "Ingress", "Limits", "Scorer", "ServerArgs", "build_app", "check_secrets",
           "chunk_by_group", "parse_body"]
