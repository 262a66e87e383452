"""A table carried onto the next page without its header or a caption line (a long supplement table,
a report's appendix, a DataFrame over a page break) keeps its header, label and rows there
(:func:`geo_assets.ingest.pdf.bare_tables.continue_table`); a table without a caption keeps every line
of its header (:mod:`geo_assets.ingest.pdf.word_tables`)."""

from __future__ import annotations

from pathlib import Path

import pytest

from geo_assets.ingest.pdf import pdf_to_tei
from geo_assets.ingest.pdf.bare_tables import continue_table
from geo_assets.ingest.pdf.word_tables import WordTable
from geo_assets.ingest.tei import tei_to_paper
from geo_assets.measurements.table_values import extract_table_values, header_rows
from geo_rag_runtime.models import Caption

# USGS Open-File Report 2009-1136 (public domain), pages 50-51 and 60-61: an appendix table without a
# caption over two pages, and Table 1 whose second page prints neither caption nor header
JAISWAL = (
    Path(__file__).parents[1] / "fixtures" / "papers" / "Jaiswal2009_USGS_OFR_tables_pages_50-51_60-61.pdf"
)


@pytest.fixture(scope="module")
def tables() -> list[Caption]:
    tei = pdf_to_tei(JAISWAL)
    paper = tei_to_paper(tei, paper_id="p", source_file=JAISWAL.name, sha256="0" * 64)
    return [c for c in paper.captions if c.kind == "table"]


def _values(caption: Caption) -> dict[tuple[str, str], float]:
    return {(v.row, v.column): v.value for v in extract_table_values(caption.rows, caption.text)}


def test_a_captioned_table_carried_over_keeps_its_label_and_header(tables: list[Caption]) -> None:
    first, rest = (c for c in tables if c.label == "Table 1")
    assert (first.page, rest.page) == (3, 4)
    assert rest.text == "(continued)"
    head = header_rows(first.rows)
    assert len(head) >= 5 and rest.rows[: len(head)] == head  # the first page's header, carried over
    assert ["38", "Georgia", "114", "132", "6", "22"] in rest.rows
    values = _values(rest)
    assert (
        values["Georgia", "Maximum shaking deaths (10 or more) due to any single earthquake since 1900"]
        == 114
    )
    assert values["Panama", "Average shaking deaths per earthquake since 1900"] == 5
    assert len(values) == 17 * 4


def test_a_table_without_caption_keeps_its_header_lines_on_both_pages(tables: list[Caption]) -> None:
    one, two = (c for c in tables if c.label.startswith("Uncaptioned table"))
    assert (one.label, two.label) == ("Uncaptioned table, page 1", "Uncaptioned table, page 2")
    assert one.rows[:3] == two.rows[:3]  # three header lines, carried to the second page
    assert one.rows[1][:4] == ["Country Name", "ISO code", "Theta", "Beta"]
    values = _values(two)
    assert values["Cambodia / KH", "Theta"] == 13.71
    # the wrapped "ζ (residual error)" is a quantity of its own, not Beta's uncertainty
    assert values["Cambodia / KH", "ζ (residual error)"] == 1.89
    assert values["Cambodia / KH", "Number of earthquakes"] == 110
    assert not any(v.uncertainty for v in extract_table_values(two.rows, two.text))


def _table(columns: list[tuple[float, float]], rows: list[list[str]], header_rows: int) -> WordTable:
    return WordTable("", 1, rows, header_rows, columns=columns, bottom=700.0)


def test_lines_that_do_not_line_up_with_the_last_table_are_not_its_continuation() -> None:
    last = _table([(70, 110), (150, 180), (220, 250), (290, 320)], [["Sample", "SiO2", "MgO", "CaO"],
                  ["KL-1", "49.8", "7.2", "11.0"]], 1)  # fmt: skip
    aligned = WordTable(
        "", 2, [["KL-2", "50.1", "6.9", "10.8"]], 0, columns=[(72, 100), (152, 178), (222, 248), (292, 318)]
    )
    carried = continue_table([last], aligned)
    assert carried is not None and carried.rows == [
        ["Sample", "SiO2", "MgO", "CaO"],
        ["KL-2", "50.1", "6.9", "10.8"],
    ]
    assert carried.page == 2 and carried.header_rows == 1
    # an equation's numbers between the columns, and a row with nothing in the label column
    between = WordTable("", 2, [["1.5", "3.2", "0.7"]], 0, columns=[(120, 140), (190, 210), (260, 280)])
    unlabelled = WordTable("", 2, [["6.9", "10.8"]], 0, columns=[(222, 248), (292, 318)])
    assert continue_table([last], between) is None
    assert continue_table([last], unlabelled) is None
    assert continue_table([], aligned) is None


