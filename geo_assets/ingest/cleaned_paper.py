"""Paper → CleanedPaper: the readable text of a whole paper with exact section offsets.

Layout of ``CleanedPaper.text`` (blocks separated by one blank line):

    title
    Abstract section       kind "abstract"   abstract paragraphs (+ "Keywords: ..." if any)
    body sections          kind "body"       heading line, then its paragraphs
    Figure and table captions  kind "captions"  one paragraph per caption ("Figure 1. ...")
    Table N                kind "tables"     per table with cells: its caption line, then one line
                                             per row, cells joined by " | " (searchable like text)
    References             kind "references" one line per reference (always last)

The title line is text but not a section: every chunk carries the title as metadata, so it is not
chunked on its own. Every ``CleanSection`` satisfies ``text[s.char_start:s.char_end] == s.text``.

Repeated metadata is dropped before layout: publisher boilerplate paragraphs (licence, copyright,
DOI-only, received/accepted lines, page numbers), copies of the title inside body sections, short
paragraphs (running headers/footers) that occur more than once in the paper, and verbatim copies
of a longer paragraph after its first occurrence.
"""

from collections import Counter
from collections.abc import Sequence
from typing import Literal

from geo_rag_runtime.models import Caption, CleanedPaper, CleanSection, Paper, Reference
from geo_rag_runtime.text.keyword_terms import normalize_tokens
from geo_rag_runtime.text.readable import clean_text, is_boilerplate, line_key

__all__ = ["clean_paper", "caption_line", "reference_line", "table_heading", "table_lines", "CELL_SEPARATOR"]

Kind = Literal["abstract", "body", "captions", "tables", "references"]
SEPARATOR = "\n\n"
ABSTRACT_HEADING = "Abstract"
CAPTIONS_HEADING = "Figure and table captions"
REFERENCES_HEADING = "References"
# paragraphs up to this length that occur twice or more are running headers/footers, not content
_SHORT_REPEAT_CHARS = 200


def _flatten(text: str) -> str:
    """One cleaned line: for headings, captions and references, where paragraph breaks are noise."""
    return " ".join(clean_text(text).split())


def caption_line(caption: Caption) -> str:
    """ "Figure 3. <text>": the label is prefixed unless the caption text already starts with it."""
    text = _flatten(caption.text)
    label = _flatten(caption.label or "")
    word = "Figure" if caption.kind == "figure" else "Table"
    if label and not any(c.isalpha() for c in label):
        label = f"{word} {label.rstrip('.:')}"
    if not label:
        return text
    lowered = text.lower()
    if lowered.startswith(label.lower()) or lowered.startswith(("fig", "table", "tab.")):
        return text
    return f"{label}. {text}" if text else label


CELL_SEPARATOR = " | "


def table_heading(caption: Caption) -> str:
    """The heading of a table's ``tables`` block ("Table 3"), also its label in measurement rows."""
    return _flatten(caption.label or "Table")


def table_lines(caption: Caption) -> list[str]:
    """A table as text: caption line, one line per row (cells joined by ``CELL_SEPARATOR``), note."""
    rows = [CELL_SEPARATOR.join(_flatten(cell) for cell in row) for row in caption.rows]
    note = _flatten(caption.note)
    return [caption_line(caption), *rows, *([note] if note else [])]


def reference_line(ref: Reference) -> str:
    """One readable line per reference: the raw string when GROBID kept it, else the fields."""
    if ref.raw and ref.raw.strip():
        return _flatten(ref.raw)
    parts = []
    if ref.authors:
        parts.append(", ".join(ref.authors))
    if ref.year:
        parts.append(f"({ref.year})")
    for field in (ref.title, ref.venue):
        if field:
            parts.append(field.rstrip(".") + ".")
    if ref.doi:
        parts.append(f"doi:{ref.doi}")
    return _flatten(" ".join(parts))


# A paragraph and the PDF page it starts on (None: the TEI had no coordinates for it).
Para = tuple[str, int | None]


def _paragraphs(raw: list[str], pages: Sequence[int | None] = ()) -> list[Para]:
    """Clean each paragraph; a raw paragraph may hold several (blank-line separated), which all
    keep the page the raw paragraph starts on."""
    out: list[Para] = []
    for i, para in enumerate(raw):
        page = pages[i] if i < len(pages) else None
        out.extend((p, page) for p in clean_text(para).split(SEPARATOR) if p.strip())
    return out


