"""Embedded PDF → TEI converter: the default when no GROBID server is configured.

GROBID is the production path (``grobid.py``); this module lets the pipeline run with no services.
It reads glyphs, font sizes, bold fonts and positions with pdfplumber (MIT; pdfminer.six underneath)
and emits TEI shaped like GROBID's, so that one parser (``tei.py``) reads both.

Layout analysis, in order:

1. glyphs → runs in content-stream order (so super/subscripts stay in their word) → line
   fragments (merged with neighbours on the same line, never across a gap wider than about one
   em; rotated margin text is dropped);
2. per page, a column gutter is searched for (the x with the most text side by side across it);
   lines that cross it (title, wide captions) split the page into bands read left column first;
3. running headers/footers (text repeated near the top/bottom of many pages) and page numbers go;
4. the title is the largest-font line group of page 1 (checked against the PDF metadata title);
5. lines are classified (numbered/bold/known section heads, captions, references) and grouped
   into paragraphs by vertical gaps, first-line indents, short last lines and font changes;
6. the references section is split into entries (numbered, hanging-indent or spacing styles).

Geochemical notation is data: glyph text is kept as printed (δ, ε, ±, –, ‰), superscripts and
subscripts become plain characters (87Sr/86Sr, SiO2), and end-of-line hyphens are removed only
where the document itself shows the unhyphenated word (or the break is plainly a syllable split),
never before an uppercase letter or a digit (U-Pb, Re–Os, gchron-3-247).
"""

import re
import statistics
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pdfplumber
from lxml import etree
from rapidfuzz import fuzz

from geo_rag_runtime.errors import PdfError

__all__ = ["EMBEDDED_PRODUCER", "EMBEDDED_VERSION", "pdf_to_tei"]

EMBEDDED_PRODUCER = "georag-embedded-pdf"
EMBEDDED_VERSION = "0.1.0"

TEI_NS = "http://www.tei-c.org/ns/1.0"
XML_NS = "http://www.w3.org/XML/1998/namespace"

# ---------------------------------------------------------------------------------------------
# vocabulary and patterns
# ---------------------------------------------------------------------------------------------

_BOLD_FONT = re.compile(
    r"bold|black|heavy|semibold|demi|-medi|medium|\.b$|[-,]b$|cmbx|\bbd\b|boldmt", re.IGNORECASE
)
_SUBSET_PREFIX = re.compile(r"^[A-Z]{6}\+")

# Heads that papers use without numbers; normalized lower case, no trailing punctuation.
_BODY_HEADS = {
    "introduction",
    "background",
    "methods",
    "method",
    "methodology",
    "materials and methods",
    "methods and materials",
    "material and methods",
    "results",
    "discussion",
    "results and discussion",
    "discussion and conclusions",
    "conclusion",
    "conclusions",
    "concluding remarks",
    "summary",
    "summary and conclusions",
    "conclusions and outlook",
    "outlook",
    "geological setting",
    "geologic setting",
    "regional geology",
    "samples",
    "sampling",
    "analytical methods",
    "analytical techniques",
    "data",
    "study area",
    "case study",
    "case studies",
    "implications",
    "limitations",
    "related work",
    "experiments",
    "evaluation",
    "significance",
    "plain language summary",
    "key points",
}
_BACK_HEADS = {
    "acknowledgements",
    "acknowledgments",
    "acknowledgement",
    "acknowledgment",
    "data availability",
    "data availability statement",
    "code availability",
    "code and data availability",
    "data and code availability",
    "author contributions",
    "authors' contributions",
    "authors' contribution",
    "author contribution",
    "competing interests",
    "conflict of interest",
    "conflicts of interest",
    "declaration of competing interest",
    "financial support",
    "funding",
    "review statement",
    "supplement",
    "supplementary material",
    "supplementary materials",
    "supplementary information",
    "supporting information",
    "open research",
    "abbreviations",
    "availability of data and materials",
    "ethics approval and consent to participate",
    "consent for publication",
    "additional information",
    "publisher's note",
    "disclaimer",
    "disclosure statement",
    "credit authorship contribution statement",
    "declaration of interests",
    "funding information",
}
_REFERENCE_HEADS = {
    "references",
    "references cited",
    "bibliography",
    "literature cited",
    "cited literature",
    "reference list",
    "references and notes",
    "works cited",
}
_ABSTRACT_HEADS = {"abstract", "summary", "a b s t r a c t"}
_SKIPPED_HEADS = {
    "contents",
    "table of contents",
    "highlights",
    "graphical abstract",
    "article info",
    "a r t i c l e i n f o",
    "article history",
}
_KNOWN_HEADS = (
    _BODY_HEADS
    | _BACK_HEADS
    | _REFERENCE_HEADS
    | _ABSTRACT_HEADS
    | _SKIPPED_HEADS
    | {"appendix", "appendices"}
)

