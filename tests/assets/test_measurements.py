"""Reported values as typed rows: the text grammar, a real paper end to end, the store and the CLI."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest

from geo_assets.measurements.text_values import extract_text_values, parse_number
from geo_rag_runtime.models import Measurement

REPO = Path(__file__).resolve().parents[2]
ZHU = REPO / "data" / "papers" / "Zhu2024_GRL_MongolOkhotskMantlePlume_CCBY.pdf"


def rows(text: str) -> list[tuple[str, float, float | None, str]]:
    return [(v.analyte, v.value, v.value_max, v.unit) for v in extract_text_values(text)]


def test_isotope_ratio_with_uncertainty_and_level() -> None:
    (value,) = extract_text_values("The basalts have 87Sr/86Sr = 0.70350 ± 0.00002 (2σ).")
    assert (value.analyte, value.value, value.unit, value.uncertainty) == (
        "87Sr/86Sr",
        0.7035,
        "ratio",
        0.00002,
    )
    assert value.uncertainty_level == "2σ" and value.printed.startswith("0.70350 ± 0.00002")


def test_oxide_ranges_units_and_respectively() -> None:
    text = (
        "The mafic rocks have SiO2 contents of 52.94–57.28 wt.%, and Al2O3, MgO and TiO2 contents of "
        "13.17–14.47 wt%, 2.70–5.63 wt.% and 1.77–2.21 wt.%, respectively."
    )
    assert rows(text) == [
        ("SiO2", 52.94, 57.28, "wt.%"),
        ("Al2O3", 13.17, 14.47, "wt.%"),
        ("MgO", 2.7, 5.63, "wt.%"),
        ("TiO2", 1.77, 2.21, "wt.%"),
    ]
    assert all(v.qualifier == "range" for v in extract_text_values(text))


def test_ore_and_rare_metal_oxides_are_oxides() -> None:
    """Tin, tungsten and pegmatite papers report SnO2, WO3, Nb2O5, Ta2O5 and Li2O like the rock-forming
    oxides."""
    text = (
        "The greisen has SnO2 contents of 0.12–1.5 wt.%, WO3 of 0.3 wt.%, and Nb2O5, Ta2O5 and Li2O "
        "contents of 0.05 wt.%, 0.02 wt.% and 1.8 wt.%, respectively."
    )
    assert rows(text) == [
        ("SnO2", 0.12, 1.5, "wt.%"),
        ("WO3", 0.3, None, "wt.%"),
        ("Nb2O5", 0.05, None, "wt.%"),
        ("Ta2O5", 0.02, None, "wt.%"),
        ("Li2O", 1.8, None, "wt.%"),
    ]
    # an oxide by its valence: a lost subscript ("NaO") or a phosphate group is no oxide
    assert [v.analyte for v in extract_text_values("It has NaO of 3.2 wt.% and PO4 of 3 ppm.")] == []


def test_thousands_separators_unicode_minus_and_high_to_low_ranges() -> None:
    text = (
        "U and Th concentrations vary from 54 to 3,283 ppm and from 28 to 6,078 ppm, respectively; "
        "εNd(t) is −2.1 to +4.4."
    )
    assert rows(text) == [
        ("U", 54, 3283, "ppm"),
        ("Th", 28, 6078, "ppm"),
        ("εNd", -2.1, 4.4, "epsilon"),
    ]
    assert rows("Zircons give ages of 415–410 Ma.") == [("age", 410, 415, "Ma")]
    assert parse_number("−2.6854") == -2.6854 and parse_number("3,283") == 3283


def test_ages_mswd_and_a_unit_printed_once_for_a_list() -> None:
    text = "Sample 19MAT‐169 yields a weighted mean 206Pb/238U age of 410 ± 4 Ma (MSWD = 0.89; Figure 2c)."
    assert rows(text) == [("age", 410, None, "Ma"), ("MSWD", 0.89, None, "")]
    assert rows("The youngest ages (ca. 503 and 478 Ma) mark a maximum depositional age.") == [
        ("age", 503, None, "Ma"),
        ("age", 478, None, "Ma"),
    ]
    assert [v.qualifier for v in extract_text_values("ages of ca. 503 Ma")] == ["~"]


def test_numbers_that_are_not_values_are_skipped() -> None:
    assert rows("As shown in Figure 3 and Table 2 (Smith et al., 2019), 9 samples were analysed.") == []
    assert rows("Tp of 1402 °C [Hoggard et al. 2020] and 1559 °C [Bao et al. 2022].") == [
        ("Tp", 1402, None, "°C"),
        ("Tp", 1559, None, "°C"),
    ]
    assert rows("A 400-My duration separates them.") == []  # a duration written as an adjective
    assert rows("Changing them lowers Tp by ~140 °C (Table 3).") == []  # a change, not a value
    assert rows("The recovery is complete by ∼340 Ma.") == [("age", 340, None, "Ma")]  # a date
    assert rows("Samples 19MAT-157 and OG.1 were dated.") == []  # names with digits
    # every year of an author's list is a citation's ("ln[Sm/He]" read once its slash was read right)
    assert rows("Set w = ln[Sm/He] and average the transformed data (Vermeesch, 2008, 2010, 2015).") == []
    assert rows("The zircon rims give 2010 ± 5 Ma and 2015 ± 4 Ma.") == [
        ("age", 2010, None, "Ma"),
        ("age", 2015, None, "Ma"),
    ]


def test_values_of_model_symbols_and_counts_belong_to_no_analyte() -> None:
    """A value assigned to a symbol that is no analyte (Δt, N, σ, ω, dt) is that symbol's, not the
    analyte's named before it; "t = 800 Ma" is still an age and "[206Pb/204Pb]c = 9" a ratio."""
    assert (
        rows(
            "The near-unity MSWD of a dataset with ∆t = 0.01 σ until more than ∼700 individual zircon analyses."
        )
        == []
    )
    assert rows("Eruption ages on the basis of MSWD for datasets smaller than N ≈ 50.") == []
    assert rows("The y intercept is overdispersed ([40Ar/36Ar]0 = 400, σa = 40).") == [
        ("40Ar/36Ar", 400, None, "ratio")
    ]
    assert rows("The x intercept is overdispersed (t = 100 Ma, σt = 10 Ma).") == [("age", 100, None, "Ma")]
    assert rows("An absolute age filter with dt = 97 Myr.") == []
    assert rows("Common Pb ratios of [207Pb/204Pb]c = 10 and [206Pb/204Pb]c = 9.") == [
        ("207Pb/204Pb", 10, None, "ratio"),
        ("206Pb/204Pb", 9, None, "ratio"),
    ]
    assert rows("An age of 410 ± 4 Ma (MSWD = 0.89, n = 25).") == [
        ("age", 410, None, "Ma"),
        ("MSWD", 0.89, None, ""),
    ]
    assert rows("Basalts with Ni = 250 ppm and Tp = 1402 °C.") == [
        ("Ni", 250, None, "ppm"),
        ("Tp", 1402, None, "°C"),
    ]


def test_a_plus_minus_the_text_layer_reads_as_six() -> None:
    """Vermeesch et al. (2017, G3): the PDF's text layer prints "±" as "6"; read as ± only between two
    numbers followed by a unit."""
    rows_with_errors = [
        (v.value, v.unit, v.uncertainty)
        for v in extract_text_values(
            "Scanning produced a 609 6 8 Ma weighted mean age; the TIMS reference age is 337.13 6 0.37 Ma."
        )
    ]
    assert rows_with_errors == [(609, "Ma", 8), (337.13, "Ma", 0.37)]
    assert all(v.uncertainty is None for v in extract_text_values("Peaks at 4 6 and 8 Ma."))  # no unit after


def test_numbered_references_levels_mantissas_and_spans_are_no_values() -> None:
    """Sentences of a PNAS paper (Keller et al. 2019) that once gave εHf rows of 24, 29–31, 2, 2.4,
    10,000 and 4.4: numbered references, a confidence level, a mantissa of "× 10^8", "parts per"
    and a span of time in Gy."""
    assert rows("It is reported in terms of εHf or parts per 10,000 relative to CHUR (24).") == []
    assert rows("Variations in zircon εHf have been attributed to the supercontinent cycle (29–31).") == []
    assert rows("We record mean εHfi in zircon and 2 SE uncertainty of the mean.") == []
    assert rows("Average crust and mantle εHf imply the recycling of some 2.4 × 108 km3 of crust.") == []
    assert (
        rows("To quantify crustal average εHf evolution over the past ∼4.4 Gy, we use 29,523 zircons.") == []
    )
    assert rows("The surface allows some ∼0.9 Gy for exhumation.") == []
    assert rows("Arc zircon εHf within 5 arc degrees of a trench, at a dip of 30°.") == []  # angles
    assert rows("εNd (t) values of +2.3 ± 0.4 (2σ) at 1.2 Gy.") == [  # a date in Gy is an age in Ga
        ("εNd", 2.3, None, "epsilon"),
        ("age", 1.2, None, "Ga"),
    ]


def test_temperature_and_pressure_follow_their_units() -> None:
    text = "Basalts equilibrate between 1–2 GPa and 1275–1475 °C; we obtain 𝑃 = 2.07 GPa and 𝑇 = 1370 °C."
    assert rows(text) == [
        ("P", 1, 2, "GPa"),
        ("T", 1275, 1475, "°C"),
        ("P", 2.07, None, "GPa"),
        ("T", 1370, None, "°C"),
    ]
    (value,) = extract_text_values("we obtain Tp of 1556+20 −25 °C for the shield phase")
    assert (
        value.value == 1556
        and value.uncertainty is None
        and value.notes == ["asymmetric uncertainty +20/-25"]
    )


@pytest.fixture(scope="module")
def zhu_rows(tmp_path_factory: pytest.TempPathFactory) -> list[Measurement]:
    from geo_assets.ingest.chunking import chunk_paper
    from geo_assets.ingest.cleaned_paper import clean_paper
    from geo_assets.ingest.pipeline import paper_from_pdf
    from geo_assets.measurements.extract import paper_measurements
    from geo_rag_runtime.settings import Settings
    from geo_rag_runtime.text.tokenizer import get_token_counter

    settings = Settings(home=tmp_path_factory.mktemp("m"))
    cleaned = clean_paper(paper_from_pdf(ZHU))
    chunks = chunk_paper(cleaned, get_token_counter(settings), max_tokens=512, overlap=100)
    found = paper_measurements(cleaned, chunks)
    text = cleaned.text
    for row in found:  # every row points at the very characters it was read from
        assert text[row.char_start : row.char_end].strip() == row.printed
        assert any(c.chunk_id == row.chunk_id and c.char_start <= row.char_start < c.char_end for c in chunks)
    return found


def test_a_real_paper_yields_cited_rows(zhu_rows: list[Measurement]) -> None:
    ages = {(r.value, r.uncertainty, r.page) for r in zhu_rows if r.analyte == "age" and r.unit == "Ma"}
    assert (410.0, 4.0, 3) in ages and (415.0, 4.0, 3) in ages  # "410 ± 4 Ma", "415 ± 4 Ma" on page 3
    silica = [r for r in zhu_rows if r.analyte == "SiO2" and r.unit == "wt.%"]
    assert silica and all(r.value_max is not None and r.value <= r.value_max for r in silica)
    assert len({r.measurement_id for r in zhu_rows}) == len(zhu_rows)
    assert all(r.page and r.source_file == ZHU.name and r.sentence for r in zhu_rows)
    # each dated sample's age carries its sample, printed "19MAT‐169" (U+2010), stored with an ASCII hyphen
    by_age = {r.value: r.sample for r in zhu_rows if r.analyte == "age" and r.uncertainty == 4.0}
    assert by_age[410.0] == "19MAT-169" and by_age[415.0] == "19MAT-157", by_age


def test_samples_named_in_a_sentence_or_its_section_belong_to_its_values() -> None:
    from geo_assets.measurements.samples import normalise_names, sample_mentions, samples_for_values

    def of(sentence: str) -> list[str]:
        return samples_for_values(sentence, [(v.start, v.end) for v in extract_text_values(sentence)])

    assert of("Fifteen analyses of sample 19MAT‐169 yield a weighted mean age of 410 ± 4 Ma, and sample "
              "19MAT‐157 yields 415 ± 4 Ma.") == ["19MAT-169", "19MAT-157"]  # fmt: skip
    assert of("Samples 19MAT‐33 (sandstone), 19MAT‐193 and 19MAT‐225 yield ages of 510 Ma.") == [
        "19MAT-33; 19MAT-193; 19MAT-225"
    ]
    assert of("The two rhyolites give ages of 410 and 415 Ma for KIL-1 and KIL-2, respectively.") == [
        "KIL-1",
        "KIL-2",
    ]
    assert of("The dataset uses Temora2 zircon (416.8 ± 1.1 Ma) as a reference material.") == ["Temora2"]
    # a name with its value in brackets after it, in a list of reference materials
    assert of("It also uses 91500 zircon, OG.1 (3440.7 ± 3.2 Ma, Stern et al., 2009), and M127 "
              "(524.36 ± 0.16 Ma).") == ["OG.1", "M127"]  # fmt: skip
    # formulas, isotope notation, figure labels and years are no samples
    for text in ("H2O-CO2 solubility of 2.5 wt.%", "207Pb-corrected ages of 410 Ma", "Fig. S-3 shows 410 Ma",
                 "In 2019 zircon ages of 410 Ma", "SiO2 (45.2 wt.%) and Al2O3 (15.1 wt.%)", "Fig.3 (410 Ma)",
                 "No.5 (10 ppm)", "87Sr/86Sr (0.7035)", "δ18O (5.6‰)"):  # fmt: skip
        assert sample_mentions(text) == [], text
    # one printing per sample in a paper: FC4b and FC-4b are the same sample
    assert normalise_names(["FC-4b", "FC-4b", "FC4b; KIL-1"]) == {
        "FC-4b": "FC-4b",
        "FC4b": "FC-4b",
        "KIL-1": "KIL-1",
    }


