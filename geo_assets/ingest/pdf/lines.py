"""Step 1: one page's pdfplumber characters → glyphs → line fragments.

Reads the characters (text, font name, size, position), skips what is not text to keep (rotated
margin text, invisible micro-text, control characters, glyphs painted twice), recognizes bold
fonts by name, and builds line fragments: runs chained in content-stream order, then merged with
their neighbours on the same line. The fragments are not yet in reading order; ``columns`` sorts
them once the whole page is known.
"""

import re
import statistics
from collections import Counter
from collections.abc import Callable
from typing import Any

from geo_assets.ingest.pdf.layout import Glyph, Line

_BOLD_FONT = re.compile(
    r"bold|black|heavy|semibold|demi|-medi|medium|\.b$|[-,]b$|cmbx|\bbd\b|boldmt", re.IGNORECASE
)
_SUBSET_PREFIX = re.compile(r"^[A-Z]{6}\+")
_SECTION_NUMBER = re.compile(r"(?:[1-9]\d?|[A-H])(?:\.\d{1,2}){0,3}\.?|(?:IX|IV|V?I{1,3}|V|X)\.")


def _is_bold(fontname: str) -> bool:
    return bool(_BOLD_FONT.search(fontname))


def page_lines(page: Any, page_no: int) -> list[Line]:
    """Glyphs of one page → line fragments (not yet in reading order).

    Glyphs are first chained in content-stream order (how the typesetter wrote them), so a
    superscript or subscript joins the word it belongs to even when it sits half a line higher or
    lower; the chains are then merged with their neighbours on the same line, never across a gap
    wider than about one em (a column gutter), except after a section number or a short bold
    run-in head, which typesetters separate by a wide space.
    """
    width, height = float(page.width), float(page.height)
    runs: list[list[Glyph]] = []
    prev: Glyph | None = None
    seen: set[tuple[str, int, int]] = set()
    for ch in page.chars:
        text = ch.get("text") or ""
        key = (text, round(float(ch["x0"])), round(float(ch["top"])))
        if key in seen:
            continue  # the same glyph painted twice (fake bold, shadows); cheaper than dedupe_chars
        seen.add(key)
        size = float(ch.get("size") or 0.0)
        if not ch.get("upright", True) or size < 3.0 or not text or not text.isprintable():
            continue  # rotated margin text, invisible micro-text, control characters
        x0, x1, top, bottom = float(ch["x0"]), float(ch["x1"]), float(ch["top"]), float(ch["bottom"])
        if x1 < 0 or x0 > width or bottom < 0 or top > height:
            continue
        font = _SUBSET_PREFIX.sub("", str(ch.get("fontname", "")))
        glyph = Glyph(text, x0, x1, top, bottom, size, _is_bold(font), font)
        if prev is not None and _chains(prev, glyph):
            runs[-1].append(glyph)
        else:
            runs.append([glyph])
        prev = glyph

    # a run's trailing space is kept while runs are joined (an OCR layer's next word may start left
    # of it: the space is the only word break there), and dropped from the joined lines
    items = [make_line(page_no, _in_order(run), keep_space=True) for run in runs]
    items = [item for item in items if item.glyphs and item.text]
    items = _without_line_numbers(items)
    items.sort(key=lambda ln: (ln.top, ln.x0))
    merged: list[Line] = []
    for item in items:
        target = None
        for other in reversed(merged[-40:]):
            overlap = min(other.bottom, item.bottom) - max(other.top, item.top)
            if overlap < 0.5 * min(other.bottom - other.top, item.bottom - item.top):
                continue
            first, second = (other, item) if other.x0 <= item.x0 else (item, other)
            gap = second.x0 - _letters_end(first.glyphs)  # a trailing space glyph is no part of the width
            limit = 1.0 * max(other.size, item.size)
            if _is_label(first) and abs(first.size - second.size) < 0.6:
                limit *= 3.0
            if -limit <= gap <= limit:
                target = other
                break
        if target is None:
            merged.append(item)
        else:
            target.glyphs = _joined(target.glyphs, item.glyphs)
            target.finish()
    # the joined lines without a trailing space (made again only where one ends with it)
    lines = [make_line(page_no, ln.glyphs) if ln.glyphs[-1].text == " " else ln for ln in merged]
    return [line for line in lines if line.text]


def _in_order(run: list[Glyph]) -> list[Glyph]:
    """A run's glyphs left to right, each word space kept after the glyph it follows in the stream.
    An OCR text layer places its space glyphs a little right of where the next word starts (each
    word is positioned on the scanned image, and its glyphs' widths do not fit it): sorted by
    position, "of" would read "o f" after the space."""
    keys: list[float] = []
    for glyph in run:
        keys.append(keys[-1] + 1e-6 if glyph.text == " " and keys else glyph.x0)
    return [glyph for _, _, glyph in sorted(zip(keys, range(len(run)), run, strict=True))]


