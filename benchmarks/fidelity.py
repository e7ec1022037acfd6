"""Fidelity harness: public labelled faithfulness data, rendered in the policy format, scored by a judge tier.

Six public sets, each read from a git-ignored folder (`data/public/<owner>/<repo>/<path>`, checked against a
recorded SHA-256; nothing is downloaded at run time):

- `summedits` (salesforce/factualNLG, SummEdits): a document and summaries edited by annotators, labelled
  consistent / inconsistent. Pairs: the same document and seed summary, one consistent and one inconsistent edit.
- `begin` (google/BEGIN-dataset): knowledge-grounded dialogue responses (the previous turn is the query),
  labelled fully attributable / not fully attributable to the knowledge snippet (generic responses left out).
  Pointwise.
- `wice` (ryokamoi/wice, WiCE): Wikipedia claims and the web page they cite, labelled supported / not supported
  (partially supported left out). The page is split into passages of six sentences. Pointwise.
- `expertqa`, `attributedqa`, `lfqa` (OSU-NLP-Group/AttributionBench, three of its parts): a claim of a
  generative-search answer and the references it cites, labelled attributable / not attributable. Fit: the balanced
  dev subset; test: the 500-row sample of the balanced test subset. Pointwise. The files' other parts are not read.

Each response is rendered with the one rule in `reward.evaluation.fidelity.render_case` (every sentence cites the passage that
shares most of its words), so rendering carries no label. Reported per set and dimension: AUC (pairwise, or ROC for
pointwise sets) and accuracy of the 0.5 threshold with 95% bootstrap intervals, beside the lexical baseline and the
reward / gate / utility. Results go to `benchmarks/results/fidelity*.json` and `benchmarks/FIDELITY.md`.

    nice -n 10 .venv/bin/python benchmarks/fidelity.py --per-set 150 --label baseline-local
    nice -n 10 .venv/bin/python benchmarks/fidelity.py --per-set 30 --freeze data/fidelity_slice  # the CI slice

HaluEval is a held-out test and has no loader here.
"""

from __future__ import annotations

import argparse
import csv
import datetime as dt
import functools
import hashlib
import json
import logging
import os
import random
import re
import subprocess
import sys
import time
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
for _path in (str(ROOT), str(Path.cwd())):  # the code under test (the working directory's checkout) first
    if _path in sys.path:
        sys.path.remove(_path)
    sys.path.insert(0, _path)

from policy.format import split_sentences  # noqa: E402
from reward.engine import Engine  # noqa: E402
try:
    from reward.evaluation.fidelity import (FidelityCase, case_scores, freeze_slice, load_slice, measure, passages,  # noqa: E402
                                 render_case, score_cases)
except ImportError:  # scoring another checkout that predates the harness: use this checkout's harness module
    import importlib.util

    _spec = importlib.util.spec_from_file_location("reward_fidelity", ROOT / "reward" / "evaluation" / "fidelity.py")
    _module = importlib.util.module_from_spec(_spec)
    sys.modules["reward_fidelity"] = _module
    _spec.loader.exec_module(_module)
    FidelityCase, freeze_slice, measure = _module.FidelityCase, _module.freeze_slice, _module.measure
    passages, render_case, score_cases = _module.passages, _module.render_case, _module.score_cases
    case_scores, load_slice = _module.case_scores, _module.load_slice
from reward.judges.factory import make_judge  # noqa: E402
from reward.rubric import load_suite  # noqa: E402
from reward.schema import Evidence, Turn  # noqa: E402

log = logging.getLogger("fidelity")
SECTIONS = [ROOT / "benchmarks" / "results" / "example_head_sick.md"]
DATA = ROOT / "data" / "public"


@dataclass(frozen=True)
class SourceFile:
    repo: str
    commit: str
    path: str
    sha256: str

    def location(self, data: Path) -> Path:
        return data / self.repo / self.path

    def read(self, data: Path) -> bytes:
        path = self.location(data)
        how = (f"fetch it: git clone https://github.com/{self.repo} /tmp/src && mkdir -p {path.parent} && "
               f"git -C /tmp/src show {self.commit}:{self.path} > {path}")
        if not path.is_file():
            raise SystemExit(f"{path}: missing. The harness downloads nothing; {how}")
        blob = path.read_bytes()
        digest = hashlib.sha256(blob).hexdigest()
        if digest != self.sha256:
            raise SystemExit(f"{path}: SHA-256 {digest} is not the recorded {self.sha256} "
                             f"({self.repo}@{self.commit}:{self.path}); {how}")
        return blob


