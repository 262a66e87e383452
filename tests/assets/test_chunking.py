"""chunk_paper on real papers: limits, overlap, exact offsets, stable ids, no references, coverage."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Literal

import pytest

from geo_assets.ingest.chunking import chunk_paper
from geo_assets.ingest.cleaned_paper import clean_paper
from geo_rag_runtime.contract import chunk_id
from geo_rag_runtime.models import Chunk, CleanedPaper, CleanSection
from geo_rag_runtime.text.keyword_terms import normalize_tokens
from geo_rag_runtime.text.tokenizer import HFTokenCounter, RegexTokenCounter, TokenCounter
from tests.assets.paper_builders import paper_from_pdf, paper_from_tei

TEI_FILES = [
    "DeMarchis2016_JNER_0046d83a.grobid-0.8.1.tei.xml",
    "N18-3011.grobid-0.6.1.tei.xml",
    "2020.acl-main.207.grobid-0.6.1.tei.xml",
]


@pytest.fixture(scope="session")
def counter() -> HFTokenCounter:
    return HFTokenCounter()


def _check_chunks(cleaned: CleanedPaper, chunks: list[Chunk], counter: TokenCounter, max_tokens: int) -> None:
    assert [c.ordinal for c in chunks] == list(range(len(chunks)))
    assert len({c.chunk_id for c in chunks}) == len(chunks)
    refs = [s for s in cleaned.sections if s.kind == "references"]
    for c in chunks:
        assert cleaned.text[c.char_start : c.char_end] == c.text
        assert c.text == c.text.strip() and c.text
        assert c.token_count == counter.count(c.text) <= max_tokens
        assert c.chunk_id == chunk_id(cleaned.paper_id, c.ordinal, c.text)
        assert c.tokens == normalize_tokens(c.text)
        assert (c.paper_id, c.source_file, c.title) == (cleaned.paper_id, cleaned.source_file, cleaned.title)
        for ref in refs:  # never any reference-list text
            assert c.char_end <= ref.char_start or c.char_start >= ref.char_end
    starts = [c.char_start for c in chunks]
    assert starts == sorted(starts)


def _uncovered(cleaned: CleanedPaper, chunks: list[Chunk]) -> list[str]:
    """Headings of chunkable sections holding a non-space character that no chunk covers."""
    mask = bytearray(len(cleaned.text))
    for c in chunks:
        mask[c.char_start : c.char_end] = b"\x01" * (c.char_end - c.char_start)
    return [
        s.heading
        for s in cleaned.sections
        if s.kind != "references"
        and any(not mask[i] and not cleaned.text[i].isspace() for i in range(s.char_start, s.char_end))
    ]


def _overlap_tokens(a: Chunk, b: Chunk, counter: TokenCounter, cleaned: CleanedPaper) -> int:
    if b.char_start >= a.char_end:
        return 0
    return counter.count(cleaned.text[b.char_start : a.char_end])


@pytest.mark.parametrize("name", TEI_FILES)
def test_real_tei_paper(grobid_samples: Path, counter: HFTokenCounter, name: str) -> None:
    cleaned = clean_paper(paper_from_tei(grobid_samples / name))
    chunks = chunk_paper(cleaned, counter)
    assert len(chunks) >= 5
    _check_chunks(cleaned, chunks, counter, 512)
    assert _uncovered(cleaned, chunks) == []
    # overlaps of about 100 tokens between consecutive windows of one section
    overlaps = [
        _overlap_tokens(a, b, counter, cleaned)
        for a, b in zip(chunks, chunks[1:], strict=False)
        if a.section == b.section and b.char_start < a.char_end
    ]
    assert overlaps, "expected at least one section longer than one window"
    assert all(90 <= o <= 110 for o in overlaps), overlaps
    # windows are full unless they end a section or stop at a sentence in the last 15%
    for a, b in zip(chunks, chunks[1:], strict=False):
        if a.section == b.section and b.char_start < a.char_end:
            assert a.token_count >= 0.85 * 512 - 10


def test_ids_stable_across_runs(grobid_samples: Path, counter: HFTokenCounter) -> None:
    path = grobid_samples / "DeMarchis2016_JNER_0046d83a.grobid-0.8.1.tei.xml"
    first = chunk_paper(clean_paper(paper_from_tei(path)), counter)
    second = chunk_paper(clean_paper(paper_from_tei(path)), counter)
    assert [c.model_dump() for c in first] == [c.model_dump() for c in second]


def test_sentence_boundaries_preferred(grobid_samples: Path, counter: HFTokenCounter) -> None:
    cleaned = clean_paper(paper_from_tei(grobid_samples / "2020.acl-main.207.grobid-0.6.1.tei.xml"))
    chunks = chunk_paper(cleaned, counter)
    cut_inside_section = [
        a
        for a, b in zip(chunks, chunks[1:], strict=False)
        if a.section == b.section and b.char_start < a.char_end
    ]
    at_sentence_end = [a for a in cut_inside_section if a.text.rstrip(")\"'”’]").endswith((".", "?", "!"))]
    assert len(at_sentence_end) >= 0.8 * len(cut_inside_section)


def test_never_cuts_inside_a_word(counter: HFTokenCounter) -> None:
    sentence = "The 87Sr/86Sr ratio of 0.70352 and 206Pb/238U ages of zircon crystals are reported here"
    text = " ".join([sentence] * 40)  # no sentence ends: cuts fall at word boundaries
    cleaned = CleanedPaper(
        paper_id="p1", source_file="x.pdf", title="T", text=text,
        sections=[CleanSection(heading="Results", kind="body", text=text, char_start=0, char_end=len(text))],
    )  # fmt: skip
    chunks = chunk_paper(cleaned, counter, max_tokens=64, overlap=16)
    _check_chunks(cleaned, chunks, counter, 64)
    words = set(text.split())
    for c in chunks:
        assert c.char_start == 0 or text[c.char_start - 1] == " "
        assert c.char_end == len(text) or text[c.char_end] == " "
        assert set(c.text.split()) <= words
    assert "87Sr/86Sr" in chunks[1].text.split() or "87Sr/86Sr" in chunks[2].text.split()


def test_short_body_sections_packed(counter: HFTokenCounter) -> None:
    blocks: list[tuple[str, Literal["body", "captions"], str]] = [
        ("2 Methods", "body", "2 Methods"),
        ("2.1 Sampling", "body", "2.1 Sampling\n\nSamples were collected from the Ulgey suite."),
        ("2.2 Dating", "body", "2.2 Dating\n\n" + "Zircon U–Pb ages were measured by LA-ICP-MS. " * 60),
        ("Figure and table captions", "captions", "Figure 1. Map of the study area."),
    ]
    text, sections, offset = "", [], 0
    for heading, kind, body in blocks:
        if text:
            text += "\n\n"
            offset += 2
        sections.append(
            CleanSection(
                heading=heading, kind=kind, text=body, char_start=offset, char_end=offset + len(body)
            )
        )
        text += body
        offset += len(body)
    cleaned = CleanedPaper(paper_id="p2", source_file="y.pdf", title="T", text=text, sections=sections)
    chunks = chunk_paper(cleaned, counter, max_tokens=128, overlap=20)
    _check_chunks(cleaned, chunks, counter, 128)
    assert chunks[0].section == "2 Methods | 2.1 Sampling"
    assert chunks[0].text.startswith("2 Methods\n\n2.1 Sampling")
    assert all(c.section == "2.2 Dating" for c in chunks[1:-1])
    assert chunks[-1].section == "Figure and table captions"  # never packed with body text
    assert _uncovered(cleaned, chunks) == []


@pytest.mark.slow
def test_sample_papers_from_pdf(sample_papers: Path, counter: HFTokenCounter) -> None:
    pdfs = sorted(sample_papers.glob("*.pdf"))
    assert len(pdfs) == 5
    report = []
    for pdf in pdfs:
        cleaned = clean_paper(paper_from_pdf(pdf))
        start = time.perf_counter()
        chunks = chunk_paper(cleaned, counter)
        elapsed = time.perf_counter() - start
        _check_chunks(cleaned, chunks, counter, 512)
        assert _uncovered(cleaned, chunks) == []
        report.append((pdf.name, len(chunks), elapsed))
    print("\n".join(f"{name}: {n} chunks in {t * 1000:.0f} ms" for name, n, t in report))
    assert all(n >= 5 for _, n, _ in report)  # speed is measured by scripts/bench_text.py, not here


def test_regex_counter_works_too(grobid_samples: Path) -> None:
    counter = RegexTokenCounter()
    cleaned = clean_paper(paper_from_tei(grobid_samples / "N18-3011.grobid-0.6.1.tei.xml"))
    chunks = chunk_paper(cleaned, counter, max_tokens=256, overlap=50)
    _check_chunks(cleaned, chunks, counter, 256)


@pytest.mark.parametrize(("max_tokens", "overlap"), [(0, 0), (-5, 0), (100, 100), (100, 150), (100, -1)])
def test_invalid_parameters(counter: HFTokenCounter, max_tokens: int, overlap: int) -> None:
    cleaned = CleanedPaper(paper_id="p", source_file="x", title="", text="", sections=[])
    with pytest.raises(ValueError):
        chunk_paper(cleaned, counter, max_tokens=max_tokens, overlap=overlap)


def test_zero_overlap_and_empty(counter: HFTokenCounter, grobid_samples: Path) -> None:
    cleaned = clean_paper(paper_from_tei(grobid_samples / "N18-3011.grobid-0.6.1.tei.xml"))
    chunks = chunk_paper(cleaned, counter, max_tokens=200, overlap=0)
    _check_chunks(cleaned, chunks, counter, 200)
    for a, b in zip(chunks, chunks[1:], strict=False):
        assert b.char_start >= a.char_end
    empty = CleanedPaper(paper_id="p", source_file="x", title="", text="", sections=[])
    assert chunk_paper(empty, counter) == []


def test_with_real_tei_parser(grobid_samples: Path, counter: HFTokenCounter) -> None:
    from geo_assets.ingest import tei

    path = grobid_samples / "DeMarchis2016_JNER_0046d83a.grobid-0.8.1.tei.xml"
    paper = tei.tei_to_paper(path.read_bytes(), paper_id="p0046d83a", source_file=path.name, sha256="0" * 64)
    cleaned = clean_paper(paper)
    chunks = chunk_paper(cleaned, counter)
    _check_chunks(cleaned, chunks, counter, 512)


def test_chunks_carry_the_pages_their_text_lies_on(counter: HFTokenCounter) -> None:
    from geo_assets.ingest.chunking import page_at

    marks = [(0, 1), (100, 2), (250, 4)]
    assert [page_at(marks, at) for at in (0, 99, 100, 249, 250, 10_000)] == [1, 1, 2, 2, 4, 4]
    assert page_at([], 5) is None and page_at([(10, 3)], 9) is None

    body = ("Zircon U–Pb ages were measured by LA-ICP-MS on the basalts. " * 40).strip()
    sections = [CleanSection(heading="Results", kind="body", text=body, char_start=0, char_end=len(body))]
    half = len(body) // 2
    cleaned = CleanedPaper(
        paper_id="p",
        source_file="x.pdf",
        title="",
        text=body,
        sections=sections,
        page_marks=[(0, 5), (half, 6)],
    )
    chunks = chunk_paper(cleaned, counter, max_tokens=128, overlap=16)
    assert len(chunks) > 2
    for chunk in chunks:
        assert chunk.page_start == page_at(cleaned.page_marks, chunk.char_start)
        assert chunk.page_end == page_at(cleaned.page_marks, chunk.char_end - 1)
    assert chunks[0].page_start == 5 and chunks[-1].page_end == 6
    assert any(c.page_start == 5 and c.page_end == 6 for c in chunks)
