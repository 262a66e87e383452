"""Domain models shared by ingest (geo_assets) and query time (this package).

Pydantic models so data is validated where it enters and serializes straight into the document
store (``model_dump()``) and JSON output.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field

QueryType = Literal["explicit_fact", "implicit_reasoning", "interpretable_rationale", "hidden_rationale"]
QUERY_TYPES: tuple[QueryType, ...] = (
    "explicit_fact",
    "implicit_reasoning",
    "interpretable_rationale",
    "hidden_rationale",
)


class Author(BaseModel):
    name: str
    affiliation: str | None = None
    email: str | None = None


class Reference(BaseModel):
    """One bibliography entry of a paper."""

    ref_id: str | None = None
    title: str | None = None
    authors: list[str] = Field(default_factory=list)
    year: str | None = None
    venue: str | None = None
    doi: str | None = None
    raw: str | None = None


class Caption(BaseModel):
    """A figure or table caption (kind = 'figure' | 'table'); a table also keeps its cells when the
    TEI has them (GROBID's ``<table><row><cell>``), header rows first, and its footnote."""

    kind: Literal["figure", "table"]
    label: str | None = None
    text: str
    page: int | None = None  # 1-based PDF page, when the TEI carries coordinates
    rows: list[list[str]] = Field(default_factory=list)
    note: str = ""


class Section(BaseModel):
    """A section of the paper body: heading (may be empty) and its paragraphs in order."""

    heading: str = ""
    number: str | None = None
    paragraphs: list[str] = Field(default_factory=list)
    # 1-based PDF page on which each paragraph starts (parallel to ``paragraphs``); empty when the
    # TEI has no coordinates (GROBID without teiCoordinates), None for a paragraph without them
    paragraph_pages: list[int | None] = Field(default_factory=list)

    def page_of(self, index: int) -> int | None:
        return self.paragraph_pages[index] if index < len(self.paragraph_pages) else None


class Paper(BaseModel):
    """A paper as extracted from TEI: metadata, abstract, sections, captions, references."""

    paper_id: str
    source_file: str
    sha256: str
    title: str = ""
    authors: list[Author] = Field(default_factory=list)
    doi: str | None = None
    year: str | None = None
    venue: str | None = None
    keywords: list[str] = Field(default_factory=list)
    abstract: str = ""
    abstract_page: int | None = None
    sections: list[Section] = Field(default_factory=list)
    captions: list[Caption] = Field(default_factory=list)
    references: list[Reference] = Field(default_factory=list)
    tei_producer: str = ""  # e.g. "GROBID 0.8.1" or "georag-embedded-pdf 0.1 (pdfplumber 0.11.10)"


class CleanSection(BaseModel):
    """A section of cleaned, readable text with its place in ``CleanedPaper.text``."""

    heading: str
    kind: Literal["abstract", "body", "captions", "tables", "references"] = "body"
    text: str
    char_start: int
    char_end: int


class CleanedPaper(BaseModel):
    """Readable normalized text (for embedding and answering) plus the keyword token stream."""

    paper_id: str
    source_file: str
    title: str
    text: str
    sections: list[CleanSection]
    tokens: list[str] = Field(default_factory=list)  # normalized stream of the whole text
    # (char offset, 1-based page): the text from this offset on starts on that page, sorted by offset
    page_marks: list[tuple[int, int]] = Field(default_factory=list)
    # share of the PDF text layer's words that reached ``text`` (None: not measured), what it means,
    # and the pages whose lost text was recovered from the text layer (geo_assets.ingest.coverage)
    coverage: float | None = None
    coverage_note: str = ""
    recovered_pages: list[int] = Field(default_factory=list)


class Chunk(BaseModel):
    """A token window of a paper, the unit of vector and keyword retrieval."""

    chunk_id: str
    paper_id: str
    source_file: str
    title: str = ""
    section: str = ""
    ordinal: int
    char_start: int
    char_end: int
    token_count: int
    text: str
    tokens: list[str] = Field(default_factory=list)  # normalized keyword stream of this chunk
    page_start: int | None = None  # 1-based PDF pages the chunk's text lies on (None: unknown)
    page_end: int | None = None


# How a qualifier is printed before a value in running text ("~", "ca.", "up to" …), as regex
# alternatives: the text extractor reads them (geo_assets/measurements/text_values) and a row's printed
# value is shown with the one it holds (query/values), so both read this one list.
PRINTED_QUALIFIERS = (
    "[~∼≈<>≤≥≲≳]", r"ca\.", r"c\.", "about", "approximately", "up to", "as high as", "as low as",
)  # fmt: skip


class Measurement(BaseModel):
    """One reported value as data: what was measured, the number, its unit and uncertainty, and
    where the paper says it (page, and the table cell or the sentence with character offsets).

    Ranges keep the low end in ``value`` and the high end in ``value_max`` (``qualifier="range"``);
    "below detection" and "not determined" are ``value=None`` with qualifier ``bdl`` / ``nd``, never 0.
    """

    measurement_id: str
    paper_id: str
    source_file: str
    source_type: Literal["text", "table"]
    analyte: str
    value: float | None
    value_max: float | None = None
    unit: str = ""  # wt.%, ppm, ppb, ‰, epsilon, Ma, ka, Ga, °C, K, GPa, kbar, ratio, % or ""
    uncertainty: float | None = None
    uncertainty_level: str = ""  # 1σ, 2σ, 2SE … only when the paper states it
    qualifier: str = ""  # <, >, ~, range, bdl, nd
    sample: str = ""  # as printed ("19MAT-169", "KIL-1; KIL-2"; typographic hyphens made ASCII)
    # the paper's one printing of the same sample(s): FC4b and FC-4b in one paper share it
    sample_key: str = ""
    material: str = ""
    method: str = ""
    page: int | None = None
    section: str = ""
    chunk_id: str = ""
    sentence: str = ""  # text rows: the sentence; value at sentence[start - sentence_start : …]
    char_start: int = -1  # the printed value group in the cleaned paper text
    char_end: int = -1
    table_label: str = ""
    row: str = ""
    column: str = ""
    printed: str = ""  # the value group as printed, e.g. "0.70350 ± 0.00002"
    notes: list[str] = Field(default_factory=list)
    extractor: str = ""


class Entity(BaseModel):
    """A recognized geochemical entity: canonical ``name`` of a vocabulary ``type``, where found."""

    name: str
    type: str
    surface: str
    start: int = -1
    end: int = -1


class Triple(BaseModel):
    """(head, relation, tail) with the provenance that leads back to the text."""

    triple_id: str
    head: str
    head_type: str
    relation: str
    tail: str
    tail_type: str
    paper_id: str
    chunk_id: str
    sentence: str
    extractor: str
    confidence: float = 1.0
    attributes: dict[str, Any] = Field(default_factory=dict)  # e.g. value / unit of a measurement


class RetrievedItem(BaseModel):
    """One retrieved piece of context: a chunk (vector/keyword) or a graph fact."""

    kind: Literal["chunk", "fact"] = "chunk"
    text: str
    score: float = 0.0
    retriever: str = ""  # "dense", "sparse", "fused", "graph", ...
    chunk_id: str | None = None
    paper_id: str | None = None
    source_file: str | None = None
    title: str | None = None
    section: str | None = None
    page_start: int | None = None
    page_end: int | None = None
    provenance: list[dict[str, Any]] = Field(default_factory=list)  # for facts: triple provenance


class Citation(BaseModel):
    """What an answer cites: the paper, the chunk, and the PDF pages the cited text lies on."""

    paper_id: str
    chunk_id: str
    source_file: str
    title: str
    page_start: int | None = None
    page_end: int | None = None

    @property
    def pages(self) -> str:
        """ "p. 3", "pp. 3–4", or "" when unknown."""
        if self.page_start is None:
            return ""
        if self.page_end is None or self.page_end == self.page_start:
            return f"p. {self.page_start}"
        return f"pp. {self.page_start}–{self.page_end}"


def empty_contexts() -> dict[str, dict[str, Any]]:
    """The method's context dictionary (docs/method.md#the-merged-context) with nothing retrieved."""
    return {"VectorRAG_Context": {}, "GraphRAG_Context": {}}


class Answer(BaseModel):
    """The `geo-rag ask --json` object (docs/user-guide.md#the---json-object)."""

    question: str
    category: QueryType
    strategy: str
    answer: str
    generator: str
    citations: list[Citation] = Field(default_factory=list)
    contexts: dict[str, dict[str, Any]] = Field(default_factory=lambda: empty_contexts())
    timings_ms: dict[str, float] = Field(default_factory=dict)
    mode: Literal["hybrid", "baseline"] = "hybrid"
    notes: list[str] = Field(default_factory=list)  # degradations, fallbacks, low-confidence routing
    classification: dict[str, Any] = Field(default_factory=dict)
    # ``name@vN`` of every prompt template sent to an LLM for this answer (geo_rag_runtime.prompts)
    prompts: list[str] = Field(default_factory=list)
