"""Layout primitives shared by every step: the glyph, the line, and how glyphs become text.

A ``Line`` is a horizontal run of glyphs within one column and the unit of every later decision
(reading order, classification, paragraphs). It keeps its glyphs so that later steps can still
ask about raised glyphs (affiliation markers after author names) and bold lead-ins (run-in heads).
Text cleaning lives here because a line's text is computed from its glyphs: ligatures are
expanded, ``(cid:N)`` codes (fonts without a Unicode map) and soft hyphens are dropped, and
whitespace is collapsed. So does ``coords``, the GROBID-style position of a group of lines that the
TEI carries on paragraphs, heads and captions (where a passage is printed: page and box).
"""

import re
import statistics
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

_LIGATURES = str.maketrans({"ﬀ": "ff", "ﬁ": "fi", "ﬂ": "fl", "ﬃ": "ffi", "ﬄ": "ffl", "ﬅ": "st", "ﬆ": "st"})
_CID = re.compile(r"\(cid:\d+\)")


@dataclass
class Glyph:
    text: str
    x0: float
    x1: float
    top: float
    bottom: float
    size: float
    bold: bool
    font: str = ""


@dataclass(eq=False)
class Line:
    """A horizontal run of glyphs within one column: the unit of all later decisions."""

    page: int
    glyphs: list[Glyph]
    col: int = 0  # 0 = left (or only) column, 1 = right column
    spanning: bool = False  # crosses the gutter of a two-column page
    text: str = ""
    kind: str = "body"  # body | drop | title | heading | runin | caption | keywords
    x0: float = 0.0
    x1: float = 0.0
    top: float = 0.0
    bottom: float = 0.0
    size: float = 0.0
    bold: float = 0.0  # share of bold glyphs
    font: str = ""  # most common font of the line
    head_number: str | None = None
    head_text: str | None = None
    left_ref: float = 0.0  # left/right text edge of the neighbouring lines (paragraph geometry)
    right_ref: float = 0.0

    def finish(self) -> None:
        letters = [g for g in self.glyphs if g.text.strip()] or self.glyphs
        self.size = statistics.median(g.size for g in letters)
        main = [g for g in letters if g.size >= 0.8 * self.size] or letters
        self.x0 = min(g.x0 for g in self.glyphs)
        self.x1 = max(g.x1 for g in self.glyphs)
        self.top = min(g.top for g in main)
        self.bottom = max(g.bottom for g in main)
        self.bold = sum(g.bold for g in letters) / len(letters)
        self.font = Counter(g.font for g in letters).most_common(1)[0][0]
        self.text = _glyph_text(self.glyphs)

    def text_without_superscripts(self) -> str:
        """Text without affiliation markers: raised small glyphs that do not sit inside a word.

        Small caps stay (they sit on the baseline), and so does a raised letter within a name
        ("McNab" set with a superior c).
        """
        big = [g for g in self.glyphs if g.size >= 0.8 * self.size]
        baseline = statistics.median(g.bottom for g in big) if big else 0.0
        kept: list[Glyph] = []
        for index, glyph in enumerate(self.glyphs):
            raised = glyph.size < 0.8 * self.size and glyph.bottom < baseline - 0.15 * self.size
            if raised:
                after = self.glyphs[index + 1] if index + 1 < len(self.glyphs) else None
                inside = (
                    glyph.text.isalpha()
                    and after is not None
                    and after.size >= 0.8 * self.size
                    and after.text.isalpha()
                    and after.x0 - glyph.x1 < 0.1 * self.size
                )
                if not inside:
                    continue
            kept.append(glyph)
        return _glyph_text(kept)

    def bold_prefix(self) -> str:
        """The leading run of bold glyphs when the rest of the line is not bold (run-in head)."""
        count = 0
        for glyph in self.glyphs:
            if not glyph.bold and glyph.text.strip():
                break
            count += 1
        if count == len(self.glyphs):
            return ""
        return _glyph_text(self.glyphs[:count]).strip()


def _glyph_text(glyphs: Sequence[Glyph]) -> str:
    """Join glyphs left to right, inserting a space where the gap is a word space."""
    out: list[str] = []
    prev: Glyph | None = None
    for glyph in glyphs:
        if glyph.text == " ":
            if out and out[-1] != " ":
                out.append(" ")
            continue
        # thin spaces set around a ratio slash ("4He / 3He" in titles) are not word spaces
        factor = 0.3 if prev is not None and "/" in (prev.text, glyph.text) else 0.15
        word_gap = prev is not None and glyph.x0 - prev.x1 > factor * max(glyph.size, prev.size)
        if word_gap and out and out[-1] != " ":
            out.append(" ")
        out.append(glyph.text)
        prev = glyph
    return clean_text("".join(out))


def clean_text(text: str) -> str:
    text = _CID.sub("", text.translate(_LIGATURES)).replace("\u00ad", "")
    return re.sub(r"\s+", " ", text).strip()


def box_coords(page: int, x0: float, top: float, x1: float, bottom: float) -> str:
    """One GROBID-style ``coords`` box: ``"page,x,y,w,h"`` (PDF points, origin top-left)."""
    return f"{page},{x0:.2f},{top:.2f},{x1 - x0:.2f},{bottom - top:.2f}"


def coords_page(coords: str) -> int | None:
    """The page a ``coords`` attribute starts on (None for no position)."""
    head = coords.split(",", 1)[0]
    return int(head) if head.isdigit() else None


def coords(lines: Sequence[Line]) -> str:
    """GROBID-style ``coords`` of some lines: ``"page,x,y,w,h;..."`` (1-based page, PDF points, origin
    top-left), one box around each run of consecutive lines on the same page and in the same column;
    "" for no lines."""
    boxes: list[str] = []
    group: list[Line] = []

    def flush() -> None:
        if group:
            x0, x1 = min(ln.x0 for ln in group), max(ln.x1 for ln in group)
            top, bottom = min(ln.top for ln in group), max(ln.bottom for ln in group)
            boxes.append(box_coords(group[0].page, x0, top, x1, bottom))
            group.clear()

    for line in lines:
        if group:
            last = group[-1]
            moved = (line.page, line.col, line.spanning) != (last.page, last.col, last.spanning)
            if moved or line.top < last.top - 0.5 * line.size:  # a new page, column, or back up the page
                flush()
        group.append(line)
    flush()
    return ";".join(boxes)
