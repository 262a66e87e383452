"""Domain models shared by ingest (geo_assets) and query time (this package).

Pydantic models so data is validated where it enters and serializes straight into the document
store (``model_dump()``) and JSON output.
"""

from __future__ import annotations

from typing import Annotated, Any, Final, Literal

from pydantic import BaseModel, ConfigDict, Field

# Models of the answer contract: every field is always present in the JSON (null where unknown), and
# the OpenAPI schema of `POST /ask` says so.
_ALWAYS_PRESENT = ConfigDict(json_schema_serialization_defaults_required=True)

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
# value is shown with the one it holds (query/reported_values), so both read this one list.
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
    # wt.%, ppm, ppb, mol%, ‰, epsilon, Ma, ka, Ga, °C, K, GPa, kbar, ratio, % or ""; a table's unit
    # outside that vocabulary as printed ("pmol", "×10^3", "×1000 at g−1", "m Ma−1")
    unit: str = ""
    uncertainty: float | None = None
    uncertainty_level: str = ""  # 1σ, 2σ, 2SE … only when the paper states it
    qualifier: str = ""  # <, >, ~, range, bdl, nd
    sample: str = ""  # as printed ("19MAT-169", "KIL-1; KIL-2"; typographic hyphens made ASCII)
    # the paper's one printing of the same sample(s): FC4b and FC-4b in one paper share it
    sample_key: str = ""
    # the named rock unit the value describes, as printed with the rocks the sentence names ("mafic
    # rocks from the Ulgey bimodal volcanic suite", "Nisa-Albuquerque pluton"); "" when none is said
    rock_unit: str = ""
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


class Statement(BaseModel):
    """What a graph fact states: canonical entity names and types, and the relation between them."""

    head: str
    head_type: str = ""
    relation: str
    tail: str
    tail_type: str = ""


class RetrievedItem(BaseModel):
    """One retrieved piece of context: a chunk (vector/keyword) or a fact (a graph fact, or a
    reported value when ``retriever`` is ``"measurements"``)."""

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
    statement: Statement | None = None  # graph facts: the (head, relation, tail) they state
    measurement: Measurement | None = None  # reported values: the measurement row shown


class Citation(BaseModel):
    """What an answer cites: the paper, the chunk, and the PDF pages the cited text lies on."""

    model_config = _ALWAYS_PRESENT

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


# --------------------------------------------------------------------------- the answer contract

ANSWER_SCHEMA_VERSION: Final = "answer-2"
"""The version of the answer object (``Answer.schema_version``) that ``geo-rag ask --json`` prints and
``POST /ask`` returns (docs/user-guide.md#the---json-object). ``answer-2``: ``contexts`` is a list of
typed items (passage, fact, value) in marker order. Answers without the field are the first shape,
where ``contexts`` was ``{"VectorRAG_Context": {"0": ...}, "GraphRAG_Context": {"0": ...}}``."""


class PassageContext(BaseModel):
    """A retrieved passage (``[V0]``, ``[V1]`` …): a chunk of a paper, or neighbouring chunks of one
    paper stitched into one passage at retrieval."""

    model_config = _ALWAYS_PRESENT

    kind: Literal["passage"] = "passage"
    marker: str = Field(pattern=r"^V\d+$", description='the citation marker the answer uses, e.g. "V0"')
    text: str
    chunk_id: str | None = Field(default=None, description="the passage's best chunk (cited by it)")
    paper_id: str | None = None
    source_file: str | None = None
    title: str | None = None
    section: str | None = None
    page_start: int | None = Field(default=None, description="first PDF page (1-based) of the text")
    page_end: int | None = None
    score: float = 0.0
    retriever: str = Field(default="", description='what found it: "dense", "sparse", "fused" …')
    chunk_ids: list[str] = Field(
        default_factory=list, description="every chunk the passage holds, best first (several when stitched)"
    )


class SourceLocation(BaseModel):
    """Where a fact or a value was read: paper, chunk, file, title and pages (shared by both kinds)."""

    model_config = _ALWAYS_PRESENT

    paper_id: str | None = None
    chunk_id: str | None = None
    source_file: str | None = None
    title: str | None = None
    page_start: int | None = None
    page_end: int | None = None


