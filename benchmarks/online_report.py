"""The online report at 10M sessions, and the ingest throughput behind it.

    nice -n 10 .venv/bin/python benchmarks/online_report.py

1. Generates the synthetic 10M-session interaction log (1M users, 7 days, the two experiments of
   configs/online/experiments.yaml; about 3.2 GB in var/online-bench/, git-ignored), once.
2. Ingest: validates and stores the first `--ingest-rows` rows of that log with the real path (`reward online
   ingest`: pydantic rows, MiniLM similarity of within-window pairs, SQLite), timing wall and CPU. With
   `--ingest-rows 0` it ingests the whole log into the store the report then reads.
3. Report: times `reward online report --experiment reward-v2` (the whole command: start-up, the per-user scan of
   the aggregates, lifts, SRM, JSON) three times on a store holding 10M sessions. Unless the whole log was ingested
   in step 2, that store's `user_days` aggregates are built directly from the same traffic model with numpy (same
   users, bucketing, day spread and outcome model as the log; re-search taken as drawn rather than detected),
   because a report reads nothing else.

With `--skip-ingest`, steps 1 and 2 are skipped (no log is generated) and step 3 times the report on the
aggregates built from the traffic model; `--reuse-aggregates` keeps a store built by an earlier run.

Results: benchmarks/results/online_report.json (`--out` to write elsewhere).
"""

from __future__ import annotations

import argparse
import datetime as dt
import itertools
import json
import os
import platform
import resource
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from reward.online.experiments import load_experiments  # noqa: E402
from reward.online.log import hash_user  # noqa: E402
from reward.online.store import OnlineStore, day_number, user_key  # noqa: E402
from reward.online.synthetic import Traffic, benchmark_catalogue, generate  # noqa: E402

EXPERIMENTS = ROOT / "configs/online/experiments.yaml"


def traffic(sessions: int) -> Traffic:
    return Traffic(sessions=sessions, users=sessions // 10, days=7, experiments=list(load_experiments(EXPERIMENTS).values()),
                   good_share={"reward-v2": {"treatment": 0.53}}, policies={"control": "grpo-0301", "treatment": "grpo-0412"},
                   seed=10)


