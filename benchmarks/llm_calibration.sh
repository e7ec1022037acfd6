#!/bin/sh
# `reward calibrate` with the real small LLM judge (reward judge-server, Gemma 3 270M) on a documented subset of the
# bundled calibration set, beside the local tier and the mock judge on the same subset.
#
# Why a subset: `reward calibrate` scores every label's item(s) on every dimension of the suite, and a CPU judge call
# takes seconds; the full set on the full suite is ~14,000 judge calls. Here each chosen dimension gets a one-dimension
# suite (the same rubric files) and only its own labels: every pointwise label and every pair of that dimension.
#
#     nice -n 10 sh benchmarks/llm_calibration.sh claim_hallucination query_satisfaction
#
# JUDGES="local mock" limits the judges. Needs a judge server on 127.0.0.1:8002 (`reward judge-server`). Subset files are written under var/ (git-ignored);
# results go to benchmarks/results/calibration_<judge>_subset.json.
set -eu
cd "$(dirname "$0")/.."
BIN=${BIN:-.venv/bin}
WORK=var/calibration-subset
mkdir -p "$WORK/suites" benchmarks/results
rm -f "$WORK/dimensions" && ln -s "$PWD/rubrics/dimensions" "$WORK/dimensions"
for judge in ${JUDGES:-llamacpp local mock}; do
  for dimension in "$@"; do
    grep -h "\"dimension\": \"$dimension\"" data/calibration/pointwise.jsonl data/calibration/pairwise.jsonl \
      > "$WORK/$dimension.jsonl"
    printf 'name: only-%s\ndescription: one-dimension suite for a calibration subset\naggregation: linear\ndimensions: {%s: 1.0}\n' \
      "$(echo "$dimension" | tr _ -)" "$dimension" > "$WORK/suites/only-$(echo "$dimension" | tr _ -).yaml"
    case $judge in llamacpp) spec=configs/judges/llamacpp.yaml ;; *) spec=$judge ;; esac
    "$BIN/reward" calibrate --suite "$WORK/suites/only-$(echo "$dimension" | tr _ -).yaml" --labels "$WORK/$dimension.jsonl" \
      --judge "$spec" --resamples 500 --no-compare --out "$WORK/$judge-$dimension.json" > /dev/null
  done
  "$BIN/python" - "$judge" "$@" <<'EOF'
import json, sys
judge, dims = sys.argv[1], sys.argv[2:]
rows = []
for d in dims:
    rows += json.load(open(f"var/calibration-subset/{judge}-{d}.json"))["systems"][0]["metrics"]
out = {"judge": judge, "dimensions": dims, "subset": "every pointwise label and pair of these dimensions, one-dimension suites",
       "command": "nice -n 10 sh benchmarks/llm_calibration.sh " + " ".join(dims), "rows": rows}
json.dump(out, open(f"benchmarks/results/calibration_{judge}_subset.json", "w"), indent=2)
print(judge, [(r["dimension"], r["metric"], r["value"], r["n"], r.get("note")) for r in rows])
EOF
done
