"""The layout pipeline for one opened PDF: pages → lines → ``Document``.

Runs the steps in order (lines, columns, running heads, front matter, classification, blocks,
assembly) and measures the two document-wide yardsticks they compare against: the body font size
(the size set in most characters) and the body font.
"""

import logging
import re
from collections import Counter
from collections.abc import Iterable
from typing import Any

from geo_assets.ingest.pdf.assemble import assemble
from geo_assets.ingest.pdf.bare_tables import (
    BARE_TABLE,
    continue_table,
    drop_duplicates,
    is_bare_table,
    name_bare_tables,
)
from geo_assets.ingest.pdf.blocks import build_blocks
from geo_assets.ingest.pdf.classify import classify, set_references
from geo_assets.ingest.pdf.columns import order_page
from geo_assets.ingest.pdf.document import Document
from geo_assets.ingest.pdf.glyphs import repair_glyphs
from geo_assets.ingest.pdf.headings import REFERENCE_HEADS, caption_title, norm_head
from geo_assets.ingest.pdf.hyphenation import vocabulary
from geo_assets.ingest.pdf.layout import Line, box_coords, coords_page
from geo_assets.ingest.pdf.lines import page_lines
from geo_assets.ingest.pdf.metadata import read_front_matter
from geo_assets.ingest.pdf.running_heads import drop_running_heads
from geo_assets.ingest.pdf.tables import PageTable, page_tables
from geo_assets.ingest.pdf.word_tables import WordTable, page_word_tables, reading_view, turn_box
from geo_rag_runtime.errors import PdfError
from geo_rag_runtime.text.readable import decimal_points

log = logging.getLogger(__name__)
_NUMBER = re.compile(r"^[<>±]?[+\-\u2212]?(?:\d[\d,]*(?:\.\d+)?|\.\d+)")


def _weighted_mode(values: Iterable[tuple[float, int]]) -> float:
    counter: Counter[float] = Counter()
    for value, weight in values:
        counter[round(value * 2) / 2] += weight
    return counter.most_common(1)[0][0] if counter else 10.0


def _word_tables(page: Any, number: int, source: str, before: list[WordTable]) -> list[WordTable]:
    """The tables of a page as the word reader reads them: the captioned ones, the blocks without a
    caption that are data rather than a figure or an equation, and the lines that carry on the last
    table of the page ``before`` (:mod:`.bare_tables`); none when it fails (the line-fragment finder
    still runs)."""
    try:
        out = []
        for table in page_word_tables(page, number):
            if table.headless:  # its own lines must look like data too, whichever table they carry on
                kept = continue_table(before, table) if is_bare_table(table, page) else None
            else:
                kept = table if table.label or is_bare_table(table, page) else None
            if kept is not None:
                out.append(kept)
        return out
    except Exception as exc:  # a table we cannot read keeps its caption; it never fails the paper
        log.warning("%s: word tables on page %d skipped (%s: %s)", source, number, type(exc).__name__, exc)
        return []


# a decimal point set apart from its digits ("199 . 6"): the reader split a number at odd glyph spacing
_BROKEN_NUMBER = re.compile(r"\d\s+\.\s*\d|\d\s*\.\s+\d")


def _numbers(table: PageTable) -> int:
    """The cells that hold a number (not a number split at its decimal point, "199 . 6")."""
    return sum(
        bool(_NUMBER.match(decimal_points(cell.strip()))) and not _BROKEN_NUMBER.search(cell)
        for row in table.rows
        for cell in row
    )


def _best_grids(tables: list[PageTable]) -> list[PageTable]:
    """One grid per caption: the word reader's and the line-fragment finder's grids under the same
    label compete on how many number cells they hold (the word reader first on a tie; measured on
    both gold sets, ``scripts/bench_tables.py`` and ``scripts/score_measurements.py --papers``);
    then the tables without a caption that are not one of those read again, labelled by page."""
    best: dict[tuple[int, str], PageTable] = {}
    bare: list[PageTable] = []  # no caption, so nothing to compete under
    for table in tables:
        if not table.label:
            bare.append(table)
            continue
        key = (table.page, table.label)
        if key not in best or _numbers(table) > _numbers(best[key]):
            best[key] = table
    captioned = list(best.values())
    return captioned + name_bare_tables(drop_duplicates(bare, captioned))


