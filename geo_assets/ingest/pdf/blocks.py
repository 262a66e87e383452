"""Step 5b: classified lines → blocks (paragraphs, heads, captions, keyword lists).

Paragraph breaks come from layout alone: a vertical gap wider than the document's usual line gap,
a first-line indent, a short last line, or a change of size or weight. Heads that wrap onto a
second line are rejoined here, and a run-in head (a bold "Methods." at the start of a paragraph)
becomes a head block followed by the paragraph it starts.
"""

import statistics
from dataclasses import dataclass

from geo_assets.ingest.pdf.classify import KEYWORDS, TERMINAL
from geo_assets.ingest.pdf.headings import caption_title
from geo_assets.ingest.pdf.layout import Line


@dataclass
class Block:
    kind: str  # paragraph | heading | caption | keywords
    lines: list[Line]
    head_number: str | None = None
    runin: bool = False  # a bold lead-in of a paragraph ("Methods:"), not a line of its own


def build_blocks(lines: list[Line], body_size: float) -> list[Block]:
    """Group consecutive lines into paragraphs, heads and captions."""
    gaps = [
        cur.top - prev.bottom
        for prev, cur in zip(lines, lines[1:], strict=False)
        if (cur.page, cur.col) == (prev.page, prev.col)
        and abs(cur.size - body_size) < 0.6
        and 0 <= cur.top - prev.bottom < 2 * body_size
    ]
    usual_gap = statistics.median(gaps) if gaps else 0.3 * body_size
    blocks: list[Block] = []
    for line in lines:
        last = blocks[-1] if blocks else None
        if line.kind == "heading":
            if (
                last is not None
                and last.kind == "heading"
                and line.head_number is None
                and last.lines[-1].page == line.page
                and abs(line.size - last.lines[-1].size) < 0.6
                and _head_wraps_onto(last.lines[-1], line)
            ):
                last.lines.append(line)  # a head that filled its line and wrapped onto the next
                continue
            blocks.append(Block("heading", [line], head_number=line.head_number))
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
            blocks.append(Block("heading", [line], head_number=line.head_number, runin=True))
            rest = Line(page=line.page, glyphs=line.glyphs, col=line.col, spanning=line.spanning)
            rest.finish()
            rest.text = line.text[len(line.bold_prefix()) :].strip()
            rest.left_ref, rest.right_ref = line.left_ref, line.right_ref
            blocks.append(Block("paragraph", [rest]))
            continue
        if line.kind == "keywords" and last is not None and last.kind == "keywords":
            last.lines.append(line)
            continue
        if line.kind in ("caption", "keywords"):
            blocks.append(Block(line.kind, [line]))
            continue
        label_only = (
            last is not None and last.kind == "keywords" and not KEYWORDS.sub("", last.lines[0].text).strip()
        )
        if (
            label_only
            and last is not None
            and len(last.lines) < 12
            and abs(line.size - last.lines[0].size) < 0.6
        ):
            last.lines.append(line)  # "Keywords:" alone on its line, one term per line below
            continue
        if last is not None and last.kind == "caption" and _title_below_label(last.lines, line):
            last.lines.append(line)  # "Table 1" in bold on its own line, its title in italics below
            continue
        continues = last is not None and last.kind in ("paragraph", "caption", "keywords")
        if (
            continues
            and last is not None
            and not _starts_new_block(last.lines[-1], line, usual_gap)
            and not (last.kind == "caption" and _below_caption(last.lines[-1], line))
        ):
            last.lines.append(line)
            continue
        blocks.append(Block("paragraph", [line]))
    return blocks


def _starts_new_block(prev: Line, cur: Line, usual_gap: float) -> bool:
    if abs(cur.size - prev.size) > 0.6 or abs(cur.bold - prev.bold) > 0.7:
        return True
    if (cur.page, cur.col, cur.spanning) == (prev.page, prev.col, prev.spanning):
        gap = cur.top - prev.bottom
        if gap > usual_gap + 0.6 * cur.size or gap < -0.5 * cur.size:
            return True
    indented = cur.left_ref + 0.5 * cur.size < cur.x0 < cur.left_ref + 4 * cur.size
    prev_short = prev.x1 < prev.right_ref - 1.5 * prev.size
    prev_end = prev.text.rstrip().endswith(TERMINAL)
    return (indented and (prev_end or prev_short)) or (prev_short and prev_end)


def _title_below_label(caption: list[Line], line: Line) -> bool:
    """Whether ``line`` is the title of a caption that is so far only its label: AGU and Wiley set
    "Table 1" in bold on a line of its own and the title in another style right below it, which
    the change of weight would otherwise cut off (the caption read "Table 1", its title lost)."""
    label = caption[-1]
    return (
        len(caption) == 1
        and caption_title(label.text.strip()) == ""
        and line.page == label.page
        and 0 <= line.top - label.bottom < 1.2 * line.size
        and abs(line.size - label.size) < 0.6
        and abs(line.x0 - label.x0) < 2 * line.size
    )


def _below_caption(prev: Line, cur: Line) -> bool:
    """A line more than 0.8 of its type size below a caption on its page (a table's first header
    cell) is no more of it, whatever column the reading order gave it."""
    return cur.page == prev.page and cur.top - prev.bottom > 0.8 * cur.size


def _head_wraps_onto(head: Line, line: Line) -> bool:
    """Whether the head line ``line`` goes on with ``head``, the line above it: ``head`` filled its
    line to within three ems, or it ends in no full stop and the room left at its right is narrower
    than ``line``'s first word ("4.3. Bayesian Credibility Bands for Smooth" / "Histograms"; a bold head wraps
    well before the text's edge, so "within three ems of it" missed these), and ``line`` is no
    further below than a head's own line spacing (LaTeX sets a two-line section head a line and a
    tenth apart: "2 PARENTLESS HELIUM AND THE IMPORTANCE OF BE-" / "ING INCLUSION-FREE"), in the
    same font (an address line over "ABSTRACT" is no head wrapped)."""
    gap = line.top - head.bottom
    if 0 <= gap < 0.8 * line.size and head.x1 >= head.right_ref - 3 * line.size:
        return True  # it filled its line to within three ems
    if head.text.rstrip().endswith(TERMINAL) or not 0 <= gap < 1.2 * line.size or line.font != head.font:
        return False
    word = line.text.split()[0] if line.text.split() else ""
    width = (line.x1 - line.x0) * len(word) / max(1, len(line.text))
    # the column reaches at least as far as either line (a bulleted list's items are no wrap: its
    # second item would have fitted after the first)
    return max(head.right_ref, line.x1) - head.x1 < width + 0.5 * line.size
