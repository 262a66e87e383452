"""Step 5c: blocks in reading order → abstract, keywords, sections, captions and references.

The only step that knows the logical structure of a paper: a small state machine (front matter,
abstract, body, skipped section, references) decides where each block belongs, joins paragraphs
cut by a column or page break, and hands the reference lines to ``references``. The front matter
ends at the first known head, or at the first running text in the body font past page 1 (a data
supplement has no "Introduction": its "Text S1" methods would otherwise never leave the front).
"""

import re
import statistics

from geo_assets.ingest.pdf.blocks import Block
from geo_assets.ingest.pdf.classify import KEYWORDS, TERMINAL
from geo_assets.ingest.pdf.document import Document, Section
from geo_assets.ingest.pdf.headings import (
    ABSTRACT_HEADS,
    BACK_HEADS,
    CAPTION,
    KNOWN_HEADS,
    LIST_ENTRY,
    REFERENCE_HEADS,
    SKIPPED_HEADS,
    SUPPLEMENT_HEAD,
    caption_title,
    norm_head,
)
from geo_assets.ingest.pdf.hyphenation import join_lines
from geo_assets.ingest.pdf.layout import Line, coords
from geo_assets.ingest.pdf.references import parse_reference, split_references
from geo_rag_runtime.text.readable import is_boilerplate

_ABSTRACT_RUNIN = re.compile(r"^(?:abstract|summary)\s*[.:—–]\s*", re.IGNORECASE)
_COPYRIGHT_TAIL = re.compile(
    r"(?:(?<=[.?!)\]])\s+|^)(?:\S\s*)?(?:19|20)\d{2}\s.{0,60}?All rights reserved\.?\s*$", re.IGNORECASE
)
_EMAIL = re.compile(r"[\w.+-]+@[\w-]+\.[\w.-]+")
# an author's address numbered like a section head ("1 Key Laboratory of Mineral Resources, Institute
# of Geology …", "3 Institute of Geophysics, Siberian Branch of the RAS, …"): an institution, then a comma
_AFFILIATION = re.compile(
    r"\b(?:Laborator(?:y|ies|io)|Institut(?:e|es|o|ions?)?|Universit(?:y|ies|é|ät|à|ad|at)|Department|"
    r"Dipartimento|Departamento|D[ée]partement|School|College|Academy|Survey|Cent(?:re|er)|Faculty)\b[^,]*,"
)