def test_a_continued_page_takes_the_unit_its_first_page_s_caption_gives() -> None:
    """The unit a caption gives every cell ("(wt.%)") holds on the pages that say only "(continued)"."""
    from geo_assets.ingest.cleaned_paper import clean_paper
    from geo_assets.measurements.extract import paper_measurements
    from geo_rag_runtime.models import Paper, Section

    header = [["Sample", "SiO2", "MgO"]]
    captions = [
        Caption(kind="table", label="Table 2", page=4, text="Major element compositions (wt.%) of the basalts",
                rows=[*header, ["KL-1", "49.82", "7.21"], ["KL-2", "50.14", "6.87"]]),
        Caption(kind="table", label="Table 2", page=5, text="(continued)",
                rows=[*header, ["KL-3", "48.96", "8.03"]]),
    ]  # fmt: skip
    paper = Paper(
        paper_id="p7", source_file="t.pdf", title="Basalts", sha256="0" * 64,
        sections=[Section(heading="Results", paragraphs=["Table 2 gives the compositions."])], captions=captions,
    )  # fmt: skip
    cleaned = clean_paper(paper)
    rows = [r for r in paper_measurements(cleaned, [], paper.captions) if r.source_type == "table"]
    assert {(r.sample, r.analyte, r.value, r.unit, r.page) for r in rows if r.sample == "KL-3"} == {
        ("KL-3", "SiO2", 48.96, "wt.%", 5),
        ("KL-3", "MgO", 8.03, "wt.%", 5),
    }
    assert {r.unit for r in rows} == {"wt.%"}
    # each page's rows are cited at that page's block of the cleaned text
    for row in rows:
        assert row.sample in cleaned.text[row.char_start : row.char_end], row


def test_each_page_of_a_table_captioned_on_every_other_page_keeps_its_own_page(tmp_path: Path) -> None:
    """A long data table captioned on pages 1 and 3 ("Table 1. (continued)") and carried on without a
    caption or header on pages 2 and 4. Before, the continued pages' caption entries were added for
    the next pages in page order (2 and 3, not 2 and 4) and paired with grids in list order, so the
    rows of page 2 were stored as page 3's, those of page 3 as page 2's and so on: every cell cited
    to the wrong page."""
    from tests.assets.paper_builders import pages_pdf, text_lines

    columns = (72.0, 150.0, 230.0, 310.0, 390.0)
    header = (
        118.0,
        8.0,
        list(zip(columns, ["Analysis", "206Pb/238U", "2s", "207Pb/235U", "2s"], strict=True)),
    )

    def rows(prefix: str, top: float) -> list[tuple[float, float, list[tuple[float, str]]]]:
        out = []
        for i in range(14):
            cells = [f"{prefix}{i + 1}", f"0.{1050 + 7 * i}", "1.5", f"0.{8700 + 11 * i}", "2.4"]
            out.append((top + 12.0 * i, 8.0, list(zip(columns, cells, strict=True))))
        return out

    prose = text_lines(72.0, 12.0, 10.0, ["Zircon U-Pb results of the sandstone samples are listed below."])
    first = [(60.0, 14.0, [(72.0, "Detrital zircon ages")]), *prose,
             (100.0, 9.0, [(72.0, "Table 1. LA-ICP-MS U-Pb results")]), header, *rows("a", 132.0)]  # fmt: skip
    third = [(100.0, 9.0, [(72.0, "Table 1. (continued)")]), header, *rows("c", 132.0)]
    pdf = pages_pdf(tmp_path / "long_table.pdf", [first, rows("b", 72.0), third, rows("d", 72.0)])
    paper = tei_to_paper(pdf_to_tei(pdf), paper_id="p", source_file=pdf.name, sha256="0" * 64)
    pages = {}
    for caption in (c for c in paper.captions if c.kind == "table"):
        labels = {row[0][0] for row in caption.rows if row and row[0][:1] in "abcd" and row[0][1:].isdigit()}
        assert len(labels) == 1, (caption.page, labels)
        pages[labels.pop()] = caption.page
    assert pages == {"a": 1, "b": 2, "c": 3, "d": 4}
