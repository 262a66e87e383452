"""tei_to_paper on real GROBID TEI (0.6.1, 0.8.1), checked against s2orc-doc2json's reading of the
same files, on malformed input, and round-tripped through the embedded PDF converter."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pdfplumber
import pytest

from geo_assets.ingest.pdf import EMBEDDED_VERSION, pdf_to_tei
from geo_assets.ingest.tei import TEI_NS, tei_producer, tei_to_paper
from geo_rag_runtime.errors import TeiError
from geo_rag_runtime.models import Paper

SHA = "0" * 64
DOI = re.compile(r"^10\.\d{4,9}/\S+$")


def _paper(path: Path) -> Paper:
    return tei_to_paper(path.read_bytes(), paper_id="p", source_file=path.name, sha256=SHA)


@pytest.fixture(scope="module")
def samples(grobid_samples: Path) -> dict[str, Paper]:
    return {
        path.name.removesuffix(".tei.xml"): _paper(path) for path in sorted(grobid_samples.glob("*.tei.xml"))
    }


@pytest.mark.parametrize("stem", ["2020.acl-main.207", "N18-3011"])
def test_grobid_061_matches_s2orc_doc2json(
    stem: str, samples: dict[str, Paper], grobid_samples: Path
) -> None:
    """What is compared: title (equal); every section name of the JSON's body_text among our
    headings; abstract text (equal); body paragraph count (ours counts every <p> and div-level
    <formula>; doc2json folds some formulas away: within 10 %); references with a title (doc2json
    keeps only those) = bib_entries; every DOI doc2json found."""
    paper = samples[f"{stem}.grobid-0.6.1"]
    doc = json.loads((grobid_samples / f"{stem}.s2orc-doc2json.json").read_text())
    parse = doc["pdf_parse"]

    assert paper.title == doc["title"]
    assert paper.abstract == " ".join(p["text"] for p in parse["abstract"])
    json_heads = {p["section"] for p in parse["body_text"] if p["section"]}
    assert json_heads <= {s.heading for s in paper.sections}
    json_paragraphs = sum(1 for p in parse["body_text"] if p["section"])
    ours = sum(len(s.paragraphs) for s in paper.sections if s.heading in json_heads)
    assert abs(ours - json_paragraphs) <= 0.1 * json_paragraphs
    assert sum(1 for r in paper.references if r.title) == len(parse["bib_entries"])
    json_dois = {ids[0] for b in parse["bib_entries"].values() if (ids := b["other_ids"].get("DOI"))}
    assert json_dois <= {r.doi for r in paper.references}
    assert paper.tei_producer == "GROBID 0.6.1"


def test_specter_details(samples: dict[str, Paper]) -> None:
    paper = samples["2020.acl-main.207.grobid-0.6.1"]
    first = paper.sections[0]
    assert (first.number, first.heading) == ("1", "Introduction")
    assert [a.name for a in paper.authors][:2] == ["Arman Cohan", "Sergey Feldman"]
    assert paper.authors[0].email == "armanc@allenai.org"
    assert "University of Washington" in (paper.authors[0].affiliation or "")
    # <ref> citation markers keep their text inside the paragraph
    assert "(Radford et al., 2018;" in first.paragraphs[0]
    ref = paper.references[0]
    assert (ref.ref_id, ref.year, ref.venue) == ("b0", "2019", "WSDM")
    assert ref.title == "Estimating position bias without intrusive interventions"
    assert ref.raw and ref.raw.startswith("Anant K. Agarwal")
    assert any(c.kind == "table" and c.label == "Table 1" for c in paper.captions)
    assert paper.sections[-1].heading == "Acknowledgements"  # back matter follows the body


def test_demarchis_061_and_081_agree(samples: dict[str, Paper]) -> None:
    old, new = (
        samples["DeMarchis2016_JNER_0046d83a.grobid-0.6.1"],
        samples["DeMarchis2016_JNER_0046d83a.grobid-0.8.1"],
    )
    assert old.title == new.title
    assert old.title.startswith("Multi-contact functional electrical stimulation for hand opening")
    assert old.doi == new.doi == "10.1186/s12984-016-0129-6"
    assert old.year == new.year == "2016"
    assert old.venue == new.venue == "Journal of NeuroEngineering and Rehabilitation"
    assert old.keywords == new.keywords and "M-wave" in new.keywords
    assert [a.name for a in old.authors] == [a.name for a in new.authors]
    heads_old, heads_new = [s.heading for s in old.sections], [s.heading for s in new.sections]
    assert len(heads_old) == len(heads_new) == 20
    differing = [(a, b) for a, b in zip(heads_old, heads_new, strict=True) if a != b]
    # the one real difference: GROBID 0.8.1 took a caption fragment for the head of one section
    assert differing == [("Selectivity with optimal stimulation pattern", "right).")]
    assert sum(len(s.paragraphs) for s in old.sections) == sum(len(s.paragraphs) for s in new.sections)
    assert len(old.references) == len(new.references) == 49
    assert old.references[0].doi == new.references[0].doi == "10.1186/2040-7378-6-9"
    assert (old.tei_producer, new.tei_producer) == ("GROBID 0.6.1", "GROBID 0.8.1")


def _norm(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "", text.lower())


def test_grobid_081_pages_where_coords_exist(samples: dict[str, Paper], grobid_samples: Path) -> None:
    """This GROBID 0.8.1 run asked coordinates for figures and formulas but not for p/s/head: the
    figures' and the div-level formulas' pages are read, every other paragraph's page is None."""
    paper = samples["DeMarchis2016_JNER_0046d83a.grobid-0.8.1"]
    assert all(len(s.paragraph_pages) == len(s.paragraphs) for s in paper.sections)
    dated = [
        (s.heading, text[:4], page)
        for s in paper.sections
        for text, page in zip(s.paragraphs, s.paragraph_pages, strict=True)
        if page
    ]
    assert dated == [("Data analysis", "Fext", 4), ("Data analysis", "S ¼ ", 4)]
    assert paper.abstract_page is None  # the abstract's <p> has no coords
    assert [(c.label, c.page) for c in paper.captions] == [("Fig. 1", 3), ("Fig. 3", 6)]
    with pdfplumber.open(grobid_samples / "DeMarchis2016_JNER_0046d83a.pdf") as pdf:
        page_3 = _norm(pdf.pages[2].extract_text() or "")
    assert _norm("Multi-contact set-up visualized for the left arm") in page_3  # where Fig. 1 is printed


