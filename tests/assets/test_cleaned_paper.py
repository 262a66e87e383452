"""clean_paper: layout, exact offsets, repeated metadata removed, tokens without references."""

from __future__ import annotations

from pathlib import Path

import pytest

from geo_assets.ingest.cleaned_paper import caption_line, clean_paper, reference_line
from geo_rag_runtime.models import Caption, CleanedPaper, Paper, Reference, Section
from geo_rag_runtime.text.keyword_terms import normalize_tokens
from tests.assets.paper_builders import paper_from_pdf, paper_from_tei

TEI_FILES = [
    "DeMarchis2016_JNER_0046d83a.grobid-0.8.1.tei.xml",
    "DeMarchis2016_JNER_0046d83a.grobid-0.6.1.tei.xml",
    "N18-3011.grobid-0.6.1.tei.xml",
    "2020.acl-main.207.grobid-0.6.1.tei.xml",
]


def _assert_offsets(cleaned: CleanedPaper) -> None:
    previous_end = 0
    for section in cleaned.sections:
        assert cleaned.text[section.char_start : section.char_end] == section.text
        assert section.char_start >= previous_end and section.text.strip() == section.text
        previous_end = section.char_end
    assert previous_end == len(cleaned.text)


@pytest.mark.parametrize("name", TEI_FILES)
def test_real_tei_layout_and_offsets(grobid_samples: Path, name: str) -> None:
    paper = paper_from_tei(grobid_samples / name)
    cleaned = clean_paper(paper)
    _assert_offsets(cleaned)
    kinds = [s.kind for s in cleaned.sections]
    assert kinds[0] == "abstract" and kinds[-1] == "references"
    assert kinds.count("abstract") == 1 and kinds.count("references") == 1
    assert set(kinds) == {"abstract", "body", "references"} | ({"captions"} if paper.captions else set())
    assert cleaned.text.startswith(cleaned.title + "\n\n")
    assert "\n\n\n" not in cleaned.text and "  " not in cleaned.text
    references = cleaned.sections[-1]
    assert len(references.text.splitlines()) == len(paper.references)
    # one body section per TEI div with content, heading first
    body = [s for s in cleaned.sections if s.kind == "body"]
    assert len(body) == len([s for s in paper.sections if s.paragraphs or s.heading])
    for section in body:
        if section.heading:
            assert section.text.startswith(section.heading)
    # tokens cover everything but the references
    assert cleaned.tokens == normalize_tokens(cleaned.text[: references.char_start])
    last_ref_words = normalize_tokens(references.text.splitlines()[-1])
    assert cleaned.tokens[-len(last_ref_words) :] != last_ref_words


def test_real_tei_content(grobid_samples: Path) -> None:
    paper = paper_from_tei(grobid_samples / "DeMarchis2016_JNER_0046d83a.grobid-0.8.1.tei.xml")
    cleaned = clean_paper(paper)
    body = {s.heading: s for s in cleaned.sections}
    assert "Participants" in body
    assert "(27.4 ± 2.6 years old)" in body["Participants"].text
    captions = next(s for s in cleaned.sections if s.kind == "captions")
    assert captions.text.startswith("Fig. 1 Multi-contact set-up")  # label not doubled
    assert "Background: Functional Electrical Stimulation (FES)" in cleaned.sections[0].text


def test_numbered_headings(grobid_samples: Path) -> None:
    cleaned = clean_paper(paper_from_tei(grobid_samples / "N18-3011.grobid-0.6.1.tei.xml"))
    headings = [s.heading for s in cleaned.sections if s.kind == "body"]
    assert headings[:3] == ["1 Introduction", "2 Structure of The Literature Graph", "2.1 Node Types"]


def test_real_pdf_paper_with_notation(sample_papers: Path) -> None:
    paper = paper_from_pdf(sample_papers / "Zhu2024_GRL_MongolOkhotskMantlePlume_CCBY.pdf")
    cleaned = clean_paper(paper)
    _assert_offsets(cleaned)
    for notation in ("(La/Yb)N", "Eu/Eu*", "SiO2", "wt.%", "εNd(t)", "U–Pb"):
        assert notation in cleaned.text, notation
    assert "(la/yb)n" in cleaned.tokens and "εnd(t)" in cleaned.tokens
    assert "\u2010" not in cleaned.text and "newly-discovered" in cleaned.text


def _paper(**fields: object) -> Paper:
    base: dict[str, object] = {"paper_id": "p0123456789abcdef", "source_file": "x.pdf", "sha256": "0" * 64}
    base.update(fields)
    return Paper.model_validate(base)


