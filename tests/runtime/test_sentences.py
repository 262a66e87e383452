"""split_sentences on scientific sentences (abbreviations, decimals, notation, initials)."""

from __future__ import annotations

from pathlib import Path

import pypdf

from geo_rag_runtime.text.readable import clean_text
from geo_rag_runtime.text.sentences import sentence_texts, split_sentences


def test_abbreviations_decimals_and_notation_do_not_split() -> None:
    text = (
        "Ages of ca. 410 Ma were reported (e.g. Keller et al. 2018; Fig. 3). "
        "The 87Sr/86Sr ratio is 0.7035 and SiO2 is 52 wt.% in C. B. Keller's data. "
        "Uranium is U(IV). Eruption occurred at 415 Ma. 40Ar/39Ar ages agree. "
        "δ18O values are high, i.e. 7.5 ‰. See Eq. 2 and approx. 5 samples, cf. Table 2. "
        "The value was c. 400 Ma, vs. 380 Ma in Sect. 2.1. Data by P. Vermeesch. "
        "The rock is enriched in U. The end! meltPT is a Python package."
    )
    assert sentence_texts(text) == [
        "Ages of ca. 410 Ma were reported (e.g. Keller et al. 2018; Fig. 3).",
        "The 87Sr/86Sr ratio is 0.7035 and SiO2 is 52 wt.% in C. B. Keller's data.",
        "Uranium is U(IV).",
        "Eruption occurred at 415 Ma.",
        "40Ar/39Ar ages agree.",
        "δ18O values are high, i.e. 7.5 ‰.",
        "See Eq. 2 and approx. 5 samples, cf. Table 2.",
        "The value was c. 400 Ma, vs. 380 Ma in Sect. 2.1.",
        "Data by P. Vermeesch.",
        "The rock is enriched in U.",
        "The end!",
        "meltPT is a Python package.",
    ]


def test_spans_are_exact_and_trimmed() -> None:
    text = "  First sentence here.   Second one?\n\nThird (in a new paragraph) ends here  "
    spans = split_sentences(text)
    assert [text[s:e] for s, e in spans] == [
        "First sentence here.",
        "Second one?",
        "Third (in a new paragraph) ends here",
    ]
    assert split_sentences("") == [] and split_sentences("   \n\n ") == []


def test_enumerations_and_lowercase_continuations() -> None:
    text = (
        "Plotting the data (Fig. 1b and c): 1. Although the ellipses vary in size. "
        "2. The ellipses are no longer aligned. Results from Harrison et al. (2010) agree."
    )
    assert sentence_texts(text) == [
        "Plotting the data (Fig. 1b and c): 1. Although the ellipses vary in size.",
        "2. The ellipses are no longer aligned.",
        "Results from Harrison et al. (2010) agree.",
    ]


def test_real_abstract(sample_papers: Path) -> None:
    page = pypdf.PdfReader(sample_papers / "Zhu2024_GRL_MongolOkhotskMantlePlume_CCBY.pdf").pages[0]
    text = clean_text(page.extract_text())
    start = text.index("The opening of oceans within accretionary orogens")
    end = text.index("weak orogenic lithosphere between the rigid microcontinents.") + 60
    sentences = sentence_texts(text[start:end])
    assert len(sentences) == 5
    assert sentences[0] == (
        "The opening of oceans within accretionary orogens is important for understanding the Wilson cycle."
    )
    assert all(s.endswith(".") for s in sentences)