def test_tei_without_coords_has_no_pages(samples: dict[str, Paper]) -> None:
    for stem in ("N18-3011.grobid-0.6.1", "2020.acl-main.207.grobid-0.6.1"):
        paper = samples[stem]
        assert paper.sections and all(s.paragraph_pages == [] for s in paper.sections)
        assert paper.abstract_page is None
        assert all(c.page is None for c in paper.captions)


def test_pages_from_p_and_sentence_coords() -> None:
    """GROBID 0.8 puts coords on <s> when sentences are segmented, on <p> otherwise; a paragraph
    without either gets None, aligned with its text."""
    abstract = (
        '<profileDesc><abstract><div><p><s coords="1,72.0,300.5,451.2,9.9;1,72,312,400,9.9">Basalts '
        "erupted.</s></p></div></abstract></profileDesc>"
    )
    body = (
        '<div><head n="1" coords="2,72,80,100,12">Methods</head>'
        '<p><s coords="2,72.00,100.00,451.28,9.96">First.</s><s coords="3,72,90,300,9.9">Second.</s></p>'
        "<p>No coordinates.</p>"
        '<p coords="3,310.5,120.0,230.1,9.96;4,72,90,230,9.9">Across a page break.</p>'
        '<formula coords="4,80,200,300,20">Δt = t1 − t2 (1)</formula></div>'
        "<div><head>Headless</head><p>Nothing here either.</p></div>"
        '<figure xml:id="fig_0" coords="5,72,400,451,120"><head>Figure 1</head><figDesc>Map.</figDesc></figure>'
        '<figure type="table"><head>Table 1</head><figDesc coords="6,72,90,451,9">Ages.</figDesc></figure>'
        "<figure><head>Figure 2</head><figDesc>No position.</figDesc></figure>"
    )
    paper = tei_to_paper(_tei(body, header_extra=abstract), paper_id="p", source_file="syn.xml", sha256=SHA)
    first, second = paper.sections
    assert first.paragraphs == [
        "First. Second.",
        "No coordinates.",
        "Across a page break.",
        "Δt = t1 − t2 (1)",
    ]
    assert first.paragraph_pages == [2, None, 3, 4]
    assert [first.page_of(i) for i in range(5)] == [2, None, 3, 4, None]
    assert second.paragraph_pages == [None]
    assert paper.abstract_page == 1
    assert [c.page for c in paper.captions] == [5, 6, None]


