"""Local judge tier throughput: items per second for the full searchllm suite on GRPO-shaped batches (16 rollouts
per prompt sharing their evidence, new evidence per group), with model load time, peak memory and where the time
goes (MiniLM embedder, consistency cross-encoder, the rest: engine, rules, methods).

    taskset -c 1 .venv/bin/python benchmarks/local_tier.py --groups 8 --rollouts 16 --runtime onnx
    taskset -c 1 .venv/bin/python benchmarks/local_tier.py --compare torch,onnx,onnx-int8 --repeats 2 \
        --groups 16 --rollouts 16 --rollout-text distinct

The batches come from `examples/items.jsonl` (13 prompts, 2-4 responses each). Every group gets new evidence: the
first 13 groups are the 13 prompts; later groups reuse a prompt with its evidence and responses re-spaced (every
ASCII space turned into a Unicode space, a different one per cycle; so is the second of two prompts that share an
evidence set). The tokenizers read a Unicode space as a space,
so the models see the same tokens and do the same work, but no cache keyed by text serves them: the figure is one of
new evidence, not of a warm cache. (`respaced_scores_match` says whether the re-spaced copies scored as the
originals did.)

`--rollout-text shared` (the default): a group's 16 rollouts cycle over its prompt's 2-4 example responses (each with
a marker sentence that carries no claim), so rollouts share most sentences, as samples of a converged policy do.
`--rollout-text distinct`: every rollout's answer is also re-spaced by its own pattern, so no two rollouts share a
sentence (the worst case: a new claim check for every sentence of every rollout). Such a rollout can score a little
differently from its shared twin (a multi-word name spaced otherwise is no longer a substring of the evidence), but
the model work is the same.

`--replicas N` scores with N single-threaded processes, one per core, each taking every N-th group, as N scorer
replicas of the Serve app do on N cores (items/s over the slowest replica; peak RSS summed over them); with
`--compare` every runtime is run that way.

`--compare` runs each runtime in a fresh process (load time and peak RSS are per process), interleaved
(`--repeats` rounds of A, B, C), and writes every run and the medians to `--out`; `--baseline-code DIR` adds, in
each round, a run of the code in DIR (another checkout, e.g. `git archive <commit> | tar -x -C DIR`) with its
default runtime.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from benchmarks.emit import emit, machine  # noqa: E402

# Unicode space separators (category Zs) that BERT's normaliser and pre-tokenizer read as a plain space.
SPACES = ("\u00a0", "\u2002", "\u2003", "\u2004", "\u2005", "\u2006", "\u2007", "\u2008", "\u2009", "\u200a",
          "\u202f", "\u205f", "\u3000")


def respace(text: str, cycle: int) -> str:
    """Every ASCII space turned into the cycle's Unicode space (cycle 0: unchanged)."""
    return text if cycle == 0 else text.replace(" ", SPACES[(cycle - 1) % len(SPACES)])


def respace_answer(response: str, rollout: int) -> str:
    """The answer's k-th space turned into an en quad (a space the evidence re-spacing never uses) where bit (k mod 4)
    of the rollout's number is set, and past 16 rollouts the other spaces into em quads: sentences of four or more
    words differ between any two of a group's first 32 rollouts.

    >>> respace_answer("<answer>a b c d e</answer>", 5).split(">")[1].split(" ")
    ['a\\u2000b', 'c\\u2000d', 'e</answer']
    """
    head, tag, rest = response.partition("<answer>")
    if not tag:
        return response
    block, pattern = divmod(rollout, 16)
    out, k = [], 0
    for ch in rest:
        if ch == " ":
            ch = "\u2000" if pattern >> (k % 4) & 1 else ("\u2001" if block else " ")
            k += 1
        out.append(ch)
    return head + tag + "".join(out)


def prompt_pools() -> list[list]:
    """The example items grouped by prompt (query): a group's rollouts cycle over its pool's responses."""
    from reward.schema import Item

    examples = [Item.model_validate_json(line) for line in (ROOT / "examples" / "items.jsonl").read_text().splitlines()
                if line.strip()]
    by_query: dict[str, list] = {}
    for example in examples:
        by_query.setdefault(example.query, []).append(example)
    return list(by_query.values())