def test_values_said_of_a_named_rock_unit_carry_it() -> None:
    """Papers report many values for a whole unit, not a sample: the unit a sentence names, with the
    rocks its subject names, belongs to its values; a value said to be "for" a unit takes that one."""
    from geo_assets.measurements.rock_units import continues, unit_mentions, units_for_values

    def of(sentence: str) -> list[str]:
        spans = [(v.start, v.end) for v in extract_text_values(sentence)]
        return units_for_values(sentence, spans, unit_mentions(sentence))

    assert of("The mafic lavas from the Kerrow bimodal volcanic suite have SiO2 of 48.1–52.3 wt.%.") == [
        "mafic lavas from the Kerrow bimodal volcanic suite"
    ]
    assert of("Zircon from the Tallis granite gives 412 ± 3 Ma, and a 398 Ma U–Pb age for the Brenock "
              "pluton.") == ["Tallis granite", "Brenock pluton"]  # fmt: skip
    assert of(
        "Detrital zircon ages (391 Ma) in the Lower Devonian Corra Formation constrain deposition."
    ) == ["Lower Devonian Corra Formation"]
    assert of("Limestones of the La Vega Fm. yield 317 ± 11 Ma.") == ["Limestones of the La Vega Fm."]
    # a three-letter name before a capitalised unit word
    assert of("Granites of the Afu Complex have 500 ppm Sn.") == ["Granites of the Afu Complex"]
    # values before a unit the sentence does not say they are of take none
    assert of("At 380 Ma a thermal event heated the Tarn Formation to 200 °C.") == ["", "Tarn Formation"]
    # a value printed before a rock: a named one is that unit's, an unnamed one no unit's
    assert of("We dated the 28 Ma Moss Canyon Tuff.") == ["Moss Canyon Tuff"]
    assert of("The Tarn Formation is pierced by a ca. 590 Ma monzogranite.") == [""]
    # a bracket between a value and the unit it is for, and a name with a mineral in it
    assert of("Ages are 309 Ma for the Arda Pluton and ca. 306 Ma (U–Pb in zircon) for the Nisa pluton.") == [
        "Arda Pluton",
        "Nisa pluton",
    ]
    assert of("The Dale granite (412 Ma) and the Shil quartz diorite (433 Ma) intrude it.") == [
        "Dale granite",
        "Shil quartz diorite",
    ]
    # a unit the sentence sets apart from what its values are about
    assert of("With the exception of the Hasa Formation, these units show ages of 500–850 Ma.") == [""]
    assert of("Its rocks, similar to those of the Hika granite, have 10 ppm Sn.") == [""]
    assert of("The source area of the Tarn Formation reached ~230 °C.") == [""]
    # the rocks of a tectonic setting, lowercase: values said of them are theirs, unless set apart
    assert of("Ocean island basalts equilibrate at 2–4 GPa and 1350 °C.") == ["Ocean island basalts"] * 2
    assert of("The lavas have Nb/U similar to mid-ocean ridge basalts (47 ± 10).") == [""]
    # a mineral after a place name: a named material, often a reference material (not after an
    # orogeny or a describing word)
    assert of("Repeated analyses of the Tarnow apatite standard (31.02 ± 0.22 Ma) agree.") == [
        "Tarnow apatite"
    ]
    assert of("Variscan zircon gives 300 Ma.") == of("Albitic plagioclase has 400 ppm Sr.") == [""]
    # the rocks of a named region, named before it (not a region alone, nor bare "rocks of" it)
    assert of("Granitoids and mafic rocks in the Central Tarn Zone give ages of 311 ± 5 Ma.") == [
        "Granitoids and mafic rocks in the Central Tarn Zone"
    ]
    assert of("Detrital zircons from the South Kerrow forearc basin yield 250 Ma.") == [
        "Detrital zircons from the South Kerrow forearc basin"
    ]
    assert of("Zircons yield 250 Ma, unlike mafic rocks of the Tarn Zone.") == [""]
    # or by its acronym, a place as papers abbreviate it (not a lab's samples)
    assert of("The youngest are the 286 ± 3 Ma peraluminous leucogranites in the WALZ.") == [
        "peraluminous leucogranites in the WALZ"
    ]
    assert of("Analysed samples from the USGS have 5 ppm Sr.") == [""]
    # no units: an event called formation, ages and positions alone, a mineral or element prefix, a
    # statistical group, a sentence's opening word
    for text in ("during Cantabrian Orocline formation at 310 Ma", "Middle Permian dykes at 270 Ma",
                 "High-Mg basalts with 12 wt.% MgO", "Bt-Crd granodiorites", "Statistical Correlation Group 1",
                 "The formation of the crust at 3.8 Ga", "Ma bimodal volcanic suite", "rocks of the Iberian Massif",
                 "Biotite Hornblende granites", "the Basin and Range Province"):  # fmt: skip
        assert unit_mentions(text) == [], text
    # the next sentence goes on about the same rocks only when it says so
    unit = "felsic rocks from the Kerrow bimodal suite"
    assert continues("They have (La/Yb)N of 2.9–5.5.", unit) == unit
    assert continues("The felsic samples show Eu/Eu* of 0.34–0.59.", unit) == unit
    # other rocks of the same unit, in the next sentence or later in the same one
    assert (
        continues("The mafic samples show Eu/Eu* of 0.6.", unit)
        == "mafic samples from the Kerrow bimodal suite"
    )
    assert of("The mafic rocks from the Kerrow suite have εNd of +0.9 to +1.6, and the felsic samples have "
              "εNd of +1.3–2.1.") == ["mafic rocks from the Kerrow suite", "felsic samples from the Kerrow suite"]  # fmt: skip
    assert continues("The mafic samples show Eu/Eu* of 0.6.", "Kerrow Formation") == ""  # its rocks: unknown
    assert continues("Zircon ages of 410 Ma are common.", unit) == ""
    # "these" or "those" rocks anywhere in the sentence; a few sentences on, only rocks named as such
    assert continues("Ratios imply that these E-MORB-like basalts formed by 5% melting.", unit) == unit
    assert continues("They have (La/Yb)N of 2.9–5.5.", unit, pronouns=False) == ""
    assert continues("The rock density is 2.65 g/cm3 in these rocks.", unit, pronouns=False) == ""
    assert continues("The felsic samples show Eu/Eu* of 0.34–0.59.", unit, pronouns=False) == unit


def test_a_value_before_the_unit_its_sentence_names_later() -> None:
    """A composition printed before the one unit its sentence names is that unit's (an age or a
    temperature there may date an event instead); a value before any unit takes the unit the sentence
    goes on about; rocks a unit is said to contain are those rocks of the unit."""
    from geo_assets.measurements.rock_units import unit_mentions, units_for_values

    def of(sentence: str, opener: str = "") -> list[str]:
        values = extract_text_values(sentence)
        spans = [(v.start, v.end) for v in values]
        compositions = [v.unit in {"ratio", "epsilon", "wt.%", "ppm"} for v in values]
        return units_for_values(
            sentence, spans, unit_mentions(sentence), opener=opener, compositions=compositions
        )

    assert of(
        "The high Th/Nb (0.25–0.30) points to a slab component in the lavas of the Kerrow Formation."
    ) == ["lavas of the Kerrow Formation"]
    assert of("At 380 Ma a thermal event heated the Tarn Formation to 200 °C.") == ["", "Tarn Formation"]
    # a unit the values are compared with is not theirs
    assert of("The dykes have εNd(t) of +2.1, indistinguishable from the mafic rocks of the Tarn suite.") == [
        ""
    ]
    assert of("These lavas have Ba/Nb of 45, higher than the Arda Pluton.") == [""]
    # the unit the sentence goes on about, before another unit it names
    assert of(
        "They have 87Sr/86Sr of 0.7041, and the Brenock pluton has 87Sr/86Sr of 0.7062.",
        opener="basalts from the Kerrow Formation",
    ) == ["basalts from the Kerrow Formation", "Brenock pluton"]
    # rocks a unit contains: their age, not the unit's
    assert of(
        "Glacial deposits of the Arrow Group contain granitic basement clasts as young as 755 ± 18 Ma."
    ) == ["granitic basement clasts of the Arrow Group"]
    assert of("The Arrow Group contains basalt clasts of 702 ± 4 Ma.") == ["basalt clasts of the Arrow Group"]


def test_a_section_takes_up_the_unit_it_named_a_few_sentences_before() -> None:
    """ "The felsic rocks …" two sentences after "the rhyolite samples from the Kerrow suite" are that
    suite's felsic rocks; a pronoun that far on is not taken to mean them, nor is a unit carried past
    a named sample."""
    from geo_assets.measurements.extract import paper_measurements
    from geo_rag_runtime.models import CleanedPaper, CleanSection

    text = (
        "The rhyolite samples from the Kerrow bimodal suite are rich in silica. Intermediate rocks are "
        "absent in the region. The felsic rocks have εNd(t) values of +1.3 to +2.1. Zircon is common in "
        "the sediments. They have δ18O of 6.1‰. Sample KR-7 is a dyke. The felsic rocks have Ba/Nb of 45."
    )
    cleaned = CleanedPaper(
        paper_id="p1", source_file="x.pdf", title="T", text=text,
        sections=[CleanSection(heading="Discussion", kind="body", text=text, char_start=0, char_end=len(text))],
    )  # fmt: skip
    units = {r.analyte: r.rock_unit for r in paper_measurements(cleaned, [])}
    assert units["εNd"] == "felsic rocks from the Kerrow bimodal suite", units
    assert units["δ18O"] == "", units
    assert units["Ba/Nb"] == "", units


def test_stocks_rocks_a_unit_differs_from_and_this_rock() -> None:
    """A stock is an intrusive body like a pluton; rocks a sentence says its subject deviates from
    are set apart from its values; "This … granite" goes on about the unit the sentence before named,
    as "these granites" does, but "that the volcanic rocks" (a conjunction) does not."""
    from geo_assets.measurements.rock_units import continues, unit_mentions, units_for_values

    assert [m.names for m in unit_mentions("Zircons from the Eurajoki stock yield 1.57 Ga.")] == [
        ("Eurajoki stock",)
    ]
    deviates = (
        "The topaz granite deviates in composition markedly from the granites of the Laitila batholith."
    )
    assert unit_mentions(deviates) == []
    assert (
        continues("This peraluminous high-SiO2 granite has 42–590 ppm Li.", "Eurajoki stock")
        == "Eurajoki stock"
    )
    assert continues("The ages indicate that the volcanic rocks are younger.", "Karaj Formation") == ""
    # magmatism is no body of rock; a unit a sample lies near is no unit of its values; a second
    # named subject with its own bracket of values takes them
    assert unit_mentions("Synorogenic Variscan granitoid magmatism (345–315 Ma) built the belt.") == []
    assert (
        unit_mentions("Sample JR1, located nearest to the New Idria serpentinite, was heated above 110 °C.")
        == []
    )
    sentence = (
        "The lowest Ti values are those of the Zinnwald apogranite (200 ppm Ti) and the aplite system of the "
        "Ehrenfriedersdorf tin deposit (60 ppm Ti), respectively; the Zinnwald apogranite has high Th/Ce "
        "(0.05) and the high Th/Ta (1.6)."
    )
    spans = [(v.start, v.end) for v in extract_text_values(sentence)]
    units = units_for_values(sentence, spans, unit_mentions(sentence))
    assert units == ["Zinnwald apogranite", "", "Zinnwald apogranite", "Zinnwald apogranite"], units


def test_a_sample_the_paper_named_is_found_bare_in_its_other_sentences() -> None:
    """Once a paper says "sample LAB03", "LAB03" alone names it in any section; a name found only
    before a bracketed value ("A95max (5.7°)") is no such name."""
    from geo_assets.measurements.extract import paper_measurements
    from geo_rag_runtime.models import CleanedPaper, CleanSection

    methods = "Sample LAB03 was cut from a flowstone. The statistic A95max (5.7) is reported."
    results = "The pole gives A95max of 6.1 at 290 Ma. The age of LAB03 is 3.2 ± 0.1 Ma."
    text = f"{methods}\n\n{results}"
    cleaned = CleanedPaper(
        paper_id="p1", source_file="x.pdf", title="T", text=text,
        sections=[
            CleanSection(heading="Methods", kind="body", text=methods, char_start=0, char_end=len(methods)),
            CleanSection(heading="Results", kind="body", text=results, char_start=len(methods) + 2,
                         char_end=len(text)),
        ],
    )  # fmt: skip
    rows = {r.printed: r.sample for r in paper_measurements(cleaned, [])}
    assert rows["3.2 ± 0.1 Ma"] == "LAB03", rows
    assert rows.get("290 Ma", "") == "", rows


