"""Table cells from pdfplumber's words: a table region by its caption and numeric lines, columns by
where the words of its data lines sit (measured on the unseen-papers benchmark, see
``scripts/bench_tables.py``; the line-fragment finder of :mod:`geo_assets.ingest.pdf.tables` stays the
fallback).

For one page:

1. words (pdfplumber ``extract_words``, 1.5 pt tolerance) → lines by their top; a word set smaller
   than the line's type (a raised mass number "206" over "Pb", a subscript) joins the line it
   overlaps vertically and is glued to the word it touches ("206Pb", "d" + "sk" → "dsk");
2. a table region starts at a caption word "Table N": the caption's column is its x-span (a caption
   in the right half of a two-column page keeps to that half, one in the left half whose line stops
   before the middle keeps to the left half, any other the page);
3. the data lines are the lines of that span with two or more numbers making up most of their words;
   the table is the run of data lines nearest the caption (below it, else above it), allowing up to
   three non-data lines between two data lines (a free-text row "weighted mean … = 1096.19 ± 0.19 Ma",
   a "⋮" gap row, a sub-heading) but not a prose paragraph, and the lines after the last data line
   that state a value (the last group's "weighted mean … = …"); the line pitch that ends a table is
   measured between rows starting at the first row's left edge; the header is the short lines just
   above the first data line, up to the caption (or 12 lines); the footnotes printed under a
   captioned table ("(a) …", "* …", "Notes: …", with their next lines) are its ``note``;
4. columns: the x-coverage of the data lines' words (how many data lines print a word over each x);
   a column is a run of x covered by more than a sixth of the data lines, so blank cells never shift
   a column and a word two cells glued together ("251.00" for "25" "1.00") goes to the column it
   overlaps most; the first column is the row label;
5. each word goes to the column it overlaps most (or the nearest); a line with more words than
   numbers is still a row when its phrases sit in the word columns and its numbers, one a cell, in
   the value columns (a long description, "ol-phyric alkali trachy basalt"); any other such line
   (one long word run over the span, "weighted mean … = 1096.19 ± 0.19 Ma") is a free-text row, kept
   as one cell; such a row after the last data line is the table's when it fits the grid. A table
   whose every row is more words than numbers is not found (no data lines).

A top header line of phrases set apart over groups of columns ("Isotopic Ratios and 2s (%) Errors"
over the ratio columns, "Ages and 2s Absolute Errors (Ma)" over the age columns, each phrase centred
over its group or set at its left) names every column of its group, when the bottom header row
prints one header under two groups ("206Pb/238U" as a ratio and as an age); such a line is no
continuation of the caption, and no prose between a caption and its table. A row of footnote marks
under the heads ("(a) (b) (c) …") is no bottom header row. A row that names a sample right above the
first data row ("PRI  Partridge River intrusion …", or a lone "ECMB4") is the body's first free-text
row, not a header line. Captions number tables as "Table 1", "Table S1", "Table A2" or, in a GSA
Data Repository item, "Table DR1".

Lines of column heads between data lines (three heads or more over values of the next line, no
numbers, ranges or dates among them, set right of the row labels or, at the labels' column, in
phrases apart with most words capitalised or with digits) end a block: a DataFrame's next block of
columns, an Ar–Ar table's results ("Results  40(r)/39(k)  ±2σ  Age  ±2σ  MSWD"). Right under a
captioned table's last row, such a block is the table's own, gridded on its own columns (a column
one row fills under a head of its own among them) after its heads.

Blocks without a caption (a bare table, a DataFrame) take the header lines set as a table's header
above their data; data lines that open a page under no header come back headless (``WordTable.headless``)
for :func:`.bare_tables.continue_table` to match with the previous page's last table.

The grid comes back header rows first, like GROBID's ``<table>``; cells are strings.

Text set sideways (a landscape table on a portrait page, drawn with a turned text matrix or shown
through the page's ``/Rotate``) is read the same way after turning its characters upright: each
character's direction comes from its text matrix, and the characters of each quarter turn are read
as a page of their own (``WordTable.rotation`` says how far the page was turned, ``box`` is in the
page's coordinates). A page without turned characters is read exactly as before.
"""

from __future__ import annotations

import re
import statistics
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from pdfplumber.utils import extract_words

from geo_assets.ingest.pdf.headings import CAPTION_NUMBER, LIST_ENTRY
from geo_assets.ingest.table_cells import COORDINATE, mark_cell, marks_row
from geo_rag_runtime.text.readable import decimal_points

__all__ = ["WordTable", "page_word_tables", "reading_view", "turn_box"]

_NUMBER = re.compile(
    r"^[(<>≤≥~±]?[+\-\u2212]?(?:\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?|\.\d+)(?:[eE][+\-\u2212]?\d+)?"
    r"[)%]?(?:[a-f*†‡§]|[⁰¹²³⁴-⁹]{1,2})?$"
)
_SUPERSCRIPT = str.maketrans("0123456789", "⁰¹²³⁴⁵⁶⁷⁸⁹")
_NULL_CELL = re.compile(r"^(?:[—–-]|n\.?d\.?|n\.?a\.?|b\.?d\.?l\.?)$", re.IGNORECASE)
# a letter mark beside a value, a compilation's analytical method ("40 (a)", "2463 (c )")
_CAPTION = re.compile(rf"^(?:Table|TABLE)\s*(?P<num>{CAPTION_NUMBER})(?P<after>[.:|—–-].*|)$")
_MAX_HEADER = 12
_MAX_GAP_LINES = 3
# the punctuation of a line of text, which neither a row's short label nor a line of heads prints
_TEXT_PUNCTUATION = re.compile(r"[.:;,=]")
# a range of values printed under a mean ("(78-780)", "(20–1,000)") or a date ("02/08/2006"): data,
# not a head
_RANGE_WORD = re.compile(r"^\(?[\d.,]+\s*[-–]\s*[\d.,]+\)?$|^\d{1,2}[/.]\d{1,2}[/.]\d{2,4}$")
_MAX_RUNNING_HEAD = 2  # lines above a page's first table row that may be its running head
_WORD_SETTINGS: dict[str, Any] = {
    "x_tolerance": 1.5, "y_tolerance": 2, "keep_blank_chars": False, "extra_attrs": ["size"]
}  # fmt: skip


@dataclass
class _Word:
    text: str
    x0: float
    x1: float
    top: float
    bottom: float
    size: float


@dataclass
class _Line:
    words: list[_Word] = field(default_factory=list)

    @property
    def top(self) -> float:
        return min(w.top for w in self.words)

    @property
    def bottom(self) -> float:
        return max(w.bottom for w in self.words)

    @property
    def x0(self) -> float:
        return min(w.x0 for w in self.words)

    @property
    def x1(self) -> float:
        return max(w.x1 for w in self.words)

    @property
    def text(self) -> str:
        return " ".join(w.text for w in self.words)


@dataclass
class WordTable:
    """The cells of one table region (header rows first), with its caption label and page."""

    label: str
    page: int
    rows: list[list[str]]
    header_rows: int
    caption: str = ""
    box: tuple[float, float, float, float] = (0.0, 0.0, 0.0, 0.0)  # x0, top, x1, bottom on the page
    rotation: int = 0  # degrees the page was turned clockwise to read the table upright
    # each column's x-range in the frame the table was read in (a continued page is matched on them)
    columns: list[tuple[float, float]] = field(default_factory=list)
    bottom: float = 0.0  # the last line's bottom in that frame: which table ends a page
    note: str = ""  # the table's footnotes printed under it ("(a) z1, z2 … (f) Errors are 2-sigma")

    @property
    def headless(self) -> bool:
        """Data lines at the top of a page under no header and no caption: a table's continuation
        when they line up with the previous page's last table (:func:`.bare_tables.continue_table`)."""
        return not self.label and self.header_rows == 0