def grpo_batch(groups: int, rollouts: int, rollout_text: str = "shared", marker: str = "variant",
               first_group: int = 0, group_stride: int = 1) -> list:
    """`groups` groups of the batch from `first_group` on, every `group_stride`-th (a replica's share of a larger
    one: replica k of n takes groups k, k + n, ...)."""
    pools = prompt_pools()
    # Prompts that share an evidence set (a follow-up question) get it re-spaced, so each group's evidence is new.
    seen: dict[tuple, int] = {}
    repeat = []
    for pool in pools:
        texts = tuple(d.text for d in pool[0].evidence)
        repeat.append(seen.get(texts, 0))
        seen[texts] = repeat[-1] + 1
    variants = max(repeat) + 1
    items = []
    for g in range(first_group, first_group + groups * group_stride, group_stride):
        cycle, index = divmod(g, len(pools))
        pool, spacing = pools[index], cycle * variants + repeat[index]
        for r in range(rollouts):
            source = pool[r % len(pool)]
            # A marker sentence without a claim: rollouts differ in wording even where they share every claim.
            response = source.response.replace("</answer>", f" ({marker} {g}-{r}).\n</answer>")
            if rollout_text == "distinct":
                response = respace_answer(response, r)
            evidence = [d.model_copy(update={"title": respace(d.title, spacing), "text": respace(d.text, spacing)})
                        for d in source.evidence]
            items.append(source.model_copy(update={
                "id": f"g{g}-r{r}", "group": f"g{g}", "response": respace(response, spacing), "evidence": evidence,
                "query": respace(source.query, spacing)}))
    return items


class ModelClock:
    """CPU seconds spent inside the embedder's and the cross-encoder's model calls (thread CPU time, so calls that
    overlap on a shared core are not counted twice) and what they processed."""

    def __init__(self, judge):
        self.seconds = {"embedder": 0.0, "cross_encoder": 0.0}
        self.counts = {"texts_embedded": 0, "pairs_scored": 0, "embedder_calls": 0, "cross_encoder_calls": 0}
        embedder, model = judge.embedder, judge.scorer.model()
        embedder.encode = self._timed(embedder.encode, "embedder", "texts_embedded")
        model.predict = self._timed(model.predict, "cross_encoder", "pairs_scored")

    def _timed(self, call, clock: str, processed: str):
        def timed(inputs):
            started = time.thread_time()
            try:
                return call(inputs)
            finally:
                self.seconds[clock] += time.thread_time() - started
                self.counts[processed] += len(inputs)
                self.counts[f"{clock}_calls"] += 1

        return timed

    def measure(self, run) -> dict:
        for key in self.seconds:
            self.seconds[key] = 0.0
        for key in self.counts:
            self.counts[key] = 0
        cpu, wall = time.process_time(), time.perf_counter()
        result = run()
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        split = {f"{k}_cpu_s": round(v, 2) for k, v in self.seconds.items()}
        split["rest_cpu_s"] = round(cpu - sum(self.seconds.values()), 2)
        return {"wall_s": round(wall, 2), "process_cpu_s": round(cpu, 2), **split, **self.counts}, result


def prepare_file(args) -> Path:
    """`--prepared`: the evidence embeddings of the whole batch (every group), prepared ahead in a separate process as
    `reward prepare-embeddings` does, written to a temporary folder."""
    import tempfile

    path = Path(tempfile.mkdtemp(prefix="local-tier-")) / "embeddings"
    command = [sys.executable, __file__, "--groups", str(args.groups), "--rollouts", str(args.rollouts),
               "--rollout-text", args.rollout_text, "--threads", str(args.threads or 1), "--prepare-only", str(path),
               *(["--runtime", args.runtime] if args.runtime else []), *(["--code", str(args.code)] if args.code else [])]
    subprocess.run(command, check=True, capture_output=True, text=True, env={**os.environ, "OMP_NUM_THREADS": "1"})
    return path


def run_prepare_only(args) -> None:
    from reward.judges.local import prepared
    from reward.rubric import load_suite

    items = grpo_batch(args.groups, args.rollouts, args.rollout_text)
    started = time.perf_counter()
    done = prepared.prepare_sync(items, load_suite("searchllm"))
    prepared.write(args.prepare_only, done)
    print(json.dumps({"prepared_texts": len(done.texts), "prepared_pairs": len(done.pairs),
                      "seconds": round(time.perf_counter() - started, 2)}), file=sys.stderr)