def test_tei_producer_reads_the_application(grobid_samples: Path) -> None:
    tei = (grobid_samples / "DeMarchis2016_JNER_0046d83a.grobid-0.8.1.tei.xml").read_text(encoding="utf-8")
    assert tei_producer(tei) == "GROBID 0.8.1"  # str with an XML declaration is accepted


def _tei(body: str, title: str = "Sr isotopes of basalts", header_extra: str = "") -> str:
    return (
        f'<?xml version="1.0" encoding="UTF-8"?><TEI xmlns="{TEI_NS}"><teiHeader><fileDesc><titleStmt>'
        f'<title level="a" type="main">{title}</title></titleStmt></fileDesc>{header_extra}</teiHeader>'
        f"<text><body>{body}</body><back/></text></TEI>"
    )


def test_grobid_08_sentences_refs_formulas_and_notation_survive() -> None:
    body = (
        '<div><head n="3.1">Isotopes</head><p><s>Initial <formula>87Sr/86Sr</formula> = 0.7035 ± 0.0002 '
        '<ref type="bibr" target="#b0">(Smith, 2001)</ref>.</s><s>δ18O is +5.6‰, εNd +8; U(IV) and '
        "La/Yb rise as SiO2 wt.% falls.</s></p>"
        "<formula>Δt = t1 − t2 (1)</formula></div><div><p>Headless text.</p></div>"
        '<note place="foot">1 a footnote</note>'
    )
    paper = tei_to_paper(_tei(body), paper_id="p", source_file="syn.tei.xml", sha256=SHA)
    first, second = paper.sections
    assert (first.number, first.heading) == ("3.1", "Isotopes")
    assert first.paragraphs == [
        "Initial 87Sr/86Sr = 0.7035 ± 0.0002 (Smith, 2001). δ18O is +5.6‰, εNd +8; U(IV) and La/Yb rise as "
        "SiO2 wt.% falls.",
        "Δt = t1 − t2 (1)",
    ]
    assert (second.heading, second.paragraphs) == ("", ["Headless text."])
    assert paper.tei_producer == "unknown"


def test_tei_without_namespace_is_read() -> None:
    tei = _tei("<div><head>Intro</head><p>Text.</p></div>").replace(f' xmlns="{TEI_NS}"', "")
    paper = tei_to_paper(tei, paper_id="p", source_file="plain.xml", sha256=SHA)
    assert paper.sections[0].paragraphs == ["Text."]


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("", "is empty"),
        ("<TEI xmlns='http://www.tei-c.org/ns/1.0'><teiHeader><fileDesc>", "malformed TEI XML"),
        ("<!DOCTYPE html><html><body><p>Service Unavailable</p></body></html>", "not a TEI document"),
        ("<html><body><p>Service Unavailable<br></body></html>", "malformed TEI XML"),
        (
            "<html><body><p>Service Unavailable</p></body></html>",
            r"not a TEI document \(root element <html>\)",
        ),
        ('<TEI xmlns="urn:other"><text/></TEI>', "namespace urn:other"),
        (_tei("<div><p>  </p></div>", title=""), "has no title and no text"),
    ],
)
def test_bad_tei_names_the_source(content: str, message: str) -> None:
    with pytest.raises(TeiError, match=rf"bad\.tei\.xml: .*{message}"):
        tei_to_paper(content, paper_id="p", source_file="bad.tei.xml", sha256=SHA)


