"""Tables printed without a caption (a supplement's bare table, a notebook's DataFrame) reach the TEI
and the measurement rows; figures' axis ticks and displayed equations, which look alike to the word
reader, do not (:mod:`geo_assets.ingest.pdf.bare_tables`)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pdfplumber
import pytest

from geo_assets.ingest.pdf import pdf_to_tei
from geo_assets.ingest.pdf.bare_tables import is_bare_table
from geo_assets.ingest.pdf.word_tables import WordTable, page_word_tables
from geo_assets.ingest.tei import tei_to_paper
from geo_assets.measurements.table_values import extract_table_values
from tests.assets.paper_builders import text_pdf

PROSE = (
    "Supplementary Table: whole-rock chemistry of the rift basalts",
    "Whole-rock major elements of the basalts were measured by XRF on fused glass beads.",
    "The samples were collected along the northern rift zone in two field seasons.",
)
TABLE = (
    ("Sample", "SiO2", "TiO2", "Al2O3", "MgO"),
    ("KL-1", "49.82", "2.31", "13.90", "7.21"),
    ("KL-2", "50.14", "2.45", "14.02", "6.87"),
    ("KL-3", "48.96", "2.18", "13.55", "8.03"),
    ("KL-4", "51.07", "2.62", "14.31", "6.12"),
)


def _page_with_bare_table(path: Path) -> Path:
    lines = [(80.0 + 12 * i, [(72.0, text)]) for i, text in enumerate(PROSE)]
    for i, row in enumerate(TABLE):
        lines.append((130.0 + 12 * i, [(72.0 + 70 * j, cell) for j, cell in enumerate(row)]))
    return text_pdf(path, lines)


def test_a_table_without_caption_reaches_the_tei_and_the_measurement_rows(tmp_path: Path) -> None:
    pdf = _page_with_bare_table(tmp_path / "supplement.pdf")
    paper = tei_to_paper(pdf_to_tei(pdf), paper_id="p", source_file=pdf.name, sha256="0" * 64)
    (table,) = [c for c in paper.captions if c.kind == "table"]
    assert table.label == "Uncaptioned table, page 1" and table.page == 1
    assert table.rows[0] == list(TABLE[0]) and table.rows[-1] == list(TABLE[-1])
    assert paper.title.startswith("Supplementary Table")
    values = {(v.row, v.analyte): v for v in extract_table_values(table.rows, table.text)}
    assert len(values) == 16  # four samples × four oxides
    assert values["KL-3", "MgO"].value == 8.03
    assert values["KL-3", "MgO"].unit == ""  # no header or caption gives one: none is guessed
    assert values["KL-3", "MgO"].sample == "KL-3"


def test_the_same_numbers_as_axis_ticks_or_an_equation_are_no_table(tmp_path: Path) -> None:
    ticks = [(80.0 + 12 * i, [(72.0, text)]) for i, text in enumerate(PROSE)]
    ticks.append((130.0, [(72.0 + 70 * j, w) for j, w in enumerate(("Age", "Ma", "density", "n", "f"))]))
    for i in range(4):  # a row of evenly spaced numbers in every line: a scale, not data
        ticks.append((142.0 + 12 * i, [(72.0 + 70 * j, f"{100 + 20 * j}") for j in range(5)]))
    with pdfplumber.open(text_pdf(tmp_path / "ticks.pdf", ticks)) as pdf:
        (found,) = page_word_tables(pdf.pages[0], 1)
        assert found.label == "" and not is_bare_table(found, pdf.pages[0])
    matrix = [(80.0 + 12 * i, [(72.0, text)]) for i, text in enumerate(PROSE)]
    matrix.append((130.0, [(72.0 + 60 * j, w) for j, w in enumerate(("", "a", "b", "c"))]))
    for i, row in enumerate((("X", "=", "0.034", "99.88", "0.091"), ("", "", "1.5", "3.2", "0.7"),
                             ("", "", "2.5", "1.1", "4.9", "(12)"))):  # fmt: skip
        matrix.append((142.0 + 12 * i, [(72.0 + 60 * j, w) for j, w in enumerate(row) if w]))
    with pdfplumber.open(text_pdf(tmp_path / "equation.pdf", matrix)) as pdf:
        assert not any(is_bare_table(t, pdf.pages[0]) for t in page_word_tables(pdf.pages[0], 1))


class _Drawing:
    """A page with vector strokes over a box, as pdfplumber lists them."""

    def __init__(self, strokes: int, lines: list[dict[str, Any]] | None = None) -> None:
        stroke = {"x0": 10.0, "x1": 20.0, "top": 10.0, "bottom": 20.0}
        self.curves: list[dict[str, Any]] = [stroke] * strokes
        self.lines: list[dict[str, Any]] = lines or []


def test_a_block_drawn_over_is_a_figure_and_a_ruled_table_is_not() -> None:
    table = WordTable("", 1, [list(row) for row in TABLE], 1, box=(0.0, 0.0, 400.0, 100.0))
    assert is_bare_table(table, _Drawing(strokes=2))  # a table's rules
    assert not is_bare_table(table, _Drawing(strokes=60))  # a plot's curves and ticks


def test_a_table_ruled_cell_by_cell_is_a_table_and_the_same_strokes_as_ticks_are_a_figure() -> None:
    """A survey report's table drawn as a grid, one short rule per cell under every row and beside
    every column: more straight strokes than cells, which before made it a figure and lost it."""
    table = WordTable("", 1, [list(row) for row in TABLE], 1, box=(0.0, 0.0, 400.0, 100.0))
    grid = [
        {"x0": 80.0 * j, "x1": 80.0 * (j + 1), "top": 20.0 * i, "bottom": 20.0 * i}
        for i in range(6)
        for j in range(5)
    ] + [
        {"x0": 80.0 * j, "x1": 80.0 * j, "top": 20.0 * i, "bottom": 20.0 * (i + 1)}
        for i in range(5)
        for j in range(6)
    ]
    assert len(grid) > 25  # more strokes than the 25 cells
    assert is_bare_table(table, _Drawing(strokes=0, lines=grid))
    # as many short ticks along two axes, or the grid with a plotted curve: a figure
    ticks = [{"x0": 5.0 * k, "x1": 5.0 * k, "top": 95.0, "bottom": 100.0} for k in range(len(grid))]
    assert not is_bare_table(table, _Drawing(strokes=0, lines=ticks))
    assert not is_bare_table(table, _Drawing(strokes=1, lines=grid))


def test_a_sentence_row_with_an_equals_sign_is_the_table_s_and_a_short_one_an_equation() -> None:
    sentence = ["weighted mean 206Pb/238U age = 1096.19 ± 0.19 Ma", "", "", "", ""]
    rows = [list(row) for row in TABLE]
    assert is_bare_table(WordTable("", 1, [*rows, sentence], 1), _Drawing(strokes=0))
    assert not is_bare_table(WordTable("", 1, [*rows, ["X =", "", "", "", "(7)"]], 1), _Drawing(strokes=0))


@pytest.mark.parametrize(
    ("paper", "pages"),
    [
        ("Keller2018_GPL_ZirconEruptionAge_CCBY.pdf", (13, 14, 15)),
        # page 8's panels make no block at all now that a line of heads between data lines ends one
        ("McNabBall2023_Volcanica_meltPT_CCBY.pdf", (10,)),
    ],
)
def test_real_figure_pages_give_no_table(sample_papers: Path, paper: str, pages: tuple[int, ...]) -> None:
    """Figure panels of two CC BY papers: numbers under words, which the word reader finds as blocks
    without a caption; none is kept as a table (so the TEI of these papers is unchanged)."""
    with pdfplumber.open(sample_papers / paper) as pdf:
        for number in pages:
            page = pdf.pages[number - 1]
            bare = [t for t in page_word_tables(page, number) if not t.label]
            assert bare, f"page {number}: the word reader found no block, so this test checks nothing"
            assert not any(is_bare_table(t, page) for t in bare), f"page {number}"


def test_a_data_report_s_header_of_names_row_labels_and_units_is_read_whole(tmp_path: Path) -> None:
    """An appendix table of a data report without a caption: the elements on one header line, their
    units on the next, and "No. Sample" set left between the two. Before, the short "No. Sample"
    line read as running text and ended the header, so every column was headed by its unit alone
    ("ppm"); and with the names line back, its heads, set wider apart than a phrase's words, were
    read as group-header phrases ("Au Ag As" over three columns)."""
    heads = ("Au", "Ag", "As", "Ba", "Al")
    units = ("ppm", "ppm", "ppm", "ppm", "%")
    x = [200.0, 226.0, 252.0, 290.0, 316.0]  # "Au Ag As" and "Ba Al" a little further apart
    lines = [(80.0 + 12 * i, [(72.0, text)]) for i, text in enumerate(PROSE)]
    lines += [
        (130.0, [(150.0, "Rock"), *zip(x, heads, strict=True)]),
        (136.0, [(72.0, "No."), (90.0, "Sample")]),
        (142.0, [(150.0, "Type"), *zip(x, units, strict=True)]),
    ]
    data = [("M001", "Cbs", "0.006", "<0.5", "7", "20", "7.48"), ("M007", "Atf", "0.002", "<0.5", "21", "140", "6.30"),
            ("M010", "Atf", "0.001", "<0.5", "<5", "470", "6.92"), ("M012", "Adcp", "<0.01", "<0.5", "<5", "70", "4.91")]  # fmt: skip
    for k, (sample, rock, *values) in enumerate(data):
        lines.append(
            (
                156.0 + 12 * k,
                [(72.0, str(k + 1)), (90.0, sample), (150.0, rock), *zip(x, values, strict=True)],
            )
        )
    with pdfplumber.open(text_pdf(tmp_path / "appendix.pdf", lines)) as pdf:
        (table,) = page_word_tables(pdf.pages[0], 1)
    values = {(v.sample, v.analyte): v for v in extract_table_values(table.rows, "")}
    assert set(values) == {(s, a) for s, *_ in data for a in heads}
    assert (values["M010", "Ba"].value, values["M010", "Ba"].unit) == (470.0, "ppm")
    assert (values["M012", "Au"].qualifier, values["M007", "Al"].unit) == ("<", "wt.%")


@pytest.mark.parametrize("label", ["Table II", "Table 3.1"])
def test_a_table_numbered_in_roman_numerals_or_by_section_keeps_its_caption(
    tmp_path: Path, label: str
) -> None:
    """Older papers and survey reports number tables "Table II" or "Table 3.1" (a report's "Table
    Ⅱ-1-2"). Before, neither was a caption: the table came out as "Uncaptioned table, page 1" and its
    caption's words as body text."""
    lines = [(80.0 + 12 * i, [(72.0, text)]) for i, text in enumerate(PROSE)]
    lines.append((118.0, [(72.0, f"{label}. Major elements of the rift basalts (wt.%)")]))
    for i, row in enumerate(TABLE):
        lines.append((130.0 + 12 * i, [(72.0 + 70 * j, cell) for j, cell in enumerate(row)]))
    pdf = text_pdf(tmp_path / "report.pdf", lines)
    paper = tei_to_paper(pdf_to_tei(pdf), paper_id="p", source_file=pdf.name, sha256="0" * 64)
    (table,) = [c for c in paper.captions if c.kind == "table"]
    assert table.label == label and table.text.startswith("Major elements of the rift basalts")
    values = {(v.row, v.analyte): v for v in extract_table_values(table.rows, table.text)}
    assert values["KL-3", "MgO"].value == 8.03 and values["KL-3", "MgO"].unit == "wt.%"


def test_a_list_of_tables_entry_is_no_caption(tmp_path: Path) -> None:
    """A report's list of tables ("Table 1 Major elements ........ 12") names every table with dot
    leaders and a page number. Before, each entry was a caption of its own, an empty table under the
    label the real caption carries."""
    lines = [(80.0 + 12 * i, [(72.0, text)]) for i, text in enumerate(PROSE)]
    lines += [(118.0, [(72.0, "Table 1. Major elements of the rift basalts . . . . . . . . . . . . 12")]),
              (130.0, [(72.0, "Table 2. Trace elements of the rift basalts . . . . . . . . . . . . 14")]),
              (154.0, [(72.0, "Table 1. Major elements of the rift basalts (wt.%)")])]  # fmt: skip
    for i, row in enumerate(TABLE):
        lines.append((166.0 + 12 * i, [(72.0 + 70 * j, cell) for j, cell in enumerate(row)]))
    pdf = text_pdf(tmp_path / "report.pdf", lines)
    paper = tei_to_paper(pdf_to_tei(pdf), paper_id="p", source_file=pdf.name, sha256="0" * 64)
    tables = [c for c in paper.captions if c.kind == "table"]
    assert [(t.label, len(t.rows)) for t in tables] == [("Table 1", len(TABLE))]


def test_a_table_named_in_running_text_is_no_caption(tmp_path: Path) -> None:
    """ "Table A1 in the GSA Data Repository …" starting a line of running text below a table names
    a table printed elsewhere: it is no caption, and the table above is read once, as the caption
    over it says (a GSA Bulletin page had given the same rows a second time as "Table A1")."""
    lines = [(80.0, [(72.0, "Title of the paper")]), (110.0, [(72.0, "TABLE 2. MAJOR ELEMENT GEOCHEMISTRY")])]
    for i, row in enumerate(TABLE):
        lines.append((130.0 + 12 * i, [(72.0 + 70 * j, cell) for j, cell in enumerate(row)]))
    lines += [
        (210.0, [(72.0, "Table A1 in the GSA Data Repository gives the coordinates of every site sampled.")]),
        (222.0, [(72.0, "Samples were selected in the field based on grain size and textural maturity.")]),
    ]
    with pdfplumber.open(text_pdf(tmp_path / "gsa.pdf", lines)) as pdf:
        tables = page_word_tables(pdf.pages[0], 1)
    assert [t.label for t in tables] == ["Table 2"]
    assert tables[0].rows[-1] == list(TABLE[-1])
