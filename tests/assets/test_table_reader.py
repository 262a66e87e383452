"""Table cells from pdfplumber's words (``word_tables``) and what the cells mean (``table_values``):
a real CC BY table read end to end, and the layouts the unseen-papers benchmark asks for."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from geo_assets.ingest.pdf.word_tables import page_word_tables
from geo_assets.measurements.table_headers import vocabulary_unit
from geo_assets.measurements.table_values import extract_table_values

REPO = Path(__file__).resolve().parents[2]
CORRIGENDUM = (
    REPO / "tests" / "fixtures" / "papers" / "Vermeesch2023_Geochronology_DiscordanceCorrigendum_CCBY.pdf"
)


class FakePage:
    """A page as pdfplumber gives its characters: words (text, x0, top) at 9 pt, ``pitch`` (5 pt) a
    character."""

    width = 600.0

    def __init__(self, words: list[tuple[str, float, float]], size: float = 9.0, pitch: float = 5.0) -> None:
        self.chars = [
            {"text": ch, "x0": x + pitch * k, "x1": x + pitch * (k + 1), "top": top, "bottom": top + size,
             "doctop": top, "size": size, "upright": True, "matrix": (1.0, 0.0, 0.0, 1.0, x + pitch * k, 0.0)}
            for t, x, top in words
            for k, ch in enumerate(t)
        ]  # fmt: skip


def _line(top: float, *cells: tuple[str, float]) -> list[tuple[str, float, float]]:
    return [(text, x, top) for text, x in cells]


# --------------------------------------------------------------------------- a real table


def test_a_real_two_column_page_table_is_read_cell_by_cell() -> None:
    """Vermeesch (2023) corrigendum Table 1 (CC BY 4.0): a small table in the right column of a
    two-column page beside display equations, with U+2212 minus signs and subscripted headers."""
    import pdfplumber

    with pdfplumber.open(CORRIGENDUM) as pdf:
        (table,) = page_word_tables(pdf.pages[0], 1)
    assert table.label == "Table 1" and table.caption.startswith("Table 1. Revised conversion table")
    assert table.rows[0] == ["dr", "dt", "dsk", "da", "dc"]  # d with subscripts r, t, sk …
    assert table.rows[1] == ["−10", "−71", "−0.59", "−2.3", "−3.0"]
    assert len(table.rows) == 20  # the header and 19 rows: the equation beside rows 3 and 4 is no cell
    values = {(v.row, v.column): v for v in extract_table_values(table.rows, table.caption)}
    assert len(values) == 76
    assert (values["−10", "dt"].value, values["−10", "dt"].analyte) == (-71, "dt")
    assert values["3", "dsk"].value == 0.23 and values["4", "da"].value == 1.6  # rows 3, 4 beside Eq. 7
    assert values["50", "dc"].value == 30 and values["50", "dc"].printed == "30"


def test_the_embedded_parser_puts_the_word_readers_cells_in_the_tei() -> None:
    from geo_assets.ingest.pdf import pdf_to_tei
    from geo_assets.ingest.tei import tei_to_paper

    paper = tei_to_paper(pdf_to_tei(CORRIGENDUM), paper_id="c", source_file=CORRIGENDUM.name, sha256="0" * 64)
    table = next(c for c in paper.captions if c.kind == "table")
    assert table.label == "Table 1" and table.page == 1
    assert table.rows[0] == ["dr", "dt", "dsk", "da", "dc"] and table.rows[-1] == [
        "50",
        "700",
        "5.2",
        "23",
        "30",
    ]


# --------------------------------------------------------------------------- word layouts


def test_blank_cells_keep_their_column() -> None:
    """Columns come from where the data lines' words sit, so an empty cell shifts nothing."""
    words = _line(50, ("Table", 40), ("2.", 70), ("Trace", 85), ("elements", 115), ("(ppm)", 160))
    words += _line(70, ("Sample", 40), ("Rb", 120), ("Sr", 170), ("Ba", 220), ("Nb", 270))
    words += _line(82, ("A-1", 40), ("12.1", 120), ("301", 170), ("455", 220), ("8.2", 270))
    words += _line(94, ("A-2", 40), ("298", 170), ("7.9", 270))  # Rb and Ba left blank
    words += _line(106, ("A-3", 40), ("15.0", 120), ("311", 170), ("470", 220))  # Nb blank
    (table,) = page_word_tables(FakePage(words), 3)
    assert table.rows == [
        ["Sample", "Rb", "Sr", "Ba", "Nb"],
        ["A-1", "12.1", "301", "455", "8.2"],
        ["A-2", "", "298", "", "7.9"],
        ["A-3", "15.0", "311", "470", ""],
    ]
    values = {(v.sample, v.analyte): v for v in extract_table_values(table.rows, table.caption)}
    assert (values["A-2", "Nb"].value, values["A-2", "Nb"].unit) == (7.9, "ppm")
    assert ("A-2", "Rb") not in values and ("A-3", "Nb") not in values


def test_raised_mass_numbers_over_lines_make_one_ratio() -> None:
    """ "206Pb/238U" set with small raised mass numbers, the header over two lines."""
    big = FakePage(
        _line(40, ("Table", 40), ("1.", 70), ("Zircon", 85), ("U–Pb", 120), ("data", 150))
        + _line(60, ("Pb/", 126), ("Pb/", 226))
        + _line(70, ("U", 126), ("Pb", 226))
        + _line(84, ("z1", 40), ("0.1834", 120), ("0.0765", 220))
        + _line(96, ("z2", 40), ("0.1840", 120), ("0.0766", 220))
    )
    small = FakePage(  # touching the element symbol
        _line(58, ("206", 114), ("207", 214)) + _line(68, ("238", 114), ("206", 214)),
        size=6.0,
        pitch=11.5 / 3,
    )
    big.chars += small.chars
    (table,) = page_word_tables(big, 1)
    values = extract_table_values(table.rows, table.caption)
    assert {(v.row, v.analyte, v.value, v.unit) for v in values} == {
        ("z1", "206Pb/238U", 0.1834, "ratio"), ("z1", "207Pb/206Pb", 0.0765, "ratio"),
        ("z2", "206Pb/238U", 0.184, "ratio"), ("z2", "207Pb/206Pb", 0.0766, "ratio"),
    }  # fmt: skip


def test_a_journal_of_petrology_table_with_middle_dot_decimals_and_raised_method_marks() -> None:
    """Journal of Petrology (and other Oxford and Cambridge journals) print decimal points as middle
    dots ("66·0") and mark an element's analytical method, or a value's source, with raised digits
    ("Be¹", "77·1¹": ¹ICP, ²NA, ³ICP-MS); the samples are the columns, their identifiers under a row
    of rock names. Before, no middle-dot number was a number, so the row labels were lost and the
    first column of values was read as the analytes ("1/IH/85 73·9 …"); a raised mark was the value's
    last digit (77.11); the rock names were the samples."""
    big = FakePage(
        _line(
            40, ("Table", 40), ("1:", 70), ("Chemical", 85), ("analyses", 130), ("of", 175), ("granites", 190)
        )
        + _line(60, ("Biotite", 110), ("granite", 150), ("Topaz", 210))
        + _line(72, ("Analysis:", 40), ("309/PL/IH", 110), ("11/IH/96", 160), ("5/IH/85", 210))
        + _line(90, ("SiO2", 40), ("72·92", 110), ("74·5", 160), ("75·4", 210))
        + _line(102, ("Be", 40), ("n.a.", 110), ("7", 160), ("4", 210))
        + _line(114, ("La", 40), ("77·1", 110), ("158", 160), ("49·2", 210))
    )
    raised = FakePage(  # touching the word before it, its baseline 4 pt above that word's
        [("1", 50, 100), ("3", 50, 112), ("1", 130, 112)], size=6.0, pitch=3.5
    )
    big.chars += raised.chars
    (table,) = page_word_tables(big, 1)
    assert ["Be¹", "n.a.", "7", "4"] in table.rows and ["La³", "77·1¹", "158", "49·2"] in table.rows
    values = {(v.sample, v.analyte): v for v in extract_table_values(table.rows, table.caption)}
    assert values["309/PL/IH", "SiO2"].value == 72.92 and values["309/PL/IH", "SiO2"].printed == "72·92"
    assert values["11/IH/96", "Be"].value == 7 and values["309/PL/IH", "Be"].qualifier == "nd"
    assert values["309/PL/IH", "La"].value == 77.1
    assert "footnote mark '1'" in values["309/PL/IH", "La"].notes
    assert values["5/IH/85", "La"].value == 49.2
    assert {sample for sample, _ in values} == {"309/PL/IH", "11/IH/96", "5/IH/85"}


def test_an_elsevier_u_pb_table_with_its_caption_alone_on_a_line_and_a_wrapped_group_header() -> None:
    """Elsevier sets "Table 3" alone on its line and the title under it; the group header "Reported
    age" wraps onto a second line ("(see text for details)"), and a units line ("(pluton)", "(Ma)")
    stands under the column names. Before, the word reader found no caption (the table's cells came
    from the line-fragment finder, three merged columns, and no row was read: 0 rows from a
    whole-rock, an Sm–Nd and a U–Pb table of a Lithos paper); the units line was taken for the names
    the group headers stand over, so no "±2σ" column was an uncertainty; "Disc %" under "Reported
    age" was an age."""
    x = [20, 60, 120, 180, 240, 300, 380, 440, 500, 560, 640, 680, 730]
    names = ["Anal.", "Sample", "206Pb/238U", "±2σ", "207Pb/206Pb", "±2σ", "206Pb/238U", "±2σ", "207Pb/206Pb",
             "±2σ", "Age", "±2σ", "Disc %"]  # fmt: skip
    data = [["z1", "ZR-1", "0.0737", "1.98", "0.0556", "2.02", "459", "9", "434", "46", "458", "8", "−5.8"],
            ["z2", "ZR-1", "0.0740", "1.86", "0.0575", "3.14", "460", "8", "508", "68", "459", "8", "9.4"],
            ["z3", "ZR-2", "0.0754", "1.40", "0.0569", "2.26", "469", "6", "488", "49", "469", "6", "3.9"]]  # fmt: skip
    page = FakePage(
        _line(40, ("Table", 20), ("3", 50))
        + _line(49, ("LA-ICP-MS", 20), ("U–Pb", 70), ("results.", 95))
        + _line(62, ("Isotopic ratios and 2σ (%) errors", 120), ("Ages and 2σ absolute errors (Ma)", 380),
                ("Reported age", 640))
        + _line(71, ("(see text for details)", 640))
        + _line(84, *zip(names, x, strict=True))
        + _line(93, ("(pluton)", 60), ("(Ma)", 640))
        + [w for k, row in enumerate(data) for w in _line(108 + 12 * k, *zip(row, x, strict=True))]
    )  # fmt: skip
    page.width = 900.0
    (table,) = page_word_tables(page, 1)
    assert table.label == "Table 3"
    values = {(v.row, v.column.split()[-1] if v.analyte != "age" else v.column, v.analyte): v
              for v in extract_table_values(table.rows, table.caption)}  # fmt: skip
    ratio = next(
        v for (row, _, analyte), v in values.items() if row.startswith("z1") and analyte == "206Pb/238U"
    )
    assert (ratio.value, ratio.uncertainty, ratio.uncertainty_level) == (0.0737, 1.98, "2σ")
    assert "relative uncertainty (%)" in ratio.notes
    ages = sorted((v.value, v.uncertainty) for (row, _, analyte), v in values.items()
                  if row.startswith("z1") and analyte == "age")  # fmt: skip
    assert ages == [(434, 46), (458, 8), (459, 9)]
    disc = next(
        v for (row, _, analyte), v in values.items() if row.startswith("z1") and analyte == "discordance"
    )
    assert (disc.value, disc.unit) == (-5.8, "%")
    assert {v.sample for v in values.values()} == {"ZR-1", "ZR-2"}


# --------------------------------------------------------------------------- what cells mean


def test_samples_as_columns_with_footnote_marks() -> None:
    """A whole-rock table: analytes are the row labels, samples the column headers; a footnote mark
    on a sample name is a note, not part of the name."""
    rows = [
        ["", "z26*", "z21†", "KIL-1"],
        ["SiO2 (wt.%)", "48.21", "50.10", "51.3"],
        ["MgO (wt.%)", "7.02", "6.51", ""],
        ["Rb (ppm)", "12", "b.d.l.", "15"],
    ]
    values = {(v.sample, v.analyte): v for v in extract_table_values(rows, "Table 4. Whole-rock data")}
    assert (values["z26", "SiO2"].value, values["z26", "SiO2"].unit) == (48.21, "wt.%")
    assert values["z26", "SiO2"].notes == ["sample footnote mark '*'"]
    assert (
        values["z21", "MgO"].notes == ["sample footnote mark '†'"] and values["z21", "MgO"].column == "z21†"
    )
    assert (values["KIL-1", "Rb"].value, values["KIL-1", "Rb"].unit) == (15, "ppm")
    assert (values["z21", "Rb"].value, values["z21", "Rb"].qualifier) == (None, "bdl")
    assert ("KIL-1", "MgO") not in values  # a blank cell is no value


def test_whole_rock_units_from_section_rows_or_a_caption_naming_both() -> None:
    """Whole-rock tables give oxides and trace elements different units: in section rows over them
    ("Major elements (wt.%)", "Trace elements (ppm)") or in a caption that names both ("Major (wt.%)
    and trace element (ppm) compositions"): oxides take wt.%, elements ppm; a caption that names one
    unit gives it to both, as before."""
    rows = [
        ["", "19MAT-01", "19MAT-02"],
        ["Major elements (wt.%)", "", ""],
        ["SiO2", "48.2", "50.1"],
        ["MgO", "7.1", "6.5"],
        ["Trace elements (ppm)", "", ""],
        ["Rb", "12", "15"],
        ["La", "8.1", "9.0"],
    ]
    units = {(v.analyte, v.sample): v.unit for v in extract_table_values(rows, "Table 2. Whole-rock data")}
    assert units == {
        ("SiO2", "19MAT-01"): "wt.%", ("SiO2", "19MAT-02"): "wt.%", ("MgO", "19MAT-01"): "wt.%",
        ("MgO", "19MAT-02"): "wt.%", ("Rb", "19MAT-01"): "ppm", ("Rb", "19MAT-02"): "ppm",
        ("La", "19MAT-01"): "ppm", ("La", "19MAT-02"): "ppm",
    }  # fmt: skip
    caption = "Table 3. Major (wt.%) and trace element (ppm) compositions of the Ulgey volcanic rocks"
    across = [["Sample", "SiO2", "MgO", "Rb", "Sr"], ["19MAT-01", "48.2", "7.1", "12", "310"]]
    assert [(v.analyte, v.unit) for v in extract_table_values(across, caption)] == [
        ("SiO2", "wt.%"), ("MgO", "wt.%"), ("Rb", "ppm"), ("Sr", "ppm"),
    ]  # fmt: skip
    down = [["", "19MAT-01", "19MAT-02"], ["SiO2", "48.2", "50.1"], ["Rb", "12", "15"], ["Sr", "310", "298"]]
    assert {(v.analyte, v.unit) for v in extract_table_values(down, caption)} == {
        ("SiO2", "wt.%"), ("Rb", "ppm"), ("Sr", "ppm"),
    }  # fmt: skip
    one = {(v.analyte, v.unit) for v in extract_table_values(across, "Table 3. Trace elements (ppm)")}
    assert ("Rb", "ppm") in one and ("SiO2", "ppm") in one


