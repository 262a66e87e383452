"""TEI XML (GROBID 0.6/0.7/0.8, or the embedded converter) → ``Paper``.

One parser for every producer: the embedded converter (``pdf_to_tei``) writes the same element
structure GROBID does, so everything downstream sees one shape. The XML is parsed with entity
resolution, DTD loading and network access switched off: TEI may come from a remote service.

What is read, and where GROBID puts it:

- header: ``teiHeader/fileDesc/titleStmt/title``, authors (``sourceDesc/biblStruct/analytic/
  author`` with ``persName``, ``email``, ``affiliation``), ``idno[@type='DOI']``, the publication
  date, the journal (``monogr/title[@level='j']``), ``profileDesc`` keywords and abstract;
- body: every ``div`` in order with its ``head`` (``@n`` = section number; a div without head gets
  heading "") and its ``p`` and div-level ``formula`` elements as paragraphs. ``ref`` (citation
  markers) and inline ``formula`` text stay in the paragraph; GROBID 0.8's ``s`` sentences are
  joined with spaces;
- back: acknowledgement and annex divs become sections after the body ones;
- ``figure`` / ``figure[@type='table']``: captions (``head`` + ``figDesc``);
- ``back//listBibl/biblStruct``: references (title, authors, year, venue, DOI, raw string).

Body-level ``note`` elements (footnotes) are not read as paragraphs.

Pages: where the TEI carries GROBID's ``coords`` attribute (``teiCoordinates``: boxes
``"page,x,y,w,h;..."``, page 1-based), each paragraph's page is the first page of its ``coords``,
or of its first ``s`` (GROBID 0.8 with sentence segmentation puts them there), else None;
``Section.paragraph_pages`` runs parallel to ``paragraphs``, and stays empty everywhere when no
paragraph of the paper has coordinates. ``Paper.abstract_page`` comes from the abstract's first
paragraph, ``Caption.page`` from the ``figure`` (or its ``head``/``figDesc``).
"""

import re
from collections.abc import Iterable
from typing import Literal

from lxml import etree

from geo_rag_runtime.errors import TeiError
from geo_rag_runtime.models import Author, Caption, Paper, Reference, Section

__all__ = ["TEI_NS", "tei_producer", "tei_to_paper"]

TEI_NS = "http://www.tei-c.org/ns/1.0"
XML_ID = "{http://www.w3.org/XML/1998/namespace}id"

# elements whose text runs into the surrounding sentence; anything else is a separate run
_INLINE = {
    "ref",
    "formula",
    "hi",
    "emph",
    "rs",
    "term",
    "label",
    "num",
    "measure",
    "date",
    "name",
    "persName",
    "orgName",
    "foreign",
    "title",
    "q",
    "seg",
    "c",
    "w",
    "choice",
    "abbr",
    "expan",
    "sic",
    "corr",
}
_SKIP_IN_TEXT = {"note", "figure", "table", "graphic"}
_DOI = re.compile(r"\b10\.\d{4,9}/[^\s,;\"<>]+")
_YEAR = re.compile(r"(?:19|20)\d{2}")
_XML_DECLARATION = re.compile(r"^\s*<\?xml[^>]*\?>")
_COORDS_PAGE = re.compile(r"\s*(\d+)\s*,")


def _q(tag: str) -> str:
    return f"{{{TEI_NS}}}{tag}"


def _local(element: etree._Element) -> str:
    tag = element.tag
    return etree.QName(tag).localname if isinstance(tag, str) else ""


def _parse(tei: str | bytes, source_file: str) -> etree._Element:
    """Parse TEI safely (no entities, no DTD, no network) and check that it is TEI."""
    if isinstance(tei, str):
        # lxml refuses str input carrying an encoding declaration; the str is already decoded
        data: str | bytes = _XML_DECLARATION.sub("", tei, count=1)
    elif isinstance(tei, bytes | bytearray):
        data = bytes(tei)
    else:
        raise TeiError(f"{source_file}: TEI must be str or bytes, not {type(tei).__name__}")
    if not data.strip():
        raise TeiError(f"{source_file}: the TEI document is empty")
    parser = etree.XMLParser(
        resolve_entities=False,
        no_network=True,
        load_dtd=False,
        dtd_validation=False,
        remove_comments=True,
        remove_pis=True,
        huge_tree=False,
    )
    try:
        root = etree.fromstring(data, parser=parser)
    except (etree.XMLSyntaxError, ValueError) as exc:
        raise TeiError(f"{source_file}: malformed TEI XML: {exc}") from exc
    if root is None:
        raise TeiError(f"{source_file}: the TEI document is empty")
    if _local(root) != "TEI":
        raise TeiError(f"{source_file}: not a TEI document (root element <{_local(root) or root.tag}>)")
    if etree.QName(root).namespace is None:
        for element in root.iter():  # TEI without its namespace: adopt it, one code path below
            if isinstance(element.tag, str) and etree.QName(element).namespace is None:
                element.tag = _q(element.tag)
    elif etree.QName(root).namespace != TEI_NS:
        raise TeiError(f"{source_file}: root <TEI> is in namespace {etree.QName(root).namespace}, not TEI's")
    return root


