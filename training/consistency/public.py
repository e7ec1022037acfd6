"""Export the consistency model's public training pairs: the claims of the fit split of the public fidelity sets
whose document falls in the model's part (`training.consistency.data.case_in_model_part`), each as the local tier reads it (the
evidence window of its closest evidence sentences, and the claim), with its label.

    python benchmarks/fidelity.py --split fit --per-set 100000 --export-cases var/cases_fit_all.jsonl --no-score
    python -m training.consistency.public --cases var/cases_fit_all.jsonl --out var/public_pairs.jsonl

Labels follow `training.consistency.combine.labelled_claims`: every claim of a faithful response is supported; a hallucinated
response gives its one claim, or (a pair set) its one claim the faithful response does not share. Test-split cases
are refused; the rest of the fit split is left to the claim combination (`training.consistency.combine --public`), which
skips the model's part. The pairs are read with the artifact installed when exporting (its windows do not depend on
the model: the embedder picks them), and written with a manifest (`OUT.json`: counts, the cases' SHA-256).
"""
from __future__ import annotations

import argparse
import hashlib
import json
import logging
from collections import Counter
from pathlib import Path

from training.consistency.combine import labelled_claims, refuse_unless_fit
from training.consistency.data import PUBLIC_MODEL_SHARE, case_document, case_in_model_part

log = logging.getLogger("training.consistency.public")


def main(argv: list[str] | None = None) -> None:
    from reward.evaluation.fidelity import FidelityCase

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=Path, required=True,
                        help="fit-split cases (benchmarks/fidelity.py --split fit --export-cases)")
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s")
    cases = [FidelityCase.model_validate_json(line)
             for line in args.cases.read_text(encoding="utf-8").splitlines() if line.strip()]
    refuse_unless_fit(cases)
    mine = [c for c in cases if case_in_model_part(c)]
    log.info("%d of %d fit cases are the model's part", len(mine), len(cases))
    rows = [{"set": case.set, "key": case.pair or case.item.id, "document": case_document(case), "label": case.label,
             "evidence": evidence, "claim": claim} for case, _, (evidence, claim) in labelled_claims(mine)]
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    counts = Counter(f"{r['set']}:{r['label']}" for r in rows)
    manifest = {"pairs": len(rows), "counts": dict(sorted(counts.items())), "cases": len(mine),
                "model_share": PUBLIC_MODEL_SHARE, "from": str(args.cases),
                "cases_sha256": hashlib.sha256(args.cases.read_bytes()).hexdigest(),
                "sha256": hashlib.sha256(args.out.read_bytes()).hexdigest()}
    Path(f"{args.out}.json").write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")
    log.info("wrote %d pairs to %s: %s", len(rows), args.out, dict(counts))


if __name__ == "__main__":
    main()
