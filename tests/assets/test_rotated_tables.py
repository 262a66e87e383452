"""Tables on pages turned a quarter: the word reader reads the same cells from a real table page
printed landscape as from the page upright.

Each case takes a real table page of a PDF in the repository (the unseen-papers dev gold page of the
Vermeesch 2023 corrigendum, Keller 2018's data supplement, two ACL papers' result tables) and turns it
with pypdf the two ways landscape tables are printed: the page's ``/Rotate`` entry (the content as
before, shown turned), and the content stream itself turned (text drawn with a turned matrix on a
page whose media box is swapped, no ``/Rotate``), both ways round.
"""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import pdfplumber
import pytest
from pypdf import PdfReader, PdfWriter, Transformation
from pypdf.generic import RectangleObject

from geo_assets.ingest.pdf import pdf_to_tei
from geo_assets.ingest.pdf.word_tables import page_word_tables
from geo_assets.ingest.tei import tei_to_paper
from geo_assets.measurements.table_values import extract_table_values

REPO = Path(__file__).resolve().parents[2]
CORRIGENDUM = REPO / "tests/fixtures/papers/Vermeesch2023_Geochronology_DiscordanceCorrigendum_CCBY.pdf"
PAGES = [
    (CORRIGENDUM, 1),  # Table 1, right column of a two-column page; in the dev gold
    (REPO / "data/papers/Keller2018_GPL_ZirconEruptionAge_CCBY.pdf", 13),  # supplement data, no caption
    (REPO / "tests/fixtures/grobid_samples/2020.acl-main.207.pdf", 7),  # Tables 1 and 2
    (REPO / "tests/fixtures/grobid_samples/N18-3011.pdf", 3),  # Table 1
]
TURNS = ["rotate-90", "rotate-270", "content-ccw", "content-cw"]


def _turned_pdf(path: Path, number: int, turn: str, upright_before: Path | None = None) -> bytes:
    """Page ``number`` of ``path`` alone (after page 1 of ``upright_before``), turned by ``turn``."""
    writer = PdfWriter()
    if upright_before is not None:
        writer.add_page(PdfReader(upright_before).pages[0])
    page = writer.add_page(PdfReader(path).pages[number - 1])
    if turn.startswith("rotate"):
        page.rotate(int(turn.split("-")[1]))
    else:
        x0, y0, x1, y1 = (float(v) for v in page.mediabox)
        width, height = x1 - x0, y1 - y0
        move = Transformation().translate(-x0, -y0)
        # anticlockwise: the text reads upwards; clockwise: downwards
        move = (
            move.rotate(90).translate(height, 0)
            if turn == "content-ccw"
            else move.rotate(-90).translate(0, width)
        )
        page.add_transformation(move)
        page.mediabox = page.cropbox = RectangleObject([0, 0, height, width])
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


def _cells(pdf: Any, number: int) -> list[tuple[str, list[list[str]], str]]:
    """Label, cells and caption of each table (the caption's spaces left out: an upright page's
    pdfminer sizes differ by rounding noise between a small-caps "S" and "cience", which pdfplumber
    then splits; the turned page's sizes are rounded)."""
    return [
        (t.label, t.rows, "".join(t.caption.split())) for t in page_word_tables(pdf.pages[number - 1], number)
    ]


def _values(cells: list[tuple[str, list[list[str]], str]]) -> list[tuple[str, str, str, Any]]:
    return [
        (v.row, v.column, v.analyte, v.value)
        for _, rows, caption in cells
        for v in extract_table_values(rows, caption)
    ]


@pytest.fixture(scope="module")
def upright() -> dict[tuple[Path, int], list[tuple[str, list[list[str]], str]]]:
    out = {}
    for path, number in PAGES:
        with pdfplumber.open(path) as pdf:
            out[path, number] = _cells(pdf, number)
    return out


