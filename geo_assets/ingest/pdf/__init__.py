"""Embedded PDF → TEI converter: the default when no GROBID server is configured.

GROBID is the production path (``geo_assets.ingest.grobid``); this package lets the pipeline run
with no services. It reads glyphs, font sizes, bold fonts and positions with pdfplumber (MIT;
pdfminer.six underneath) and emits TEI shaped like GROBID's, so that one parser
(``geo_assets.ingest.tei``) reads both.

Layout analysis, in order:

1. glyphs → runs in content-stream order (so super/subscripts stay in their word) → line
   fragments (merged with neighbours on the same line, never across a gap wider than about one
   em; rotated margin text is dropped);
2. per page, a column gutter is searched for (the x with the most text side by side across it);
   lines that cross it (title, wide captions) split the page into bands read left column first;
3. running headers/footers (text repeated near the top/bottom of many pages) and page numbers go;
4. the title is the largest-font line group of page 1 (checked against the PDF metadata title);
5. lines are classified (numbered/bold/known section heads, captions, references) and grouped
   into paragraphs by vertical gaps, first-line indents, short last lines and font changes;
6. the references section is split into entries (numbered, hanging-indent or spacing styles).

Geochemical notation is data: glyph text is kept as printed (δ, ε, ±, –, ‰), superscripts and
subscripts become plain characters (87Sr/86Sr, SiO2), and end-of-line hyphens are removed only
where the document itself shows the unhyphenated word (or the break is plainly a syllable split),
never before an uppercase letter or a digit (U-Pb, Re–Os, gchron-3-247).

Modules, in dependency order (each imports only modules listed before it):

- ``glyphs``: before any step reads a page, the symbols a font names wrongly (Elsevier's maths font:
  "¼" for "=", no Unicode for its minus, "±" and degree sign) are read by their glyph names;
- ``layout``: the glyph and line primitives; glyph text and text cleaning;
- ``lines``: step 1, one page's characters → glyphs → line fragments;
- ``columns``: step 2, the column gutter and the page's reading order;
- ``running_heads``: step 3, running headers/footers and page numbers;
- ``headings``: the section-head vocabulary, and whether a line reads as a head;
- ``classify``: step 5, line kinds (captions, keywords, heads, run-in heads) and column edges;
- ``blocks``: step 5, lines → paragraphs, heads, captions and keyword blocks;
- ``hyphenation``: joining lines into text, resolving end-of-line hyphens;
- ``references``: step 6, reference entries with DOI, year and title;
- ``word_tables``: table cells from pdfplumber's words (caption region, columns by x coverage),
  the reader kept for tables (``scripts/bench_tables.py``), also on pages set sideways (the
  characters turned upright by their text matrix; ``analyse`` adds such a table's caption, which
  the upright-only line reader misses); ``tables`` (line fragments) is its fallback;
- ``document``: the analysed document (dataclasses);
- ``metadata``: step 4, title, authors, DOI and year from page 1;
- ``assemble``: step 5, blocks → abstract, keywords, sections, captions, reference lines;
- ``tei``: the document → GROBID-shaped TEI XML, with GROBID's ``coords`` (page and box) on
  paragraphs, heads and figures;
- ``analyse``: runs the steps on an opened PDF.
"""

from pathlib import Path

import pdfplumber

from geo_assets.ingest.pdf.analyse import analyse
from geo_assets.ingest.pdf.tei import EMBEDDED_PRODUCER, EMBEDDED_VERSION, to_tei
from geo_rag_runtime.errors import PdfError

__all__ = ["EMBEDDED_PRODUCER", "EMBEDDED_VERSION", "pdf_to_tei"]


def pdf_to_tei(path: Path) -> str:
    """Convert a text PDF into GROBID-shaped TEI XML (string) with the embedded layout parser.

    Raises ``PdfError`` (naming the file) when the PDF cannot be opened or has no text layer.
    """
    path = Path(path)
    try:
        pdf = pdfplumber.open(path)
    except Exception as exc:  # pdfminer's errors have no common base class
        raise PdfError(f"{path}: cannot be opened as a PDF: {exc}") from exc
    with pdf:
        try:
            pages = len(pdf.pages)
        except Exception as exc:  # encrypted with a password, broken page tree
            raise PdfError(f"{path}: cannot be opened as a PDF: {type(exc).__name__}: {exc}") from exc
        if not pages:
            raise PdfError(f"{path}: the PDF has no pages")
        doc = analyse(pdf, str(path))
    return to_tei(doc)