def test_a_reference_material_s_rows_say_so() -> None:
    """A standard's analysis is data (its value is its own), but not of the study's rocks: a row whose
    sample is a reference material the vocabulary lists (GJ-1, Temora2 with its
    literature age) is noted so, and one of the study's samples is not."""
    from geo_assets.measurements.extract import REFERENCE_NOTE, paper_measurements
    from geo_assets.measurements.samples import reference_material
    from geo_rag_runtime.models import CleanedPaper, CleanSection

    text = ("Sample 19MAT-169 yields a weighted mean age of 410 ± 4 Ma. The dataset uses Temora2 zircon "
            "(416.8 ± 1.1 Ma) as a reference material. The GJ-1 standard gave 601.9 ± 2.3 Ma.")  # fmt: skip
    cleaned = CleanedPaper(
        paper_id="p1", source_file="x.pdf", title="T", text=text,
        sections=[CleanSection(heading="Results", kind="body", text=text, char_start=0, char_end=len(text))],
    )  # fmt: skip
    rows = {r.printed: r for r in paper_measurements(cleaned, [])}
    assert rows["410 ± 4 Ma"].sample == "19MAT-169" and rows["410 ± 4 Ma"].notes == []
    assert rows["416.8 ± 1.1 Ma"].sample == "Temora2"
    assert rows["416.8 ± 1.1 Ma"].notes == [REFERENCE_NOTE + "Temora"]
    assert rows["601.9 ± 2.3 Ma"].sample == "GJ-1" and rows["601.9 ± 2.3 Ma"].notes == [
        REFERENCE_NOTE + "GJ-1"
    ]
    # printed with the mineral it is named with, or bare in a table's sample column
    assert reference_material("91500") == reference_material("91500 zircon") == "zircon 91500"
    assert [reference_material(n) for n in ("GJ1", "BCR-2", "NIST 610", "MN1", "FC-4b", "2")] == [
        "GJ-1",
        "BCR-2",
        "NIST SRM 610",
        "",
        "",
        "",
    ]


def test_a_sample_named_in_an_earlier_paragraph_is_carried_only_when_the_section_is_about_it() -> None:
    """A sample carries on to the sentences after it within its paragraph; past a paragraph break
    only when it is the one sample the section names and the paper calls it a sample. The blind
    labels found most samples carried further were another subject's (a lab procedure, a statistic)."""
    from geo_assets.measurements.extract import paper_measurements
    from geo_rag_runtime.models import CleanedPaper, CleanSection

    def samples(*sections: str) -> dict[str, str]:
        text, parts, at = "", [], 0
        for i, body in enumerate(sections):
            parts.append(CleanSection(heading=f"S{i}", kind="body", text=body, char_start=at,
                                      char_end=at + len(body)))  # fmt: skip
            text += body + "\n\n"
            at = len(text)
        cleaned = CleanedPaper(paper_id="p1", source_file="x.pdf", title="T", text=text, sections=parts)
        return {r.printed: r.sample for r in paper_measurements(cleaned, [])}

    cases = [
        # the one sample of its section, which the paper calls a sample, carries on
        ("Sample UT09DV04 was collected from a lava flow. Its zircons are clear.\n\n"
         "Temperature estimates peak at 1250 °C.", "1250 °C", "UT09DV04"),
        # two samples: within their paragraph, not into the next one's lab procedure
        ("Apatites from NAX-3 and MF16-19 are clear. They yield 12 Ma.\n\n"
         "After digestion on a hot plate (150 °C) the HNO3 was dried down.", "12 Ma", "NAX-3; MF16-19"),
        ("Apatites from NAX-3 and MF16-19 are clear. They yield 12 Ma.\n\n"
         "After digestion on a hot plate (150 °C) the HNO3 was dried down.", "150 °C", ""),
        ("The CREU-1 standard material is pure quartz.\n\nIt was heated to 900 °C.", "900 °C", ""),
        # a sentence broken at a page end is one paragraph; a paragraph on the sample's figure is its
        ("Samples AB-1 and AB-2 from the Sagsai formation yield Devonian and\n\n"
         "Cambrian ages, with age peaks of 386–390 Ma.", "386–390 Ma", "AB-1; AB-2"),
        ("Figure 2a shows sample CB-2. It is a vein.\n\nFigure 3a shows the allanite sample (MF482).\n\n"
         "Figure 3b shows an isochron age of 21.50 ± 4.37 Myr.", "21.50 ± 4.37 Myr", "MF482"),
        # a list is not lent to a sentence about one unnamed sample of it
        ("Pits EST-012 and BGS-023 hold 71 wt.% SiO2. The highest-grade sample has 5.16% Fe2O3.", "71 wt.%",
         "EST-012; BGS-023"),
        ("Pits EST-012 and BGS-023 hold 71 wt.% SiO2. The highest-grade sample has 5.16% Fe2O3.", "5.16%", ""),
        # one sample is not lent to a sentence about samples, unless it was named as a site of them
        ("Sample OD3 has εNd of -6.2. All other samples have TDM ages of 1.3 Ga.", "1.3 Ga", ""),
        ("In site JA-5 we found two components. A set of samples unblocks at 380 °C.", "380 °C", "JA-5"),
        # a value printed with a citation in its bracket is a literature value, not the carried sample's
        ("Sites BD-1 and BD-3 carry eP. It formed in the Kiaman superchron (314–264 Ma, e.g. Langereis et al., "
         "2010) after 330 Ma.", "314–264 Ma", ""),
        ("Sites BD-1 and BD-3 carry eP. It formed in the Kiaman superchron (314–264 Ma, e.g. Langereis et al., "
         "2010) after 330 Ma.", "330 Ma", "BD-1; BD-3"),
    ]  # fmt: skip
    for text, printed, sample in cases:
        rows = samples(text)
        assert rows[printed] == sample, (printed, rows)


def test_names_in_brackets_after_rocks_and_tokens_that_name_no_sample() -> None:
    """ "Red beds (GV10.11)" names the beds' sample; "the second deformation (D2)" names an event, and a
    unit with its power ("cm2"), a count and a statistic ("1-SE", "3-D") or a category and its number
    ("Type-1", "TableII-1-8") is no sample."""
    from geo_assets.measurements.samples import sample_mentions

    named = {
        "Red beds (GV10.11) and baked contacts (GV10.08) decay until 680 °C.": [("GV10.11",), ("GV10.08",)],
        "A dacite (TDPH14) yields 3.0 Ma.": [("TDPH14",)],
    }
    for text, names in named.items():
        assert [m.names for m in sample_mentions(text)] == names, text
    for text in ("The second deformation (D2) is dated at 300 Ma.", "This yields 342 ± 23 a cm2 (1s).",
                 "Using the 1-SE rule gives 8 splits.", "A 3-D model of 40 km.", "A Type-1 error of 5%.",
                 "TableII-1-8 shows the age of 82 Ma.", "The grains (12) are 10 Ma."):  # fmt: skip
        assert sample_mentions(text) == [], text


def test_samples_named_as_what_parts_were_taken_from_or_by_a_letter() -> None:
    """ "Four aliquots of TDPH14", "zircons from D21G-2" name samples, as does a capital letter after
    "Sample" or "Boulders", and a name set off by commas or quoted after "sample"; a count in brackets
    after "samples" ("(13 apatites)") names none."""
    from geo_assets.measurements.samples import sample_mentions

    named = {
        "Four aliquots of TDPH14 yield an age of 3.30 ± 0.12 Ma.": [("TDPH14",)],
        "Zircons from D21G-2 and D21G-3 give 410 Ma.": [("D21G-2", "D21G-3")],
        "Boulders A and B both have an AFT age of 10 ± 2 Ma.": [("A", "B")],
        "Sample C consists of very young ages between 6 and 19 Ma.": [("C",)],
        "The grains in sample D.": [("D",)],
        "The southern samples (12 and 13) are 4.6.": [("12", "13")],
        "The sample, NAX-3, comes from the migmatite core.": [("NAX-3",)],
        "The sample (‘KL29’) was collected in 1999.": [("KL29",)],
    }
    for text, names in named.items():
        assert [m.names for m in sample_mentions(text)] == names, text
    for text in ("Four inclusion-free samples (13 apatites) give 10.9 Ma.", "In sample I think it is 4 Ma.",
                 "Analyses of SiO2 give 50 wt.%.", "Samples A.B. Smith collected are 4 Ma."):  # fmt: skip
        assert sample_mentions(text) == [], text


def test_the_paper_s_names_are_found_bare_with_their_series_and_catalogue_numbers() -> None:
    """A paper that names BD03 names BD02 and BD08 of the same series when it prints them bare, and a
    catalogue number ("10017") once named; a series of element symbols ("Cu12") or a year is none."""
    from geo_assets.measurements.samples import known_names, sample_mentions

    known = known_names(["BD03", "10017", "Cu12", "JaIb5"])
    assert known is not None
    found = {
        "Sites BD02, BD06 and JaIb3 show curves.": [("BD02", "BD06", "JaIb3")],
        "The composition of plagioclase in 10017 is An78.": [("10017",)],
        "Cu13 and 2019 and 10018 are printed.": [],
        # a known name and a hyphenated one printed as one list are one mention; with values of their own, two
        "BD02 (sedimentary jasper, Fig. 4) and BD06-12 (acidic tuffs) decay.": [("BD02", "BD06-12")],
        "BD02 (3440.7 ± 3.2 Ma) and BD06-12 (524 Ma) are dated.": [("BD02",), ("BD06-12",)],
    }
    for text, names in found.items():
        assert [m.names for m in sample_mentions(text, known)] == names, text
    assert known_names(["2019", "12"]) is None


def test_a_sample_a_table_names_is_found_bare_in_the_text() -> None:
    """A table's "Site" column names QM01 and QM02: "QM01 (Fig. 4) shows alteration over 400 °C" is
    about that sample, although no sentence says "sample QM01"; a table row label that only looks
    like an identifier gives the text nothing."""
    from geo_assets.ingest.cleaned_paper import clean_paper
    from geo_assets.measurements.extract import paper_measurements
    from geo_rag_runtime.models import Caption, Paper, Section

    sites = Caption(
        kind="table", label="Table 1", text="Paleomagnetic results.", page=3,
        rows=[["Site", "Dec", "Inc"], ["QM01", "13.8", "33.7"], ["QM02", "20.1", "10.2"]],
    )  # fmt: skip
    guessed = Caption(
        kind="table", label="Table 2", text="Step data.", page=4, rows=[["Step", "T (°C)"], ["ZX12", "300"]],
    )  # fmt: skip
    paper = Paper(
        paper_id="p9", source_file="q.pdf", title="Sites", sha256="0" * 64,
        sections=[Section(heading="Results", paragraphs=[
            "QM01 (Fig. 4) shows alteration over 400 °C.", "Then ZX12 is heated to 500 °C."
        ])],
        captions=[sites, guessed],
    )  # fmt: skip
    rows = {r.printed: r.sample for r in paper_measurements(clean_paper(paper), [], paper.captions)
            if r.source_type == "text"}  # fmt: skip
    assert rows["400 °C"] == "QM01", rows
    assert rows["500 °C"] == "", rows


def test_respectively_pairs_the_values_listed_before_it_with_the_sentence_s_samples() -> None:
    """ "… 437 ± 20 Ma for RB140, with MSWD values of 1.83 and 2.97, respectively": the last values
        before the word, one per name, in order; not when words stand between them (a value there may not
    have been read)."""
    from geo_assets.measurements.samples import known_names, sample_mentions, samples_for_values

    known = known_names(["B188", "RB140"])
    sentence = (
        "The central ages compare with 438 ± 20 Ma for B188 and 437 ± 20 Ma for RB140 (Nasdala et al., 2004), "
        "with compositional MSWD values of 1.83 and 2.97, respectively."
    )
    spans = [(v.start, v.end) for v in extract_text_values(sentence)]
    assert samples_for_values(sentence, spans, sample_mentions(sentence, known)) == [
        "B188",
        "RB140",
        "B188",
        "RB140",
    ]
    apart = (
        "KIL-1 yields 410 Ma and KIL-2 yields 420 Ma; their MSWDs are 1.2 and, after a long common-Pb "
        "correction, 3.4, respectively."
    )
    spans = [(v.start, v.end) for v in extract_text_values(apart)]
    assert samples_for_values(apart, spans) == ["KIL-1", "KIL-2", "KIL-2", "KIL-2"]


