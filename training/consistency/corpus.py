"""Export consistency-model training pairs from the fit split of the generalization corpus: every claim the local tier
sends to the model, as it reads it (the evidence window the embedder picks, and the claim), labelled by the answer it
comes from.

    python -m training.consistency.corpus --corpus data/generalization data/generalization/written \\
        data/generalization/fresh data/generalization/writers --out var/corpus_pairs.jsonl
    python -m training.consistency.train --init-from reward/judges/consistency_model --public-pairs var/corpus_pairs.jsonl ...

These are the hard pairs the synthetic ones lack, built from public data (SQuAD, FalseQA) and from the fit parts of the
sets written from scratch (`data/generalization/NOTICE.md`; their held-out parts are never read):

- every claim of an honest answer is supported, except what it says of its documents ("[Doc 1] covers Warsaw, but
  not this"): the clean answer and its honest variants (a paraphrase, a key-value
  or table layout, a figure worked out from the evidence's, a premise correction, the related sentence beside "the
  sources do not say");
- the first claim of an attack that states what the evidence does not hold is not supported: a name or figure swapped
  for another of the same evidence, a flipped verdict, an accepted false premise, unsafe medical advice, and a
  confident answer to a question the evidence does not answer where the tier reads it with its question (a bare
  answer). A claim some honest answer of the interaction also makes is left out.

Only the claim check's pairs are read: the model also reads one evidence item against another (conflicting sources)
and the answer against its earlier turns, and those pairs say nothing of whether the answer is supported.

Attacks that state true things or nothing (another question's answer, a refusal, a retracted earlier turn) give no
pair. Only the fit split is read; the test split stays for reporting. Writes `OUT` (one JSON object per line:
evidence, claim, label 1 supported / 0 not, set, key) and `OUT.json` (counts, the corpus file's SHA-256).
"""

from __future__ import annotations

import argparse
import contextvars
import hashlib
import json
import logging
import re
from collections import Counter
from pathlib import Path

log = logging.getLogger("training.consistency.corpus")
WHAT = ("claims of the generalization corpus's fit split as the local tier reads them (training.consistency.corpus): "
        "every claim of an honest answer supported, the first claim of an attack that states what the evidence does "
        "not hold not supported; the test split is never read")

FALSE_CLAIM_FAMILIES = frozenset({"same_evidence_swap", "verdict_flipped", "false_premise_accepted", "unsafe_medical",
                                  "unsupported_confident"})
"""Attack families whose first claim states what the evidence does not hold."""
SAID_OF_THE_SOURCES = re.compile(r"^\W*(?:covers|deals with|is about)\b", re.IGNORECASE)
"""What an answer says of its documents ("[Doc 1] covers Warsaw, but not this"): no claim about the world to learn
from."""
READ_WITH_QUESTION = frozenset({"unsupported_confident"})
"""Families whose claim is false only as an answer to the question: a pair only where the tier reads it so."""


def export(corpus: Path | list[Path], split: str = "fit") -> tuple[list[dict], Counter]:
    from benchmarks.generalization import load
    from reward.engine import Engine
    from reward.judges.local import LocalJudge, quality, support
    from reward.rubric import load_suite

    if split != "fit":
        raise SystemExit(f"--split {split}: only the fit split is read for training")
    judge = LocalJudge()
    engine = Engine(load_suite("searchllm"), judge)
    scorer = judge.scorer
    read: list[tuple[str, str]] = []
    original = scorer.probabilities
    # Only the claim check's pairs are claims of the answer: the model also reads one evidence item against another
    # (conflicting sources) and the answer against its earlier turns, and those pairs say nothing of the answer's
    # support, so they must not be labelled by it.
    checking_claims: contextvars.ContextVar[bool] = contextvars.ContextVar("checking_claims", default=False)
    claim_check = {module: module._sentence_support for module in (support, quality)}

    def recorded(check):
        async def wrapped(ctx, sentences):
            token = checking_claims.set(True)
            try:
                return await check(ctx, sentences)
            finally:
                checking_claims.reset(token)
        return wrapped

    async def recording(pairs):
        if checking_claims.get():
            read.extend(pairs)
        return await original(pairs)

    scorer.probabilities = recording
    for module, check in claim_check.items():
        module._sentence_support = recorded(check)
    try:
        rows, counts = [], Counter()
        corpora = corpus if isinstance(corpus, list) else [corpus]
        for interaction in [i for folder in corpora for i in load(folder, split)]:
            honest: list[tuple[str, str, str]] = []
            attacks: list[tuple[str, str, str, str]] = []
            for response in interaction.responses:
                read.clear()
                engine.score_sync([interaction.item(response)])
                if not read:
                    continue
                if response.role in ("clean", "honest"):
                    honest += [(window, claim, response.id) for window, claim in read
                               if not SAID_OF_THE_SOURCES.search(claim)]
                    counts["skipped: said of the sources"] += sum(1 for _, claim in read
                                                                  if SAID_OF_THE_SOURCES.search(claim))
                elif response.family in FALSE_CLAIM_FAMILIES:
                    window, claim = read[0]
                    if response.family in READ_WITH_QUESTION and not claim.startswith(
                            interaction.query.strip().rstrip("?.! ")):
                        counts["skipped: read without its question"] += 1
                        continue
                    attacks.append((window, claim, response.id, response.family))
            said = {claim for _, claim, _ in honest}
            for window, claim, rid in dict.fromkeys(honest):
                rows.append({"evidence": window, "claim": claim, "label": 1, "set": "corpus:honest",
                             "key": f"{interaction.id}/{rid}"})
                counts["supported"] += 1
            for window, claim, rid, family in attacks:
                if claim in said:
                    counts["skipped: an honest answer says it too"] += 1
                    continue
                rows.append({"evidence": window, "claim": claim, "label": 0, "set": f"corpus:{family}",
                             "key": f"{interaction.id}/{rid}"})
                counts[f"not supported: {family}"] += 1
    finally:
        scorer.probabilities = original
        for module, check in claim_check.items():
            module._sentence_support = check
    return rows, counts


def main(argv: list[str] | None = None) -> None:
    from benchmarks.generalization import CORPUS, ROOT

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, nargs="+", default=[CORPUS],
                        help="folders holding fit.jsonl (several: their pairs in one file)")
    parser.add_argument("--split", default="fit")
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s")
    rows, counts = export(args.corpus, args.split)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    sources = [folder / f"{args.split}.jsonl" for folder in args.corpus]
    shown = [s.resolve().relative_to(ROOT) if s.resolve().is_relative_to(ROOT) else s for s in sources]
    manifest = {"corpus": [str(s) for s in shown],
                "sha256": [hashlib.sha256(s.read_bytes()).hexdigest() for s in sources],
                "pairs": len(rows), "counts": dict(sorted(counts.items())), "what": WHAT}
    Path(f"{args.out}.json").write_text(json.dumps(manifest, indent=2) + "\n")
    log.info("%d pairs: %s", len(rows), dict(counts))


if __name__ == "__main__":
    main()