_NUMBERED_HEAD = re.compile(
    r"^(?P<n>(?:[1-9]\d?|[A-H]\d{1,2}|[A-H](?=\.))(?:\.\d{1,2}){0,3})\.?\s+(?P<t>[A-Z(‘'\"“][^\n]{1,160})$"
)
_ROMAN_HEAD = re.compile(r"^(?P<n>(?:X{0,2})(?:IX|IV|V?I{1,3}|V))\.\s+(?P<t>[A-Z][^\n]{1,160})$")
_APPENDIX_HEAD = re.compile(r"^(?P<n>Appendix\s+[A-Z0-9]+)[.:]?\s*(?P<t>.*)$", re.IGNORECASE)
_CAPTION = re.compile(
    r"^(?P<kind>fig(?:ure)?s?\.?|table|tab\.)\s*(?P<num>[A-Z]?S?\d{1,3}[a-z]?)"
    r"(?P<after>\s*[.:|—–-]|\s*$|\s+(?=[A-Z(]))",
    re.IGNORECASE,
)
_NUMBERED_REF = re.compile(r"^\s*(?:\[(\d{1,3})\]|(\d{1,3})\.\s+(?=\S))")
_DOI = re.compile(r"\b10\.\d{4,9}/[^\s,;\"<>]+")
_YEAR = re.compile(r"\b(?:19|20)\d{2}[a-z]?\b")
_KEYWORDS = re.compile(r"^(?:key\s*words|keywords|index terms)\s*[:.—–-]?\s*", re.IGNORECASE)
_ABSTRACT_RUNIN = re.compile(r"^(?:abstract|summary)\s*[.:—–]\s*", re.IGNORECASE)
_LIGATURES = str.maketrans({"ﬀ": "ff", "ﬁ": "fi", "ﬂ": "fl", "ﬃ": "ffi", "ﬄ": "ffl", "ﬅ": "st", "ﬆ": "st"})
_CID = re.compile(r"\(cid:\d+\)")
_TERMINAL = (".", "?", "!", ":")
_SECTION_NUMBER = re.compile(r"(?:[1-9]\d?|[A-H])(?:\.\d{1,2}){0,3}\.?|(?:IX|IV|V?I{1,3}|V|X)\.")
_HEAD_NUMBER_PREFIX = re.compile(
    r"^((?:[1-9]\d?|[A-H]\d{0,2})(?:\.\d{1,2}){0,3}|(?:IX|IV|V?I{1,3}|V|X))\.?\s+"
)
_URL_END = re.compile(r"(?:https?://|doi:|\b10\.\d{4,9}/)\S*$")
_URL_CONTINUES = re.compile(r"^[\w.\-/()%:;<>#=?&~]+(?:[,.]?\s|[,.]?$)(?![A-Z][a-z]+,)")
_REF_TITLE_PATTERNS = (
    # "Authors (2018). Title. Journal" (APA, AGU, PNAS) and "Authors. 2018. Title. In Venue" (ACL)
    re.compile(r"\((?:19|20)\d{2}[a-z]?\)\.?\s+(?P<t>[^.?!]{12,300}[.?!])(?:\s|$)"),
    re.compile(r"\.\s(?:19|20)\d{2}[a-z]?\.\s+(?P<t>[^.?!]{12,300}[.?!])(?:\s|$)"),
)
_YEAR_CLUES = (
    re.compile(r"Published(?: online)?:?\s*(?:\d{1,2}\s*\w+\.?\s*)?((?:19|20)\d{2})"),
    re.compile(r"©\s*(?:The Author\(s\)\s*|Copyright\s*)?((?:19|20)\d{2})"),
    re.compile(r"Accepted:?\s*(?:\d{1,2}\s*\w+\.?\s*)?((?:19|20)\d{2})"),
    re.compile(r"Received:?\s*(?:\d{1,2}\s*\w+\.?\s*)?((?:19|20)\d{2})"),
)
_NOT_A_NAME = re.compile(
    r"@|universit|department|institut|abstract|received|school|laborator|college|centre|center|"
    r"correspond|doi|journal|http|research article|original article|article|licen[cs]e|copyright|©",
    re.IGNORECASE,
)
_METADATA_LINE = re.compile(
    r"^(?:doi:|https?://(?:dx\.)?doi|received|accepted|published|available online|©|copyright|citation:|"
    r"correspondence|e-?mail|article history|editor|edited by|handling editor|open access)",
    re.IGNORECASE,
)
_MATH_FONT = re.compile(r"^(?:CM(?:MI|SY|EX)|MT(?:MI|SY|EX)|MSBM|Symbol|.*Math)", re.IGNORECASE)
_MATH = re.compile(r"[=<>∑∫√±∗×∈≤≥¼þð]")  # ¼ þ ð: "=", "+", "(" in MathPi fonts that lack a Unicode map
_NAME_PARTICLES = {"van", "de", "der", "den", "von", "da", "del", "della", "la", "le", "di", "du", "dos"}


# ---------------------------------------------------------------------------------------------
# layout primitives
# ---------------------------------------------------------------------------------------------


@dataclass
class _Glyph:
    text: str
    x0: float
    x1: float
    top: float
    bottom: float
    size: float
    bold: bool
    font: str = ""


@dataclass(eq=False)
class _Line:
    """A horizontal run of glyphs within one column: the unit of all later decisions."""

    page: int
    glyphs: list[_Glyph]
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
        kept: list[_Glyph] = []
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


def _glyph_text(glyphs: Sequence[_Glyph]) -> str:
    """Join glyphs left to right, inserting a space where the gap is a word space."""
    out: list[str] = []
    prev: _Glyph | None = None
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
    return _clean_text("".join(out))


def _clean_text(text: str) -> str:
    text = _CID.sub("", text.translate(_LIGATURES)).replace("\u00ad", "")
    return re.sub(r"\s+", " ", text).strip()


def _is_bold(fontname: str) -> bool:
    return bool(_BOLD_FONT.search(fontname))


def _page_lines(page: Any, page_no: int) -> list[_Line]:
    """Glyphs of one page → line fragments (not yet in reading order).

    Glyphs are first chained in content-stream order (how the typesetter wrote them), so a
    superscript or subscript joins the word it belongs to even when it sits half a line higher or
    lower; the chains are then merged with their neighbours on the same line, never across a gap
    wider than about one em (a column gutter), except after a section number or a short bold
    run-in head, which typesetters separate by a wide space.
    """
    width, height = float(page.width), float(page.height)
    runs: list[list[_Glyph]] = []
    prev: _Glyph | None = None
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
        glyph = _Glyph(text, x0, x1, top, bottom, size, _is_bold(font), font)
        if prev is not None and _chains(prev, glyph):
            runs[-1].append(glyph)
        else:
            runs.append([glyph])
        prev = glyph

    items = [_make_line(page_no, sorted(run, key=lambda g: g.x0)) for run in runs]
    items = [item for item in items if item.glyphs and item.text]
    items.sort(key=lambda ln: (ln.top, ln.x0))
    merged: list[_Line] = []
    for item in items:
        target = None
        for other in reversed(merged[-40:]):
            overlap = min(other.bottom, item.bottom) - max(other.top, item.top)
            if overlap < 0.5 * min(other.bottom - other.top, item.bottom - item.top):
                continue
            first, second = (other, item) if other.x0 <= item.x0 else (item, other)
            gap = second.x0 - first.x1
            limit = 1.0 * max(other.size, item.size)
            if _is_label(first) and abs(first.size - second.size) < 0.6:
                limit *= 3.0
            if -limit <= gap <= limit:
                target = other
                break
        if target is None:
            merged.append(item)
        else:
            target.glyphs = sorted(target.glyphs + item.glyphs, key=lambda g: g.x0)
            target.finish()
    return [line for line in merged if line.text]


def _is_label(line: _Line) -> bool:
    """A section number ("2.1") or a short bold run-in head ("Papers.") before wide space."""
    text = line.text
    if _SECTION_NUMBER.fullmatch(text):
        return True
    return len(text) <= 30 and line.bold >= 0.6 and text.endswith((".", ":"))