def test_a_value_followed_by_its_own_bracket_takes_the_sample_named_there() -> None:
    from geo_assets.measurements.samples import samples_for_values

    sentence = "εNd varies between -0.2 (enclave in the Neira pluton, sample NE-3) and -5.9 (sample LD-18)."
    spans = [(v.start, v.end) for v in extract_text_values(sentence)]
    assert samples_for_values(sentence, spans) == ["NE-3", "LD-18"]


def test_values_in_brackets_inside_a_list_of_names_take_the_names_printed_before_them() -> None:
    """A mining report's list "EST-012 (0.55%), EST-063 and EST-068 (0.52% each), …" is one list of
    names (joined by commas), but each value is its own names': before, the values inside the list took
    the sample of the sentence before it, and the last took the whole list. What a list prints in
    brackets to describe a name ("(35 zircons)", "(sandstone)") names no sample and splits no list, and
    a name set apart ("except OD1") is no value's."""
    from geo_assets.measurements.samples import sample_mentions, samples_for_values

    sentence = (
        "SnO2 reaches 0.85% in pit ES-033 (sample DMW-353), with further anomalies including EST-012 "
        "(0.55%), EST-063 and EST-068 (0.52% each), BGS-023 (0.48%), and BGS-025 (0.43%)."
    )
    spans = [(v.start, v.end) for v in extract_text_values(sentence)]
    assert samples_for_values(sentence, spans)[1:] == [
        "EST-012",
        "EST-063; EST-068",
        "BGS-023",
        "BGS-025",
    ]
    # a sample the sentence sets apart is not its values' (a fifth blind set's miss)
    apart = "The ca. 0.85–1.15 Ga population is present in all samples except OD1."
    assert samples_for_values(apart, [(v.start, v.end) for v in extract_text_values(apart)]) == [""]
    counted = "Samples ZG12 (40 zircons) and ZG13 (35 zircons) yield 410 ± 4 Ma."
    assert [m.names for m in sample_mentions(counted)] == [("ZG12", "ZG13")]
    described = "Samples 19MAT-33 (sandstone), 19MAT-193 and 19MAT-225 yield 420 Ma."
    spans = [(v.start, v.end) for v in extract_text_values(described)]
    assert samples_for_values(described, spans) == ["19MAT-33; 19MAT-193; 19MAT-225"]


def test_a_real_paper_s_values_carry_the_rock_unit_its_sentences_name(zhu_rows: list[Measurement]) -> None:
    silica = {r.rock_unit for r in zhu_rows if r.analyte == "SiO2" and r.source_type == "text"}
    assert "mafic rocks from the Ulgey bimodal volcanic suite" in silica
    assert "basalt rocks from the Mukhar formation" in silica
    # "They have moderate LREE/HREE ratios [(La/Yb)N of 2.26–2.62 …]" after the Mukhar basalts' sentence
    ratios = {r.value: r.rock_unit for r in zhu_rows if r.analyte == "(La/Yb)N"}
    assert ratios[2.26] == "basalt rocks from the Mukhar formation", ratios
    # a dated sample keeps its sample and gets no unit its sentence does not name
    assert all(not r.rock_unit for r in zhu_rows if r.sample == "19MAT-169")


def test_mixed_unit_ranges_and_durations_are_not_misread_as_ages() -> None:
    assert rows("Detrital zircon ages ranging from 800 Ma to 1.5 Ga dominate.") == [("age", 0.8, 1.5, "Ga")]
    assert rows("Ages between 1.2 Ga and 900 Ma are common.") == [("age", 900.0, 1200.0, "Ma")]
    assert rows("The models explored a t–T space spanning 200 Myr.") == []


def test_terms_of_formulas_isotopes_and_offsets_are_no_values() -> None:
    """Cases from a blind audit of rows read from unseen papers: the 1 and 2 of a test's cut-off
    formula, the 1 of "exp(λt) − 1", potassium-40 read as 40 kelvin, a mass number, a lone "±" (an
    uncertainty or an offset, not a value); a capitalised "Between", a range whose low end has a "∼",
    and time scales that are durations."""
    assert rows("Scenario 1 is rejected if MSWD > 1 + 2√2/df (at a 95% confidence level).") == []
    assert rows("MSWD values outside the range of 1 ± 2√2/ν lead to the rejection of H0.") == []
    assert rows("where y = [187Os/188Os] and b = (exp[λ187t] - 1).") == []
    assert rows("It is based on the branched decay of 40K to 40Ca and 40Ar.") == []
    assert rows("For the 204Pb/206Pb ratio, the counts at mass 204 and at mass 206 are Poisson.") == []
    assert rows("Errors can be absolute (e.g., ±50 K for temperature) or relative.") == []
    assert rows("Impact craters with ages known within ±75 My are shown.") == []
    assert rows("At a 33 °C/km geothermal gradient the rocks were exhumed.") == []
    assert rows("Between 360 Ma and 330 Ma, a shortening phase occurred.") == [("age", 330.0, 360.0, "Ma")]
    assert rows("A component unblocked between ∼330 °C and 475 °C.") == [("T", 330.0, 475.0, "°C")]
    assert rows("Matzel et al. found 3–5 Myr assembly time scales.") == []
    assert rows("Crystallisation timescales may span 200-700 kyr for magmatic zircons.") == []
    # what stays: kelvin with a space, an asymmetric uncertainty, a value before a slash and a number
    assert rows("The melt was held at 1473 K.") == [("T", 1473.0, None, "K")]
    assert [(v.value, v.notes) for v in extract_text_values("Tp = 1475 +45/−50 °C.")] == [
        (1475.0, ["asymmetric uncertainty +45/-50"])
    ]
    assert rows("The t–T box was set at 140 °C/200 Ma.")[:1] == [("T", 140.0, None, "°C")]


def test_labels_uncertainties_and_rates_are_not_the_quantity() -> None:
    """Numbers that name a scenario or a section, an uncertainty or error stated in the quantity's
    unit, and a rate of heating are not values of the quantity they sit beside."""
    assert rows("The MSWD-test measures the difference between Scenarios 1 and 2.") == []
    assert rows("The MSWD is defined in Sections 11 and 15.") == []
    assert rows("Scenario 1 is rejected in favour of Scenario 2 if MSWD > 1 + 2\u221a\ufe012/df.") == []
    assert rows("MSWD > 1 + 2√2/df (at a 95% confidence level, provided that df > 3 [2]).") == []
    assert rows("These dates have a fixed analytical uncertainty of 1 Ma for all samples.") == []
    assert rows("We find an absolute error of 1.1 Ma, equal to 2.2 σ.") == []
    assert rows("Samples were heated at rates of approximately 10°C min- 1.") == []
    assert rows("The rocks cooled at 5 °C/Myr since the Miocene.") == []
    # what stays: the quantity itself, beside its uncertainty or a rate
    assert rows("The sample gave an age of 101.1 Ma with an uncertainty of 1.1 Ma.") == [
        ("age", 101.1, None, "Ma")
    ]
    assert rows("Heating was stopped at 580 °C.") == [("T", 580.0, None, "°C")]
    assert rows("More specifically, if t < 3.7 Ga, then the correction applies.") == [
        ("age", 3.7, None, "Ga")
    ]
    assert rows("Use 0.28 for T>1050°C.") == [("T", 1050.0, None, "°C")]


def test_compound_words_units_and_formula_indices_are_no_samples() -> None:
    """A name found anywhere in a sentence has a capital and no lowercase word or unit for a part:
    "64-bit", "16-sample", "1547-grain", "10-km", "Ma-20", a word broken at a line end before a line
    number ("influ-34"), a formula's index ("2n-3") are no samples; after the word "sample" a symbol
    and a number ("samples N1 and N2"), letters that only look like elements ("sample OK16", O and
    K16, a blind set's miss) and a lowercase name ("sample ks-12") are."""
    from geo_assets.measurements.samples import sample_mentions

    for text in ("We use 64-bit floats.", "The 16-sample, 1547-grain dataset.", "Craters of 10-km size.",
                 "Cooling from 120 Ma-20 °C.", "The influ-34 ence of water.", "The 95 % percentile of χ22n-3.",
                 "The 36-Gy record.", "H2O-CO2 fluids", "The sample (CaO12) was lost."):  # fmt: skip
        assert sample_mentions(text) == [], text
    named = {
        "The CADs of samples N1 and N2 plot together.": ("N1", "N2"),
        "Sample ks-12 gives 410 Ma.": ("ks-12",),
        "The demagnetization of HUI47-B is shown.": ("HUI47-B",),
        "The values for KIL-1 and KIL-2 are 64-bit numbers.": ("KIL-1", "KIL-2"),
        "Samples 10017 and 15682 of the Apollo 11 and 15 missions.": ("10017", "15682"),
        # after the word, letters that could spell elements are a name unless they spell an oxide
        "The youngest Cretaceous sample (OK16) shows a peak at 130 Ma.": ("OK16",),
        "Carboniferous samples Kita06 and OK4 are bimodal.": ("Kita06", "OK4"),
    }
    for text, names in named.items():
        assert [m.names for m in sample_mentions(text)] == [names], text
    # a count or a number after the word "samples" is no sample's name
    for text in ("The cut-off discards 50% of the samples (10 out of 20).", "Sample 12 of 15 was lost.",
                 "The highest-grade sample (0.85% SnO2) has 5.16% Fe2O3."):  # fmt: skip
        assert sample_mentions(text) == [], text


def test_the_level_that_opens_a_bracket_of_statistics_is_the_uncertainty_s() -> None:
    """ "412.3 ± 2.1 Ma (2σ, MSWD = 1.2, n = 25)": the 2σ belongs to the ± before it, and the MSWD in
    the same bracket is still its own value; "(2σ)" alone as before."""
    found = extract_text_values("Zircons yield a concordia age of 412.3 ± 2.1 Ma (2σ, MSWD = 1.2, n = 25).")
    assert [(v.analyte, v.value, v.uncertainty, v.uncertainty_level) for v in found] == [
        ("age", 412.3, 2.1, "2σ"),
        ("MSWD", 1.2, None, ""),
    ]
    assert [v.uncertainty_level for v in extract_text_values("An age of 410 ± 4 Ma (2 SE; n = 12).")] == [
        "2SE"
    ]
    assert [v.uncertainty_level for v in extract_text_values("An age of 410 ± 4 Ma (2σ) was found.")] == [
        "2σ"
    ]


def test_an_initial_isotope_ratio_says_so() -> None:
    """An initial (age-corrected) ratio is another quantity than the measured one: "(87Sr/86Sr)i",
    "87Sr/86Sr(t)", "initial 87Sr/86Sr" carry the note "initial ratio", in text and tables, and the t
    of "(143Nd/144Nd)t" is no age symbol (its value was lost)."""
    from geo_assets.measurements.table_values import extract_table_values

    for text in ("The samples yield (87Sr/86Sr)i = 0.70412 ± 0.00002.", "Initial 87Sr/86Sr ratios are 0.7041.",
                 "87Sr/86Sr(t) values of 0.7041 are high.", "(143Nd/144Nd)t = 0.5123 for the basalts."):  # fmt: skip
        found = extract_text_values(text)
        assert [v.notes for v in found] == [["initial ratio"]] and found[0].unit == "ratio", text
    assert [v.notes for v in extract_text_values("Measured 87Sr/86Sr ratios are 0.7041.")] == [[]]
    table = [["Sample", "87Sr/86Sr", "(87Sr/86Sr)i"], ["A-1", "0.70412", "0.70398"]]
    assert [(v.analyte, v.notes) for v in extract_table_values(table)] == [
        ("87Sr/86Sr", []),
        ("87Sr/86Sr", ["initial ratio"]),
    ]


def test_an_epsilon_at_the_rock_s_age_is_no_present_day_one() -> None:
    """εNd(t) (at the rock's age) and εNd(0) (today) differ by the decay since t: both are stored as
    εNd, so the printed time goes to the notes, in text and tables, and to the export (before, both
    were a bare εNd and nothing told them apart)."""
    from geo_assets.measurements.table_values import extract_table_values
    from geo_rag_runtime.measurements import export_rows
    from geo_rag_runtime.models import Measurement

    text = (
        "Zircons yield εHf(t) of +5.1 to +9.3, initial εNd of 2.0, εNdi = 1.1 and present-day εNd(0) of −4.2."
    )
    assert [(v.analyte, v.notes) for v in extract_text_values(text)] == [
        ("εHf", ["initial value (t)"]),
        ("εNd", ["initial value (t)"]),
        ("εNd", ["initial value (t)"]),
        ("εNd", ["present-day value (0)"]),
    ]
    assert [v.notes for v in extract_text_values("The εNd of the basalt is +4.5.")] == [[]]
    across = [["Sample", "εNd(0)", "εNd(t)"], ["A-1", "-2.1", "1.5"]]
    down = [
        ["", "A-1", "A-2"],
        ["143Nd/144Nd", "0.5126", "0.5127"],
        ["εNd(T)", "1.5", "2.0"],
        ["εNd(0)", "-1.0", "-2.0"],
    ]
    assert [(v.sample, v.notes) for v in extract_table_values(across) + extract_table_values(down)] == [
        ("A-1", ["present-day value (0)"]),
        ("A-1", ["initial value (t)"]),
        ("A-1", []),
        ("A-2", []),
        ("A-1", ["initial value (t)"]),
        ("A-2", ["initial value (t)"]),
        ("A-1", ["present-day value (0)"]),
        ("A-2", ["present-day value (0)"]),
    ]
    row = Measurement(measurement_id="m", paper_id="p", source_file="p.pdf", source_type="table", analyte="εNd", value=1.5,
                      unit="epsilon", printed="1.5", notes=["initial value (t)", "unit: % (caption)"])  # fmt: skip
    assert export_rows([row])[0]["notes"] == "initial value (t); unit: % (caption)"


