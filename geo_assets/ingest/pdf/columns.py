"""Step 2: reading order. Finds a page's column gutter and orders its lines column by column.

This step needs all of a page's lines at once: the gutter is found from text standing side by
side, and lines that bridge a narrow gutter are cut through their empty gap here. Afterwards each
line knows its column (``col``) or that it spans the page (``spanning``), which every later
geometric comparison (paragraph edges, gaps, indents) relies on.
"""

from geo_assets.ingest.pdf.layout import Line
from geo_assets.ingest.pdf.lines import make_line

_PAGE_SHARE = 0.15  # side-by-side text that makes a page two columns
_SIDE_SHARE = 0.5  # … and a side of it two more (most of its text)
_LINE_CHARS = 15  # characters a line of a text column averages at least (cells and labels: fewer)


def order_page(lines: list[Line], width: float, height: float) -> list[Line]:
    """Find a column gutter (if any) and return the page's lines in reading order.

    The gutter is the x position with the most text standing side by side across it (left and
    right lines at the same height) and the least text crossing it; a page where side-by-side
    text is under 15 % of the characters (or 300) is read top to bottom. Lines crossing the gutter (title,
    wide captions) split the page into bands, each read left column first. Each side is searched for
    a gutter of its own (three-column pages, GSA Bulletin's), where side-by-side text is most of the
    side's characters, so that a table or a figure's labels inside one column make no third column.
    """
    if not lines:
        return []
    return _order(lines, 0.0, width, height, share=_PAGE_SHARE, cols=(0, 1), split_sides=True)


def _order(
    lines: list[Line],
    low: float,
    high: float,
    height: float,
    *,
    share: float,
    cols: tuple[int, int],
    split_sides: bool,
) -> list[Line]:
    """Lines between ``low`` and ``high`` in reading order, split at their gutter if they have one;
    ``cols``: the numbers the two sides' lines get; ``split_sides``: whether each side is searched
    for a gutter of its own (the page's sides are, a side's sides are not)."""
    chars = {id(ln): len(ln.text) for ln in lines}
    total = sum(chars.values())
    rows = int(height) + 2
    span = high - low
    candidates = sorted(
        {2 * round(ln.x1 / 2) + 2 for ln in lines if low + 0.15 * span < ln.x1 < low + 0.85 * span}
    )
    best: tuple[float, float] | None = None  # (score, x)
    for x in candidates:
        # side-by-side evidence from lines of some length (not page numbers or axis ticks)
        left = [ln for ln in lines if ln.x1 <= x and chars[id(ln)] >= 10]
        right = [ln for ln in lines if ln.x0 >= x and chars[id(ln)] >= 10]
        sides = []
        paired: list[Line] = []
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
        if sum(sides) >= max(share * total, 300) and (best is None or score > best[0]):
            best = (score, float(x))
    if best is not None and share > _PAGE_SHARE:
        # a side's own gutter parts columns of text, not a table's cells or a figure's labels
        gutter = best[1]
        for side in ([ln for ln in lines if ln.x1 <= gutter], [ln for ln in lines if ln.x0 >= gutter]):
            if not side or sum(chars[id(ln)] for ln in side) < _LINE_CHARS * len(side):
                best = None
                break
    lines = sorted(lines, key=lambda ln: (ln.top, ln.x0))
    if best is None:
        return lines
    gutter = best[1]
    lines = _split_at_gutter(lines, gutter)
    ordered: list[Line] = []
    left_run: list[Line] = []
    right_run: list[Line] = []
    right_edge = max(ln.x1 for ln in lines)

    def flush() -> None:
        for run, col, edges in (
            (left_run, cols[0], (low, gutter)),
            (right_run, cols[1], (gutter, right_edge)),
        ):
            if not split_sides:
                ordered.extend(run)  # already in reading order: lines sorted by top, then left edge
                continue
            # a side split again gives its right part a column number of its own (2 or 3)
            ordered.extend(
                _order(run, *edges, height, share=_SIDE_SHARE, cols=(col, col + 2), split_sides=False)
            )

    for line in lines:
        if line.x1 <= gutter:
            line.col = cols[0]
            left_run.append(line)
        elif line.x0 >= gutter:
            line.col = cols[1]
            right_run.append(line)
        else:
            flush()
            left_run, right_run = [], []
            line.spanning = True
            ordered.append(line)
    flush()
    return ordered


def _split_at_gutter(lines: list[Line], gutter: float) -> list[Line]:
    """Cut lines that bridge a narrow gutter (about one em) through an empty gap."""
    left_edge = max((ln.x1 for ln in lines if ln.x1 <= gutter), default=gutter)
    right_edge = min((ln.x0 for ln in lines if ln.x0 >= gutter), default=gutter)
    out: list[Line] = []
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
            piece = make_line(line.page, part)
            if piece.text:
                out.append(piece)
    return sorted(out, key=lambda ln: (ln.top, ln.x0))