def _joined(left: list[Glyph], right: list[Glyph]) -> list[Glyph]:
    """Two line fragments on the same line as one: the right one after the left one when it starts
    after the left one's last letter starts, or when the left one ends with a word space and the
    right one goes on in the same type within about an em of its last letter (an OCR layer's next
    word may start left of the space before it: "relationship" ends at 188.3 pt, its space runs to
    190.8, "of" starts at 184.3); else their glyphs interleaved by position (a superscript inside a
    word)."""
    first, second = (left, right) if _start(left) <= _start(right) else (right, left)
    letters = [g for g in first if g.text != " "]
    if letters and all(g.x0 >= letters[-1].x0 for g in second):
        return [*first, *second]
    if (
        letters
        and first[-1].text == " "
        and _same_type(letters[-1], second[0])
        and second[0].x0 >= letters[-1].x1 - second[0].size
    ):
        return [*first, *second]  # an OCR layer's word overlapping the one before: still the next word
    return sorted(first + second, key=lambda g: g.x0)


def _same_type(a: Glyph, b: Glyph) -> bool:
    """Same size on the same baseline: glyphs that follow each other, not a superscript or accent."""
    size = max(a.size, b.size)
    return abs(a.size - b.size) <= 0.15 * size and abs(a.bottom - b.bottom) <= 0.15 * size


def _letters_end(glyphs: list[Glyph]) -> float:
    return max((g.x1 for g in glyphs if g.text != " "), default=0.0)


def _start(glyphs: list[Glyph]) -> float:
    return min((g.x0 for g in glyphs), default=0.0)


def _is_label(line: Line) -> bool:
    """A section number ("2.1") or a short bold run-in head ("Papers.") before wide space."""
    text = line.text
    if _SECTION_NUMBER.fullmatch(text):
        return True
    return len(text) <= 30 and line.bold >= 0.6 and text.endswith((".", ":"))


def _chains(prev: Glyph, glyph: Glyph) -> bool:
    """Does ``glyph`` continue the text run of ``prev`` (stream order, same line)?"""
    overlap = min(prev.bottom, glyph.bottom) - max(prev.top, glyph.top)
    if overlap < 0.4 * min(prev.bottom - prev.top, glyph.bottom - glyph.top):
        return False
    gap = glyph.x0 - prev.x1
    size = max(prev.size, glyph.size)
    return -0.3 * size <= gap <= 1.0 * size


def make_line(page_no: int, glyphs: list[Glyph], *, keep_space: bool = False) -> Line:
    while glyphs and glyphs[-1].text == " " and not keep_space:
        glyphs = glyphs[:-1]
    line = Line(page=page_no, glyphs=glyphs)
    if glyphs:
        line.finish()
    return line


_LINE_NUMBER = re.compile(r"\d{1,5}")


def _without_line_numbers(items: list[Line]) -> list[Line]:
    """A manuscript's line numbers left out: a column of integers in the margin, counting up by one
    (or five) down the page, with all the page's other text on one side of it. Read as text they
    split words ("po-78 tential"), and values and samples were read from them ("standard deviation
    17 0.5"). A table's serial-number column is kept: the table's other cells and the caption start
    beside it, not all to one side, and a notebook's index is set in the text's own type."""
    numbers = [item for item in items if _LINE_NUMBER.fullmatch(item.text.strip())]
    if len(numbers) < 6:
        return items
    # set right-aligned (most) or left-aligned
    columns = _aligned(numbers, lambda ln: ln.x1) + _aligned(numbers, lambda ln: ln.x0)
    dropped: set[int] = set()
    for column in columns:
        if len(column) < 6:
            continue
        column.sort(key=lambda ln: ln.top)
        values = [int(item.text.strip()) for item in column]
        steps = [b - a for a, b in zip(values, values[1:], strict=False)]
        if max(steps.count(1), steps.count(5)) < 0.8 * len(steps):
            continue
        left, right = min(i.x0 for i in column), max(i.x1 for i in column)
        members = {id(i) for i in column}
        others = [i for i in items if id(i) not in members]
        if not others:
            continue
        beside = max(sum(o.x0 > right + 1.0 for o in others), sum(o.x1 < left - 1.0 for o in others))
        # set apart from the text, as line numbers are (smaller, or another font): a notebook's
        # DataFrame index counts down its left edge in the text's own type and stays
        fonts = Counter(g.font for o in others for g in o.glyphs)
        own = Counter(g.font for i in column for g in i.glyphs)
        smaller = statistics.median(i.size for i in column) <= 0.92 * statistics.median(
            o.size for o in others
        )
        if beside >= 0.95 * len(others) and (
            smaller or own.most_common(1)[0][0] != fonts.most_common(1)[0][0]
        ):
            dropped |= members
    return [item for item in items if id(item) not in dropped] if dropped else items


def _aligned(items: list[Line], edge: Callable[[Line], float]) -> list[list[Line]]:
    """``items`` grouped by where ``edge`` puts them, within 2 pt."""
    groups: list[list[Line]] = []
    for item in sorted(items, key=edge):
        if groups and abs(edge(groups[-1][-1]) - edge(item)) <= 2.0:
            groups[-1].append(item)
        else:
            groups.append([item])
    return groups
