"""Ready means warm: a scoring replica has loaded its judge's models and scored one item before the ingress reports
itself ready.

`Scorer` starts `warm_up` as soon as its replica's event loop runs (or on the first `ready()` call outside Serve);
the ingress's `/healthz` answers 503 `{"status": "starting"}` until a scorer says it is ready, so `reward serve`,
the SLURM script and any client that waits on `/healthz` send the first request to a warm server instead of paying
the models' load on it (about 10 s on two cores for the local tier).
"""

from __future__ import annotations

import logging
import time
from typing import Any

from reward.schema import Evidence, Item

log = logging.getLogger(__name__)

WARM_UP_ITEM = Item(
    id="warm-up", group="warm-up", query="When did the library open?",
    evidence=[Evidence(id="1", title="Library", text="The city library opened in 1901 and moved in 1999.")],
    response="<plan>\n1. When did it open? [Doc 1]\n</plan>\n<evidence>1</evidence>\n"
             "<answer>\nThe library opened in 1901 [Doc 1].\n</answer>")
"""A small well-formed item: every dimension of a suite reads something, so every model a suite uses is loaded."""


async def warm_up(engines: dict[str, Any]) -> None:
    """Score the warm-up item once with each engine (its judge's models load on the first item)."""
    started = time.monotonic()
    for name, engine in engines.items():
        try:
            await engine.score([WARM_UP_ITEM])
        except Exception:  # a warm-up that fails must not keep the server unready: the first request pays instead
            log.exception("warm-up of suite %s failed; serving anyway", name)
            continue
        log.info("suite %s warm after %.1f s", name, time.monotonic() - started)


def scorers_ready(scorer: Any, timeout_s: float = 1.0) -> bool:
    """Whether a scoring replica behind `scorer` (a DeploymentHandle) has warmed up; True for a stand-in without
    `ready` (in-process tests). Called from a worker thread (the sync `/healthz` route), where blocking is allowed."""
    ready = getattr(scorer, "ready", None)
    if ready is None:
        return True
    try:
        return bool(ready.remote().result(timeout_s=timeout_s))
    except Exception as exc:  # noqa: BLE001 - still starting (timeout) or a replica restarting: not ready yet
        log.debug("scorers not ready yet: %s", exc)
        return False


def scorer_head_problems(scorer: Any, suite: Any, timeout_s: float = 10.0) -> dict[str, str] | None:
    """The dimensions of `suite` (a LoadedSuite) whose example-fitted heads cannot separate their examples, with why,
    as a scoring replica behind `scorer` fitted them; {} for a judge without such heads; None while no replica answers
    (still starting). Called from a worker thread, like `scorers_ready`."""
    problems = getattr(scorer, "head_problems", None)
    if problems is None:
        return {}
    try:
        return dict(problems.remote(suite).result(timeout_s=timeout_s))
    except Exception as exc:  # noqa: BLE001 - a replica still loading its models: not known yet
        log.debug("example heads not known yet: %s", exc)
        return None