def test_truncated_real_tei(grobid_samples: Path) -> None:
    data = (grobid_samples / "N18-3011.grobid-0.6.1.tei.xml").read_bytes()
    with pytest.raises(TeiError, match=r"cut\.xml: malformed TEI XML"):
        tei_to_paper(data[: len(data) // 2], paper_id="p", source_file="cut.xml", sha256=SHA)


def test_external_entities_are_not_resolved(tmp_path: Path) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("TOP-SECRET-CONTENT")
    tei = (
        f'<?xml version="1.0"?><!DOCTYPE TEI [<!ENTITY x SYSTEM "file://{secret}">]>'
        + _tei("<div><head>Intro</head><p>before &x; after</p></div>").split("?>", 1)[1]
    )
    paper = tei_to_paper(tei, paper_id="p", source_file="xxe.xml", sha256=SHA)  # parsed, entity left alone
    assert "TOP-SECRET-CONTENT" not in paper.model_dump_json()
    assert "before" in paper.model_dump_json()


# --- round trip through the embedded converter (each PDF parsed once per session) -----------------

ROUND_TRIP = {
    "Vermeesch2024_Geochronology_Errorchrons_CCBY.pdf": "Errorchrons and anchored isochrons in IsoplotR",
    "Zhu2024_GRL_MongolOkhotskMantlePlume_CCBY.pdf": (
        "The Beginning of a Wilson Cycle in an Accretionary Orogen: The Mongol–Okhotsk Ocean Opened "
        "Assisted by a Devonian Mantle Plume"
    ),
}


@pytest.fixture(scope="module")
def round_trips(sample_papers: Path, fixture_papers: Path) -> dict[str, Paper]:
    def path(name: str) -> Path:
        return sample_papers / name if (sample_papers / name).exists() else fixture_papers / name

    return {
        name: tei_to_paper(pdf_to_tei(path(name)), paper_id="p", source_file=name, sha256=SHA)
        for name in ROUND_TRIP
    }


@pytest.mark.parametrize("name", sorted(ROUND_TRIP))
def test_embedded_tei_round_trip(name: str, round_trips: dict[str, Paper]) -> None:
    paper = round_trips[name]
    assert paper.title == ROUND_TRIP[name]
    assert paper.tei_producer.startswith(f"georag-embedded-pdf {EMBEDDED_VERSION} (pdfplumber ")
    assert len([s for s in paper.sections if s.paragraphs]) >= 3
    assert len(paper.abstract) > 500
    assert paper.doi and DOI.match(paper.doi)
    assert any(r.doi and DOI.match(r.doi) for r in paper.references)
    assert all(r.raw for r in paper.references)
    text = " ".join(p for s in paper.sections for p in s.paragraphs)
    assert "Introduction" in [s.heading for s in paper.sections]
    assert len(text) > 10_000
    # the embedded TEI carries coords: every paragraph has its page, in reading order
    pages = [page for s in paper.sections for page in s.paragraph_pages]
    assert all(len(s.paragraph_pages) == len(s.paragraphs) for s in paper.sections)
    assert all(isinstance(page, int) and page >= 1 for page in pages)
    assert pages == sorted(pages) and pages[-1] > pages[0]
    assert paper.abstract_page == 1
    assert paper.captions and all(c.page for c in paper.captions)


def test_embedded_front_matter(round_trips: dict[str, Paper]) -> None:
    paper = round_trips["Zhu2024_GRL_MongolOkhotskMantlePlume_CCBY.pdf"]
    assert [a.name for a in paper.authors][:2] == ["Mingshuai Zhu", "Daniel Pastor–Galán"]
    assert (paper.year, paper.doi) == ("2024", "10.1029/2024GL109028")
