"""The analysed document: what the layout steps fill in and the TEI writer reads.

Plain dataclasses without behaviour (each text, and where it is printed as a GROBID-style
``coords`` string kept parallel to the texts), in a module of their own so that front matter
(``metadata``), body assembly (``assemble``) and output (``tei``) share them without importing
each other.
"""

from dataclasses import dataclass, field

from geo_assets.ingest.pdf.references import Reference
from geo_assets.ingest.pdf.tables import PageTable


@dataclass
class Section:
    heading: str
    number: str | None
    paragraphs: list[str] = field(default_factory=list)
    kind: str = "body"  # body | back
    # GROBID-style ``coords`` ("page,x,y,w,h;...") of the head and of each paragraph (parallel)
    head_coords: str = ""
    paragraph_coords: list[str] = field(default_factory=list)


@dataclass
class Document:
    title: str = ""
    authors: list[str] = field(default_factory=list)
    doi: str | None = None
    year: str | None = None
    keywords: list[str] = field(default_factory=list)
    abstract: list[str] = field(default_factory=list)
    abstract_coords: list[str] = field(default_factory=list)  # parallel to ``abstract``
    sections: list[Section] = field(default_factory=list)
    captions: list[tuple[str, str, str]] = field(default_factory=list)  # kind, label, text
    caption_coords: list[str] = field(default_factory=list)  # parallel to ``captions``
    references: list[Reference] = field(default_factory=list)
    tables: list[PageTable] = field(default_factory=list)  # cells under "Table N" captions
