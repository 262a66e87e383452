"""Token counting with MiniLM's own tokenizer (loaded once) and the regex fallback."""

from __future__ import annotations

from pathlib import Path

import pypdf
import pytest

from geo_rag_runtime.errors import ConfigurationError
from geo_rag_runtime.settings import get_settings
from geo_rag_runtime.text.tokenizer import (
    HFTokenCounter,
    RegexTokenCounter,
    TokenCounter,
    default_model_path,
    get_token_counter,
)


@pytest.fixture(scope="session")
def counter() -> HFTokenCounter:
    return HFTokenCounter()


@pytest.fixture(scope="session")
def paper_text(sample_papers: Path) -> str:
    reader = pypdf.PdfReader(sample_papers / "Zhu2024_GRL_MongolOkhotskMantlePlume_CCBY.pdf")
    return "\n".join(p.extract_text() for p in reader.pages)


def test_minilm_limits_and_protocol(counter: HFTokenCounter) -> None:
    assert isinstance(counter, TokenCounter)
    assert counter.max_input_tokens == 256  # sentence-transformers' max_seq_length, specials included
    assert counter.special_tokens == 2  # [CLS] ... [SEP]
    assert counter.name == "hf:all-MiniLM-L6-v2"
    assert HFTokenCounter()._backend is counter._backend  # loaded once per process


def test_spans_match_word_pieces(counter: HFTokenCounter) -> None:
    text = "The 87Sr/86Sr ratio of 0.70352 (2σ)"
    spans = counter.token_spans(text)
    assert counter.count(text) == len(spans)
    pieces = [text[a:b] for a, b in spans]
    assert pieces[:6] == ["The", "87", "Sr", "/", "86", "Sr"]
    assert all(0 <= a < b <= len(text) for a, b in spans)
    assert counter.count("") == 0 and counter.token_spans("") == []


def test_long_text_is_not_truncated(counter: HFTokenCounter, paper_text: str) -> None:
    total = counter.count(paper_text)
    assert total > 10 * counter.max_input_tokens
    # counting is additive over halves split at whitespace: nothing was cut at 256 or 512
    cut = paper_text.index(" ", len(paper_text) // 2)
    assert counter.count(paper_text[:cut]) + counter.count(paper_text[cut:]) == total
    spans = counter.token_spans(paper_text)
    assert len(spans) == total and spans[-1][1] > len(paper_text) - 20


def test_truncation_elsewhere_does_not_leak(counter: HFTokenCounter, paper_text: str) -> None:
    """The embedder's own AutoTokenizer may truncate; our private backend copy must not care."""
    from transformers import AutoTokenizer

    hf = AutoTokenizer.from_pretrained(str(default_model_path()), local_files_only=True)
    assert len(hf(paper_text, truncation=True, max_length=128)["input_ids"]) == 128
    assert counter.count(paper_text) > 1000


def test_counting_is_stable(counter: HFTokenCounter, paper_text: str) -> None:
    """Speed is measured in scripts/bench_text.py; here: repeated counts agree."""
    counts = {counter.count(paper_text) for _ in range(3)}
    assert len(counts) == 1 and counts.pop() > 1000


def test_regex_counter_approximation(counter: HFTokenCounter, paper_text: str) -> None:
    regex = RegexTokenCounter()
    assert regex.name.startswith("regex-approx") and regex.special_tokens == 0
    text = "the fractionation of (zircon) 87Sr/86Sr = 0.70352"
    assert [text[a:b] for a, b in regex.token_spans(text)] == [
        "the", "fract", "ionat", "ion", "of", "(", "zirco", "n", ")",
        "87", "Sr", "/", "86", "Sr", "=", "0", ".", "703", "52",
    ]  # fmt: skip
    assert regex.count(text) == len(regex.token_spans(text))
    # same order of magnitude as a real word-piece count on a real paper
    ratio = regex.count(paper_text) / counter.count(paper_text)
    assert 0.7 < ratio < 1.3
    with pytest.raises(ValueError):
        RegexTokenCounter(chars_per_piece=0)


def test_get_token_counter(tmp_path: Path) -> None:
    local = get_token_counter(get_settings())
    assert isinstance(local, HFTokenCounter) and local.max_input_tokens == 256
    api = get_token_counter(get_settings(embedding_model="text-embedding-3-small"))
    assert isinstance(api, RegexTokenCounter) and api.max_input_tokens == 8191
    folder = get_token_counter(get_settings(embedding_model=str(default_model_path())))
    assert isinstance(folder, HFTokenCounter) and folder.name == "hf:model"
    with pytest.raises(ConfigurationError):
        HFTokenCounter(tmp_path / "missing")


def test_lone_surrogates_from_pypdf_are_counted(counter: HFTokenCounter, sample_papers: Path) -> None:
    """pypdf emits lone surrogates for math glyphs (Keller 2018, page 7); counting must not fail."""
    import pypdf

    page = pypdf.PdfReader(sample_papers / "Keller2018_GPL_ZirconEruptionAge_CCBY.pdf").pages[6]
    text = page.extract_text()
    assert any(0xD800 <= ord(ch) <= 0xDFFF for ch in text)
    spans = counter.token_spans(text)
    assert counter.count(text) == len(spans) > 100
    assert all(0 <= start <= end <= len(text) for start, end in spans)