def assemble(
    doc: Document, blocks: list[Block], body_size: float, vocab: set[str], hyphenated: set[str]
) -> None:
    """Walk the blocks in reading order: front matter, abstract, sections, captions, references."""

    def text_of(block: Block) -> str:
        return join_lines([ln.text for ln in block.lines], vocab, hyphenated)

    def end_front() -> None:
        if not doc.abstract:  # no "Abstract" label: the long paragraphs before the body (PNAS)
            long = [(p, box) for p, box in front_paragraphs if len(p.split()) >= 40][:3]
            doc.abstract = [p for p, _ in long]
            doc.abstract_coords = [box for _, box in long]

    state = "front"  # front | abstract | body | skip | refs
    label = ""  # a structured-abstract lead-in ("Methods:") waiting for its paragraph
    section: Section | None = None
    front_paragraphs: list[tuple[str, str]] = []  # text, coords
    ref_lines: list[Line] = []
    for block in blocks:
        first = block.lines[0]
        if block.kind == "heading":
            text = join_lines([ln.head_text or ln.text for ln in block.lines], vocab, hyphenated)
            norm = norm_head(text)
            known = bool(block.head_number) or norm in KNOWN_HEADS or bool(SUPPLEMENT_HEAD.match(norm))
            if state == "refs" and not (
                norm in BACK_HEADS or norm.startswith("appendi") or (block.head_number and first.bold >= 0.6)
            ):
                ref_lines.extend(block.lines)  # a bold line inside the list, not a new section
                continue
            if norm in ABSTRACT_HEADS and not doc.abstract and not any(x.paragraphs for x in doc.sections):
                state = "abstract"
                continue
            if norm in SKIPPED_HEADS:
                # "Article history:" beside an abstract not read yet or cut mid-sentence (Elsevier's
                # article-info box, read line by line beside it) does not end it
                if not (state == "abstract" and (not doc.abstract or _cut(doc.abstract[-1]))):
                    state = "skip" if state != "front" else state
                continue
            if norm in REFERENCE_HEADS:
                end_front()
                state = "refs"
                continue
            if state == "front" and (first.size < body_size - 0.6 or not known or _AFFILIATION.search(text)):
                continue  # journal banners, side bars, author lines and numbered addresses before the paper starts
            if state == "abstract" and block.runin and norm not in REFERENCE_HEADS:
                label = first.bold_prefix()
                continue  # structured abstracts: "Background: ...", "Methods: ..."
            if state == "abstract" and not known and not doc.abstract:
                continue  # author lines or figure labels between "Abstract" and its text
            end_front()
            kind = "back" if norm in BACK_HEADS or norm.startswith("appendi") else "body"
            section = Section(
                heading=text, number=block.head_number, kind=kind, head_coords=coords(block.lines)
            )
            doc.sections.append(section)
            state = "body"
            continue
        if state in ("refs", "skip"):
            if state == "refs":
                ref_lines.extend(block.lines)
            continue
        if block.kind == "keywords":
            _read_keywords(doc, block, vocab, hyphenated)
            long_front = any(len(p.split()) >= 40 for p, _ in front_paragraphs)
            # an abstract cut mid-sentence goes on after the keywords (Elsevier's article-info box
            # beside it is read before the abstract's last lines)
            cut = state == "abstract" and bool(doc.abstract) and _cut(doc.abstract[-1])
            if state in ("front", "abstract") and (doc.abstract or long_front) and not cut:
                end_front()
                state = "body"  # keywords close the front matter (PNAS has no first head)
            continue
        if block.kind == "caption" and not LIST_ENTRY.search(text_of(block)):
            # (a list of tables' entry whose leaders are on its second line is body text)
            text = text_of(block)
            match = CAPTION.match(text)
            if match:
                kind = "table" if match.group("kind").lower().startswith("tab") else "figure"
                label = f"{'Table' if kind == 'table' else 'Figure'} {match.group('num')}"
                doc.captions.append((kind, label, caption_title(text) or text))
                doc.caption_coords.append(coords(block.lines))
            continue
        text = text_of(block)
        box = coords(block.lines)
        size = statistics.median(ln.size for ln in block.lines)
        if state == "front" and _body_past_front(block.lines[-1].page, size, body_size, text):
            # body text past page 1 and still no known head: the paper has none (a data
            # supplement's "Text S1", "Table S1" …); its text is the body, not front matter
            end_front()
            state = "body"
        if state == "front":
            lead = _ABSTRACT_RUNIN.match(text)
            if lead:
                state, text = "abstract", text[lead.end() :]
            else:
                # the authors' addresses set as one long paragraph (a Springer chapter's page 1)
                # are no abstract: an address block gives its e-mail addresses
                if abs(size - body_size) <= 1.5 and first.page == 1 and not _EMAIL.search(text):
                    front_paragraphs.append((text, box))
                continue
        letters = sum(c.isalpha() for c in text)
        if letters < 20 or letters < 0.4 * len(text):
            continue  # axis labels, table cells, display equations
        if state == "abstract":
            if is_boilerplate(text):
                continue  # a licence or copyright block set under the abstract
            if doc.abstract and not label and abs(size - body_size) <= 1.5 and _cut(doc.abstract[-1]):
                # an abstract's sentence read in pieces (a box beside it read line by line between them)
                doc.abstract[-1] = join_lines([doc.abstract[-1], text], vocab, hyphenated)
                doc.abstract_coords[-1] = ";".join(b for b in (doc.abstract_coords[-1], box) if b)
            elif not doc.abstract or abs(size - body_size) <= 1.5:
                doc.abstract.append(f"{label} {text}" if label else text)
                doc.abstract_coords.append(box)
            label = ""
            continue
        if abs(size - body_size) > (1.5 if section is not None and section.kind == "back" else 0.6):
            continue  # tables, footnotes, affiliations, licence lines (back matter is often smaller)
        if section is None:
            section = Section(heading="", number=None)
            doc.sections.append(section)
        if section.paragraphs and _continues(section.paragraphs[-1], text):
            section.paragraphs[-1] = join_lines([section.paragraphs[-1], text], vocab, hyphenated)
            section.paragraph_coords[-1] = ";".join(b for b in (section.paragraph_coords[-1], box) if b)
        else:
            section.paragraphs.append(text)
            section.paragraph_coords.append(box)

    # the publisher's copyright line set under the abstract ("© 2007 Elsevier Ltd. All rights
    # reserved.", its © often lost or another glyph) is no part of it
    pairs = zip(doc.abstract, doc.abstract_coords, strict=True)
    kept = [(_COPYRIGHT_TAIL.sub("", p).rstrip(), box) for p, box in pairs]
    doc.abstract = [p for p, _ in kept if p]
    doc.abstract_coords = [box for p, box in kept if p]
    for entry in split_references(ref_lines):
        text = join_lines([ln.text for ln in entry], vocab, hyphenated, refs=True)
        if sum(c.isalpha() for c in text) >= 15:
            doc.references.append(parse_reference(text))
    doc.sections = [s for s in doc.sections if s.paragraphs or s.heading]


def _body_past_front(page: int, size: float, body_size: float, text: str) -> bool:
    """A block that ends the front matter by itself: running text (12 words or more) in the body
    font past the first page. Front matter (banners, authors, affiliations, the abstract) is on
    the first page; a paper whose known heads never come keeps its text this way, and text before
    a late first head is kept in the body rather than dropped."""
    return page > 1 and abs(size - body_size) <= 0.6 and len(text.split()) >= 12


def _read_keywords(doc: Document, block: Block, vocab: set[str], hyphenated: set[str]) -> None:
    """Keywords after a "Keywords:" label, or a "a | b | c" line; one per line when unseparated."""
    texts = [ln.text for ln in block.lines]
    texts[0] = KEYWORDS.sub("", texts[0])
    joined = join_lines(texts, vocab, hyphenated)
    separated = re.search(r"[;,·•|]", joined)
    terms = re.split(r"[;,·•|]", joined) if separated else [t for t in texts if t.strip()]
    doc.keywords = [t.strip(" .") for t in terms if t.strip(" .")][:30]


def _cut(text: str) -> bool:
    """A paragraph that stops mid-sentence (no terminal punctuation)."""
    return not text.rstrip().endswith(TERMINAL)


def _continues(previous: str, text: str) -> bool:
    """A paragraph cut by a column or page break (or a figure) continues mid-sentence."""
    return _cut(previous) and text[:1].islower()