class FactSource(SourceLocation):
    """One extracted triple that states a graph fact: where it was read."""

    sentence: str | None = Field(default=None, description="the sentence the triple was extracted from")
    extractor: str | None = None
    confidence: float | None = None
    triple_id: str | None = None


class FactContext(BaseModel):
    """A knowledge-graph fact (``[G0]`` …): (head, relation, tail) with every triple that states it."""

    model_config = _ALWAYS_PRESENT

    kind: Literal["fact"] = "fact"
    marker: str = Field(pattern=r"^G\d+$", description='the citation marker the answer uses, e.g. "G0"')
    text: str = Field(description='the fact as read, e.g. "Magnetite CONTAINS Fe"')
    head: str = ""
    head_type: str = ""
    relation: str = ""
    tail: str = ""
    tail_type: str = ""
    sentence: str | None = Field(default=None, description="the source sentence of the first triple")
    score: float = 0.0
    retriever: str = "graph"
    provenance: list[FactSource] = Field(default_factory=list, description="best supported first")


class ValueSource(SourceLocation):
    """Where a reported value is printed: the paper, page, and table cell or text offsets."""

    measurement_id: str | None = None
    table_label: str | None = None
    row: str | None = None
    column: str | None = None
    char_start: int | None = None
    char_end: int | None = None


class ValueContext(BaseModel):
    """A reported value (``[G0]`` …): a measurement row of the papers the passages come from (the
    same row ``geo-rag measurements`` lists). Values share the ``G`` markers with graph facts."""

    model_config = _ALWAYS_PRESENT

    kind: Literal["value"] = "value"
    marker: str = Field(pattern=r"^G\d+$", description='the citation marker the answer uses, e.g. "G0"')
    text: str = Field(description="the row as read, with its sample, method and table cell or sentence")
    analyte: str = ""
    value: float | None = Field(default=None, description="null for below detection / not determined")
    value_max: float | None = Field(default=None, description="the high end of a range")
    unit: str = ""
    uncertainty: float | None = None
    uncertainty_level: str = ""
    qualifier: str = Field(default="", description="<, >, ~, range, bdl, nd")
    printed: str = Field(default="", description="the value group as printed")
    sample: str = ""
    rock_unit: str = Field(
        default="", description='the named rock unit the value describes, e.g. "Mukhar formation"'
    )
    material: str = ""
    method: str = ""
    source_type: str = Field(default="", description='"table" or "text"')
    section: str | None = None
    score: float = 0.0
    retriever: str = "measurements"
    provenance: list[ValueSource] = Field(default_factory=list)


Context = Annotated[PassageContext | FactContext | ValueContext, Field(discriminator="kind")]
"""One item of ``Answer.contexts``, told apart by ``kind``."""


class Answer(BaseModel):
    """The `geo-rag ask --json` object and the `POST /ask` body (docs/user-guide.md#the---json-object);
    :func:`answer_json` serializes it for both."""

    model_config = _ALWAYS_PRESENT

    schema_version: Literal["answer-2"] = ANSWER_SCHEMA_VERSION
    question: str
    category: QueryType
    strategy: str
    answer: str
    generator: str
    citations: list[Citation] = Field(default_factory=list)
    # passages (V0, V1 …), then facts and reported values (G0, G1 …): every marker names one item
    contexts: list[Context] = Field(default_factory=list)
    timings_ms: dict[str, float] = Field(default_factory=dict)
    mode: Literal["hybrid", "baseline"] = "hybrid"
    notes: list[str] = Field(default_factory=list)  # degradations, fallbacks, low-confidence routing
    classification: dict[str, Any] = Field(default_factory=dict)
    # ``name@vN`` of every prompt template sent to an LLM for this answer (geo_rag_runtime.prompts)
    prompts: list[str] = Field(default_factory=list)


def answer_json(answer: Answer) -> str:
    """The one serialization of an answer: what ``geo-rag ask --json`` prints and ``POST /ask``
    returns (also the final event of a streamed answer)."""
    return answer.model_dump_json()