def _clean(text: str | None) -> str:
    return re.sub(r"\s+", " ", text or "").strip()


def _text(element: etree._Element | None) -> str:
    """Readable text of an element: inline markup joined, sentence/line elements spaced."""
    if element is None:
        return ""
    parts: list[str] = []

    def walk(node: etree._Element) -> None:
        if node.text:
            parts.append(node.text)
        for child in node:
            name = _local(child)
            if name in _SKIP_IN_TEXT or not isinstance(child.tag, str):
                pass
            elif name in _INLINE:
                walk(child)
            else:  # s, lb, p, list/item, ...: a separate run of text
                parts.append(" ")
                walk(child)
                parts.append(" ")
            if child.tail:
                parts.append(child.tail)

    walk(element)
    return _clean("".join(parts))


def _first(element: etree._Element | None, path: str) -> etree._Element | None:
    if element is None:
        return None
    found = element.find(path, namespaces={"t": TEI_NS})
    return found


def _all(element: etree._Element | None, path: str) -> list[etree._Element]:
    if element is None:
        return []
    return list(element.iterfind(path, namespaces={"t": TEI_NS}))


def tei_producer(tei: str | bytes) -> str:
    """The software that wrote the TEI, e.g. "GROBID 0.8.1" or
    "georag-embedded-pdf 0.1.0 (pdfplumber 0.11.10)"; "unknown" when not recorded."""
    return _producer(_parse(tei, "<tei>"))


def _producer(root: etree._Element) -> str:
    apps = _all(root, "t:teiHeader/t:encodingDesc/t:appInfo/t:application")
    names = [_clean(f"{app.get('ident', '')} {app.get('version', '')}") for app in apps]
    names = [name for name in names if name]
    if not names:
        return "unknown"
    return names[0] + (f" ({', '.join(names[1:])})" if len(names) > 1 else "")


def _person(pers: etree._Element | None) -> str:
    if pers is None:
        return ""
    forenames = [_text(f) for f in _all(pers, "t:forename")]
    surnames = [_text(s) for s in _all(pers, "t:surname")]
    if forenames or surnames:
        return _clean(" ".join(forenames + surnames))
    return _text(pers)


def _affiliation(author: etree._Element) -> str | None:
    places: list[str] = []
    for aff in _all(author, "t:affiliation"):
        pieces = [_text(org) for org in _all(aff, "t:orgName")]
        pieces += [_text(el) for el in _all(aff, "t:address/t:settlement") + _all(aff, "t:address/t:country")]
        text = ", ".join(p for p in pieces if p) or _text(_first(aff, "t:note[@type='raw_affiliation']"))
        if text and text not in places:
            places.append(text)
    return "; ".join(places) or None


def _authors(container: etree._Element | None) -> list[Author]:
    authors: list[Author] = []
    for author in _all(container, "t:author"):
        name = _person(_first(author, "t:persName"))
        if not name:
            continue  # GROBID sometimes emits an <author> holding only a stray affiliation
        email = _text(_first(author, "t:email")) or None
        authors.append(Author(name=name, affiliation=_affiliation(author), email=email))
    return authors


def _doi(element: etree._Element | None) -> str | None:
    for idno in _all(element, ".//t:idno"):
        if (idno.get("type") or "").upper() == "DOI" and _text(idno):
            return _text(idno)
    return None


def _year(dates: Iterable[etree._Element]) -> str | None:
    for date in dates:
        match = _YEAR.search(date.get("when") or "") or _YEAR.search(_text(date))
        if match:
            return match.group(0)
    return None


