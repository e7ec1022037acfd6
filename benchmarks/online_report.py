"""The 10M-session online report: generate a synthetic interaction log, ingest it into the online store, then time
`reward online report` on it (the whole command: start-up, SRM check, per-arm moments, lifts, JSON).

    nice -n 10 .venv/bin/python benchmarks/online_report.py                      # 10M sessions, 1M users, 7 days
    nice -n 10 .venv/bin/python benchmarks/online_report.py --sessions 200000    # a quick look

The log (about 3.2 GB) and the store (about 2.5 GB) go to var/online-bench/ (git-ignored); results to
benchmarks/results/online_report.json. Generation and ingest happen once a day in production (ingest is
incremental), the report is what people wait for; all three are timed.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from reward.online.experiments import load_experiments  # noqa: E402
from reward.online.store import OnlineStore  # noqa: E402
from reward.online.synthetic import Traffic, benchmark_catalogue, generate  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sessions", type=int, default=10_000_000)
    parser.add_argument("--users", type=int, default=None, help="default: sessions / 10")
    parser.add_argument("--folder", default=str(ROOT / "var/online-bench"))
    parser.add_argument("--repeats", type=int, default=3, help="report runs (the median is the figure)")
    parser.add_argument("--out", default=str(ROOT / "benchmarks/results/online_report.json"))
    args = parser.parse_args()
    folder = Path(args.folder)
    tag = f"{args.sessions // 1_000_000}m" if args.sessions >= 1_000_000 else f"{args.sessions // 1000}k"
    log_path, store_path = folder / f"interactions-{tag}.jsonl", folder / f"online-{tag}.sqlite"
    experiments = load_experiments(ROOT / "configs/online/experiments.yaml")
    result: dict = {"sessions": args.sessions, "machine": f"{platform.machine()}, {os.cpu_count()} cores (shared)",
                    "command": "nice -n 10 .venv/bin/python benchmarks/online_report.py" +
                               (f" --sessions {args.sessions}" if args.sessions != 10_000_000 else "")}
    if not log_path.exists():
        started = time.perf_counter()
        traffic = Traffic(sessions=args.sessions, users=args.users or args.sessions // 10, days=7,
                          experiments=list(experiments.values()), good_share={"reward-v2": {"treatment": 0.53}},
                          policies={"control": "grpo-0301", "treatment": "grpo-0412"}, seed=10)
        generate(benchmark_catalogue(), traffic, log_path)
        result["generate_s"] = round(time.perf_counter() - started, 1)
    result["log_bytes"] = log_path.stat().st_size
    if not store_path.exists():
        cpu = time.process_time()
        with OnlineStore(store_path) as store:
            summary = store.ingest([log_path])
        result["ingest"] = summary.model_dump(exclude={"errors"})
        result["ingest_cpu_s"] = round(time.process_time() - cpu, 1)
        result["ingest_rows_per_s"] = round(summary.rows / summary.seconds)
        result["load_average_after_ingest"] = os.getloadavg()
    result["store_bytes"] = store_path.stat().st_size
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    command = [sys.executable, "-m", "reward.cli", "online", "report", "--store", str(store_path),
               "--experiment", "reward-v2", "--experiments", str(ROOT / "configs/online/experiments.yaml"),
               "--json", str(folder / "report.json")]
    times, cpu_times, loads = [], [], []
    for _ in range(args.repeats):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        started = time.perf_counter()
        subprocess.run(command, check=True, env=env, stdout=subprocess.DEVNULL)
        times.append(round(time.perf_counter() - started, 2))
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu_times.append(round(after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime, 2))
        loads.append(os.getloadavg()[0])
    result["report_s"] = times
    result["report_cpu_s"] = cpu_times
    result["load_average_during_report"] = loads
    result["report_median_s"] = sorted(times)[len(times) // 2]
    result["report"] = json.loads((folder / "report.json").read_text())
    Path(args.out).write_text(json.dumps(result, indent=2) + "\n")
    print(json.dumps({k: v for k, v in result.items() if k != "report"}, indent=2))


if __name__ == "__main__":
    main()