def _chains(prev: _Glyph, glyph: _Glyph) -> bool:
    """Does ``glyph`` continue the text run of ``prev`` (stream order, same line)?"""
    overlap = min(prev.bottom, glyph.bottom) - max(prev.top, glyph.top)
    if overlap < 0.4 * min(prev.bottom - prev.top, glyph.bottom - glyph.top):
        return False
    gap = glyph.x0 - prev.x1
    size = max(prev.size, glyph.size)
    return -0.3 * size <= gap <= 1.0 * size


def _make_line(page_no: int, glyphs: list[_Glyph]) -> _Line:
    while glyphs and glyphs[-1].text == " ":
        glyphs = glyphs[:-1]
    line = _Line(page=page_no, glyphs=glyphs)
    if glyphs:
        line.finish()
    return line


def _order_page(lines: list[_Line], width: float, height: float) -> list[_Line]:
    """Find a column gutter (if any) and return the page's lines in reading order.

    The gutter is the x position with the most text standing side by side across it (left and
    right lines at the same height) and the least text crossing it; a page where side-by-side
    text is under 15 % of the characters (or 300) is read top to bottom. Lines crossing the gutter (title,
    wide captions) split the page into bands, each read left column first.
    """
    if not lines:
        return []
    chars = {id(ln): len(ln.text) for ln in lines}
    total = sum(chars.values())
    rows = int(height) + 2
    candidates = sorted({2 * round(ln.x1 / 2) + 2 for ln in lines if 0.15 * width < ln.x1 < 0.85 * width})
    best: tuple[float, float] | None = None  # (score, x)
    for x in candidates:
        # side-by-side evidence from lines of some length (not page numbers or axis ticks)
        left = [ln for ln in lines if ln.x1 <= x and chars[id(ln)] >= 10]
        right = [ln for ln in lines if ln.x0 >= x and chars[id(ln)] >= 10]
        sides = []
        paired: list[_Line] = []
        for one, other in ((left, right), (right, left)):
            cover = bytearray(rows)
            for ln in other:
                lo, hi = max(0, int(ln.top)), min(rows, int(ln.bottom) + 1)
                cover[lo:hi] = b"\x01" * (hi - lo)
            beside = [ln for ln in one if any(cover[max(0, int(ln.top)) : int(ln.bottom) + 1])]
            paired.extend(beside)
            sides.append(sum(chars[id(ln)] for ln in beside))
        if not paired:
            continue
        band_top, band_bottom = min(ln.top for ln in paired), max(ln.bottom for ln in paired)
        crossing = sum(
            chars[id(ln)]
            for ln in lines
            if ln.x0 < x < ln.x1 and band_top <= (ln.top + ln.bottom) / 2 <= band_bottom
        )
        score = min(sides) - crossing  # balanced columns, few lines across them
        if sum(sides) >= max(0.15 * total, 300) and (best is None or score > best[0]):
            best = (score, float(x))
    lines = sorted(lines, key=lambda ln: (ln.top, ln.x0))
    if best is None:
        return lines
    gutter = best[1]
    lines = _split_at_gutter(lines, gutter)
    ordered: list[_Line] = []
    left_run: list[_Line] = []
    right_run: list[_Line] = []
    for line in lines:
        if line.x1 <= gutter:
            line.col = 0
            left_run.append(line)
        elif line.x0 >= gutter:
            line.col = 1
            right_run.append(line)
        else:
            ordered.extend(left_run + right_run)
            left_run, right_run = [], []
            line.spanning = True
            ordered.append(line)
    ordered.extend(left_run + right_run)
    return ordered


def _split_at_gutter(lines: list[_Line], gutter: float) -> list[_Line]:
    """Cut lines that bridge a narrow gutter (about one em) through an empty gap."""
    left_edge = max((ln.x1 for ln in lines if ln.x1 <= gutter), default=gutter)
    right_edge = min((ln.x0 for ln in lines if ln.x0 >= gutter), default=gutter)
    out: list[_Line] = []
    for line in lines:
        if not (line.x0 < gutter < line.x1):
            out.append(line)
            continue
        glyphs = [g for g in line.glyphs if g.text != " "]
        cut = next(
            (
                i
                for i in range(1, len(glyphs))
                if glyphs[i - 1].x1 <= left_edge + 1
                and glyphs[i].x0 >= right_edge - 1
                and glyphs[i].x0 - glyphs[i - 1].x1 >= 0.5 * line.size
            ),
            None,
        )
        if cut is None:
            out.append(line)
            continue
        for part in (glyphs[:cut], glyphs[cut:]):
            piece = _make_line(line.page, part)
            if piece.text:
                out.append(piece)
    return sorted(out, key=lambda ln: (ln.top, ln.x0))


# ---------------------------------------------------------------------------------------------
# document-level analysis
# ---------------------------------------------------------------------------------------------


@dataclass
class _Block:
    kind: str  # paragraph | heading | caption | keywords
    lines: list[_Line]
    head_number: str | None = None
    runin: bool = False  # a bold lead-in of a paragraph ("Methods:"), not a line of its own


@dataclass
class _Section:
    heading: str
    number: str | None
    paragraphs: list[str] = field(default_factory=list)
    kind: str = "body"  # body | back


@dataclass
class _Reference:
    raw: str
    doi: str | None
    year: str | None
    title: str | None


@dataclass
class _Document:
    title: str = ""
    authors: list[str] = field(default_factory=list)
    doi: str | None = None
    year: str | None = None
    keywords: list[str] = field(default_factory=list)
    abstract: list[str] = field(default_factory=list)
    sections: list[_Section] = field(default_factory=list)
    captions: list[tuple[str, str, str]] = field(default_factory=list)  # kind, label, text
    references: list[_Reference] = field(default_factory=list)


def _norm_head(text: str) -> str:
    text = _HEAD_NUMBER_PREFIX.sub("", text.strip())
    text = re.sub(r"[\s.:]+$", "", text).lower().replace("’", "'")
    return re.sub(r"\s+", " ", text)


def _weighted_mode(values: Iterable[tuple[float, int]]) -> float:
    counter: Counter[float] = Counter()
    for value, weight in values:
        counter[round(value * 2) / 2] += weight
    return counter.most_common(1)[0][0] if counter else 10.0


def _drop_running_heads(pages: list[list[_Line]], heights: list[float]) -> None:
    """Mark running headers/footers (text repeated in the page margins) and page numbers."""
    counts: Counter[str] = Counter()
    keyed: list[tuple[_Line, str]] = []
    for lines, height in zip(pages, heights, strict=True):
        seen: set[str] = set()
        for line in lines:
            if line.top < 0.1 * height or line.bottom > 0.9 * height:
                key = re.sub(r"\s+", "", re.sub(r"\d+", "#", line.text.lower()))
                keyed.append((line, key))
                if key not in seen:
                    seen.add(key)
                    counts[key] += 1
    repeat = max(2, round(0.3 * len(pages)))
    for line, key in keyed:
        if (
            len(pages) > 2
            and counts[key] >= repeat
            or re.fullmatch(r"(?:page\s*)?\d{1,4}(?:\s*(?:of|/)\s*\d{1,4})?", line.text, re.IGNORECASE)
        ):
            line.kind = "drop"


