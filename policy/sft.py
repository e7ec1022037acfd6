"""Format warm start: a short supervised fine-tune (TRL `SFTTrainer`, LoRA) that teaches a small policy the response
format before GRPO.

    python -m policy.sft --config configs/trl/sft_format.yaml

A 135M policy does not write the three-part format (`policy.format`) from the prompt alone, so every rollout gets
format 0, the gate holds every reward near 0.1 and GRPO's advantages vanish. This module builds demonstrations of
the format from public reading-comprehension data and the project's own examples, fine-tunes LoRA adapters on them
for a few minutes on CPU, and saves the merged policy as a transformers folder that a GRPO recipe names as its
`policy:`. The demonstrations:

- SQuAD v1.1 dev questions (the public JSON, kept git-ignored with its checksum): the evidence is a short window
  of the paragraph that holds the answer span plus a window of another paragraph of the same article (a distractor),
  in random order; the response plans the question citing the answer's document, selects it and answers with the
  span, cited. Articles are split by title: the `sft_titles` give demonstrations, the `heldout_titles` give the
  GRPO prompts (`heldout.jsonl`, interactions without responses), so GRPO never sees a demonstrated question.
- The well-formed responses of `examples/items.jsonl` (ids ending in `-good`), evidence shortened.

Prompts are built by `policy.data.row_of` (the function behind `reward data`) with the same system prompt the GRPO
recipe uses, so the warm start and GRPO see one prompt layout. Outputs (all under `output_dir`, git-ignored):
`sft.jsonl` and `heldout.jsonl` (interactions), `checks.json` (the demonstrations' parse check), `log_history.json`
and the merged policy in `model/` with a `manifest.json` (recipe, data checksums, weights checksum).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import logging
import random
import re
import time
from pathlib import Path
from typing import Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field

from policy.format import Facet, parse_response, render_response

log = logging.getLogger(__name__)

_SENTENCE = re.compile(r"[^.!?]*[.!?]+(?:\s+|$)|[^.!?]+$")


class SquadSource(BaseModel):
    """Where the SQuAD v1.1 JSON is and how it is split and cut."""

    model_config = ConfigDict(extra="forbid")

    path: str = "data/public/san_mrc-squad-dev-v1.1.json"
    """SQuAD v1.1 format (`data[].title`, `paragraphs[].context`, `qas[].answers`); git-ignored. The default is the
    file `training.consistency.data.SOURCES` names (and says how to fetch)."""
    sha256: str | None = None
    """Expected checksum of the file; a different file is an error (the demonstrations must be rebuildable)."""
    sft_titles: list[str]
    """Articles whose questions become demonstrations."""
    heldout_titles: list[str]
    """Articles whose questions become GRPO prompts (never demonstrated)."""
    per_article: int = Field(default=50, ge=1)
    """Questions drawn per article (at random, seeded)."""
    evidence_chars: int = Field(default=200, ge=40)
    """Length of each evidence window."""


class WarmStartConfig(BaseModel):
    """One format warm start (see the module docstring)."""

    model_config = ConfigDict(extra="forbid")

    policy: str = "smollm2-135m"
    """As in `policy.trl_train.TrainConfig.policy`."""
    model_cache: str = "var/models"
    output_dir: str = "var/trl/sft_format"
    squad: SquadSource
    examples: str | None = "examples/items.jsonl"
    """Interactions whose `-good` responses are added as demonstrations (None: SQuAD only)."""
    example_evidence_chars: int = Field(default=400, ge=40)
    prompt: Literal["full", "compact", "minimal"] = "minimal"
    """System prompt by name (`policy.prompts.SYSTEM_PROMPTS`); the GRPO recipe must use the same."""
    seed: int = 0
    epochs: float = Field(default=1.0, gt=0)
    batch_size: int = Field(default=4, ge=1)
    learning_rate: float = Field(default=5e-4, gt=0)
    lora_rank: int = Field(default=16, ge=1)
    bf16: bool = True
    max_length: int = Field(default=768, ge=64)
    """Demonstrations longer than this (prompt + response tokens) are truncated by TRL."""
    torch_threads: int | None = Field(default=1, ge=1)
    max_minutes: float | None = Field(default=None, gt=0)
    """Wall-time budget: training stops after the step that passes it."""


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def sentence_spans(text: str) -> list[tuple[int, int]]:
    """(start, end) of each sentence of `text`, trailing space included.

    >>> [("Ab. Cd? Ef"[s:e]) for s, e in sentence_spans("Ab. Cd? Ef")]
    ['Ab. ', 'Cd? ', 'Ef']
    """
    return [(m.start(), m.end()) for m in _SENTENCE.finditer(text) if m.group(0).strip()]


def window(text: str, limit: int, anchor: int = 0, anchor_end: int | None = None) -> str:
    """At most `limit` characters of `text` in whole sentences, starting at the sentence that holds `anchor`; when
    that sentence alone is longer, a word-aligned cut around `anchor`..`anchor_end` marked with "...".

    >>> window("One two. Three four five. Six.", 22, anchor=10)
    'Three four five. Six.'
    >>> window("A very long sentence without any end", 12, anchor=2, anchor_end=11)
    'A very long...'
    >>> window("A very long sentence without any end", 14, anchor=12, anchor_end=20)
    '...sentence...'
    """
    anchor_end = anchor if anchor_end is None else anchor_end
    spans = sentence_spans(text)
    first = next((i for i, (start, end) in enumerate(spans) if start <= anchor < end), 0)
    start, end = spans[first] if spans else (0, len(text))
    if end - start <= limit and anchor_end <= end:
        for later_start, later_end in spans[first + 1:]:
            if later_end - start > limit:
                break
            end = later_end
        return text[start:end].strip()
    # One sentence is too long: centre a window on the anchor, cut at spaces outside the anchored span.
    middle = (anchor + anchor_end) // 2
    left = max(0, middle - limit // 2)
    right = min(len(text), left + limit)
    left = max(0, right - limit)
    space = text.find(" ", left)
    if left > 0 and 0 <= space < anchor:
        left = space + 1
    space = text.rfind(" ", left, right)
    if right < len(text) and space >= anchor_end:
        right = space
    piece = text[left:right].strip()
    return ("..." if left > 0 else "") + piece + ("..." if right < len(text) else "")


def squad_interactions(squad: dict, titles: list[str], per_article: int, evidence_chars: int, seed: int,
                       demonstrate: bool) -> list[dict]:
    """Interactions (and, with `demonstrate`, a response in the format) from the SQuAD articles named `titles`."""
    rng = random.Random(seed)
    articles = {article["title"]: article for article in squad["data"]}
    missing = [title for title in titles if title not in articles]
    if missing:
        raise ValueError(f"SQuAD has no article {missing} (it has {sorted(articles)})")
    records = []
    for title in titles:
        paragraphs = articles[title]["paragraphs"]
        questions = [(p, qa) for p, paragraph in enumerate(paragraphs) for qa in paragraph["qas"]
                     if qa.get("answers") and not qa.get("is_impossible")]
        for p, qa in rng.sample(questions, min(per_article, len(questions))):
            context, answer = paragraphs[p]["context"], qa["answers"][0]
            start = answer["answer_start"]
            answer_doc = window(context, evidence_chars, start, start + len(answer["text"]))
            if answer["text"] not in answer_doc:
                continue  # the span straddles the window: no grounded demonstration
            others = [i for i in range(len(paragraphs)) if i != p]
            distractor = window(paragraphs[rng.choice(others)]["context"], evidence_chars) if others else None
            docs = [answer_doc] + ([distractor] if distractor else [])
            order = list(range(len(docs)))
            rng.shuffle(order)
            name = title.replace("_", " ")
            evidence = [{"id": str(k + 1), "title": name, "text": docs[i], "source": "wikipedia"}
                        for k, i in enumerate(order)]
            cited = str(order.index(0) + 1)
            record = {"id": f"squad-{qa['id']}", "group": f"squad-{qa['id']}", "query": qa["question"].strip(),
                      "history": [], "evidence": evidence}
            if demonstrate:
                record["response"] = squad_response(qa["question"].strip(), answer["text"].strip(), cited)
            records.append(record)
    return records


def squad_response(question: str, answer: str, cited: str) -> str:
    """The demonstration for one SQuAD question: plan the question, select the answer's document, answer with the
    span, cited.

    >>> print(squad_response("Who was the Norse leader?", "Rollo", "2"))
    <plan>
    1. Who was the Norse leader? [Doc 2]
    </plan>
    <evidence>2</evidence>
    <answer>
    The answer is Rollo [Doc 2].
    </answer>
    """
    answer = answer.rstrip(".")
    return render_response([Facet(question, (cited,))], [cited], f"The answer is {answer} [Doc {cited}].")


def example_demonstrations(path: Path, evidence_chars: int) -> list[dict]:
    """The `-good` interactions of an examples file, evidence cut to `evidence_chars` (their responses as written)."""
    from policy.trl_train import shorten

    records = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        record = json.loads(line)
        if not str(record.get("id", "")).endswith("-good") or not record.get("response"):
            continue
        record["evidence"] = [dict(doc, text=shorten(doc["text"], evidence_chars)) for doc in record["evidence"]]
        records.append(record)
    return records


def demonstration_problems(record: dict) -> list[str]:
    """Why a demonstration would teach the wrong thing: parse problems, or ids that name no document."""
    parsed = parse_response(record["response"])
    problems = list(parsed.problems)
    known = {str(doc["id"]) for doc in record["evidence"]}
    cited = set(parsed.selected) | set(parsed.cited_ids) | {i for facet in parsed.plan for i in facet.evidence}
    problems += [f"cites unknown document {doc_id!r}" for doc_id in sorted(cited - known)]
    return problems


def sft_rows(records: list[dict], prompt: str) -> list[dict]:
    """TRL prompt-completion rows (conversational): the prompt of `policy.data.row_of`, the response as the
    assistant's completion. A record whose response fails `demonstration_problems` is an error."""
    from policy.data import row_of
    from policy.prompts import SYSTEM_PROMPTS

    rows = []
    for index, record in enumerate(records):
        problems = demonstration_problems(record)
        if problems:
            raise ValueError(f"demonstration {record.get('id')}: {'; '.join(problems)}")
        row = row_of(record, index, system_prompt=SYSTEM_PROMPTS[prompt])
        rows.append({"prompt": row["prompt"], "completion": [{"role": "assistant", "content": record["response"]}]})
    return rows


