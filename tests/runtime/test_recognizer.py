"""Entity recognition: surface forms → canonical entities, symbol guards measured on real corpus sentences."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from geo_rag_runtime.vocab import entity_names, parse_quantity, recognize


def names(text: str) -> list[tuple[str, str]]:
    return [(e.name, e.type) for e in recognize(text)]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Sr and strontium", [("Sr", "Element"), ("Sr", "Element")]),
        ("Sr-87, 87Sr, strontium-87 and ⁸⁷Sr", [("87Sr", "Isotope")] * 4),
        ("87Sr/86Sr, 87 Sr/86 Sr and ⁸⁷Sr/⁸⁶Sr", [("87Sr/86Sr", "IsotopeRatio")] * 3),
        (
            "206Pb / 238U and [207Pb / 204Pb]",
            [("206Pb/238U", "IsotopeRatio"), ("207Pb/204Pb", "IsotopeRatio")],
        ),
        ("δ18O, d18O and delta 18O", [("δ18O", "IsotopeRatio")] * 3),
        (
            "εNd(t), eHf(t) and εHf",
            [("εNd", "IsotopeRatio"), ("εHf", "IsotopeRatio"), ("εHf", "IsotopeRatio")],
        ),
        ("zircons, Zircon and zircon", [("zircon", "Mineral")] * 3),
        ("U–Pb, U-Pb and U/Pb dating", [("U–Pb", "GeochronometerSystem")] * 3),
        (
            "Lu–Hf, Rb–Sr and (U-Th)/He",
            [
                ("Lu–Hf", "GeochronometerSystem"),
                ("Rb–Sr", "GeochronometerSystem"),
                ("U–Th–He", "GeochronometerSystem"),
            ],
        ),
        (
            "SiO2, SiO₂, Al 2 O 3 and FeOt",
            [("SiO2", "Oxide"), ("SiO2", "Oxide"), ("Al2O3", "Oxide"), ("FeOT", "Oxide")],
        ),
        ("Th/U and (La/Yb)N", [("Th/U", "ElementRatio"), ("La/Yb", "ElementRatio")]),
        ("U(IV) and Fe3+", [("U(IV)", "Species"), ("Fe(III)", "Species")]),
        (
            "calc-alkaline basalts from an island arc",
            [("calc-alkaline", "MagmaSeries"), ("basalt", "Rock"), ("island arc", "TectonicSetting")],
        ),
        ("MORB, OIBs and REEs", [("MORB", "Rock"), ("OIB", "Rock"), ("REE", "ElementGroup")]),
        (
            "measured by LA-ICP-MS and SHRIMP",
            [("LA-ICP-MS", "AnalyticalMethod"), ("SHRIMP", "AnalyticalMethod")],
        ),
        # the longer name wins over the element, rock or process inside it
        (
            "oxygen fugacity at ΔFMQ+1, log fO2",
            [("oxygen fugacity", "Parameter"), ("FMQ buffer", "Parameter"), ("oxygen fugacity", "Parameter")],
        ),
        (
            "Fish Canyon Tuff zircons and the 91500 zircon",
            [
                ("Fish Canyon Tuff", "ReferenceMaterial"),
                ("zircon", "Mineral"),
                ("zircon 91500", "ReferenceMaterial"),
            ],
        ),
        (
            "Ti-in-zircon crystallisation temperatures and helium closure temperatures",
            [
                ("Ti-in-zircon thermometry", "AnalyticalMethod"),
                ("crystallization temperature", "Parameter"),
                ("He", "Element"),
                ("closure temperature", "Parameter"),
            ],
        ),
        (
            "basalts of New Mexico, Mexico and New Zealand. New Icelandic data",
            [
                ("basalt", "Rock"),
                ("Mexico", "Location"),
                ("New Zealand", "Location"),
                ("Iceland", "Location"),
            ],
        ),
        (
            "back-arc basalts of the South China Sea, the Sea of Japan and South Africa",
            [
                ("back-arc", "TectonicSetting"),
                ("basalt", "Rock"),
                ("South China Sea", "Location"),
                ("Sea of Japan", "Location"),
                ("South Africa", "Location"),
            ],
        ),
        (
            "depleted mantle model ages (TDM) near porphyry Cu deposits",
            [
                ("model age", "Parameter"),
                ("model age", "Parameter"),
                ("porphyry copper deposit", "OreDeposit"),
            ],
        ),
    ],
)
def test_surface_forms(text: str, expected: list[tuple[str, str]]) -> None:
    assert names(text) == expected


def test_quantities_carry_value_and_unit() -> None:
    found = names("ages of 251.9 ± 0.1 Ma, 4.5 Ga, 52.3 wt.%, 6,078 ppm, 1200 °C at 2 GPa and δ18O of 5.3‰")
    assert ("251.9 ± 0.1 Ma", "Age") in found
    assert ("4.5 Ga", "Age") in found
    assert ("52.3 wt.%", "Measurement") in found
    assert ("6078 ppm", "Measurement") in found
    assert ("1200 °C", "Measurement") in found and ("2 GPa", "Measurement") in found
    assert ("5.3 ‰", "Measurement") in found
    q = parse_quantity("251.9 ± 0.1 Ma")
    assert q is not None and (q.value, q.error, q.unit) == (251.9, 0.1, "Ma")
    r = parse_quantity("3.79–5.25 wt.%")
    assert r is not None and (r.low, r.high, r.unit) == (3.79, 5.25, "wt.%")


def test_unitless_value_after_ratio() -> None:
    assert names("87Sr/86Sri = 0.70352.") == [("87Sr/86Sr", "IsotopeRatio"), ("0.70352", "Measurement")]
    assert ("0.41–1.20", "Measurement") in names("Th/U ratios between 0.41 and 1.20, also")
    # a footnote digit glued to a word is no value
    assert names("known Pb / U ratio1 and") == [("Pb/U", "ElementRatio")]


def test_offsets_point_into_original_text() -> None:
    text = "Zircon ⁸⁷Sr/⁸⁶Sr – Hawaiʻi"
    for e in recognize(text):
        assert text[e.start : e.end] == e.surface


# Real sentences from the shared corpus (pypdf text), with the bare element symbols a reader sees in them.
LABELLED = [
    (
        "The positive correlation of Cr and Ni contents against Mg#, and Ni versus Cr and V versus Cr diagrams "
        "indicate the likelihood of the fractional crystallization of olivine and clinopyroxene",
        {"Cr", "Ni", "V"},
    ),
    ("As expected from the theoretical considerations laid out in Sects.", set()),
    (
        "In contrast to the San Julián Uplift locality, the inclinations in Real de Catorce match those expected "
        "for Cretaceous and younger rocks (<140 Ma; Figure 8).",
        set(),
    ),
    (
        "Mass transfer along the Yellowstone hotspot track I: Petrologic constraints on the volume of mantle-"
        "derived magma.",
        set(),
    ),
    ("A classical metaphor for the W p-distance is the minimum amount of work that needs to be done", set()),
    ("Sample 1 is an equal mixture of X and Y and Sample 2 a mixture of Y and Z.", set()),
    (
        "caricchi, l., siMPson, g., schaltegger, U. (2014) Zircons reveal magma fluxes in the Earth's crust.",
        set(),
    ),
    (
        "Murphy, J. B., Gutierrez-Alonso, G., Nance, R. D., Fernandez-Suarez, J., Keppie, J. D., Quesada, C., "
        "et al. (2006).",
        set(),
    ),
    ("WearegratefultoS.M.BrownKrein,C.-T.Lee, S. Matthews, C. Sun and C. B. Till for help.", set()),
    ("As discussed in Section 3.1, the sample has a short (~ 12.1 μm) mean fission track length", set()),
    (
        "Combined chemical separation of Lu, Hf, Rb, Sr, Sm and Nd from a single rock digest",
        {"Lu", "Hf", "Rb", "Sr", "Sm", "Nd"},
    ),
    ("Thus, it should be possible to measure U and Th first as individual spot measurements", {"U", "Th"}),
    (
        "To obtain a maximally representative temporal record of zircon Hf and O isotopic composition",
        {"Hf", "O"},
    ),
    ("In the absence of common Pb, samples whose 208Pb/232Th ages equal", {"Pb"}),
    ("they show no Nb and Ta depletion, but show Sr and Ti depletion", {"Nb", "Ta", "Sr", "Ti"}),
    ("considering the immobility of Hf in slab fluids (33)", {"Hf"}),
    ("Sections 8 and 9 apply the same logic to Pb/Pb and U/Pb isochrons, respectively.", set()),
    ("these samples are enriched in Pb, Fe, W, and Al relative to the rare earths", {"Pb", "Fe", "W", "Al"}),
    ("He diffusion in apatite is sensitive to radiation damage.", {"He"}),
    ("Li (5 ppm) and B concentrations are low; He said nothing.", {"Li", "B"}),
    ("In this Section, rows and columns will be treated jointly", set()),
    ("At the same time, No clear trend is seen; Be that as it may.", set()),
]


def test_symbol_precision_and_recall_on_real_sentences() -> None:
    tp = fp = fn = 0
    for sentence, expected in LABELLED:
        got = {e.surface for e in recognize(sentence) if e.type == "Element" and e.surface == e.name}
        tp += len(got & expected)
        fp += len(got - expected)
        fn += len(expected - got)
    precision, recall = tp / (tp + fp), tp / (tp + fn)
    assert precision >= 0.95, (precision, fp)
    assert recall >= 0.9, (recall, fn)


def test_ambiguous_symbols_need_context() -> None:
    assert names("As shown in Fig. 2, In this study, He said.") == []
    assert names("Lexa, O., & Janoušek, V. (2017)") == []
    assert ("S", "Element") not in names("the S/N of the detector")
    assert ("As", "Element") in names("the rock has 30 ppm As and")
    assert ("I", "Element") not in names("In Section I we show")


def test_question_entities() -> None:
    assert entity_names("What is the isotopic fractionation of Uranium?") == ["isotopic fractionation", "U"]
    assert entity_names("How do 87 Sr/86 Sr ratios of zircons relate to subduction?") == [
        "87Sr/86Sr",
        "zircon",
        "subduction",
    ]


@pytest.mark.slow  # a whole paper
def test_a_real_paper_yields_entities(sample_papers: Path) -> None:
    """Speed is measured in scripts/bench_text.py; here: a whole real paper is recognized."""
    import pypdf

    from geo_rag_runtime.text.sentences import split_sentences

    pdf = sample_papers / "VermeeschPease2021_GPL_TholeiiticCalcAlkaline_CCBY.pdf"
    text = " ".join((page.extract_text() or "") for page in pypdf.PdfReader(pdf).pages)
    text = re.sub(r"\s+", " ", text)
    sentences = [text[s:e] for s, e in split_sentences(text)]
    found = [e for s in sentences for e in recognize(s)]
    assert len(sentences) > 100 and len(found) > 100
    names = {e.name for e in found}
    assert {"tholeiitic", "calc-alkaline"} <= {n.lower() for n in names}, sorted(names)[:40]
