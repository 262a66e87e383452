"""Build real Paper objects for the cleaning/chunking tests without depending on the TEI parser.

``paper_from_tei`` reads a real GROBID TEI minimally with lxml (title, abstract, body divs with
their heads and paragraphs, figure captions, references); ``paper_from_pdf`` splits the pypdf text
of a corpus PDF into pseudo-sections at numbered headings. The real parser is geo_assets/ingest/tei.py.
``text_pdf`` writes a one-page PDF of positioned Helvetica text, for layouts no CC BY fixture prints.
"""

from __future__ import annotations

import io
import re
from functools import lru_cache
from pathlib import Path

import pypdf
from lxml import etree
from pypdf import PdfWriter
from pypdf.generic import DecodedStreamObject, DictionaryObject, NameObject

from geo_rag_runtime.contract import file_sha256, paper_id_from_sha256
from geo_rag_runtime.models import Caption, Paper, Reference, Section
from geo_rag_runtime.text.readable import strip_repeated_lines

TEI = {"t": "http://www.tei-c.org/ns/1.0"}


def _text(node: etree._Element | None) -> str:
    return " ".join("".join(node.itertext()).split()) if node is not None else ""


def paper_from_tei(path: Path) -> Paper:
    root = etree.parse(str(path)).getroot()
    title = _text(root.find(".//t:titleStmt/t:title", TEI))
    abstract = "\n\n".join(_text(p) for p in root.iterfind(".//t:profileDesc/t:abstract//t:p", TEI))
    sections = []
    for div in root.iterfind(".//t:text/t:body/t:div", TEI):
        head = div.find("t:head", TEI)
        sections.append(
            Section(
                heading=_text(head),
                number=head.get("n") if head is not None else None,
                paragraphs=[_text(p) for p in div.iterfind("t:p", TEI)],
            )
        )
    captions = [
        Caption(
            kind="table" if fig.get("type") == "table" else "figure",
            label=_text(fig.find("t:label", TEI)) or None,
            text=_text(fig.find("t:figDesc", TEI)),
        )
        for fig in root.iterfind(".//t:text/t:body/t:figure", TEI)
        if _text(fig.find("t:figDesc", TEI))
    ]
    references = []
    for bibl in root.iterfind(".//t:back//t:listBibl/t:biblStruct", TEI):
        raw = _text(bibl.find("t:note[@type='raw_reference']", TEI)) or None
        authors = [_text(a) for a in bibl.iterfind("t:analytic/t:author/t:persName/t:surname", TEI)]
        date = bibl.find(".//t:imprint/t:date", TEI)
        references.append(
            Reference(
                ref_id=bibl.get("{http://www.w3.org/XML/1998/namespace}id"),
                title=_text(bibl.find("t:analytic/t:title", TEI))
                or _text(bibl.find("t:monogr/t:title", TEI)),
                authors=authors,
                year=date.get("when") if date is not None else None,
                venue=_text(bibl.find("t:monogr/t:title", TEI)) or None,
                raw=raw,
            )
        )
    sha = file_sha256(path)
    return Paper(
        paper_id=paper_id_from_sha256(sha),
        source_file=path.name,
        sha256=sha,
        title=title,
        abstract=abstract,
        sections=sections,
        captions=captions,
        references=references,
        tei_producer="GROBID",
    )


_HEADING = re.compile(r"^(\d{1,2}(?:\.\d{1,2})*)\.? +([A-Z][^.!?]{2,80})$")
_REFERENCES = re.compile(r"^\s*(references( cited)?|bibliography)\s*$", re.IGNORECASE)