def write_sets(config: WarmStartConfig, folder: Path) -> tuple[list[dict], Path, dict]:
    """Demonstrations (returned and written to `sft.jsonl`), the held-out GRPO interactions (`heldout.jsonl`) and
    the data checksums."""
    folder.mkdir(parents=True, exist_ok=True)
    source = Path(config.squad.path)
    if not source.exists():
        raise ValueError(f"squad.path {source}: no such file (SQuAD v1.1 JSON, kept git-ignored under data/public/)")
    digest = sha256_of(source)
    if config.squad.sha256 and digest != config.squad.sha256:
        raise ValueError(f"squad.path {source}: sha256 {digest} is not the recipe's {config.squad.sha256}")
    overlap = set(config.squad.sft_titles) & set(config.squad.heldout_titles)
    if overlap:
        raise ValueError(f"squad: articles {sorted(overlap)} are both demonstrated and held out")
    squad = json.loads(source.read_text(encoding="utf-8"))
    demonstrations = squad_interactions(squad, config.squad.sft_titles, config.squad.per_article,
                                        config.squad.evidence_chars, config.seed, demonstrate=True)
    if config.examples:
        demonstrations += example_demonstrations(Path(config.examples), config.example_evidence_chars)
    random.Random(config.seed).shuffle(demonstrations)
    heldout = squad_interactions(squad, config.squad.heldout_titles, config.squad.per_article,
                                 config.squad.evidence_chars, config.seed + 1, demonstrate=False)
    for name, records in (("sft.jsonl", demonstrations), ("heldout.jsonl", heldout)):
        (folder / name).write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), encoding="utf-8")
    checks = {"squad": str(source), "squad_sha256": digest, "demonstrations": len(demonstrations),
              "heldout": len(heldout), "examples_sha256": sha256_of(Path(config.examples)) if config.examples else None}
    (folder / "checks.json").write_text(json.dumps(checks, indent=1), encoding="utf-8")
    log.info("%d demonstrations, %d held-out prompts", len(demonstrations), len(heldout))
    return demonstrations, folder / "heldout.jsonl", checks