def test_a_whole_rock_table_on_the_page_keeps_every_sample_and_its_section_units(tmp_path: Path) -> None:
    """The same read from a page: a short caption at the left over three sample columns, the last
    just past the page's middle (before, the table was taken for one in the left column of two and
    its third sample was lost), and the section rows without numbers kept in the grid."""
    import pdfplumber

    from tests.assets.paper_builders import text_pdf

    xs = (60, 200, 260, 320)
    data = [("SiO2", "48.21", "50.10", "72.3"), ("MgO", "7.02", "6.51", "0.35"), ("Rb", "12", "15", "140"),
            ("La", "8.1", "9.0", "31.2")]  # fmt: skip
    lines = [
        (60.0, [(60.0, "Volcanic rocks of the Ulgey suite")]),
        (100.0, [(60.0, "Table 2. Whole-rock compositions of the Ulgey volcanic rocks")]),
        (116.0, list(zip(xs, ("Sample", "19MAT-01", "19MAT-02", "19MAT-05"), strict=True))),
        (128.0, [(60.0, "Major elements (wt.%)")]),
        (140.0, list(zip(xs, data[0], strict=True))),
        (152.0, list(zip(xs, data[1], strict=True))),
        (164.0, [(60.0, "Trace elements (ppm)")]),
        (176.0, list(zip(xs, data[2], strict=True))),
        (188.0, list(zip(xs, data[3], strict=True))),
    ]
    with pdfplumber.open(text_pdf(tmp_path / "whole_rock.pdf", lines)) as pdf:
        (table,) = page_word_tables(pdf.pages[0], 1)
    values = {
        (v.analyte, v.sample): (v.value, v.unit) for v in extract_table_values(table.rows, table.caption)
    }
    assert len(values) == 12
    assert values[("SiO2", "19MAT-05")] == (72.3, "wt.%") and values[("La", "19MAT-05")] == (31.2, "ppm")
    assert values[("MgO", "19MAT-01")] == (7.02, "wt.%") and values[("Rb", "19MAT-02")] == (15, "ppm")


def test_a_whole_rock_table_s_descriptive_rows_ratios_and_uncertainty_rows(tmp_path: Path) -> None:
    """A GEOROC-style table across the page: a "Sample" row and a "Rock type" row over the columns
    (the sample is the first's cell, the rock type a note, not "19MAT-01 basalt"), a section row
    whose unit spills into the next column, a "Total" row (a quantity of its own, no uncertainty), a
    normalised ratio "(La/Yb)N" (not nitrogen in ppm) and a "2SD" row under "87Sr/86Sr" that gives
    each ratio its uncertainty."""
    import pdfplumber

    from tests.assets.paper_builders import text_pdf

    xs = (60, 170, 250, 330, 410)
    rows = [("Sample", "19MAT-01", "19MAT-02", "19MAT-05", "19MAT-07"),
            ("Rock type", "basalt", "basalt", "andesite", "rhyolite"),
            ("Major elements (wt.%)",),
            ("SiO2", "48.21", "50.10", "58.3", "72.3"),
            ("LOI", "1.2", "0.9", "1.5", "0.8"),
            ("Total", "99.8", "100.1", "99.6", "99.9"),
            ("Trace elements (ppm)",),
            ("Rb", "12", "15", "40", "140"),
            ("(La/Yb)N", "2.3", "2.6", "4.1", "5.5"),
            ("Isotopes",),
            ("87Sr/86Sr", "0.70352", "0.70361", "0.70410", "0.70512"),
            ("2SD", "0.00001", "0.00002", "0.00001", "0.00002")]  # fmt: skip
    lines = [
        (60.0, [(60.0, "Devonian volcanism of the Ulgey suite")]),
        (100.0, [(60.0, "Table 2. Whole-rock major, trace element and Sr isotope compositions")]),
        *[(116.0 + 12 * k, list(zip(xs, row, strict=False))) for k, row in enumerate(rows)],
    ]
    with pdfplumber.open(text_pdf(tmp_path / "georoc.pdf", lines)) as pdf:
        (table,) = page_word_tables(pdf.pages[0], 1)
    values = {(v.analyte, v.sample): v for v in extract_table_values(table.rows, table.caption)}
    assert {s for _, s in values} == {"19MAT-01", "19MAT-02", "19MAT-05", "19MAT-07"}
    silica = values[("SiO2", "19MAT-01")]
    assert (silica.value, silica.unit, silica.notes) == (48.21, "wt.%", ["Rock type: basalt"])
    assert values[("LOI", "19MAT-07")].uncertainty is None and values[("Total", "19MAT-07")].value == 99.9
    assert (values[("Rb", "19MAT-02")].value, values[("Rb", "19MAT-02")].unit) == (15, "ppm")
    assert (values[("(La/Yb)N", "19MAT-05")].value, values[("(La/Yb)N", "19MAT-05")].unit) == (4.1, "ratio")
    strontium = values[("87Sr/86Sr", "19MAT-07")]
    assert (strontium.value, strontium.uncertainty, strontium.uncertainty_level) == (0.70512, 0.00002, "2SD")


def test_a_whole_rock_table_keeps_sums_model_ages_and_nulls_and_a_sum_is_no_sigma() -> None:
    """Rows outside the analyte vocabulary ("ΣREE", "TDM (Ma)", "Total") are quantities of their own,
    positions are not ("Latitude"); a capital Σ is no σ row (it gave its sums to the row above as
    uncertainties); the sample row may be the second header row ("Locality" above it)."""
    rows = [["Locality", "Ulgey", "Ulgey", "Mukhar"], ["Sample", "19MAT-01", "19MAT-02", "19MAT-09"],
            ["SiO2 (wt.%)", "48.2", "50.1", "47.5"], ["Ni (ppm)", "12", "n.d.", "95"],
            ["ΣREE", "85.2", "90.1", "60.3"], ["143Nd/144Nd", "0.512901", "0.512934", "0.513012"],
            ["±2σ", "0.000006", "0.000007", "0.000005"], ["TDM (Ma)", "650", "610", "720"],
            ["Latitude", "47.1", "47.2", "47.3"]]  # fmt: skip
    read = {(v.analyte, v.sample): v for v in extract_table_values(rows, "Table 2. Whole-rock data")}
    assert {a for a, _ in read} == {"SiO2", "Ni", "ΣREE", "143Nd/144Nd", "TDM"}
    assert (read[("Ni", "19MAT-02")].qualifier, read[("Ni", "19MAT-02")].uncertainty) == ("nd", None)
    assert (read[("ΣREE", "19MAT-09")].value, read[("TDM", "19MAT-09")].unit) == (60.3, "Ma")
    neodymium = read[("143Nd/144Nd", "19MAT-01")]
    assert (neodymium.uncertainty, neodymium.uncertainty_level, neodymium.notes) == (
        6e-06,
        "2σ",
        ["Locality: Ulgey"],
    )


def test_plus_minus_and_relative_uncertainty_columns() -> None:
    """ "± 2σ" belongs to the value before it; a "% err" column stays relative, and says so."""
    rows = [
        ["Sample", "206Pb/238U age (Ma)", "± 2σ", "207Pb/235U", "% err"],
        ["z1", "1096.2", "0.4", "1.9410", "0.21"],
        ["z2*", "1095.9", "0.5", "1.9402", "0.25"],
    ]
    values = {(v.sample, v.analyte): v for v in extract_table_values(rows, "Table 1")}
    age = values["z1", "age"]
    assert (age.value, age.unit, age.uncertainty, age.uncertainty_level) == (1096.2, "Ma", 0.4, "2σ")
    ratio = values["z2", "207Pb/235U"]
    assert (ratio.value, ratio.unit, ratio.uncertainty) == (1.9402, "ratio", 0.25)
    assert "relative uncertainty (%)" in ratio.notes and "sample footnote mark '*'" in ratio.notes
    assert "relative uncertainty (%)" not in age.notes


def test_a_free_text_row_inside_a_table_is_one_value() -> None:
    rows = [
        ["Sample", "206Pb/238U age (Ma)", "±"],
        ["z1", "1096.2", "0.4"],
        ["weighted mean 206Pb/238U age = 1096.19 ± 0.19 Ma", "", ""],
    ]
    values = extract_table_values(rows, "Table 2")
    mean = [v for v in values if v.row.startswith("weighted mean")]
    assert [(v.analyte, v.value, v.unit, v.uncertainty) for v in mean] == [("age", 1096.19, "Ma", 0.19)]


def test_a_column_without_an_analyte_keeps_its_printed_header_and_serial_numbers_are_no_values() -> None:
    rows = [
        ["Serial no.", "Country", "Total deaths", "Latitude"],
        ["1", "China", "242,800", "35.1"],
        ["2", "Pakistan", "87,351", "30.2"],
    ]
    values = extract_table_values(rows, "Table 1")
    assert [(v.row, v.analyte, v.value) for v in values] == [
        ("China", "Total deaths", 242800),
        ("Pakistan", "Total deaths", 87351),
    ]


def test_grain_numbers_under_a_group_header_and_s_columns() -> None:
    """Numbers as column headers under a spanning "grain ID"; "sp" is the spread of "rp" (1σ)."""
    rows = [
        ["", "", "grain", "ID", "", "", ""],
        ["user", "1", "41", "32", "ng", "rp", "sp"],
        ["PV", "9", "10", "", "25", "1.00", ".00"],
        ["229", "8", "", "15", "17", ".95", "1.62"],
    ]
    values = {(v.row, v.column): v for v in extract_table_values(rows, "Table 1. Counts of fission tracks")}
    assert values["229", "grain ID 32"].value == 15 and ("PV", "grain ID 32") not in values
    rp = values["229", "rp"]
    assert (rp.value, rp.uncertainty, rp.uncertainty_level) == (0.95, 1.62, "1σ")


@pytest.mark.parametrize("cell", ["n.d.", "–", "b.d.l."])
def test_null_cells_never_shift_or_become_zero(cell: str) -> None:
    rows = [["Sample", "Rb", "Sr"], ["A", cell, "301"]]
    values = {v.analyte: v for v in extract_table_values(rows)}
    assert values["Rb"].value is None and values["Sr"].value == 301


def test_a_short_caption_over_a_table_as_wide_as_the_page_reads_every_column() -> None:
    """A caption that ends before the page's middle heads a table across the page (a U–Pb data table
    of fifteen columns, as AGU prints one): all of it is read, not the left column's half; beside a
    column of prose on the right, a short caption still heads the left column's table alone."""
    xs = [40, 110, 170, 230, 290, 350, 410, 470, 530]
    header = ("Sample", *[f"c{k}" for k in range(1, 9)])
    rows = [(f"LD-{r}", *[f"{r}.{k}" for k in range(1, 9)]) for r in range(1, 5)]
    words = _line(60, ("Table", 40), ("1.", 70), ("U-Pb", 85), ("data", 110))
    words += _line(80, *zip(header, xs, strict=True))
    for i, row in enumerate(rows):
        words += _line(95 + 10 * i, *zip(row, xs, strict=True))
    (table,) = page_word_tables(FakePage(words), 5)
    assert table.label == "Table 1" and table.rows[0] == list(header) and len(table.rows[1]) == 9

    prose = ["magmas", "of", "the", "arc", "record", "a", "long", "history", "of", "crustal", "assimilation"]
    words = _line(60, ("Table", 40), ("1.", 70), ("U-Pb", 85), ("data", 110))
    words += _line(
        80, ("Sample", 40), ("c1", 110), ("c2", 170), *((w, 320 + 30 * k) for k, w in enumerate(prose[:8]))
    )
    for i in range(4):
        words += _line(95 + 10 * i, (f"LD-{i}", 40), (f"{i}.1", 110), (f"{i}.2", 170),
                       *((w, 320 + 30 * k) for k, w in enumerate(prose[:8])))  # fmt: skip
    (table,) = page_word_tables(FakePage(words), 5, captionless=False)
    assert all(len(row) == 3 for row in table.rows) and table.rows[1][0] == "LD-0"


def test_a_minus_sign_set_apart_from_its_number_is_one_number() -> None:
    rows = [["", "ln[206Pb/238U]", "int. unc. (%)"], ["a", "−2.692", "0.32"], ["b", "− 2.685", "0.31"],
            ["c", "− 2.693", "0.30"]]  # fmt: skip
    values = {v.row: v for v in extract_table_values(rows)}
    assert (values["b"].value, values["b"].analyte, values["b"].uncertainty) == (
        -2.685,
        "ln(206Pb/238U)",
        0.31,
    )


def test_group_headers_over_ratio_and_age_columns_keep_both(tmp_path: Path) -> None:
    """A U–Pb table as LA-ICP-MS papers print it: "206Pb/238U ±2s" twice, once under a group header
    of ratios with relative errors and once under one of ages in Ma with absolute errors. The group
    header is a line of two phrases (not the caption's next line), each naming the columns under it,
    so the ratio and the age of one analysis are two values, not one header printed twice."""
    import pdfplumber

    from tests.assets.paper_builders import text_pdf

    xs = (60, 150, 205, 240, 295, 360, 415, 450, 505)
    heads = ("Sample", "206Pb/238U", "±2s", "207Pb/235U", "±2s", "206Pb/238U", "±2s", "207Pb/235U", "±2s")
    data = [("LD-1", "0.0454", "1.90", "0.3211", "3.68", "286", "5", "283", "9"),
            ("LD-1", "0.0456", "1.44", "0.3275", "2.86", "287", "4", "288", "7"),
            ("LD-2", "0.0455", "2.38", "0.3305", "4.42", "287", "7", "290", "11")]  # fmt: skip
    lines = [
        (60.0, [(60.0, "Post-orogenic granitoids of NW Iberia")]),
        (100.0, [(60.0, "Table 1. LA-ICP-MS U-Pb results of zircon")]),
        (116.0, [(160.0, "Isotopic ratios and 2s (%) errors"), (372.0, "Ages and 2s absolute errors (Ma)")]),
        (128.0, list(zip(xs, heads, strict=True))),
        *[(140.0 + 12 * i, list(zip(xs, row, strict=True))) for i, row in enumerate(data)],
    ]
    with pdfplumber.open(text_pdf(tmp_path / "upb.pdf", lines)) as pdf:
        (table,) = page_word_tables(pdf.pages[0], 1)
    assert table.rows[0][1:5] == ["Isotopic ratios and 2s (%) errors"] * 4
    assert table.rows[0][5:] == ["Ages and 2s absolute errors (Ma)"] * 4 and table.rows[0][0] == ""
    values = extract_table_values(table.rows, table.caption)
    assert len(values) == 12  # 3 analyses × (two ratios + two ages)
    first = [(v.analyte, v.value, v.unit, v.uncertainty, v.notes) for v in values[:4]]
    assert first == [
        ("206Pb/238U", 0.0454, "ratio", 1.9, ["relative uncertainty (%)"]),
        ("207Pb/235U", 0.3211, "ratio", 3.68, ["relative uncertainty (%)"]),
        ("age", 286.0, "Ma", 5.0, []),
        ("age", 283.0, "Ma", 9.0, []),
    ]
    assert {v.sample for v in values} == {"LD-1", "LD-2"}


