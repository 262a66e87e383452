"""normalize_tokens: notation kept whole, ordinary words stop-filtered, lemmatized, stemmed."""

from __future__ import annotations

from pathlib import Path

import pypdf
import pytest

from geo_rag_runtime.text.keyword_terms import (
    STOP_WORDS,
    is_notation,
    normalize_query,
    normalize_tokens,
    normalize_word,
)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("87Sr/86Sr", "87sr/86sr"),
        ("143Nd/144Nd", "143nd/144nd"),
        ("δ18O", "δ18o"),
        ("δ13C", "δ13c"),
        ("εNd", "εnd"),
        ("εHf(t)", "εhf(t)"),
        ("U(IV)", "u(iv)"),
        ("Fe3+/ΣFe", "fe3+/σfe"),
        ("La/Yb", "la/yb"),
        ("(La/Yb)N", "(la/yb)n"),
        ("Eu/Eu*", "eu/eu*"),
        ("SiO2", "sio2"),
        ("Al2O3", "al2o3"),
        ("Fe2O3T", "fe2o3t"),
        ("MgO", "mgo"),
        ("wt.%", "wt.%"),
        ("wt%", "wt.%"),
        ("U-Pb", "u-pb"),
        ("U–Pb", "u-pb"),
        ("Re–Os", "re-os"),
        ("40Ar/39Ar", "40ar/39ar"),
        ("206Pb/238U", "206pb/238u"),
        ("(U–Th)/He", "(u-th)/he"),
        ("0.7035", "0.7035"),
        ("−2.3", "-2.3"),
        ("2σ", "2σ"),
        ("°C", "°c"),
        ("Mg#", "mg#"),
        ("A-type", "a-type"),
        ("high-K", "high-k"),
    ],
)
def test_notation_token_whole(text: str, expected: str) -> None:
    assert normalize_tokens(text) == [expected]
    # the same inside a sentence with trailing punctuation
    assert expected in normalize_tokens(f"The measured {text}, as reported.")


def test_real_sentence_from_corpus() -> None:
    # Zhu et al. 2024 (GRL), results section
    text = (
        "They have moderate LREE/HREE ratios [(La/Yb)N of 2.1–5.6 and (La/Sm)N of 0.9–2.2] and either "
        "no anomaly or weak negative Eu anomalies (Eu/Eu* = 0.61–1.07)."
    )
    tokens = normalize_tokens(text)
    assert tokens == [
        "moder", "lree", "hree", "ratio", "(la/yb)n", "2.1", "5.6", "(la/sm)n", "0.9", "2.2",
        "anomali", "weak", "negat", "eu", "anomali", "eu/eu*", "0.61", "1.07",
    ]  # fmt: skip


def test_ordinary_words_lemmatized_and_stemmed() -> None:
    assert normalize_tokens("The zircons were crystallized") == ["zircon", "crystal"]
    assert normalize_tokens("minerals mineral") == ["miner", "miner"]
    assert normalize_tokens("analyses analysis") == normalize_tokens("analysis analyses")
    # stop words and citation residue go; domain words scikit-learn lists as stop words stay
    assert normalize_tokens("in the et al. of it") == []
    assert normalize_tokens("rift system thin section") == ["rift", "system", "thin", "section"]
    assert "system" not in STOP_WORDS and "the" in STOP_WORDS


def test_element_symbols_and_english_words() -> None:
    assert normalize_tokens("He diffusion in U and Th") == ["he", "diffus", "u", "th"]
    assert normalize_tokens("In this study As reported") == ["studi", "report"]
    assert normalize_tokens("RESULTS ON THE DATA") == ["result", "data"]
    assert normalize_tokens("Nb-enriched basalts") == ["nb", "enrich", "basalt"]
    assert normalize_tokens("and/or mid-ocean") == ["mid", "ocean"]


def test_ranges_lists_and_punctuation() -> None:
    assert normalize_tokens("410–415 Ma") == ["410", "415", "ma"]
    assert normalize_tokens("1,200 samples; Sr,Nd") == ["1,200", "sampl", "sr", "nd"]
    assert normalize_tokens("± % ( ) — ‰") == ["‰"]
    assert normalize_tokens("(e.g., Earth's mantle)") == ["earth", "mantl"]


def test_query_matches_ingest() -> None:
    ingest = normalize_tokens("The 87Sr/86Sr ratios of the basalts (U–Pb ages), Sr and U, La/Yb, A-type")
    assert normalize_query("87sr/86sr ratio basalt u-pb age sr u la/yb a-type") == ingest
    assert normalize_query("What is the δ18O of zircon?") == ["δ18o", "zircon"]


def test_is_notation() -> None:
    for word in ("SiO2", "U", "Sr", "He", "MgO", "FeOT", "La/Yb", "U-Pb", "εNd", "wt.%", "U(IV)"):
        assert is_notation(word), word
    for word in ("zircon", "In", "As", "ON", "and/or", "MORB", "Nb-enriched", "Zircon"):
        assert not is_notation(word), word


def test_normalize_word_cache_and_drop() -> None:
    assert normalize_word("the") is None
    assert normalize_word("x") is None
    assert normalize_word("Fractionation") == normalize_word("fractionation") == "fraction"


def test_real_paper_is_normalized_deterministically(sample_papers: Path) -> None:
    """Speed is measured in scripts/bench_text.py; here: a whole real paper, twice, same tokens."""
    reader = pypdf.PdfReader(sample_papers / "Zhu2024_GRL_MongolOkhotskMantlePlume_CCBY.pdf")
    text = "\n".join(p.extract_text() for p in reader.pages)
    tokens = normalize_tokens(text)
    assert len(tokens) > 1000
    assert normalize_tokens(text) == tokens  # the word cache changes nothing


def test_the_stop_word_copy_is_scikit_learns_list() -> None:
    from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS

    from geo_rag_runtime.text.stop_words import ENGLISH_STOP_WORDS as COPY

    assert COPY == ENGLISH_STOP_WORDS