def analyse(pdf: Any, source: str, *, word_tables: bool = True) -> Document:
    """Run the layout steps on an open pdfplumber PDF; ``source`` names the file in errors
    (``word_tables=False``: table cells from the line-fragment finder alone, for comparison)."""
    pages: list[list[Line]] = []
    heights: list[float] = []
    widths: list[float] = []
    worded: list[WordTable] = []
    on_page: list[WordTable] = []
    for number, page in enumerate(pdf.pages, start=1):
        try:
            repair_glyphs(page)  # before anything reads the characters
            view, quarter = reading_view(page)  # a landscape page turned upright; any other as it is
            if word_tables:
                on_page = _word_tables(page, number, source, on_page)
                for table in on_page:  # boxes in the frame of the page's lines
                    table.box = turn_box(table.box, quarter, float(page.width), float(page.height))
                worded.extend(on_page)
            lines = page_lines(view, number)
            pages.append(order_page(lines, float(view.width), float(view.height)))
            heights.append(float(view.height))
            widths.append(float(view.width))
        except Exception as exc:  # pdfminer raises many types on broken content streams
            raise PdfError(f"{source}: cannot read page {number}: {exc}") from exc
        finally:
            page.close()  # free the page's parsed objects: long PDFs stay small in memory
    all_lines = [line for lines_on_page in pages for line in lines_on_page]
    if sum(len(line.text) for line in all_lines) < 20:
        raise PdfError(f"{source}: no text layer; OCR is not supported (run OCR first, e.g. ocrmypdf)")

    doc = Document()
    prose = _before_references(_outside_tables(all_lines, worded))
    body_size = _weighted_mode((ln.size, len(ln.text)) for ln in prose)
    fonts: Counter[str] = Counter()
    for line in prose:
        if abs(line.size - body_size) < 0.6:
            fonts[line.font] += len(line.text)
    body_font = fonts.most_common(1)[0][0] if fonts else ""
    drop_running_heads(pages, heights)
    grids = {
        id(t): PageTable(label=t.label, page=t.page, rows=t.rows, box=t.box, note=t.note) for t in worded
    }
    doc.tables.extend(grids[id(t)] for t in worded)
    for number, (lines_on_page, width) in enumerate(zip(pages, widths, strict=True), start=1):
        try:
            found = page_tables([ln for ln in lines_on_page if ln.kind != "drop"], width, body_size)
            doc.tables.extend(found)
        except Exception as exc:  # a table we cannot read keeps its caption; it never fails the paper
            log.warning(
                "%s: table cells on page %d skipped (%s: %s)", source, number, type(exc).__name__, exc
            )
    doc.tables = _best_grids(doc.tables)
    meta = pdf.metadata or {}
    first = pages[0]
    if len(pages) > 1 and _is_cover(pages[0]):  # the paper's own first page is the second
        for line in pages[0]:
            line.kind = "drop"
        first = pages[1]
    read_front_matter(doc, first, all_lines, body_size, meta)

    kept = [ln for ln in all_lines if ln.kind not in ("drop", "title")]
    set_references(kept, body_size)
    classify(kept, body_size, body_font)
    kept = [ln for ln in kept if ln.kind != "drop"]
    set_references(kept, body_size)
    vocab, hyphenated = vocabulary(kept)
    assemble(doc, build_blocks(kept, body_size), body_size, vocab, hyphenated)
    kept_grids = {id(t) for t in doc.tables}
    _trim_captions(doc, [t for t in worded if t.label])
    _word_reader_captions(doc, [t for t in worded if t.label and id(grids[id(t)]) in kept_grids])
    _continued_captions(doc)
    _bare_captions(doc)
    return doc


# a publisher's or repository's notice set as page 1 before the paper itself, with no title of its own
# (Elsevier's "author copy" page on personal sites)
_COVER_NOTICE = re.compile(
    r"The attached copy is furnished to the author|This article appeared in a journal published by",
    re.IGNORECASE,
)


def _is_cover(lines: list[Line]) -> bool:
    """Whether page 1 is a cover notice: it prints one of the known notices and little else."""
    text = " ".join(ln.text for ln in lines)
    return bool(_COVER_NOTICE.search(text)) and len(text.split()) < 400