def build_aggregates(store_path: Path, t: Traffic) -> dict:
    """`user_days` of `t` straight from the traffic model (vectorised), plus the names and files rows a report reads."""
    rng = np.random.default_rng(t.seed)
    users = [hash_user(f"synthetic-user-{i}", f"seed-{t.seed}")[:16] for i in range(t.users)]
    activity = rng.pareto(1.5, t.users) + 1.0
    activity /= activity.sum()
    engagement = rng.normal(0.0, 0.6, t.users)
    user = rng.choice(t.users, size=t.sessions, p=activity)
    day = rng.integers(0, t.days, t.sessions)
    keys = np.array([user_key(u) for u in users], dtype=np.int64)
    with OnlineStore(store_path) as store:
        store.conn.execute("INSERT INTO online_files VALUES (?, 0, 0, ?, ?, 0, 0, ?)",
                           ("synthetic-aggregates", t.sessions, t.sessions, dt.datetime.now(dt.UTC).isoformat()))
        first_day = day_number(t.start)
        rows = 0
        for experiment in t.experiments:
            names = list(experiment.arms)
            arm_of_user = np.array([names.index(experiment.assign(u)) for u in users], dtype=np.int64)
            arm = arm_of_user[user]
            good_p = np.full(t.sessions, t.base_good)
            for k, name in enumerate(names):
                share = t.good_share.get(experiment.name, {}).get(name)
                if share is not None:
                    good_p[arm == k] = share
            good = rng.random(t.sessions) < good_p
            log_dwell = np.log(3500) + 0.5 * engagement[user] + 0.7 * (good - 0.5) + rng.normal(0, 1.0, t.sessions)
            dwell = np.exp(log_dwell)
            logit = -2.3 + 1.3 * (~good) + 0.8 * (dwell < 1500) - 0.4 * engagement[user]
            research = rng.random(t.sessions) < 1 / (1 + np.exp(-logit))
            group = (arm * t.users + user) * t.days + day  # sorted = primary-key order (arm, user, day)
            order_keys, inverse = np.unique(group, return_inverse=True)
            counts = [np.bincount(inverse, weights=w, minlength=len(order_keys)).astype(np.int64)
                      for w in (None, dwell > 5000, dwell < 1500, research)]
            g_day = order_keys % t.days
            g_user = (order_keys // t.days) % t.users
            g_arm = order_keys // (t.days * t.users)
            experiment_id = store.name_id("experiment", experiment.name)
            arm_ids = np.array([store.name_id("arm", name) for name in names])
            store.conn.executemany("INSERT INTO online_user_days VALUES (?, ?, ?, ?, ?, ?, ?, ?)", zip(
                itertools.repeat(experiment_id), arm_ids[g_arm].tolist(), keys[g_user].tolist(),
                (g_day + first_day).tolist(), *(c.tolist() for c in counts)))
            rows += len(order_keys)
        store.conn.commit()
    return {"user_days_rows": rows}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sessions", type=int, default=10_000_000)
    parser.add_argument("--ingest-rows", type=int, default=200_000, help="rows of the log to ingest (0: all)")
    parser.add_argument("--folder", default=str(ROOT / "var/online-bench"))
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--out", default=str(ROOT / "benchmarks/results/online_report.json"))
    parser.add_argument("--skip-ingest", action="store_true", help="no log, no ingest: time the report only")
    parser.add_argument("--reuse-aggregates", action="store_true", help="keep an aggregates store of an earlier run")
    parser.add_argument("--no-cumulative", action="store_true", help="time the report without the lift by day")
    args = parser.parse_args()
    folder = Path(args.folder)
    folder.mkdir(parents=True, exist_ok=True)
    tag = f"{args.sessions // 1_000_000}m" if args.sessions >= 1_000_000 else f"{args.sessions // 1000}k"
    log_path = folder / f"interactions-{tag}.jsonl"
    t = traffic(args.sessions)
    result: dict = {"sessions": args.sessions, "users": t.users, "days": t.days,
                    "machine": f"{platform.machine()}, {os.cpu_count()} cores (shared)",
                    "command": "nice -n 10 .venv/bin/python benchmarks/online_report.py " + " ".join(sys.argv[1:])}
    if not args.skip_ingest:
        if not log_path.exists():
            started = time.perf_counter()
            generate(benchmark_catalogue(), t, log_path)
            result["generate_s"] = round(time.perf_counter() - started, 1)
        result["log_bytes"] = log_path.stat().st_size

        # 2. ingest (the real path): the first N rows, then the next N rows into the same store (query texts now cached)
        ingest_store = folder / (f"online-{tag}.sqlite" if not args.ingest_rows else f"ingest-{args.ingest_rows}.sqlite")
        ingest_store.unlink(missing_ok=True)
        parts = [log_path]
        if args.ingest_rows:
            parts = [folder / f"interactions-{tag}-part{k}.jsonl" for k in (1, 2)]
            with log_path.open() as source:
                for part in parts:
                    with part.open("w") as out:
                        out.writelines(itertools.islice(source, args.ingest_rows))
        result["ingest"] = []
        with OnlineStore(ingest_store) as store:
            similarity = store.similarity()
            for part in parts:
                cpu, started = time.process_time(), time.perf_counter()
                encoded_before = similarity.encoded
                summary = store.ingest([part], similarity=similarity)
                entry = {**summary.model_dump(exclude={"errors", "embedded_texts"}),
                         "embedded_texts": similarity.encoded - encoded_before,
                         "cpu_s": round(time.process_time() - cpu, 1), "wall_s": round(time.perf_counter() - started, 1),
                         "load_average": [round(x, 1) for x in os.getloadavg()]}
                entry["cpu_us_per_row"] = round(1e6 * entry["cpu_s"] / max(summary.rows, 1), 1)
                result["ingest"].append(entry)

    # 3. report on 10M sessions
    if args.ingest_rows or args.skip_ingest:
        report_store = folder / f"aggregates-{tag}.sqlite"
        if not (args.reuse_aggregates and report_store.exists()):
            report_store.unlink(missing_ok=True)
            started = time.perf_counter()
            result["aggregates"] = build_aggregates(report_store, t)
            result["aggregates"]["build_s"] = round(time.perf_counter() - started, 1)
    else:
        report_store = ingest_store
    result["store_bytes"] = report_store.stat().st_size
    sqlite3.connect(report_store).execute("PRAGMA optimize").close()
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    command = [sys.executable, "-m", "reward.cli", "online", "report", "--store", str(report_store),
               "--experiment", "reward-v2", "--experiments", str(EXPERIMENTS), "--json", str(folder / "report.json"),
               *(["--no-cumulative"] if args.no_cumulative else [])]
    times, cpu_times, loads = [], [], []
    for _ in range(args.repeats):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        started = time.perf_counter()
        subprocess.run(command, check=True, env=env, stdout=subprocess.DEVNULL)
        times.append(round(time.perf_counter() - started, 2))
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu_times.append(round(after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime, 2))
        loads.append(round(os.getloadavg()[0], 1))
    result.update(report_wall_s=times, report_cpu_s=cpu_times, load_average_during_report=loads,
                  report_median_wall_s=sorted(times)[len(times) // 2])
    report = json.loads((folder / "report.json").read_text())
    result["report"] = {k: report[k] for k in ("days", "arms", "lifts", "srm")}
    result["report"]["cumulative_points"] = len(report.get("cumulative", []))
    Path(args.out).write_text(json.dumps(result, indent=2) + "\n")
    print(json.dumps({k: v for k, v in result.items() if k != "report"}, indent=2))


if __name__ == "__main__":
    main()
