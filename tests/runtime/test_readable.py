"""clean_text / strip_repeated_lines on real text from the corpus PDFs."""

from __future__ import annotations

from pathlib import Path

import pypdf
import pytest

from geo_rag_runtime.text.readable import (
    clean_text,
    dehyphenate,
    is_boilerplate,
    normalize_chars,
    strip_repeated_lines,
)

NOTATION = [
    "87Sr/86Sr",
    "143Nd/144Nd",
    "δ18O",
    "δ13C",
    "εNd",
    "εHf(t)",
    "U(IV)",
    "Fe3+/ΣFe",
    "La/Yb",
    "(La/Yb)N",
    "Eu/Eu*",
    "SiO2",
    "Al2O3",
    "Fe2O3T",
    "wt.%",
    "ppm",
    "ppb",
    "‰",
    "±",
    "2σ",
    "Ma",
    "Ga",
    "°C",
    "U–Pb",
    "40Ar/39Ar",
    "206Pb/238U",
]

# Sentences copied from corpus papers (Zhu 2024 GRL; Li & Vermeesch 2021; Keller 2019 PNAS;
# McNab & Ball 2023), plus notation the corpus lacks (U(IV), ppb, ‰) in the same style.
REAL_SNIPPETS = [
    "The mafic rocks from the Ulgey bimodal volcanic suite have SiO2 contents of 52.94–57.28 wt.%, "
    "and Al2O3, MgO, Na2O, and TiO2 contents of 13.17–14.47 wt.%. They have moderate LREE/HREE "
    "ratios [(La/Yb)N of 2.1–5.6 and (La/Sm)N of 0.9–2.2] and either no anomaly or weak negative "
    "Eu anomalies (Eu/Eu* = 0.61–1.07).",
    "They are equally applicable to other dating methods, such as Rb–Sr ([87Sr/86Sr] vs. "
    "[87Rb/86Sr]), Sm–Nd ([144Nd/143Nd] vs. [147Sm/143Nd]) and K–Ca ([44Ca/40Ca] vs. [40K/40Ca]).",
    "a more specific indicator of sediment subduction is provided by the product of the calculated "
    "εHf(t)-δ18O covariance; δ13C excursions and 206Pb/238U ages of 541 ± 2 Ma (2σ) near 0.6 Ga.",
    "mid-ocean ridge basalts equilibrate between 1–2 GPa and 1275–1475 °C; Fe3+/ΣFe = 0.15, "
    "40Ar/39Ar and U–Pb ages, La/Yb of 12, Fe2O3T 9.1 wt.%, Sr 450 ppm, Re 0.2 ppb, δ18O +5.6 ‰, "
    "εNd = +1.3, 143Nd/144Nd 0.51290, 87Sr/86Sr 0.70352, U(IV) in uraninite.",
]


def test_notation_survives_byte_for_byte() -> None:
    cleaned = [clean_text(s) for s in REAL_SNIPPETS]
    joined = "\n".join(cleaned)
    for token in NOTATION:
        assert token in joined, token
    for original, result in zip(REAL_SNIPPETS, cleaned, strict=True):
        assert result == original  # already clean text comes back unchanged


def test_notation_survives_line_breaks_and_odd_spaces() -> None:
    text = "ratios of\n87Sr/86Sr\u00a0=\u20090.7035 and δ18O ‰,\nU(IV) and\r\nwt.% ±\u202f2σ at 800\u00a0°C"
    assert clean_text(text) == "ratios of 87Sr/86Sr = 0.7035 and δ18O ‰, U(IV) and wt.% ± 2σ at 800 °C"


def test_ligatures_expand_but_superscripts_become_plain_digits() -> None:
    assert clean_text("signiﬁcant ﬂuid ﬀ ﬃ ﬄ") == "significant fluid ff ffi ffl"
    assert clean_text("⁸⁷Sr/⁸⁶Sr and SiO₂ and Fe³⁺") == "87Sr/86Sr and SiO2 and Fe3+"
    assert clean_text("ϵNd and 5 µm and 800 ℃ and 𝐾𝑑") == "εNd and 5 μm and 800 °C and Kd"
    # characters NFKC would rewrite but which we keep
    assert clean_text("‰ ± ½ … ″ ×") == "‰ ± ½ … ″ ×"


def test_minus_and_hyphen_variants() -> None:
    assert clean_text("εNd(t) = −2.3") == "εNd(t) = -2.3"
    assert clean_text("newly\u2010discovered non\u2011linear") == "newly-discovered non-linear"
    assert clean_text("U–Pb and Re–Os — dashes stay") == "U–Pb and Re–Os — dashes stay"


def test_control_soft_hyphen_and_zero_width_removed() -> None:
    assert clean_text("frac\u00adtion\u200bation\x00\x07 of\u200d U\ufeff") == "fractionation of U"
    assert clean_text("frac\u00ad\ntionation") == "fractionation"
    assert clean_text("a\tb\x0bc") == "a b c"
    assert clean_text("bad \ud835 glyph").encode("utf-8") == "bad \ufffd glyph".encode()


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("steeply in-\nclined error ellipses", "steeply inclined error ellipses"),
        ("obscure any ge-\nologically significant", "obscure any geologically significant"),
        ("to the estima -\ntion of sedimentary", "to the estimation of sedimentary"),  # pypdf spacing
        ("How-\never, the", "However, the"),
        ("fractional crystalli-\nsation in", "fractional crystallisation in"),
        ("tholeiitic and calc-\nalkaline rocks", "tholeiitic and calc-alkaline rocks"),
        ("U-\nPb ages", "U-Pb ages"),
        ("Re-\nOs isochron", "Re-Os isochron"),
        ("CA-ID-\nTIMS zircon", "CA-ID-TIMS zircon"),
        ("in 40Ar/39Ar (Turner, 1971) and U–\nPb (Tera", "in 40Ar/39Ar (Turner, 1971) and U–Pb (Tera"),
        ("between 1–\n2 GPa", "between 1–2 GPa"),
    ],
)
def test_line_end_hyphenation(raw: str, expected: str) -> None:
    assert clean_text(raw) == expected