_BEGIN = "6e65f0d5a1ed1b9574643a7640ff1678d4e979b5"
_SUMMEDITS = "0da1dfa62c783218d26208c1796d3a2605bec745"
_WICE = "ddeb6c183665e2a20c5f03c5aa07f03888b9870f"
_ATTRIBUTIONBENCH = "b33329b29946b791649cf66d33e10b5a5bbdc44d"
_ATTRIBUTIONBENCH_FILES = [SourceFile("OSU-NLP-Group/AttributionBench", _ATTRIBUTIONBENCH, path, digest) for path, digest in [
    ("data/dev_all_subset_balanced.jsonl", "a744d1f84e621015f7a7e1941c3fb3f0838be767645dfb2ec784efd3133ab7d6"),
    ("data/test_all_subset_balanced_sampled500.jsonl", "67459b19ce853519bed1e39c7585fa41a2c2ea6504139d23453ae4cafb15c02a"),
]]
ATTRIBUTION_SETS = {"expertqa": "ExpertQA", "attributedqa": "AttributedQA", "lfqa": "LFQA"}
"""The AttributionBench parts the harness reads (set name -> its `src_dataset`). The files' other parts are held
out of this project: their rows are dropped by that field when the file is read, never parsed further."""
SOURCES: dict[str, list[SourceFile]] = {
    "summedits": [SourceFile("salesforce/factualNLG", _SUMMEDITS, f"data/summedits/summedits_{domain}.json", digest) for domain, digest in [
        ("ectsum", "dc255beb81ff1194b9069dfe03c1f888e0c5357c117e304bb44baaaa381a718b"),
        ("news", "aa06a1998cf7bfe6e40f8a79e0c10a1f77528165d8659056202c0ed679191c8e"),
        ("podcast", "3d6c777190ff1cad633fed48b52856774e078d8a8b78ae00189df7abb506f8dc"),
        ("qmsumm", "011e2b70ba291d1a75d14526fcacb156f70cb6ed66b375143768389b6db67bff"),
        ("sales_call", "81381ad89c8e3dd8450ee6355f847e8b76cbb134e126d5568a79a33334bb1fef"),
        ("sales_email", "8267fffdd318e513bde0f7efbd9226f908f1a5a2944f783902fdd0d6b0b8ccef"),
        ("samsum", "1d65ca667e646c7cc1cde9e6b35bdf43531eeea9191c692a9ac9ec0aa84eb5b5"),
        ("scitldr", "b4d359277bafa11587505f0332797266b69c316c713db17376f0d99413e4b350"),
    ]],
    "begin": [SourceFile("google/BEGIN-dataset", _BEGIN, path, digest) for path, digest in [
        ("topicalchat/begin_dev_tc.tsv", "d799a8cb3635de41b7f284dcfc872544ddeadcbae0c2ffd684270cce671f7711"),
        ("cmu-dog/begin_dev_cmu.tsv", "9482294df23cf08a976773ca73203b84f7178534ecab1a206eaade365e97071c"),
        ("wow/begin_dev_wow.tsv", "2ebfc95a1ff267e12dcce3250da4d158e1811c62e9e1a0d56f110efc9ace0178"),
        ("wow/begin_test_wow.tsv", "d5c106a42042c3abd481563f1157e07c95c107dbcdf67f23564d874e8a4d6e7e"),
    ]],
    "wice": [SourceFile("ryokamoi/wice", _WICE, path, digest) for path, digest in [
        ("data/entailment_retrieval/claim/dev.jsonl", "67531ca79bde4c81d3752fb69d9cb0d3d6763de5c3028f548b83ef053a6f8042"),
        ("data/entailment_retrieval/claim/test.jsonl", "4c91b9e9590cfcd8f8a0f7288b5ff315af8ade946d7bf26f50fbd671bb86dbe8"),
    ]],
    **{name: _ATTRIBUTIONBENCH_FILES for name in ATTRIBUTION_SETS},
}