@pytest.mark.parametrize("turn", TURNS)
@pytest.mark.parametrize(("path", "number"), PAGES, ids=[f"{p.stem[:24]}-p{n}" for p, n in PAGES])
def test_a_turned_page_gives_the_upright_pages_cells(
    upright: dict[tuple[Path, int], list[tuple[str, list[list[str]], str]]],
    path: Path,
    number: int,
    turn: str,
) -> None:
    expected = upright[path, number]
    assert expected and all(rows for _, rows, _ in expected)  # the case has a table to lose
    with pdfplumber.open(io.BytesIO(_turned_pdf(path, number, turn))) as pdf:
        page = pdf.pages[0]
        assert page.width > page.height  # landscape, as shown
        tables = page_word_tables(page, 1)
        cells = _cells(pdf, 1)
    assert cells == expected  # labels, captions, every cell with its row and column
    assert _values(cells) == _values(expected) and _values(cells)
    reads_upwards = turn in ("rotate-270", "content-ccw")  # the page is turned clockwise to read it
    assert {t.rotation for t in tables} == {90 if reads_upwards else 270}
    for table in tables:  # the box is on the page as shown
        x0, top, x1, bottom = table.box
        assert 0 <= x0 < x1 <= page.width and 0 <= top < bottom <= page.height


def test_upright_and_page_rotated_upright_tables_are_not_read_twice() -> None:
    """Content drawn sideways and shown upright through ``/Rotate`` (how many landscape pages are
    made) reads as an upright page: pdfminer applies the rotation."""
    turned = _turned_pdf(CORRIGENDUM, 1, "content-cw")
    writer = PdfWriter(clone_from=PdfReader(io.BytesIO(turned)))
    writer.pages[0].rotate(270)
    out = io.BytesIO()
    writer.write(out)
    with pdfplumber.open(io.BytesIO(out.getvalue())) as pdf:
        tables = page_word_tables(pdf.pages[0], 1)
        assert [t.rotation for t in tables] == [0]
    with pdfplumber.open(CORRIGENDUM) as pdf:
        assert tables[0].rows == page_word_tables(pdf.pages[0], 1)[0].rows


@pytest.mark.slow
@pytest.mark.parametrize("turn", ["rotate-90", "content-ccw"])
def test_the_embedded_parser_keeps_a_sideways_tables_caption_and_cells(tmp_path: Path, turn: str) -> None:
    """The line parser reads upright text only, so the caption of a sideways table comes from the
    word reader; the TEI carries the table under it, on its page."""
    pdf = tmp_path / "turned.pdf"
    errorchrons = REPO / "tests/fixtures/papers/Vermeesch2024_Geochronology_Errorchrons_CCBY.pdf"
    pdf.write_bytes(_turned_pdf(CORRIGENDUM, 1, turn, upright_before=errorchrons))
    paper = tei_to_paper(pdf_to_tei(pdf), paper_id="t", source_file=pdf.name, sha256="0" * 64)
    (table,) = [c for c in paper.captions if c.kind == "table"]
    assert table.label == "Table 1" and table.page == 2
    assert table.text.startswith("Revised conversion table")
    with pdfplumber.open(CORRIGENDUM) as upright:
        (expected,) = page_word_tables(upright.pages[0], 1, captionless=False)
    assert table.rows == expected.rows


def _words(tei: str) -> set[str]:
    import re

    paper = tei_to_paper(tei, paper_id="p", source_file="p.pdf", sha256="0")
    return {w.casefold() for w in re.findall(r"[A-Za-z]{4,}", paper.model_dump_json())}


@pytest.mark.parametrize("turn", TURNS)
def test_a_paper_printed_sideways_is_read_like_the_upright_one(tmp_path: Path, turn: str) -> None:
    """A whole paper set landscape (every page turned): its text reads as the upright copy's, where
    `/Rotate` used to fail as "no text layer" and a turned content stream lost a quarter of the words
    (the upright copy also goes through pypdf, so both lack the same metadata)."""
    upright, turned = tmp_path / "upright.pdf", tmp_path / "turned.pdf"
    upright.write_bytes(_turned_pdf(CORRIGENDUM, 1, "rotate-0"))
    turned.write_bytes(_turned_pdf(CORRIGENDUM, 1, turn))
    expected = _words(pdf_to_tei(upright))
    assert len(expected) > 40  # page 1: title, authors, abstract, Table 1
    assert _words(pdf_to_tei(turned)) == expected