def test_an_id_tims_table_with_sample_sections_stacked_ratios_and_footnote_marks(tmp_path: Path) -> None:
    """A CA-ID-TIMS U–Pb table as geochronology supplements print it (GSA Data Repository "Table
    DR1"): group headers over the compositional parameters, the isotope ratios and the ages; each
    ratio set as a fraction over two header lines ("207Pb" over "206Pb"); a row of footnote marks
    under the heads; the analyses grouped under a row that names their sample ("PRI Partridge River
    intrusion …"), with grain numbers that repeat from sample to sample; a weighted-mean row after
    each group. Values are illustrative; the layout is that of the format."""
    import pdfplumber

    from tests.assets.paper_builders import text_pdf

    xs = (40, 100, 140, 185, 240, 295, 330, 385, 420, 465, 510, 540, 585)
    top = {1: "Th", 2: "Pb*", 3: "206Pb", 4: "207Pb", 6: "206Pb", 8: "corr.", 9: "207Pb", 11: "206Pb"}
    heads = (
        "Sample",
        "U",
        "Pbc",
        "204Pb",
        "206Pb",
        "% err",
        "238U",
        "% err",
        "coef.",
        "206Pb",
        "±",
        "238U",
        "±",
    )
    marks = ("(a)", "(b)", "(c)", "(d)", "(e)", "(f)", "(e)", "(f)", "", "(g)", "(f)", "(g)", "(f)")

    def row(*cells: str) -> list[tuple[float, str]]:
        return [(x, c) for x, c in zip(xs, cells, strict=True) if c]

    z = [("z1", "0.665", "599", "34763", "0.0761152", "0.042", "0.185393", "0.045", "0.967", "1098.10", "0.84",
          "1096.37", "0.45"),
         ("z2", "0.795", "470", "26480", "0.0760872", "0.042", "0.185388", "0.045", "0.974", "1097.37", "0.84",
          "1096.34", "0.45"),
         ("z3", "0.714", "415", "23809", "0.0760841", "0.043", "0.185375", "0.046", "0.959", "1097.29", "0.87",
          "1096.27", "0.46")]  # fmt: skip
    lines = [
        (60.0, [(40.0, "Supplementary material")]),
        (100.0, [(40.0, "Table DR1. Zircon chemical abrasion ID-TIMS U-Pb isotopic data")]),
        (
            114.0,
            [
                (100.0, "Compositional Parameters"),
                (290.0, "Radiogenic Isotope Ratios"),
                (503.0, "Isotopic Ages"),
            ],
        ),
        (124.0, [(xs[i], text) for i, text in top.items()]),
        (134.0, row(*heads)),
        (144.0, row(*marks)),
        (156.0, [(40.0, "PRI Partridge River intrusion (Duluth Complex layered series)")]),
        *[(168.0 + 12 * i, row(*cells)) for i, cells in enumerate(z)],
        (
            204.0,
            [
                (
                    190.0,
                    "weighted mean 206Pb/238U age = 1096.19 ± 0.19 (0.36) [1.15] Ma (2s); MSWD = 0.45 (n=3)",
                )
            ],
        ),
        (216.0, [(40.0, "FC-4b Forest Center anorthosite (Duluth Complex anorthositic series)")]),
        (228.0, row("z1", *z[0][1:])),
        (240.0, row("z26*", *z[1][1:])),
        (252.0, row("z3", *z[2][1:])),
        (
            264.0,
            [
                (
                    190.0,
                    "weighted mean 206Pb/238U age = 1095.69 ± 0.18 (0.35) [1.14] Ma (2s); MSWD = 0.34 (n=3)",
                )
            ],
        ),
        (
            280.0,
            [(40.0, "(e) Corrected for fractionation, spike and common Pb (all uncertainties 1-sigma).")],
        ),
        (292.0, [(40.0, "(f) Errors are 2-sigma, propagated with the algorithms of Schmitz and Schoene")]),
        (302.0, [(52.0, "(2007); the second uncertainty includes the tracer's.")]),
        (340.0, [(40.0, "The zircon dates of the two samples agree within their uncertainties.")]),
    ]
    with pdfplumber.open(text_pdf(tmp_path / "dr1.pdf", lines)) as pdf:
        (table,) = page_word_tables(pdf.pages[0], 1)
    assert table.label == "Table DR1"  # a data repository item's table is captioned
    # the footnotes under it are its note (the running text after them is not); the last group's
    # weighted mean, after the last row, is still a row of the table
    assert table.note.startswith("(e) Corrected") and table.note.endswith("includes the tracer's.")
    assert table.rows[-1][0].startswith("weighted mean 206Pb/238U age = 1095.69")
    from geo_assets.ingest.pdf import pdf_to_tei
    from geo_assets.ingest.tei import tei_to_paper

    paper = tei_to_paper(
        pdf_to_tei(tmp_path / "dr1.pdf"), paper_id="p", source_file="dr1.pdf", sha256="0" * 64
    )
    (caption,) = [c for c in paper.captions if c.kind == "table"]
    assert caption.note == table.note  # the TEI's <note> after the <table>, as GROBID writes it
    assert (
        table.rows[0][4:9] == ["Radiogenic Isotope Ratios"] * 5 and table.rows[0][9:] == ["Isotopic Ages"] * 4
    )
    assert table.rows[table.header_rows][0].startswith("PRI Partridge")  # the section row is no header line
    values = extract_table_values(table.rows, table.caption, "", table.note)
    first = [v for v in values if v.row == "PRI / z1"]
    assert [(v.analyte, v.value, v.unit) for v in first] == [
        ("Th/U", 0.665, "ratio"),  # "Th" over "U": a ratio set as a fraction
        ("Pb*/Pbc", 599, ""),
        ("206Pb/204Pb", 34763, "ratio"),
        ("207Pb/206Pb", 0.0761152, "ratio"),
        ("206Pb/238U", 0.185393, "ratio"),
        ("age", 1098.10, "Ma"),  # under "Isotopic Ages": the 207Pb/206Pb date, in the unit of the
        ("age", 1096.37, "Ma"),  # table's weighted-mean row (the header prints none)
    ]  # "corr. coef." is no measured quantity; "% err" and "±" are uncertainties, not values
    assert (first[3].uncertainty, first[3].notes) == (0.042, ["relative uncertainty (%)"])
    assert (first[5].uncertainty, first[6].uncertainty) == (0.84, 0.45)
    # "(f)" over the "% err" and "±" columns, "(f) Errors are 2-sigma" under the table: their level
    assert {first[i].uncertainty_level for i in (3, 4, 5, 6)} == {"2σ"}
    assert extract_table_values(table.rows, table.caption)[3].uncertainty_level == ""  # no footnotes: none
    assert first[5].notes == ["unit from the table's weighted-mean rows"]
    assert {v.sample for v in first} == {"PRI"}  # the section row names the sample; z1 is a grain of it
    # grain numbers repeat from sample to sample: each row stays its own
    assert {v.sample for v in values if v.row == "FC-4b / z1"} == {"FC-4b"} and "FC-4b / z26*" in {
        v.row for v in values
    }
    mean, last_mean = [v for v in values if v.row.startswith("weighted mean") and v.analyte == "age"]
    assert (last_mean.value, last_mean.sample) == (1095.69, "FC-4b")
    assert (mean.value, mean.uncertainty, mean.unit, mean.uncertainty_level, mean.sample) == (
        1096.19,
        0.19,
        "Ma",
        "2σ",
        "PRI",
    )
    assert mean.notes == ["further uncertainties as printed: (0.36) [1.15]"]
    unsaid = [r for r in table.rows if not r[0].startswith("weighted mean")]
    assert {v.unit for v in extract_table_values(unsaid, table.caption) if v.analyte == "age"} == {""}
    assert len(values) == 6 * 7 + 2 * 2  # six analyses × seven values, two weighted means' age and MSWD
    assert len({(v.row, v.column, v.analyte) for v in values}) == len(values)  # no cell read twice


def test_a_caption_that_ran_on_into_its_table_header_ends_where_the_table_s_caption_ends() -> None:
    """The line reader joins a group header set close under a caption to the caption ("… isotopic
    data Compositional Parameters"); the word reader knows where the caption ends. Words past that
    end that are the table's header words go; a caption's own continuation (words not in the
    header) stays."""
    from geo_assets.ingest.pdf.analyse import _trim_captions
    from geo_assets.ingest.pdf.document import Document
    from geo_assets.ingest.pdf.word_tables import WordTable

    table = WordTable(
        label="Table DR1",
        page=1,
        rows=[
            ["", "Compositional Parameters", "Isotopic Ages"],
            ["Sample", "Th/U", "206Pb/238U"],
            ["z1", "0.6", "1096"],
        ],
        header_rows=2,
        caption="Table DR1. Zircon U-Pb isotopic data",
    )
    doc = Document()
    doc.captions = [
        ("table", "Table DR1", "Zircon U-Pb isotopic data Compositional Parameters"),
        ("table", "Table 2", "Zircon U-Pb isotopic data Compositional Parameters"),  # another table's: kept
    ]
    _trim_captions(doc, [table])
    assert doc.captions[0] == ("table", "Table DR1", "Zircon U-Pb isotopic data")
    assert doc.captions[1][2].endswith("Compositional Parameters")
    doc.captions = [("table", "Table DR1", "Zircon U-Pb isotopic data of the Duluth Complex anorthosites")]
    _trim_captions(doc, [table])  # a caption's second line that the word reader did not take: kept
    assert doc.captions[0][2].endswith("Duluth Complex anorthosites")


def test_a_glyph_whose_type_size_differs_in_the_last_digits_stays_in_its_number(tmp_path: Path) -> None:
    """A decimal point from a maths font, its size 9.00000000001 against the digits' 9 (Copernicus,
    "−0" "." "55"): pdfplumber starts a new word at any change of size, so the cell read "−0 . 55",
    no number, and the rows above it became header rows ("dt −71 −48")."""
    import pdfplumber

    from tests.assets.paper_builders import pages_pdf

    digit, point = 9 * 0.556, 9 * 0.278  # Helvetica's advance widths at 9 pt

    def number(x: float, whole: str, fraction: str) -> list[tuple[float, float, list[tuple[float, str]]]]:
        end = x + digit * len(whole.lstrip("-")) + (9 * 0.333 if whole.startswith("-") else 0.0)
        return [
            (0.0, 9.0, [(x, whole)]),
            (0.0, 9.00000000001, [(end, ".")]),
            (0.0, 9.0, [(end + point, fraction)]),
        ]

    def row(
        top: float, label: str, a: tuple[str, str], b: tuple[str, str]
    ) -> list[tuple[float, float, list[tuple[float, str]]]]:
        cells = [(top, 9.0, [(72.0, label)])]
        cells += [(top, size, words) for _, size, words in number(140.0, *a)]
        cells += [(top, size, words) for _, size, words in number(220.0, *b)]
        return cells

    page = [
        (60.0, 9.0, [(72.0, "Table 1. Conversion table for the discordance filters.")]),
        (80.0, 9.0, [(72.0, "dr"), (140.0, "dsk"), (220.0, "dc")]),
        *row(94.0, "-10", ("-0", "55"), ("-3", "5")),
        *row(106.0, "-5", ("-0", "33"), ("-2", "3")),
        *row(118.0, "5", ("0", "41"), ("3", "2")),
    ]
    with pdfplumber.open(pages_pdf(tmp_path / "sizes.pdf", [page])) as pdf:
        (table,) = page_word_tables(pdf.pages[0], 1)
    assert table.header_rows == 1 and table.rows[1] == ["-10", "-0.55", "-3.5"]
    values = {(v.row, v.analyte): v.value for v in extract_table_values(table.rows, table.caption)}
    assert values[("-10", "dsk")] == -0.55 and values[("5", "dc")] == 3.2


def test_units_in_a_header_or_caption_leave_the_quantity_s_name_and_a_capital_delta_d_is_no_isotope() -> None:
    """ "dt" in Myr by the caption is the quantity dt in Ma, not "dt [Ma]"; a unit in brackets outside
    the vocabulary ("U [pmol]") is kept in the notes, not dropped; a palaeomagnetic ΔD (a difference
    in declination) is no deuterium δD in ‰."""
    caption = (
        "Conversion table. All values are expressed as percentages, except for dt, which is expressed in Myr."
    )
    rows = [["dr", "dt", "dsk"], ["-10", "-71", "-0.55"], ["-5", "-48", "-0.33"], ["5", "40", "0.41"]]
    values = {(v.row, v.column): v for v in extract_table_values(rows, caption)}
    assert (values[("-10", "dt")].analyte, values[("-10", "dt")].unit) == ("dt", "Ma")
    assert (values[("-10", "dsk")].analyte, values[("-10", "dsk")].unit) == ("dsk", "%")

    rows = [
        ["#", "U [pmol]", "He [pmol]", "t[Ma]"],
        ["1", "6.55", "4.105", "412"],
        ["2", "4.2", "2.9", "398"],
    ]
    first = [v for v in extract_table_values(rows) if v.row == "1"]
    assert [(v.analyte, v.unit, v.notes) for v in first] == [
        ("U", "pmol", []),
        ("He", "pmol", []),
        ("age", "Ma", []),
    ]

    rows = [
        ["Site", "Dec", "Inc", "ΔD", "δD"],
        ["BD01", "12.1", "45.2", "3.04", "-92"],
        ["BD03", "8.7", "41.0", "2.1", "-88"],
    ]
    by_column = {v.column: v for v in extract_table_values(rows) if v.row == "BD01"}
    assert by_column["ΔD"].unit == "" and by_column["δD"].unit == "‰"


def test_a_header_that_sets_a_condition_holds_the_quantity_the_caption_names() -> None:
    """A model's or an experiment's table: the columns set a condition ("λ = 200 (c = 0.01)",
    "P = 1 GPa"), the caption names what the cells are ("β in %", "F in %"): the cells are that
    quantity under the condition (a note), not a quantity called "λ = 200 (c = 0.01)"."""
    caption = "Power calculation (the probability of a Type II error, β in %) for noncentrality parameter λ"
    rows = [["", "λ ≈ 0 (c ≈ 0)", "λ = 200 (c = 0.01)"], ["n = 10", "95", "86.4"], ["n = 100", "95", "61.2"]]
    first = [(v.analyte, v.value, v.unit, v.row, v.notes) for v in extract_table_values(rows, caption)][:2]
    assert first == [
        ("β", 95.0, "%", "n = 10", ["condition: λ ≈ 0 (c ≈ 0)"]),
        ("β", 86.4, "%", "n = 10", ["condition: λ = 200 (c = 0.01)"]),
    ]
    caption = "Table 2. Degree of melting of the peridotite (F in %) at each pressure"
    rows = [["T (°C)", "P = 1 GPa", "P = 2 GPa"], ["1300", "12.5", "4.1"], ["1350", "18.0", "9.7"]]
    melted = [(v.analyte, v.value, v.unit, v.notes) for v in extract_table_values(rows, caption)]
    assert ("F", 12.5, "%", ["condition: P = 1 GPa"]) in melted
    assert ("F", 9.7, "%", ["condition: P = 2 GPa"]) in melted
    # without a quantity in the caption the header names the column, and its unit is no cell's
    plain = extract_table_values(rows, "Table 2. Melting experiments")
    assert {(v.analyte, v.unit) for v in plain if v.column == "P = 1 GPa"} == {("P = 1 GPa", "")}