def test_mineral_end_members_and_a_total_column() -> None:
    """Mineral chemistry: end-member contents in mol% ("Fo85–91", "An content of 45–70 mol.%",
    "Fo = 88.2 ± 0.3"), a fraction noted as one ("Fo=0.95"); "An" and "Or" in prose are no
    end-members. In a microprobe table a "Fo" column is in mol% and a "Total" column is a quantity of
    its own, not the uncertainty of the oxide before it (MgO had been stored as 48.9 ± 99.6)."""
    from geo_assets.measurements.table_values import extract_table_values

    assert rows("Olivine cores are Fo85–91.") == [("Fo", 85.0, 91.0, "mol%")]
    assert rows("An content of plagioclase ranges from 45 to 70 mol.%.") == [("An", 45.0, 70.0, "mol%")]
    assert [(v.value, v.uncertainty) for v in extract_text_values("Olivine Fo = 88.2 ± 0.3 was used.")] == [
        (88.2, 0.3)
    ]
    fraction = extract_text_values("The KD is calculated for Fo=0.95 first.")
    assert [(v.unit, v.notes) for v in fraction] == [("", ["fraction (0–1), not mol%"])]
    assert rows("An age of 410 Ma.") == [("age", 410.0, None, "Ma")] and rows("Or 20 iterations later.") == []
    table = [["Sample", "SiO2", "MgO", "Total", "Fo"], ["A-1", "40.1", "48.9", "99.6", "89.5"]]
    read = {
        v.analyte: (v.value, v.unit, v.uncertainty) for v in extract_table_values(table, "Olivine (wt.%)")
    }
    assert read == {"SiO2": (40.1, "wt.%", None), "MgO": (48.9, "wt.%", None), "Total": (99.6, "", None),
                    "Fo": (89.5, "mol%", None)}  # fmt: skip


def test_total_iron_is_never_ferric_iron() -> None:
    """ "Fe2O3(T)", "Fe2O3tot", "FeOtot" are total iron, stored as "Fe2O3T" / "FeOT"; before, the
    first was read as ferric iron "Fe2O3" and "FeOtot" was no oxide at all. In tables as in text."""
    from geo_assets.measurements.table_values import extract_table_values

    text = "The basalts have Fe2O3(T) of 11.2 wt.%, FeOtot of 9.1 wt.% and Fe2O3 of 2.0 wt.%."
    assert rows(text) == [
        ("Fe2O3T", 11.2, None, "wt.%"),
        ("FeOT", 9.1, None, "wt.%"),
        ("Fe2O3", 2.0, None, "wt.%"),
    ]
    table = [["Sample", "Fe2O3(T)", "Fe2O3tot", "FeO*", "Fe2O3"], ["A-1", "11.2", "11.0", "9.0", "2.0"]]
    read = [(v.analyte, v.unit) for v in extract_table_values(table, "Table 1. Major elements (wt.%)")]
    assert read == [("Fe2O3T", "wt.%"), ("Fe2O3T", "wt.%"), ("FeO*", "wt.%"), ("Fe2O3", "wt.%")]


def test_instruments_and_software_are_no_samples() -> None:
    """Names of instruments and software look like sample names ("SHRIMP-1", "Squid-2"); once taken
    for samples they were carried to every value of the section that followed."""
    from geo_assets.measurements.samples import sample_mentions

    for text in (
        "The data were acquired on a variety of instruments (including SHRIMP-1, SHRIMP-2, and SHRIMP-RG).",
        "They were processed on different data reduction software (including Squid-1, Squid-2, and Prawn).",
        "Isotopes were measured on a Neptune-Plus spectrometer at 0.1 V.",
        "We used IsoplotR-4 software for the ages.",
    ):
        assert sample_mentions(text) == [], text
    # a sample after an instrument's name, or one named with the word, stays
    assert [m.names for m in sample_mentions("The Neptune spectrometer measured KIL-1 and KIL-2.")] == [
        ("KIL-1", "KIL-2")
    ]
    assert [m.names for m in sample_mentions("The software code of sample ZG-12 is public.")] == [("ZG-12",)]


def test_a_site_column_names_the_sample_and_a_blank_cell_continues_the_row_above() -> None:
    """A palaeomagnetic table's "Code" column of site codes gives the rows their sample; a row whose
    code cell is blank ("R TC" under "BD03") is the same site's."""
    from geo_assets.measurements.table_values import extract_table_values

    rows_ = [
        ["Code", "Component", "D", "I"],
        ["BD03", "R", "144.25", "21.58"],
        ["", "R TC", "123.98", "15.24"],
        ["JaIb5", "Py", "200.1", "-30.2"],
    ]
    found = {(v.row, v.column): v for v in extract_table_values(rows_, caption="Table 1. Site means.")}
    assert found["BD03 / R", "D"].sample == "BD03"
    assert found["R TC", "I"].sample == "BD03"
    assert "sample: the row above's (its sample cell is blank)" in found["R TC", "I"].notes
    assert found["JaIb5 / Py", "D"].sample == "JaIb5"


def test_a_caption_that_says_the_values_are_percentages_gives_them_the_unit() -> None:
    """ "All discordance values are expressed as percentages, except for dt, which is expressed in
    Myr": the columns named by their own words take "%", with a note, and dt its own unit; a caption
    whose uncertainties are in % gives the values no unit."""
    from geo_assets.measurements.table_values import extract_table_values

    rows_ = [["dr", "dt", "dsk"], ["10", "97", "0.62"], ["20", "190", "1.4"], ["30", "320", "2.3"]]
    caption = ("Conversion table for the discordance filters. All discordance values are expressed as "
               "percentages, except for dt, which is expressed in Myr.")  # fmt: skip
    found = {(v.row, v.column): v for v in extract_table_values(rows_, caption=caption)}
    assert found["10", "dsk"].unit == "%" and "unit: % (caption)" in found["10", "dsk"].notes
    assert found["10", "dt"].unit == "Ma"
    plain = extract_table_values(rows_, caption="Discordance filters; errors are in % (2σ).")
    assert {v.unit for v in plain if v.column == "dsk"} == {""}
    modal = [["Mineral", "Whole rock", "Zircon"], ["Feldspar", "14.1", "2.5"], ["Garnet", "2.4", "20"],
             ["Quartz", "55", "12"]]  # fmt: skip
    abundances = extract_table_values(modal, caption="Relative Abundances (in Area Percent) of the Minerals")
    assert {v.unit for v in abundances} == {"%"}


def test_store_replaces_filters_and_retires_rows(zhu_rows: list[Measurement], tmp_path: Path) -> None:
    from geo_rag_runtime.settings import Settings
    from geo_rag_runtime.stores.opening import open_documents

    store = open_documents(Settings(home=tmp_path))
    paper_id = zhu_rows[0].paper_id
    store.replace_measurements(paper_id, zhu_rows)
    assert len(store.find_measurements(paper_id=paper_id)) == len(zhu_rows)
    ages = store.find_measurements(analyte="age", minimum=400, maximum=420)
    assert ages and all(r.analyte == "age" and 400 <= (r.value or 0) <= 420 for r in ages)
    hostile = store.find_measurements(analyte='age"}); db.dropDatabase(); ({"', paper_id="$ne")
    assert hostile == []  # filter values are parameters: no match, nothing dropped
    assert store.find_measurements(paper_id=paper_id)
    kept = zhu_rows[:3]
    assert store.replace_measurements(paper_id, kept)["deleted_stale"] == len(zhu_rows) - 3
    assert store.delete_paper(paper_id)["measurements"] == 3
    assert store.find_measurements() == []
    store.close()