def _find_title(first_page: list[_Line], body_size: float, meta_title: str | None) -> list[_Line]:
    """Page 1's title lines: the largest-font line group, or the group matching the metadata title."""
    groups: list[list[_Line]] = []
    for line in first_page:
        if line.kind == "drop" or len(line.text) < 2:
            continue
        if groups:
            last = groups[-1][-1]
            same_style = abs(line.size - last.size) < 0.6 and (line.bold >= 0.5) == (last.bold >= 0.5)
            if same_style and -0.5 * line.size < line.top - last.bottom < 1.2 * line.size:
                groups[-1].append(line)
                continue
        groups.append([line])
    groups = [g for g in groups if len(g) <= 6]
    if meta_title and len(meta_title.split()) >= 3:
        wanted = _squash(meta_title)
        scored = [(fuzz.ratio(wanted, _squash(" ".join(ln.text for ln in g))), g) for g in groups]
        good = [s for s in scored if s[0] >= 85]
        if good:
            return max(good, key=lambda s: s[0])[1]
    candidates = [
        g for g in groups if sum(len(ln.text.split()) for ln in g) >= 3 and g[0].size >= body_size + 1.5
    ]
    if not candidates:
        return []
    top_size = max(g[0].size for g in candidates)
    return next(g for g in candidates if g[0].size >= top_size - 0.3)


def _squash(text: str) -> str:
    return re.sub(r"[^0-9a-z]+", "", text.lower())


def _heading_of(line: _Line, body_size: float, body_font: str) -> tuple[str | None, str, bool] | None:
    """(number, heading text, needs context) when a whole line reads as a section head, else None.

    Known names ("Introduction", "References", ...) and numbered heads in a distinct style are
    heads on their own; other bold, capitalized or large lines only when body text follows them
    (``needs context``), which keeps figure labels and table headers out.
    """
    text = line.text.strip()
    letters = sum(c.isalpha() for c in text)
    if not text or len(text) > 160 or letters < 3 or _CAPTION.match(text) or line.size < 5:
        return None
    words = text.split()
    caps = text.isupper() and letters >= 4
    distinct_font = line.font != body_font and not _MATH_FONT.search(line.font)
    styled = line.bold >= 0.6 or line.size >= body_size + 0.8 or caps or distinct_font
    norm = _norm_head(text)
    if norm in _KNOWN_HEADS and len(words) <= 8:
        number = _HEAD_NUMBER_PREFIX.match(text)
        head = _HEAD_NUMBER_PREFIX.sub("", text).rstrip(".: ")
        return (number.group(1) if number else None), head, not (styled or number)
    if line.size < body_size - 1.2 or _MATH.search(text):
        return None
    match = _APPENDIX_HEAD.match(text)
    if match and styled and len(words) <= 15:
        return match.group("n"), match.group("t").rstrip(".: ") or match.group("n"), False
    for pattern in (_NUMBERED_HEAD, _ROMAN_HEAD):
        match = pattern.match(text)
        if match and styled and len(words) <= 20:
            title = match.group("t").strip()
            if sum(c.isalpha() for c in title) < 3 or title.endswith((",", ";")):
                return None
            return match.group("n"), title.rstrip(".: "), False
    if (
        len(words) <= 14
        and letters >= 0.6 * len(text.replace(" ", ""))
        and (text[0].isupper() or text[0].isdigit())
    ):
        if not text.endswith((",", ";", "-")) and (line.bold >= 0.9 or caps or line.size >= body_size + 0.8):
            return None, text.rstrip(".: "), True
        if distinct_font and len(words) <= 10 and letters >= 6 and not text.endswith("."):
            return None, text.rstrip(": "), True  # _classify also wants it short or wrapped
    return None


def _column_edges(lines: list[_Line], body_size: float) -> dict[tuple[int, int], tuple[float, float]]:
    """Left/right text edge of each (page, column), from its body-size lines."""
    groups: dict[tuple[int, int], list[_Line]] = {}
    for line in lines:
        if abs(line.size - body_size) <= 0.6:
            groups.setdefault((line.page, 9 if line.spanning else line.col), []).append(line)
    edges: dict[tuple[int, int], tuple[float, float]] = {}
    for key, members in groups.items():
        lefts = Counter(round(ln.x0) for ln in members)
        rights = Counter(round(ln.x1) for ln in members)
        edges[key] = (
            float(min(x for x, _ in lefts.most_common(2))),
            float(max(x for x, _ in rights.most_common(2))),
        )
    return edges


def _set_references(lines: list[_Line], body_size: float) -> None:
    """Give each line the left/right edge of its neighbours in the same column (±3 lines)."""
    edges = _column_edges(lines, body_size)
    for index, line in enumerate(lines):
        near = [
            other
            for other in lines[max(0, index - 3) : index + 4]
            if other is not line
            and (other.page, other.col, other.spanning) == (line.page, line.col, line.spanning)
            and abs(other.size - line.size) <= 0.6
            and other.kind not in ("heading", "runin", "drop", "title")
        ]
        edge = edges.get((line.page, 9 if line.spanning else line.col), (line.x0, line.x1))
        line.left_ref = min((o.x0 for o in near), default=edge[0])
        line.right_ref = max((o.x1 for o in near), default=edge[1])


def _join_lines(lines: Sequence[str], vocab: set[str], hyphenated: set[str], refs: bool = False) -> str:
    """Join text lines, resolving end-of-line hyphens with the document's own vocabulary.

    A hyphen before a lowercase continuation is dropped when the joined word occurs elsewhere
    in the document, or when the hyphenated form does not ("geochro-" + "nology"); it is kept for
    compounds the document also writes with a hyphen ("well-known"), and always before an
    uppercase letter or a digit ("U-" + "Pb"). En dashes and slashes at a line end are kept.
    """
    out = ""
    for raw in lines:
        line = raw.strip()
        if not line:
            continue
        if not out:
            out = line
            continue
        hyphen = re.search(r"([A-Za-zÀ-ÖØ-öø-ÿ]+)-$", out)
        first = re.match(r"([a-zß-öø-ÿ]+)", line)
        if hyphen and first:
            left, right = hyphen.group(1), first.group(1)
            joined, dashed = (left + right).lower(), f"{left}-{right}".lower()
            if dashed in hyphenated and joined not in vocab:
                out += line  # a compound the document writes with its hyphen
            elif joined in vocab or dashed not in hyphenated:
                out = out[:-1] + line
            else:
                out += line
            continue
        if out.endswith(("-", "–", "—", "/")) and not out.endswith(" -"):
            out += line  # U-Pb, Re–Os, 87Sr/86Sr, gchron-3-247 broken at the line end
            continue
        if refs and _URL_END.search(out) and not out.endswith((",", ";")) and _URL_CONTINUES.match(line):
            out += line  # a URL or DOI wrapped without a hyphen
            continue
        out += " " + line
    return _clean_text(out)


