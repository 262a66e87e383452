"""Sentences of a paragraph that runs over a page break are cited to the page that prints them."""

from __future__ import annotations

import re
import unicodedata
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from geo_rag_runtime.models import CleanedPaper

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "papers"


def _cleaned(text: str, marks: list[tuple[int, int]]) -> CleanedPaper:
    from geo_rag_runtime.models import CleanedPaper, CleanSection

    return CleanedPaper(
        paper_id="p1", source_file="x.pdf", title="", text=text,
        sections=[CleanSection(heading="Results", kind="body", text=text, char_start=0, char_end=len(text))],
        page_marks=marks,
    )  # fmt: skip


def test_a_sentence_printed_on_the_next_page_is_cited_there() -> None:
    """The paragraph starts on page 1; its second sentence is printed on page 2, and the short one
    after it goes with it; the next paragraph's sentence, printed on page 2 as its mark says, stays."""
    from geo_assets.ingest.chunking import page_at
    from geo_assets.ingest.page_breaks import place_page_breaks

    first = "Zircon grains from the granite were dated by laser ablation in the spring."
    second = "The weighted mean age of the youngest population is older than the deposition of the sandstone."
    short = "It is 410 Ma."
    after = "Biotite from the same rock gives a cooling age that is much younger than the zircon."
    text = f"{first} {second} {short}\n\n{after}"
    at = text.index(after)
    pages = [f"Header line\n{first} {second[:20]}", f"{second[20:]} {short}\n{after}\nFooter"]
    placed = place_page_breaks(_cleaned(text, [(0, 1), (at, 2)]), pages)
    assert page_at(placed.page_marks, 0) == 1
    assert page_at(placed.page_marks, text.index(second)) == 2
    assert page_at(placed.page_marks, text.index(short)) == 2
    assert page_at(placed.page_marks, at) == 2
    # a sentence the paragraph's page prints stays there, and nothing moves without a text layer
    same = place_page_breaks(_cleaned(text, [(0, 1), (at, 2)]), [f"{first} {second} {short}", after])
    assert page_at(same.page_marks, text.index(second)) == 1
    assert place_page_breaks(_cleaned(text, [(0, 1)]), ["", ""]).page_marks == [(0, 1)]
    assert place_page_breaks(_cleaned(text, []), pages).page_marks == []


def _letters(text: str) -> str:
    return re.sub(r"[^a-z]", "", unicodedata.normalize("NFKC", text).lower())


def test_every_sentence_of_a_real_paper_is_cited_to_the_page_that_prints_it() -> None:
    """Judged by another reader of the PDF (pdfminer, through pdfplumber, where the fix reads pypdf's
    text layer): every body sentence that one page prints is cited to that page. Without the fix,
    sentences of paragraphs that run over a page break were cited to the page before."""
    import pdfplumber

    from geo_assets.ingest.chunking import page_at
    from geo_assets.ingest.cleaned_paper import clean_paper
    from geo_assets.ingest.coverage import text_layer_pages
    from geo_assets.ingest.page_breaks import place_page_breaks
    from geo_assets.ingest.pipeline import paper_from_pdf
    from geo_rag_runtime.text.sentences import split_sentences

    pdf = FIXTURES / "Vermeesch2024_Geochronology_Errorchrons_CCBY.pdf"
    cleaned = clean_paper(paper_from_pdf(pdf))
    placed = place_page_breaks(cleaned, text_layer_pages(pdf))
    with pdfplumber.open(pdf) as document:
        printed = [_letters(page.extract_text() or "") for page in document.pages]
    judged = right = right_before = 0
    for section in (s for s in cleaned.sections if s.kind == "body"):
        for a, b in split_sentences(section.text):
            head = _letters(section.text[a:b])[:30]
            on = [i + 1 for i, page in enumerate(printed) if head in page]
            if len(head) < 30 or len(on) != 1:
                continue  # too short, split over two pages or not found as one run of letters
            judged += 1
            right += page_at(placed.page_marks, section.char_start + a) == on[0]
            right_before += page_at(cleaned.page_marks, section.char_start + a) == on[0]
    assert judged >= 100, judged
    assert right >= 0.98 * judged, (right, judged)
    assert right_before < right, (right_before, right)