def run_once(args) -> dict:
    if args.runtime:
        os.environ["REWARD_LOCAL_RUNTIME"] = args.runtime
    if args.threads:
        os.environ["REWARD_LOCAL_THREADS"] = str(args.threads)
    if args.prepare_only:
        run_prepare_only(args)
        return {}
    if args.embeddings:
        os.environ["REWARD_PREPARED_EMBEDDINGS"] = str(args.embeddings)
    from reward.engine import Engine
    from reward.judges.local import LocalJudge
    from reward.rubric import load_suite

    judge = LocalJudge()
    started = time.perf_counter()
    judge.embedder.model()
    judge.scorer.model()
    load_s = time.perf_counter() - started
    clock = ModelClock(judge)
    engine = Engine(load_suite("searchllm"), judge)
    items = grpo_batch(args.groups, args.rollouts, args.rollout_text, first_group=args.first_group,
                       group_stride=args.group_stride)
    if args.wait_for_start:  # a replica: every replica loads its models, then all start scoring together
        print("ready", file=sys.stderr, flush=True)
        sys.stdin.readline()
    new, results = clock.measure(lambda: engine.score_sync(items))
    again = grpo_batch(args.groups, args.rollouts, args.rollout_text, marker="version", first_group=args.first_group,
                       group_stride=args.group_stride)
    cached, _ = clock.measure(lambda: engine.score_sync(again))
    # A re-spaced group must score as its original did (same tokens): otherwise the figure measures other work.
    by_id = {r.id: r.reward for r in results}
    pools = len(prompt_pools())
    groups = range(args.first_group, args.first_group + args.groups * args.group_stride, args.group_stride)
    respaced = [abs(by_id[f"g{g}-r{r}"] - by_id[f"g{g % pools}-r{r}"]) for g in groups if g >= pools
                for r in range(args.rollouts) if f"g{g % pools}-r{r}" in by_id and by_id[f"g{g}-r{r}"] is not None]
    encoder = judge.embedder.model()
    return {
        "benchmark": "local_tier", "suite": "searchllm", "items": len(items), "groups": args.groups,
        "rollouts": args.rollouts, "rollout_text": args.rollout_text,
        "runtime": os.environ.get("REWARD_LOCAL_RUNTIME", "default"),
        "cross_encoder_runtime": getattr(judge.scorer.model(), "runtime", "torch"),
        "embedder_runtime": getattr(encoder, "runtime", "torch"),
        "model_load_s": round(load_s, 2),
        "evidence_prepared": bool(args.embeddings),
        "items_per_s_new_evidence": round(len(items) / new["wall_s"], 2),
        "items_per_s_evidence_cached": round(len(again) / cached["wall_s"], 2),
        "new_evidence": new, "evidence_cached": cached,
        "code": str(args.code or ROOT),
        "respaced_scores_match": (max(respaced) < 1e-3) if respaced else None,
        "peak_rss_mib": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
        "threads": int(os.environ.get("REWARD_LOCAL_THREADS", "1")),
        "cpu_affinity": sorted(os.sched_getaffinity(0)),
        "load_average_1min": round(os.getloadavg()[0], 1),
        # what steers the runtimes' threads and kernels (OMP_WAIT_POLICY decides whether torch's idle threads spin)
        "env": {k: os.environ.get(k) for k in ("REWARD_LOCAL_RUNTIME", "REWARD_LOCAL_THREADS", "OMP_NUM_THREADS",
                                               "OMP_WAIT_POLICY")},
        "machine": machine(),
    }


def compare(args) -> dict:
    runs: dict[str, list[dict]] = {}
    variants = [(f"baseline {args.baseline_code}", ["--code", str(args.baseline_code)])] if args.baseline_code else []
    variants += [(runtime, ["--runtime", runtime]) for runtime in args.compare.split(",")]
    for _ in range(args.repeats):
        for name, options in variants:
            command = [sys.executable, __file__, "--groups", str(args.groups), "--rollouts", str(args.rollouts),
                       "--rollout-text", args.rollout_text, "--threads", str(args.threads), *options,
                       *(["--replicas", str(args.replicas)] if args.replicas else []),
                       *(["--prepared"] if args.prepared else [])]
            # The baseline code may set no threads of its own: OMP_NUM_THREADS holds it to the same count.
            env = {**os.environ, "OMP_NUM_THREADS": str(args.threads)}
            reply = subprocess.run(command, check=True, capture_output=True, text=True, env=env)
            run = json.loads(reply.stdout)
            run["runtime"] = name
            runs.setdefault(name, []).append(run)
            print(json.dumps({k: run[k] for k in ("runtime", "items_per_s_new_evidence",
                                                  "items_per_s_evidence_cached", "model_load_s", "peak_rss_mib")}),
                  file=sys.stderr, flush=True)
    medians = {runtime: {key: statistics.median(r[key] for r in rs) for key in (
        "items_per_s_new_evidence", "items_per_s_evidence_cached", "model_load_s", "peak_rss_mib")}
        for runtime, rs in runs.items()}
    return {"benchmark": "local_tier_compare", "command": " ".join(["benchmarks/local_tier.py", *sys.argv[1:]]),
            "medians": medians, "runs": runs}