def _drop_repeated(sections: list[tuple[str, list[Para]]], title: str) -> list[tuple[str, list[Para]]]:
    """Remove boilerplate, title copies, repeated short paragraphs and later verbatim copies."""
    counts: Counter[str] = Counter(line_key(p) for _, paras in sections for p, _ in paras)
    title_key = line_key(title) if title else None
    seen: set[str] = set()
    kept_sections = []
    for heading, paras in sections:
        kept = []
        for para, page in paras:
            key = line_key(para)
            if is_boilerplate(para) or key == title_key:
                continue
            if len(para) <= _SHORT_REPEAT_CHARS and counts[key] > 1:
                continue
            if key in seen:
                continue
            seen.add(key)
            kept.append((para, page))
        kept_sections.append((heading, kept))
    return kept_sections


def _join(parts: Sequence[Para], separator: str = SEPARATOR) -> tuple[str, list[tuple[int, int]]]:
    """The parts joined, with (offset in the joined text, page) for every part whose page is known."""
    text = separator.join(p for p, _ in parts)
    marks, offset = [], 0
    for para, page in parts:
        if page is not None:
            marks.append((offset, page))
        offset += len(para) + len(separator)
    return text, marks


def _heading(number: str | None, heading: str) -> str:
    heading = _flatten(heading)
    number = _flatten(number or "")
    if number and not heading.startswith(number):
        return f"{number} {heading}".strip()
    return heading


def clean_paper(paper: Paper) -> CleanedPaper:
    """Build the cleaned, readable text of ``paper`` with its section offsets and keyword tokens."""
    title = _flatten(paper.title)
    body = [
        (_heading(s.number, s.heading), _paragraphs(s.paragraphs, s.paragraph_pages)) for s in paper.sections
    ]
    body = _drop_repeated(body, title)

    # (heading, kind, text, page marks within the text)
    blocks: list[tuple[str, Kind, str, list[tuple[int, int]]]] = []
    abstract = _paragraphs([paper.abstract], [paper.abstract_page]) if paper.abstract else []
    abstract = [(p, page) for p, page in abstract if not is_boilerplate(p)]
    if paper.keywords:
        keywords = "Keywords: " + "; ".join(_flatten(k) for k in paper.keywords if k.strip())
        abstract.append((keywords, paper.abstract_page))
    if abstract:
        blocks.append((ABSTRACT_HEADING, "abstract", *_join(abstract)))
    for heading, paras in body:
        first_page = next((page for _, page in paras if page is not None), None)
        lines = ([(heading, first_page)] if heading else []) + paras
        if paras:  # a heading without paragraphs still introduces the subsections that follow
            blocks.append((heading, "body", *_join(lines)))
        elif heading and not is_boilerplate(heading):
            blocks.append((heading, "body", heading, []))
    captions = [(line, c.page) for c in paper.captions if (line := caption_line(c))]
    if captions:
        blocks.append((CAPTIONS_HEADING, "captions", *_join(captions)))
    for caption in paper.captions:
        if caption.kind == "table" and caption.rows:
            text, marks = _join([("\n".join(table_lines(caption)), caption.page)])
            blocks.append((table_heading(caption), "tables", text, marks))
    references = [line for line in (reference_line(r) for r in paper.references) if line]
    if references:
        blocks.append((REFERENCES_HEADING, "references", "\n".join(references), []))

    pieces: list[str] = []
    sections: list[CleanSection] = []
    page_marks: list[tuple[int, int]] = []
    offset = 0
    if title:
        pieces.append(title)
        offset = len(title)
    for heading, kind, text, marks in blocks:
        if pieces:
            pieces.append(SEPARATOR)
            offset += len(SEPARATOR)
        sections.append(
            CleanSection(
                heading=heading, kind=kind, text=text, char_start=offset, char_end=offset + len(text)
            )
        )
        for at, page in marks:
            if not page_marks or page_marks[-1][1] != page:
                page_marks.append((offset + at, page))
        pieces.append(text)
        offset += len(text)
    full_text = "".join(pieces)

    ref_start = next((s.char_start for s in sections if s.kind == "references"), len(full_text))
    return CleanedPaper(
        paper_id=paper.paper_id,
        source_file=paper.source_file,
        title=title,
        text=full_text,
        sections=sections,
        tokens=normalize_tokens(full_text[:ref_start]),
        page_marks=page_marks,
    )