def _before_references(lines: list[Line]) -> list[Line]:
    """The lines before the reference list's last head past page 1 (all lines when there is none,
    or fewer than 8 lines before it): a long reference list set smaller than the text (AGU's 7 pt
    under 9 pt text) would otherwise be the body font, and the text read as something else and
    dropped."""
    heads = [i for i, ln in enumerate(lines) if ln.page > 1 and norm_head(ln.text) in REFERENCE_HEADS]
    return lines[: heads[-1]] if heads and heads[-1] >= 8 else lines


def _outside_tables(lines: list[Line], tables: list[WordTable]) -> list[Line]:
    """The lines outside every table the word reader found (all lines when that leaves none): the
    body font is the prose's, and a data supplement prints more characters in its tables (5 pt)
    than in its methods text (11 pt), which would otherwise read as footnotes and be dropped."""
    boxes: dict[int, list[tuple[float, float, float, float]]] = {}
    for table in tables:
        boxes.setdefault(table.page, []).append(table.box)

    def inside(line: Line) -> bool:
        return any(
            x0 - 2 <= line.x0 and line.x1 <= x1 + 2 and top - 2 <= line.top and line.bottom <= bottom + 2
            for x0, top, x1, bottom in boxes.get(line.page, [])
        )

    return [ln for ln in lines if not inside(ln)] or lines


def _trim_captions(doc: Document, tables: list[WordTable]) -> None:
    """A caption block that ran on into its table's header ("… isotopic data Compositional
    Parameters", the first words of a group header set close below the caption) ends where the word
    reader's caption ends, when every word past that end is a word of the table's header rows."""
    for index, (kind, label, text) in enumerate(doc.captions):
        if kind != "table":
            continue
        for table in (t for t in tables if t.label == label):
            own = caption_title(table.caption) or ""
            extra = text[len(own) :].split() if own and text.startswith(own) else []
            header = {w for row in table.rows[: table.header_rows] for cell in row for w in cell.split()}
            if extra and all(w in header for w in extra):
                doc.captions[index] = (kind, label, own)
                break


def _continued_captions(doc: Document) -> None:
    """A caption entry "(continued)" for each page of a captioned table past the pages its label is
    captioned on (a table carried onto the next page without a caption line): the TEI writer gives
    each caption entry the next grid under its label, so an uncaptioned page of a table needs one."""
    captioned = Counter(label for kind, label, _text in doc.captions if kind == "table")
    # a page that prints its own "Table 1 (continued)" line already has its caption entry: a
    # headless page between two captioned ones (10 captioned, 11 not, 12 "continued") needs one,
    # not the next page that happens to come in page order
    on_page = {
        (label, coords_page(box))
        for (kind, label, _text), box in zip(doc.captions, doc.caption_coords, strict=False)
        if kind == "table"
    }
    grids = [t for t in doc.tables if t.label and not t.label.startswith(BARE_TABLE)]
    first = {t.label: min(u.page for u in grids if u.label == t.label) for t in grids}
    extra = Counter(t.label for t in grids)
    for table in grids:
        if (
            extra[table.label] > captioned[table.label]
            and table.page > first[table.label]
            and (table.label, table.page) not in on_page
        ):
            doc.captions.append(("table", table.label, "(continued)"))
            doc.caption_coords.append(box_coords(table.page, *table.box))
            captioned[table.label] += 1


def _bare_captions(doc: Document) -> None:
    """A caption entry for each table printed without one: its label says where it is printed, its
    box stands for its place (the TEI writer pairs cells with captions by label)."""
    for table in doc.tables:
        if table.label.startswith(BARE_TABLE):
            doc.captions.append(("table", table.label, ""))
            doc.caption_coords.append(box_coords(table.page, *table.box))


def _word_reader_captions(doc: Document, tables: list[WordTable]) -> None:
    """Captions only the word reader found: a table set sideways (the line parser reads upright text
    only), or a plain "Table 9" alone on its line over its title (no bold, no smaller size, no text
    after the number, so no caption line to the line parser). Without a caption entry the TEI writer
    has nothing to pair the table's cells with (the table's box stands for its place)."""
    labels = {label for kind, label, _text in doc.captions if kind == "table"}
    for table in tables:
        if table.label in labels:
            continue
        doc.captions.append(("table", table.label, caption_title(table.caption) or table.caption))
        doc.caption_coords.append(box_coords(table.page, *table.box))