def train_sft(config: WarmStartConfig) -> dict:
    """Fine-tune LoRA adapters on the demonstrations and save the merged policy in `output_dir/model`."""
    import datasets
    import torch
    from peft import LoraConfig
    from transformers import TrainerCallback, set_seed
    from trl import SFTConfig, SFTTrainer

    from policy.trl_train import load_policy

    output = Path(config.output_dir)
    set_seed(config.seed)
    if config.torch_threads:
        torch.set_num_threads(config.torch_threads)
    demonstrations, heldout, checks = write_sets(config, output)
    dataset = datasets.Dataset.from_list(sft_rows(demonstrations, config.prompt))
    model, tokenizer = load_policy(config.policy, Path(config.model_cache), "bfloat16" if config.bf16 else "float32")
    started = time.monotonic()

    class Budget(TrainerCallback):
        def on_step_end(self, args, state, control, **kwargs):
            if config.max_minutes is not None and time.monotonic() - started > 60 * config.max_minutes:
                log.warning("time budget of %.0f min spent: stopping after step %d", config.max_minutes,
                            state.global_step)
                control.should_training_stop = True
            return control

    args = SFTConfig(output_dir=str(output / "trainer"), seed=config.seed, data_seed=config.seed,
                     num_train_epochs=config.epochs, per_device_train_batch_size=config.batch_size,
                     learning_rate=config.learning_rate, lr_scheduler_type="constant", max_length=config.max_length,
                     use_cpu=True, bf16=config.bf16, logging_steps=1, save_strategy="no", report_to="none",
                     dataloader_num_workers=0, gradient_checkpointing=False)
    trainer = SFTTrainer(model=model, args=args, train_dataset=dataset, processing_class=tokenizer,
                         peft_config=LoraConfig(r=config.lora_rank, lora_alpha=2 * config.lora_rank, lora_dropout=0.0,
                                                target_modules="all-linear", task_type="CAUSAL_LM"),
                         callbacks=[Budget()])
    trainer.train()
    (output / "log_history.json").write_text(json.dumps(trainer.state.log_history, indent=1), encoding="utf-8")
    merged = trainer.model.merge_and_unload()
    target = output / "model"
    merged.save_pretrained(target)
    tokenizer.save_pretrained(target)
    manifest = {"recipe": config.model_dump(mode="json"), "data": checks, "steps": trainer.state.global_step,
                "minutes": round((time.monotonic() - started) / 60, 2),
                "weights_sha256": sha256_of(target / "model.safetensors")}
    (target / "manifest.json").write_text(json.dumps(manifest, indent=1), encoding="utf-8")
    log.info("warm-started policy in %s (%d steps, %.1f min)", target, manifest["steps"], manifest["minutes"])
    return {"model": str(target), "heldout": str(heldout), **manifest}