def is_number(text: str) -> bool:
    return bool(_NUMBER.match(decimal_points(text).replace("\u2009", "")))


def _words_of(raw: list[dict[str, Any]]) -> list[_Word]:
    return [
        _Word(
            w["text"], float(w["x0"]), float(w["x1"]), float(w["top"]), float(w["bottom"]), float(w["size"])
        )
        for w in raw
        if w["text"].strip() and w.get("upright", True)
    ]


def _quarter(char: dict[str, Any]) -> int:
    """Quarter turns of a character's writing direction, anticlockwise on the page: 0 upright, 1
    reading upwards, 2 upside down, 3 reading downwards. From the text matrix (pdfminer's user space,
    y up, the page's ``/Rotate`` included), not pdfminer's ``upright`` flag, which calls a glyph
    turned by a matrix with rounding noise (cos 90° = 6e-17) upright."""
    a, b = char["matrix"][:2]
    if abs(b) <= abs(a):
        return 0 if a > 0 else 2
    return 1 if b > 0 else 3


def _quarters(chars: list[dict[str, Any]]) -> list[int]:
    """Each character's ``_quarter``; empty when every one stands upright (the usual page, told by
    its text matrix without classifying each character)."""
    if all(c["matrix"][1] == 0 < c["matrix"][0] for c in chars):
        return []
    return [_quarter(c) for c in chars]


def _turned(char: dict[str, Any], quarter: int, width: float, height: float) -> dict[str, Any]:
    """The character as it sits on the page turned until it reads upright. Hand-rolled: pdfplumber
    keeps a sideways word's page box and takes a sideways glyph's box height (its advance) as its
    size, and neither pdfplumber nor pdfminer turns a page's text for us (re-parsing the page with a
    pypdf ``/Rotate`` would parse it twice); a quarter turn of an axis-aligned box is exact."""
    x0, x1, top, bottom = char["x0"], char["x1"], char["top"], char["bottom"]
    if quarter == 1:  # reads upwards: the page turned clockwise
        box = (height - bottom, height - top, x0, x1)
    elif quarter == 3:  # reads downwards: the page turned anticlockwise
        box = (top, bottom, width - x1, width - x0)
    else:  # upside down
        box = (width - x1, width - x0, height - bottom, height - top)
    new = dict(zip(("x0", "x1", "top", "bottom"), box, strict=True))
    # the type size across the line; rounded, as pdfplumber groups a word's characters by equal size
    # and a turned matrix's rounding noise would split "number" into "numb" "er"
    size = round(new["bottom"] - new["top"], 3)
    return {**char, **new, "doctop": new["top"], "upright": True, "size": size}


