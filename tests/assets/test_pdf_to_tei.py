"""The embedded PDF → TEI converter on real PDFs, compared with GROBID's TEI for the same files.

Each PDF is converted once per session (module-scoped fixture); the three chosen are small:
two with GROBID output to compare against, one geochronology paper for notation.
"""

from __future__ import annotations

import re
from pathlib import Path

import pdfplumber
import pytest
from lxml import etree
from PIL import Image
from pypdf import PdfWriter
from rapidfuzz import fuzz

from geo_assets.ingest.pdf import EMBEDDED_PRODUCER, EMBEDDED_VERSION, pdf_to_tei
from geo_assets.ingest.pdf.hyphenation import join_lines
from geo_assets.ingest.tei import TEI_NS, tei_to_paper
from geo_rag_runtime.errors import PdfError
from geo_rag_runtime.models import Paper

pytestmark = pytest.mark.slow  # parses whole PDFs with the embedded parser

NS = {"t": TEI_NS}
GEOCHRON = "LiVermeesch2021_Geochronology_InverseIsochron_CCBY.pdf"
# embedded PDF -> GROBID TEI of the same PDF
WITH_GROBID = {
    "N18-3011": "N18-3011.grobid-0.6.1",
    "DeMarchis2016_JNER_0046d83a": "DeMarchis2016_JNER_0046d83a.grobid-0.6.1",
}


@pytest.fixture(scope="module")
def teis(sample_papers: Path, grobid_samples: Path) -> dict[str, str]:
    paths = {stem: grobid_samples / f"{stem}.pdf" for stem in WITH_GROBID}
    paths[GEOCHRON] = sample_papers / GEOCHRON
    return {name: pdf_to_tei(path) for name, path in paths.items()}


@pytest.fixture(scope="module")
def papers(teis: dict[str, str]) -> dict[str, Paper]:
    return {
        name: tei_to_paper(tei, paper_id="p", source_file=name, sha256="0" * 64) for name, tei in teis.items()
    }


def _body(paper: Paper) -> str:
    return " ".join(p for s in paper.sections for p in s.paragraphs)