def test_repeated_metadata_removed() -> None:
    title = "The Beginning of a Wilson Cycle in an Accretionary Orogen"
    header = "Geophysical Research Letters 10.1029/2024GL109028"
    paper = _paper(
        title=title,
        abstract="The opening of oceans within accretionary orogens is important.",
        sections=[
            Section(
                heading="1. Introduction",
                paragraphs=[
                    header,
                    "Precise constraints on continental breakup play a key role.",
                    "© 2024. The Author(s).",
                ],
            ),
            Section(heading="", paragraphs=[title, "", "   ", "Page 3"]),
            Section(
                heading="2. Geological Setting",
                paragraphs=[
                    header,
                    "The Mongol–Okhotsk Ocean began opening within the collage. " * 5,
                    "The Mongol–Okhotsk Ocean began opening within the collage. " * 5,
                    "This is an open access article under the terms of the Creative Commons Attribution License.",
                ],
            ),
        ],
    )
    cleaned = clean_paper(paper)
    _assert_offsets(cleaned)
    assert header not in cleaned.text
    assert "©" not in cleaned.text and "Creative Commons" not in cleaned.text and "Page 3" not in cleaned.text
    assert cleaned.text.count(title) == 1  # the title line itself only
    assert cleaned.text.count("The Mongol–Okhotsk Ocean began opening") == 5  # one copy of the paragraph
    assert [s.heading for s in cleaned.sections] == ["Abstract", "1. Introduction", "2. Geological Setting"]


def test_heading_only_section_and_keywords() -> None:
    paper = _paper(
        title="T",
        keywords=["zircon", "U–Pb"],
        sections=[
            Section(heading="Methods", number="2"),
            Section(heading="Dating", number="2.1", paragraphs=["x y z."]),
        ],
    )
    cleaned = clean_paper(paper)
    assert cleaned.sections[0].text == "Keywords: zircon; U–Pb"
    assert [(s.heading, s.text) for s in cleaned.sections[1:]] == [
        ("2 Methods", "2 Methods"),
        ("2.1 Dating", "2.1 Dating\n\nx y z."),
    ]


def test_empty_paper() -> None:
    cleaned = clean_paper(_paper())
    assert cleaned.text == "" and cleaned.sections == [] and cleaned.tokens == []


def test_caption_and_reference_lines() -> None:
    assert caption_line(Caption(kind="figure", label="3", text="Zircon ages.")) == "Figure 3. Zircon ages."
    assert (
        caption_line(Caption(kind="table", label="1", text="Table 1 Major elements"))
        == "Table 1 Major elements"
    )
    assert caption_line(Caption(kind="figure", label=None, text="ﬁt of\nthe data")) == "fit of the data"
    assert (
        reference_line(Reference(raw="Keller, C. B. (2018).\nBayesian ages."))
        == "Keller, C. B. (2018). Bayesian ages."
    )
    ref = Reference(
        authors=["Keller", "Schoene"],
        year="2018",
        title="Bayesian eruption ages",
        venue="GPL",
        doi="10.7185/x",
    )
    assert reference_line(ref) == "Keller, Schoene (2018) Bayesian eruption ages. GPL. doi:10.7185/x"


def test_page_marks_follow_paragraphs_through_dropping_and_splitting() -> None:
    paper = Paper(
        paper_id="p",
        source_file="x.pdf",
        sha256="0" * 64,
        title="Zircon ages",
        abstract="We date zircon.",
        abstract_page=1,
        sections=[
            Section(
                heading="Methods",
                paragraphs=[
                    "Page header",
                    "Zircons were dated by LA-ICP-MS.\n\nStandards were run.",
                    "Page header",
                ],
                paragraph_pages=[2, 2, 3],
            ),
            Section(heading="Results", paragraphs=["Ages are 410 ± 4 Ma."], paragraph_pages=[3]),
        ],
        captions=[Caption(kind="figure", label="1", text="Map of the area.", page=2)],
    )
    cleaned = clean_paper(paper)
    text = cleaned.text

    def page_of(snippet: str) -> int:
        at = text.index(snippet)
        return [page for offset, page in cleaned.page_marks if offset <= at][-1]

    assert page_of("We date zircon") == 1
    assert page_of("Zircons were dated") == 2 and page_of("Standards were run") == 2  # split keeps the page
    assert page_of("Ages are 410 ± 4 Ma") == 3
    assert page_of("Figure 1. Map") == 2  # captions come after the body, pages need not increase
    assert "Page header" not in text  # the repeated header went, and with it its page
    offsets = [offset for offset, _ in cleaned.page_marks]
    assert offsets == sorted(offsets)


def test_no_coordinates_no_page_marks(grobid_samples: Path) -> None:
    """This GROBID sample was made without teiCoordinates: pages are unknown, not guessed."""
    paper = paper_from_tei(grobid_samples / "N18-3011.grobid-0.6.1.tei.xml")
    assert clean_paper(paper).page_marks == []