def replicated(args) -> dict:
    """`--replicas N`: N processes, one pinned to each of the first N cores with one model thread, as N scorer
    replicas serve on N cores; replica k scores groups k, k + N, ... (new evidence in every one), as Serve's router
    spreads a step's requests over its replicas. They load their models, then start together; items/s is all items
    over the slowest replica's wall time."""
    cores = sorted(os.sched_getaffinity(0))
    if args.replicas > len(cores):
        raise SystemExit(f"--replicas {args.replicas}: only {len(cores)} cores available")
    share, extra = divmod(args.groups, args.replicas)
    embeddings = prepare_file(args) if args.prepared else None
    procs = []
    for index in range(args.replicas):
        groups = share + (index < extra)
        command = [sys.executable, __file__, "--groups", str(groups), "--first-group", str(index), "--group-stride",
                   str(args.replicas), "--rollouts", str(args.rollouts), "--rollout-text", args.rollout_text,
                   "--threads", "1", "--wait-for-start",
                   *(["--embeddings", str(embeddings)] if embeddings else []),
                   *(["--runtime", args.runtime] if args.runtime else []),
                   *(["--code", str(args.code)] if args.code else [])]
        env = {**os.environ, "OMP_NUM_THREADS": "1"}
        procs.append(subprocess.Popen(["taskset", "-c", str(cores[index]), *command], stdin=subprocess.PIPE,
                                      stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env))
    for proc in procs:  # each says "ready" once its models are loaded
        while (line := proc.stderr.readline()) and line.strip() != "ready":
            pass
    for proc in procs:
        proc.stdin.write("go\n")
        proc.stdin.flush()
    runs = []
    for proc in procs:
        out, err = proc.communicate()
        if proc.returncode:
            raise SystemExit(f"a replica failed: {err[-2000:]}")
        runs.append(json.loads(out))
    items = sum(r["items"] for r in runs)
    slowest = max(r["new_evidence"]["wall_s"] for r in runs)
    slowest_cached = max(r["evidence_cached"]["wall_s"] for r in runs)
    return {"benchmark": "local_tier_replicas", "command": " ".join(["benchmarks/local_tier.py", *sys.argv[1:]]),
            "replicas": args.replicas, "items": items, "groups": args.groups, "rollouts": args.rollouts,
            "rollout_text": args.rollout_text, "runtime": runs[0]["runtime"], "evidence_prepared": bool(embeddings),
            "items_per_s_new_evidence": round(items / slowest, 2),
            "items_per_s_evidence_cached": round(items / slowest_cached, 2),
            "model_load_s": max(r["model_load_s"] for r in runs),
            "peak_rss_mib": round(sum(r["peak_rss_mib"] for r in runs), 1),
            "peak_rss_mib_per_replica": max(r["peak_rss_mib"] for r in runs),
            "load_average_1min": round(os.getloadavg()[0], 1), "machine": machine(), "runs": runs}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--groups", type=int, default=8)
    parser.add_argument("--rollouts", type=int, default=16)
    parser.add_argument("--rollout-text", choices=("shared", "distinct"), default="shared")
    parser.add_argument("--runtime", default=None, help="REWARD_LOCAL_RUNTIME for this run (default: the tier's)")
    parser.add_argument("--threads", type=int, default=1, help="REWARD_LOCAL_THREADS: model threads per runtime")
    parser.add_argument("--compare", default=None, help="comma-separated runtimes, each run in a fresh process")
    parser.add_argument("--repeats", type=int, default=1)
    parser.add_argument("--baseline-code", type=Path, default=None, help="with --compare: also run this checkout")
    parser.add_argument("--code", type=Path, default=None, help="score with the code of this checkout")
    parser.add_argument("--out", type=Path, default=None, help="also write the JSON here")
    parser.add_argument("--replicas", type=int, default=0,
                        help="score with this many single-threaded processes, one per core (as scorer replicas)")
    parser.add_argument("--prepared", action="store_true",
                        help="with --replicas: the batch's evidence embeddings prepared ahead (reward prepare-embeddings) "
                             "and loaded by every replica before the clock starts")
    parser.add_argument("--embeddings", type=Path, default=None, help=argparse.SUPPRESS)
    parser.add_argument("--prepare-only", type=Path, default=None, help=argparse.SUPPRESS)
    parser.add_argument("--first-group", type=int, default=0, help=argparse.SUPPRESS)
    parser.add_argument("--group-stride", type=int, default=1, help=argparse.SUPPRESS)
    parser.add_argument("--wait-for-start", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.code:
        sys.path.insert(0, str(args.code.resolve()))
    if args.prepared and not (args.replicas or args.compare):
        args.embeddings = prepare_file(args)
    report = compare(args) if args.compare else replicated(args) if args.replicas else run_once(args)
    if args.prepare_only:
        return
    emit(report, args.out)


if __name__ == "__main__":
    main()