def _chunk_evidence(text: str, title: str, size: int = 6, limit: int = 12) -> list[Evidence]:
    sentences = split_sentences(text) or [text]
    chunks = passages(sentences, size)
    while len(chunks) > limit:  # long sources: fewer, longer passages rather than dropping text
        size *= 2
        chunks = passages(sentences, size)
    return [Evidence(id=str(i), title=title, text=chunk) for i, chunk in enumerate(chunks, start=1)]


SPLITS = ("fit", "test", "all")
"""`fit`: what may tune anything on public data (a combination, a window, a threshold); `test`: what the figures are
reported on, never tuned on; `all`: both (the runs recorded before the split existed)."""
FIT_FILES = {"begin": {"topicalchat/begin_dev_tc.tsv", "cmu-dog/begin_dev_cmu.tsv", "wow/begin_dev_wow.tsv"},
             "wice": {"data/entailment_retrieval/claim/dev.jsonl"},
             **{name: {"data/dev_all_subset_balanced.jsonl"} for name in ATTRIBUTION_SETS}}
TEST_FILES = {"begin": {"wow/begin_test_wow.tsv"}, "wice": {"data/entailment_retrieval/claim/test.jsonl"},
              **{name: {"data/test_all_subset_balanced_sampled500.jsonl"} for name in ATTRIBUTION_SETS}}


def document_split(document: str) -> str:
    """SummEdits has no split of its own: half its documents (by a stable hash of the text) are `fit`, half `test`,
    so no document is on both sides.

    >>> document_split("The quarterly call opened with revenue figures.") in ("fit", "test")
    True
    """
    return "fit" if hashlib.sha256(document.encode("utf-8")).digest()[0] % 2 == 0 else "test"


def file_split(name: str, source: SourceFile) -> str:
    if source.path in FIT_FILES.get(name, ()):
        return "fit"
    if source.path in TEST_FILES.get(name, ()):
        return "test"
    raise ValueError(f"{name}: {source.path} is in neither split")


def _wanted(split: str, actual: str) -> bool:
    return split == "all" or split == actual


def load_summedits(data: Path, limit: int, rng: random.Random, split: str = "all") -> list[FidelityCase]:
    """Pairs: for each (document, seed summary), consistent and inconsistent edits matched one to one."""
    groups: dict[tuple[str, str], dict[int, list[dict]]] = defaultdict(lambda: {0: [], 1: []})
    for source in SOURCES["summedits"]:
        domain = Path(source.path).stem.removeprefix("summedits_")
        for row in json.loads(source.read(data)):
            if not _wanted(split, document_split(row["doc"])):
                continue
            groups[(domain, row["doc"], row["original_summary"])][int(row["label"])].append(row)
    pairs = []
    for (domain, doc, _), sides in sorted(groups.items(), key=lambda kv: kv[1][1][0]["id"] if kv[1][1] else ""):
        good, bad = list(sides[1]), list(sides[0])
        rng.shuffle(good)
        rng.shuffle(bad)
        pairs.extend((domain, doc, g, b) for g, b in zip(good, bad))
    rng.shuffle(pairs)
    # Round-robin over documents so a small slice still spans many of them.
    by_doc: dict[str, list] = defaultdict(list)
    for pair in pairs:
        by_doc[pair[1]].append(pair)
    ordered = []
    while any(by_doc.values()) and len(ordered) < limit:
        for doc in list(by_doc):
            if by_doc[doc] and len(ordered) < limit:
                ordered.append(by_doc[doc].pop())
    cases = []
    for number, (domain, doc, good, bad) in enumerate(ordered):
        evidence = _chunk_evidence(doc, f"{domain} document")
        query = "Summarize the document."
        for label, row in ((1, good), (0, bad)):
            item = render_case(f"summedits-{number}-{label}", query, evidence, row["summary"])
            cases.append(FidelityCase(set="summedits", label=label, pair=f"summedits-{number}", item=item,
                                      split=document_split(doc)))
    return cases


