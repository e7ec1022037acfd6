#!/usr/bin/env bash
# GPU ONLY: a 2-step GRPO smoke of the whole loop -- verl (Megatron actor, vLLM rollouts) trains a tiny randomly
# initialised policy on examples/ and gets every reward from this server, through the same
# configs/verl/grpo_megatron.yaml as a real run with the sizes shrunk to one GPU.
#
#   benchmarks/grpo_smoke.sh [OUT_DIR]        # needs 1 CUDA GPU and the GPU environment (docs/training.md)
#
# A random policy never writes the response format, and searchllm's judges read only the parsed parts, so every
# rollout would get the same reward and GRPO would have nothing to learn from. The smoke therefore scores suite
# `genrm` (one judge dimension reading the whole response) with judge `mock-hash` (grades that follow a hash of
# what the judge reads, no judge GPUs): different rollouts get different rewards.
#
# It checks that: the server's score log has records for steps 1 and 2 (the step reaches the server) and rewards
# that differ within a step (the advantages are not all zero); verl's console log has reward_dim/<dimension>/mean
# for both training steps (the per-dimension curves) and a non-zero actor/grad_norm (the update happened). Logs and
# the score log stay in OUT_DIR; record the outcome in benchmarks/RESULTS.md with the machine it ran on. Without a
# GPU, tests/policy/test_verl.py checks that every override below exists in verl 0.9.1's config and passes its
# validate_config, and shellcheck.
set -euo pipefail

PY=${PY:-.venv/bin/python}
OUT=${1:-var/grpo_smoke}
PORT=${REWARD_PORT:-8123}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)

if ! "$PY" -c 'import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)'; then
    echo "grpo_smoke: no CUDA GPU here; this smoke runs only on a GPU machine" >&2
    exit 2
fi

# 1. the reward server (suite genrm, judge mock-hash: deterministic, no judge GPUs), stopped when the script exits
printf 'applications:\n  - args: {suites: [genrm]}\n' >"$OUT/serve.yaml"
"$PY" -m reward.cli serve --config "$OUT/serve.yaml" --host 127.0.0.1 --port "$PORT" --judge mock-hash \
    --log-dir "$OUT/scores" >"$OUT/server.log" 2>&1 &
SERVER=$!
trap 'kill "$SERVER" 2>/dev/null || true' EXIT
for _ in $(seq 120); do
    curl -sf "http://127.0.0.1:$PORT/healthz" >/dev/null && break
    sleep 1
done
curl -sf "http://127.0.0.1:$PORT/healthz" >/dev/null || { echo "reward server did not start; see $OUT/server.log" >&2; exit 1; }

# 2. a tokenizer trained here and a tiny random Qwen2 policy (no download)
"$PY" - "$OUT/model" <<'EOF'
import sys
from pathlib import Path

from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
from transformers import PreTrainedTokenizerFast, Qwen2Config, Qwen2ForCausalLM

from policy.prompts import SYSTEM_PROMPT

out = Path(sys.argv[1])
texts = Path("examples/items.jsonl").read_text().splitlines() + [SYSTEM_PROMPT]
bpe = Tokenizer(models.BPE(unk_token=None))
bpe.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
bpe.decoder = decoders.ByteLevel()
bpe.train_from_iterator(texts, trainers.BpeTrainer(vocab_size=4096, special_tokens=["<pad>", "<eos>"],
                                                   initial_alphabet=pre_tokenizers.ByteLevel.alphabet()))
tok = PreTrainedTokenizerFast(tokenizer_object=bpe, pad_token="<pad>", eos_token="<eos>")
tok.chat_template = ("{% for m in messages %}<|{{ m['role'] }}|>\n{{ m['content'] }}\n{% endfor %}"
                     "{% if add_generation_prompt %}<|assistant|>\n{% endif %}")
tok.save_pretrained(out)
config = Qwen2Config(vocab_size=len(tok), hidden_size=256, intermediate_size=512, num_hidden_layers=2,
                     num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=8192,
                     tie_word_embeddings=False, pad_token_id=tok.pad_token_id, eos_token_id=tok.eos_token_id)
Qwen2ForCausalLM(config).save_pretrained(out)
EOF

# 3. the training data from the examples
"$PY" -m reward.cli data --input examples/items.jsonl --output "$OUT/train.parquet"

# 4. two GRPO steps: the recipe with sizes for one GPU (every other key as in the real run)
REWARD_SERVER_URL="http://127.0.0.1:$PORT" "$PY" -m policy.train \
    --config-path "$PWD/configs/verl" --config-name grpo_megatron \
    data.train_files="$OUT/train.parquet" data.val_files="$OUT/train.parquet" \
    data.train_batch_size=4 data.max_prompt_length=4096 data.max_response_length=256 \
    actor_rollout_ref.model.path="$OUT/model" \
    actor_rollout_ref.actor.ppo_mini_batch_size=4 actor_rollout_ref.actor.ppo_max_token_len_per_gpu=8192 \
    actor_rollout_ref.actor.megatron.tensor_model_parallel_size=1 \
    actor_rollout_ref.actor.megatron.expert_model_parallel_size=1 \
    actor_rollout_ref.ref.megatron.tensor_model_parallel_size=1 \
    actor_rollout_ref.ref.megatron.expert_model_parallel_size=1 \
    actor_rollout_ref.rollout.n=4 actor_rollout_ref.rollout.tensor_model_parallel_size=1 \
    actor_rollout_ref.rollout.gpu_memory_utilization=0.3 actor_rollout_ref.rollout.enable_prefix_caching=false \
    trainer.nnodes=1 trainer.n_gpus_per_node=1 trainer.logger='[console]' trainer.total_training_steps=2 \
    trainer.val_before_train=false trainer.test_freq=-1 trainer.save_freq=-1 \
    reward.custom_reward_function.reward_kwargs.suite=genrm \
    trainer.default_local_dir="$OUT/ckpt" 2>&1 | tee "$OUT/train.log"

# 5. checks: the step reached the server with rewards that differ, the curves reached verl's logger, the actor moved
"$PY" - "$OUT" <<'EOF'
import re
import sys
from pathlib import Path

from reward.scorelog import read_log

out = Path(sys.argv[1])
records = list(read_log(out / "scores"))
steps = sorted({r.step for r in records if r.step is not None})
assert {1, 2} <= set(steps), f"score log steps {steps}: the training step did not reach the server"
for step in (1, 2):
    rewards = {r.result.reward for r in records if r.step == step}
    assert len(rewards) > 1, f"step {step}: every rollout got reward {rewards}: GRPO has no advantage to follow"
log = (out / "train.log").read_text()
curves = re.findall(r"reward_dim/(\w+)/mean", log)
assert "genrm_holistic" in curves and "score" in curves, "no per-dimension reward metrics in verl's console log"
grad_norms = [float(v) for v in re.findall(r"actor/grad_norm:([-+0-9.eE]+|nan|inf)", log)]
assert grad_norms and any(g > 0 for g in grad_norms), f"actor/grad_norm {grad_norms}: no update"
print(f"grpo_smoke OK: score-log steps {steps}; per-dimension curves for {len(set(curves))} keys; "
      f"actor/grad_norm {grad_norms}")
EOF