def test_a_row_whose_words_outnumber_its_numbers_keeps_its_cells(tmp_path: Path) -> None:
    """A samples-as-rows table with a description column: a row whose description has more words
    than the row has numbers ("KIL-4  ol-phyric alkali trachy basalt  57.9 …") is a row of the grid,
    with a description that runs past its column's other cells kept in that column; a sentence
    stating a value under the table stays one free-text cell, and a number inside a description is
    part of it. Before, such a row became one cell and
    its four values were lost (a DataFrame's "4  Testing H2O and CO2 input  0.0  0.00" and 21
    country rows of a USGS report's parameter table, in the benchmark)."""
    import pdfplumber

    from tests.assets.paper_builders import text_pdf

    xs = (60, 120, 260, 310, 360, 410)
    rows = [("Sample", "Rock type", "SiO2", "TiO2", "MgO", "Rb"),
            ("KIL-1", "basalt", "49.5", "2.10", "7.2", "12"),
            ("KIL-2", "olivine tholeiite", "48.1", "2.30", "9.8", "10"),
            ("KIL-3", "basaltic andesite", "54.2", "1.60", "4.1", "25"),
            ("KIL-4", "ol-phyric alkali trachy basalt", "57.9", "1.20", "3.0", "41"),
            ("KIL-5", "rhyolite dome, 2 km N of vent", "73.1", "0.20", "0.3", "140")]  # fmt: skip
    lines = [(100.0, [(60.0, "Table 1. Major (wt.%) and trace element (ppm) compositions of the lavas")])]
    lines += [(116.0 + 12 * k, list(zip(xs, row, strict=True))) for k, row in enumerate(rows)]
    lines.append((188.0, [(60.0, "mean SiO2 of the suite = 56.6 ± 9.4 wt.%")]))
    with pdfplumber.open(text_pdf(tmp_path / "described.pdf", lines)) as pdf:
        (table,) = page_word_tables(pdf.pages[0], 1)
    assert table.rows[4] == ["KIL-4", "ol-phyric alkali trachy basalt", "57.9", "1.20", "3.0", "41"]
    assert table.rows[5] == [
        "KIL-5",
        "rhyolite dome, 2 km N of vent",
        "73.1",
        "0.20",
        "0.3",
        "140",
    ]  # its 2 is no value
    assert table.rows[-1][0] == "mean SiO2 of the suite = 56.6 ± 9.4 wt.%" and not any(table.rows[-1][1:])
    values = {
        (v.sample, v.analyte): (v.value, v.unit) for v in extract_table_values(table.rows, table.caption)
    }
    assert values[("KIL-4", "SiO2")] == (57.9, "wt.%") and values[("KIL-4", "Rb")] == (41.0, "ppm")
    assert len([k for k in values if k[0].startswith("KIL")]) == 20


def test_a_row_label_holding_the_row_s_numbers_is_no_row() -> None:
    """A configuration listing read as a bare table leaves its numbers in the label cell ("depths =
    0.000 1.000 2.500 …") and the last number, wrapped, alone in a value column: the grid failed, so
    the row gives no value (it gave "[P] = 15.000"). A label with a number or two ("Testing H2O and CO2
    input", "Run 2") still heads its row."""
    listing = [["[P]", ""], ["dists = 0.000 0.100 0.200 0.300 0.500", ""],
               ["depths = 0.000 1.000 2.500 5.000 7.500 10.000", "15.000"]]  # fmt: skip
    assert extract_table_values(listing) == []
    table = [["", "Test", "Unnamed: 21"], ["1", "Testing H2O and CO2 input", "0.0"],
             ["2", "Testing Pressure", "0.5"], ["3", "Run 2 at 100 MPa", "0.7"]]  # fmt: skip
    assert [v.value for v in extract_table_values(table)] == [0.0, 0.5, 0.7]


def test_a_label_printed_on_several_rows_keeps_each_row_s_serial_number() -> None:
    """A DataFrame printing the same label on three rows ("Testing Pressure") after its index: each
    row keeps its index in the row label, so its cells are not taken for the first row's read again
    (the store keeps one cell per table, row and column; 12 cells of a benchmark supplement were
    dropped). A label printed once keeps no serial number."""
    table = [["", "Test", "Unnamed: 21"], ["1", "Testing Pressure", "0.1"], ["2", "Testing Pressure", "0.2"],
             ["3", "Testing Temperature", "0.3"]]  # fmt: skip
    assert [(v.row, v.value) for v in extract_table_values(table)] == [
        ("1 / Testing Pressure", 0.1),
        ("2 / Testing Pressure", 0.2),
        ("Testing Temperature", 0.3),
    ]


def test_a_capitalised_age_header_heads_ages() -> None:
    """Tables capitalise their headers: "Age (Ma)", "U-Pb Age (Ma)", "AGE" head ages in Ma like
    "age (Ma)" (they were a quantity named "Age", apart from every other age)."""
    for header in ("Age (Ma)", "U-Pb Age (Ma)", "AGE (Ma)", "Crystallization age (Ma)"):
        rows = [["Sample", header], ["MU-01", "385"], ["MU-04", "380"], ["UL-12", "412"]]
        assert {(v.analyte, v.unit) for v in extract_table_values(rows)} == {("age", "Ma")}, header


def test_a_sentence_row_under_one_sample_s_analyses_is_that_sample_s() -> None:
    """ "Concordia Age: 290.1 ± 1.4 Ma" printed under the analyses of sample LD-1 (a U–Pb table
    grouped by sample, no section row) is LD-1's age; under the analyses of two samples it is
    nobody's. Before, no sentence row of such a table had a sample."""
    rows = [
        ["Pluton", "Sample", "Analysis", "206Pb/238U", "±2s", "Age (Ma)"],
        ["Ponferrada", "LD-1", "oc13a11", "0.0454", "1.90", "286"],
        ["Ponferrada", "LD-1", "oc12b13", "0.0456", "1.44", "287"],
        ["Concordia Age: 290.1 ± 1.4 Ma", "", "", "", "", ""],
        ["Linares", "LD-2", "oc22e07", "0.0469", "2.74", "296"],
        ["Arcellana", "LD-3", "oc13e14", "0.0462", "1.60", "291"],
        ["Concordia Age: 297.3 ± 1.8 Ma", "", "", "", "", ""],
    ]
    said = [v for v in extract_table_values(rows, "Table 1. LA-ICP-MS U-Pb results") if not v.column]
    assert [(v.value, v.uncertainty, v.sample) for v in said] == [(290.1, 1.4, "LD-1"), (297.3, 1.8, "")]
    assert said[0].notes == ["sample: the one of the analyses above it"]


def test_a_grid_of_numbers_split_at_their_decimal_points_loses_to_the_whole_numbers() -> None:
    """Two readers' grids of one captioned table compete on their number cells. A word grid whose
    numbers are split at odd glyph spacing ("199 . 6", "− 20 . 7") counted each piece's digits as a
    number and won over the line-fragment grid's whole numbers ("199.6 ± 3.6"): a palaeomagnetic table
    of an EPSL paper lost all its 106 rows to 5 garbage ones when its "Table 1" caption, alone on its
    line, became known to the word reader."""
    from geo_assets.ingest.pdf.analyse import _best_grids
    from geo_assets.ingest.pdf.tables import PageTable

    split = PageTable("Table 1", 4, [["Code", "N", "D", "", "I", ""]] + [
        [f"IL{k}", "7", "199 . 6", "3 . 5", "− 20 . 7", "6 . 4"] for k in range(1, 8)
    ])  # fmt: skip
    whole = PageTable("Table 1", 4, [["Code", "N", "D", "I"]] + [
        [f"IL{k}", "7", "199.6 ± 3.5", "−20.7 ± 6.4"] for k in range(1, 8)
    ])  # fmt: skip
    assert _best_grids([split, whole]) == [whole]


def test_uncertainty_columns_printed_with_a_lost_plus_minus_or_under_the_value_s_own_header() -> None:
    """Three ways a table prints an uncertainty column that were read as quantities of their own:
    "+2σ" (the font's "±" lost to "+"), "36Ar ± 1σ" set over both the value's column and its
    uncertainty's, and an uncertainty after a column that is not read (a stage coordinate). A ratio
    headed by its mass numbers only ("21/20") is a quantity, with its "2s"."""
    plus = [["Analysis", "206Pb/238U", "+2σ", "207Pb/235U", "+2σ"],
            ["a45", "0.0927", "1.77", "0.7488", "2.60"], ["a46", "0.1021", "1.60", "0.8534", "3.90"]]  # fmt: skip
    found = {(v.row, v.analyte): v for v in extract_table_values(plus, "Table 1. LA–ICP–MS U–Pb results")}
    assert set(found) == {(a, r) for a in ("a45", "a46") for r in ("206Pb/238U", "207Pb/235U")}
    assert (found["a45", "207Pb/235U"].uncertainty, found["a45", "207Pb/235U"].uncertainty_level) == (
        2.6,
        "2σ",
    )
    shared = [["Laser (%)", "36Ar ± 1σ", "36Ar ± 1σ", "Age ± 2σ (Ma)", "Age ± 2σ (Ma)"],
              ["55.70W", "0.000068", "0.000005", "317.70", "45.81"],
              ["56.00W", "0.000042", "0.000004", "301.2", "30.3"]]  # fmt: skip
    found = {(v.row, v.analyte): v for v in extract_table_values(shared, "Table 3. Sample IH-11.")}
    assert set(found) == {(r, a) for r in ("55.70W", "56.00W") for a in ("36Ar", "age")}
    assert (found["55.70W", "36Ar"].uncertainty, found["55.70W", "36Ar"].uncertainty_level) == (
        0.000005,
        "1σ",
    )
    assert (found["56.00W", "age"].value, found["56.00W", "age"].uncertainty) == (301.2, 30.3)
    unread = [["", "x", "s[x]", "20Ne", "2s", "21/20", "2s"], ["ETH-1", "125", "1", "13.37", "0.27", "24.23", "0.15"],
              ["ETH-2", "310", "1", "11.45", "0.24", "27.78", "0.26"]]  # fmt: skip
    found = {(v.row, v.column): v for v in extract_table_values(unread, "Table 1. Neon.")}
    assert {c for _, c in found} == {"20Ne", "21/20"}
    assert (found["ETH-2", "21/20"].value, found["ETH-2", "21/20"].uncertainty) == (27.78, 0.26)


def test_a_delta_column_after_its_quantity_and_cells_printed_with_plus_minus_are_its_uncertainty() -> None:
    """A palaeomagnetic table prints the declination error "ΔD" after "D" (and "ΔR" after the rotation
    "R"), its cells set as "±4.94". Before, "ΔD" was read as a quantity of its own and a "±4.94" cell
    as no number, so the declinations had no uncertainty; a "2s" column printed the same way too."""
    rows = [["Site", "N", "D", "ΔD", "I", "ΔI", "R", "ΔR"],
            ["BD01", "24", "100.5", "±4.94", "−9.68", "±9.64", "60.65", "5.49"],
            ["BD03", "46", "144.25", "±3.04", "21.58", "±5.37", "−7.35", "10.64"]]  # fmt: skip
    found = {(v.row, v.analyte): v for v in extract_table_values(rows, "Table 1. Site mean directions.")}
    assert {a for _, a in found} == {"N", "D", "I", "R"}
    assert (found["BD01", "D"].value, found["BD01", "D"].uncertainty) == (100.5, 4.94)
    assert (found["BD01", "I"].value, found["BD01", "I"].uncertainty) == (-9.68, 9.64)
    assert (found["BD03", "R"].value, found["BD03", "R"].uncertainty) == (-7.35, 10.64)
    # a group header of two lines spans its columns with both ("In situ" over "statistics"), and
    # "corrected" is no error correlation (its declinations were dropped as one)
    grouped = [["Site", "In situ", "", "", "Tilt", ""], ["", "statistics", "", "", "corrected", ""],
               ["", "D", "ΔD", "I", "Dec", "Inc"], ["BD01", "100.5", "±4.94", "9.68", "108.12", "−19.64"]]  # fmt: skip
    found = {v.column: v for v in extract_table_values(grouped, "Table 1. Site mean directions.")}
    assert set(found) == {
        "In situ statistics D",
        "In situ statistics I",
        "Tilt corrected Dec",
        "Tilt corrected Inc",
    }
    assert (found["In situ statistics D"].uncertainty, found["Tilt corrected Inc"].value) == (4.94, -19.64)
    signed = [["Sample", "T (°C)", "2s"], ["FI-1", "−21.4", "±0.3"], ["FI-2", "−18.9", "0.4"]]
    found = {v.row: v for v in extract_table_values(signed, "Table 2. Microthermometry.")}
    assert [(found[r].value, found[r].uncertainty, found[r].uncertainty_level) for r in ("FI-1", "FI-2")] == [
        (-21.4, 0.3, "2σ"),
        (-18.9, 0.4, "2σ"),
    ]


def test_a_minus_sign_set_apart_in_a_column_of_its_own_is_the_sign_of_the_number_right_of_it() -> None:
    """A palaeomagnetic table sets the minus of a longitude and of a rotation so far from its number
    that the reader gives the signs a column of their own ("24.89  −  102.15  −  60.65"): before, the
    rotation of −60.65° was stored as 60.65. A named column of dashes ("–", not measured) is no sign,
    and a hyphen between two numbers is a range's ("0.5 - 1.0", "3804 - 3813 m")."""
    rows = [["Site", "Lat.", "", "Long.", "", "R", "ΔR", "Ni", "Cu"],
            ["Mina San Miguel", "24.89", "−", "102.15", "−", "60.65", "5.49", "–", "12"],
            ["Real de Catorce", "23.70", "−", "100.89", "", "3.11", "3.45", "–", "15"],
            ["MG", "26.50", "−", "103.00", "", "− 7.35", "10.64", "-", "9"]]  # fmt: skip
    found = {(v.row, v.analyte): v for v in extract_table_values(rows, "Table 1. Site means.")}
    assert [
        (found[s, "R"].value, found[s, "R"].uncertainty) for s in ("Mina San Miguel", "Real de Catorce", "MG")
    ] == [
        (-60.65, 5.49),
        (3.11, 3.45),
        (-7.35, 10.64),
    ]
    assert [found[s, "Cu"].value for s in ("Mina San Miguel", "MG")] == [12.0, 9.0]
    ranges = [
        ["", "Roof", "", "contact"],
        ["Li", "100", "-", "500"],
        ["Rb", "755", "-", "1225"],
        ["Sn", "25", "-", "66"],
    ]
    assert all(
        v.value is None or v.value > 0 for v in extract_table_values(ranges, "Table 2. Granites (ppm).")
    )


def test_an_element_over_its_unit_is_that_element_in_that_unit() -> None:
    """A data report's header prints the elements on one line and their units on the next ("Au" over
    "ppm", "Al" over "%"). Before, "Au ppm" named no analyte (its values were stored as a quantity
    "Au ppm") and a "%" under "Al" was read as the relative uncertainty of the column before it. An
    element's or oxide's per cent is one by weight (wt.%), as the text reader stores "wt%"."""
    rows = [["No.", "Sample", "Au", "Ag", "Al", "As", "Cu"], ["", "", "ppm", "ppm", "%", "ppm", "(%)"],
            ["1", "M001", "0.006", "<0.5", "7.48", "7", "0.166"], ["2", "M007", "0.002", "<0.5", "6.30", "21", "0.002"]]  # fmt: skip
    found = {(v.sample, v.analyte): v for v in extract_table_values(rows, "")}
    assert set(found) == {(s, a) for s in ("M001", "M007") for a in ("Au", "Ag", "Al", "As", "Cu")}
    assert found["M001", "As"].uncertainty is None and found["M001", "Cu"].value == 0.166
    assert (found["M001", "Au"].unit, found["M001", "Al"].unit, found["M001", "Al"].value) == (
        "ppm",
        "wt.%",
        7.48,
    )
    assert found["M001", "Ag"].uncertainty is None and found["M001", "Ag"].qualifier == "<"