def test_paragraphs_kept_lines_joined_and_pypdf_artefacts() -> None:
    raw = "First line\nsecond line ( e.g., Ellis et al., 2017 ).\n\n\n  Next   paragraph 207Pb /235U.  "
    assert clean_text(raw) == (
        "First line second line (e.g., Ellis et al., 2017).\n\nNext paragraph 207Pb/235U."
    )
    assert clean_text("   \n\n \x00 ") == ""


def test_real_pdf_page(sample_papers: Path) -> None:
    page = pypdf.PdfReader(sample_papers / "LiVermeesch2021_Geochronology_InverseIsochron_CCBY.pdf").pages[1]
    raw = page.extract_text()
    assert "ge-\nologically" in raw and "ﬁ" in raw
    cleaned = clean_text(raw)
    assert "geologically significant trend" in cleaned
    assert "ﬁ" not in cleaned and "\n" not in cleaned.replace("\n\n", "")
    assert "Re–Os" in cleaned
    assert not any(ord(c) < 32 and c != "\n" for c in cleaned)


def test_wiley_hyphen_from_pdf(sample_papers: Path) -> None:
    page = pypdf.PdfReader(sample_papers / "Zhu2024_GRL_MongolOkhotskMantlePlume_CCBY.pdf").pages[0]
    raw = page.extract_text()
    assert "newly\u2010discovered" in raw
    cleaned = clean_text(raw)
    assert "newly-discovered" in cleaned and "\u2010" not in cleaned
    assert "Mongol–Okhotsk Ocean" in cleaned


def test_normalize_chars_keeps_layout() -> None:
    assert normalize_chars("a\nb\n\nﬁ") == "a\nb\n\nfi"
    assert dehyphenate("no hyphen here") == "no hyphen here"


def test_strip_repeated_lines_on_real_pages(sample_papers: Path) -> None:
    reader = pypdf.PdfReader(sample_papers / "Keller2018_GPL_ZirconEruptionAge_CCBY.pdf")
    pages = [p.extract_text() for p in reader.pages[:5]]  # page 6 starts the SI (another header)
    header = "Geochem. Persp. Let. (2018) 8, 31-35 | doi: 10.7185/geochemlet.1826"
    assert sum(header in p for p in pages) >= 3
    stripped = strip_repeated_lines(pages)
    assert len(stripped) == len(pages)
    assert not any(header in p for p in stripped)
    assert not any(
        line.strip() == "Geochemical Perspectives Letters Letter" for p in stripped for line in p.splitlines()
    )
    # content survives with its line structure
    assert "analytical precision is high" in "\n".join(stripped)
    assert sum(len(p) for p in stripped) > 0.8 * sum(len(p) for p in pages)


def test_strip_repeated_lines_page_numbers_and_licence() -> None:
    pages = [
        f"Real text about {mineral}.\nPage {60 + i}\n© 2021 The Authors."
        for i, mineral in enumerate(["zircon", "apatite", "titanite", "monazite"])
    ]
    pages[0] += "\nThis is an open access article under the terms of the Creative Commons Attribution License"
    assert strip_repeated_lines(pages) == [
        f"Real text about {m}." for m in ["zircon", "apatite", "titanite", "monazite"]
    ]
    with pytest.raises(ValueError):
        strip_repeated_lines(pages, min_repeats=1)


@pytest.mark.parametrize(
    "line",
    [
        "© 2024. The Author(s).",
        "https://doi.org/10.1029/2024GL109028",
        "doi: 10.7185/geochemlet.1826",
        "Received 26 FEB 2024",
        "Page 64",
        "33",
        "This article is licensed under a Creative Commons Attribution 4.0 License.",
    ],
)
def test_boilerplate(line: str) -> None:
    assert is_boilerplate(line)


@pytest.mark.parametrize(
    "line",
    [
        "The 87Sr/86Sr ratio of 0.7035 (see https://doi.org/10.1029/x) is low.",
        "Ages of 415 Ma were received with caution.",
        "2.1 Estimating primary melt composition",
    ],
)
def test_not_boilerplate(line: str) -> None:
    assert not is_boilerplate(line)


def test_a_middle_dot_between_digits_is_a_decimal_point_but_a_hydrate_s_dot_stays() -> None:
    """Journal of Petrology prints "66·0" and "0·60–1·40%"; the value is a number like any other, as
    U+2212 becomes "-". A hydrate's dot (CaSO4·2H2O) and a unit's (mg·L-1) are no decimal points."""
    assert normalize_chars("SiO2 66·0, F 0·60–1·40%, 1·07a") == "SiO2 66.0, F 0.60–1.40%, 1.07a"
    assert normalize_chars("gypsum CaSO4·2H2O and Na2SO4·10H2O in mg·L-1") == (
        "gypsum CaSO4·2H2O and Na2SO4·10H2O in mg·L-1"
    )