def _vocabulary(lines: Iterable[_Line]) -> tuple[set[str], set[str]]:
    """Words and hyphenated compounds the document writes inside lines (not at line ends)."""
    words: set[str] = set()
    hyphenated: set[str] = set()
    for line in lines:
        tokens = line.text.split()
        if tokens and tokens[-1].endswith("-"):
            tokens = tokens[:-1]
        for token in tokens:
            token = token.strip(".,;:()[]{}\"'“”‘’").lower()
            if not token:
                continue
            if "-" in token.strip("-"):
                hyphenated.add(token)
            else:
                words.add(token)
    return words, hyphenated


def _split_references(lines: list[_Line]) -> list[list[_Line]]:
    """Reference lines → entries, by numbering, hanging indents or vertical spacing."""
    if not lines:
        return []
    numbered = [bool(_NUMBERED_REF.match(ln.text)) for ln in lines]
    if sum(numbered) >= 3 and sum(numbered) >= 0.2 * len(lines):
        starts = numbered
    else:
        # reference lists are set in their own font: measure their own column edges
        left: dict[tuple[int, int, bool], float] = {}
        for ln in lines:
            key = (ln.page, ln.col, ln.spanning)
            left[key] = min(left.get(key, 1e9), ln.x0)
        indents = [ln.x0 - left[(ln.page, ln.col, ln.spanning)] > 0.5 * ln.size for ln in lines]
        share = sum(indents) / len(lines)
        if 0.15 <= share <= 0.9:
            starts = [not indented for indented in indents]
        else:
            starts = [True]
            for prev, cur in zip(lines, lines[1:], strict=False):
                same_col = (cur.page, cur.col) == (prev.page, prev.col)
                short = prev.x1 < prev.right_ref - 2 * prev.size and prev.text.rstrip().endswith(".")
                starts.append((same_col and cur.top - prev.bottom > 0.45 * cur.size) or short)
    entries: list[list[_Line]] = []
    for line, start in zip(lines, starts, strict=True):
        if start or not entries:
            entries.append([line])
        else:
            entries[-1].append(line)
    return entries


def _parse_reference(text: str) -> _Reference:
    """Raw reference text → DOI, year and (for author–year styles) a title."""
    doi = _find_doi(text)
    paren = re.search(r"\(((?:19|20)\d{2})[a-z]?\)", text)
    tail = re.search(r",\s*((?:19|20)\d{2})[a-z]?\.?\s*$", text)
    anywhere = _YEAR.search(text)
    year = paren.group(1) if paren else tail.group(1) if tail else anywhere.group(0)[:4] if anywhere else None
    title = None
    for pattern in _REF_TITLE_PATTERNS:
        found = pattern.search(text)
        if found:
            title = found.group("t").rstrip(".").strip()
            break
    return _Reference(raw=text, doi=doi, year=year, title=title)


def _find_doi(text: str) -> str | None:
    match = _DOI.search(text)
    if not match:
        return None
    doi = match.group(0)
    while doi and doi[-1] in ".)]}>" and not (doi[-1] == ")" and doi.count("(") >= doi.count(")")):
        doi = doi[:-1]
    return doi or None


def _classify(lines: list[_Line], body_size: float, body_font: str) -> None:
    """Mark captions, keyword lines, heads and run-in heads."""
    for index, line in enumerate(lines):
        if line.kind != "body":
            continue
        if line.page == 1 and _METADATA_LINE.match(line.text) and len(line.text.split()) <= 20:
            line.kind = "drop"
            continue
        caption = _CAPTION.match(line.text)
        if caption and (line.bold > 0.05 or caption.group("after").strip() or line.size < body_size - 0.3):
            line.kind = "caption"
            continue
        if _KEYWORDS.match(line.text) or (line.page == 1 and line.text.count(" | ") >= 2):
            line.kind = "keywords"
            continue
        prev = lines[index - 1] if index else None
        if prev is not None and prev.kind == "keywords" and prev.text.rstrip().endswith((",", ";", "|", "·")):
            line.kind = "keywords"  # the list goes on
            continue
        head = _heading_of(line, body_size, body_font)
        plain = head is not None and head[2] and not (line.bold >= 0.9 or line.size >= body_size + 0.8)
        if plain and not line.text.isupper() and not _short_or_wrapped(lines, index):
            head = None  # a plain-weight line in another font (italic): heads do not fill the column
        if head is not None and (not head[2] or _followed_by_text(lines, index, body_size, body_font)):
            line.kind = "heading"
            line.head_number, line.head_text = head[0], head[1]
            continue
        prefix = line.bold_prefix()
        if prefix and len(prefix) >= 4 and len(prefix.split()) <= 12 and line.size >= body_size - 1.2:
            numbered = prefix.endswith((".", ":")) and _NUMBERED_HEAD.match(prefix)
            if _norm_head(prefix) in _KNOWN_HEADS or numbered:
                line.kind = "runin"
                number = _HEAD_NUMBER_PREFIX.match(prefix)
                line.head_number = number.group(1) if number else None
                line.head_text = _HEAD_NUMBER_PREFIX.sub("", prefix).rstrip(".: ")


def _short_or_wrapped(lines: list[_Line], index: int) -> bool:
    """The line ends well before the column edge, or wraps onto one short line in its own style."""
    line = lines[index]
    if line.x1 < line.right_ref - 3 * line.size:
        return True
    nxt = lines[index + 1] if index + 1 < len(lines) else None
    return (
        nxt is not None
        and nxt.font == line.font
        and abs(nxt.size - line.size) < 0.3
        and nxt.x1 < nxt.right_ref - 3 * nxt.size
        and len(line.text.split()) + len(nxt.text.split()) <= 15
        and 0 <= nxt.top - line.bottom < 0.8 * line.size
    )