def test_a_sparse_compilation_with_method_marks_is_read_to_its_last_row(tmp_path: Path) -> None:
    """A compilation of analyses by laboratory: each value followed by a letter for its method
    ("40 (a)"), most element rows empty or with one value, the columns right of the page's middle
    filled only in later rows, under a short caption. Before, the marks made the rows look like
    text (fewer numbers than words), four empty rows in a row ended the table, and the first row's
    values, all left of the middle, made it a table of the left column only."""
    import pdfplumber

    from tests.assets.paper_builders import text_pdf

    x = {"lab1": 130.0, "lab2": 200.0, "lab3": 380.0}
    rows = [("SiO2 %", {"lab1": "48.2", "lab2": "47.9"}), ("TiO2", {"lab1": "2.1", "lab2": "2.3"}),
            ("MgO", {"lab1": "7.7", "lab2": "7.5"}), ("Ni", {}), ("Ga", {}), ("Ge ppb", {}), ("As", {}),
            ("Se", {}), ("Rb", {"lab1": "6", "lab3": "5.6"}), ("Sr", {"lab1": "55", "lab3": "175"}),
            ("Hf", {"lab2": "12"}), ("Th", {"lab2": "4.6", "lab3": "3.2"})]  # fmt: skip
    lines = [(60.0, [(72.0, "Table 2. Analyses of the Kerr basalt by laboratory.")]),
             (80.0, [(72.0, "reference"), (130.0, "Lab1"), (200.0, "Lab2"), (380.0, "Lab3")])]  # fmt: skip
    for k, (label, values) in enumerate(rows):
        words = [(72.0, label)]
        for lab, value in values.items():
            words += [(x[lab], value), (x[lab] + 26.0, "(a)")]
        lines.append((94.0 + 10.0 * k, words))
    lines.append(
        (94.0 + 10.0 * len(rows) + 6.0, [(72.0, "technique: (a) XRF and ICP-MS in each laboratory")])
    )
    with pdfplumber.open(text_pdf(tmp_path / "compilation.pdf", lines)) as pdf:
        (table,) = [t for t in page_word_tables(pdf.pages[0], 1) if t.label == "Table 2"]
    labels = [row[0] for row in table.rows]
    assert labels[-1] == "Th" and "Rb" in labels
    found = {(v.row, v.column): v.value for v in extract_table_values(table.rows, table.caption)}
    assert found["Sr", "Lab3"] == 175.0 and found["Th", "Lab3"] == 3.2 and found["Hf", "Lab2"] == 12.0


def test_a_table_set_in_halves_side_by_side_gives_each_half_s_rows_their_own_sample() -> None:
    """A report's long table printed as two halves across the page, each with its own "Sample"
    column: each line holds two samples. Before, the right half's cells were read as a second block
    of the left sample's columns ("column: number 2"), every value under the wrong sample."""
    head = [["", "Rock", "Ca", "K", "", "Rock", "Ca", "K"],
            ["Sample", "", "", "", "Sample", "", "", ""],
            ["", "Type", "%", "%", "", "Type", "%", "%"]]  # fmt: skip
    body = [["M007", "Atf", "0.39", "1.90", "N013", "Adcl", "0.10", "1.73"],
            ["M010", "Atf", "0.22", "3.09", "N016", "Atf", "1.22", "1.10"],
            ["M026", "Adcu", "0.01", "2.21", "N018", "Atf", "0.96", "1.27"],
            ["N005", "Atf", "0.23", "0.15", "", "", "", ""]]  # fmt: skip
    values = extract_table_values([*head, *body])
    found = {(v.sample, v.analyte): (v.value, v.unit) for v in values}
    assert len(values) == len(found) == 14  # seven samples × Ca and K
    assert found["N013", "Ca"] == (0.10, "wt.%") and found["M007", "Ca"] == (0.39, "wt.%")
    assert found["N018", "K"] == (1.27, "wt.%") and found["N005", "K"] == (0.15, "wt.%")
    assert not any("column: number" in note for v in values for note in v.notes)


def test_correlation_matrices_and_component_loadings_are_no_measurements() -> None:
    """A report's statistics over its samples: a correlation matrix of the elements (1.00 on the
    diagonal) and principal component loadings. Their "0.35" under "Au" beside "Ag" is no Au content;
    before, a captioned matrix gave a row per cell."""
    names = ["Au", "Ag", "As", "Cu"]
    matrix = [["", *names]] + [
        [a, *("1.00" if a == b else f"0.{10 + 7 * i + j}" for j, b in enumerate(names))]
        for i, a in enumerate(names)
    ]
    assert extract_table_values(matrix, "Table 5. Element relations of the whole rocks (N = 77)") == []
    loadings = [["", "Component 1", "Component 2"], ["Au", "-0.719", "-0.117"], ["Ag", "-0.638", "0.048"],
                ["As", "-0.465", "-0.105"], ["Eigenvalue", "3.941", "2.872"]]  # fmt: skip
    assert extract_table_values(loadings, "Table 7. Results of Principal Component Analysis") == []
    # the same element rows as measurements (samples across the top) are read as before
    analyses = [["", "M007", "N013"], ["Au", "0.12", "0.35"], ["Ag", "2.1", "1.4"], ["As", "35", "18"]]
    assert len(extract_table_values(analyses, "Table 4. Whole-rock analyses (ppm)")) == 6


def test_numbers_under_a_text_column_s_header_or_a_letter_spaced_one_have_no_name() -> None:
    """An X-ray diffraction table: the mineral names are printed sideways over their columns (not in
    the text layer), so the only header above them is the "Alteration zone" of the text column to
    their left, spread over the blank cells, and the letter-spaced "M I N E R A L S" of a group
    header. Before, the intensities were stored as "Alteration" and "L S" values."""
    rows = [["Sample", "Rock", "Alteration", "", "", "M I N E R A", "L S", "Remarks", "SiO2"],
            ["", "type", "zone", "", "", "", "", "", "wt.%"],
            ["M001", "Cbs", "Zeo", "3", "", "1", "", "7", "61.2"],
            ["M007", "Atf", "S/Sm", "28", "4", "<1", "<1", "", "58.9"],
            ["M028", "Adcu", "Ser-Ch", "30", "3", "", "<1", "2", "66.0"]]  # fmt: skip
    values = extract_table_values(rows, "Table 1. Results of X-ray diffraction")
    assert {(v.analyte, v.unit) for v in values} == {("SiO2", "wt.%")}
    assert len(values) == 3
    # two single letters alone are no letter-spacing: "δ D" is δD
    hydrogen = extract_table_values(
        [["Sample", "δ D", "δ18O"], ["W-1", "-62.1", "-8.9"], ["W-2", "-55.0", "-7.6"]]
    )
    assert {v.analyte for v in hydrogen} >= {"δ18O"} and len(hydrogen) == 4


def test_a_data_sheet_table_set_small_beside_a_diagram_and_its_reference_list(tmp_path: Path) -> None:
    """A sample data sheet (NASA's Lunar Sample Compendium is one): the analyses of one sample by
    reference, set in smaller type than a split diagram and a reference list beside it; units
    printed on some row labels only ("SiO2 %" over the oxides, "Sc ppm" over the elements, "Ge ppb"
    for that row alone); a method mark after each value. Before, each row joined a diagram line it
    overlapped in height and was read in pairs with the next ("SiO2 % TiO2": every value one row
    late, TiO2's 2.27 stored as SiO2), the caption reached the page header at the right, the marks
    made value rows header rows, the rows under a unit had none, and the references were stored as
    the samples."""
    from geo_assets.ingest.cleaned_paper import clean_paper
    from geo_assets.ingest.pdf import pdf_to_tei
    from geo_assets.ingest.tei import tei_to_paper
    from geo_assets.measurements.extract import paper_measurements
    from tests.assets.paper_builders import pages_pdf

    x = {"Rhodes73": 112.0, "Dowty73": 214.0, "Helmke73": 260.0}
    rows = [("SiO2 %", {"Dowty73": "48", "Helmke73": "48.5"}), ("TiO2", {"Rhodes73": "2.27", "Dowty73": "2.15"}),
            ("Al2O3", {"Dowty73": "10.5", "Helmke73": "9.88"}), ("FeO", {"Rhodes73": "18.2", "Dowty73": "21"}),
            ("MgO", {"Dowty73": "7.3", "Helmke73": "7.17"}), ("sum", {}),
            ("Sc ppm", {"Helmke73": "42.7"}), ("V", {"Dowty73": "150", "Helmke73": "140"}),
            ("Ge ppb", {"Helmke73": "12"}), ("Rb", {"Rhodes73": "1.15", "Helmke73": "1.1"}),
            ("Sr", {"Rhodes73": "130", "Dowty73": "128"}), ("La", {"Rhodes73": "8.04", "Helmke73": "6.89"})]  # fmt: skip
    page = [(54.0, 11.0, [(72.0, "Table 1. Chemical composition of 15682."), (435.0, "15682")]),
            (80.0, 8.0, [(72.0, "reference"), *((at, name) for name, at in x.items())])]  # fmt: skip
    for k, (label, values) in enumerate(rows):
        words = [(72.0, label)]
        for name, value in values.items():
            words += [(x[name], value), (x[name] + 34.0, "(a)")]
        page.append((99.6 + 9.6 * k, 8.0, words))
    # the split diagram and the reference list beside the table, in larger type, on lines that
    # fall between the table's rows
    page += [(105.9 + 12.0 * k, 9.4, [(348.0, f",{k}"), (430.0, f"{k + 2}.5 g")]) for k in range(5)]
    page += [(171.0 + 12.0 * k, 10.0, [(321.0, f"Rhodes J.M. and Hubbard N.J. (1973) part {k} of the")])
             for k in range(6)]  # fmt: skip
    pdf = pages_pdf(tmp_path / "sheet.pdf", [page])
    paper = tei_to_paper(pdf_to_tei(pdf), paper_id="p", source_file=pdf.name, sha256="0" * 64)
    cleaned = clean_paper(paper)
    found = {
        (r.analyte, r.column): r
        for r in paper_measurements(cleaned, [], paper.captions)
        if r.source_type == "table"
    }
    assert {(a, c): (r.value, r.unit) for (a, c), r in found.items()} == {
        ("SiO2", "Dowty73"): (48.0, "wt.%"), ("SiO2", "Helmke73"): (48.5, "wt.%"),
        ("TiO2", "Rhodes73"): (2.27, "wt.%"), ("TiO2", "Dowty73"): (2.15, "wt.%"),
        ("Al2O3", "Dowty73"): (10.5, "wt.%"), ("Al2O3", "Helmke73"): (9.88, "wt.%"),
        ("FeO", "Rhodes73"): (18.2, "wt.%"), ("FeO", "Dowty73"): (21.0, "wt.%"),
        ("MgO", "Dowty73"): (7.3, "wt.%"), ("MgO", "Helmke73"): (7.17, "wt.%"),
        ("Sc", "Helmke73"): (42.7, "ppm"), ("V", "Dowty73"): (150.0, "ppm"), ("V", "Helmke73"): (140.0, "ppm"),
        ("Ge", "Helmke73"): (12.0, "ppb"), ("Rb", "Rhodes73"): (1.15, "ppm"), ("Rb", "Helmke73"): (1.1, "ppm"),
        ("Sr", "Rhodes73"): (130.0, "ppm"), ("Sr", "Dowty73"): (128.0, "ppm"),
        ("La", "Rhodes73"): (8.04, "ppm"), ("La", "Helmke73"): (6.89, "ppm"),
    }  # fmt: skip
    assert {r.sample for r in found.values()} == {"15682"}
    assert "unit wt.%: printed on a row label above" in found["TiO2", "Rhodes73"].notes


def test_a_compilation_whose_first_block_is_empty_with_its_heads_beside_the_caption(tmp_path: Path) -> None:
    """Two more layouts of a compilation: its first block of rows (the majors) empty and its first
    row with two values far down, and the few analyses of its last columns filled in three rows
    only; and a table whose column heads are set at the height of its short caption ("Table 2
    U ppm Th ppm …"), its rows reaching right of the page's middle with a text column first and
    with values only further down. Before, the first found no table, the last columns were one
    cell of three numbers, and the second lost its heads and the columns right of the middle."""
    import pdfplumber

    from tests.assets.paper_builders import pages_pdf

    majors = ["SiO2 %", "TiO2", "Al2O3", "FeO", "MnO", "MgO", "CaO", "Na2O", "K2O", "P2O5", "S %", "sum"]
    traces = [("Sc ppm", {"A": "75.4"}), ("V", {"A": "47.6"}), ("Co", {"A": "27.9", "B": "31"}),
              ("Zn", {"A": "73.6", "B": "18"}), ("Rb", {"A": "5.22", "B": "6.6", "C": "6.1", "D": "5.9"}),
              ("Ba", {"A": "243"}), ("Th ppm", {"A": "2.66", "C": "3.2", "D": "2.9"}),
              ("U ppm", {"A": "0.77", "C": "0.86", "D": "0.9"})]  # fmt: skip
    x = {"A": 164.0, "B": 114.0, "C": 379.0, "D": 423.0}
    page = [(54.0, 11.0, [(72.0, "Table 1c. Chemical composition of 10017.")]),
            (80.4, 8.0, [(72.0, "reference"), (114.0, "Anders71"), (164.0, "Neal2001"), (379.0, "Perkins70"),
                         (423.0, "Wrigley70")])]  # fmt: skip
    page += [(99.6 + 9.6 * k, 8.0, [(72.0, label)]) for k, label in enumerate(majors)]
    for k, (label, values) in enumerate(traces):
        words = [(72.0, label)] + [
            w for key, v in values.items() for w in ((x[key], v), (x[key] + 28.0, "(b)"))
        ]
        page.append((224.4 + 9.6 * k, 8.0, words))
    # the second: its rows as a data sheet prints them (references down the side, blank cells)
    xs = (173.0, 213.0, 251.0, 289.0, 330.0, 370.0, 455.0)
    heads = ("U ppm", "Th ppm", "K ppm", "Rb ppm", "Sr ppm", "Nd ppm", "technique")
    second = [(54.0, 10.0, [(54.0, "Table 2")]), (55.7, 8.0, list(zip(xs, heads, strict=True)))]
    printed = [("Perkins et al. 1970", "0.86", "3.2", "2600", "", "", "", "rad. count"),
               ("O'Kelley et al. 1970", "0.83", "3.25", "2430", "", "", "", "rad. count"),
               ("Tatsumoto 70", "0.854", "3.363", "", "", "", "", "idms"),
               ("Silver 1970", "0.73", "2.72", "", "", "", "", "idms"),
               ("Gopalan et al. 1970", "", "", "2500", "5.8", "174.2", "", ""),
               ("Murthy", "", "", "2207", "5.33", "169", "", "idms"),
               ("Gast and Hubbard 1970", "", "", "2610", "5.63", "174.8", "59.7", "idms"),
               ("Philpotts 1970", "", "", "2390", "5.7", "165", "66.1", "idms"),
               ("Wanke et al. 1970", "0.69", "3.05", "2060", "4.2", "", "58", "inaa"),
               ("Compston et al. 1970", "", "3.7", "", "5.72", "163.7", "", "")]  # fmt: skip
    for k, (ref, *row) in enumerate(printed):
        second.append(
            (66.0 + 9.6 * k, 8.0, [(54.0, ref), *((at, c) for at, c in zip(xs, row, strict=True) if c)])
        )
    with pdfplumber.open(pages_pdf(tmp_path / "compilation.pdf", [page, second])) as pdf:
        (first,) = page_word_tables(pdf.pages[0], 1)
        (table2,) = page_word_tables(pdf.pages[1], 2)
    values = {(v.row, v.column): (v.value, v.unit) for v in extract_table_values(first.rows, first.caption)}
    assert values["Co", "Anders71"] == (31.0, "ppm") and values["Sc ppm", "Neal2001"] == (75.4, "ppm")
    assert values["Th ppm", "Perkins70"] == (3.2, "ppm") and values["U ppm", "Wrigley70"] == (0.9, "ppm")
    assert values["Ba", "Neal2001"] == (243.0, "ppm") and len(values) == 17
    assert table2.rows[0] == ["", *heads]
    second_values = {(v.row, v.analyte): v.value for v in extract_table_values(table2.rows, table2.caption)}
    assert (
        second_values["Gast and Hubbard 1970", "Sr"] == 174.8
        and second_values["Wanke et al. 1970", "Nd"] == 58
    )
    assert len(second_values) == sum(bool(c) for row in printed for c in row[1:7])


