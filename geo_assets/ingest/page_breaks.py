"""Which PDF page each sentence of the cleaned text is on, where a paragraph runs over a page break.

The parser gives each paragraph the page it starts on (GROBID's ``coords``, the embedded parser's
boxes), so the sentences of a paragraph that runs on to the next page, or past a figure to the page
after, were cited to the page before: 6 % of the body sentences of 160 sweep and benchmark papers
(docs/experiments.md, "Sentences on the page they are printed on"). An answer cites its passage
by page and a measurement row names its page, so a reader who opens the PDF there does not find it.

:func:`place_page_breaks` reads each body and abstract sentence against the PDF's text layer (the
pages :func:`~geo_assets.ingest.coverage.text_layer_pages` read for coverage) and moves it to the
page that prints it when its paragraph's page does not: the page holding most of its word
triples, at least half of them, and at most two pages after the paragraph's (a figure page between).
A sentence whose triples the paragraph's page holds keeps it; a short sentence (under four triples)
takes what the sentence before it took. Why word triples: the text layer and the cleaned text differ
in hyphenation, ligatures and spacing, and single words repeat on every page, while three words in a
row are rarely printed on two pages.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from geo_assets.ingest.chunking import page_at
from geo_rag_runtime.models import CleanedPaper
from geo_rag_runtime.text.sentences import split_sentences

__all__ = ["place_page_breaks"]

_WORD = re.compile(r"[a-z]{2,}")
_MIN_TRIPLES = 4  # fewer: too little to judge ("Then", a formula's label)
_HOLDS = 0.3  # the paragraph's page keeps a sentence that holds this share of its triples
_MOVES = 0.5  # another page takes it only with this share
_AHEAD = 2  # pages after the paragraph's own a sentence may run to (one figure or table page between)


def _triples(text: str) -> list[tuple[str, ...]]:
    words = _WORD.findall(text.lower())
    return [tuple(words[i : i + 3]) for i in range(len(words) - 2)]


def place_page_breaks(cleaned: CleanedPaper, pages: Sequence[str]) -> CleanedPaper:
    """``cleaned`` with page marks inside the paragraphs that run over a page break (``pages``: the
    PDF's text layer, one string per page). Unchanged when it has no page marks (a TEI without
    coordinates) or no text layer."""
    if not cleaned.page_marks or not any(p.strip() for p in pages):
        return cleaned
    on_page = [set(_triples(p)) for p in pages]
    original = cleaned.page_marks
    # every section starts on its own page as the parser gave it, and every sentence on its judged one
    placed: dict[int, int] = {}
    for section in cleaned.sections:
        start_page = page_at(original, section.char_start)
        if start_page is not None:
            placed[section.char_start] = start_page
        if section.kind not in {"body", "abstract"}:
            continue
        moved: int | None = None  # the page the sentence before was moved to
        last_given: int | None = None
        for a, b in split_sentences(section.text):
            offset = section.char_start + a
            given = page_at(original, offset)
            if given is None:
                continue
            page = _judged(_triples(section.text[a:b]), on_page, given)
            if page is None:  # too short to judge: goes with the sentence before, in the same paragraph
                page = moved if moved is not None and given == last_given else given
            moved = page if page != given else None
            last_given = given
            placed[offset] = page
    marks: list[tuple[int, int]] = []
    for at in sorted({*placed, *(at for at, _ in original)}):
        page = placed.get(at, page_at(original, at))
        if page is not None and (not marks or marks[-1][1] != page):
            marks.append((at, page))
    return cleaned.model_copy(update={"page_marks": marks})


def _judged(
    triples: Sequence[tuple[str, ...]], on_page: Sequence[set[tuple[str, ...]]], given: int
) -> int | None:
    """The page a sentence is printed on: ``given`` (its paragraph's) when that page holds enough of
    its triples, else the page up to ``_AHEAD`` after it that holds most, when it holds enough; None
    when the sentence is too short to tell."""
    if len(triples) < _MIN_TRIPLES:
        return None

    def share(page: int) -> float:
        held = on_page[page - 1] if 1 <= page <= len(on_page) else set()
        return sum(1 for t in triples if t in held) / len(triples)

    if share(given) >= _HOLDS:
        return given
    best = max(range(given + 1, given + _AHEAD + 1), key=share)
    return best if share(best) >= _MOVES else given
