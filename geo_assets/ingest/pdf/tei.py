"""TEI output: the analysed ``Document`` → GROBID-shaped TEI XML.

Writes the elements and attributes GROBID writes for the same content, so that one parser
(``geo_assets.ingest.tei``) reads both producers. The header's ``appInfo`` names this parser
(``EMBEDDED_PRODUCER``/``EMBEDDED_VERSION``) and the pdfplumber version, which is how a stored
TEI records what produced it.

Paragraphs (body and abstract), heads and figures carry GROBID's ``coords`` attribute (what
GROBID writes when asked for ``teiCoordinates``): ``"page,x,y,w,h"`` boxes joined by ``;``, the
page 1-based, x/y/width/height in PDF points from the page's top-left corner; one box per page and
column run of the element's lines.
"""

import pdfplumber
from lxml import etree

from geo_assets.ingest.pdf.bare_tables import BARE_TABLE
from geo_assets.ingest.pdf.document import Document
from geo_assets.ingest.pdf.headings import norm_head
from geo_assets.ingest.pdf.layout import coords_page
from geo_assets.ingest.pdf.tables import PageTable

EMBEDDED_PRODUCER = "georag-embedded-pdf"
EMBEDDED_VERSION = "0.2.23"

TEI_NS = "http://www.tei-c.org/ns/1.0"
XML_NS = "http://www.w3.org/XML/1998/namespace"


def _el(parent: etree._Element, tag: str, text: str | None = None, **attrs: str) -> etree._Element:
    element = etree.SubElement(parent, f"{{{TEI_NS}}}{tag}")
    for key, value in attrs.items():
        element.set(f"{{{XML_NS}}}id" if key == "xml_id" else key, value)
    if text:
        element.text = text
    return element


def _pers_name(parent: etree._Element, name: str) -> None:
    pers = _el(parent, "persName")
    parts = name.split()
    for forename in parts[:-1]:
        _el(pers, "forename", forename, type="first" if forename == parts[0] else "middle")
    _el(pers, "surname", parts[-1])


def _boxes(coords: list[str], count: int) -> list[dict[str, str]]:
    """``coords`` attributes for ``count`` elements (none where a position is unknown)."""
    padded = coords[:count] + [""] * (count - len(coords))
    return [{"coords": box} if box else {} for box in padded]


def _grid_of(tables: list[PageTable], label: str, box: str) -> PageTable | None:
    """The grid a table caption heads: the one under its label on the caption's own page (a table
    over six pages is captioned on some and carried on without a caption on others, and the caption
    entries do not come in page order), else the first under its label not yet taken (a caption
    at the foot of a page over its table on the next)."""
    under = [t for t in tables if t.label == label]
    page = coords_page(box)
    return next((t for t in under if t.page == page), under[0] if under else None)


def to_tei(doc: Document) -> str:
    """The analysed document as a TEI XML string, in GROBID's element layout."""
    root = etree.Element(f"{{{TEI_NS}}}TEI", nsmap={None: TEI_NS})
    header = _el(root, "teiHeader")
    file_desc = _el(header, "fileDesc")
    title_stmt = _el(file_desc, "titleStmt")
    _el(title_stmt, "title", doc.title, level="a", type="main")
    publication = _el(file_desc, "publicationStmt")
    _el(publication, "publisher")
    if doc.year:
        _el(publication, "date", doc.year, type="published", when=doc.year)
    source = _el(file_desc, "sourceDesc")
    bibl = _el(source, "biblStruct")
    analytic = _el(bibl, "analytic")
    for name in doc.authors:
        _pers_name(_el(analytic, "author"), name)
    _el(analytic, "title", doc.title, level="a", type="main")
    monogr = _el(bibl, "monogr")
    imprint = _el(monogr, "imprint")
    if doc.year:
        _el(imprint, "date", doc.year, type="published", when=doc.year)
    if doc.doi:
        _el(bibl, "idno", doc.doi, type="DOI")

    encoding = _el(header, "encodingDesc")
    app_info = _el(encoding, "appInfo")
    app = _el(app_info, "application", ident=EMBEDDED_PRODUCER, version=EMBEDDED_VERSION)
    _el(app, "desc", "GeoRAG embedded PDF parser (layout heuristics, no GROBID)")
    lib = _el(app_info, "application", ident="pdfplumber", version=pdfplumber.__version__)
    _el(lib, "desc", "glyphs, fonts and positions")

    profile = _el(header, "profileDesc")
    if doc.keywords:
        keywords = _el(_el(profile, "textClass"), "keywords")
        for term in doc.keywords:
            _el(keywords, "term", term)
    abstract = _el(profile, "abstract")
    if doc.abstract:
        div = _el(abstract, "div")
        for paragraph, box in zip(doc.abstract, _boxes(doc.abstract_coords, len(doc.abstract)), strict=True):
            _el(div, "p", paragraph, **box)

    text = _el(root, "text")
    text.set(f"{{{XML_NS}}}lang", "en")
    body = _el(text, "body")
    back = _el(text, "back")
    for section in doc.sections:
        if section.kind == "back":
            kind = "acknowledgement" if norm_head(section.heading).startswith("acknowledg") else "annex"
            div = _el(_el(back, "div", type=kind), "div")
        else:
            div = _el(body, "div")
        if section.heading:
            head = _el(div, "head", section.heading)
            if section.number:
                head.set("n", section.number)
            if section.head_coords:
                head.set("coords", section.head_coords)
        boxes = _boxes(section.paragraph_coords, len(section.paragraphs))
        for paragraph, box in zip(section.paragraphs, boxes, strict=True):
            _el(div, "p", paragraph, **box)
    captions = zip(doc.captions, _boxes(doc.caption_coords, len(doc.captions)), strict=True)
    tables = list(doc.tables)
    for index, ((kind, label, caption), box) in enumerate(captions):
        attrs = {"xml_id": f"{'tab' if kind == 'table' else 'fig'}_{index}"}
        if kind == "table":
            attrs["type"] = "table"
        attrs.update(box)
        figure = _el(body, "figure", **attrs)
        _el(figure, "head", label)
        if not label.startswith(BARE_TABLE):  # a bare table has no number of its own
            _el(figure, "label", label.split()[-1])
        _el(figure, "figDesc", caption)
        cells = _grid_of(tables, label, box.get("coords", "")) if kind == "table" else None
        if cells is not None:  # GROBID's layout: <table><row><cell>…</cell></row></table>
            tables.remove(cells)
            table = _el(figure, "table")
            for row in cells.rows:
                row_el = _el(table, "row")
                for cell in row:
                    _el(row_el, "cell", cell)
            if cells.note:  # GROBID writes a table's footnotes as a <note> after its <table>
                _el(figure, "note", cells.note)
    refs_div = _el(back, "div", type="references")
    list_bibl = _el(refs_div, "listBibl")
    for index, ref in enumerate(doc.references):
        entry = _el(list_bibl, "biblStruct", xml_id=f"b{index}")
        analytic = _el(entry, "analytic")
        if ref.title:
            _el(analytic, "title", ref.title, level="a", type="main")
        if ref.doi:
            _el(analytic, "idno", ref.doi, type="DOI")
        monogr = _el(entry, "monogr")
        imprint = _el(monogr, "imprint")
        if ref.year:
            _el(imprint, "date", ref.year, type="published", when=ref.year)
        _el(entry, "note", ref.raw, type="raw_reference")
    tei: str = etree.tostring(root, encoding="unicode", pretty_print=True)
    return tei