def test_a_caption_names_the_one_sample_a_table_analyses() -> None:
    """A data sheet's caption names its sample with no word "sample" and no hyphen ("Chemical
    composition of 15682"); a year, a formula or a count is no sample."""
    from geo_assets.measurements.samples import caption_samples

    assert caption_samples("Chemical composition of 15682.") == ["15682"]
    assert caption_samples("Table 3. Analyses of KIL93") == ["KIL93"]
    assert caption_samples("U-Pb data for samples KIL-1 and KIL-2") == ["KIL-1", "KIL-2"]
    for caption in ("Compilation of data of 2019.", "Composition of H2O.", "Analyses of 12 samples"):
        assert caption_samples(caption) == []


def test_column_heads_wider_than_their_values_and_labels_that_equate_a_name_to_a_number(
    tmp_path: Path,
) -> None:
    """A small table of a statistics paper: heads wider than the values under them ("λ = 200 (c =
    0.01)" over "86.4"), reaching over the gap to the next column, and rows labelled "n = 10", whose
    numbers line up as a column of their own. Before, the heads were cut where the columns lie
    ("0) λ = 200 (c =") and every row was labelled "n =", its n a column without a head."""
    import pdfplumber

    from tests.assets.paper_builders import pages_pdf

    page = [(57.7, 6.4, [(311.0, "Table 1")]),
            (64.9, 6.4, [(311.0, "Power of the test (beta in %) for three values of the noncentrality L.")]),
            (96.6, 6.4, [(362.0, "L = 0 (c = 0)"), (421.0, "L = 200 (c = 0.01)"), (497.0, "L = 800 (c = 0.02)")])]  # fmt: skip
    for k, (n, *values) in enumerate((("10", "95", "86.4", "50.1"), ("100", "95", "61.2", "0.32"),
                                      ("1000", "95", "0.72", "0.00"))):  # fmt: skip
        page.append((111.0 + 8.6 * k, 6.4, [(316.0, "n ="), (331.0, n), (362.0, values[0]), (421.0, values[1]),
                                             (497.0, values[2])]))  # fmt: skip
    page += [(57.4 + 10.4 * k, 8.0, [(43.0, "the posterior of the model follows from the prior and the data")])
             for k in range(10)]  # fmt: skip
    with pdfplumber.open(pages_pdf(tmp_path / "power.pdf", [page])) as pdf:
        (table,) = page_word_tables(pdf.pages[0], 1)
    assert table.rows[0] == ["", "L = 0 (c = 0)", "L = 200 (c = 0.01)", "L = 800 (c = 0.02)"]
    assert [row[0] for row in table.rows[1:]] == ["n = 10", "n = 100", "n = 1000"]


def test_a_wide_dataframe_printed_in_blocks_of_columns_across_a_page_break(tmp_path: Path) -> None:
    """A notebook supplement prints a wide DataFrame in blocks of columns, each under its own heads
    and with the same row numbers ("SiO2 TiO2 … \\", then "MgO NiO … \\"), the second block broken
    by the page after two rows. Before, the second block's heads were read as a row of the first
    block's rows on the next page, and its two rows at the foot of the page were no table."""
    from geo_assets.ingest.cleaned_paper import clean_paper
    from geo_assets.ingest.pdf import pdf_to_tei
    from geo_assets.ingest.tei import tei_to_paper
    from geo_assets.measurements.extract import paper_measurements
    from tests.assets.paper_builders import pages_pdf, text_lines

    code = ["Normdata = myfile.get_data(normalization='additionalvolatiles')",
            "for ind, row in Normdata.iterrows(): compute the molar proportions of each oxide",
            "Normdata.head()"]  # fmt: skip
    blocks = {"a": ["SiO2", "TiO2", "Al2O3", "FeO \\"], "b": ["MgO", "CaO", "Na2O", "K2O \\"],
              "c": ["MgOnorm", "CaOnorm", "Na2Onorm"]}  # fmt: skip
    value = {
        ("a", k): [f"{50.1 - k:.6f}", f"{0.92 + k / 10:.6f}", f"{18.2 - k:.6f}", f"{9.3 + k:.6f}"]
        for k in range(1, 6)
    }
    value |= {
        ("b", k): [f"{7.0 + k:.6f}", f"{11.1 - k / 10:.6f}", f"{2.5 + k / 10:.6f}", f"{0.4 + k / 100:.6f}"]
        for k in range(1, 6)
    }
    value |= {("c", k): [f"{0.09 + k / 100:.6f}", f"{0.11 + k / 100:.6f}", f"{0.04 + k / 100:.6f}"] for k in range(1, 6)}  # fmt: skip
    xs = [121.0, 190.0, 259.0, 328.0]

    def heads(top: float, block: str) -> tuple[float, float, list[tuple[float, str]]]:
        return (top, 10.9, [(x, h) for x, h in zip(xs, blocks[block], strict=False)])

    def row(top: float, block: str, k: int) -> tuple[float, float, list[tuple[float, str]]]:
        return (top, 10.9, [(75.0, str(k)), *zip(xs, value[block, k], strict=False)])

    first = [*text_lines(72.0, 13.6, 10.9, code), heads(581.3, "a")]
    first += [row(594.9 + 13.55 * (k - 1), "a", k) for k in range(1, 6)]
    first += [heads(676.2, "b"), row(689.7, "b", 1), row(703.3, "b", 2), (741.1, 10.9, [(303.0, "7")])]
    second = [row(75.8 + 13.55 * (k - 3), "b", k) for k in range(3, 6)]
    second += [heads(130.0, "c"), *(row(143.6 + 13.55 * (k - 1), "c", k) for k in range(1, 6))]
    second += [(224.9, 10.9, [(75.0, "[5 rows x 11 columns]")]), (741.1, 10.9, [(303.0, "8")])]
    pdf = pages_pdf(tmp_path / "notebook.pdf", [first, second])
    paper = tei_to_paper(pdf_to_tei(pdf), paper_id="p", source_file=pdf.name, sha256="0" * 64)
    found = {
        (r.row, r.analyte): r.value
        for r in paper_measurements(clean_paper(paper), [], paper.captions)
        if r.source_type == "table"
    }
    names = {"a": ["SiO2", "TiO2", "Al2O3", "FeO"], "b": ["MgO", "CaO", "Na2O", "K2O"]}
    expected = {
        (str(k), a): float(v)
        for (b, k), vs in value.items()
        if b in names
        for a, v in zip(names[b], vs, strict=True)
    }
    assert {key: found.get(key) for key in expected} == expected


def test_an_argon_step_heating_table_with_its_sample_parameter_row_and_results_block(tmp_path: Path) -> None:
    """An 40Ar/39Ar step-heating table as the common data-reduction software prints it: one header
    line whose heads name a quantity with its uncertainty over two columns ("36Ar ± 1s"), the age's
    head split over its two ("Age ±" | "2s (Ma)"), a row naming the sample with its irradiation
    parameter ("AB-07  J = 0.0106220 ± 0.0000425") above the heating steps, and a results block under
    heads of its own ("Results  40(r)/39(k)  ±2s  Age …"). Before, the parameter row was read as a
    second header line: the 37Ar uncertainty column became a quantity "37Ar ± 1s J = 0.0106220"
    holding 38Ar's values, every step lost its uncertainties and its age its unit, and the results
    rows were stored under the steps' columns (an MSWD of 0.79 as a 40Ar abundance)."""
    from geo_assets.ingest.cleaned_paper import clean_paper
    from geo_assets.ingest.pdf import pdf_to_tei
    from geo_assets.ingest.tei import tei_to_paper
    from geo_assets.measurements.extract import paper_measurements
    from tests.assets.paper_builders import pages_pdf, text_lines

    at = {"36Ar": 100.0, "37Ar": 166.0, "40Ar": 232.0, "40Ar*": 298.0, "Age": 340.0}
    steps = [("56.20W", "0.000086", "0.000003", "0.000237", "0.000013", "0.014250", "0.000066", "79.53", "268.84", "±81.88"),
             ("57.50W", "0.000084", "0.000005", "0.000267", "0.000013", "0.036742", "0.000116", "96.18", "304.16", "±34.17"),
             ("58.20W", "0.000082", "0.000003", "0.000275", "0.000011", "0.055408", "0.000144", "100.00", "308.18", "±5.77"),
             ("60.00W", "0.000080", "0.000003", "0.000241", "0.000008", "0.380228", "0.000492", "100.00", "307.65", "±2.69")]  # fmt: skip
    xs = [40.0, at["36Ar"], at["36Ar"] + 33, at["37Ar"], at["37Ar"] + 33, at["40Ar"], at["40Ar"] + 33,
          at["40Ar*"], at["Age"], at["Age"] + 32]  # fmt: skip
    page = [*text_lines(60.0, 11.0, 8.0, ["Table 1",
                                          "Sample AB-07. The relative abundances of the argon isotopes and the apparent age of each step."]),
            (90.0, 6.4, [(40.0, "Laser (%)"), (at["36Ar"], "36Ar ± 1s"), (at["37Ar"], "37Ar ± 1s"),
                         (at["40Ar"], "40Ar ± 1s"), (at["40Ar*"], "40Ar* (%)"), (at["Age"], "Age ±"),
                         (at["Age"] + 32, "2s (Ma)")]),
            (104.0, 6.4, [(40.0, "AB-07"), (170.0, "J = 0.0106220"), (214.0, "±"), (222.0, "0.0000425")])]  # fmt: skip
    page += [(116.0 + 9.0 * k, 6.4, list(zip(xs, step, strict=True))) for k, step in enumerate(steps)]
    page += [(156.0, 6.4, [(40.0, "Results"), (100.0, "40(r)/39(k)"), (133.0, "±2s"), (232.0, "Age"),
                           (265.0, "±2s"), (298.0, "MSWD")]),
             (164.0, 6.4, [(232.0, "(Ma)")]),
             (174.0, 6.4, [(40.0, "Weighted"), (70.0, "Plateau"), (100.0, "17.4694"), (133.0, "±0.0638"),
                           (232.0, "307.08"), (265.0, "±2.48"), (298.0, "0.79")]),
             (184.0, 6.4, [(40.0, "Total"), (58.0, "Fusion"), (80.0, "Age"), (100.0, "17.4033"),
                           (133.0, "±0.0805"), (232.0, "306.01"), (265.0, "±2.60")])]  # fmt: skip
    page += text_lines(230.0, 13.0, 10.0, ["The five muscovite samples yield plateau ages that cluster tightly",
                                           "around 307 Ma, which dates the shear zones that bent with the orocline."])  # fmt: skip
    pdf = pages_pdf(tmp_path / "arar.pdf", [page])
    paper = tei_to_paper(pdf_to_tei(pdf), paper_id="p", source_file=pdf.name, sha256="0" * 64)
    rows = [r for r in paper_measurements(clean_paper(paper), [], paper.captions) if r.source_type == "table"]
    found = {(r.row.split(" / ")[-1], r.analyte): (r.value, r.uncertainty, r.unit, r.sample) for r in rows}
    for step in steps:
        assert found[step[0], "36Ar"] == (float(step[1]), float(step[2]), "", "AB-07")
        assert found[step[0], "37Ar"] == (float(step[3]), float(step[4]), "", "AB-07")
        assert found[step[0], "40Ar"] == (float(step[5]), float(step[6]), "", "AB-07")
        assert found[step[0], "age"] == (float(step[8]), float(step[9].lstrip("±")), "Ma", "AB-07")
    assert not any("J" in r.analyte or "J =" in r.column for r in rows), [r for r in rows if "J" in r.analyte]
    # the results block's numbers are under heads of their own, not the steps' columns, and are
    # the sample's: its plateau and total-fusion ages with their uncertainties, its MSWD
    assert not any(r.row.split(" / ")[-1].startswith(("Weighted", "Total")) and r.analyte in at for r in rows)
    plateau = {r.analyte: r for r in rows if r.row.replace(" / ", " ") == "Weighted Plateau"}
    fusion = {r.analyte: r for r in rows if r.row.replace(" / ", " ") == "Total Fusion Age"}
    assert (plateau["age"].value, plateau["age"].uncertainty, plateau["age"].unit) == (307.08, 2.48, "Ma")
    assert plateau["age"].sample == "AB-07"
    assert (fusion["age"].value, fusion["age"].uncertainty, fusion["age"].unit) == (306.01, 2.60, "Ma")
    assert plateau["MSWD"].value == 0.79
    assert (plateau["40(r)/39(k)"].value, plateau["40(r)/39(k)"].uncertainty) == (17.4694, 0.0638)