def test_cli_prints_and_exports_rows(
    zhu_rows: list[Measurement],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    from geo_rag_runtime.cli import main
    from geo_rag_runtime.models import Paper
    from geo_rag_runtime.settings import Settings
    from geo_rag_runtime.stores.opening import open_documents

    monkeypatch.setenv("GEO_RAG_HOME", str(tmp_path))
    store = open_documents(Settings(home=tmp_path))
    paper_id = zhu_rows[0].paper_id
    store.upsert_paper(Paper(paper_id=paper_id, source_file=ZHU.name, title="Zhu 2024", sha256="0" * 64))
    store.replace_measurements(paper_id, zhu_rows)
    store.close()

    assert main(["measurements", "--analyte", "sio2", "--paper", ZHU.name]) == 0
    table = capsys.readouterr().out
    assert "SiO2" in table and f"{ZHU.name}, p. " in table and "value(s)" in table
    assert main(["measurements", "--analyte", "age", "--min", "400", "--max", "420", "--format", "csv"]) == 0
    records = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    assert records and {r["analyte"] for r in records} == {"age"} and all(r["citation"] for r in records)
    assert main(["measurements", "--format", "parquet", "--out", str(tmp_path / "m.parquet")]) == 0
    import pandas as pd

    assert len(pd.read_parquet(tmp_path / "m.parquet")) == len(zhu_rows)
    assert main(["measurements", "--paper", "missing.pdf"]) == 2
    assert "no ingested paper" in capsys.readouterr().err
    assert main(["measurements", "--format", "json", "--limit", "2"]) == 0
    assert len(json.loads(capsys.readouterr().out)) == 2
    # a sample as any printing of it, and a piece of a rock unit
    assert main(["measurements", "--sample", "19mat 169", "--format", "json"]) == 0
    dated = json.loads(capsys.readouterr().out)
    assert dated and all("19MAT-169" in r["sample"].split("; ") for r in dated)
    assert (
        main(["measurements", "--rock-unit", "MUKHAR formation", "--analyte", "SiO2", "--format", "json"])
        == 0
    )
    basalts = json.loads(capsys.readouterr().out)
    assert [r["rock_unit"] for r in basalts] == ["basalt rocks from the Mukhar formation"]
    assert main(["measurements", "--sample", " "]) == 2


def test_http_measurements_filters_as_parameters(zhu_rows: list[Measurement], tmp_path: Path) -> None:
    from fastapi.testclient import TestClient

    from geo_rag_runtime.server import create_app
    from geo_rag_runtime.settings import Settings
    from geo_rag_runtime.stores.opening import open_documents

    settings = Settings(home=tmp_path, api_token="secret")
    store = open_documents(settings)
    store.replace_measurements(zhu_rows[0].paper_id, zhu_rows)
    store.close()
    with TestClient(create_app(settings)) as client:
        assert client.get("/measurements").status_code == 401
        auth = {"Authorization": "Bearer secret"}
        body = client.get(
            "/measurements", params={"analyte": "age", "min": 400, "max": 420}, headers=auth
        ).json()
        assert body and all(r["analyte"] == "age" and 400 <= r["value"] <= 420 for r in body)
        assert all(r["citation"].startswith(ZHU.name) for r in body)
        csv_text = client.get("/measurements", params={"format": "csv", "limit": 3}, headers=auth).text
        assert csv_text.splitlines()[0].startswith("sample,analyte,value") and len(csv_text.splitlines()) == 4
        assert client.get("/measurements", params={"paper": "nope.pdf"}, headers=auth).status_code == 422
        assert client.get("/measurements", params={"limit": -1}, headers=auth).status_code == 422
        of_unit = client.get("/measurements", params={"rock_unit": "ulgey", "limit": 2}, headers=auth).json()
        assert len(of_unit) == 2 and all("Ulgey" in r["rock_unit"] for r in of_unit)
        assert client.get("/measurements", params={"sample": "x" * 201}, headers=auth).status_code == 422


def test_the_export_leaves_out_papers_being_rebuilt_or_retired(
    zhu_rows: list[Measurement], tmp_path: Path
) -> None:
    """What questions leave out, the export leaves out too: a paper an ingest is rewriting (its rows
    may be half replaced) and a retired paper."""
    from geo_rag_runtime import measurements
    from geo_rag_runtime.errors import QueryError
    from geo_rag_runtime.models import Paper
    from geo_rag_runtime.settings import Settings
    from geo_rag_runtime.stores import publication
    from geo_rag_runtime.stores.opening import open_documents

    settings = Settings(home=tmp_path)
    store = open_documents(settings)
    ids = ["pzhu", "pcopy", "pthird"]
    for paper_id in ids:  # three papers reporting the same values
        name = f"{paper_id}.pdf"
        store.upsert_paper(Paper(paper_id=paper_id, source_file=name, title=paper_id, sha256=paper_id * 8))
        rows = [
            r.model_copy(update={"paper_id": paper_id, "measurement_id": f"{paper_id}-{r.measurement_id}"})
            for r in zhu_rows
        ]
        store.replace_measurements(paper_id, rows)
    store.close()
    assert {r.paper_id for r in measurements.find(settings)} == set(ids)

    publication.mark_building(settings.home_dir, "pzhu", "run-1")  # `chunks` of a re-ingest
    publication.mark_retired(
        settings.home_dir, "pcopy", partition_key="pcopy.pdf", source_path="", reason="t"
    )
    rows = measurements.find(settings, analyte="age")
    assert rows and {r.paper_id for r in rows} == {"pthird"}
    assert len(measurements.find(settings)) == len(zhu_rows)
    with pytest.raises(QueryError, match="being rebuilt"):
        measurements.find(settings, paper="pzhu.pdf")
    with pytest.raises(QueryError, match="retired"):
        measurements.find(settings, paper="pcopy")

    publication.mark_published(settings.home_dir, "pzhu")
    assert {r.paper_id for r in measurements.find(settings)} == {"pzhu", "pthird"}


# --------------------------------------------------------------------------- tables


def test_grobid_table_cells_are_read_and_searchable(grobid_samples: Path) -> None:
    """GROBID's <table><row><cell> reaches paper_json, the cleaned text and the chunks."""
    from geo_assets.ingest.chunking import chunk_paper
    from geo_assets.ingest.cleaned_paper import clean_paper
    from geo_assets.ingest.tei import tei_to_paper
    from geo_rag_runtime.settings import Settings
    from geo_rag_runtime.text.tokenizer import get_token_counter

    data = (grobid_samples / "2020.acl-main.207.grobid-0.6.1.tei.xml").read_bytes()
    paper = tei_to_paper(data, paper_id="p1", source_file="specter.pdf", sha256="0" * 64)
    tables = [c for c in paper.captions if c.kind == "table" and c.rows]
    assert len(tables) == 1
    assert tables[0].rows == [
        ["Training signal", "CLS USR CITE REC All"],
        ["SPECTER", "84.2 88.4 91.5 36.9 80.0"],
    ]
    cleaned = clean_paper(paper)
    block = next(s for s in cleaned.sections if s.kind == "tables")
    assert "SPECTER | 84.2 88.4 91.5 36.9 80.0" in block.text
    assert cleaned.text[block.char_start : block.char_end] == block.text
    chunks = chunk_paper(cleaned, get_token_counter(Settings()), max_tokens=512, overlap=100)
    assert any("SPECTER | 84.2" in c.text for c in chunks)


def test_table_headers_name_analytes_units_and_uncertainties() -> None:
    from geo_assets.measurements.table_values import extract_table_values

    # as printed in McNab & Ball (2023) Table 3 and a Zhu et al. (2024)-style data table
    rows = [
        ["", "𝑇𝑝 (°C)", "𝑇𝑒𝑥 (°C)", "Figure"],
        ["All Data", "1555", "153", "S6A"],
        ["Hawai‘i", "1558 ± 22", "156", "S6D"],
    ]
    found = [
        (v.analyte, v.value, v.unit, v.uncertainty, v.row) for v in extract_table_values(rows, "Table 3")
    ]
    assert found == [
        ("Tp", 1555, "°C", None, "All Data"),
        ("Tex", 153, "°C", None, "All Data"),
        ("Tp", 1558, "°C", 22, "Hawai‘i"),
        ("Tex", 156, "°C", None, "Hawai‘i"),
    ]
    rows = [
        ["Sample", "SiO2", "87Sr/86Sr", "2σ", "εNd(t)", "Sr (ppm)", "t [Ma]", "s[t]"],
        ["19MAT-1", "48.21a", "0.70352", "0.00001", "+6.3", "1,234", "410", "4"],
        ["19MAT-2", "b.d.l.", "−", "", "n.d.", "<0.5", "415", "4"],
    ]
    values = extract_table_values(rows, "Table 2. Major elements (wt.%) and Sr–Nd isotopes")
    by = {(v.row, v.analyte): v for v in values}
    assert (by["19MAT-1", "SiO2"].value, by["19MAT-1", "SiO2"].unit) == (
        48.21,
        "wt.%",
    )  # unit from the caption
    assert by["19MAT-1", "SiO2"].notes == ["footnote mark 'a'"]
    sr = by["19MAT-1", "87Sr/86Sr"]
    assert (sr.unit, sr.uncertainty, sr.uncertainty_level) == ("ratio", 0.00001, "2σ")
    assert (by["19MAT-1", "εNd"].value, by["19MAT-1", "εNd"].unit) == (6.3, "epsilon")
    assert (by["19MAT-1", "Sr"].value, by["19MAT-1", "Sr"].unit) == (1234, "ppm")
    assert (by["19MAT-1", "age"].value, by["19MAT-1", "age"].uncertainty) == (410, 4)
    # below detection and not determined are flagged nulls, never zeros
    assert (by["19MAT-2", "SiO2"].value, by["19MAT-2", "SiO2"].qualifier) == (None, "bdl")
    assert (by["19MAT-2", "εNd"].value, by["19MAT-2", "εNd"].qualifier) == (None, "nd")
    assert (by["19MAT-2", "Sr"].value, by["19MAT-2", "Sr"].qualifier) == (0.5, "<")
    # a label column headed "Sample" names the samples; the region column above names none
    assert {v.sample for v in values} == {"19MAT-1", "19MAT-2"}
    assert {v.sample for v in extract_table_values([["Region", "Tp (°C)"], ["Iceland", "1450"]])} == {""}


def test_table_rows_become_measurements_located_in_the_text() -> None:
    from geo_assets.ingest.chunking import chunk_paper
    from geo_assets.ingest.cleaned_paper import clean_paper
    from geo_assets.measurements.extract import paper_measurements
    from geo_rag_runtime.models import Caption, Paper, Section
    from geo_rag_runtime.settings import Settings
    from geo_rag_runtime.text.tokenizer import get_token_counter

    table = Caption(
        kind="table", label="Table 2", text="Whole-rock data (wt.%).", page=4,
        rows=[["Sample", "SiO2", "MgO"], ["B-1", "48.2", "6.10"], ["B-2", "50.1", "5.02"]],
    )  # fmt: skip
    paper = Paper(
        paper_id="p9", source_file="b.pdf", title="Basalts", sha256="0" * 64,
        sections=[Section(heading="Results", paragraphs=["The basalts have SiO2 of 48.2–50.1 wt.% (Table 2)."])],
        captions=[table],
    )  # fmt: skip
    cleaned = clean_paper(paper)
    chunks = chunk_paper(cleaned, get_token_counter(Settings()), max_tokens=512, overlap=100)
    found = paper_measurements(cleaned, chunks, paper.captions)
    cells = [r for r in found if r.source_type == "table"]
    assert {(r.row, r.analyte, r.value, r.unit) for r in cells} == {
        ("B-1", "SiO2", 48.2, "wt.%"), ("B-1", "MgO", 6.1, "wt.%"),
        ("B-2", "SiO2", 50.1, "wt.%"), ("B-2", "MgO", 5.02, "wt.%"),
    }  # fmt: skip
    assert all(r.table_label == "Table 2" and r.page == 4 and r.chunk_id for r in cells)
    assert all(cleaned.text[r.char_start : r.char_end].startswith("Table 2.") for r in cells)
    text_rows = [r for r in found if r.source_type == "text"]
    assert [(r.analyte, r.value, r.value_max) for r in text_rows] == [("SiO2", 48.2, 50.1)]


def test_a_table_row_takes_the_sample_the_paper_names_for_it() -> None:
    """A row label that is, or is a spot of, a sample the text names takes it ("GJ1-2-2" of "GJ-1");
    a table whose caption names one sample gives it to rows without one; a label that names no
    known sample ("Garnet", "3") is never guessed to be one, and a caption naming two samples gives none."""
    from geo_assets.ingest.cleaned_paper import clean_paper
    from geo_assets.measurements.extract import paper_measurements
    from geo_assets.measurements.samples import sample_for_label
    from geo_rag_runtime.models import Caption, Paper, Section

    known = ["GJ-1", "LGC-1", "19MAT-169", "91500", "01"]
    assert sample_for_label("GJ1-2-2", known) == "GJ-1"
    assert sample_for_label("LGC1_2_4", known) == "LGC-1"
    assert sample_for_label("19MAT-169 z26", known) == "19MAT-169"
    assert sample_for_label("91500-1", known) == "91500"
    for label in ("GJ12", "Garnet", "3", "01-3", "BCR-2"):  # no boundary, no name, too short to trust
        assert sample_for_label(label, known) == "", label

    spots = Caption(
        kind="table", label="Table 2", text="U–Th–He ages of the reference zircons.", page=3,
        rows=[["Spot", "t (Ma)"], ["GJ1-2-2", "480"], ["LGC1-2-4", "476.4"], ["3", "450"]],
    )  # fmt: skip
    phases = Caption(
        kind="table", label="Table 1", text="Modal composition of sample D21G-2 (%).", page=2,
        rows=[["Phase", "Zircon"], ["Garnet", "20"], ["Rutile", "5"]],
    )  # fmt: skip
    two = Caption(
        kind="table", label="Table 3", text="Ages of samples KIL-1 and KIL-2.", page=4,
        rows=[["Phase", "Age (Ma)"], ["Zircon", "410"]],
    )  # fmt: skip
    paper = Paper(
        paper_id="p8", source_file="s.pdf", title="Spots", sha256="0" * 64,
        sections=[Section(heading="Methods", paragraphs=[
            "The reference zircons GJ-1 and LGC-1 were analysed with the unknowns (Table 2)."
        ])],
        captions=[spots, phases, two],
    )  # fmt: skip
    cleaned = clean_paper(paper)
    cells = {(r.table_label, r.row): r for r in paper_measurements(cleaned, [], paper.captions)
             if r.source_type == "table"}  # fmt: skip
    assert cells["Table 2", "GJ1-2-2"].sample == "GJ-1"
    assert cells["Table 2", "LGC1-2-4"].sample == "LGC-1"
    assert "sample: the row label names it" in cells["Table 2", "GJ1-2-2"].notes
    assert cells["Table 2", "3"].sample == ""
    assert cells["Table 1", "Garnet"].sample == cells["Table 1", "Rutile"].sample == "D21G-2"
    assert "sample: the one the caption names" in cells["Table 1", "Garnet"].notes
    assert cells["Table 3", "Zircon"].sample == ""


def test_a_table_row_s_material_from_its_rock_type_cell_or_the_caption() -> None:
    """What a table's rows were measured on: the "Rock type" (or "Lithology", "Mineral", "Phase") cell
    of the row or, across the top, of the sample's column, canonical as in running text; else the one
    mineral or rock the caption names ("… of the reference zircons"); else nothing."""
    from geo_assets.ingest.cleaned_paper import clean_paper
    from geo_assets.measurements.extract import paper_measurements
    from geo_rag_runtime.models import Caption, Paper, Section

    down = Caption(kind="table", label="Table 1", text="Major elements (wt.%) of the Ulgey suite.", page=2,
                   rows=[["Sample", "Rock type", "SiO2", "MgO"], ["19MAT-01", "Basalt", "48.2", "7.1"],
                         ["19MAT-05", "rhyolite", "72.3", "0.4"]])  # fmt: skip
    across = Caption(kind="table", label="Table 2", text="Trace elements (ppm).", page=3,
                     rows=[["Sample", "19MAT-01", "19MAT-05"], ["Lithology", "basalt", "rhyolite"],
                           ["Rb", "12", "140"], ["Sr", "310", "45"], ["La", "8.1", "31.2"]])  # fmt: skip
    spots = Caption(kind="table", label="Table 3", text="U–Th–He ages of the reference zircons.", page=4,
                    rows=[["Spot", "t (Ma)"], ["GJ1-2-2", "480"], ["LGC1-2-4", "476.4"]])  # fmt: skip
    mixed = Caption(kind="table", label="Table 4", text="Ages of zircon and apatite.", page=5,
                    rows=[["Spot", "t (Ma)"], ["a-1", "480"], ["b-2", "476.4"]])  # fmt: skip
    paper = Paper(paper_id="p9", source_file="m.pdf", title="M", sha256="0" * 64,
                  sections=[Section(heading="Results", paragraphs=["Two samples were analysed."])],
                  captions=[down, across, spots, mixed])  # fmt: skip
    found = {(r.table_label, r.sample or r.row, r.analyte): r.material
             for r in paper_measurements(clean_paper(paper), [], paper.captions) if r.source_type == "table"}  # fmt: skip
    assert (
        found["Table 1", "19MAT-01", "SiO2"] == "basalt" and found["Table 1", "19MAT-05", "MgO"] == "rhyolite"
    )
    assert found["Table 2", "19MAT-01", "Rb"] == "basalt" and found["Table 2", "19MAT-05", "La"] == "rhyolite"
    assert found["Table 3", "GJ1-2-2", "age"] == "zircon"
    assert found["Table 4", "a-1", "age"] == ""  # two minerals named: which one is not said


def test_a_caption_gives_columns_their_units_and_lends_them_to_a_later_table() -> None:
    """ "U, s[U] … have units of parts per million; t and s[t] are in millions of years": the columns
    read as "U [ppm]" and "t [Ma]" (an age); a unit outside the vocabulary is the column's unit in
    the caption's words, not a ratio; a table whose caption says it follows Table 1's convention
    takes its units."""
    from geo_assets.ingest.cleaned_paper import clean_paper
    from geo_assets.measurements.extract import paper_measurements
    from geo_assets.measurements.table_values import caption_column_units
    from geo_rag_runtime.models import Caption, Paper, Section

    defining = ("Analytical results for the first shard. Columns x and y are stage coordinates (in micrometres); "
                "4He/3He has units of millivolts per hertz; U, s[U], Th, and s[Th] have units of parts per "
                "million; and t and s[t] are in millions of years.")  # fmt: skip
    assert caption_column_units(defining) == {
        "4He/3He": "millivolts per hertz", "U": "ppm", "s[U]": "ppm", "Th": "ppm", "s[Th]": "ppm",
        "t": "Ma", "s[t]": "Ma",
    }  # fmt: skip
    header = ["", "x", "4He/3He", "U", "s[U]", "t", "s[t]"]
    first = Caption(kind="table", label="Table 1", text=defining, page=5,
                    rows=[header, ["GJ1-1-3", "77606", "3.59", "310", "2", "476.4", "5.7"]])  # fmt: skip
    second = Caption(kind="table", label="Table 2", page=6,
                     text="Results for the second shard. Row and column names follow the same convention as Table 1.",
                     rows=[header, ["GJ1-2-3", "83511", "4.10", "300", "2", "480.0", "6.1"]])  # fmt: skip
    paper = Paper(
        paper_id="p7", source_file="u.pdf", title="He", sha256="0" * 64,
        sections=[Section(heading="Methods", paragraphs=["Shards of GJ-1 were ablated."])],
        captions=[first, second],
    )  # fmt: skip
    cells = {(r.table_label, r.column): r for r in paper_measurements(clean_paper(paper), [], paper.captions)
             if r.source_type == "table"}  # fmt: skip
    for table in ("Table 1", "Table 2"):
        assert (cells[table, "U"].analyte, cells[table, "U"].unit) == ("U", "ppm")
        age = cells[table, "t"]
        assert (age.analyte, age.unit, age.uncertainty) in {("age", "Ma", 5.7), ("age", "Ma", 6.1)}
        assert (
            cells[table, "4He/3He"].unit == "millivolts per hertz"
            and "unit: millivolts per hertz (caption)" in cells[table, "4He/3He"].notes
        )
        assert (table, "x") not in cells  # a coordinate is no measurement
        assert cells[table, "U"].sample == "GJ-1"


def test_a_u_pb_table_over_three_pages_keeps_every_analysis_with_its_sample() -> None:
    """A data table as U–Pb papers print it: "Pluton | Sample | Analysis Number" label columns, a ±2s
    column under a group header, continued on later pages ("Table 1. (continued)") with the header
    repeated. Every analysis is a row of its own (the label columns joined), its sample from the
    column headed "Sample" (typographic hyphens made ASCII), and the pages' rows are all kept."""
    from geo_assets.ingest.cleaned_paper import clean_paper
    from geo_assets.measurements.extract import paper_measurements
    from geo_rag_runtime.models import Caption, Paper, Section

    header = [["", "", "", "", "Isotopic", "Ratios and"], ["", "", "Analysis", "", "", ""],
              ["Pluton", "Sample", "Number", "206Pb/238U", "±2s", "207Pb/235U"]]  # fmt: skip
    pages = [
        [["Ponferrada", "LD\u20101", "oc13a11", "0.0454", "1.90", "0.3211"],
         ["Ponferrada", "LD\u20101", "oc12b13", "0.0456", "1.44", "0.3275"]],
        [["Ciperez", "LD\u20107", "oc23a08", "0.0485", "1.22", "0.3453"]],
        [["Orense", "LD\u201015", "oc19h16", "0.0473", "1.86", "0.3562"]],
    ]  # fmt: skip
    captions = [
        Caption(
            kind="table",
            label="Table 1",
            page=5 + k,
            rows=header + body,
            text="LA-ICP-MS U-Pb results" if k == 0 else "(continued)",
        )  # fmt: skip
        for k, body in enumerate(pages)
    ]
    # a last page that does not repeat the header borrows the first page's
    captions.append(Caption(kind="table", label="Table 1", page=8, text="Table 1. Continued.",
                            rows=[["El Alamo", "LD\u201020", "oc21d11", "0.0486", "2.18", "0.3497"],
                                  ["El Alamo", "LD\u201020", "oc21d09", "0.0493", "2.42", "0.3501"]]))  # fmt: skip
    paper = Paper(
        paper_id="p6", source_file="t.pdf", title="Plutons", sha256="0" * 64,
        sections=[Section(heading="Results", paragraphs=["Zircons were dated (Table 1)."])], captions=captions,
    )  # fmt: skip
    cells = [
        r for r in paper_measurements(clean_paper(paper), [], paper.captions) if r.source_type == "table"
    ]
    ratios = {(r.row, r.sample, r.value, r.uncertainty) for r in cells if r.analyte == "206Pb/238U"}
    assert ratios == {
        ("Ponferrada / LD\u20101 / oc13a11", "LD-1", 0.0454, 1.9),
        ("Ponferrada / LD\u20101 / oc12b13", "LD-1", 0.0456, 1.44),
        ("Ciperez / LD\u20107 / oc23a08", "LD-7", 0.0485, 1.22),
        ("Orense / LD\u201015 / oc19h16", "LD-15", 0.0473, 1.86),
        ("El Alamo / LD\u201020 / oc21d11", "LD-20", 0.0486, 2.18),
        ("El Alamo / LD\u201020 / oc21d09", "LD-20", 0.0493, 2.42),
    }
    assert len({r.measurement_id for r in cells}) == len(cells) == 12
    assert {r.page for r in cells} == {5, 6, 7, 8}
    assert not any(r.analyte in {"Sample", "Number", "Analysis Number"} for r in cells)


def test_a_table_split_over_pages_takes_the_footnotes_under_its_last_page() -> None:
    """A whole-rock table over two pages prints "Trace elements in ppm" once, under its last page:
    the note holds for the first page's rows too."""
    from geo_assets.ingest.cleaned_paper import clean_paper
    from geo_assets.measurements.extract import paper_measurements
    from geo_rag_runtime.models import Caption, Paper, Section

    head = [["Sample", "KR-1", "KR-2"]]
    captions = [
        Caption(kind="table", label="Table 1", page=4, text="Analyses of the Kerrow granites",
                rows=[*head, ["Rb", "250", "310"], ["Sr", "45", "38"], ["Ba", "120", "95"]]),
        Caption(kind="table", label="Table 1", page=5, text="Table 1. (continued)", note="Trace elements in ppm.",
                rows=[*head, ["La", "41", "36"], ["Ce", "88", "79"], ["Nd", "35", "30"]]),
    ]  # fmt: skip
    paper = Paper(
        paper_id="p7", source_file="t.pdf", title="Granites", sha256="0" * 64,
        sections=[Section(heading="Results", paragraphs=["See Table 1."])], captions=captions,
    )  # fmt: skip
    units = {
        (r.page, r.analyte, r.unit)
        for r in paper_measurements(clean_paper(paper), [], paper.captions)
        if r.source_type == "table" and r.sample == "KR-1"
    }
    assert units == {(4, "Rb", "ppm"), (4, "Sr", "ppm"), (4, "Ba", "ppm"), (5, "La", "ppm"), (5, "Ce", "ppm"),
                     (5, "Nd", "ppm")}  # fmt: skip


def test_embedded_parser_reads_a_real_unruled_table(tmp_path: Path) -> None:
    """McNab & Ball (2023) Table 3 (a sample paper): cells under the caption, in the TEI and as rows."""
    from geo_assets.ingest.pdf import pdf_to_tei
    from geo_assets.ingest.tei import tei_to_paper

    pdf = REPO / "data" / "papers" / "McNabBall2023_Volcanica_meltPT_CCBY.pdf"
    paper = tei_to_paper(pdf_to_tei(pdf), paper_id="p", source_file=pdf.name, sha256="0" * 64)
    table = next(c for c in paper.captions if c.label == "Table 3")
    assert table.page == 9 and table.rows[0][1:3] == ["𝑇𝑝 (°C)", "𝑇𝑒𝑥 (°C)"]
    shield = next(r for r in table.rows if r[0] == "Shield")
    assert shield[1:3] == ["1556+20 −25", "154"]  # the asymmetric uncertainty stays with its value
    from geo_assets.measurements.table_values import extract_table_values

    values = {(v.row, v.analyte): v for v in extract_table_values(table.rows, table.text)}
    assert (values["Shield", "Tp"].value, values["Shield", "Tp"].unit) == (1556, "°C")
    assert values["Shield", "Tp"].notes == ["asymmetric uncertainty +20/-25"]
    assert (values["Shield", "Tex"].value, values["Hawai‘i", "Tp"].uncertainty) == (154, 22)


def test_a_table_that_breaks_the_readers_fails_no_paper(monkeypatch: pytest.MonkeyPatch) -> None:
    """A table the cell reader or the value reader cannot handle loses its cells, not the paper."""
    import importlib

    from geo_assets.ingest.pdf import pdf_to_tei
    from geo_assets.ingest.tei import tei_to_paper
    from geo_assets.measurements import extract as extract_module

    def broken(*args: object, **kwargs: object) -> list[object]:
        raise ValueError("unreadable grid")

    analyse_module = importlib.import_module(
        "geo_assets.ingest.pdf.analyse"
    )  # the package exports the function
    monkeypatch.setattr(analyse_module, "page_tables", broken)
    monkeypatch.setattr(analyse_module, "page_word_tables", broken)
    pdf = REPO / "data" / "papers" / "McNabBall2023_Volcanica_meltPT_CCBY.pdf"
    paper = tei_to_paper(pdf_to_tei(pdf), paper_id="p", source_file=pdf.name, sha256="0" * 64)
    table = next(c for c in paper.captions if c.label == "Table 3")
    assert table.rows == [] and table.text  # the caption stays

    from geo_assets.ingest.chunking import chunk_paper
    from geo_assets.ingest.cleaned_paper import clean_paper
    from geo_rag_runtime.models import Caption
    from geo_rag_runtime.settings import Settings
    from geo_rag_runtime.text.tokenizer import get_token_counter

    paper.captions.append(Caption(kind="table", label="Table 9", text="x", rows=[["a", "SiO2"], ["b", "1"]]))
    cleaned = clean_paper(paper)
    chunks = chunk_paper(cleaned, get_token_counter(Settings()), max_tokens=512, overlap=100)
    monkeypatch.setattr(extract_module, "extract_table_values", broken)
    rows = extract_module.paper_measurements(cleaned, chunks, paper.captions)
    assert rows and all(r.source_type == "text" for r in rows)


def test_cells_under_a_repeated_header_are_not_kept_and_the_log_says_so(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """ "206Pb/238U" printed over the ratios and again over the ages (under group headers the reader
    does not keep): the second column's cells would share the first one's key and be stored as
    ratios, so they are not kept, and a warning counts them."""
    from geo_assets.ingest.cleaned_paper import clean_paper
    from geo_assets.measurements.extract import paper_measurements
    from geo_rag_runtime.models import Caption, Paper, Section

    table = Caption(kind="table", label="Table 1", page=2, text="U-Pb results",
                    rows=[["Sample", "206Pb/238U", "206Pb/238U"], ["LD-1", "0.0454", "286"], ["LD-2", "0.0469", "296"]])  # fmt: skip
    paper = Paper(paper_id="p5", source_file="r.pdf", title="R", sha256="0" * 64,
                  sections=[Section(heading="Results", paragraphs=["Zircons were dated."])], captions=[table])  # fmt: skip
    with caplog.at_level("WARNING"):
        cells = [
            r for r in paper_measurements(clean_paper(paper), [], paper.captions) if r.source_type == "table"
        ]
    assert sorted(r.value for r in cells) == [0.0454, 0.0469]
    assert "r.pdf Table 1: 2 cells repeat a row and column header already read; not kept" in caplog.text


@pytest.mark.parametrize(
    ("sentence", "expected"),
    [
        # the concentration before the element or oxide it is of, petrology's usual order in prose
        ("The melt contains 4 wt% H2O and 2000 ppm CO2.", [("H2O", 4.0, "wt.%"), ("CO2", 2000.0, "ppm")]),
        ("A basalt with 8 wt.% MgO and 200 ppm Sr.", [("MgO", 8.0, "wt.%"), ("Sr", 200.0, "ppm")]),
        ("Pressures for variable CO2 contents (0 wt% H2O) were computed.", [("H2O", 0.0, "wt.%")]),
        ("samples with < 53.8 wt% SiO2 and > 4 wt% MgO", [("SiO2", 53.8, "wt.%"), ("MgO", 4.0, "wt.%")]),
        # an analyte printed right before its value keeps it
        (
            "SiO2 52 wt% Al2O3 15 wt% MgO 8 wt%",
            [("SiO2", 52.0, "wt.%"), ("Al2O3", 15.0, "wt.%"), ("MgO", 8.0, "wt.%")],
        ),
        ("Sr contents of 200 ppm and Rb of 20 ppm.", [("Sr", 200.0, "ppm"), ("Rb", 20.0, "ppm")]),
        ("The SiO2 content of 52 wt.% is typical.", [("SiO2", 52.0, "wt.%")]),
        # ore grades: a "%" before its element; a list of them is no list of citations ("Pb, 0.01")
        (
            "Assays gave <0.01 % Pb, 0.01 to 0.02 % Zn and 1.23 to 12.90 % S.",
            [("Pb", 0.01, "%"), ("Zn", 0.01, "%"), ("S", 1.23, "%")],
        ),
        # grams per tonne are parts per million (the printed form keeps "g/t")
        (
            "Assays gave <0.01 to 1.64 g/t Au and 0.50 to 10.00 g/t Ag.",
            [("Au", 0.01, "ppm"), ("Ag", 0.5, "ppm")],
        ),
        # an element symbol that begins a word is no element ("S-wave")
        ("a 5 % S-wave velocity drop", []),
        # an ore oxide is an analyte; a compound the vocabulary does not name takes its own value with it
        ("intersections of 0.3% Sn and 2% WO3 were drilled", [("Sn", 0.3, "%"), ("WO3", 2.0, "%")]),
        ("intersections of 0.3% Sn and 2% CaF2 were drilled", [("Sn", 0.3, "%")]),
    ],
)
def test_a_concentration_printed_before_its_analyte_is_that_analyte_s(
    sentence: str, expected: list[tuple[str, float, str]]
) -> None:
    """Before, a value took the analyte printed before it, so "4 wt% H2O and 2000 ppm CO2" gave H2O
    = 2000 ppm and lost the 4 wt%, and "> 4 wt% MgO" was SiO2 (the thermobar draft); 15 rows of two
    benchmark papers ("100 ppm Sn", "5 wt% H2O") were not read at all."""
    assert [(v.analyte, v.value, v.unit) for v in extract_text_values(sentence)] == expected


def test_a_rate_in_a_reciprocal_unit_is_no_age_range() -> None:
    """ "0.014 Gyr-1" (a decay constant) had been an age from 0.014 to 1 Ga; a range printed with a
    unit on both ends stays a range."""
    assert extract_text_values("λ87 is the 87Rb decay constant (= 0.014 Gyr-1).") == []
    (age,) = extract_text_values("The ages range from 2 Ga-1 Ga in this basin.")
    assert (age.analyte, age.value, age.value_max, age.unit) == ("age", 1.0, 2.0, "Ga")


def test_respectively_over_a_list_with_a_name_that_is_no_analyte() -> None:
    """ "MSWD and P values ranging from 0.25 to 1.5 and 0.17 to 0.94, respectively": the second range
    is the P value's, which is no analyte; before, it was stored as a second MSWD."""
    rows = extract_text_values(
        "The samples yielded MSWD and P values ranging from 0.25 to 1.5 and 0.17 to 0.94, respectively."
    )
    assert [(v.analyte, v.value, v.value_max) for v in rows] == [("MSWD", 0.25, 1.5)]
    both = extract_text_values("SiO2 and MgO contents of 52 and 8 wt.%, respectively.")
    assert [(v.analyte, v.value) for v in both] == [("SiO2", 52.0), ("MgO", 8.0)]


def test_an_element_with_its_concentration_in_brackets_and_middle_dot_decimals() -> None:
    """ "high F (0·60–1·40%), Li (42–590 ppm), Rb (590–1250 ppm)": the element names its bracketed
    concentration (Journal of Petrology's middle dots read as decimal points). Before, the element
    was not found and every range went to the "SiO2" of "high-SiO2 granite" earlier in the sentence;
    an author–year citation ("Li (2005)") and a one-letter label ("Model B (20%)") name none."""
    text = (
        "This peraluminous high-SiO2 granite is characterized by high F (0·60–1·40%), Li (42–590 ppm), "
        "Rb (590–1250 ppm), Ga (45–55 ppm; Table 1) and low MgO (<0·01–0·06 wt %)."
    )
    found = [(v.analyte, v.value, v.value_max, v.unit) for v in extract_text_values(text)]
    assert found == [
        ("F", 0.6, 1.4, "%"), ("Li", 42, 590, "ppm"), ("Rb", 590, 1250, "ppm"), ("Ga", 45, 55, "ppm"),
        ("MgO", 0.01, 0.06, "wt.%"),
    ]  # fmt: skip
    assert extract_text_values("as shown by Li (2005), Model B (20%) fits better") == []


def test_a_normalised_ratio_printed_with_the_normalisation_on_each_element() -> None:
    """ "LaN/YbN" and "EuN/Eu*N" (each element's chondrite normalisation printed on it) are the
    ratios "(La/Yb)N" and "Eu/Eu*". Before, "LaN/YbN" was stored as a ratio named "N/Yb"."""
    text = "(LaN/YbN = 0·89–1·65) and a negative Eu anomaly (EuN/Eu*N = 0·02–0·07); LaCN/YbCN of 5–9"
    found = [(v.analyte, v.value, v.value_max, v.unit) for v in extract_text_values(text)]
    assert found == [
        ("(La/Yb)N", 0.89, 1.65, "ratio"),
        ("Eu/Eu*", 0.02, 0.07, "ratio"),
        ("(La/Yb)N", 5, 9, "ratio"),
    ]


def test_cells_under_a_blank_label_or_a_repeated_header_are_kept_apart() -> None:
    """A step-heating table prints the sample once and its later steps with a blank label cell; a
    fission-track table prints "Ns  Ni  Age  err" twice across the page, a grain in each. The row
    key was the label and the header as printed, so all but one of those cells shared a key and were
    dropped (4,720 cells of the 97 sweep documents). Now each is its own row, with a note saying
    which line or column it is; a label printed on two rows with other values (a standard analysed
    again) is two rows."""
    from geo_assets.ingest.cleaned_paper import clean_paper
    from geo_assets.measurements.extract import paper_measurements
    from geo_rag_runtime.models import Caption, Paper, Section

    steps = Caption(kind="table", label="Table 1", text="Neon in the quartz aliquots.", page=3,
                    rows=[["", "T (°C)", "20Ne", "2s", "Sum", "2s"],
                          ["ETH-1", "600", "13.37", "0.27", "", ""],
                          ["", "800", "9.85", "0.20", "", ""],
                          ["", "1750", "8.70", "0.19", "353.5", "7.6"],
                          ["ETH-2", "600", "11.45", "0.24", "", ""],
                          ["", "800", "8.42", "0.17", "348.5", "7.7"]])  # fmt: skip
    grains = Caption(kind="table", label="Table 2", text="Zircon fission track ages.", page=4,
                     rows=[["", "Ns", "Ni", "Age", "err", "Ns", "Ni", "Age", "err"],
                           ["GV21", "204", "105", "102.4", "12.5", "325", "124", "137.8", "14.8"],
                           ["GV33", "50", "47", "56", "11.4", "129", "49", "137.6", "23.2"]])  # fmt: skip
    standard = Caption(kind="table", label="Table 3", text="Sm–Nd isotope data.", page=5,
                       rows=[["Sample", "Nd (ppm)", "Sm (ppm)"], ["OD-1", "15.9", "2.9"], ["STDZ", "5.1", "0.9"],
                             ["STDZ", "13.7", "2.5"], ["PG-1", "17.7", "3.4"]])  # fmt: skip
    paper = Paper(paper_id="p10", source_file="s.pdf", title="S", sha256="0" * 64,
                  sections=[Section(heading="Methods", paragraphs=["Quartz of CREU-1 was step-heated."])],
                  captions=[steps, grains, standard])  # fmt: skip
    rows = [r for r in paper_measurements(clean_paper(paper), [], paper.captions) if r.source_type == "table"]
    assert len({r.measurement_id for r in rows}) == len(rows)
    neon = [
        (r.row, r.value, r.uncertainty) for r in rows if r.table_label == "Table 1" and r.column == "20Ne"
    ]
    assert neon == [("ETH-1", 13.37, 0.27), ("ETH-1", 9.85, 0.2), ("ETH-1", 8.7, 0.19),
                    ("ETH-2", 11.45, 0.24), ("ETH-2", 8.42, 0.17)]  # fmt: skip
    third = next(r for r in rows if r.column == "20Ne" and r.value == 8.7)
    assert "row: line 3 of 'ETH-1' (its label cell is blank)" in third.notes
    ages = [
        (r.row, r.value, r.uncertainty) for r in rows if r.table_label == "Table 2" and r.analyte == "age"
    ]
    assert ages == [("GV21", 102.4, 12.5), ("GV21", 137.8, 14.8), ("GV33", 56.0, 11.4), ("GV33", 137.6, 23.2)]
    second = next(r for r in rows if r.analyte == "age" and r.value == 137.8)
    assert "column: number 2 headed 'Age'" in second.notes
    # a standard analysed again is another row
    nd = [(r.sample, r.value) for r in rows if r.table_label == "Table 3" and r.analyte == "Nd"]
    assert nd == [("OD-1", 15.9), ("STDZ", 5.1), ("STDZ", 13.7), ("PG-1", 17.7)]


def test_epsilon_and_delta_typed_without_greek_letters() -> None:
    """Older papers and fonts without Greek letters print "eNd(t)", "Epsilon Nd" and "d18O". Before,
    none was an analyte: the values went to another analyte of the sentence or to none ("d18O<10‰"
    of a Journal of Petrology paper was stored as Al2O3)."""
    found = [(v.analyte, v.value, v.value_max, v.unit, v.notes) for v in extract_text_values(
        "The basalts have eNd(t) values of +6.3 to +6.7 and whole-rock d18O of 5.6‰, and Epsilon Nd of -2.")]  # fmt: skip
    assert found == [("εNd", 6.3, 6.7, "epsilon", ["initial value (t)"]), ("δ18O", 5.6, None, "‰", []),
                     ("εNd", -2.0, None, "epsilon", [])]  # fmt: skip
    assert [v.analyte for v in extract_text_values("At the end of the sequence, 300 Ma ago, dD rose.")] == [
        "age"
    ]


def test_a_row_label_that_is_an_identifier_names_the_rows_sample() -> None:
    """A table whose label column is not headed "Sample" and whose paper names the items nowhere
    else ("BGC-5", "CRPG-2": aliquots measured by two laboratories): each row's values are that
    item's. Heating steps, oxides and uncertainty rows are no items."""
    from geo_assets.ingest.cleaned_paper import clean_paper
    from geo_assets.measurements.extract import paper_measurements
    from geo_rag_runtime.models import Caption, Paper, Section

    aliquots = Caption(kind="table", label="Table 1", page=4, text="Neon isotope results.",
                       rows=[["Lab", "T [°C]", "21/20 [10−3]"], ["BGC-5", "800", "3.12"], ["CRPG-2", "1200", "2.98"]])  # fmt: skip
    steps = Caption(kind="table", label="Table 2", page=5, text="Step heating of the sanidine.",
                    rows=[["Step", "T [°C]", "40Ar/39Ar"], ["1", "600", "12.31"], ["2", "800", "11.90"]])  # fmt: skip
    oxides = Caption(kind="table", label="Table 3", page=6, text="Major elements (wt.%).",
                     rows=[["", "Mean", "1SD"], ["Fe2O3T", "7.21", "0.12"], ["MgO", "4.02", "0.08"]])  # fmt: skip
    paper = Paper(
        paper_id="p9", source_file="n.pdf", title="Ne", sha256="0" * 64,
        sections=[Section(heading="Methods", paragraphs=["Quartz was step-heated."])],
        captions=[aliquots, steps, oxides],
    )  # fmt: skip
    rows = [r for r in paper_measurements(clean_paper(paper), [], paper.captions) if r.source_type == "table"]
    by_table = {
        label: {(r.row, r.sample) for r in rows if r.table_label == label}
        for label in ("Table 1", "Table 2", "Table 3")
    }
    assert by_table["Table 1"] == {("BGC-5", "BGC-5"), ("CRPG-2", "CRPG-2")}
    assert all(
        r.notes[-1] == "sample: the identifier the row label prints"
        for r in rows
        if r.table_label == "Table 1"
    )
    assert {s for _, s in by_table["Table 2"]} == {""} and {s for _, s in by_table["Table 3"]} == {""}
    # a place with its code in brackets ("Säntis (T7)") names the code; "Mean (2SD)" names none
    targets = Caption(kind="table", label="Table 4", page=7, text="Helium in the targets.",
                      rows=[["Target", "T (°C)", "3He"], ["Säntis (T7)", "700", "61.1"], ["Mean (2SD)", "700", "60.2"]])  # fmt: skip
    paper.captions.append(targets)
    rows = [
        r for r in paper_measurements(clean_paper(paper), [], paper.captions) if r.table_label == "Table 4"
    ]
    assert {(r.row, r.sample) for r in rows} == {("Säntis (T7)", "T7"), ("Mean (2SD)", "")}