def _norm(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", " ", text.lower()).strip()


def test_output_is_grobid_shaped_tei(teis: dict[str, str]) -> None:
    root = etree.fromstring(teis["N18-3011"].encode())
    assert root.tag == f"{{{TEI_NS}}}TEI"
    assert root.findtext("t:teiHeader/t:fileDesc/t:titleStmt/t:title", namespaces=NS) == (
        "Construction of the Literature Graph in Semantic Scholar"
    )
    apps = root.findall("t:teiHeader/t:encodingDesc/t:appInfo/t:application", NS)
    assert [(a.get("ident"), a.get("version")) for a in apps] == [
        (EMBEDDED_PRODUCER, EMBEDDED_VERSION),
        ("pdfplumber", pdfplumber.__version__),
    ]
    persons = root.findall(
        "t:teiHeader/t:fileDesc/t:sourceDesc/t:biblStruct/t:analytic/t:author/t:persName", NS
    )
    assert persons and persons[0].findtext("t:surname", namespaces=NS) == "Ammar"
    assert root.find("t:teiHeader/t:profileDesc/t:abstract/t:div/t:p", NS) is not None
    heads = root.findall("t:text/t:body/t:div/t:head", NS)
    assert heads[0].text == "Introduction" and heads[0].get("n") == "1"
    assert root.find("t:text/t:body/t:figure/t:figDesc", NS) is not None
    assert root.find("t:text/t:body/t:figure[@type='table']/t:head", NS) is not None
    entries = root.findall("t:text/t:back/t:div[@type='references']/t:listBibl/t:biblStruct", NS)
    assert len(entries) == 27
    assert all(e.find("t:note[@type='raw_reference']", NS) is not None for e in entries)


@pytest.mark.parametrize("stem", sorted(WITH_GROBID))
def test_close_to_grobid_on_the_same_pdf(stem: str, papers: dict[str, Paper], grobid_samples: Path) -> None:
    """Measured (embedded vs GROBID 0.6.1): N18-3011 heads 12/12 of GROBID's, paragraphs 66 vs 69,
    references 27 vs 27; DeMarchis heads 20/20, paragraphs 41 vs 43, references 49 vs 49."""
    ours = papers[stem]
    grobid_tei = grobid_samples / f"{WITH_GROBID[stem]}.tei.xml"
    grobid = tei_to_paper(grobid_tei.read_bytes(), paper_id="g", source_file=grobid_tei.name, sha256="0" * 64)
    assert ours.title == grobid.title
    assert fuzz.ratio(ours.abstract, grobid.abstract) >= 90
    our_heads = [_norm(s.heading) for s in ours.sections]
    grobid_heads = [
        _norm(s.heading) for s in grobid.sections if s.heading and s.heading != "Acknowledgements"
    ]
    found = [h for h in grobid_heads if any(fuzz.ratio(h, mine) >= 90 for mine in our_heads)]
    assert len(found) >= 0.9 * len(grobid_heads)
    our_paragraphs = sum(len(s.paragraphs) for s in ours.sections)
    grobid_paragraphs = sum(len(s.paragraphs) for s in grobid.sections)
    assert abs(our_paragraphs - grobid_paragraphs) <= 0.2 * grobid_paragraphs
    assert len(ours.references) == len(grobid.references)
    assert 0.85 <= len(_body(ours)) / len(_body(grobid)) <= 1.15


def test_two_columns_are_read_column_by_column(papers: dict[str, Paper]) -> None:
    text = _body(papers["N18-3011"])
    # a sentence over five lines of the left column, and one across the column break
    assert (
        "The goal of this work is to facilitate algorithmic discovery in the scientific literature." in text
    )
    assert (
        "(e.g., Xiong et al., 2017). We describe methods used in a scalable deployed production system"
        in text
    )


def test_running_heads_page_numbers_and_front_matter_are_dropped(papers: dict[str, Paper]) -> None:
    demarchis = _body(papers["DeMarchis2016_JNER_0046d83a"])
    assert "Page 2 of 9" not in demarchis
    assert "Journal of NeuroEngineering and Rehabilitation (2016) 13:22" not in demarchis
    assert "Creative Commons" not in demarchis  # licence footnote of page 1
    geochron = _body(papers[GEOCHRON])
    assert "gchron-3-415-2021" not in geochron  # footer DOI of every page
    assert "Geochronology, 3, 415" not in geochron


def test_geochemical_notation_survives(papers: dict[str, Paper]) -> None:
    paper = papers[GEOCHRON]
    assert (
        paper.title
        == "Short communication: Inverse isochron regression for Re–Os, K–Ca and other chronometers"
    )
    text = paper.abstract + " " + _body(paper)
    for notation in ("187Os/188Os", "187Re/188Os", "Re–Os", "K–Ca"):
        assert notation in text
    assert "187 Os" not in text and "Re– Os" not in text
    assert any("Re-Os-He" in (r.raw or "") for r in paper.references)  # a hyphen at no line end


def test_sections_keep_numbers_and_back_matter(papers: dict[str, Paper]) -> None:
    heads = [(s.number, s.heading) for s in papers["N18-3011"].sections]
    assert ("2.1", "Node Types") in heads and ("6", "Conclusion and Future Work") in heads
    demarchis = [s.heading for s in papers["DeMarchis2016_JNER_0046d83a"].sections]
    assert demarchis[:3] == ["Background", "Methods", "Participants"]
    assert "Scanning the array and selecting the optimal stimulation patterns" in demarchis  # wrapped head
    assert {"Competing interests", "Acknowledgements"} <= set(demarchis)
    assert papers["DeMarchis2016_JNER_0046d83a"].keywords[-1] == "Neurorehabilitation"


def test_captions_and_references(papers: dict[str, Paper]) -> None:
    captions = {c.label: c for c in papers["N18-3011"].captions}
    assert captions["Figure 1"].text.startswith("Part of the literature graph")
    assert captions["Table 1"].kind == "table"
    refs = papers["DeMarchis2016_JNER_0046d83a"].references
    assert refs[0].raw and refs[0].raw.startswith("1. Quandt F, Hummel FC. The influence of functional")
    assert refs[0].doi == "10.1186/2040-7378-6-9" and refs[0].year == "2014"
    assert refs[-1].raw and refs[-1].raw.startswith("49.")
    assert papers["N18-3011"].references[0].title == (
        "The ai2 system at semeval-2017 task 10 (scienceie): semi-supervised end-to-end entity and "
        "relation extraction"
    )


_BOX = r"\d+,\d+\.\d\d,\d+\.\d\d,\d+\.\d\d,\d+\.\d\d"
COORDS = re.compile(rf"{_BOX}(?:;{_BOX})*")


def test_paragraphs_heads_and_captions_carry_grobid_coords(teis: dict[str, str]) -> None:
    root = etree.fromstring(teis[GEOCHRON].encode())
    elements = (
        root.findall("t:teiHeader/t:profileDesc/t:abstract/t:div/t:p", NS)
        + root.findall("t:text//t:div/t:p", NS)
        + root.findall("t:text//t:div/t:head", NS)
        + root.findall("t:text/t:body/t:figure", NS)
    )
    assert len(elements) > 50
    for element in elements:
        assert COORDS.fullmatch(element.get("coords") or ""), etree.tostring(element)[:120]
    # GROBID's order and format: the page, then x, y (from the top), width, height in points
    page, x, y, width, height = (float(v) for v in elements[0].get("coords", "").split(";")[0].split(","))
    assert page == 1 and 0 < x < 612 and 0 < y < 792 and width > 100 and height > 0


def test_pages_of_paragraphs_abstract_and_captions(
    papers: dict[str, Paper], teis: dict[str, str], sample_papers: Path
) -> None:
    paper = papers[GEOCHRON]

    def squash(text: str) -> str:  # pdfplumber's page text sometimes runs words together
        return re.sub(r"[^a-z0-9]+", "", text.lower())

    with pdfplumber.open(sample_papers / GEOCHRON) as pdf:
        page_texts = [squash(page.extract_text() or "") for page in pdf.pages]
    body_divs = len(etree.fromstring(teis[GEOCHRON].encode()).findall("t:text/t:body/t:div", NS))
    body = paper.sections[:body_divs]
    assert body_divs >= 6 and all(len(s.paragraph_pages) == len(s.paragraphs) for s in paper.sections)
    pages = [page for section in body for page in section.paragraph_pages]
    assert all(page is not None and 1 <= page <= len(page_texts) for page in pages)
    assert pages == sorted(pages)  # non-decreasing in reading order
    assert pages[0] == 1 and pages[-1] == 5
    assert paper.abstract_page == 1
    assert squash(" ".join(paper.abstract.split()[:7])) in page_texts[0]

    def printed_on(text: str) -> list[int]:
        return [number for number, page in enumerate(page_texts, start=1) if squash(text) in page]

    # paragraphs picked by their text: the page of the paragraph is where pdfplumber finds it
    for opening in (
        "In the case of K–Ca dating, the inverse approach",
        "The logarithmic transformation is necessary",
        "As an example, consider the Re–Os dataset of Morelli",
    ):
        section, index = next(
            (s, i) for s in paper.sections for i, p in enumerate(s.paragraphs) if p.startswith(opening)
        )
        assert printed_on(opening) == [section.paragraph_pages[index]]
    assert [c.page for c in paper.captions] == [2, 4, 5]
    for caption in paper.captions:
        assert caption.page in printed_on(caption.text[:50])


@pytest.mark.parametrize(
    ("lines", "joined"),
    [
        (["zircon geochro-", "nology is used"], "zircon geochronology is used"),
        (["the U-", "Pb system"], "the U-Pb system"),
        (["the Re–", "Os isochron"], "the Re–Os isochron"),
        (["87Sr/", "86Sr ratios"], "87Sr/86Sr ratios"),
        (["a well-", "known method"], "a well-known method"),  # the text writes "well-known" elsewhere
        # a head in capitals: joined where the text writes the word, kept where it does not
        (["THE IMPORTANCE OF BE-", "ING INCLUSION-FREE"], "THE IMPORTANCE OF BEING INCLUSION-FREE"),
        (["ZIRCON U-", "PB AGES"], "ZIRCON U-PB AGES"),
        (
            ["see https://doi.org/10.5194/gchron-3-", "415-2021, 2021."],
            "see https://doi.org/10.5194/gchron-3-415-2021, 2021.",
        ),
    ],
)
def test_line_end_hyphens(lines: list[str], joined: str) -> None:
    vocab = {"geochronology", "zircon", "method", "being"}
    hyphenated = {"well-known"}
    assert join_lines(lines, vocab, hyphenated, refs=True) == joined


def test_wrapped_doi_in_references_is_rejoined() -> None:
    assert join_lines(
        ["https://doi.org/10.1016/j.chemgeo.", "2019.01.021, 2019."], set(), set(), refs=True
    ) == ("https://doi.org/10.1016/j.chemgeo.2019.01.021, 2019.")


def test_image_only_and_non_pdf_inputs(tmp_path: Path) -> None:
    scan = tmp_path / "scan.pdf"
    Image.new("L", (300, 400), color=255).save(scan)
    with pytest.raises(PdfError, match=r"scan\.pdf: no text layer; OCR is not supported"):
        pdf_to_tei(scan)
    fake = tmp_path / "fake.pdf"
    fake.write_text("<html><body>not a pdf</body></html>")
    with pytest.raises(PdfError, match=r"fake\.pdf"):
        pdf_to_tei(fake)
    writer = PdfWriter()
    writer.add_blank_page(width=200, height=200)
    writer.encrypt(user_password="secret", owner_password="owner", algorithm="AES-128")
    locked = tmp_path / "locked.pdf"
    with open(locked, "wb") as handle:
        writer.write(handle)
    with pytest.raises(PdfError, match=r"locked\.pdf: cannot be opened"):
        pdf_to_tei(locked)


def test_a_data_supplement_keeps_its_methods_text(tmp_path: Path) -> None:
    """A data supplement: a page of methods text with no known section head ("Text S1"), then
    pages of tables set small. Its tables print more characters than its prose, so the body font is
    the prose's (read outside the tables), and the methods text past page 1 is the body, not front
    matter that never ends."""
    from tests.assets.paper_builders import pages_pdf, text_lines

    prose = (
        "Zircon grains were separated by standard density and magnetic methods and annealed at",
        "900 C for 60 hours before chemical abrasion in concentrated HF at 210 C for 12 hours.",
        "Each grain was spiked with the EARTHTIME 205Pb-233U-235U tracer and dissolved in HF.",
        "Lead and uranium were loaded on single rhenium filaments with a silica gel emitter and",
        "measured on an Isotopx Phoenix mass spectrometer in dynamic Daly mode for lead isotopes.",
    )
    first = [(70.0, 14.0, [(72.0, "Supporting Information for the Duluth Complex paper")]),
             (110.0, 11.0, [(72.0, "Text S1. U-Pb geochronology")]),
             *text_lines(130.0, 13, 11.0, prose)]  # fmt: skip
    more = (
        "Apatite grains were picked from the same separates and mounted in epoxy for laser ablation",
        "analysis, with Madagascar apatite as the primary reference material and McClure Mountain",
        "apatite as the secondary one; common lead was corrected with the Stacey and Kramers model.",
    )
    second = text_lines(72.0, 13, 11.0, more)
    xs = (72, 130, 190, 250, 310, 370, 430, 490)
    table = [(70.0, 8.0, [(72.0, "Table S1. Zircon U-Pb isotopic data")]),
             (84.0, 5.0, list(zip(xs, ("Grain", "Th/U", "Pb*/Pbc", "206Pb/204Pb", "207Pb/235U", "206Pb/238U",
                                       "206Pb/238U age", "2s"), strict=True)))]  # fmt: skip
    for i in range(90):
        cells = (f"z{i + 1}", "0.665", "599", "34763", "1.94565", "0.185393", f"{1096 + i / 100:.2f}", "0.45")
        table.append((92.0 + 7 * i, 5.0, list(zip(xs, cells, strict=True))))
    tei = pdf_to_tei(pages_pdf(tmp_path / "supplement.pdf", [first, second, table]))
    root = etree.fromstring(tei.encode())
    body = " ".join(root.find(".//t:body", NS).itertext())
    assert "Apatite grains were picked" in body and "EARTHTIME" in body  # the methods text is the body
    (grid,) = root.findall(".//t:figure[@type='table']", NS)
    assert len(grid.findall(".//t:row", NS)) == 91  # the header and 90 analyses


def test_a_long_reference_list_set_small_does_not_make_the_text_a_footnote(tmp_path: Path) -> None:
    """A letter journal's layout: 9 pt text over two pages, then a reference list set in 7 pt that
    prints more characters than the text. The body font is the text's, measured before the
    reference list's head, so the text is the body."""
    from tests.assets.paper_builders import pages_pdf, text_lines

    text = [
        "Paleomagnetic data from Late Carboniferous limestones of the North Qiangtang Block give a",
        "paleolatitude of about 20 degrees south, placing the block between two ocean branches of the",
        "Paleo-Tethys; a stable characteristic remanence carried by magnetite passes the fold test.",
        "Site mean directions were averaged after tilt correction and compared with coeval poles.",
    ]
    first = [(60.0, 14.0, [(72.0, "A multibranched Paleo-Tethys Ocean")]),
             (100.0, 11.0, [(72.0, "1. Introduction")]),
             *text_lines(120.0, 12, 9.0, text)]  # fmt: skip
    second = text_lines(72.0, 12, 9.0, [line.replace("Paleo", "Meso") for line in text])
    second += [(130.0, 11.0, [(72.0, "References")])]
    refs = [
        (150.0 + 9 * i, 7.0, [(72.0, f"Author{i}, A., and Coauthor, B. ({1990 + i % 30}). A paleomagnetic study of "
                                     f"Permian rocks of block {i}. Journal of Geophysical Research, {i}, 1-20.")])
        for i in range(60)
    ]  # fmt: skip
    tei = pdf_to_tei(pages_pdf(tmp_path / "letter.pdf", [first, second + refs]))
    root = etree.fromstring(tei.encode())
    body = " ".join(root.find(".//t:body", NS).itertext())
    assert "placing the block between two ocean branches" in body and "Meso-Tethys" in body
    assert "Author10" not in body and "Author10" in " ".join(root.find(".//t:back", NS).itertext())


def test_a_manuscripts_line_numbers_are_no_text(tmp_path: Path) -> None:
    """A review manuscript numbers its lines in the margin, small. The numbers are left out: a word
    broken at a line end joins again ("po-" + "tential"), a head keeps its own number ("1 Introduction",
    not "8 1 Introduction"), and no number lands in a sentence ("a standard deviation of 17 0.5"). A
    notebook's index, counting down its rows in the text's own type, stays."""
    from tests.assets.paper_builders import pages_pdf

    text = [
        "We estimate the mantle potential temperature of the Basin and Range sample UT09DV04 with a",
        "Monte Carlo approach: the equilibration pressures and temperatures are drawn from normal",
        "distributions, and the olivine forsterite content has a mean of 90 and a standard deviation of",
        "0.5 in every draw. Two thirds of the estimates lie within melting paths with po-",
        "tential temperatures of 1350 C, close to the value obtained with the preferred parameters,",
        "and the equilibration pressures of the suite are close to those of the single sample.",
        "The distribution of estimates is skewed towards higher temperatures, as expected when some",
        "estimates fall below the solidus and cannot be used to estimate a potential temperature.",
    ]
    page = [(60.0, 14.0, [(72.0, "Supplementary Materials: mantle potential temperatures")]),
            (100.0, 12.0, [(72.0, "1 Introduction")])]  # fmt: skip
    numbered = [(100.0, "7"), *((120.0 + 12 * i, str(8 + i)) for i in range(len(text)))]
    for top, number in numbered:  # right-aligned at x = 60, 6 pt Helvetica digits are 3.336 pt wide
        page.append((top, 6.0, [(60.0 - 3.336 * len(number), number)]))
    page += [(120.0 + 12 * i, 10.0, [(72.0, line)]) for i, line in enumerate(text)]
    notebook = [(70.0, 10.0, [(72.0, "Out[8]: the DataFrame of the test cases")])]
    for i in range(10):
        notebook.append((90.0 + 12 * i, 10.0, [(72.0, str(i)), (100.0, f"sample {i} gives 1350 C in bulk")]))
    tei = pdf_to_tei(pages_pdf(tmp_path / "manuscript.pdf", [page, notebook]))
    root = etree.fromstring(tei.encode())
    body = " ".join(" ".join(root.find(".//t:body", NS).itertext()).split())
    assert "melting paths with potential temperatures of 1350 C" in body
    assert "a standard deviation of 0.5 in every draw" in body
    assert not re.search(r"\b(?:9|1[0-5]) [a-z]", body.split("Out[8]")[0]), body
    heads = [(h.get("n"), h.text) for h in root.iter(f"{{{TEI_NS}}}head") if h.text == "Introduction"]
    assert heads == [("1", "Introduction")]
    assert "in bulk 1 sample 1 gives" in body  # the index stays


def test_a_bold_table_label_on_its_own_line_keeps_the_title_below_it(tmp_path: Path) -> None:
    """AGU and Wiley set "Table 1" in bold on a line of its own and the title below it in another
    style; the title is the caption (it names the table's sample and unit), and the table's header
    line a line and more below is not."""
    from tests.assets.paper_builders import pages_pdf, text_lines

    prose = [
        "Zircon inclusions were mapped by SEM and EDS in the garnet schist, and their host minerals were",
        "counted by area; the abundances of the whole rock and of the zircon inclusions are compared.",
    ]
    page = [(60.0, 14.0, [(72.0, "Petrochronology by laser ablation")]),
            (100.0, 12.0, [(72.0, "1. Results")]),
            *text_lines(120.0, 12, 9.0, prose),
            (160.0, 8.0, [(72.0, "**Table 1")]),
            (170.0, 8.0, [(72.0, "Relative Abundances (in Area Percent) of the Minerals in Metamorphic")]),
            (180.0, 8.0, [(72.0, "Sample D21G-2")]),
            (198.0, 8.0, [(72.0, "Mineral"), (160.0, "Whole rock"), (240.0, "Zircon")])]  # fmt: skip
    for i, (mineral, rock, zircon) in enumerate((("Feldspar", "14.1", "2.5"), ("Garnet", "2.4", "20"),
                                                 ("Mica", "24", "55"), ("Quartz", "55", "12"))):  # fmt: skip
        page.append((210.0 + 10 * i, 8.0, [(72.0, mineral), (160.0, rock), (240.0, zircon)]))
    tei = pdf_to_tei(pages_pdf(tmp_path / "agu.pdf", [page]))
    root = etree.fromstring(tei.encode())
    (table,) = root.findall(".//t:figure[@type='table']", NS)
    caption = " ".join(table.find("t:figDesc", NS).itertext())
    assert caption.startswith("Relative Abundances (in Area Percent)") and caption.endswith("Sample D21G-2")
    assert "Whole rock" not in caption


def _parsed(pdf: Path) -> Paper:
    """A PDF built by the test, through the embedded parser and the TEI reader."""
    return tei_to_paper(pdf_to_tei(pdf), paper_id=pdf.stem, source_file=pdf.name, sha256="0" * 64)


def test_a_wrapped_byline_gives_whole_names_and_no_body_text(tmp_path: Path) -> None:
    """A byline that wraps inside a name ("…, and Maria" / "T. Lopez1"), opens with "By" (a survey
    report) and is followed by a report series and a title-case first line of text: the authors are
    the three people, whole, and the wrapped part of the byline is not body text. Before, "Maria"
    was lost, "By" was a forename, "Open-File Report" and the text's first line were authors, and
    "T. Lopez1" became a section heading of the body."""
    from tests.assets.paper_builders import pages_pdf, text_lines

    body = [
        "The Summit Lava Flows of the volcano erupted over two centuries, and their compositions record",
        "the rise of the magma through the crust. We report 42 new analyses of the lavas and discuss how",
        "the melts evolved on their way to the surface, from olivine basalt to dacite, with time.",
    ]
    page = [
        (72.0, 16.0, [(72.0, "Compositions of the Summit Lava Flows")]),
        (100.0, 10.0, [(72.0, "By Jane Q. Public1, Rafael Guerra Roel2, and Maria")]),
        (113.0, 10.0, [(72.0, "T. Lopez1")]),
        (130.0, 10.0, [(72.0, "Open-File Report 2026-1001")]),
        (160.0, 10.0, [(72.0, "**Abstract")]),
        *text_lines(176.0, 13.0, 10.0, body),
        (230.0, 10.0, [(72.0, "**1 Introduction")]),
        *text_lines(246.0, 13.0, 10.0, body[::-1]),
    ]
    paper = _parsed(pages_pdf(tmp_path / "byline.pdf", [page]))
    assert [a.name for a in paper.authors] == ["Jane Q. Public", "Rafael Guerra Roel", "Maria T. Lopez"]
    assert not any("Lopez" in s.heading or any("Lopez" in p for p in s.paragraphs) for s in paper.sections)


def test_a_small_caps_byline_and_a_copyright_year_whose_glyph_is_lost(tmp_path: Path) -> None:
    """Springer sets the byline in small caps below the body size ("AMY WILLIAMSON1 and RICHARD M.
    ALLEN1") and its © glyph has no text ("2023 The Author(s)"): the authors are read, in title case,
    and the year. A manual's imprint page names its authors on a labelled line ("Author: Summons,
    N. & Arthur, C."). Before, all three papers of the benchmark that print these had no authors."""
    from tests.assets.paper_builders import pages_pdf, text_lines

    text = ["Warnings reach the coast within minutes of an earthquake, and the first alert decides what",
            "communities do; we compare three algorithms on twelve past events and their arrival times."]  # fmt: skip
    page = [
        (60.0, 8.0, [(72.0, "Pure Appl. Geophys. 2023 The Author(s)")]),
        (100.0, 16.0, [(72.0, "Faster Tsunami Warnings for Coastal Communities")]),
        (124.0, 7.0, [(72.0, "JANE Q. PUBLIC1 and RICHARD M. ALLEN2")]),
        (150.0, 10.0, [(72.0, "**Abstract")]),
        *text_lines(166.0, 13.0, 10.0, text),
    ]
    paper = _parsed(pages_pdf(tmp_path / "caps.pdf", [page]))
    assert [a.name for a in paper.authors] == ["Jane Q. Public", "Richard M. Allen"] and paper.year == "2023"
    imprint = [
        (100.0, 16.0, [(72.0, "Storm Surge Model User Guide")]),
        (130.0, 10.0, [(72.0, "Version number: 1.0")]),
        (143.0, 10.0, [(72.0, "Author: Summons, N. & Arthur, C. J.")]),
        *text_lines(170.0, 13.0, 10.0, text),
    ]
    paper = _parsed(pages_pdf(tmp_path / "imprint.pdf", [imprint]))
    assert [a.name for a in paper.authors] == ["N. Summons", "C. J. Arthur"]
    # a cover set as an image leaves no title on page 1: the PDF's metadata title names the work,
    # unless it is a file name
    from pypdf import PdfReader

    cover = [(130.0, 10.0, [(72.0, "Version number: 1.0")])]
    chapter = [(100.0, 10.0, [(72.0, "**1 Introduction")]), *text_lines(116.0, 13.0, 10.0, text * 3)]
    for meta_title, expected in (("Storm Surge Model User Guide", "Storm Surge Model User Guide"),
                                 ("Microsoft Word - guide_v3.docx", "")):  # fmt: skip
        writer = PdfWriter(clone_from=PdfReader(pages_pdf(tmp_path / "cover.pdf", [cover, chapter])))
        writer.add_metadata({"/Title": meta_title})
        with open(tmp_path / "titled.pdf", "wb") as out:
            writer.write(out)
        paper = _parsed(tmp_path / "titled.pdf")
        assert paper.title == expected


# running text for the built pages of the front-matter tests (three lines of a methods paragraph)
STRAIN_TEXT = ["Strain determination using populations of deformed objects is a useful technique for the",
               "processes of deformation of the crust, and we measured it in 84 rock samples of two belts",
               "with different proportions of matrix, so that the methods can be compared with each other."]  # fmt: skip


def test_a_chapter_s_title_barely_larger_than_its_text_and_its_address_blocks(tmp_path: Path) -> None:
    """A book chapter's manuscript (Springer's LaTeX template): the title is bold at 12 pt over
    10.95 pt text, each author's name is printed again above an address block with an e-mail, and the
    abstract, 10 pt under its own head, is on page 2. Before, the paper had no title and no authors,
    the address blocks were its abstract and the real abstract was lost."""
    from tests.assets.paper_builders import pages_pdf, text_lines

    text = ["One century after the discovery of the fossil, its age remains unknown because the cave",
            "deposits lack the volcanic marker beds that date the eastern African sites so well, and",
            "the carbonates that could be dated need a correction for initial disequilibrium."]  # fmt: skip
    page1 = [
        (73.0, 12.0, [(72.0, "**Geochronology of Cave Deposits and Their Fossils")]),
        (119.0, 10.95, [(72.0, "Jane Q. Public and Rafael Guerra Roel")]),
        (198.0, 10.95, [(72.0, "Jane Q. Public")]),
        (215.0, 10.95, [(72.0, "University College London, Gower Street")]),
        (231.0, 10.95, [(72.0, "London WC1E 6BT")]),
        (248.0, 10.95, [(72.0, "j.public@example.ac.uk")]),
        (270.0, 10.95, [(72.0, "Rafael Guerra Roel")]),
        (287.0, 10.95, [(72.0, "Birkbeck, University of London, Malet Street")]),
        (303.0, 10.95, [(72.0, "London WC1E 7HX")]),
        (320.0, 10.95, [(72.0, "r.guerra@example.ac.uk")]),
        (543.0, 10.95, [(72.0, "**Keywords")]),
        (565.0, 10.95, [(72.0, "geochronology, stratigraphy, isotopes, U-Pb, disequilibrium")]),
    ]
    page2 = [
        (75.0, 10.0, [(72.0, "**Abstract")]),
        *text_lines(91.0, 14.0, 10.0, text),
        (160.0, 14.3, [(72.0, "**1 Introduction")]),
        *text_lines(190.0, 15.0, 10.95, text[::-1] * 3),
    ]
    paper = _parsed(pages_pdf(tmp_path / "chapter.pdf", [page1, page2]))
    assert paper.title == "Geochronology of Cave Deposits and Their Fossils"
    assert [a.name for a in paper.authors] == ["Jane Q. Public", "Rafael Guerra Roel"]
    assert paper.abstract.startswith("One century after the discovery"), paper.abstract
    assert "@" not in paper.abstract


def test_a_publisher_s_cover_notice_and_journal_banner_are_not_the_paper_s_front_matter(
    tmp_path: Path,
) -> None:
    """Elsevier's author copy opens with a notice page ("This article appeared in a journal published
    by Elsevier. The attached copy is furnished to the author …"), and the paper's page sets the
    journal's name in its banner larger than the title. Before, such a paper had no title, no authors
    and no year (front matter was read from the notice), and with the notice skipped the banner was
    the title."""
    from tests.assets.paper_builders import pages_pdf, text_lines

    notice = [
        "This article appeared in a journal published by Elsevier. The attached",
        "copy is furnished to the author for internal non-commercial research",
        "and education use, including for instruction at the authors institution",
        "and sharing with colleagues. Other uses are prohibited.",
    ]
    text = STRAIN_TEXT
    cover = text_lines(517.0, 14.0, 10.9, [f"**{line}" for line in notice])
    first = [
        (72.0, 6.4, [(218.0, "Journal of Testing Geology 31 (2009) 1586-1596")]),
        (97.0, 8.0, [(217.0, "Contents lists available at ScienceDirect")]),
        (125.0, 14.0, [(190.0, "Journal of Testing Geology")]),
        (153.0, 8.0, [(181.0, "journal homepage: www.elsevier.com/locate/jtg")]),
        (202.0, 13.5, [(33.0, "Factors affecting finite strain estimation in clastic rocks")]),
        (225.0, 10.6, [(33.0, "Daniel Pastor-Galan, Patrick A. Meere")]),
        (245.0, 6.4, [(33.0, "a Departamento de Geologia, Universidad de Salamanca, Spain")]),
        (300.0, 7.2, [(33.0, "Accepted 9 August 2009")]),
        (330.0, 8.0, [(33.0, "**1. Introduction")]),
        *text_lines(346.0, 10.0, 8.0, text * 4, x=33.0),
    ]
    paper = _parsed(pages_pdf(tmp_path / "copy.pdf", [cover, first]))
    assert paper.title == "Factors affecting finite strain estimation in clastic rocks"
    assert [a.name for a in paper.authors] == ["Daniel Pastor-Galan", "Patrick A. Meere"]
    assert paper.year == "2009"
    assert not any("furnished" in p for s in paper.sections for p in s.paragraphs)


def test_an_elsevier_abstract_beside_its_article_info_box_is_read_whole(tmp_path: Path) -> None:
    """Elsevier sets the abstract beside an article-info box (history, keywords) under letter-spaced
    heads ("A R T I C L E  I N F O", "A B S T R A C T"), and the two are read line by line across each
    other. Before, the "A" of "A B S T R A C T" was taken for an appendix number, and "Article
    history:" or "Keywords:" between two of the abstract's lines ended it: the rest of the abstract
    (a third to two thirds of it in 14 of 35 Elsevier papers) was in no part of the text; the
    copyright line under it was read as its last sentence."""
    from tests.assets.paper_builders import pages_pdf

    abstract = ["Oroclines are the largest scale folds on Earth, and the process of their formation",
                "is a key topic in tectonics. Most studies of oroclines have focused on the hinge areas, where",
                "the changes in strike are most obvious. In this paper, we investigate the deformation of",
                "the southern limb of the Cantabrian orocline. Our study reveals that an out-of-sequence",
                "thrust system reactivated existing structures by a flexural-slip mechanism. Joint analysis",
                "gives a late Moscovian age for oroclinal initiation (ca. 308 Ma), at least locally, and",
                "a minimum of 40 degrees of counterclockwise vertical axis rotation for the unit."]  # fmt: skip
    box = ["Article history:", "Received 10 October 2013", "Received in revised form", "6 February 2014",
           "Keywords:", "Orocline", "Joint analysis"]  # fmt: skip
    page: list[tuple[float, float, list[tuple[float, str]]]] = [
        (60.0, 8.0, [(217.0, "Contents lists available at ScienceDirect")]),
        (80.0, 14.0, [(230.0, "Tectonophysics")]),
        (120.0, 13.5, [(33.0, "Timing and structural evolution in the limb of an orocline")]),
        (145.0, 10.6, [(33.0, "Daniel Pastor-Galan, German Martin-Merino")]),
        (180.0, 9.0, [(33.0, "A R T I C L E   I N F O"), (198.0, "A B S T R A C T")]),
    ]
    for index, line in enumerate(abstract):
        page.append((200.0 + 9.6 * index, 7.2, [(198.0, line)]))
    for index, line in enumerate(box):
        page.append((204.0 + 9.6 * index, 6.4, [(33.0, line)]))
    page += [
        (272.0, 7.2, [(400.0, "\u00a9 2014 Elsevier B.V. All rights reserved.")]),
        (300.0, 8.0, [(33.0, "**1. Introduction")]),
    ]
    words = " ".join(STRAIN_TEXT * 6).split()
    body = [" ".join(words[i : i + 9]) for i in range(0, len(words), 9)]  # two columns of text
    for x, half in ((33.0, body[: len(body) // 2]), (310.0, body[len(body) // 2 :])):
        page += [(316.0 + 10.0 * i, 8.0, [(x, line)]) for i, line in enumerate(half)]
    paper = _parsed(pages_pdf(tmp_path / "elsevier.pdf", [page]))
    assert paper.abstract == " ".join(abstract), paper.abstract
    assert paper.sections[0].heading == "Introduction"


def test_a_plain_table_caption_alone_on_its_line_and_rows_with_dashes_keep_their_cells(
    tmp_path: Path,
) -> None:
    """A whole-rock table under a plain "Table 9" alone on its line (not bold, no smaller type, its
    title on the next line: no caption to the line parser), with rows whose unmeasured values print
    as "n.d." or dashes. Before, once the word reader knew the caption, the table had no caption entry and its
    cells were in no part of the TEI; and a row with three dashes ("— — —") was no data line, so it was read as
    a section row naming "GR50d", whose sample the next rows took (GR50e's values stored as GR50d's)."""
    from tests.assets.paper_builders import pages_pdf, text_lines

    x = [72.0, 125.0, 170.0, 215.0, 260.0, 305.0, 350.0, 395.0, 450.0]
    table = [["Sample", "TiO2", "MgO", "Ni", "Nb", "Nd", "Yb", "Affinity", "Comment"],
             ["GR47b", "1.41", "6.6", "81", "10.6", "12.3", "2.87", "MORB", ""],
             ["GR50d", "1.52", "5.69", "56", "n.d.", "n.d.", "n.d.", "IAB", "Mg loss?"],
             ["GR50e", "1.56", "5.6", "66", "9.38", "13.1", "3.31", "MORB", ""],
             ["GR51a", "1.18", "7.22", "104", "6.87", "9.5", "2.17", "IAB", ""]]  # fmt: skip
    page = [
        (60.0, 16.0, [(72.0, "Tectonic Discrimination of Basalts")]),
        (100.0, 10.0, [(72.0, "**1. Introduction")]),
        *text_lines(116.0, 13.0, 10.0, STRAIN_TEXT * 3),
        (250.0, 10.0, [(72.0, "Table 9")]),
        (263.0, 10.0, [(72.0, "Summary of geochemical analyses of Triassic basalts of the Pindos Basin")]),
        *[
            (285.0 + 13.0 * k, 9.0, [(a, t) for a, t in zip(x, row, strict=True) if t])
            for k, row in enumerate(table)
        ],
        *text_lines(380.0, 13.0, 10.0, STRAIN_TEXT * 3),
    ]
    paper = _parsed(pages_pdf(tmp_path / "table9.pdf", [page]))
    (caption,) = [c for c in paper.captions if c.label == "Table 9"]
    rows = [row[:8] for row in caption.rows]
    assert ["GR50d", "1.52", "5.69", "56", "n.d.", "n.d.", "n.d.", "IAB"] in rows
    assert ["GR50e", "1.56", "5.6", "66", "9.38", "13.1", "3.31", "MORB"] in rows


def test_a_three_column_page_is_read_column_by_column(tmp_path: Path) -> None:
    """GSA Bulletin and Geology set three columns. Before, one gutter was found and the two columns on
    its other side were read line by line across each other ("… dating (DeGraaff-Surpless et less than
    ~60 °C, apatite fission tracks are al., 2002)"), in the text, the chunks and the measurement rows."""
    from tests.assets.paper_builders import pages_pdf, text_lines

    columns = [
        ["Apatite fission tracks anneal at low", "temperature, and the partial annealing",
         "zone lies between sixty and one hundred", "and ten degrees in most sedimentary",
         "basins of the world we have studied."],
        ["Zircon crystals from the sandstones", "record older cooling ages than their",
         "apatite, because the closure of zircon", "to fission tracks is reached at two",
         "hundred and forty degrees or more."],
        ["The burial of the sequence reached", "three kilometres during the Miocene,",
         "which heated the rocks enough to reset", "the apatite ages of the deeper samples",
         "but left the zircon ages untouched."],
    ]  # fmt: skip
    page = [
        (60.0, 16.0, [(24.0, "Fission Tracks in a Three-Column Layout")]),
        (100.0, 9.0, [(24.0, "**INTRODUCTION")]),
    ]
    for x, lines in zip((24.0, 204.0, 384.0), columns, strict=True):
        for top in (120.0, 320.0, 520.0):  # three paragraphs a column, so the page has text enough
            page += text_lines(top, 11.0, 9.0, lines, x=x)
    paper = _parsed(pages_pdf(tmp_path / "three.pdf", [page]))
    text = " ".join(p for s in paper.sections for p in s.paragraphs)
    for lines in columns:
        assert " ".join(lines) in text, text[:600]


def test_an_abstract_sentence_read_in_pieces_is_one_paragraph(tmp_path: Path) -> None:
    """An abstract whose lines are read as separate blocks (a formula's glyphs widen one line's
    spacing; Elsevier's article-info box is read line by line between them) keeps its sentences
    whole: a piece that ends mid-sentence is joined to the next. Before, the abstract of two corpus
    papers was in pieces ("… since the early 20th" / "century, and encodes …")."""
    from tests.assets.paper_builders import pages_pdf, text_lines

    abstract = ["The concept of the magma series and the distinction between alkaline, calc-alkaline",
                "and tholeiitic trends has been a cornerstone in igneous petrology since the early 20th",
                "century, and encodes fundamental information about the redox state of the mantle."]  # fmt: skip
    body = STRAIN_TEXT
    page = [
        (80.0, 16.0, [(72.0, "Magma Series and Their Trends")]),
        (110.0, 10.0, [(72.0, "**Abstract")]),
        (126.0, 10.0, [(72.0, abstract[0])]),
        (139.0, 10.0, [(72.0, abstract[1])]),
        (161.0, 10.0, [(72.0, abstract[2])]),  # a wider gap: a block of its own
        (200.0, 10.0, [(72.0, "**1 Introduction")]),
        *text_lines(216.0, 13.0, 10.0, body * 4),
    ]
    paper = _parsed(pages_pdf(tmp_path / "pieces.pdf", [page]))
    assert paper.abstract == " ".join(abstract), paper.abstract


def test_symbols_an_elsevier_maths_font_names_wrongly_are_read_as_printed(tmp_path: Path) -> None:
    """Elsevier's Advent 3B2 typesetting sets "=", "+", "(", ")" in a maths font whose Unicode map
    names them "¼", "þ", "ð", "Þ", and its minus, "±" and degree sign with no Unicode at all (pdfminer
    reads "(cid:3)"). Before, the text read "410 (cid:5) 4 Ma (n ¼ 15)" → "410 4 Ma (n ¼ 15)", a
    negative temperature lost its sign and its unit, and the table's "−21.4" and "±0.3" cells were no
    numbers, so the rows had neither. Built as the journal's PDFs are: glyph names "C0", "C6", "C14"
    at codes of the subset's choosing, no ToUnicode map."""
    from geo_assets.measurements.table_values import extract_table_values
    from geo_assets.measurements.text_values import extract_text_values
    from tests.assets.paper_builders import symbol_font_pdf

    minus, plus_minus, degree, equals, plus = b"\x03", b"\x05", b"\x01", b"\xbc", b"\xfe"
    lines: list[tuple[float, list[tuple[float, list[str | bytes | tuple[str, str]]]]]] = [
        (72, [(72, ["Fluid inclusions of the Beja dykes"])]),
        (100, [(72, ["1. Results"])]),
        (112, [(72, ["Fifteen analyses of sample BD01 yield a weighted mean 206Pb/238U age of 410 ", plus_minus,
                     " 4 Ma (n ", equals, " 15)."])]),
        (124, [(72, ["The ice in the inclusions melts at ", minus, "21.4 ", degree, "C, and the reaction is 2H",
                     plus, " ", equals, " H2."])]),
        (136, [(72, ["The samples are quartz veins from the dyke swarm, listed in Table 1, with ln(A", ("slash", "="),
                     "F)."])]),
        (170, [(72, ["Table 1. Microthermometry of the fluid inclusions."])]),
        (184, [(72, ["Sample"]), (150, ["T (", degree, "C)"]), (230, ["2s"]), (310, ["Salinity (wt.%)"])]),
    ]  # fmt: skip
    for i, (t, u, salinity) in enumerate(
        [("21.4", "0.3", "23.2"), ("18.9", "0.4", "21.6"), ("2.5", "0.2", "4.2")]
    ):
        lines.append(
            (
                198 + 12 * i,
                [(72, [f"BD0{i + 1}"]), (150, [minus, t]), (230, [plus_minus, u]), (310, [salinity])],
            )
        )
    pdf = symbol_font_pdf(tmp_path / "advent.pdf", lines)
    paper = tei_to_paper(pdf_to_tei(pdf), paper_id="p", source_file=pdf.name, sha256="0" * 64)
    text = " ".join(p for s in paper.sections for p in s.paragraphs)
    assert "age of 410 ± 4 Ma (n = 15)" in text
    assert "melts at −21.4 °C, and the reaction is 2H+ = H2." in text
    assert "listed in Table 1, with ln(A/F)." in text
    assert "(cid:" not in text and "¼" not in text
    table = next(c for c in paper.captions if c.kind == "table")
    assert table.rows[0] == ["Sample", "T (°C)", "2s", "Salinity (wt.%)"]
    assert table.rows[1] == ["BD01", "−21.4", "±0.3", "23.2"]
    said = {(v.analyte, v.value, v.unit, v.uncertainty) for v in extract_text_values(text)}
    assert {("age", 410.0, "Ma", 4.0), ("T", -21.4, "°C", None)} <= said
    cells = {(v.row, v.analyte): v for v in extract_table_values(table.rows, table.text)}
    assert (cells["BD01", "T"].value, cells["BD01", "T"].unit, cells["BD01", "T"].uncertainty) == (
        -21.4,
        "°C",
        0.3,
    )
    assert cells["BD03", "T"].value == -2.5


# one line of an OCR text layer (a scanned 1982 Economic Geology paper, as pdfplumber reads it): each
# word is placed on the scanned image, so a word often starts left of the space glyph before it
_OCR_LINE = [
    ("T", 55.26, 61.2), ("H", 61.2, 68.22), ("E", 68.22, 74.7), (" ", 74.7, 77.4), ("p", 78.66, 84.6),
    ("o", 84.6, 90.54), ("s", 90.54, 95.94), ("s", 95.94, 101.35), ("i", 101.35, 104.05), ("b", 104.05, 109.99),
    ("l", 109.99, 112.69), ("e", 112.69, 118.09), (" ", 118.09, 120.8), ("r", 116.64, 120.42),
    ("e", 120.42, 125.83), ("l", 125.83, 128.53), ("a", 128.53, 133.93), ("t", 133.93, 137.17),
    ("i", 137.17, 139.87), ("o", 139.87, 145.81), ("n", 145.81, 151.75), ("s", 151.75, 157.15),
    ("h", 157.15, 163.09), ("i", 163.09, 165.79), ("p", 165.79, 171.73), (" ", 171.73, 174.44),
    ("b", 171.72, 177.66), ("e", 177.66, 183.06), ("t", 183.06, 186.3), ("w", 186.3, 193.86),
    ("e", 193.86, 199.27), ("e", 199.27, 204.67), ("n", 204.67, 210.61), (" ", 210.61, 213.31),
    ("t", 212.58, 215.82), ("h", 215.82, 221.76), ("e", 221.76, 227.16), (" ", 227.16, 229.86),
    ("p", 231.48, 237.42), ("r", 237.42, 241.2), ("e", 241.2, 246.6), ("s", 246.6, 252.01),
    ("e", 252.01, 257.41), ("n", 257.41, 263.35), ("c", 263.35, 268.76), ("e", 268.76, 274.16),
    (" ", 274.16, 276.86), ("o", 273.42, 279.36), ("r", 279.36, 283.14), (" ", 283.14, 285.84),
]  # fmt: skip


def test_an_ocr_text_layer_keeps_its_word_spaces() -> None:
    """Sorted by position, this line read "THE possiblerelationshipb etween the presenceo r"; its
    words follow each other in the stream, each after its space glyph."""
    from types import SimpleNamespace

    from geo_assets.ingest.pdf.lines import page_lines

    chars = [
        {"text": t, "x0": x0, "x1": x1, "top": 312.17, "bottom": 321.89, "size": 9.72,
         "fontname": "Helvetica-Bold", "upright": True}
        for t, x0, x1 in _OCR_LINE
    ]  # fmt: skip
    lines = page_lines(SimpleNamespace(chars=chars, width=576.0, height=758.0), 1)
    assert [line.text for line in lines] == ["THE possible relationship between the presence or"]


def test_a_bold_head_that_wraps_early_is_one_head_and_numbered_addresses_are_no_sections(
    tmp_path: Path,
) -> None:
    """Two layouts of papers nobody tuned the parser for. A bold section head wraps well before the
    text's edge, as bold words are wide ("4.3. Bayesian Credibility Bands for Smooth" / "Histograms"):
    before, its second line was a section of its own. The authors' addresses are numbered like heads
    ("1 Key Laboratory of Mineral Resources, …", GSA's layout): before, each opened a section and the
    abstract under them was read as body text. A bulleted list's items under each other stay apart."""
    from tests.assets.paper_builders import pages_pdf, text_lines

    # a narrow column, as in a two-column paper: the head's last word would not have fitted
    text = ["Zircon grains from the dacite were dated by laser ablation and",
            "give a weighted mean age indistinguishable from the tuff above,",
            "so the eruption and the deposition of the tuff were close in time",
            "and the lavas are tholeiitic basalts with flat REE patterns here."]  # fmt: skip
    page1 = [
        (72.0, 16.0, [(72.0, "**Microcontinents and Subduction")]),
        (100.0, 10.0, [(72.0, "Jane Q. Public and Rafael Guerra Roel")]),
        (118.0, 10.0, [(72.0, "**1 Key Laboratory of Mineral Resources, Beijing 100029, China")]),
        (132.0, 10.0, [(72.0, "**2 Department of Geodynamics, Universidad de Granada, Spain")]),
        (160.0, 10.0, [(72.0, "**ABSTRACT")]),
        *text_lines(176.0, 13.0, 10.0, text),
        (240.0, 10.0, [(72.0, "**1 INTRODUCTION")]),
        *text_lines(256.0, 13.0, 10.0, text[::-1] * 3),
        (420.0, 11.0, [(72.0, "**4.3. Bayesian Credibility Bands for Smooth")]),
        (433.0, 11.0, [(72.0, "**Histograms")]),
        *text_lines(452.0, 13.0, 10.0, text),
        (510.0, 11.0, [(72.0, "**5 PARENTLESS HELIUM: THE IMPORTANCE OF BE-")]),
        (523.0, 11.0, [(72.0, "**ING FREE OF INCLUSIONS")]),
        *text_lines(540.0, 13.0, 10.0, ["The grains being free of inclusions were dated one by one."]),
        (566.0, 10.0, [(72.0, "The supplement includes:")]),
        (584.0, 10.0, [(100.0, "**Figures S-1 through S-8")]),
        (597.0, 10.0, [(100.0, "**Supplementary Information References")]),
        *text_lines(616.0, 13.0, 10.0, text),
    ]
    paper = _parsed(pages_pdf(tmp_path / "heads.pdf", [page1]))
    heads = [s.heading for s in paper.sections]
    assert "Bayesian Credibility Bands for Smooth Histograms" in heads, heads
    assert "Histograms" not in heads
    assert "PARENTLESS HELIUM: THE IMPORTANCE OF BEING FREE OF INCLUSIONS" in heads, heads  # not "BE- ING"
    assert not any("Laboratory" in h or "Geodynamics" in h for h in heads), heads
    assert paper.abstract.startswith("Zircon grains from the dacite"), paper.abstract