def _sized(chars: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The characters with their type size rounded to 0.001 pt: pdfplumber starts a new word where
    the size differs at all, and a glyph from a maths font can differ in the 13th digit
    ("−0" "." "55" for −0.55 in a Copernicus table, 8.9663999999999 against 8.9664000000000)."""
    return [{**c, "size": round(c["size"], 3)} for c in chars]


def _unturn(
    box: tuple[float, float, float, float], quarter: int, width: float, height: float
) -> tuple[float, float, float, float]:
    """A box on the turned page → the same box on the page (``x0, top, x1, bottom``)."""
    x0, top, x1, bottom = box
    if quarter == 1:
        return (top, height - x1, bottom, height - x0)
    if quarter == 3:
        return (width - bottom, x0, width - top, x1)
    return (width - x1, height - bottom, width - x0, height - top)


def _frames(page: Any) -> Iterator[tuple[int, list[_Word], float]]:
    """(quarter turns, words, width) for each writing direction of the page: the upright words as
    pdfplumber reads them, then each turned direction's words read on the page turned upright."""
    chars = getattr(page, "chars", None) or []
    quarters = _quarters(chars)
    if not any(quarters):  # every character upright (the common page)
        yield 0, _words_of(extract_words(_sized(chars), **_WORD_SETTINGS)), float(page.width)
        return
    width, height = float(page.width), float(page.height)
    upright = [c for c, q in zip(chars, quarters, strict=True) if q == 0]
    yield 0, _words_of(extract_words(_sized(upright), **_WORD_SETTINGS)), width
    for quarter in (1, 2, 3):
        turned = [
            _turned(c, quarter, width, height) for c, q in zip(chars, quarters, strict=True) if q == quarter
        ]
        if turned:
            yield (
                quarter,
                _words_of(extract_words(turned, **_WORD_SETTINGS)),
                height if quarter % 2 else width,
            )


@dataclass
class _TurnedPage:
    """What the line reader needs of a page (``width``, ``height``, ``chars``), turned upright."""

    width: float
    height: float
    chars: list[dict[str, Any]]


def reading_view(page: Any) -> tuple[Any, int]:
    """The page as the line reader should see it, and the quarter turns that made it: itself and 0
    when most of its characters stand upright (every usual page, unchanged), else turned so that
    the writing direction most of its characters share reads upright — a landscape page
    (``/Rotate``, or text drawn with a turned matrix) gave no text at all before, and a paper
    printed landscape throughout failed as "no text layer". Characters of other directions are
    left out, as the line reader leaves out turned characters on an upright page."""
    chars = getattr(page, "chars", None) or []
    quarters = _quarters(chars)
    if not any(quarters):
        return page, 0
    counts = [quarters.count(q) for q in range(4)]
    quarter = max(range(4), key=lambda q: (counts[q], q == 0))
    if quarter == 0:
        return page, 0
    width, height = float(page.width), float(page.height)
    turned = [
        _turned(c, quarter, width, height) for c, q in zip(chars, quarters, strict=True) if q == quarter
    ]
    return _TurnedPage(height if quarter % 2 else width, width if quarter % 2 else height, turned), quarter


def turn_box(
    box: tuple[float, float, float, float], quarter: int, width: float, height: float
) -> tuple[float, float, float, float]:
    """A box on the page (``x0, top, x1, bottom``) → the same box on the page turned as
    ``reading_view`` turned it (the inverse of ``_unturn``), so a table's box and the lines the
    line reader gives lie in one frame."""
    if quarter == 0:
        return box
    x0, top, x1, bottom = box
    turned = _turned({"x0": x0, "x1": x1, "top": top, "bottom": bottom}, quarter, width, height)
    return (turned["x0"], turned["top"], turned["x1"], turned["bottom"])


def _lines(words: list[_Word]) -> list[_Line]:
    """Words → lines by their top; small words (super/subscripts) join the line they overlap."""
    if not words:
        return []
    body = statistics.median(w.size for w in words)
    main = sorted((w for w in words if w.size >= 0.85 * body), key=lambda w: (w.top, w.x0))
    small = [w for w in words if w.size < 0.85 * body]
    lines: list[_Line] = []
    for word in main:
        tol = 0.4 * word.size
        line = next((ln for ln in reversed(lines[-3:]) if abs(ln.words[0].top - word.top) <= tol), None)
        if line is None:
            lines.append(_Line([word]))
        else:
            line.words.append(word)
    made = len(lines)  # lines[made:] are lines of small words alone
    for word in small:
        mid = (word.top + word.bottom) / 2
        near = [
            ln
            for i, ln in enumerate(lines)
            if ln.top - 0.5 * word.size <= mid <= ln.bottom + 0.5 * word.size
            and (i >= made or _beside(word, ln))
        ]
        if near:
            min(near, key=lambda ln: abs((ln.top + ln.bottom) / 2 - mid)).words.append(word)
        else:
            lines.append(_Line([word]))
    out = []
    for line in sorted(lines, key=lambda ln: ln.top):
        line.words.sort(key=lambda w: w.x0)
        out.append(_Line(_glue(line.words)))
    return out


def _beside(word: _Word, line: _Line) -> bool:
    """Whether a small word sits within an em of a word of a line of larger type — a super- or
    subscript, a footnote mark. A table set smaller than the page's text is small too, and its rows
    had joined, in pairs, the lines of a diagram or a reference list beside it that they overlap
    in height (a data sheet's analyses then read one row late)."""
    return any(
        word.x0 <= w.x1 + w.size and word.x1 >= w.x0 - w.size for w in line.words if w.size > word.size
    )


def _glue(words: list[_Word]) -> list[_Word]:
    """Words that touch (a raised mass number before its element, a subscript after its letter)
    become one word."""
    out: list[_Word] = []
    small_end = False  # the last word ends in a small glyph ("s[" + "4" …): what touches it joins too
    raised = ""  # the raised digits the last word ends in, printed as superscripts
    for word in words:
        differ = bool(out) and (word.size < 0.85 * out[-1].size or out[-1].size < 0.85 * word.size)
        if out and word.x0 - out[-1].x1 < 0.6 and (differ or small_end):
            small_end = word.size < 0.85 * out[-1].size
            last = out[-1]
            head, text = last.text, word.text
            if raised:  # a word follows the raised digits: a mass number ("4He/³" + "He"), plain again
                head, raised = head[: -len(raised)] + raised, ""
            if (
                small_end
                and text.isdigit()
                and len(text) <= 2
                and word.bottom < last.bottom - 0.15 * last.size
            ):
                # raised digits that end a value or a name ("161·2¹", "Be¹": a footnote mark, often the
                # analytical method) printed as superscripts, so they are not read as its last digits
                raised, text = text, text.translate(_SUPERSCRIPT)
            out[-1] = _Word(head + text, last.x0, max(last.x1, word.x1), min(last.top, word.top),
                            max(last.bottom, word.bottom), max(last.size, word.size))  # fmt: skip
        else:
            small_end, raised = False, ""
            out.append(word)
    return out


def _value_words(line: _Line) -> list[str]:
    """The line's words less the letter marks set beside its values ("40 (a)": the analytical method)."""
    return [w.text for w in line.words if not mark_cell(w.text)]


def _is_data(line: _Line) -> bool:
    """A line of at least two numbers that are half its words or more; a dash or "n.d." standing for
    a value not measured counts with the numbers ("GR50d 1.52 5.69 56 18 176 — — — IAB MORB Mg loss?"
    is a row of a whole-rock table, not a line of text), and a letter mark beside a value ("40 (a)",
    a compilation's analytical method) is no word of it. A range ("89–95") and a coordinate
    ("36°18.5′") count as numbers: a sample table's depositional ages and locations."""
    texts = _value_words(line)
    numbers = sum(is_number(t) or bool(_RANGE_WORD.match(t) or COORDINATE.match(t)) for t in texts)
    nulls = sum(_NULL_CELL.match(t) is not None for t in texts)
    return numbers >= 2 and numbers + nulls >= 0.5 * len(texts)


def _is_prose(line: _Line, span: float) -> bool:
    text = line.text
    letters = sum(c.isalpha() for c in text)
    return (
        len(text) > 40
        and letters > 0.6 * len(text)
        and len(line.words) >= 6
        and line.x1 - line.x0 > 0.6 * span
    )


def _captions(lines: list[_Line]) -> list[tuple[_Line, int, str]]:
    """(line, index of the caption's first word, label) for each "Table N" caption."""
    out = []
    for k, line in enumerate(lines):
        if LIST_ENTRY.search(line.text):
            continue  # "Table 2 Trace elements ········ 14": a list of tables' entry
        for i, word in enumerate(line.words):
            joined = " ".join(w.text for w in line.words[i : i + 2])
            alone = _CAPTION.match(word.text)
            match = alone or _CAPTION.match(joined)
            first = i == 0 or word.x0 - line.words[i - 1].x1 > 4
            # the word after the label's number is the title's: "Table A1 in the Data Repository"
            # in running text is no caption, although its "A1" starts with a capital
            after = i + (1 if alone else 2)
            titled = after < len(line.words) and line.words[after].text[:1].isupper()
            if match and i == 0 and match.end() == len(line.text) and k + 1 < len(lines):
                # "Table 1" alone on its line, its title on the next (Elsevier)
                below = lines[k + 1]
                titled = below.top - line.bottom < line.bottom - line.top and below.text[:1].isupper()
            if match and first and (match.group("after") or titled):
                out.append((line, i, f"Table {match.group('num')}"))
                break
    return out


def page_word_tables(page: Any, number: int, *, captionless: bool = True) -> list[WordTable]:
    """The tables of one pdfplumber page (see the module docstring); with ``captionless`` also the
    numeric blocks under a header line that no caption names (label ""). Tables set sideways come
    after the upright ones."""
    out: list[WordTable] = []
    for quarter, words, width in _frames(page):
        found = _frame_tables(words, width, number, captionless)
        if quarter:
            for table in found:
                table.box = _unturn(table.box, quarter, float(page.width), float(page.height))
                table.rotation = {1: 90, 2: 180, 3: 270}[quarter]
        out += found
    return out


def _frame_tables(words: list[_Word], width: float, number: int, captionless: bool) -> list[WordTable]:
    if not words:
        return []
    lines = _lines(words)
    out: list[WordTable] = []
    for caption_line, index, label in _captions(lines):
        start = caption_line.words[index]
        # the caption's own words: a running head or page number further along its line is no
        # part of it (a data sheet's "15682" at the right had made a left column's caption wide)
        end = next(p[-1] for p in _phrases(_Line(caption_line.words[index:])))
        middle = width / 2
        if start.x0 > middle - 20:
            left, right = start.x0 - 12, width
        elif (
            end.x1 < middle + 0.05 * width
            and start.x0 < middle
            and (
                (gutter := _gutter(words, caption_line, middle, width))
                or not _spans_page(lines, caption_line, middle)
            )
        ):
            # a short caption in the left column of two; the column may reach past the page's
            # middle (a table wider than the text above it), as far as the gutter before the other
            # column's text
            left, right = 0.0, max(middle + 5, gutter)
        else:
            left, right = 0.0, width
        inside = [w for w in words if w.x0 >= left - 1 and w.x1 <= right + 1]
        region = _lines(inside)
        caption_text = " ".join(w.text for w in caption_line.words[index:])
        region, caption_bottom, more = _caption_continued(region, caption_line, start)
        caption_text = " ".join([caption_text, *more])
        # column heads set beside a short caption, at its height ("Table 2    U ppm   Th ppm …"):
        # the table's header, below the caption as far as the table is concerned
        beside = [
            ln.top
            for ln in region
            if caption_line.top - 2 <= ln.top < caption_bottom - 1
            and ln.x0 > end.x1 + 2 * end.size
            and not _one_run(ln)
        ]
        if beside and not more:
            caption_bottom = min(beside)
        table = _table_near(
            region, caption_line.top, caption_bottom, label, number, right - left, caption_text
        )
        if table is not None:
            out.append(table)
    if captionless:
        out += _uncaptioned(lines, [t.box for t in out], number, width)
    return out


def _gutter(words: list[_Word], caption: _Line, middle: float, width: float) -> float:
    """Where the left column ends, below a caption in it: the start of the widest strip of at
    least 8 pt that no word crosses, between the page's middle and 0.7 of its width, over the
    caption and the 150 pt below it, with lines of prose right of it (a GSA table runs to x 330 on a
    594 pt page, its neighbour column's text starting at 384). 0 when there is none: something
    spans the page there (a wide table's gap between columns has numbers right of it), and the
    middle is the bound. Only ever widens the middle's bound: a left column narrower than
    half the page loses nothing to it."""
    near = [w for w in words if caption.top - 1 <= w.top <= caption.top + 150]
    taken = sorted((w.x0, w.x1) for w in near if w.x1 > middle and w.x0 < 0.7 * width)
    best, at, edge = 0.0, 0.0, middle
    for x0, x1 in taken:
        if x0 - edge > best:
            best, at = x0 - edge, edge
        edge = max(edge, x1)
    if 0.7 * width - edge > best:
        best, at = 0.7 * width - edge, edge
    if best < 8:
        return 0.0
    # right of the strip, a column of prose (a wide table's gap between two of its columns has
    # numbers or short cells of words there: "MORB", "IAB MORB Mg loss?")
    beyond = _lines([w for w in near if w.x0 >= at + best])
    prose = [ln for ln in beyond if _is_prose(ln, width - at - best)]
    return at + 2 if len(prose) >= 2 and 2 * len(prose) >= len(beyond) else 0.0


def _spans_page(lines: list[_Line], caption: _Line, middle: float) -> bool:
    """A short caption at the left over a table as wide as the page ("Table 1. LA-ICP-MS U-Pb
    Results" over fifteen columns): the first data line below it holds numbers on both sides of the
    page's middle (one is enough: a whole-rock table of three samples may reach just past it), or,
    in a sparse compilation whose first rows fill only its left columns, the data lines that reach
    right of the middle do. In two columns of text, the right half of those lines would be prose,
    or another table's row with nothing of it left of the middle. Most of those lines decide, not
    the first, and a line whose right part is a word or two of text has no say: a compilation's
    first rows may reach right of the middle with a text column only ("Perkins et al. 1970  0.86
    3.2  2600   rad. Count.") and its later rows with numbers too."""
    below = [ln for ln in lines if ln.top > caption.bottom][: 3 * _MAX_HEADER]
    votes = []
    for line in [ln for ln in below if _is_data(ln)][:_MAX_HEADER]:
        left = [w for w in line.words if w.x1 < middle]
        right = [w for w in line.words if w.x0 > middle and not mark_cell(w.text)]
        numbers = sum(is_number(w.text) for w in right)
        if right and (numbers or len(right) > 2):
            # a column of prose right of the middle, or another table's row, makes it no such table
            votes.append(bool(left) and numbers >= 1 and numbers >= 0.5 * len(right))
    return bool(votes) and 2 * sum(votes) >= len(votes)


def _uncaptioned(
    lines: list[_Line], taken: list[tuple[float, float, float, float]], page: int, width: float
) -> list[WordTable]:
    """Blocks of three or more data lines with a header line right above them and no caption (a
    notebook's printed DataFrame, a supplement's bare table); their label is empty. Data lines that
    open the page under no header at all come back headless (no header rows): the rest of a table
    the previous page began, if they line up with it."""
    free = [ln for ln in lines if not any(b[1] - 1 <= ln.top <= b[3] + 1 for b in taken)]
    out: list[WordTable] = []
    i = 0
    while i < len(free):
        if not _is_data(free[i]) or sum(is_number(w.text) for w in free[i].words) < 3:
            i += 1
            continue
        run = _run(free, i, width)
        data = [ln for ln in run if _is_data(ln)]
        end = free.index(run[-1]) + 1
        header, run = _section_row(_bare_header(_header(free[:i], run[0].top, None, width), run), run)
        # two rows are enough at the page's foot, where the next page goes on with the rest
        enough = len(data) >= 3 or (len(data) == 2 and _closes_page(lines, run[-1], width))
        if (enough and header) or (not header and _opens_page(lines, run[0], width)):
            table = _grid("", page, header, run, "")
            if table is not None:
                out.append(table)
        i = max(end, i + 1)
    return out


def _bare_header(lines: list[_Line], body: list[_Line]) -> list[_Line]:
    """The header lines of a table without a caption: the line right above its data, and the lines
    above it while they are set the way a table's header is: in phrases apart ("ζ  Number" over
    "(residual  of" over "error)  earthquakes"), or one word over a column right of the row labels.
    A line set as running text (a notebook's code line, a title) ends the header, and so does a row
    of another block, but not the row labels' heading set between two header lines, left of both
    ("No. Sample" between the element names and their units)."""
    if not lines:
        return []
    columns = _columns([ln for ln in body if _is_data(ln)])
    label_end = columns[0][1] if columns else 0.0
    header = [lines[-1]]
    between: _Line | None = None  # a one-run line left of the header lines: kept if one is above it
    for line in reversed(lines[:-1]):
        alone = len(line.words) == 1 and line.words[0].x0 > label_end
        if _row_of_another(line, label_end, body):
            break
        if _one_run(line) and not alone:
            if between is None and line.x1 < header[0].x0:
                between = line
                continue
            break
        if between is not None:
            header.insert(0, between)
            between = None
        header.insert(0, line)
    return header


def _section_row(header: list[_Line], body: list[_Line]) -> tuple[list[_Line], list[_Line]]:
    """(header, body) with a sample's heading row moved from the header to the body: the line right
    above the first data row, at the row labels' edge, set as running text into the value columns
    ("PRI  Partridge River intrusion (Duluth Complex layered series)" over that sample's zircons
    z1, z2 …) or a lone identifier ("ECMB4" over its analyses), is the body's first free-text row,
    like the same rows between later sample groups, not the bottom line of the header (a header
    line is set in phrases apart, one per column). A page that goes on with a table opens with such
    a row and no header at all."""
    if not header:
        return header, body
    line = header[-1]
    columns = _columns([ln for ln in body if _is_data(ln)])
    if len(columns) < 2 or line.words[0].x0 > columns[0][1]:
        return header, body
    word = line.words[0].text
    lone_id = len(line.words) == 1 and any(c.isdigit() for c in word) and any(c.isalpha() for c in word)
    described = len(line.words) >= 2 and _one_run(line) and line.x1 > columns[1][0]
    at_labels = abs(line.x0 - columns[0][0]) <= max(line.words[0].size, 4.0)
    if (
        at_labels
        and (lone_id or (described and len(header) >= 2))
        and not any(is_number(w.text) for w in line.words)
    ):
        return header[:-1], [line, *body]
    return header, body


def _row_of_another(line: _Line, label_end: float, body: list[_Line]) -> bool:
    """A row of another block above (a DataFrame's columns wrapped into blocks, "1  …  100
    Fluid+Magma"): it has a row label and a number, or its row label is one of this block's."""
    first = line.words[0]
    labels = {ln.words[0].text for ln in body}
    numbered = any(is_number(w.text) for w in line.words)
    return first.x0 < label_end and (numbered or first.text in labels)


def _next_heads(gap: list[_Line], first: _Line, below: _Line) -> bool:
    """Lines of column heads right above a data line, between two data lines: three or more words
    in all (one line of three at least), no numbers, set right of the rows' labels or in phrases
    apart, three of them over values of the line ``below`` — the header of the next block, not rows
    of this one: a wide DataFrame a notebook prints in blocks of columns ("MgO  NiO  CoO … \\"
    under the rows of "SiO2  TiO2 …"), each block under its own heads; an Ar–Ar table's results
    under heads set on two lines ("Age  ±2σ  39Ar(k)" over "Results  40(r)/39(k)  ±2σ  MSWD").
    A row's description wrapped onto a line of its own ("Silicified tuff breccia with pyrite") is
    set as running text over a text column, not over values."""
    heads = [
        line
        for line in gap
        if not any(is_number(w.text) or _RANGE_WORD.match(w.text) for w in line.words)
        and (line.x0 - first.x0 > max(first.words[0].size, 4.0) or _heads_at_labels(line))
        and not _TEXT_PUNCTUATION.search(line.text)
    ]
    values = [w for w in below.words if is_number(w.text)]
    words = [w for line in heads for w in line.words]
    over = sum(any(min(w.x1, v.x1) > max(w.x0, v.x0) for v in values) for w in words)
    return any(len(line.words) >= 3 for line in heads) and over >= 3


def _heads_at_labels(line: _Line) -> bool:
    """A line of heads that starts at the row labels' column ("Results  40(r)/39(k)  ±2σ  Age"): set
    in phrases apart, most of its words capitalised or with a digit or a symbol, where a line of a
    text column beside the table (an OCR'd scan's "eraplaced as individual or overlapping") is
    lower-case words."""
    marked = sum(any(c.isupper() or c.isdigit() or c in "±/()%" for c in w.text) for w in line.words)
    return not _one_run(line) and marked >= len(line.words) / 2


def _closes_page(lines: list[_Line], last: _Line, span: float) -> bool:
    """Whether a data line is the last thing on its page: below it at most a running foot and a page
    number — a table the next page carries on."""
    return _running_only([ln for ln in lines if ln.top >= last.bottom - 0.5 and ln is not last], span)


def _opens_page(lines: list[_Line], first: _Line, span: float) -> bool:
    """Whether a data line is the first thing on its page: above it at most a running head and a
    page number."""
    return _running_only([ln for ln in lines if ln.bottom <= first.top + 0.5 and ln is not first], span)


def _running_only(lines: list[_Line], span: float) -> bool:
    """A running head or foot and a page number at most: a few short lines, no table rows, no prose."""
    return len(lines) <= _MAX_RUNNING_HEAD and not any(_is_data(ln) or _is_prose(ln, span) for ln in lines)


def _sentence(line: _Line, span: float) -> bool:
    """A line of running text, not a header line of many heads (as long as prose, but set in phrases
    apart): prose set as one run of words, or ending in a full stop even where a raised glyph left a
    gap in it ("234U/238U m-values. Other values are reproduced exactly as reported.", its mass
    numbers on a line of their own)."""
    return _is_prose(line, span) and (_one_run(line) or line.text.endswith("."))


def _one_run(line: _Line) -> bool:
    """Words set as running text: no gap wider than one em between neighbours."""
    return all(b.x0 - a.x1 < max(a.size, 4.0) for a, b in zip(line.words, line.words[1:], strict=False))


def _caption_continued(
    lines: list[_Line], caption: _Line, start: _Word
) -> tuple[list[_Line], float, list[str]]:
    """The region's lines less the caption's continuation lines below it (same left edge, set as
    running text, at the caption's line pitch); the caption's bottom; the continuation's text."""
    after = [ln for ln in lines if ln.top > caption.top + 2]
    more: list[_Line] = []
    last = min(
        (ln for ln in lines if abs(ln.top - caption.top) <= 2),
        key=lambda ln: abs(ln.x0 - start.x0),
        default=None,
    )
    last_top = caption.top
    for line in after:
        if line.top - last_top > 1.8 * start.size or abs(line.x0 - start.x0) > 4 or not _one_run(line):
            break
        more.append(line)
        last_top = line.top
    gone = {id(ln) for ln in more} | ({id(last)} if last is not None else set())
    bottom = more[-1].bottom if more else caption.bottom
    return [ln for ln in lines if id(ln) not in gone], bottom, [ln.text for ln in more]


def _table_near(
    lines: list[_Line],
    caption_top: float,
    caption_bottom: float,
    label: str,
    page: int,
    span: float,
    caption: str,
) -> WordTable | None:
    below = [ln for ln in lines if ln.top > caption_bottom - 1]
    above = [ln for ln in lines if ln.bottom < caption_top - 1]
    for candidates, downwards in ((below, True), (list(reversed(above)), False)):
        first = next((i for i, ln in enumerate(candidates[:40]) if _is_data(ln)), None)
        if first is None:
            continue
        # a group header line over the columns is as long as prose but set in phrases apart
        prose = any(_sentence(ln, span) for ln in candidates[:first])
        lead = _empty_rows(candidates, first) if downwards and first > _MAX_HEADER else 0
        if downwards and (prose or first - lead > _MAX_HEADER):
            continue
        run = _run(candidates, first, span, downwards=downwards)
        if len(run) < 2:
            continue
        ordered = run if downwards else list(reversed(run))
        ordered = candidates[first - lead : first] + ordered
        data_top = ordered[0].top
        pool = lines if downwards else above
        header = _header(pool, data_top, caption_bottom if downwards else None, span)
        header, ordered = _section_row(header, ordered)
        table = _grid(label, page, header, ordered, caption)
        if table is not None and downwards:
            ordered += _results_block(table, candidates, ordered[-1], span)
            table.note = _footnotes(lines, ordered[-1], table.box)
        return table
    return None


def _results_block(table: WordTable, lines: list[_Line], last: _Line, span: float) -> list[_Line]:
    """The block right under a table's last row that prints heads of its own over its few rows (an
    Ar–Ar step-heating table's "Results  40(r)/39(k)  ±2σ  Age  ±2σ  MSWD" over its plateau and
    total-fusion ages): its rows, gridded on its own columns, are added to ``table`` after its heads
    (``extract_table_values`` reads them as a table of their own); its lines, or [] when none."""
    start = next((i for i, ln in enumerate(lines) if ln is last), None)
    if start is None:
        return []
    heads: list[_Line] = []
    for line in lines[start + 1 : start + 1 + _MAX_GAP_LINES + 1]:
        if _is_data(line):
            break
        heads.append(line)
    at = start + 1 + len(heads)
    if not heads or at >= len(lines) or _is_prose(heads[0], span) or any(_sentence(h, span) for h in heads):
        return []
    first_row = lines[at]
    size = max(last.words[0].size, 4.0)
    if heads[0].top - last.bottom > 3 * size or not _next_heads(heads, last, first_row):
        return []
    run = _run(lines, at, span)
    block = _grid(table.label, table.page, heads, run, table.caption, headed=True)
    if block is None:
        return []
    table.rows += block.rows
    table.box = (
        min(table.box[0], block.box[0]),
        table.box[1],
        max(table.box[2], block.box[2]),
        max(table.box[3], block.box[3]),
    )
    table.bottom = block.bottom
    return [*heads, *run]


# a table footnote's first line: "(a) z1, z2 are …", "* analyses not used", "Notes: …"
_FOOTNOTE = re.compile(r"^(?:\(?[a-z]\)\s|[*†‡§¶⌃#]+\s?\S|(?:Notes?|Abbreviations?)\s?[:.])")


# the next table's or figure's caption, however its number is followed ("Table 7 Test of the tree")
_NEXT_CAPTION = re.compile(rf"^(?:Table|TABLE|Fig(?:ure)?s?\.?|FIG(?:URE)?\.?)\s*{CAPTION_NUMBER}")


def _footnotes(lines: list[_Line], last: _Line, box: tuple[float, float, float, float]) -> str:
    """The footnotes printed right under a table: lines below its last row that open with a mark
    ("(a)", "*", "†", "Note:"), or, first, a line of words set smaller than the page's prose ("Trace
    elements in ppm by XRF …", a note with no mark), and the lines that go on from them, within the
    table's width, up to a wide gap or a line that is neither; "" when none follows the table."""
    below = sorted((ln for ln in lines if ln.top > last.bottom), key=lambda ln: ln.top)
    prose = _prose_size(lines)
    out: list[_Line] = []
    previous = last
    for line in below:
        gap = line.top - previous.bottom
        size = max(line.words[0].size, 4.0)
        if line.x0 < box[0] - 2 * size or line.x1 > box[2] + 2 * size or _NEXT_CAPTION.match(line.text):
            break
        if _FOOTNOTE.match(line.text) or (not out and _small_words(line, prose)):
            if gap > (3.5 if not out else 1.5) * size:
                break
            out.append(line)
        elif out and gap <= 0.8 * size and not _is_data(line) and size <= out[0].words[0].size + 0.5:
            out.append(line)  # a footnote's next line, in the footnote's type
        else:
            break
        previous = line
    return " ".join(ln.text for ln in out)


def _small_words(line: _Line, prose: float) -> bool:
    """A line of words set smaller than the page's prose, two or more of them lowercase words of a
    sentence ("Trace elements in ppm by XRF", not a table's last row "Nature From 4 to 8 From 2 to
    5"): a table's note that prints no mark."""
    words = [w.text.strip(",.;:()") for w in line.words]
    return (
        line.words[0].size < prose - 0.5
        and line.text[:1].isalpha()
        and sum(w.isalpha() and w.islower() and len(w) >= 3 for w in words) >= 2
        and not _is_data(line)
    )


def _prose_size(lines: list[_Line]) -> float:
    """The size most of a page's words are set in: its prose's (a table's notes are set smaller)."""
    sizes = [round(w.size, 1) for ln in lines for w in ln.words]
    return statistics.mode(sizes) if sizes else 0.0


def _run(lines: list[_Line], first: int, span: float, *, downwards: bool = True) -> list[_Line]:
    """The data lines from ``first`` on, with free-text rows between them, to the table's end. The
    line pitch is measured between rows that start at the first row's left edge: a column set half
    a line lower ("1780.78 ± 0.45" beside "z3" and "z4") is no row of its own."""
    run = [lines[first]]
    gap: list[_Line] = []
    pitch = None
    row_top = lines[first].top
    empty = 0  # gap lines that are rows printing their label only
    for line in lines[first + 1 :]:
        step = abs(line.top - run[-1].top)
        if pitch is not None and not gap and step > 3.0 * pitch:
            break
        if _is_data(line):
            if gap and (
                len(gap) - empty > _MAX_GAP_LINES
                or any(_is_prose(g, span) for g in gap)
                or _next_heads(gap, run[0], line)
            ):
                break
            if abs(line.x0 - run[0].x0) <= max(line.words[0].size, 4.0):
                row_step = abs(line.top - row_top)  # upwards from a caption below the table too
                pitch = row_step if pitch is None else min(pitch, row_step)
                row_top = line.top
            run.extend(gap)
            gap, empty = [], 0
            run.append(line)
        else:
            empty += _label_only(line, run[0], pitch, line.top - (gap or run)[-1].top)
            gap.append(line)
            if len(gap) - empty > _MAX_GAP_LINES:
                break
    # free-text rows after the last row that state a value ("weighted mean 206Pb/238U age =
    # 1091.63 ± 0.35 Ma"): the last group's summary, part of the table (a footnote is not); and
    # last rows of more words than numbers that fit the grid ("KIL-5  rhyolite dome, 2 km N of vent
    # 73.1 …", see _row_of_columns)
    data = [ln for ln in run if _is_data(ln)]
    columns = _columns(data) if downwards and gap else []
    numeric = _numeric_columns(data, columns) if columns else []
    for line in gap if downwards else []:
        stated = ("=" in line.text or "±" in line.text) and any(is_number(w.text) for w in line.words)
        fits = len(columns) >= 2 and _row_of_columns(line, columns, numeric) is not None
        # a sparse table's last rows, a label and one value or none ("Ba  243 (b)", "Pr")
        sparse = _label_only(line, run[0], pitch, line.top - run[-1].top)
        if (
            not (stated or fits or sparse)
            or _is_prose(line, span)
            or _FOOTNOTE.match(line.text)
            or _CAPTION.match(line.words[0].text)
        ):
            break
        if pitch is not None and line.top - run[-1].top > 2.0 * pitch:
            break
        run.append(line)
    return run


def _one_value(line: _Line) -> bool:
    """A row label, one number and perhaps its letter mark ("Hf 12 (b)", "Cu 20"): a sparse table's
    row with one value."""
    words = _value_words(line)
    return (
        len(words) >= 2
        and not is_number(words[0])
        and sum(is_number(t) for t in words) == 1
        and len(words) <= 3
    )


def _empty_rows(lines: list[_Line], first: int) -> int:
    """How many lines right above the first data line are rows printing their label only, at the
    data rows' left edge and pitch: a compilation whose first block (the majors of a trace-element
    analysis) is empty starts its table there, not at its first row with two values."""
    if first + 1 >= len(lines):
        return 0
    # a blank line between blocks ("sum", then "Sc ppm") is a step of two rows
    pitch = 2 * (lines[first + 1].top - lines[first].top)
    count = 0
    while first - count - 1 >= 0 and _label_only(
        lines[first - count - 1], lines[first], pitch, lines[first - count].top - lines[first - count - 1].top
    ):
        count += 1
    return count


def _label_only(line: _Line, first: _Line, pitch: float | None, step: float) -> bool:
    """A row of a sparse table that prints its label and one value or none ("Ni", "Ge ppb", "Cu 20 (b)"
    in a compilation of analyses): a short name at the rows' left edge, a row's pitch (``step``)
    from its neighbour. Runs of such rows do not end the table as a run of text lines would."""
    words = _value_words(line)
    label = [t for t in words if not is_number(t)]
    return (
        pitch is not None
        and len(words) - len(label) <= 1
        and len(label) <= 2
        and len(" ".join(label)) <= 12
        and abs(line.x0 - first.x0) <= max(line.words[0].size, 4.0)
        and step <= 1.5 * pitch
        and not _TEXT_PUNCTUATION.search(" ".join(label))
        and not _CAPTION.match(line.words[0].text)
    )


def _header(lines: list[_Line], data_top: float, caption_top: float | None, span: float) -> list[_Line]:
    above = [
        ln
        for ln in lines
        if ln.bottom <= data_top + 0.5 and (caption_top is None or ln.top > caption_top - 1)
    ]
    above.sort(key=lambda ln: ln.top, reverse=True)
    header: list[_Line] = []
    last_top = data_top
    for line in above:
        # a header line of many column heads is as long as prose but set in phrases apart
        if _sentence(line, span) or _is_data(line) or len(header) >= _MAX_HEADER:
            break
        if last_top - line.top > 2.5 * max(line.words[0].size, 6.0) and caption_top is None:
            break
        header.append(line)
        last_top = line.top
    if caption_top is not None:  # the caption's own continuation lines are no header; a line of
        # phrases set apart over groups of columns ("Isotopic Ratios and 2s (%) Errors    Ages and
        # 2s Absolute Errors (Ma)") is a group header, not running text
        while header and _is_prose(header[-1], span * 0.5) and _one_run(header[-1]):
            header.pop()
    return list(reversed(header))


def _columns(data: list[_Line]) -> list[tuple[float, float]]:
    need = max(1, len(data) // 6)
    found = _covered(
        [ln.words for ln in data], lambda _, cover: cover > need or (cover == need and len(data) < 6)
    )
    return sorted(found + _sparse_columns(data, found))


def _headed_columns(
    header: list[_Line], data: list[_Line], found: list[tuple[float, float]]
) -> list[tuple[float, float]]:
    """The x ranges of heads that lie clear of the columns ``found`` and stand over a number of a
    data line: a column too few rows fill to be found from the rows alone."""
    numbers = [w for ln in data for w in ln.words if is_number(w.text)]
    out: list[tuple[float, float]] = []
    for word in (w for ln in header for w in ln.words):
        if any(min(word.x1, b) > max(word.x0, a) for a, b in found + out):
            continue
        under = [n for n in numbers if min(word.x1, n.x1) > max(word.x0, n.x0)]
        if under:
            out.append((min(word.x0, *(n.x0 for n in under)), max(word.x1, *(n.x1 for n in under))))
    return out


def _sparse_columns(data: list[_Line], found: list[tuple[float, float]]) -> list[tuple[float, float]]:
    """Columns that too few lines fill to count as columns above, where they lie clear of them: a
    sparse compilation's analyses printing three values each ("Th", "U", "K2O" only) had been read
    into the nearest column, one cell of three numbers. Two lines must line up for one."""
    loose = [[w for w in ln.words if not any(min(w.x1, b) > max(w.x0, a) for a, b in found)] for ln in data]
    return _covered(loose, lambda mid, cover: cover >= 2 and not any(c <= mid <= d for c, d in found))


def _covered(lines: list[list[_Word]], keep: Callable[[float, int], bool]) -> list[tuple[float, float]]:
    """The x ranges (wider than a point) between word edges that ``keep`` keeps, given the range's
    middle and how many of ``lines`` have a word over it; neighbouring ranges join."""
    edges = sorted({round(x, 1) for words in lines for w in words for x in (w.x0, w.x1)})
    runs: list[list[float]] = []
    for a, b in zip(edges, edges[1:], strict=False):
        mid = (a + b) / 2
        if keep(mid, sum(any(w.x0 <= mid <= w.x1 for w in words) for words in lines)):
            if runs and abs(runs[-1][1] - a) < 0.05:
                runs[-1][1] = b
            else:
                runs.append([a, b])
    return [(a, b) for a, b in runs if b - a > 1.0]


def _group_header(line: _Line, columns: list[tuple[float, float]], bottom: list[str]) -> list[str] | None:
    """The top header line as a group header, each phrase naming every column under it
    ("Isotopic Ratios and 2s (%) Errors" over the ratio columns, "Ages and 2s Absolute Errors (Ma)"
    over the age columns; which columns, :func:`_groups`); None when it is not one. It is one only when two or more phrases each
    span two or more columns and the bottom header row prints one header under two of the groups
    ("206Pb/238U" as a ratio and as an age): only then do the groups tell columns apart, and a
    header line whose words merely sit close together keeps its own cells, and so does a line of
    column heads set wider apart than the words of a phrase ("Au   Ag   Al" over their columns)."""
    phrases = _phrases(line, ems=1.0)
    group_of = _groups(phrases, columns, bottom)
    if len(set(group_of.values())) < 2:
        return None
    seen: dict[str, int] = {}
    repeated = False
    for i, text in enumerate(bottom):
        if i in group_of and text:
            if text in seen and seen[text] != group_of[i]:
                repeated = True
            seen.setdefault(text, group_of[i])
    if not repeated:
        return None
    cells = [""] * len(columns)
    for k, phrase in enumerate(phrases):
        under = [i for i, g in group_of.items() if g == k]
        if under:
            for i in under:
                cells[i] = " ".join(w.text for w in phrase)
        else:
            _put(cells, phrase, columns)
    return cells


def _group_rows(rows: list[list[str]], header: list[_Line], columns: list[tuple[float, float]]) -> None:
    """The header rows with the top line read as a group header, where it is one (:func:`_group_header`),
    in place. The names it stands over are, of the header rows under it that are not footnote marks
    ("(a) (b) (c)"), the one that heads the most columns (the lowest on a tie), not a short units line
    under the names ("(pluton) [s]", "(Ma)"); a header line that is one phrase under one group is that
    group header's second line ("(see text for details)" under "Reported age") and joins it."""
    under = [r for r in rows[1 : len(header)] if not marks_row(r)] or [rows[len(header) - 1]]
    bottom = max(reversed(under), key=lambda r: sum(bool(c.strip()) for c in r))
    grouped = _group_header(header[0], columns, bottom)
    if grouped is None:
        return
    rows[0] = grouped
    for k in range(1, len(header)):
        if rows[k] is not bottom and _wraps_group(header[k], columns, rows[0]):
            first = next(i for i, (a, b) in enumerate(columns) if _over(header[k], a, b))
            group = rows[0][first]
            rows[0] = [f"{c} {header[k].text}" if c == group else c for c in rows[0]]
            rows[k] = [""] * len(columns)


def _over(line: _Line, a: float, b: float) -> bool:
    return any(min(b, w.x1) > max(a, w.x0) for w in line.words)


def _wraps_group(line: _Line, columns: list[tuple[float, float]], grouped: list[str]) -> bool:
    """Whether a header line is the second line of one group header: one phrase over two or more
    columns, all of them under the same group."""
    under = [i for i, (a, b) in enumerate(columns) if _over(line, a, b)]
    return (
        len(_phrases(line)) == 1
        and len(under) >= 2
        and bool(grouped[under[0]])
        and all(grouped[i] == grouped[under[0]] for i in under)
    )


def _phrases(line: _Line, ems: float = 2.0) -> list[list[_Word]]:
    """The line's runs of words, split where the gap between two words is wider than ``ems`` ems."""
    out: list[list[_Word]] = [[line.words[0]]] if line.words else []
    for a, b in zip(line.words, line.words[1:], strict=False):
        if b.x0 - a.x1 > ems * max(a.size, 4.0):
            out.append([b])
        else:
            out[-1].append(b)
    return out


# a bottom header cell that heads the uncertainty of the column before it ("±", "% err", "2 SE")
_UNCERTAINTY_HEAD = re.compile(r"^(?:±.*|\+/-.*|%\s*err.*|err(?:or)?\.?|[12]\s*(?:σ|s|SE|SD)\b.*|\(%\))$")


def _groups(
    phrases: list[list[_Word]], columns: list[tuple[float, float]], bottom: list[str]
) -> dict[int, int]:
    """Column → the group header phrase over it. A phrase that lies over fewer than two columns
    heads none (that column's header, wrapped or set high). A group reaches from its phrase halfway
    to the next phrase on each side: a group header is centred over its columns (or set at their
    left) and the gaps between phrases fall between groups; the first and last groups reach out by
    half the narrowest gap. An uncertainty column ("±", "% err") stays in its value column's group
    when the boundary falls between them."""
    spans = [(p[0].x0, p[-1].x1) for p in phrases]
    gaps = [b[0] - a[1] for a, b in zip(spans, spans[1:], strict=False)]
    widen = min(gaps) / 2 if gaps else 0.0
    group_of: dict[int, int] = {}
    for k, (x0, x1) in enumerate(spans):
        if sum(min(b, x1) > max(a, x0) for a, b in columns) < 2:
            continue
        left = (spans[k - 1][1] + x0) / 2 if k else x0 - widen
        right = (x1 + spans[k + 1][0]) / 2 if k + 1 < len(spans) else x1 + widen
        for i, (a, b) in enumerate(columns):
            if left <= (a + b) / 2 <= right:
                group_of.setdefault(i, k)
    for i in range(1, min(len(columns), len(bottom))):
        if i - 1 in group_of and _UNCERTAINTY_HEAD.match(bottom[i].strip()):
            group_of[i] = group_of[i - 1]
    return group_of


def _label_unit(columns: list[tuple[float, float]], data: list[_Line]) -> list[tuple[float, float]]:
    """The columns with a word column set a space after the label column joined to it: the unit a
    row's label prints beside it ("Cs ppm", "Ge ppb"), which lines up in a column of its own when
    the labels are short and alike. Columns of a table stand further apart than a space (a serial
    number's column, "1  M031", is no label to join)."""
    if len(columns) < 3 or not data:
        return columns
    size = statistics.median(w.size for ln in data for w in ln.words)
    numbers = [0] * len(columns)
    for line in data:
        for word in line.words:
            numbers[_slot(word, columns)] += is_number(word.text)
    if columns[1][0] - columns[0][1] < 0.4 * size and not numbers[0] and not numbers[1]:
        return [(columns[0][0], columns[1][1]), *columns[2:]]
    return columns


def _numeric_columns(data: list[_Line], columns: list[tuple[float, float]]) -> list[bool]:
    """Whether each column's cells in the data lines are mostly numbers (a value column) rather than
    words (the label column, a "Rock type" or "Test" column)."""
    numbers, filled = [0] * len(columns), [0] * len(columns)
    for line in data:
        cells = [""] * len(columns)
        _put(cells, line.words, columns)
        for i, cell in enumerate(cells):
            if cell:
                filled[i] += 1
                numbers[i] += is_number(cell)
    return [filled[i] > 0 and numbers[i] > filled[i] / 2 for i in range(len(columns))]


def _row_of_columns(
    line: _Line, columns: list[tuple[float, float]], numeric: list[bool], least: int = 2
) -> list[str] | None:
    """The cells of a line with fewer numbers than words that is still a row of the grid, else None:
    its phrases of words (words less than an em apart) sit in the word columns — a phrase in the
    column its first word is in, since a long description may run past that column's other cells
    ("Islamic Republic of Iran" over the next column's left edge) — and its numbers, one a cell,
    inside the value columns ("KIL-4  ol-phyric alkali trachy basalt  57.9  1.20  3.0  41", a
    DataFrame's "4  Testing H2O and CO2 input  0.0  0.00"). A free-text row ("weighted mean
    206Pb/238U age = 1096.19 ± 0.19 Ma") sets words over the value columns and stays one cell."""
    cells = [""] * len(columns)
    for phrase in _phrases(line, ems=1.0):
        for at, word in enumerate(phrase):
            # a number inside a description ("lava lake 2 km N") is part of it; a value stands alone
            number = is_number(word.text) and (at == 0 or all(is_number(w.text) for w in phrase))
            i = _slot(word if number or at == 0 else phrase[0], columns)
            touched = {k for k, (a, b) in enumerate(columns) if min(word.x1, b) > max(word.x0, a)}
            if numeric[i] != number or any(numeric[k] and k != i for k in touched):
                return None  # a word over a value column, a number in a word column
            if number and (cells[i] or i not in touched):
                return None  # two numbers in one value cell, or a number off its column
            cells[i] = f"{cells[i]} {word.text}".strip()
    return cells if sum(bool(c) for c, n in zip(cells, numeric, strict=True) if n) >= least else None


def _put(
    cells: list[str], words: list[_Word], columns: list[tuple[float, float]], *, phrases: bool = False
) -> None:
    """Each word appended to the cell of the column it falls in; with ``phrases`` (a header line), a
    word between two columns that follows the word before it by less than half an em stays in that
    word's cell: a column head wider than its values ("λ = 200 (c = 0.01)" over "86.4") is one head,
    not the ends of two."""
    previous: tuple[_Word, int] | None = None
    for word in words:
        i = _slot(word, columns)
        if phrases and previous is not None:
            clear = all(min(word.x1, b) <= max(word.x0, a) for a, b in columns)
            if clear and word.x0 - previous[0].x1 < 0.5 * max(word.size, 4.0):
                i = previous[1]
        cells[i] = f"{cells[i]} {word.text}".strip()
        previous = (word, i)


def _equated(
    rows: list[list[str]], columns: list[tuple[float, float]], numeric: list[bool], heads: int
) -> list[tuple[float, float]]:
    """The columns, with a word column whose cells all end in "=" or "≈" joined, in ``rows`` too,
    to the value column after it: "n = 10" labels its row (the values of "n" line up as a column of
    their own, but the sign binds them to their name)."""
    for k in range(len(columns) - 2, -1, -1):
        body = [r[k].strip() for r in rows[heads:] if r[k].strip()]
        if numeric[k] or not numeric[k + 1] or not body or not all(c[-1] in "=≈" for c in body):
            continue
        if not all(r[k + 1].strip() for r in rows[heads:] if r[k].strip()):
            continue
        for row in rows:
            row[k : k + 2] = [" ".join(c for c in row[k : k + 2] if c.strip())]
        columns = [*columns[:k], (columns[k][0], columns[k + 1][1]), *columns[k + 2 :]]
    return columns


def _slot(word: _Word, columns: list[tuple[float, float]]) -> int:
    overlaps = [min(word.x1, b) - max(word.x0, a) for a, b in columns]
    best = max(range(len(columns)), key=lambda i: overlaps[i])
    if overlaps[best] > 0:
        return best
    centre = (word.x0 + word.x1) / 2
    return min(
        range(len(columns)), key=lambda i: min(abs(columns[i][0] - centre), abs(columns[i][1] - centre))
    )


def _grid(
    label: str, page: int, header: list[_Line], body: list[_Line], caption: str, *, headed: bool = False
) -> WordTable | None:
    """The table's cells on the columns its data lines fill; with ``headed`` also on those a head
    stands over with a value under it in one line only (a results block's "MSWD")."""
    data = [ln for ln in body if _is_data(ln)]
    columns = _label_unit(_columns(data), data)
    if headed:
        columns = sorted(columns + _headed_columns(header, data, columns))
    if len(columns) < 2:
        return None
    numeric = _numeric_columns(data, columns)
    rows: list[list[str]] = []
    for line in header + body:
        cells = [""] * len(columns)
        if not _is_data(line) and line in body:
            worded = _row_of_columns(line, columns, numeric)
            if worded is None and _one_value(line):  # a sparse table's row of one value ("Hf 12 (b)")
                worded = _row_of_columns(line, columns, numeric, least=1)
            rows.append(worded or [line.text] + [""] * (len(columns) - 1))  # else a free-text row
            continue
        words = line.words
        if line in header and len(words) > 1 and words[-1].text == "\\":
            words = words[:-1]  # a DataFrame's mark that its columns go on in the next block
        _put(cells, words, columns, phrases=line in header)
        rows.append(cells)
    if len(header) > 1:
        _group_rows(rows, header, columns)
    columns = _equated(rows, columns, numeric, len(header))
    flat = [w for ln in header + body for w in ln.words]
    box = (
        min(w.x0 for w in flat),
        min(w.top for w in flat),
        max(w.x1 for w in flat),
        max(w.bottom for w in flat),
    )
    return WordTable(
        label=label,
        page=page,
        rows=rows,
        header_rows=len(header),
        caption=caption,
        box=box,
        columns=columns,
        bottom=body[-1].bottom,
    )