def _keywords(profile: etree._Element | None) -> list[str]:
    keywords: list[str] = []
    for group in _all(profile, "t:textClass/t:keywords"):
        terms = [_text(term) for term in _all(group, "t:term")]
        if not terms:  # older GROBID: one string
            terms = re.split(r"[;,·•]", _text(group))
        keywords.extend(t.strip(" .") for t in terms if t.strip(" ."))
    return keywords


def _page(element: etree._Element | None) -> int | None:
    """The 1-based page on which an element starts: the first box of its ``coords``, or of its
    first ``s`` child's (GROBID 0.8 with sentence segmentation); None without coordinates."""
    if element is None:
        return None
    for candidate in (element, _first(element, "t:s")):
        if candidate is None:
            continue
        match = _COORDS_PAGE.match(candidate.get("coords") or "")
        if match and int(match.group(1)) >= 1:
            return int(match.group(1))
    return None


def _paragraphs(div: etree._Element) -> list[tuple[str, int | None]]:
    """Paragraph-level children of a div in order (p, formula, list items), each with its page."""
    paragraphs: list[tuple[str, int | None]] = []
    for child in div:
        name = _local(child)
        if name in ("p", "formula"):
            text = _text(child)
            if text:
                paragraphs.append((text, _page(child)))
        elif name == "list":
            for index, item in enumerate(_all(child, "t:item")):
                text = _text(item)
                if text:  # an item without coordinates: the list's, for its first item only
                    paragraphs.append((text, _page(item) or (_page(child) if index == 0 else None)))
    return paragraphs


def _section(heading: str, number: str | None, paragraphs: list[tuple[str, int | None]]) -> Section:
    return Section(
        heading=heading,
        number=number or None,
        paragraphs=[text for text, _ in paragraphs],
        paragraph_pages=[page for _, page in paragraphs],
    )


def _sections_of(container: etree._Element | None, default_heading: str = "") -> list[Section]:
    """Sections from the divs of body/back, nested divs in document order."""
    sections: list[Section] = []
    for div in _all(container, "t:div"):
        if div.get("type") in ("references", "toc"):
            continue
        head = _first(div, "t:head")
        heading = _text(head) if head is not None else default_heading
        number = head.get("n") if head is not None else None
        paragraphs = _paragraphs(div)
        if head is not None or paragraphs:
            sections.append(_section(heading, number, paragraphs))
        sections.extend(_sections_of(div, default_heading))
    return sections


def _back_sections(back: etree._Element | None) -> list[Section]:
    sections: list[Section] = []
    for div in _all(back, "t:div"):
        kind = div.get("type") or ""
        if kind == "references":
            continue
        default = {
            "acknowledgement": "Acknowledgements",
            "funding": "Funding",
            "availability": "Data availability",
        }.get(kind, "")
        sections.extend(_sections_of(div, default))
        paragraphs = _paragraphs(div)  # a back div holding paragraphs directly
        if paragraphs:
            head = _first(div, "t:head")
            sections.append(_section(_text(head) or default, None, paragraphs))
    return sections


def _captions(text: etree._Element | None) -> list[Caption]:
    captions: list[Caption] = []
    for figure in _all(text, ".//t:figure"):
        kind: Literal["figure", "table"] = "table" if figure.get("type") == "table" else "figure"
        head = _text(_first(figure, "t:head")).rstrip(" :.")
        label = _text(_first(figure, "t:label"))
        # GROBID often leaves a table's figDesc empty and puts its caption in a note
        note = _text(_first(figure, "t:note"))
        desc = _text(_first(figure, "t:figDesc")) or note
        body = desc or head
        if not body:
            continue
        if not head and label:
            head = f"{'Table' if kind == 'table' else 'Figure'} {label}"
        page = _page(figure) or _page(_first(figure, "t:head")) or _page(_first(figure, "t:figDesc"))
        rows = _table_rows(figure) if kind == "table" else []
        footnote = note if note != desc else ""  # a note that was not taken as the caption
        captions.append(
            Caption(kind=kind, label=head or None, text=body, page=page, rows=rows, note=footnote)
        )
    return captions


def _table_rows(figure: etree._Element) -> list[list[str]]:
    """A table's cells, row by row (GROBID: ``<table><row><cell>``); rows without text are dropped."""
    rows = []
    for row in _all(figure, "t:table/t:row"):
        cells = [_text(cell) for cell in _all(row, "t:cell")]
        if any(cells):
            rows.append(cells)
    return rows