@lru_cache(maxsize=8)
def paper_from_pdf(path: Path) -> Paper:
    """pypdf text, headers/footers stripped, split at numbered headings ("2.1 Estimating ...")."""
    pages = strip_repeated_lines(p.extract_text() or "" for p in pypdf.PdfReader(path).pages)
    lines = "\n".join(pages).splitlines()
    cut = next((i for i, line in enumerate(lines) if _REFERENCES.match(line)), len(lines))
    sections = [Section(heading="", paragraphs=[])]
    for line in lines[:cut]:
        match = _HEADING.match(line.strip())
        if match:
            sections.append(Section(heading=match.group(2), number=match.group(1), paragraphs=[]))
        elif line.strip():
            paras = sections[-1].paragraphs
            if paras:
                paras[-1] += "\n" + line
            else:
                paras.append(line)
    references = [Reference(raw=line) for line in lines[cut + 1 :] if line.strip()]
    sha = file_sha256(path)
    return Paper(
        paper_id=paper_id_from_sha256(sha),
        source_file=path.name,
        sha256=sha,
        title=path.stem,
        sections=[s for s in sections if s.paragraphs or s.heading],
        references=references,
        tei_producer="pypdf (test)",
    )


def text_pdf(path: Path, lines: list[tuple[float, list[tuple[float, str]]]]) -> Path:
    """A one-page PDF in Helvetica: each line is (y from the top, [(x, text), …]), 9 pt, the first
    line (the title) 14 pt."""
    page = [(top, 14.0 if index == 0 else 9.0, words) for index, (top, words) in enumerate(lines)]
    return pages_pdf(path, [page])


def text_lines(
    top: float, pitch: float, size: float, texts: list[str] | tuple[str, ...], x: float = 72.0
) -> list[tuple[float, float, list[tuple[float, str]]]]:
    """Lines of running text for :func:`pages_pdf`: one per string, ``pitch`` apart from ``top``."""
    return [(top + pitch * i, size, [(x, text)]) for i, text in enumerate(texts)]


def pages_pdf(path: Path, pages: list[list[tuple[float, float, list[tuple[float, str]]]]]) -> Path:
    """A PDF of positioned Helvetica text, a page per list: each line is (y from the top, size in
    points, [(x, text), …]) on a US Letter page; a text that starts with "**" is set in
    Helvetica-Bold (the marks are not printed)."""
    writer = PdfWriter()
    font_ref = writer._add_object(_standard_font("/Helvetica"))
    bold_ref = writer._add_object(_standard_font("/Helvetica-Bold"))
    for lines in pages:
        ops = []
        for top, size, words in lines:
            for x, text in words:
                face = "/F2" if text.startswith("**") else "/F1"
                text = text.removeprefix("**")
                ops.append(f"BT {face} {size:.12g} Tf {x:.1f} {792 - top:.1f} Td ({_pdf_string(text)}) Tj ET")
        _add_page(writer, {"/F1": font_ref, "/F2": bold_ref}, ops)
    return _write(writer, path)


def _standard_font(name: str) -> DictionaryObject:
    """One of the PDF standard 14 fonts ("/Helvetica"), WinAnsi-encoded, not embedded."""
    return DictionaryObject({
        NameObject("/Type"): NameObject("/Font"), NameObject("/Subtype"): NameObject("/Type1"),
        NameObject("/BaseFont"): NameObject(name), NameObject("/Encoding"): NameObject("/WinAnsiEncoding"),
    })  # fmt: skip


def _pdf_string(text: str) -> str:
    """``text`` escaped for a PDF literal string (backslash and round brackets)."""
    return text.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")


def _maths_font(writer: PdfWriter, name: str, first: int, last: int, encoding: object) -> object:
    """A subset Type 1 font named ``name`` (not embedded: only its names and widths are read)."""
    number = pypdf.generic.NumberObject
    descriptor = writer._add_object(DictionaryObject({
        NameObject("/Type"): NameObject("/FontDescriptor"), NameObject("/FontName"): NameObject(name),
        NameObject("/Flags"): number(4), NameObject("/ItalicAngle"): number(0),
        NameObject("/FontBBox"): pypdf.generic.ArrayObject([number(v) for v in (-20, -958, 1114, 770)]),
    }))  # fmt: skip
    return writer._add_object(DictionaryObject({
        NameObject("/Type"): NameObject("/Font"), NameObject("/Subtype"): NameObject("/Type1"),
        NameObject("/BaseFont"): NameObject(name), NameObject("/FirstChar"): number(first),
        NameObject("/LastChar"): number(last), NameObject("/Widths"): pypdf.generic.ArrayObject([number(560)] * (last - first + 1)),
        NameObject("/FontDescriptor"): descriptor, NameObject("/Encoding"): encoding,
    }))  # fmt: skip