def _followed_by_text(lines: list[_Line], index: int, body_size: float, body_font: str) -> bool:
    """Is the line at ``index`` standalone, with a plain body paragraph after it (possibly after
    further head lines: "2 Methods" / "2.1 Samples")?"""
    line = lines[index]
    prev = next((ln for ln in reversed(lines[:index]) if ln.kind != "drop"), None)
    if prev is not None and prev.kind == "body" and (prev.page, prev.col) == (line.page, line.col):
        ended = prev.text.rstrip().endswith(_TERMINAL) or prev.x1 < prev.right_ref - 1.5 * prev.size
        if not ended and line.top - prev.bottom < 0.5 * line.size:
            return False  # inside a paragraph
    heads = 0
    for nxt in lines[index + 1 : index + 8]:
        if nxt.kind == "drop":
            continue
        if nxt.kind == "heading" or _heading_of(nxt, body_size, body_font) is not None:
            heads += 1
            if heads > 3:
                return False
            continue
        near = (
            nxt.page != line.page
            or nxt.col != line.col
            or nxt.top - line.bottom < (3 + 3 * heads) * line.size
        )
        return near and abs(nxt.size - body_size) <= 0.8 and nxt.bold < 0.5 and not _CAPTION.match(nxt.text)
    return False


def _build_blocks(lines: list[_Line], body_size: float) -> list[_Block]:
    """Group consecutive lines into paragraphs, heads and captions."""
    gaps = [
        cur.top - prev.bottom
        for prev, cur in zip(lines, lines[1:], strict=False)
        if (cur.page, cur.col) == (prev.page, prev.col)
        and abs(cur.size - body_size) < 0.6
        and 0 <= cur.top - prev.bottom < 2 * body_size
    ]
    usual_gap = statistics.median(gaps) if gaps else 0.3 * body_size
    blocks: list[_Block] = []
    for line in lines:
        last = blocks[-1] if blocks else None
        if line.kind == "heading":
            if (
                last is not None
                and last.kind == "heading"
                and line.head_number is None
                and last.lines[-1].page == line.page
                and 0 <= line.top - last.lines[-1].bottom < 0.8 * line.size
                and abs(line.size - last.lines[-1].size) < 0.6
                and last.lines[-1].x1 >= last.lines[-1].right_ref - 3 * line.size
            ):
                last.lines.append(line)  # a head that filled its line and wrapped onto the next
                continue
            blocks.append(_Block("heading", [line], head_number=line.head_number))
            continue
        if (
            last is not None
            and last.kind == "heading"
            and not last.runin
            and line.kind == "body"
            and line.font == last.lines[-1].font
            and abs(line.size - last.lines[-1].size) < 0.3
            and line.page == last.lines[-1].page
            and 0 <= line.top - last.lines[-1].bottom < 0.8 * line.size
            and last.lines[-1].x1 >= last.lines[-1].right_ref - 3 * line.size
            and line.x1 < line.right_ref - 3 * line.size
            and len(line.text.split()) <= 6
        ):
            last.lines.append(line)  # the short tail of a wrapped head ("... stimulation" / "patterns")
            continue
        if line.kind == "runin":
            blocks.append(_Block("heading", [line], head_number=line.head_number, runin=True))
            rest = _Line(page=line.page, glyphs=line.glyphs, col=line.col, spanning=line.spanning)
            rest.finish()
            rest.text = line.text[len(line.bold_prefix()) :].strip()
            rest.left_ref, rest.right_ref = line.left_ref, line.right_ref
            blocks.append(_Block("paragraph", [rest]))
            continue
        if line.kind == "keywords" and last is not None and last.kind == "keywords":
            last.lines.append(line)
            continue
        if line.kind in ("caption", "keywords"):
            blocks.append(_Block(line.kind, [line]))
            continue
        label_only = (
            last is not None and last.kind == "keywords" and not _KEYWORDS.sub("", last.lines[0].text).strip()
        )
        if (
            label_only
            and last is not None
            and len(last.lines) < 12
            and abs(line.size - last.lines[0].size) < 0.6
        ):
            last.lines.append(line)  # "Keywords:" alone on its line, one term per line below
            continue
        continues = last is not None and last.kind in ("paragraph", "caption", "keywords")
        if continues and last is not None and not _starts_new_block(last.lines[-1], line, usual_gap):
            last.lines.append(line)
            continue
        blocks.append(_Block("paragraph", [line]))
    return blocks


def _starts_new_block(prev: _Line, cur: _Line, usual_gap: float) -> bool:
    if abs(cur.size - prev.size) > 0.6 or abs(cur.bold - prev.bold) > 0.7:
        return True
    if (cur.page, cur.col, cur.spanning) == (prev.page, prev.col, prev.spanning):
        gap = cur.top - prev.bottom
        if gap > usual_gap + 0.6 * cur.size or gap < -0.5 * cur.size:
            return True
    indented = cur.left_ref + 0.5 * cur.size < cur.x0 < cur.left_ref + 4 * cur.size
    prev_short = prev.x1 < prev.right_ref - 1.5 * prev.size
    prev_end = prev.text.rstrip().endswith(_TERMINAL)
    return (indented and (prev_end or prev_short)) or (prev_short and prev_end)


def _analyse(pdf: Any, source: str) -> _Document:
    pages: list[list[_Line]] = []
    heights: list[float] = []
    for number, page in enumerate(pdf.pages, start=1):
        try:
            lines = _page_lines(page, number)
            pages.append(_order_page(lines, float(page.width), float(page.height)))
            heights.append(float(page.height))
        except Exception as exc:  # pdfminer raises many types on broken content streams
            raise PdfError(f"{source}: cannot read page {number}: {exc}") from exc
        finally:
            page.close()  # free the page's parsed objects: long PDFs stay small in memory
    all_lines = [line for page_lines in pages for line in page_lines]
    if sum(len(line.text) for line in all_lines) < 20:
        raise PdfError(f"{source}: no text layer; OCR is not supported (run OCR first, e.g. ocrmypdf)")

    doc = _Document()
    body_size = _weighted_mode((ln.size, len(ln.text)) for ln in all_lines)
    fonts: Counter[str] = Counter()
    for line in all_lines:
        if abs(line.size - body_size) < 0.6:
            fonts[line.font] += len(line.text)
    body_font = fonts.most_common(1)[0][0] if fonts else ""
    _drop_running_heads(pages, heights)
    meta = pdf.metadata or {}
    meta_title = meta.get("Title") if isinstance(meta.get("Title"), str) else None

    first = pages[0]
    title_lines = _find_title(first, body_size, meta_title)
    for line in title_lines:
        line.kind = "title"
    doc.title = re.sub(r"^[^\w‘“\"'(¿¡]+", "", _clean_text(" ".join(ln.text for ln in title_lines)))
    doc.authors = _authors_after_title(first, title_lines, body_size)
    page1 = " ".join(ln.text for ln in first)
    margins = Counter(
        doi for ln in all_lines if ln.kind == "drop" for doi in [_find_doi(ln.text)] if doi is not None
    )
    doc.doi = (
        _find_doi(page1)
        or (margins.most_common(1)[0][0] if margins else None)
        or _find_doi(" ".join(str(v) for v in meta.values()))
    )
    for pattern in _YEAR_CLUES:
        found = pattern.search(page1)
        if found:
            doc.year = found.group(1)
            break

    kept = [ln for ln in all_lines if ln.kind not in ("drop", "title")]
    _set_references(kept, body_size)
    _classify(kept, body_size, body_font)
    kept = [ln for ln in kept if ln.kind != "drop"]
    _set_references(kept, body_size)
    vocab, hyphenated = _vocabulary(kept)
    _assemble(doc, _build_blocks(kept, body_size), body_size, vocab, hyphenated)
    return doc