def test_an_argon_results_block_under_heads_on_two_lines_and_values_on_three(tmp_path: Path) -> None:
    """The same software's results block as it is often set: its heads on two lines ("Age  ±2σ"
    above "Results  40(r)/39(k)  ±2σ  MSWD") and each result's uncertainties a line above and below
    its value ("±2.79" over "305.22", "±0.91%" under it). The ages are read as ages of the sample,
    under the head over them, and the MSWD that only one row prints keeps its own column."""
    from geo_assets.ingest.cleaned_paper import clean_paper
    from geo_assets.ingest.pdf import pdf_to_tei
    from geo_assets.ingest.tei import tei_to_paper
    from geo_assets.measurements.extract import paper_measurements
    from tests.assets.paper_builders import pages_pdf, text_lines

    xs = [40.0, 100.0, 133.0, 166.0, 200.0, 233.0, 266.0, 300.0]
    steps = [("57.50W", "0.000091", "0.000004", "0.009338", "0.000038", "98.00", "301.79", "±5.88"),
             ("57.80W", "0.000080", "0.000004", "0.049498", "0.000136", "99.98", "306.34", "±2.47"),
             ("58.00W", "0.000082", "0.000005", "0.005628", "0.000031", "99.30", "301.26", "±10.81"),
             ("65.00W", "0.000073", "0.000005", "0.022696", "0.000099", "100.00", "305.77", "±2.88")]  # fmt: skip
    page = [*text_lines(60.0, 11.0, 8.0, ["Table 4", "Sample CD-12. Same caption as in Table 1."]),
            (90.0, 6.4, [(40.0, "Laser (%)"), (100.0, "36Ar ± 1s"), (166.0, "39Ar ± 1s"), (233.0, "40Ar* (%)"),
                         (266.0, "Age ±"), (300.0, "2s (Ma)")]),
            (104.0, 6.4, [(40.0, "CD-12"), (150.0, "J = 0.0106220"), (194.0, "±"), (202.0, "0.0000425")])]  # fmt: skip
    page += [(116.0 + 9.0 * k, 6.4, list(zip(xs, step, strict=True))) for k, step in enumerate(steps)]
    page += [(153.0, 6.4, [(247.0, "Age"), (321.0, "±2s"), (421.0, "39Ar(k)")]),
             (159.0, 6.4, [(40.0, "Results"), (129.0, "40(r)/39(k)"), (192.0, "±2s"), (372.0, "MSWD")]),
             (167.0, 6.4, [(247.0, "(Ma)"), (421.0, "(%,n)")]),
             (180.0, 6.4, [(192.0, "±0.1020"), (321.0, "±2.79"), (421.0, "100.00")]),
             (185.0, 6.4, [(40.0, "Weighted"), (70.0, "Plateau"), (129.0, "17.3545"), (247.0, "305.22"), (372.0, "0.92")]),
             (189.0, 6.4, [(192.0, "±0.59%"), (321.0, "±0.91%"), (421.0, "9")]),
             (198.0, 6.4, [(192.0, "±0.1220"), (321.0, "±2.99")]),
             (203.0, 6.4, [(40.0, "Total"), (58.0, "Fusion"), (80.0, "Age"), (129.0, "17.2895"), (247.0, "304.17"), (421.0, "9")]),
             (207.0, 6.4, [(192.0, "±0.71%"), (321.0, "±0.98%")])]  # fmt: skip
    page += text_lines(240.0, 13.0, 10.0, ["The plateau ages of the five samples agree within their uncertainties,",
                                           "so the shear zones were active at the same time across the orocline."])  # fmt: skip
    pdf = pages_pdf(tmp_path / "arar.pdf", [page])
    paper = tei_to_paper(pdf_to_tei(pdf), paper_id="p", source_file=pdf.name, sha256="0" * 64)
    rows = [r for r in paper_measurements(clean_paper(paper), [], paper.captions) if r.source_type == "table"]
    ages = {r.value: (r.unit, r.sample) for r in rows if r.analyte == "age"}
    assert ages[305.22] == ("Ma", "CD-12") and ages[304.17] == ("Ma", "CD-12")
    assert {float(step[6]) for step in steps} <= set(ages)
    assert [r.value for r in rows if r.analyte == "MSWD"] == [0.92]
    assert all(r.analyte in {"36Ar", "39Ar", "40Ar*", "age", "40(r)/39(k)", "MSWD"} for r in rows), {
        r.analyte for r in rows
    }


def test_a_second_block_of_heads_inside_a_table_heads_the_rows_under_it() -> None:
    """A statistics table printed in two blocks of element columns ("Au Ag Al …", then "Mg Mn Na
    …"), each under its own heads and units: the second block's rows are read under its own heads
    ("Na" is sodium there, not "not analysed"). A block whose numbers do not all stand under heads of
    its own (an analogue-model table's "Sand" row, its last value under the first block's column)
    is not read, rather than read under the first block's heads."""
    rows = [
        ["", "Au", "Ag", "Al"],
        ["", "ppm", "ppm", "%"],
        ["Max.", "0.038", "2.0", "7.87"],
        ["Min.", "<0.001", "<0.5", "4.14"],
        ["", "Mg", "Mn", "Na"],
        ["", "%", "ppm", "%"],
        ["Max.", "2.50", "5,470", "4.42"],
        ["Min.", "0.03", "65", "0.03"],
    ]
    found = {
        (v.row, v.analyte): (v.value, v.unit) for v in extract_table_values(rows, "Statistics of whole rocks")
    }
    assert found[("Max.", "Au")] == (0.038, "ppm") and found[("Min.", "Al")] == (4.14, "wt.%")
    assert found[("Max.", "Na")] == (4.42, "wt.%") and found[("Min.", "Mn")] == (65.0, "ppm")
    assert ("Max.", "Au") in found and not any(a == "Au" and v[0] == 2.50 for (_r, a), v in found.items())

    model = [
        ["Temperature", "Density", "Viscosity", "Stress exponent", "Differential strength"],
        ["(°C)", "(kg/m3)", "(Pa·s)", "(n)", "(Pa)"],
        ["Beck’s orange", "", "", "", ""],
        ["40", "1250", "12,900", "4.43", "1.29"],
        ["45", "", "9610", "4.21", "0.961"],
        ["", "Bulk density", "Cohesion", "Grain size", ""],
        ["", "(kg/m3)", "(Pa)", "(mm)", ""],
        ["Sand", "1200", "17.8", "0.5", "21.3"],
    ]
    values = extract_table_values(model, "Properties of the analogue materials")
    assert {v.row for v in values} == {"40", "45"}


def test_ranges_printed_under_the_means_do_not_end_a_table(tmp_path: Path) -> None:
    """Means with their ranges on the line under them ("Rb  405  200  510" over "(180-860)
    ( 120-310) ( 160-1,400)", an OCR'd scan's spacing): a line of ranges stands over the next row's
    values as a line of heads would, but it holds values, so the table goes on past it."""
    from tests.assets.paper_builders import pages_pdf, text_lines

    means = [("Nb", "130", "85", "350"), ("Rb", "405", "200", "510"), ("Zr", "260", "400", "1330"), ("Ce", "310", "343", "400")]  # fmt: skip
    # as an OCR'd scan prints them, a bracket set apart now and then: "( 120-310)"
    ranges = [("(50-300)", "( 30-150)", "(100-1500)"), ("(180-860)", "( 120-310)", "( 160-1400)"),
              ("(110-610)", "(200-1500)", "( 450-2200)"), ("(78-780)", "( 225-460)", "(172-630)")]  # fmt: skip
    page = [*text_lines(60.0, 12.0, 9.0, ["Table 2. Mean trace element contents (ppm) of the three granite types."]),
            (84.0, 8.0, [(72.0, "ppm"), (150.0, "Biotite"), (215.0, "Hornblende"), (285.0, "Riebeckite")])]  # fmt: skip
    for k, (mean, spread) in enumerate(zip(means, ranges, strict=True)):
        page.append(
            (98.0 + 20.0 * k, 8.0, [(72.0, mean[0]), (150.0, mean[1]), (215.0, mean[2]), (285.0, mean[3])])
        )
        page.append((107.0 + 20.0 * k, 8.0, [(140.0, spread[0]), (205.0, spread[1]), (275.0, spread[2])]))
    page += text_lines(
        200.0, 13.0, 10.0, ["The riebeckite granites are the richest in the high field strength elements."]
    )
    pdf = pages_pdf(tmp_path / "ranges.pdf", [page])
    import pdfplumber

    with pdfplumber.open(pdf) as opened:
        (table,) = page_word_tables(opened.pages[0], 1)
    labels = [row[0] for row in table.rows]
    assert all(element in labels for element, *_ in means), table.rows


def test_an_age_head_split_from_its_unit_over_the_uncertainty_column() -> None:
    """ "Age ± 2σ" over the ages and "(Ma)" alone over their uncertainties: one head over two columns,
    the unit the ages', the second column their 2σ."""
    rows = [
        ["Laser", "36Ar ± 1σ", "", "Age ± 2σ", "(Ma)"],
        ["IH-19", "", "J = 0.0106220", "±", "0.0000425"],
        ["55.50W", "0.000086", "0.000003", "252.34", "±20.1"],
        ["56.00W", "0.000082", "0.000003", "296.56", "±5.1"],
    ]
    ages = [
        (v.value, v.unit, v.uncertainty, v.uncertainty_level)
        for v in extract_table_values(rows)
        if v.analyte == "age"
    ]
    assert ages == [(252.34, "Ma", 20.1, "2σ"), (296.56, "Ma", 5.1, "2σ")]


def test_a_serial_number_column_is_no_quantity() -> None:
    """ "S/NO" (or "Sl. No.") numbers a table's rows; it is no S/N ratio."""
    rows = [
        ["Lineament", "S/NO", "Length (km)"],
        ["N2800W", "1", "26.5"],
        ["S1900W", "2", "38.0"],
        ["S2100W", "3", "34.0"],
    ]
    found = {(v.analyte, v.value) for v in extract_table_values(rows)}
    assert found == {("Length", 26.5), ("Length", 38.0), ("Length", 34.0)}, found


def test_units_outside_the_vocabulary_are_the_rows_units_as_printed() -> None:
    """A noble-gas or cosmogenic-nuclide table prints its units and scales in the heads ("3He
    (×10³)", "10Be (×1000 at g⁻¹)", "ε (m Ma⁻¹)"): a row without them is off by the scale, and a
    rate's "Ma⁻¹" is no age unit. A scale's superscript the text layer lost ("×103") is restored."""
    rows = [
        ["Sample", "3He (×103)", "21/20 (×10−3)", "10Be (×1000 at g−1)", "ε (m Ma−1)", "Th [fmol]"],
        ["T7", "66.3", "2.93", "371", "113", "365"],
    ]
    found = {v.column: (v.analyte, v.unit) for v in extract_table_values(rows)}
    assert found == {
        "3He (×103)": ("3He", "×10^3"),
        "21/20 (×10−3)": ("21/20", "×10^−3"),
        "10Be (×1000 at g−1)": ("10Be", "×1000 at g−1"),
        "ε (m Ma−1)": ("ε", "m Ma−1"),
        "Th [fmol]": ("Th", "fmol"),
    }
    # the gold sets name vocabulary units only: a unit outside it is scored as none there
    assert [vocabulary_unit(u) for u in ("fmol", "×10^3", "ppm", "ratio", "wt.%")] == [
        "",
        "",
        "ppm",
        "ratio",
        "wt.%",
    ]


def test_a_column_of_units_beside_the_labels_gives_each_row_its_unit() -> None:
    """A whole-rock table with its samples as columns and a headless column of units between the
    analytes and the samples ("SiO2 | (%) | 98.25 …", GSA Bulletin)."""
    rows = [
        ["", "", "CZ-02", "WALZ-01", "IBR-2"],
        ["SiO2", "(%)", "98.25", "91.55", "97.41"],
        ["TiO2", "(%)", "0.16", "0.178", "0.152"],
        ["MgO", "(%)", "0*", "0.01", "0.09"],
        ["Rb", "(ppm)", "12", "40", "18"],
    ]
    found = {(v.analyte, v.sample): (v.value, v.unit) for v in extract_table_values(rows)}
    assert found[("SiO2", "CZ-02")] == (98.25, "wt.%")
    assert found[("MgO", "IBR-2")] == (0.09, "wt.%")
    assert found[("Rb", "WALZ-01")] == (40.0, "ppm")
    assert len(found) == 12


def test_an_oxide_printed_with_its_subscripts_in_brackets_is_that_oxide() -> None:
    """A Lithos table's text layer prints "SiO[2]", "Al[2]O[3]": the oxides SiO2 and Al2O3, so that a
    search for SiO2 finds them; brackets that hold no oxide's subscript ("s[t]") stay as printed."""
    rows = [
        ["", "PG-1", "PG-2", "PG-3"],
        ["SiO[2]", "87.54", "72.09", "82.64"],
        ["Al[2]O[3]", "5.55", "8.63", "7.81"],
        ["K[2]O", "0.83", "2.32", "1.36"],
    ]
    found = {(v.analyte, v.sample): v for v in extract_table_values(rows, "Major elements (wt.%)")}
    assert (found[("SiO2", "PG-1")].value, found[("SiO2", "PG-1")].unit) == (87.54, "wt.%")
    assert found[("Al2O3", "PG-3")].row == "Al[2]O[3]"  # the label as printed
    assert found[("K2O", "PG-2")].value == 2.32


def test_a_group_header_printed_once_over_its_columns_names_no_quantity() -> None:
    """A paleomagnetic table prints "In situ statistics" once over "N D ΔD I k α95" and "Tilt
    corrected" over "Dec Inc": each column's own head is its quantity, the group a note; the count
    "N" under the group is no nitrogen."""
    rows = [
        ["Code", "Latitude", "Longitude", "In situ", "", "", "", "", "Tilt", "", "Strike", "Dip"],
        ["", "", "", "statistics", "", "", "", "", "corrected", "", "", ""],
        ["", "", "", "N", "D", "ΔD", "I", "α95", "Dec", "Inc", "", ""],
        ["BD01", "38.027", "-8.430", "24", "100.5", "4.94", "9.68", "5.97", "108.12", "-19.64", "329", "73"],
        ["BD03", "37.349", "-8.321", "46", "144.25", "3.04", "21.58", "3.42", "", "", "320", "56"],
    ]
    found = {(v.row, v.analyte): v for v in extract_table_values(rows)}
    assert {a for r, a in found if r == "BD01"} == {"D", "I", "α95", "Dec", "Inc", "Strike", "Dip"}
    declination = found[("BD01", "D")]
    assert (declination.value, declination.uncertainty) == (100.5, 4.94)
    assert "group: In situ statistics" in declination.notes
    assert "group: Tilt corrected" in found[("BD01", "Dec")].notes


def test_a_fission_track_tables_track_counts_are_no_nickel() -> None:
    """ "Ns", "Ni" and "Nd" head a fission-track table's counts of spontaneous, induced and dosimeter
    tracks: counts, like "Ns", never nickel or neodymium concentrations."""
    rows = [
        ["Sample", "Ns", "ρs", "Ni", "ρi", "Nd", "Age (Ma)"],
        ["JR1", "326", "1.68", "1679", "8.66", "2128", "13.3 ± 0.9"],
        ["JR2", "512", "2.14", "1771", "7.40", "2128", "71.9 ± 3.2"],
    ]
    found = {(v.row, v.analyte) for v in extract_table_values(rows)}
    assert not {a for _, a in found} & {"Ni", "Nd", "Ns"}
    assert ("JR1", "age") in found
    rows[0] = ["Sample", "Nb", "ρs", "Ni", "ρi", "Nd", "Age (Ma)"]  # no "Ns": concentrations
    assert {"Ni", "Nd"} <= {v.analyte for v in extract_table_values(rows)}
    # "Ns Ni Age err" printed twice across the page, a grain in each: both grains' ages are kept
    rows = [
        ["", "Ns", "Ni", "Age", "err", "Ns", "Ni", "Age", "err"],
        ["JR1", "4", "52", "23.1", "12", "2", "85", "7.1", "5.1"],
        ["JR2", "12", "319", "11.3", "3.3", "12", "267", "13.5", "4"],
    ]
    ages = {(v.row, v.apart): (v.value, v.uncertainty) for v in extract_table_values(rows)}
    assert ages == {
        ("JR1", ""): (23.1, 12.0),
        ("JR1", "column 2"): (7.1, 5.1),
        ("JR2", ""): (11.3, 3.3),
        ("JR2", "column 2"): (13.5, 4.0),
    }


def test_a_caption_that_ends_in_a_unit_gives_it_to_the_columns_that_print_none() -> None:
    """ "Cosmogenic-nuclide data (×10⁴ atoms g⁻¹)": every nuclide column holds concentrations in that
    unit (the superscript flattened to "×104" read back); a bracket inside the caption's sentence
    ("elevations (m) and ages") is one column's, not the table's. "(ºC)" with an ordinal o and a
    bare degree sign "(°)" are units too."""
    rows = [
        ["Sample ID", "26Al", "σ(26Al)", "21Ne", "σ(21Ne)", "T (ºC)", "Strike (°)"],
        ["1", "163.0", "7.1", "1,990", "46", "20", "329"],
    ]
    found = {
        v.column: (v.analyte, v.unit, v.uncertainty)
        for v in extract_table_values(rows, "Cosmogenic-nuclide data (×104 atoms g−1)")
    }
    assert found["26Al"] == ("26Al", "×10^4 atoms g−1", 7.1)
    assert found["21Ne"] == ("21Ne", "×10^4 atoms g−1", 46.0)
    assert found["T (ºC)"][:2] == ("T", "°C") and found["Strike (°)"][:2] == ("Strike", "°")
    inside = {
        v.column: v.unit for v in extract_table_values(rows, "Sample locations, elevations (m) and ages")
    }
    assert inside["26Al"] == ""


