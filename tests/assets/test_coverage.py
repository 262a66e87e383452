"""Text coverage (share of a PDF's text layer that reaches the cleaned text) and the recovery of
pages a parser lost, on a real paper and on small texts whose answer is known."""

from __future__ import annotations

from pathlib import Path

import pytest

from geo_assets.ingest.cleaned_paper import clean_paper
from geo_assets.ingest.coverage import (
    FAIL_BELOW,
    WARN_BELOW,
    measure_coverage,
    text_layer,
    text_layer_pages,
    words_of,
)
from geo_assets.ingest.pdf import pdf_to_tei
from geo_assets.ingest.recovery import RECOVER_PAGE_BELOW, RECOVERED_HEADING, recover_lost_text
from geo_assets.ingest.tei import tei_to_paper
from geo_rag_runtime.models import Paper, Section

REAL = "VermeeschPease2021_GPL_TholeiiticCalcAlkaline_CCBY.pdf"


def test_words_join_line_end_hyphens_and_ignore_case_and_short_words() -> None:
    assert words_of("Magma frac-\ntionation of the BASALT, U-Pb 87Sr/86Sr") == {
        "magma",
        "fractionation",
        "basalt",
    }


def test_coverage_counts_distinct_words_and_names_lost_and_image_only_pages() -> None:
    pages = [
        "Zircon crystallization ages constrain eruption timing",
        "",  # a scanned page: no text layer
        "Plagioclase clinopyroxene olivine assemblage dominates these basalts",
    ]
    text = "Zircon crystallization ages constrain eruption timing."
    coverage = measure_coverage(pages, text)
    assert coverage.layer_words == 13
    assert coverage.share == pytest.approx(6 / 13)
    assert coverage.page_shares == [1.0, None, 0.0]
    assert coverage.lost_pages == [3] and coverage.image_only_pages == [2]
    assert coverage.level == "fail" and coverage.share < FAIL_BELOW
    reason = coverage.reason()
    assert "46%" in reason and "pages with most words lost: 3" in reason and "text layer" in reason


def test_words_glued_by_the_text_layer_are_found_in_the_spaced_text() -> None:
    # AGU and PNAS PDFs place words without space glyphs: the text layer reads them glued
    pages = ["Curved mountain belts arethemostvisibleproductofplatetectonics"]
    coverage = measure_coverage(
        pages, "Curved mountain belts are the most visible product of plate tectonics"
    )
    assert coverage.share == 1.0 and coverage.level == "ok"


def test_a_line_numbered_manuscript_s_broken_words_are_whole() -> None:
    # a preprint with line numbers in its margin: pypdf reads each number at its line's end, after
    # a line-end hyphen too, so "con-46" / "ducted" was two lost fragments, not "conducted"
    page = (
        "ter contents at which these experiments were con-46\n"
        "ducted to deduce the conditions at which natural47\n"
        "crystals and melts equilibrated. Barometers rely on48\n"
        "the fact that certain chemical equilibria have sig-49\n"
        "nificant volume differences between products and50\n"
    )
    text = (
        "ter contents at which these experiments were conducted to deduce the conditions at which natural"
        " crystals and melts equilibrated. Barometers rely on the fact that certain chemical equilibria"
        " have significant volume differences between products and"
    )
    assert measure_coverage([page], text).share == 1.0
    # a page whose lines do not mostly end in a number keeps them: "U-238" / "then" is no "Uthen"
    text = "decays of U-238 then the daughter lead in zircon grains"
    assert (
        measure_coverage(["decays of U-238\nthen the daughter lead\nin zircon grains\n"], text).share == 1.0
    )


def test_words_the_reader_split_with_a_space_are_found_whole() -> None:
    # a report set with wide letter spacing: pypdf reads "drilli ng", "v olcanic" where the parse
    # has "drilling", "volcanic"; a word really lost beside them stays lost
    pages = ["The drilli ng survey captured v olcanic breccia beside granite"]
    coverage = measure_coverage(pages, "The drilling survey captured volcanic breccia beside")
    # drilli, survey, captured, olcanic, breccia and beside were read; granite was not
    assert coverage.share == pytest.approx(6 / 7)


@pytest.fixture(scope="module")
def real(sample_papers: Path) -> dict:
    pdf = sample_papers / REAL
    pages = text_layer_pages(pdf)
    paper = tei_to_paper(pdf_to_tei(pdf), paper_id="p", source_file=REAL, sha256="0" * 64)
    return {"pages": pages, "paper": paper}


def test_a_real_paper_read_whole_covers_its_text_layer(real: dict) -> None:
    coverage = measure_coverage(real["pages"], clean_paper(real["paper"]).text)
    assert coverage.share >= WARN_BELOW, coverage.reason()
    assert coverage.lost_pages == [] and coverage.image_only_pages == []
    # nothing is lost, so nothing is recovered
    assert recover_lost_text(real["paper"], real["pages"]) == (real["paper"], [])


