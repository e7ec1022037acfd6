"""Build the generalization corpus: interactions from public data plus hand-written ones, each with a clean answer,
honest variants and attacks, split by interaction into `fit` and `test`.

    .venv/bin/python -m training.generalization.build --out data/generalization

Sources (read from the git-ignored `data/public/`, checked by SHA-256; licences in `data/generalization/NOTICE.md`):

- SQuAD 2.0 dev (the public half kept in `chrischute/squad`; `squad.py`), without the articles that other fits read (Normans,
  Computational_complexity_theory): answerable questions become factoids, two questions on one passage a
  follow-up session, two year or number questions on two passages of one article a comparison, a number question
  with an altered older copy of its passage a conflict between dated sources; unanswerable questions with a
  plausible answer become interactions whose evidence does not hold the answer.
- FalseQA (`thunlp/FalseQA`, its test file; `falseqa.py`): questions with a false premise; the evidence is the rebuttals written
  for the question, so the honest answer corrects the premise.
- `handwritten.py`: medical and legal safety, multi-turn conflicts and sessions public data lacks.

Every response is mechanical (`render.py` holds the templates and renders the policy format): the answer span, its sentence, other questions' answers and sentences on the same
evidence, plausible answers and rebuttals, put into templates drawn per interaction (several per family, so no rule
can key on one phrasing). Roles: `clean` (one per interaction), `honest` (families `terse`, `paraphrase`,
`derived_figure`, `layout`, `premise_correction`, `sources_silent`, `conflict_noted`) and `attack` (families
`false_premise_accepted`, `unsupported_confident`, `verdict_flipped`, `different_question`, `unsafe_medical`,
`refusal_despite_evidence`, `contradicts_earlier_turn`, `same_evidence_swap`). The split is a hash of the passage an
interaction is built on, so interactions sharing a passage share a split.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from reward.evaluation.corpus import CorpusInteraction  # noqa: E402
from training.generalization.falseqa import falseqa  # noqa: E402
from training.generalization.handwritten import handwritten  # noqa: E402
from training.generalization.render import split_of  # noqa: E402
from training.generalization.squad import build_squad  # noqa: E402

SQUAD2 = ("data/public/chrischute/squad/data/dev-v2.0.json", "chrischute/squad",
          "85623adeb9e6639f145081fea9cae2d8f3a26379",
          "e67e5969b6dc6c1642154740806b79263b77fc048c7c11ee60d534eb48ef81e8")
FALSEQA = ("data/public/thunlp/FalseQA/dataset/test.csv", "thunlp/FalseQA", "9a9729974d8c5cfbfc6929e5b830111c0ed7c0c7",
           "8983aa5054982b88be37cbc7ce3fd9c9faeb56fd1481da01f51a806dac110624")


def read_source(spec: tuple[str, str, str, str]) -> bytes:
    path, repository, commit, digest = spec
    file = ROOT / path
    if not file.exists():
        inner = path.split(repository + "/", 1)[1]
        raise SystemExit(f"{path}: missing; fetch it with\n  git clone https://github.com/{repository} /tmp/src && "
                         f"mkdir -p {file.parent} && git -C /tmp/src show {commit}:{inner} > {path}")
    data = file.read_bytes()
    if hashlib.sha256(data).hexdigest() != digest:
        raise SystemExit(f"{path}: SHA-256 {hashlib.sha256(data).hexdigest()} is not the recorded {digest}")
    return data


SIZES = {"factoid": 120, "unanswerable": 90, "multi_turn": 60, "conflict": 40, "comparison": 50}


def build(seed: int = 0, falseqa_size: int = 70) -> list[CorpusInteraction]:
    rng = random.Random(seed)
    squad = json.loads(read_source(SQUAD2))
    interactions = build_squad(squad, rng, SIZES)
    interactions += falseqa(read_source(FALSEQA).decode("utf-8"), rng, falseqa_size)
    interactions += handwritten(split_of)
    ids = [i.id for i in interactions]
    duplicates = {i for i in ids if ids.count(i) > 1}
    if duplicates:
        raise ValueError(f"duplicate interaction ids: {sorted(duplicates)[:5]}")
    return interactions


def write(interactions: list[CorpusInteraction], folder: Path) -> dict[str, int]:
    folder.mkdir(parents=True, exist_ok=True)
    counts = {}
    for split in ("fit", "test"):
        members = [i for i in interactions if i.split == split]
        (folder / f"{split}.jsonl").write_text("".join(i.model_dump_json(exclude_defaults=True) + "\n" for i in members),
                                               encoding="utf-8")
        counts[split] = len(members)
    return counts


def summary(interactions: list[CorpusInteraction]) -> dict:
    table: dict[str, dict[str, int]] = {}
    for i in interactions:
        for r in i.responses:
            key = f"{r.role}:{r.family}"
            table.setdefault(key, {"fit": 0, "test": 0})[i.split] += 1
    kinds: dict[str, dict[str, int]] = {}
    for i in interactions:
        kinds.setdefault(i.kind, {"fit": 0, "test": 0})[i.split] += 1
    return {"interactions": kinds, "responses": dict(sorted(table.items()))}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=Path, default=ROOT / "data" / "generalization")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    interactions = build(args.seed)
    counts = write(interactions, args.out)
    print(json.dumps({"written": counts, **summary(interactions)}, indent=1))


if __name__ == "__main__":
    main()