def test_uncertainties_in_brackets_on_the_line_under_the_values() -> None:
    """A U–Th–He table prints each analysis's 2σ in brackets on a line of its own under its values;
    a caption that says the brackets count analyses keeps them out, and "0.70350" over "(12)" (the
    last digits' uncertainty) is not given ±12."""
    rows = [
        ["#", "fU", "fHe", "t1", "87Sr/86Sr"],
        ["B188.1", "0.3793", "0.3219", "431", "0.70350"],
        ["", "(0.0063)", "(0.0045)", "(21)", "(12)"],
        ["B188.2", "0.3927", "0.3412", "447", "0.70361"],
        ["", "(0.0064)", "(0.0043)", "(27)", "(9)"],
    ]
    caption = "U-Th-He data; 2σ analytical uncertainties are given in parentheses."
    found = {(v.row, v.column): v for v in extract_table_values(rows, caption)}
    assert (found[("B188.1", "fU")].uncertainty, found[("B188.1", "fU")].uncertainty_level) == (0.0063, "2σ")
    assert found[("B188.2", "t1")].uncertainty == 27.0
    assert found[("B188.1", "87Sr/86Sr")].uncertainty is None
    assert len(found) == 8  # the bracket lines are no rows of their own
    standard_errors = extract_table_values(rows, "Results; uncertainties in parentheses are 2SE.")
    assert {v.uncertainty_level for v in standard_errors if v.uncertainty is not None} == {"2SE"}
    counted = extract_table_values(rows, "Means; the number of analyses is given in brackets.")
    assert all(v.uncertainty is None for v in counted)


def test_a_matrix_of_pairs_holds_no_values_of_its_labels() -> None:
    """A road-distance table with the same cities down the side and across the top, or a test
    statistic for every pair of samples, holds values of pairs: no distance is a value of "Brussels"
    (a correlation matrix's "1.00" diagonal was the only sign read before). A table whose one row
    label happens to be a column's head is read as before."""
    cities = ["Athens", "Brussels", "Rome", "Vienna"]
    rows = [["", *cities], *[[c, *[str(abs(i - j) * 700) for j in range(4)]] for i, c in enumerate(cities)]]
    assert extract_table_values(rows, "Table 12.2: road distances between European cities, in km") == []
    letters = ["a", "b", "c", "d"]
    rows = [
        ["", *letters],
        *[[x, *["" if i <= j else f"{i * 37 + j}" for j in range(4)]] for i, x in enumerate(letters)],
    ]
    assert extract_table_values(rows, "Chi-square statistics of the samples") == []
    rows = [
        ["Sample", "SiO2", "MgO", "Mean"],
        ["KL-1", "49.8", "7.2", "28.5"],
        ["KL-2", "50.1", "6.9", "28.5"],
        ["Mean", "50.0", "7.0", "28.5"],
    ]
    assert len(extract_table_values(rows)) == 9


def test_a_left_column_table_wider_than_half_the_page_keeps_its_last_column() -> None:
    """A GSA summary table in the left column of two, its last column reaching past the page's
    middle, the other column's text beside its rows: the table reaches to the gutter, not the middle;
    rows that print locations in degrees and minutes and a depositional age range are data."""
    prose = [
        "the apatite fission track data of all of the",
        "Great Valley Group samples are shown in the",
        "Figure 2 and they are discussed below in full",
    ]
    words = _line(50, ("TABLE", 60), ("1.", 92), ("SUMMARY", 104), ("OF", 146), ("AGES", 160))
    words += _line(62, ("Sample", 60), ("Latitude", 100), ("Depo", 150), ("age", 172), ("ZFT", 210),
                   ("age", 228), ("AFT", 290), ("age", 308))  # fmt: skip
    words += _line(74, ("GV33", 60), ("36°6′", 100), ("89–95", 150), ("100", 210), ("±", 228), ("6.5", 238))
    words += _line(86, ("JR1", 60), ("36°20′", 100), ("90–100", 150), ("98.1", 210), ("±", 232), ("4.3", 242),
                   ("13.3", 290), ("±", 312), ("0.9", 322))  # fmt: skip
    words += _line(
        98, ("JR2", 60), ("36°19′", 100), ("90–93.5", 150), ("71.9", 290), ("±", 312), ("3.2", 322)
    )
    for k, text in enumerate(prose * 2):  # the other column's lines, 5 pt a character
        starts = [m.start() for m in re.finditer(r"\S+", text)]
        words += [(w, 384 + 5 * at, 50 + 12 * k) for w, at in zip(text.split(), starts, strict=True)]
    (table,) = page_word_tables(FakePage(words), 3)
    assert table.box[2] < 384  # the text column beside it is no part of it
    assert table.rows[-1][0] == "JR2" and table.rows[-1][-3:] == ["71.9", "±", "3.2"]
    values = {(v.sample, v.column): v for v in extract_table_values(table.rows, table.caption)}
    aft = values["JR1", "AFT age"]
    assert (aft.value, aft.uncertainty, aft.printed) == (13.3, 0.9, "13.3 ± 0.9")
    depo = values["JR2", "Depo age"]
    assert (depo.analyte, depo.value, depo.value_max) == ("age", 90, 93.5)
    assert all(v.row == v.sample for v in values.values())  # the latitude is no part of the row label


def test_a_range_cell_is_a_value_and_its_high_end() -> None:
    """ "89–95", "16.4–14.8" (older first), a review's "25 − 66 (45)" with its mean in brackets: low
    and high end; the mean is a note, no uncertainty. "10-3" in a value column is no range."""
    rows = [
        ["Rock type", "Sn (ppm)", "Age (Ma)", "Run"],
        ["Roof zone", "25 − 66 (45)", "16.4–14.8", "10-3"],
        ["Floor zone", "4-7 (5)", "89–95", "12"],
    ]
    values = {(v.row, v.analyte): v for v in extract_table_values(rows, "Table 2. Tin contents")}
    tin = values["Roof zone", "Sn"]
    assert (tin.value, tin.value_max, tin.uncertainty, tin.qualifier) == (25, 66, None, "range")
    assert "mean of the range 45, printed in brackets" in tin.notes
    assert (values["Floor zone", "Sn"].value, values["Floor zone", "Sn"].value_max) == (4, 7)
    age = values["Roof zone", "age"]
    assert (age.value, age.value_max, age.unit) == (14.8, 16.4, "Ma")
    assert not any(v.printed == "10-3" for v in values.values())


def test_a_column_of_lone_plus_minus_signs_joins_value_and_uncertainty() -> None:
    """ "131  ±  5" set with wide spaces, gridded as three columns under one spread group header:
    one value with its uncertainty, not three values."""
    rows = [
        ["Sample", "U/Pb age", "U/Pb age", "U/Pb age", "ZFT age", "ZFT age", "ZFT age"],
        ["", "(Ma)", "", "", "", "", "(Ma)"],
        ["GV33", "131", "±", "5", "100", "±", "6.5"],
        ["GV21", "132", "±", "4", "98.7", "±", "4.4"],
    ]
    values = extract_table_values(rows, "Table 1. Summary of geochronological data")
    assert {(v.sample, v.column, v.value, v.uncertainty, v.unit) for v in values} == {
        ("GV33", "U/Pb age (Ma)", 131, 5, "Ma"), ("GV33", "ZFT age (Ma)", 100, 6.5, "Ma"),
        ("GV21", "U/Pb age (Ma)", 132, 4, "Ma"), ("GV21", "ZFT age (Ma)", 98.7, 4.4, "Ma"),
    }  # fmt: skip


def test_parameters_stated_in_the_label_column_under_a_sample_keep_its_grains() -> None:
    """A fission-track table (GSA Data Repository) prints the sample in the label column, then its
    ζ and ρD on the next two rows' labels, then blank labels: every grain row is the sample's."""
    rows = [
        ["", "", "Ns", "Ni", "Age", "err"],
        ["", "JR1", "4", "52", "23.1", "12"],
        ["ζ", "= 385.9", "12", "319", "11.3", "3.3"],
        ["ρD", "= 1557600", "2", "33", "18.2", "13"],
        ["", "", "2", "68", "8.8", "6.3"],
        ["", "JR2", "12", "50", "71.5", "23"],
        ["ζ", "= 385.9", "2", "28", "21.4", "16"],
    ]
    values = extract_table_values(rows, "Table 2: Apatite fission track ages")
    assert [(v.row, v.value, v.uncertainty) for v in values] == [
        ("JR1", 23.1, 12), ("JR1", 11.3, 3.3), ("JR1", 18.2, 13), ("JR1", 8.8, 6.3), ("JR2", 71.5, 23),
        ("JR2", 21.4, 16),
    ]  # fmt: skip
    assert "row: line 3 of 'JR1' (its label cell states 'ρD = 1557600')" in values[2].notes
    # under a row that names no item, a statement is a row of its own: sample sizes in a statistics table
    rows = [["", "λ = 200"], ["n = 10", "61.2"], ["n = 100", "0.32"], ["n = 1000", "0.0"]]
    assert [v.row for v in extract_table_values(rows, "Table 1. Power of the test, β in %")] == [
        "n = 10",
        "n = 100",
        "n = 1000",
    ]


def test_columns_headed_by_identifiers_are_samples_whatever_the_rows_name() -> None:
    """A noble-gas table (EPSL): its columns are targets named by place and code ("Säntis (T7)"), its
    rows quantities the vocabulary mostly does not know; each value is the column's, its "2σ" row the
    uncertainty of the row above, positions no values; the code in brackets is the sample, as in a
    row label."""
    rows = [
        ["Location", "Monte Rosa (T12)", "Säntis (T7)"],
        ["Latitude", "45.94", "47.25"],
        ["Elevation", "4554", "2502"],
        ["3He [×103]", "1561", "418"],
        ["2σ", "72", "34"],
        ["P(3He)", "3064", "807"],
    ]
    values = {
        (v.sample, v.analyte): v for v in extract_table_values(rows, "Table 3. Cosmogenic nuclide data")
    }
    assert set(values) == {
        ("T12", "Elevation"), ("T7", "Elevation"), ("T12", "3He"), ("T7", "3He"), ("T12", "P(3He)"),
        ("T7", "P(3He)"),
    }  # fmt: skip
    helium = values["T7", "3He"]
    assert (helium.value, helium.uncertainty, helium.unit, helium.column) == (418, 34, "×10^3", "Säntis (T7)")
    assert "sample: the code the column header prints in brackets" in helium.notes


def test_a_caption_sentence_spilled_into_a_header_and_the_quantity_in_the_label_head() -> None:
    """A statistics table whose caption's last words the grid joined to a column head ("‘acceptable’
    solution. λ=800 (c=0.02)"): the head is the condition after the sentence; the quantity and its
    unit are the label column's head ("β (%)"), the caption naming none. "Conc. (ppm)" keeps its
    abbreviation."""
    rows = [
        ["", "", "‘acceptable’ solution."],
        ["β (%)", "λ=200 (c=0.01)", "λ=800 (c=0.02)"],
        ["n=10", "86.4", "50.1"],
        ["n=100", "61.2", "0.32"],
    ]
    values = extract_table_values(rows, "Table 1. Power of the test")
    assert {(v.row, v.column, v.analyte, v.value, v.unit) for v in values} == {
        ("n=10", "λ=200 (c=0.01)", "β", 86.4, "%"), ("n=10", "λ=800 (c=0.02)", "β", 50.1, "%"),
        ("n=100", "λ=200 (c=0.01)", "β", 61.2, "%"), ("n=100", "λ=800 (c=0.02)", "β", 0.32, "%"),
    }  # fmt: skip
    rows = [["Sample", "Conc. (ppm)"], ["A-1", "12.5"], ["A-2", "13.0"]]
    assert [v.column for v in extract_table_values(rows, "Table 2. Uranium")] == ["Conc. (ppm)"] * 2


def test_a_note_under_a_table_set_small_with_no_mark_is_its_footnote_and_gives_units(tmp_path: Path) -> None:
    """Journals print "Trace elements in ppm by XRF …" under a whole-rock table with no footnote mark,
    in the table's small type. That note is the table's footnote (running text at the page's prose
    size after it is not), and it gives the element rows their unit; the oxides keep theirs."""
    import pdfplumber

    from tests.assets.paper_builders import pages_pdf, text_lines

    prose = [f"Running text of the paper, line {i}, set in the size of its prose." for i in range(12)]
    table = [
        (118.0, 9.0, [(72.0, "Table 1. Whole-rock analyses of the Kerrow granites")]),
        (134.0, 8.0, [(72.0, "Sample"), (200.0, "KR-1"), (260.0, "KR-2"), (320.0, "KR-3")]),
        (146.0, 8.0, [(72.0, "SiO2 (wt.%)"), (200.0, "72.1"), (260.0, "73.4"), (320.0, "74.0")]),
        (156.0, 8.0, [(72.0, "Al2O3 (wt.%)"), (200.0, "13.9"), (260.0, "13.2"), (320.0, "12.8")]),
        (166.0, 8.0, [(72.0, "Rb"), (200.0, "250"), (260.0, "310"), (320.0, "402")]),
        (176.0, 8.0, [(72.0, "Sr"), (200.0, "45"), (260.0, "38"), (320.0, "21")]),
        (186.0, 8.0, [(72.0, "Nb"), (200.0, "18"), (260.0, "24"), (320.0, "33")]),
        (200.0, 7.0, [(72.0, "Analyses by X-Ray Assay Laboratories. Trace elements in ppm by XRF,")]),
        (208.0, 7.0, [(72.0, "if not otherwise mentioned.")]),
    ]
    after = text_lines(226.0, 12.0, 10.0, ["The granites are rich in Rb and poor in Sr.", *prose[:4]])
    path = pages_pdf(tmp_path / "note.pdf", [[*text_lines(30.0, 12.0, 10.0, prose[4:10]), *table, *after]])
    with pdfplumber.open(path) as pdf:
        (found,) = page_word_tables(pdf.pages[0], 1)
    assert found.note == (
        "Analyses by X-Ray Assay Laboratories. Trace elements in ppm by XRF, if not otherwise mentioned."
    )
    values = {
        (v.sample, v.analyte): v for v in extract_table_values(found.rows, found.caption, "", found.note)
    }
    assert (values["KR-1", "Rb"].value, values["KR-1", "Rb"].unit) == (250, "ppm")
    assert values["KR-3", "Nb"].unit == "ppm" and values["KR-2", "SiO2"].unit == "wt.%"
    # without the note, the elements have no unit: the note is what gives it
    bare = {(v.sample, v.analyte): v.unit for v in extract_table_values(found.rows, found.caption)}
    assert bare["KR-1", "Rb"] == "" and bare["KR-1", "SiO2"] == "wt.%"


def test_a_footnote_names_the_unit_of_a_kind_of_row_only_where_it_names_the_kind() -> None:
    from geo_assets.measurements.table_headers import units_of_notes

    assert units_of_notes("Major elements are given in wt.%, trace elements in ppm.") == {
        "oxide": "wt.%",
        "element": "ppm",
    }
    assert units_of_notes("Trace element concentrations in ppm; REE by ICP-MS.") == {"element": "ppm"}
    assert units_of_notes("Errors are 2σ in Ma; n.a., not analysed.") == {}