def _assemble(
    doc: _Document, blocks: list[_Block], body_size: float, vocab: set[str], hyphenated: set[str]
) -> None:
    """Walk the blocks in reading order: front matter, abstract, sections, captions, references."""

    def text_of(block: _Block) -> str:
        return _join_lines([ln.text for ln in block.lines], vocab, hyphenated)

    def end_front() -> None:
        if not doc.abstract:  # no "Abstract" label: the long paragraphs before the body (PNAS)
            doc.abstract = [p for p in front_paragraphs if len(p.split()) >= 40][:3]

    state = "front"  # front | abstract | body | skip | refs
    label = ""  # a structured-abstract lead-in ("Methods:") waiting for its paragraph
    section: _Section | None = None
    front_paragraphs: list[str] = []
    ref_lines: list[_Line] = []
    for block in blocks:
        first = block.lines[0]
        if block.kind == "heading":
            text = _clean_text(" ".join(ln.head_text or ln.text for ln in block.lines))
            norm = _norm_head(text)
            known = bool(block.head_number) or norm in _KNOWN_HEADS
            if state == "refs" and not (
                norm in _BACK_HEADS or norm.startswith("appendi") or (block.head_number and first.bold >= 0.6)
            ):
                ref_lines.extend(block.lines)  # a bold line inside the list, not a new section
                continue
            if norm in _ABSTRACT_HEADS and not doc.abstract and not any(x.paragraphs for x in doc.sections):
                state = "abstract"
                continue
            if norm in _SKIPPED_HEADS:
                state = "skip" if state != "front" else state
                continue
            if norm in _REFERENCE_HEADS:
                end_front()
                state = "refs"
                continue
            if state == "front" and (first.size < body_size - 0.6 or not known):
                continue  # journal banners, side bars, author lines before the paper starts
            if state == "abstract" and block.runin and norm not in _REFERENCE_HEADS:
                label = first.bold_prefix()
                continue  # structured abstracts: "Background: ...", "Methods: ..."
            if state == "abstract" and not known and not doc.abstract:
                continue  # author lines or figure labels between "Abstract" and its text
            end_front()
            kind = "back" if norm in _BACK_HEADS or norm.startswith("appendi") else "body"
            section = _Section(heading=text, number=block.head_number, kind=kind)
            doc.sections.append(section)
            state = "body"
            continue
        if state in ("refs", "skip"):
            if state == "refs":
                ref_lines.extend(block.lines)
            continue
        if block.kind == "keywords":
            _read_keywords(doc, block, vocab, hyphenated)
            long_front = any(len(p.split()) >= 40 for p in front_paragraphs)
            if state in ("front", "abstract") and (doc.abstract or long_front):
                end_front()
                state = "body"  # keywords close the front matter (PNAS has no first head)
            continue
        if block.kind == "caption":
            text = text_of(block)
            match = _CAPTION.match(text)
            if match:
                kind = "table" if match.group("kind").lower().startswith("tab") else "figure"
                label = f"{'Table' if kind == 'table' else 'Figure'} {match.group('num')}"
                doc.captions.append((kind, label, text[match.end() :].strip(" .:|—–-") or text))
            continue
        text = text_of(block)
        size = statistics.median(ln.size for ln in block.lines)
        if state == "front":
            lead = _ABSTRACT_RUNIN.match(text)
            if lead:
                state, text = "abstract", text[lead.end() :]
            else:
                if abs(size - body_size) <= 1.5 and first.page == 1:
                    front_paragraphs.append(text)
                continue
        letters = sum(c.isalpha() for c in text)
        if letters < 20 or letters < 0.4 * len(text):
            continue  # axis labels, table cells, display equations
        if state == "abstract":
            if not doc.abstract or abs(size - body_size) <= 1.5:
                doc.abstract.append(f"{label} {text}" if label else text)
            label = ""
            continue
        if abs(size - body_size) > (1.5 if section is not None and section.kind == "back" else 0.6):
            continue  # tables, footnotes, affiliations, licence lines (back matter is often smaller)
        if section is None:
            section = _Section(heading="", number=None)
            doc.sections.append(section)
        if section.paragraphs and _continues(section.paragraphs[-1], text):
            section.paragraphs[-1] = _join_lines([section.paragraphs[-1], text], vocab, hyphenated)
        else:
            section.paragraphs.append(text)

    for entry in _split_references(ref_lines):
        text = _join_lines([ln.text for ln in entry], vocab, hyphenated, refs=True)
        if sum(c.isalpha() for c in text) >= 15:
            doc.references.append(_parse_reference(text))
    doc.sections = [s for s in doc.sections if s.paragraphs or s.heading]


def _read_keywords(doc: _Document, block: _Block, vocab: set[str], hyphenated: set[str]) -> None:
    """Keywords after a "Keywords:" label, or a "a | b | c" line; one per line when unseparated."""
    texts = [ln.text for ln in block.lines]
    texts[0] = _KEYWORDS.sub("", texts[0])
    joined = _join_lines(texts, vocab, hyphenated)
    separated = re.search(r"[;,·•|]", joined)
    terms = re.split(r"[;,·•|]", joined) if separated else [t for t in texts if t.strip()]
    doc.keywords = [t.strip(" .") for t in terms if t.strip(" .")][:30]


def _continues(previous: str, text: str) -> bool:
    """A paragraph cut by a column or page break (or a figure) continues mid-sentence."""
    return not previous.rstrip().endswith(_TERMINAL) and text[:1].islower()


