"""Step 5a: line classification: caption, keywords, head, run-in head, or body.

Front-matter metadata lines on page 1 (DOI, received/accepted/published dates, copyright) are marked
``drop`` here. Each line also gets the left/right text edges of its neighbours in the same column
(``set_references``): classification (does a head fill its line?) and paragraph grouping
(indents, short last lines) both judge a line against its own column, not the page.
"""

import re
from collections import Counter

from geo_assets.ingest.pdf.headings import (
    CAPTION,
    HEAD_NUMBER_PREFIX,
    KNOWN_HEADS,
    LIST_ENTRY,
    NUMBERED_HEAD,
    heading_of,
    norm_head,
)
from geo_assets.ingest.pdf.layout import Line

KEYWORDS = re.compile(r"^(?:key\s*words|keywords|index terms)\s*[:.—–-]?\s*", re.IGNORECASE)
TERMINAL = (".", "?", "!", ":")
_METADATA_LINE = re.compile(
    r"^(?:doi:|https?://(?:dx\.)?doi|received|accepted|published|available online|©|copyright|citation:|"
    r"correspondence|e-?mail|article history|editor|edited by|handling editor|open access)",
    re.IGNORECASE,
)


def _column_edges(lines: list[Line], body_size: float) -> dict[tuple[int, int], tuple[float, float]]:
    """Left/right text edge of each (page, column), from its body-size lines."""
    groups: dict[tuple[int, int], list[Line]] = {}
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


def set_references(lines: list[Line], body_size: float) -> None:
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


def classify(lines: list[Line], body_size: float, body_font: str) -> None:
    """Mark captions, keyword lines, heads and run-in heads."""
    for index, line in enumerate(lines):
        if line.kind != "body":
            continue
        if line.page == 1 and _METADATA_LINE.match(line.text) and len(line.text.split()) <= 20:
            line.kind = "drop"
            continue
        caption = CAPTION.match(line.text)
        if caption and LIST_ENTRY.search(line.text):
            caption = None  # "Table 3 Major elements ········ 12": a list of tables' entry, not its caption
        if caption and (line.bold > 0.05 or caption.group("after").strip() or line.size < body_size - 0.3):
            line.kind = "caption"
            continue
        if KEYWORDS.match(line.text) or (line.page == 1 and line.text.count(" | ") >= 2):
            line.kind = "keywords"
            continue
        prev = lines[index - 1] if index else None
        if prev is not None and prev.kind == "keywords" and prev.text.rstrip().endswith((",", ";", "|", "·")):
            line.kind = "keywords"  # the list goes on
            continue
        head = heading_of(line, body_size, body_font)
        plain = head is not None and head[2] and not (line.bold >= 0.9 or line.size >= body_size + 0.8)
        if plain and not line.text.isupper() and not _short_or_wrapped(lines, index):
            head = None  # a plain-weight line in another font (italic): heads do not fill the column
        if head is not None and (not head[2] or _followed_by_text(lines, index, body_size, body_font)):
            line.kind = "heading"
            line.head_number, line.head_text = head[0], head[1]
            continue
        prefix = line.bold_prefix()
        if prefix and len(prefix) >= 4 and len(prefix.split()) <= 12 and line.size >= body_size - 1.2:
            numbered = prefix.endswith((".", ":")) and NUMBERED_HEAD.match(prefix)
            if norm_head(prefix) in KNOWN_HEADS or numbered:
                line.kind = "runin"
                number = HEAD_NUMBER_PREFIX.match(prefix)
                line.head_number = number.group(1) if number else None
                line.head_text = HEAD_NUMBER_PREFIX.sub("", prefix).rstrip(".: ")


def _short_or_wrapped(lines: list[Line], index: int) -> bool:
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


def _followed_by_text(lines: list[Line], index: int, body_size: float, body_font: str) -> bool:
    """Is the line at ``index`` standalone, with a plain body paragraph after it (possibly after
    further head lines: "2 Methods" / "2.1 Samples")?"""
    line = lines[index]
    prev = next((ln for ln in reversed(lines[:index]) if ln.kind != "drop"), None)
    if prev is not None and prev.kind == "body" and (prev.page, prev.col) == (line.page, line.col):
        ended = prev.text.rstrip().endswith(TERMINAL) or prev.x1 < prev.right_ref - 1.5 * prev.size
        if not ended and line.top - prev.bottom < 0.5 * line.size:
            return False  # inside a paragraph
    heads = 0
    for nxt in lines[index + 1 : index + 8]:
        if nxt.kind == "drop":
            continue
        if nxt.kind == "heading" or heading_of(nxt, body_size, body_font) is not None:
            heads += 1
            if heads > 3:
                return False
            continue
        near = (
            nxt.page != line.page
            or nxt.col != line.col
            or nxt.top - line.bottom < (3 + 3 * heads) * line.size
        )
        return near and abs(nxt.size - body_size) <= 0.8 and nxt.bold < 0.5 and not CAPTION.match(nxt.text)
    return False
