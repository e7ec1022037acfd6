"""The reward server: a Ray Serve application and the runner that starts it on a local Ray.

`config` (limits, the builder's arguments, secrets), `metrics` (Prometheus), `body` (request bodies within limits),
`app` (the deployments and `build_app`), `runner` (start, stop, score a file over HTTP). The public names below load
on first use, so `reward.serve.ServerArgs` needs no Ray; `reward.serve:build_app` is the Serve import path.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from reward._lazy import lazy_exports

_import_structure = {
    "config": ["Limits", "ServerArgs", "check_secrets", "secret_names"],
    "metrics": ["Metrics"],
    "body": ["BodyRejected", "parse_body"],
    "app": ["OPEN_ROUTES", "Ingress", "Scorer", "api", "build_app", "chunk_by_group", "rubric_stamp"],
    "runner": ["ServeConfig", "require_auth_off_loopback", "score_file_over_http", "start_server", "stop_server"],
}

__all__ = ["OPEN_ROUTES", "BodyRejected", "Ingress", "Limits", "Metrics", "Scorer", "ServeConfig", "ServerArgs", "api",
           "build_app", "check_secrets", "chunk_by_group", "parse_body", "require_auth_off_loopback", "rubric_stamp",
           "score_file_over_http", "secret_names", "start_server", "stop_server"]

if TYPE_CHECKING:
    from reward.serve.app import OPEN_ROUTES, Ingress, Scorer, api, build_app, chunk_by_group, rubric_stamp
    from reward.serve.body import BodyRejected, parse_body
    from reward.serve.config import Limits, ServerArgs, check_secrets, secret_names
    from reward.serve.metrics import Metrics
    from reward.serve.runner import (ServeConfig, require_auth_off_loopback, score_file_over_http, start_server,
                                     stop_server)


__getattr__, __dir__ = lazy_exports(__name__, _import_structure, globals(), __all__)