def _authors_after_title(first_page: list[_Line], title_lines: list[_Line], body_size: float) -> list[str]:
    """Author names: the name-like lines after the title (affiliation markers removed)."""
    if not title_lines:
        return []
    try:
        start = first_page.index(title_lines[-1]) + 1
    except ValueError:
        return []
    names: list[str] = []
    for line in first_page[start : start + 30]:
        if line.kind in ("drop", "title") or line.size < body_size - 0.5:
            continue
        text = line.text_without_superscripts()
        if _NOT_A_NAME.search(text):
            if names:
                break
            continue
        parts = [_clean_name(p) for p in re.split(r",|;|\band\b|&", text)]
        parts = [p for p in parts if p]
        good = [
            p
            for p in parts
            if 2 <= len(p.split()) <= 5
            and all(w[0].isupper() or w in _NAME_PARTICLES for w in p.split())
            and not any(c.isdigit() for c in p)
        ]
        if parts and len(good) >= 0.6 * len(parts):
            names.extend(good)
        elif names:
            break
    return names[:60]


def _clean_name(text: str) -> str:
    """Drop markers (digits, asterisks, daggers, ORCID glyphs) around an author name."""
    text = "".join(c for c in text if c.isalpha() or c in " .-–'’")
    return re.sub(r"\s+", " ", text).strip(" .-–")


# ---------------------------------------------------------------------------------------------
# TEI output
# ---------------------------------------------------------------------------------------------


def _el(parent: etree._Element, tag: str, text: str | None = None, **attrs: str) -> etree._Element:
    element = etree.SubElement(parent, f"{{{TEI_NS}}}{tag}")
    for key, value in attrs.items():
        element.set(f"{{{XML_NS}}}id" if key == "xml_id" else key, value)
    if text:
        element.text = text
    return element


def _pers_name(parent: etree._Element, name: str) -> None:
    pers = _el(parent, "persName")
    parts = name.split()
    for forename in parts[:-1]:
        _el(pers, "forename", forename, type="first" if forename == parts[0] else "middle")
    _el(pers, "surname", parts[-1])


def _to_tei(doc: _Document) -> str:
    root = etree.Element(f"{{{TEI_NS}}}TEI", nsmap={None: TEI_NS})
    header = _el(root, "teiHeader")
    file_desc = _el(header, "fileDesc")
    title_stmt = _el(file_desc, "titleStmt")
    _el(title_stmt, "title", doc.title, level="a", type="main")
    publication = _el(file_desc, "publicationStmt")
    _el(publication, "publisher")
    if doc.year:
        _el(publication, "date", doc.year, type="published", when=doc.year)
    source = _el(file_desc, "sourceDesc")
    bibl = _el(source, "biblStruct")
    analytic = _el(bibl, "analytic")
    for name in doc.authors:
        _pers_name(_el(analytic, "author"), name)
    _el(analytic, "title", doc.title, level="a", type="main")
    monogr = _el(bibl, "monogr")
    imprint = _el(monogr, "imprint")
    if doc.year:
        _el(imprint, "date", doc.year, type="published", when=doc.year)
    if doc.doi:
        _el(bibl, "idno", doc.doi, type="DOI")

    encoding = _el(header, "encodingDesc")
    app_info = _el(encoding, "appInfo")
    app = _el(app_info, "application", ident=EMBEDDED_PRODUCER, version=EMBEDDED_VERSION)
    _el(app, "desc", "GeoRAG embedded PDF parser (layout heuristics, no GROBID)")
    lib = _el(app_info, "application", ident="pdfplumber", version=pdfplumber.__version__)
    _el(lib, "desc", "glyphs, fonts and positions")

    profile = _el(header, "profileDesc")
    if doc.keywords:
        keywords = _el(_el(profile, "textClass"), "keywords")
        for term in doc.keywords:
            _el(keywords, "term", term)
    abstract = _el(profile, "abstract")
    if doc.abstract:
        div = _el(abstract, "div")
        for paragraph in doc.abstract:
            _el(div, "p", paragraph)

    text = _el(root, "text")
    text.set(f"{{{XML_NS}}}lang", "en")
    body = _el(text, "body")
    back = _el(text, "back")
    for section in doc.sections:
        if section.kind == "back":
            kind = "acknowledgement" if _norm_head(section.heading).startswith("acknowledg") else "annex"
            div = _el(_el(back, "div", type=kind), "div")
        else:
            div = _el(body, "div")
        if section.heading:
            head = _el(div, "head", section.heading)
            if section.number:
                head.set("n", section.number)
        for paragraph in section.paragraphs:
            _el(div, "p", paragraph)
    for index, (kind, label, caption) in enumerate(doc.captions):
        attrs = {"xml_id": f"{'tab' if kind == 'table' else 'fig'}_{index}"}
        if kind == "table":
            attrs["type"] = "table"
        figure = _el(body, "figure", **attrs)
        _el(figure, "head", label)
        _el(figure, "label", label.split()[-1])
        _el(figure, "figDesc", caption)
    refs_div = _el(back, "div", type="references")
    list_bibl = _el(refs_div, "listBibl")
    for index, ref in enumerate(doc.references):
        entry = _el(list_bibl, "biblStruct", xml_id=f"b{index}")
        analytic = _el(entry, "analytic")
        if ref.title:
            _el(analytic, "title", ref.title, level="a", type="main")
        if ref.doi:
            _el(analytic, "idno", ref.doi, type="DOI")
        monogr = _el(entry, "monogr")
        imprint = _el(monogr, "imprint")
        if ref.year:
            _el(imprint, "date", ref.year, type="published", when=ref.year)
        _el(entry, "note", ref.raw, type="raw_reference")
    return etree.tostring(root, encoding="unicode", pretty_print=True)


def pdf_to_tei(path: Path) -> str:
    """Convert a text PDF into GROBID-shaped TEI XML (string) with the embedded layout parser.

    Raises ``PdfError`` (naming the file) when the PDF cannot be opened or has no text layer.
    """
    path = Path(path)
    try:
        pdf = pdfplumber.open(path)
    except Exception as exc:  # pdfminer's errors have no common base class
        raise PdfError(f"{path}: cannot be opened as a PDF: {exc}") from exc
    with pdf:
        try:
            pages = len(pdf.pages)
        except Exception as exc:  # encrypted with a password, broken page tree
            raise PdfError(f"{path}: cannot be opened as a PDF: {type(exc).__name__}: {exc}") from exc
        if not pages:
            raise PdfError(f"{path}: the PDF has no pages")
        doc = _analyse(pdf, str(path))
    return _to_tei(doc)