def test_a_page_the_parser_lost_is_recovered_from_the_text_layer(real: dict) -> None:
    paper: Paper = real["paper"]
    # a parser that lost page 3: every paragraph starting there is gone
    damaged = paper.model_copy(
        update={
            "sections": [
                Section(
                    heading=s.heading,
                    number=s.number,
                    paragraphs=[p for i, p in enumerate(s.paragraphs) if s.page_of(i) != 3],
                    paragraph_pages=[q for q in s.paragraph_pages if q != 3],
                )
                for s in paper.sections
            ]
        }
    )
    pages = real["pages"]
    before = measure_coverage(pages, clean_paper(damaged).text)
    assert 3 in before.lost_pages or before.page_shares[2] < 0.8
    repaired, recovered = recover_lost_text(damaged, pages)
    # page 3, and page 4, where the paragraphs that began on page 3 went on (below 0.9 without them)
    assert recovered == [3, 4] and before.page_shares[3] < RECOVER_PAGE_BELOW <= before.page_shares[4]
    section = next(s for s in repaired.sections if s.heading == RECOVERED_HEADING.format(page=3))
    assert section.paragraph_pages == [3] * len(section.paragraphs)
    after = measure_coverage(pages, clean_paper(repaired).text)
    assert after.share > before.share and after.page_shares[2] >= 0.9, after.reason()
    # in page order: after the sections that start before page 3, before those that start after it
    index = repaired.sections.index(section)
    earlier = [s.paragraph_pages[0] for s in repaired.sections[:index] if s.paragraph_pages]
    later = [s.paragraph_pages[0] for s in repaired.sections[index + 1 :] if s.paragraph_pages]
    assert all(p is None or p <= 3 for p in earlier) and all(p is None or p > 3 for p in later)
    # what had arrived is not repeated: no recovered paragraph is already in the damaged paper's text
    kept = clean_paper(damaged).text
    for paragraph in section.paragraphs:
        assert " ".join(paragraph.split()[:12]) not in " ".join(kept.split()), paragraph[:80]


def test_a_font_pypdf_cannot_decode_is_named_and_its_debris_neither_judged_nor_recovered(
    tmp_path: Path,
) -> None:
    """pypdf reads a font whose encoding it does not implement (a Japanese CMap, 90msp-RKSJ-H) as
    UTF-16, so Latin text the parser read right comes back as CJK debris ("䭵浴…"). It says so in a
    log record: that page is *undecoded*. There, words in a script the text has nowhere are not
    judged, and lines of them are not recovered into the knowledge base (a JICA report's debris had
    filled 32 of its chunks). Elsewhere the same words still count as lost: a parser that lost a
    script shows."""
    from pypdf import PdfReader, PdfWriter
    from pypdf.generic import DictionaryObject, NameObject

    from tests.assets.paper_builders import pages_pdf, text_lines

    built = pages_pdf(
        tmp_path / "built.pdf",
        [text_lines(72.0, 14.0, 10.0, ["Granite samples from the Murgul district"]),
         text_lines(72.0, 14.0, 10.0, ["Kuroko-type massive sulphide ores"])],
    )  # fmt: skip
    writer = PdfWriter(clone_from=PdfReader(built))
    fonts = writer.pages[1]["/Resources"]["/Font"]
    japanese = DictionaryObject(fonts["/F1"].get_object())
    japanese[NameObject("/Encoding")] = NameObject("/90msp-RKSJ-H")
    fonts[NameObject("/F1")] = writer._add_object(japanese)
    writer.write(tmp_path / "cmap.pdf")
    layer = text_layer(tmp_path / "cmap.pdf")
    assert layer.undecoded == [2] and "Granite samples" in layer.pages[0]

    debris = "䭵浴�şıⱋ楬瑡şıⱋ楬汩楲"
    pages = ["Granite samples from the Murgul district",
             f"Kuroko-type massive sulphide ores\n{debris} 艠芎芄芅芚芉芔ⵂ慺慬琠污瘠癥"]  # fmt: skip
    text = "Granite samples from the Murgul district. Kuroko-type massive sulphide ores."
    judged = measure_coverage(pages, text, undecoded=[2])
    assert judged.share == 1.0 and judged.level == "ok" and judged.page_shares == [1.0, 1.0]
    assert judged.unjudged_words == 2 and judged.undecoded_pages == [2] and judged.image_only_pages == []
    assert "2 words not judged: pypdf could not decode a font on pages 2" in judged.reason()
    assert judged.as_metadata()["coverage_unjudged_words"] == 2
    assert measure_coverage(pages, text).share == pytest.approx(10 / 12)  # not undecoded: lost

    lost = Paper(paper_id="p", source_file="p.pdf", sha256="0" * 64, title="Murgul",
                 sections=[Section(heading="Geology", paragraphs=[pages[0]], paragraph_pages=[1])])  # fmt: skip
    pages[1] = "Kuroko-type massive sulphide ores of the Murgul district\n" + pages[1].split("\n")[1]
    repaired, recovered = recover_lost_text(lost, pages, undecoded=[2])
    assert recovered == [2]
    (section,) = [s for s in repaired.sections if s.heading == RECOVERED_HEADING.format(page=2)]
    assert section.paragraphs == ["Kuroko-type massive sulphide ores of the Murgul district"]