def load_begin(data: Path, limit: int, rng: random.Random, split: str = "all") -> list[FidelityCase]:
    """Pointwise, balanced: as many attributable as non-attributable responses (generic ones left out). `fit`: the
    three dev files; `test`: the Wizard-of-Wikipedia test file."""
    csv.field_size_limit(10**8)
    labelled: dict[int, list[dict]] = {0: [], 1: []}
    for source in SOURCES["begin"]:
        side = file_split("begin", source)
        if not _wanted(split, side):
            continue
        rows = csv.DictReader(source.read(data).decode("utf-8").splitlines(), delimiter="\t")
        for row in rows:
            label = {"Fully attributable": 1, "Not fully attributable": 0}.get(row["begin_label"])
            if label is not None and row["response"].strip() and row["knowledge"].strip():
                labelled[label].append(row | {"_split": side})
    cases = []
    for label, rows in labelled.items():
        rng.shuffle(rows)
        for number, row in enumerate(rows[: limit // 2]):
            evidence = [Evidence(id="1", title="Knowledge", text=row["knowledge"].strip())]
            item = render_case(f"begin-{label}-{number}", row["message"].strip() or "Tell me more.", evidence,
                               row["response"].strip(), history=[Turn(role="user", content=row["message"].strip())])
            cases.append(FidelityCase(set="begin", label=label, item=item, split=row["_split"]))
    rng.shuffle(cases)
    return cases


def load_wice(data: Path, limit: int, rng: random.Random, split: str = "all",
              max_sentences: int = 200) -> list[FidelityCase]:
    """Pointwise: supported against not supported claims (partially supported left out); pages of at most
    `max_sentences` sentences (a length filter that ignores the label). `fit`: dev; `test`: test."""
    rows = []
    for source in SOURCES["wice"]:
        side = file_split("wice", source)
        if not _wanted(split, side):
            continue
        for line in source.read(data).decode("utf-8").splitlines():
            row = json.loads(line)
            label = {"supported": 1, "not_supported": 0}.get(row["label"])
            if label is not None and len(row["evidence"]) <= max_sentences:
                rows.append((label, row | {"_split": side}))
    rng.shuffle(rows)
    cases = []
    for label, row in rows[:limit]:
        lines = row["evidence"]
        title = lines[0].removeprefix("(meta data) TITLE:").strip() if lines and lines[0].startswith("(meta data)") else ""
        body = [s for s in lines[1:] if s.strip()] if title else lines
        evidence = [Evidence(id=str(i), title=title, text=chunk) for i, chunk in enumerate(passages(body, 6), start=1)]
        query = f"What is known about {row['meta']['claim_title']}?"
        item = render_case(f"wice-{row['meta']['id']}", query, evidence[:40], row["claim"])
        cases.append(FidelityCase(set="wice", label=label, item=item, split=row["_split"]))
    return cases


_REFERENCE_MARKER = re.compile(r"\s*\[\d+(?:\s*,\s*\d+)*\]")


def attribution_rows(blob: bytes, part: str) -> list[dict]:
    """The rows of one AttributionBench part (`src_dataset` equal to `part`); the file's other parts are skipped on
    that field alone.

    >>> blob = b'{"src_dataset": "LFQA", "claim": "a"}\\n{"src_dataset": "Other", "claim": "b"}\\n'
    >>> [row["claim"] for row in attribution_rows(blob, "LFQA")]
    ['a']
    """
    rows = []
    for line in blob.decode("utf-8").splitlines():
        row = json.loads(line) if line.strip() else None
        if row is not None and row.get("src_dataset") == part:
            rows.append(row)
    return rows


def load_attribution(name: str, data: Path, limit: int, rng: random.Random, split: str = "all") -> list[FidelityCase]:
    """Pointwise: an AttributionBench claim (from a generative-search answer) against the references it cites,
    labelled attributable / not attributable by annotators; the files are balanced already. Each reference is an
    evidence item (long ones cut into passages of six sentences); the claim's own reference markers ("[5]") are
    dropped, the rendering cites the passage it shares most words with. `fit`: the dev file; `test`: the 500-row
    sample of the test file."""
    rows = []
    for source in SOURCES[name]:
        side = file_split(name, source)
        if _wanted(split, side):
            rows += [row | {"_split": side} for row in attribution_rows(source.read(data), ATTRIBUTION_SETS[name])]
    rows.sort(key=lambda row: row["id"])
    rng.shuffle(rows)
    cases = []
    for row in rows[:limit]:
        label = {"attributable": 1, "not attributable": 0}[row["attribution_label"]]
        references = json.loads(row["references"]) if isinstance(row["references"], str) else row["references"]
        evidence: list[Evidence] = []
        for reference in references:
            for chunk in passages(split_sentences(reference) or [reference], 6):
                evidence.append(Evidence(id=str(len(evidence) + 1), title="", text=chunk))
        claim = _REFERENCE_MARKER.sub("", row["claim"]).strip()
        if not evidence or not claim:
            continue
        item = render_case(f"{name}-{row['id']}", row["question"].strip() or "Answer the question.", evidence[:40],
                           claim)
        cases.append(FidelityCase(set=name, label=label, item=item, split=row["_split"]))
    return cases


LOADERS: dict[str, Callable[..., list[FidelityCase]]] = {
    "summedits": load_summedits, "begin": load_begin, "wice": load_wice,
    **{name: functools.partial(load_attribution, name) for name in ATTRIBUTION_SETS},
}


def _first(cases: list[FidelityCase], per_set: int) -> list[FidelityCase]:
    """The first `per_set` pairs (both cases) or items of each set, in loading order (already shuffled)."""
    taken: dict[str, list[str]] = defaultdict(list)
    out = []
    for case in cases:
        key = case.pair or case.item.id
        keys = taken[case.set]
        if key in keys or len(keys) < per_set:
            if key not in keys:
                keys.append(key)
            out.append(case)
    return out


def _commit(path: Path) -> str:
    try:
        head = subprocess.run(["git", "-C", str(path), "rev-parse", "--short", "HEAD"], capture_output=True, text=True, check=True)
        dirty = subprocess.run(["git", "-C", str(path), "status", "--porcelain", "--untracked-files=no"], capture_output=True, text=True, check=True)
        return head.stdout.strip() + ("+dirty" if dirty.stdout.strip() else "")
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


SHOWN = ("claim_hallucination", "highlight_hallucination", "no_supply_reject", "answer_quality", "lexical_baseline",
         "reward", "gate", "utility")


def markdown(runs: list[dict]) -> str:
    lines = [
        "# Fidelity on public labelled data",
        "",
        "Does the judge tier tell a faithful answer from a hallucinated one? Written by `benchmarks/fidelity.py` "
        "(see its docstring for the sets and how each is rendered in the policy format). AUC: pairwise for "
        "pair sets (the faithful answer must score higher; a tie counts 0.5), ROC for pointwise sets; accuracy: "
        "a score >= 0.5 predicts faithful. Brackets: 95% bootstrap intervals (1000 resamples, seed 0). "
        "`lexical_baseline` is the share of the answer's content words found in the evidence. Unscored "
        "dimensions are excluded, never counted as 0 (`unscored` column). Data: public repositories, read from "
        "`data/public/` (git-ignored) and checked by SHA-256; never committed, except the CI gate's 30-case-per-set "
        "slice in `data/fidelity_slice/` (licences in its NOTICE.md).",
        "",
    ]
    lines += pairs_table()
    lines += ["## Data", "", "Fetch each file into `data/public/<repository>/<path>` (the harness checks the SHA-256 and, for a "
              "missing file, prints this command): `git clone https://github.com/<repository> /tmp/src && "
              "git -C /tmp/src show <commit>:<path> > data/public/<repository>/<path>`.", "",
              "| set | repository | commit | files (SHA-256 prefix) |", "|---|---|---|---|"]
    for name, files in SOURCES.items():
        listed = ", ".join(f"`{f.path}` ({f.sha256[:10]})" for f in files)
        lines.append(f"| {name} | {files[0].repo} | `{files[0].commit}` | {listed} |")
    lines.append("")
    summary = ("claim_hallucination", "highlight_hallucination", "reward", "gate", "lexical_baseline")
    tested = [run for run in runs if run.get("split") == "test"]
    lines += ["## Summary: AUC per set on the test split, newest run first", "",
              "`margin`: claim_hallucination minus the lexical baseline (the bar: >= +0.03 on every set). The newest "
              "run's per-dimension figures and command follow the table; every run's full results are in "
              "`benchmarks/results/fidelity_<run>.json`, and the reasoning behind past candidates in "
              "[logbook/fidelity.md](logbook/fidelity.md).", "",
              "| run | set | " + " | ".join(summary) + " | margin |",
              "|---|---|" + "---|" * (len(summary) + 1)]
    for run in tested:
        for name, result in run["report"].items():
            dims = result["dimensions"]
            cells = [_cell(dims[d]["auc"]) if d in dims else "n/a" for d in summary]
            claim, lexical = (dims.get(d, {}).get("auc", {}).get("value") for d in ("claim_hallucination", "lexical_baseline"))
            margin = f"{claim - lexical:+.3f}" if claim is not None and lexical is not None else "n/a"
            lines.append(f"| {run['label']} (`{run['code']}`) | {name} | " + " | ".join(cells) + f" | {margin} |")
    lines.append("")
    for section in SECTIONS:  # current figures measured by other scripts, kept as their own markdown beside their JSON
        if section.is_file():
            lines += [section.read_text(encoding="utf-8").rstrip(), ""]
    for run in tested[:1]:
        lines += [f"## Newest run: {run['label']}", "", f"Code `{run['code']}`, judge `{run['judge']}`, suite `{run['suite']}`, "
                  f"{run['date']}, {run['seconds']:.0f} s for {run['items']} items on a shared 2-core machine"
                  f"{', split ' + run['split'] if run.get('split') else ''}. "
                  f"{run.get('note', '')}", "", "```", run["command"], "```", ""]
        for name, result in run["report"].items():
            source = SOURCES[name][0]
            lines += [f"### {name} ({result['kind']}, {result['cases']} cases; {source.repo}@{source.commit[:10]})", "",
                      "| dimension | AUC [95% CI] | accuracy [95% CI] | pairs or items in the AUC | unscored cases |", "|---|---|---|---|---|"]
            dims = result["dimensions"]
            for dim in [d for d in SHOWN if d in dims] + sorted(d for d in dims if d not in SHOWN):
                entry = dims[dim]
                lines.append(f"| {'**' + dim + '**' if dim in ('claim_hallucination', 'lexical_baseline', 'reward') else dim} "
                             f"| {_cell(entry['auc'])} | {_cell(entry['accuracy'])} | {entry['n']} | {entry['unscored']} |")
            lines.append("")
    return "\n".join(lines)


def dump_run(run: dict) -> str:
    """The run as indented JSON, with one line per case's scores (hundreds of cases stay readable in a diff)."""
    cases = run.get("cases")
    head = json.dumps({k: v for k, v in run.items() if k != "cases"}, indent=2)
    if not cases:
        return head + "\n"
    lines = [f"  {json.dumps(k)}: {json.dumps(v, separators=(',', ':'))}" for k, v in cases.items()]
    return head[:-2] + ',\n  "cases": {\n' + ",\n".join("  " + line for line in lines) + "\n  }\n}\n"


def pairs_table() -> list[str]:
    """The same-evidence pairs' figures (`benchmarks/pairs.py`, results/pairs*.json), newest run first."""
    runs = sorted((json.loads(p.read_text()) for p in (ROOT / "benchmarks" / "results").glob("pairs*.json")),
                  key=lambda r: r["date"], reverse=True)
    if not runs:
        return []
    shown = ("reward", "gate", "utility", "claim_hallucination", "response_length", "query_satisfaction",
             "answer_useful", "lexical_baseline", "lexical_cited")
    lines = ["## Same-evidence pairs: does the reward prefer the right answer? Newest run first", "",
             "SQuAD questions (`benchmarks/pairs.py`, its docstring has the construction): `squad-wrong-answer` pairs a "
             "terse right answer with a fluent sentence carrying a wrong name or number; `squad-cited-doc` pairs the "
             "same answer citing the passage that holds it with it citing another passage. Pairwise AUC (a tie counts "
             "0.5) with 95% bootstrap intervals, on the test articles (nothing was fitted or tuned on them). Issue 29's "
             "bar: reward AUC >= 0.85. `lexical_cited`: the word-overlap baseline against the cited evidence only.", "",
             "| run | command | set | pairs | " + " | ".join(shown) + " |", "|---|---|---|---|" + "---|" * len(shown)]
    for run in runs:
        for name, result in run["report"].items():
            dims = result["dimensions"]
            cells = [_cell(dims[d]["auc"]) if d in dims else "n/a" for d in shown]
            pairs = dims["reward"].get("n", "n/a") if "reward" in dims else "n/a"
            lines.append(f"| {run['label']} (`{run['code']}`, {run['split']} split, {run['date']}) | `{run['command']}` "
                         f"| {name} | {pairs} | " + " | ".join(cells) + " |")
    lines.append("")
    exponents = ROOT / "benchmarks" / "results" / "gate_exponents.json"
    if exponents.is_file():
        run = json.loads(exponents.read_text())
        sets = sorted({n for entry in run["settings"].values() for n in entry["pairs"]})
        lines += ["### Gate exponents and smoothing: the trade-off", "",
                  f"`{run['command']}` (`{run['code']}`, {run['date']}): the suite options `gate_exponents` "
                  "(default equal, as in the paper), `delta` and `gate_deltas` (shipped: the paper's 0.01 for every "
                  "dimension; \"judged\" smooths the judged bottom-line dimensions, the rules keeping 0.01). Calibration: the share of the bundled calibration pairs "
                  f"({run['calibration_pairs']}) whose preferred response gets the higher reward (a tie counts 0.5), "
                  "all and by the layer of the labelled dimension; pairs: reward AUC on the test articles.", "",
                  "| gate | calibration, all | calibration, bottom-line pairs | calibration, behavioral pairs | "
                  + " | ".join(sets) + " |", "|---|---|---|---|" + "---|" * len(sets)]
        for setting, entry in run["settings"].items():
            calibration = [_cell({"value": c["agreement"], "ci": c["ci"]}) if c else "n/a"
                           for c in (entry["calibration"].get(g) for g in ("all", "bottom_line", "behavioral"))]
            lines.append(f"| {setting} | " + " | ".join(calibration) + " | "
                         + " | ".join(_cell({"value": entry["pairs"][n]["auc"], "ci": entry["pairs"][n]["ci"]}) for n in sets) + " |")
        lines.append("")
    return lines


def write_markdown(target: Path) -> None:
    runs = [json.loads(p.read_text()) for p in sorted((ROOT / "benchmarks" / "results").glob("fidelity*.json"))]
    target.write_text(markdown(sorted(runs, key=lambda r: r["date"], reverse=True)), encoding="utf-8")


def _cell(metric: dict) -> str:
    if metric["value"] is None:
        return "n/a"
    ci = metric["ci"]
    return f"{metric['value']:.3f}" + (f" [{ci[0]:.3f}, {ci[1]:.3f}]" if ci else "")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sets", default=",".join(LOADERS), help="comma-separated: " + ", ".join(LOADERS))
    parser.add_argument("--per-set", type=int, default=400, help="pairs (pair sets) or items (pointwise sets) per set")
    parser.add_argument("--judge", default="local", help="local, mock or a configs/judges/*.yaml endpoint config")
    parser.add_argument("--suite", default="searchllm")
    parser.add_argument("--data", type=Path, default=DATA, help="folder holding the fetched public files")
    parser.add_argument("--split", choices=SPLITS, default="test",
                        help="fit: what tuning may read; test (default): what reports are measured on; all: both")
    parser.add_argument("--export-cases", type=Path, default=None,
                        help="also write the loaded cases (FidelityCase JSONL, split recorded) here, e.g. for "
                             "`training.consistency.combine --public` (fit split only)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--resamples", type=int, default=1000)
    parser.add_argument("--label", default=None, help="run label in FIDELITY.md (default: the code's commit)")
    parser.add_argument("--out", type=Path, default=None, help="JSON results (default benchmarks/results/fidelity_<label>.json)")
    parser.add_argument("--markdown", type=Path, default=ROOT / "benchmarks" / "FIDELITY.md",
                        help="regenerated from every benchmarks/results/fidelity*.json")
    parser.add_argument("--freeze", type=Path, default=None,
                        help="also write a frozen CI slice here: the first --freeze-per-set pairs/items of each set")
    parser.add_argument("--freeze-per-set", type=int, default=30)
    parser.add_argument("--code", default=None, help="what code ran (default: the working directory's git commit)")
    parser.add_argument("--note", default="", help="one line on what the run measured, shown in FIDELITY.md")
    parser.add_argument("--slice", type=Path, default=None,
                        help="score the cases of a frozen slice (checksums verified) instead of loading the sources")
    parser.add_argument("--no-score", dest="score", action="store_false", help="with --export-cases: export only")
    parser.add_argument("--combination-part", action="store_true",
                        help="with --split fit: only the fit cases the consistency model does not train on "
                             "(consistency_data.case_in_model_part, by document), i.e. what tuning may still measure on")
    parser.add_argument("--markdown-only", action="store_true", help="only regenerate --markdown from the recorded results")
    args = parser.parse_args()
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    if args.markdown_only:
        write_markdown(args.markdown)
        return

    names = [n.strip() for n in args.sets.split(",") if n.strip()]
    unknown = [n for n in names if n not in LOADERS]
    if unknown:
        raise SystemExit(f"--sets: unknown {unknown}; known: {', '.join(LOADERS)}")
    cases: list[FidelityCase] = []
    if args.slice:
        cases = [c for c in load_slice(args.slice)[0] if c.set in names]
        names = sorted({c.set for c in cases})
        log.info("%s: %d cases of %s", args.slice, len(cases), ", ".join(names))
    for name in names if not args.slice else []:
        loaded = LOADERS[name](args.data, args.per_set, random.Random(f"{args.seed}-{name}"), split=args.split)
        log.info("%s: %d cases", name, len(loaded))
        cases.extend(loaded)
    if args.combination_part:
        if args.split != "fit":
            raise SystemExit("--combination-part goes with --split fit")
        from training.consistency.data import case_in_model_part

        cases = [c for c in cases if not case_in_model_part(c)]
        log.info("the combination's part of the fit split: %d cases", len(cases))
    if args.export_cases:
        args.export_cases.parent.mkdir(parents=True, exist_ok=True)
        args.export_cases.write_text("".join(c.model_dump_json() + "\n" for c in cases), encoding="utf-8")
        manifest = {"cases": len(cases), "split": None if args.slice else args.split, "per_set": args.per_set,
                    "seed": args.seed, "sha256": hashlib.sha256(args.export_cases.read_bytes()).hexdigest(),
                    "command": "benchmarks/fidelity.py " + " ".join(sys.argv[1:]),
                    "sources": {n: [vars(s) | {"split": file_split(n, s) if n in FIT_FILES else "by document hash"}
                                    for s in SOURCES[n]] for n in names}}
        Path(f"{args.export_cases}.json").write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")
        log.info("wrote %d cases to %s (manifest %s.json)", len(cases), args.export_cases, args.export_cases)
        if args.score is False:
            return
    engine = Engine(load_suite(args.suite), make_judge(args.judge))
    started = time.perf_counter()
    results = score_cases(engine, cases)
    seconds = time.perf_counter() - started
    report = measure(cases, results, resamples=args.resamples)
    code = args.code or _commit(Path.cwd())
    label = args.label or code
    command = "nice -n 10 .venv/bin/python benchmarks/fidelity.py " + " ".join(sys.argv[1:])
    run = {"label": label, "code": code, "code_path": str(Path.cwd()), "judge": args.judge, "suite": args.suite,
           "note": args.note, "sets": names, "split": None if args.slice else (args.split + (" (combination part)" if args.combination_part else "")), "per_set": None if args.slice else args.per_set,
           "slice": str(args.slice) if args.slice else None, "seed": args.seed, "items": len(cases), "seconds": round(seconds, 1),
           "date": dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"), "command": command,
           "sources": {n: [vars(s) for s in SOURCES[n]] for n in names}, "report": report,
           "cases": case_scores(cases, results)}
    if args.freeze:
        subset = _first(cases, args.freeze_per_set)
        chosen = {c.item.id for c in subset}
        frozen = measure(subset, [r for r in results if r.id in chosen], resamples=args.resamples)
        meta = {k: v for k, v in run.items() if k not in ("report", "cases")} | {"per_set": args.freeze_per_set}
        target = freeze_slice(subset, frozen, args.freeze, meta=meta)
        log.info("froze %d cases into %s", len(subset), target)
    out = args.out or ROOT / "benchmarks" / "results" / f"fidelity_{label.replace('/', '_')}.json"
    out.write_text(dump_run(run), encoding="utf-8")
    write_markdown(args.markdown)
    for name, result in report.items():
        dims = result["dimensions"]
        log.info("%s: %s", name, ", ".join(f"{d} {dims[d]['auc']['value']}" for d in SHOWN if d in dims))
    log.info("wrote %s and %s", out, args.markdown)


if __name__ == "__main__":
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    main()
