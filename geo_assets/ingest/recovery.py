"""Text the layout parser lost, kept: a page-level fallback to the PDF's plain text layer.

The layout parsers (GROBID, or our embedded one) read a paper into sections, captions and tables;
on a layout they were not built for they can drop a page or a table whole (a supplement of data
tables, a one-column preprint, a page of landscape tables). A knowledge base that silently misses
that text is worse than one that holds it without structure, so after parsing, each page's text
layer (pypdf, an independent reader) is compared with what the paper holds: on a page where fewer
than :data:`RECOVER_PAGE_BELOW` of its words arrived, the runs of lines whose text (letters and
digits, spacing ignored) is not in the paper are added to the paper as a section "Text recovered from page N", with the page, in page
order, so they are chunked, embedded, searched and cited like any other paragraph. Lines that do
arrive are not repeated, and running headers, footers and publisher boilerplate are left out.

Reading order inside a recovered page is pypdf's (content-stream order), which is the order most
producers write text in; the page is chosen by measured coverage (``geo_assets.ingest.coverage``).
On a page where pypdf could not decode a font, its lines mostly in a script the paper has nowhere
are that font's debris (CJK for Latin text) and are not recovered.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Collection, Sequence

from geo_assets.ingest.coverage import foreign_share, measure_coverage, scripts_of
from geo_rag_runtime.models import Paper, Section
from geo_rag_runtime.text.readable import is_boilerplate, strip_repeated_lines

__all__ = ["RECOVER_PAGE_BELOW", "RECOVERED_HEADING", "paper_text", "recover_lost_text"]

# a page with fewer of its words in the paper than this is recovered; 0.9, not 0.8, since the
# parser reads more pages partly (2026-12-05: corpus median coverage 0.963 -> 0.974, min 0.893 ->
# 0.939; corpus set evidence recall@5 0.828 -> 0.836; docs/experiments.md)
RECOVER_PAGE_BELOW = 0.9
RECOVERED_HEADING = "Text recovered from page {page}"
_MIN_LINE_CHARS = 12  # letters and digits: a shorter line (a label, a page number) cannot be told
_MIN_RUN_CHARS = 40  # a run of lost lines shorter than this is debris
_NOT_ALNUM = re.compile(r"[\W_]+")


def paper_text(paper: Paper) -> str:
    """Everything the paper holds as text: title, abstract, sections, captions with their cells,
    references (what the coverage of a parse is measured against)."""
    parts = [paper.title, paper.abstract, " ".join(paper.keywords)]
    for section in paper.sections:
        parts.append(section.heading)
        parts.extend(section.paragraphs)
    for caption in paper.captions:
        parts.append(caption.text)
        parts.append(caption.note)
        parts.extend(" ".join(row) for row in caption.rows)
    parts.extend(r.raw or " ".join(filter(None, [r.title, r.venue])) for r in paper.references)
    return "\n".join(p for p in parts if p)


def _key(text: str) -> str:
    """Letters and digits only, case folded: spacing, hyphenation and punctuation do not matter
    (some PDFs have no space glyphs, and the two readers break and join lines differently)."""
    return _NOT_ALNUM.sub("", unicodedata.normalize("NFKC", text).casefold())


def _arrived(line: str, known: str) -> bool | None:
    """Whether the line's text is in the paper (either half of it, so a citation mark the parser
    dropped does not make a line lost); None for a line too short to tell."""
    key = _key(line)
    if len(key) < _MIN_LINE_CHARS:
        return None
    half = len(key) // 2
    return key in known or key[:half] in known or key[half:] in known


def _lost_runs(lines: Sequence[str], known: str, scripts: set[str] | None = None) -> list[str]:
    """Consecutive lines that did not arrive, joined into paragraphs (short lines join a run but
    do not start one); with ``scripts``, a line mostly in none of them is debris, left out."""
    runs: list[list[str]] = [[]]
    for line in lines:
        line = line.strip()
        if not line or is_boilerplate(line) or (scripts is not None and foreign_share(line, scripts) > 0.5):
            if runs[-1] and not line:
                runs.append([])
            continue
        arrived = _arrived(line, known)
        if arrived is False or (arrived is None and runs[-1]):
            runs[-1].append(line)
        elif arrived and runs[-1]:
            runs.append([])
    return ["\n".join(run) for run in runs if len(_key(" ".join(run))) >= _MIN_RUN_CHARS]


def recover_lost_text(
    paper: Paper, pages: Sequence[str], undecoded: Collection[int] = ()
) -> tuple[Paper, list[int]]:
    """The paper with the lost text of its poorly read pages added, and those pages (1-based);
    ``undecoded``: the pages pypdf could not decode a font of (``coverage.TextLayer``)."""
    text = paper_text(paper)
    known = _key(text)
    scripts = scripts_of(text) if undecoded else set()  # only an undecoded page's lines are tested
    shares = measure_coverage(pages, text, undecoded).page_shares  # None: a page without words
    cleaned_pages = strip_repeated_lines(pages)
    added: list[Section] = []
    recovered: list[int] = []
    for number, (share, page) in enumerate(zip(shares, cleaned_pages, strict=True), 1):
        if share is None or share >= RECOVER_PAGE_BELOW:
            continue
        paragraphs = _lost_runs(page.splitlines(), known, scripts if number in undecoded else None)
        if not paragraphs:
            continue
        recovered.append(number)
        added.append(
            Section(
                heading=RECOVERED_HEADING.format(page=number),
                paragraphs=paragraphs,
                paragraph_pages=[number] * len(paragraphs),
            )
        )
    if not added:
        return paper, []
    return paper.model_copy(update={"sections": _in_page_order(paper.sections, added)}), recovered


def _first_page(section: Section) -> int | None:
    return next((p for p in section.paragraph_pages if p is not None), None)


def _in_page_order(sections: Sequence[Section], added: Sequence[Section]) -> list[Section]:
    """Each recovered section after the last section that starts on or before its page (at the end
    when the parse has no pages)."""
    out = list(sections)
    for section in added:
        page = _first_page(section) or 0
        at = len(out)
        starts = [(_first_page(s), i) for i, s in enumerate(out)]
        known = [(p, i) for p, i in starts if p is not None]
        if known:
            later = [i for p, i in known if p > page]
            at = min(later) if later else len(out)
        out.insert(at, section)
    return out