def format_rate(policy: str, interactions: Path, prompt: str, prompts: int = 4, samples: int = 4,
                max_new_tokens: int = 96, cache: str = "var/models", seed: int = 0) -> dict:
    """Sample `samples` completions (T = 1) for each of the first `prompts` interactions and count how many parse
    with no problem and cite only known documents: the share of rollouts that can pass the format gate."""
    import torch
    from transformers import set_seed

    from policy.data import row_of
    from policy.prompts import SYSTEM_PROMPTS
    from policy.trl_train import load_policy

    set_seed(seed)
    model, tokenizer = load_policy(policy, Path(cache), "bfloat16")
    records = [json.loads(line) for line in interactions.read_text(encoding="utf-8").splitlines() if line.strip()]
    good, total, examples = 0, 0, []
    for index, record in enumerate(records[:prompts]):
        messages = row_of(record, index, system_prompt=SYSTEM_PROMPTS[prompt])["prompt"]
        inputs = tokenizer.apply_chat_template(messages, add_generation_prompt=True, return_tensors="pt",
                                               return_dict=True)
        with torch.no_grad():
            output = model.generate(**inputs, do_sample=True, temperature=1.0, max_new_tokens=max_new_tokens,
                                    num_return_sequences=samples, pad_token_id=tokenizer.pad_token_id)
        for sequence in output:
            text = tokenizer.decode(sequence[inputs["input_ids"].shape[1]:], skip_special_tokens=True)
            problems = demonstration_problems({"response": text, "evidence": record["evidence"]})
            good += not problems
            total += 1
            examples.append({"id": record["id"], "response": text, "problems": problems})
    return {"policy": policy, "well_formed": good, "rollouts": total, "rate": good / total if total else 0.0,
            "samples": examples}


def load_config(path: str | Path) -> WarmStartConfig:
    return WarmStartConfig.model_validate(yaml.safe_load(Path(path).read_text(encoding="utf-8")) or {})


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m policy.sft", description=__doc__.splitlines()[0])
    parser.add_argument("--config", required=True, help="warm-start recipe YAML (configs/trl/sft_*.yaml)")
    parser.add_argument("--data-only", action="store_true", help="write the demonstration and held-out sets only")
    parser.add_argument("--check", metavar="POLICY", help="sample held-out completions of POLICY (a name or folder) "
                        "and write the share that is well-formed to output_dir/format_check-<name>.json")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    config = load_config(args.config)
    if args.check:
        import torch

        if config.torch_threads:
            torch.set_num_threads(config.torch_threads)
        result = format_rate(args.check, Path(config.output_dir) / "heldout.jsonl", config.prompt,
                             cache=config.model_cache, seed=config.seed)
        name = Path(args.check).name if Path(args.check).exists() else args.check
        (Path(config.output_dir) / f"format_check-{name}.json").write_text(json.dumps(result, indent=1))
        log.info("%s: %d of %d held-out rollouts well-formed", args.check, result["well_formed"], result["rollouts"])
        return 0
    if args.data_only:
        write_sets(config, Path(config.output_dir))
        return 0
    summary = train_sft(config)
    log.info("done: %s", json.dumps({k: summary[k] for k in ("model", "heldout", "steps", "minutes")}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