def _references(back: etree._Element | None) -> list[Reference]:
    references: list[Reference] = []
    for bibl in _all(back, ".//t:listBibl/t:biblStruct"):
        analytic = _first(bibl, "t:analytic")
        monogr = _first(bibl, "t:monogr")
        title = _text(_first(analytic, "t:title[@level='a']")) or _text(_first(analytic, "t:title"))
        used_monogr_title = False
        if not title:
            title = _text(_first(monogr, "t:title[@level='m']"))
            used_monogr_title = bool(title)
        venue = _text(_first(monogr, "t:title[@level='j']"))
        if not venue and not used_monogr_title:
            venue = _text(_first(monogr, "t:title[@level='m']"))
        venue = venue or _text(_first(bibl, ".//t:title[@level='s']"))
        raw = _text(_first(bibl, "t:note[@type='raw_reference']")) or None
        doi = _doi(bibl)
        if doi is None and raw:
            match = _DOI.search(raw)
            doi = match.group(0).rstrip(".)]") if match else None
        people = _all(analytic, "t:author") or _all(monogr, "t:author")
        authors = [name for name in (_person(_first(a, "t:persName")) for a in people) if name]
        references.append(
            Reference(
                ref_id=bibl.get(XML_ID),
                title=title or None,
                authors=authors,
                year=_year(_all(bibl, ".//t:date")),
                venue=venue or None,
                doi=doi,
                raw=raw,
            )
        )
    return references


def tei_to_paper(tei: str | bytes, *, paper_id: str, source_file: str, sha256: str) -> Paper:
    """Read a TEI document into a ``Paper``.

    Raises ``TeiError`` (naming ``source_file``) for malformed XML, a document that is not TEI,
    or TEI with neither a title nor any text.
    """
    root = _parse(tei, source_file)
    header = _first(root, "t:teiHeader")
    file_desc = _first(header, "t:fileDesc")
    source = _first(file_desc, "t:sourceDesc/t:biblStruct")
    profile = _first(header, "t:profileDesc")
    text = _first(root, "t:text")
    body = _first(text, "t:body")
    back = _first(text, "t:back")

    title = _text(_first(file_desc, "t:titleStmt/t:title[@type='main']")) or _text(
        _first(file_desc, "t:titleStmt/t:title")
    )
    title = title or _text(_first(source, "t:analytic/t:title"))
    abstract_paragraphs = [(t, _page(p)) for p in _all(profile, "t:abstract//t:p") if (t := _text(p))]
    abstract = "\n\n".join(t for t, _ in abstract_paragraphs) or _text(_first(profile, "t:abstract"))
    if abstract_paragraphs:
        abstract_page = abstract_paragraphs[0][1]
    else:  # an abstract without <p>: its first sentence's coordinates, if any
        abstract_page = _page(_first(profile, "t:abstract//t:s"))
    sections = _sections_of(body) + _back_sections(back)
    if abstract_page is None and all(page is None for s in sections for page in s.paragraph_pages):
        for section in sections:  # no coordinates in this TEI (GROBID without teiCoordinates)
            section.paragraph_pages = []
    captions = _captions(text)
    # a data supplement may be one table and nothing else: its cells are the paper's content
    tables = any(c.rows for c in captions)
    if not title and not any(s.paragraphs for s in sections) and not abstract and not tables:
        raise TeiError(
            f"{source_file}: the TEI has no title and no text (nothing was extracted from the PDF)"
        )

    venue = _text(_first(source, "t:monogr/t:title[@level='j'][@type='main']")) or _text(
        _first(source, "t:monogr/t:title")
    )
    year = _year(
        _all(file_desc, "t:publicationStmt/t:date[@type='published']")
        + _all(source, "t:monogr/t:imprint/t:date")
        + _all(file_desc, "t:publicationStmt/t:date")
    )
    return Paper(
        paper_id=paper_id,
        source_file=source_file,
        sha256=sha256,
        title=title,
        authors=_authors(_first(source, "t:analytic")),
        doi=_doi(source),
        year=year,
        venue=venue or None,
        keywords=_keywords(profile),
        abstract=abstract,
        abstract_page=abstract_page,
        sections=sections,
        captions=captions,
        references=_references(back),
        tei_producer=_producer(root),
    )
