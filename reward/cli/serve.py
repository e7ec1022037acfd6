"""`reward serve` (the reward server on a local Ray until SIGTERM or Ctrl-C, then drained) and `reward judge-server` (a real LLM judge on CPU:
llama.cpp's OpenAI-compatible server)."""

from __future__ import annotations

import argparse
import os
from pathlib import Path

from reward.cli.common import Command, err


def apply_flags(app_args: dict, args: argparse.Namespace) -> dict:
    """The app's arguments with the command's flags applied (flags win over the config file). `--rubrics DIR`
    without `--suites` serves every suite in DIR, not the config's list (which names another folder's suites)."""
    suites = [name.strip() for name in args.suites.split(",") if name.strip()] if args.suites else None
    if args.rubrics is not None and suites is None:
        app_args.pop("suites", None)
    for key, value in (("judge", args.judge), ("score_log", args.log_dir), ("rubrics", args.rubrics), ("suites", suites),
                       ("rubric_allow_shrink", args.allow_shrink or None), ("drain_timeout_s", args.drain_timeout)):
        if value is not None:
            app_args[key] = value
    return app_args


def serve_command(args: argparse.Namespace) -> int:
    import yaml

    from pydantic import ValidationError

    from reward.serve.runner import ServeConfig, require_auth_off_loopback, serve_until_stopped, start_server

    config = ServeConfig(applications=[{}])
    if args.config:
        from reward.shipped import resolve_config

        try:
            config = ServeConfig.model_validate(yaml.safe_load(resolve_config(args.config).read_text(encoding="utf-8")) or {})
        except (OSError, yaml.YAMLError, ValidationError) as exc:
            err.print(f"[red]{args.config}[/red]: {exc}")
            return 2
    apply_flags(config.applications[0].args, args)
    try:
        server_args = config.server_args()
        host = args.host or config.http_options.host
        require_auth_off_loopback(host, server_args.token_env, args.insecure)
        if os.environ.get("REWARD_PREPARED_EMBEDDINGS", "").strip():
            # A file the replicas would refuse stops the start here, naming it, not in every replica's constructor.
            from reward.judges.local import prepared

            for path in prepared.paths_setting():
                store = prepared.read(path)
                prepared.check_key(store)
                err.print(f"prepared evidence: {len(store)} texts and {store.pair_count} pairs from {path}")
    except (ValueError, PermissionError) as exc:
        err.print(f"[red]{args.config or 'reward serve'}[/red]: {exc}")
        return 2
    url = start_server(server_args, host=host, port=args.port or config.http_options.port, http=config.http_options,
                       proxy_location=config.proxy_location)
    err.print(f"[green]serving[/green] {url} (judge {server_args.judge}, score log {server_args.score_log})")
    if args.demo:
        from reward.serve.runner import score_file_over_http

        # The demo sends the server's own token, so `make run` works with REWARD_SERVER_TOKEN set.
        token = os.environ.get(server_args.token_env) or None
        score_file_over_http(url, Path(args.demo), suite=args.suite, token=token)
        err.print(f"[green]reward server running at {url}[/green]  (POST /v1/score, GET /v1/suites, /metrics, "
                  "/dashboard); Ctrl-C stops it")
    # Reasons quote YAML ("scale: ["): printed as they are, not as markup.
    return serve_until_stopped(url, server_args, echo=lambda text: err.print(text, markup=False, highlight=False))


def judge_server_command(args: argparse.Namespace) -> int:
    from reward.judges.llamacpp_server import MODELS, model_file, serve

    path = Path(args.model_path) if args.model_path else model_file(args.model, Path(args.cache_dir))
    alias = args.alias or (MODELS[args.model].alias if not args.model_path else path.stem)
    chat_format = args.chat_format or (None if args.model_path else MODELS[args.model].chat_format)
    err.print(f"judge server: {alias} ({path}) on http://{args.host}:{args.port}/v1")
    serve(path, alias, chat_format=chat_format, host=args.host, port=args.port, n_ctx=args.n_ctx, threads=args.threads,
          verbose=args.verbose)
    return 0


def add_parser(sub: argparse._SubParsersAction) -> dict[str, Command]:
    serve = sub.add_parser("serve", help="run the reward server (Ray Serve) until Ctrl-C")
    serve.add_argument("--config", help="a Serve config file (configs/serve/local.yaml); flags override it")
    serve.add_argument("--host", default=None, help="bind address (default 127.0.0.1)")
    serve.add_argument("--port", type=int, default=None, help="port (default 8000)")
    serve.add_argument("--insecure", action="store_true",
                       help="allow a non-loopback bind without a bearer token (refused otherwise)")
    serve.add_argument("--judge", default=None, help="judge backend: local (default), mock, or configs/judges/*.yaml")
    serve.add_argument("--log-dir", default=None, help="score log folder (default var/scores)")
    serve.add_argument("--rubrics", default=None, help="rubric folder: every suite in it is served, following hot reload "
                       "(a suite file added while serving answers from the next poll on)")
    serve.add_argument("--suites", default=None, help="serve only these suites, comma-separated (default: every suite "
                       "in the rubric folder, or the config's list)")
    serve.add_argument("--allow-shrink", action="store_true",
                       help="hot reload accepts a suite that loses dimensions or keys (refused by default)")
    serve.add_argument("--drain-timeout", type=float, default=None,
                       help="seconds SIGTERM waits for requests in flight before stopping (default 120)")
    serve.add_argument("--demo", help="after start, score this JSONL through HTTP and print the tables")
    serve.add_argument("--suite", default="searchllm", help="suite for --demo")

    js = sub.add_parser("judge-server", help="a real LLM judge on CPU: llama.cpp's OpenAI-compatible server with a "
                        "model from PyPI (extra judge-server; configs/judges/llamacpp.yaml talks to it)")
    js.add_argument("--model", default="gemma3-270m", help="packaged model (default gemma3-270m)")
    js.add_argument("--model-path", help="any GGUF file with a chat template instead of a packaged model")
    js.add_argument("--alias", help="served model name (default: the packaged model's name)")
    js.add_argument("--chat-format", help="llama-cpp-python chat format when the GGUF has no chat template "
                    "(default: the packaged model's, e.g. gemma3)")
    js.add_argument("--cache-dir", default="var/models", help="where the packaged model is assembled (default var/models)")
    js.add_argument("--host", default="127.0.0.1")
    js.add_argument("--port", type=int, default=8002)
    js.add_argument("--n-ctx", type=int, default=8192, help="context window in tokens (default 8192)")
    js.add_argument("--threads", type=int, default=None, help="CPU threads (default: cores, at most 4)")
    return {"serve": serve_command, "judge-server": judge_server_command}