def _add_page(writer: PdfWriter, fonts: dict[str, object], ops: list[str]) -> None:
    """A US Letter page drawn by the content-stream operators ``ops`` with the named fonts."""
    page = writer.add_blank_page(width=612, height=792)
    page[NameObject("/Resources")] = DictionaryObject(
        {NameObject("/Font"): DictionaryObject({NameObject(k): v for k, v in fonts.items()})}
    )
    content = DecodedStreamObject()
    content.set_data("\n".join(ops).encode("latin-1"))
    page[NameObject("/Contents")] = writer._add_object(content)


def _write(writer: PdfWriter, path: Path) -> Path:
    buffer = io.BytesIO()
    writer.write(buffer)
    path.write_bytes(buffer.getvalue())
    return path


def symbol_font_pdf(
    path: Path, lines: list[tuple[float, list[tuple[float, list[str | bytes | tuple[str, str]]]]]]
) -> Path:
    """A one-page PDF set as Elsevier's Advent 3B2 typesetting sets it: text in Helvetica, symbols
    (the ``bytes`` parts of a line, run on after the text before them) in a subset of the maths font
    ``AdvP4C4E74`` whose encoding names its glyphs "C0" (minus), "C6" (±), "C14" (degree), "onequarter"
    (its "=") and "thorn" (its "+"), at codes of this subset's choosing (3, 5, 1, 188, 254), with no
    Unicode map: the way the journal's PDFs print them; a ``("slash", text)`` part is set in its
    other maths font, ``AdvP4C4E51``, whose "=" prints a slash. Lines are (y from the top, [(x,
    parts), …]), 9 pt; the first line (the title) 14 pt."""
    writer = PdfWriter()
    text_font = writer._add_object(_standard_font("/Helvetica"))
    differences = pypdf.generic.ArrayObject([
        pypdf.generic.NumberObject(1), NameObject("/C14"), pypdf.generic.NumberObject(3), NameObject("/C0"),
        NameObject("/C2"), NameObject("/C6"), pypdf.generic.NumberObject(188), NameObject("/onequarter"),
        pypdf.generic.NumberObject(254), NameObject("/thorn"),
    ])  # fmt: skip
    symbol_font = _maths_font(writer, "/GDLBGF+AdvP4C4E74", 1, 254, DictionaryObject({
        NameObject("/Type"): NameObject("/Encoding"), NameObject("/Differences"): differences,
    }))  # fmt: skip
    slash_font = _maths_font(writer, "/GDLBGG+AdvP4C4E51", 32, 126, NameObject("/WinAnsiEncoding"))
    ops = []
    for index, (top, cells) in enumerate(lines):
        size = 14 if index == 0 else 9
        for x, parts in cells:
            ops.append(f"BT {x:.1f} {792 - top:.1f} Td")
            for part in parts:
                if isinstance(part, bytes):
                    ops.append(f"/F3 {size} Tf <{part.hex()}> Tj")
                elif isinstance(part, tuple):
                    ops.append(f"/F4 {size} Tf ({part[1]}) Tj")
                else:
                    ops.append(f"/F1 {size} Tf ({_pdf_string(part)}) Tj")
            ops.append("ET")
    _add_page(writer, {"/F1": text_font, "/F3": symbol_font, "/F4": slash_font}, ops)
    return _write(writer, path)
