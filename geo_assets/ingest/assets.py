"""Ingest stage: PDF -> TEI -> paper JSON -> cleaned text -> chunks in the document store.

Each asset body reads its inputs, calls one plain function from this stage's helper modules, writes, and
returns metadata. Bad input fails its own partition with a message that names the file; a
duplicate of an already ingested paper (same bytes) yields no output, so its downstream steps are
skipped, and says so in the log and in an observation.
"""

import hashlib
import time
from pathlib import Path
from typing import Any

import dagster as dg

from geo_assets.ingest import registry, retire
from geo_assets.ingest.convert import convert_pdf
from geo_assets.partitions import PAPERS, papers_partitions
from geo_assets.resources import (
    DocumentStoreResource,
    EmbedderResource,
    GeoRagResource,
    HomeWriterResource,
    PdfToTeiResource,
)
from geo_rag_runtime import contract
from geo_rag_runtime.errors import GeoRagError
from geo_rag_runtime.models import CleanedPaper, Paper
from geo_rag_runtime.stores import publication


def _fail(source: str, exc: Exception) -> dg.Failure:
    """A partition failure whose message names the file; not retried (the input is bad)."""
    return dg.Failure(
        description=f"{source}: {exc}",
        metadata={"file": source, "error": type(exc).__name__},
        allow_retries=False,
    )


@dg.observable_source_asset(
    partitions_def=papers_partitions,
    group_name="ingest",
    description="The PDF of each registered paper; its data version is the SHA-256 of its bytes, so "
    "replacing a PDF marks everything downstream of its partition stale.",
)
def raw_pdf(context: dg.OpExecutionContext, documents: DocumentStoreResource) -> dg.DataVersionsByPartition:
    with documents.open(read_only=True) as store:
        paths = registry.registered(store)
    versions: dict[str, dg.DataVersion] = {}
    for key in context.instance.get_dynamic_partitions(PAPERS):
        path = paths.get(key)
        sha = contract.file_sha256(path) if path is not None and path.is_file() else "missing"
        versions[key] = dg.DataVersion(sha)
    return dg.DataVersionsByPartition(versions)


@dg.asset(
    partitions_def=papers_partitions,
    deps=[raw_pdf],
    group_name="ingest",
    kinds={"pdf", "xml"},
    # 26: a head's lines are joined as running text is, so a syllable broken at its end is one word
    # again ("IMPORTANCE OF BE-" / "ING": "BEING", where the paper writes "being") (parser 0.2.23);
    # 25: a bold head that wraps before the column's edge is one head ("… Bands for Smooth" /
    # "Histograms"); authors' addresses numbered like heads are front matter, not sections (parser 0.2.22);
    # 24: an OCR text layer's words keep their spaces (a word that starts left of the space before it
    # is still the next word: "relationship of", not "relationshipo f") (parser 0.2.21);
    # 23: a note under a table set smaller than the page's prose is its footnote even with no mark
    # ("Trace elements in ppm by XRF …") (parser 0.2.20);
    # 22: a table under a short caption in the left column of two reaches past the page's middle to
    # the gutter before the other column's prose; ranges and coordinates count as numbers in a data
    # line (a sample table's depositional ages and locations) (parser 0.2.19);
    # 21: "Table A1 in the Data Repository" in running text is no caption (the word after a label's
    # number, not the number, must start its title), so no table is read twice (parser 0.2.18);
    # 20: a line of column heads between data lines ends the block even where it starts at the row
    # labels' column or stands over a line of units (an Ar–Ar table's results block) (parser 0.2.17);
    # 19: a wide DataFrame printed in blocks of columns ends a block at the next block's heads, and a
    # block of two rows at the foot of a page is a table the next page carries on (parser 0.2.16);
    # 18: a table set in smaller type than a diagram or reference list beside it keeps its own lines
    # (its rows had joined the larger lines they overlap, in pairs); a caption ends where its words
    # end, not at a running head on its line; column heads set beside a short caption are the table's
    # header; a sparse compilation's empty first block and last rows of one value belong to it, its
    # columns filled in a few rows only are columns, a unit beside the row label stays in the label;
    # a head wider than its column stays whole, "n = 10" is one label (parser 0.2.15);
    # 17: the symbols Elsevier's maths font names wrongly ("¼" for "=", no Unicode for its minus, "±"
    # and degree sign) are read by their glyph names, so negative values keep their sign (parser 0.2.14);
    # 16: each page of a table captioned on some pages and carried on without a caption on others keeps
    # its own page (its cells were paired with the caption entries in list order, not by page); a
    # table without a caption ruled cell by cell (more straight strokes than cells) is no figure;
    # captions numbered in Roman numerals or by section ("Table II", "Table 3.1"), and a list of tables'
    # entry ("Table 3 … ···· 12") no caption (parser 0.2.13);
    # 15: a bare table's row-label heading set between two header lines ("No. Sample") is part of its
    # header, and column heads set wider apart than a phrase's words are no group header; a letter mark
    # beside a value ("40 (a)") is no word of a data line, a sparse table's rows of one value or none
    # do not end it, and its first data line reaching past the middle makes it as wide as the page
    # (parser 0.2.12);
    # 14: an abstract read line by line across Elsevier's article-info box goes on past its "Article
    # history:" and "Keywords:" lines, letter-spaced heads ("A B S T R A C T") are known heads, the
    # copyright or licence line under an abstract is no part of it; middle-dot decimal points are
    # numbers and raised digits after a table cell are printed as superscripts (parser 0.2.11);
    # 13: a publisher's cover notice is no front matter, a journal banner no title, a bold title barely
    # larger than the text is the title, authors' address blocks are no abstract, a side of the page
    # with a gutter of its own is read as two columns (three-column pages) (parser 0.2.10);
    # 12: rows with descriptions, bylines of new layouts (parser 0.2.9);
    # 11: a glyph whose type size differs in the last digits stays in its word ("−0.55", not "−0 . 55");
    # one number past the middle under a short caption makes the table as wide as the page;
    # 10: a bold "Table 1" alone on its line keeps the title below it; a caption stops a line above
    # the table's header; 9: a manuscript's line numbers left out, a supplement's "Text S1" heads
    # open its body; 8: "Table DR1" captions, sample section rows, group headers set at their columns' left;
    # 7: tables carried onto the next page, bare tables' header lines; 6: tables without a caption,
    # group headers; 5: wide tables under a short caption
    code_version="tei-26",
    pool="grobid",
    output_required=False,
    check_specs=[dg.AssetCheckSpec("tei_non_empty", asset="tei_xml")],
    description="GROBID TEI XML of the paper (or the embedded parser's GROBID-shaped TEI when no "
    "GROBID_URL is set), written to GEO_RAG_HOME/tei/<paper_id>.tei.xml. The producer is recorded.",
)
def tei_xml(
    context: dg.AssetExecutionContext,
    geo: GeoRagResource,
    pdf_to_tei: PdfToTeiResource,
    documents: DocumentStoreResource,
    home_writer: HomeWriterResource,  # the home's writer lock, held for the run
):
    from geo_assets.ingest.pdf_checks import validate_pdf
    from geo_assets.ingest.tei import tei_producer

    settings = geo.settings()
    key = context.partition_key
    with documents.open() as store:
        path = registry.lookup(store, key)
        if path is None:
            raise dg.Failure(
                description=f"{key}: not registered; run `geo-rag ingest PATH` or add it to "
                f"{settings.papers}",
                allow_retries=False,
            )
        started = time.perf_counter()
        try:
            pages = validate_pdf(path, settings.max_pdf_mb, require_text=True)
        except GeoRagError as exc:
            raise _fail(path.name, exc) from exc
        sha = contract.file_sha256(path)
        paper_id = contract.paper_id_from_sha256(sha)
        existing = store.find_paper_by_sha256(sha)
    if existing and existing.get("partition_key") not in (None, key):
        message = (
            f"{path.name}: duplicate of already ingested {existing.get('source_file')} "
            f"(paper {paper_id}, same bytes); skipped"
        )
        context.log.warning(message)
        yield dg.AssetCheckResult(check_name="tei_non_empty", passed=True, metadata={"skipped": message})
        yield dg.AssetObservation(
            asset_key="tei_xml",
            partition=key,
            metadata={"duplicate_of": str(existing.get("source_file")), "paper_id": paper_id},
        )
        return
    try:
        tei = convert_pdf(pdf_to_tei.settings(), path)
    except GeoRagError as exc:
        raise _fail(path.name, exc) from exc
    out = settings.path("tei") / f"{paper_id}.tei.xml"
    out.write_text(tei, encoding="utf-8")
    producer = tei_producer(tei)
    value = {
        "paper_id": paper_id,
        "sha256": sha,
        "source_file": path.name,
        "source_path": str(path),
        "tei_path": str(out),
        "producer": producer,
        "partition_key": key,
    }
    yield dg.AssetCheckResult(
        check_name="tei_non_empty",
        passed=len(tei.strip()) > 0 and "<TEI" in tei,
        metadata={"bytes": len(tei)},
    )
    yield dg.Output(
        value,
        data_version=dg.DataVersion(hashlib.sha256(tei.encode("utf-8")).hexdigest()[:16]),
        metadata={
            "paper_id": paper_id,
            "producer": producer,
            "pages": pages,
            "bytes": len(tei),
            "path": dg.MetadataValue.path(str(out)),
            "seconds": round(time.perf_counter() - started, 2),
        },
    )


@dg.asset(
    partitions_def=papers_partitions,
    group_name="ingest",
    kinds={"json", "mongodb"},
    code_version="paper-json-3",
    pool="docstore",
    check_specs=[dg.AssetCheckSpec("has_title_and_sections", asset="paper_json")],
    description="Metadata, abstract, sections with paragraphs, captions and references parsed from the "
    "TEI by one parser for GROBID and embedded TEI; upserted into the document store's `papers`.",
)
def paper_json(tei_xml: dict[str, Any], documents: DocumentStoreResource, home_writer: HomeWriterResource):
    from geo_assets.ingest.tei import tei_to_paper

    tei = Path(tei_xml["tei_path"]).read_text(encoding="utf-8")
    try:
        paper = tei_to_paper(
            tei, paper_id=tei_xml["paper_id"], source_file=tei_xml["source_file"], sha256=tei_xml["sha256"]
        )
    except GeoRagError as exc:
        raise _fail(tei_xml["source_file"], exc) from exc
    paper.tei_producer = paper.tei_producer or tei_xml["producer"]
    with documents.open() as store:
        store.upsert_paper(
            paper, partition_key=tei_xml["partition_key"], source_path=tei_xml["source_path"], status="parsed"
        )
    paragraphs = sum(len(s.paragraphs) for s in paper.sections)
    yield dg.AssetCheckResult(
        check_name="has_title_and_sections",
        passed=bool(paper.title.strip()) and len(paper.sections) >= 1,
        metadata={"title": paper.title or "(none)", "sections": len(paper.sections)},
    )
    yield dg.Output(
        paper,
        data_version=dg.DataVersion(contract.text_hash(paper.model_dump_json(), 16)),
        metadata={
            "title": paper.title,
            "doi": paper.doi or "",
            "sections": len(paper.sections),
            "paragraphs": paragraphs,
            "references": len(paper.references),
            "captions": len(paper.captions),
            "producer": paper.tei_producer,
        },
    )


@dg.asset(
    partitions_def=papers_partitions,
    group_name="ingest",
    # 10: parts of a word pypdf split with a space ("drilli ng") count as read where the text has the
    # word, so pages read whole are no longer recovered; 9: a line-numbered manuscript's pages are
    # judged without their margin numbers, so its pages of author lines are no longer recovered;
    # 8: on a page where pypdf could not decode a font, lines of its debris (CJK for Latin text) are
    # not recovered; coverage reads words NFKC-normalized ("ﬁ" is "fi"); 7: sentences of a paragraph
    # that runs over a page break are on the page that prints them; 6: a middle-dot decimal point is
    # "." ("66·0" → "66.0", as "−" → "-"); 5: pages below 0.9 (was 0.8) are filled in from the text
    # layer
    code_version="clean-10",
    check_specs=[dg.AssetCheckSpec("text_coverage", asset="cleaned_text")],
    description="Readable normalized text (ligatures, hyphenation, headers/footers and control "
    "characters removed; notation such as 87Sr/86Sr, δ18O, εNd, U(IV) kept) with section offsets, "
    "plus the normalized token stream for keyword retrieval. Pages the parser lost are recovered "
    "from the PDF's text layer, each sentence is placed on the page that prints it, and the share of the text layer that reached the text is measured "
    "(coverage): the check warns below 0.9 and fails below 0.6, naming the pages.",
)
def cleaned_text(context: dg.AssetExecutionContext, paper_json: Paper, documents: DocumentStoreResource):
    from geo_assets.ingest.cleaned_paper import clean_paper
    from geo_assets.ingest.coverage import FAIL_BELOW, TextLayer, measure_coverage, text_layer
    from geo_assets.ingest.page_breaks import place_page_breaks
    from geo_assets.ingest.recovery import recover_lost_text

    with documents.open(read_only=True) as store:
        path = registry.lookup(store, context.partition_key)
    layer = TextLayer([])
    if path is not None and path.is_file():
        try:
            layer = text_layer(path)
        except Exception as exc:  # pypdf could not read it again: the text is kept, coverage unknown
            context.log.warning(f"{paper_json.source_file}: text layer unreadable for coverage: {exc}")
    cleaned = clean_paper(paper_json)
    recovered: list[int] = []
    pages = layer.pages
    if pages:
        parsed = measure_coverage(pages, cleaned.text, layer.undecoded).share
        paper, recovered = recover_lost_text(paper_json, pages, layer.undecoded)
        if recovered:  # cleaned again only when pages were added
            cleaned = clean_paper(paper)
        cleaned = place_page_breaks(cleaned, pages)  # a paragraph's sentences on the page that prints them
    metadata: dict[str, Any] = {
        "characters": len(cleaned.text),
        "sections": len(cleaned.sections),
        "keyword_tokens": len(cleaned.tokens),
    }
    if pages:
        coverage = measure_coverage(pages, cleaned.text, layer.undecoded)
        cleaned.coverage = round(coverage.share, 4)
        cleaned.coverage_note = coverage.reason()
        cleaned.recovered_pages = recovered
        metadata.update(coverage.as_metadata())
        metadata["parser_coverage"] = round(parsed, 4)
        metadata["recovered_pages"] = recovered
        if coverage.level != "ok":
            context.log.warning(f"{paper_json.source_file}: {coverage.reason()}")
        yield dg.AssetCheckResult(
            check_name="text_coverage",
            passed=coverage.level == "ok",
            severity=dg.AssetCheckSeverity.ERROR if coverage.level == "fail" else dg.AssetCheckSeverity.WARN,
            description=coverage.reason()
            + (
                f" (below {FAIL_BELOW:.0%}: most of the paper is not in the knowledge base)"
                if coverage.level == "fail"
                else ""
            ),
            metadata={**coverage.as_metadata(), "recovered_pages": recovered},
        )
    else:
        yield dg.AssetCheckResult(
            check_name="text_coverage",
            passed=True,
            severity=dg.AssetCheckSeverity.WARN,
            description="not measured: the PDF could not be read again",
        )
    yield dg.Output(
        cleaned, data_version=dg.DataVersion(contract.text_hash(cleaned.text, 16)), metadata=metadata
    )


@dg.asset(
    partitions_def=papers_partitions,
    group_name="ingest",
    kinds={"mongodb"},
    code_version="chunks-3",
    pool="docstore",
    check_specs=[
        dg.AssetCheckSpec("no_chunk_over_limit", asset="chunks"),
        dg.AssetCheckSpec("chunk_ids_unique", asset="chunks"),
    ],
    description="Section-aware windows of GEO_RAG_CHUNK_TOKENS (512) tokens with GEO_RAG_CHUNK_OVERLAP "
    "(100) overlap, counted with the embedding model's tokenizer, upserted into `chunks` by "
    "deterministic id (stale chunks of the paper removed).",
)
def chunks(
    context: dg.AssetExecutionContext,
    cleaned_text: CleanedPaper,
    geo: GeoRagResource,
    embedder: EmbedderResource,
    documents: DocumentStoreResource,
    home_writer: HomeWriterResource,
):
    from geo_assets.ingest.chunking import chunk_paper

    settings = geo.settings()
    counter = embedder.token_counter()
    made = chunk_paper(
        cleaned_text, counter, max_tokens=settings.chunk_tokens, overlap=settings.chunk_overlap
    )
    # from here until published_paper the paper's stores change: questions leave it out
    publication.mark_building(settings.home_dir, cleaned_text.paper_id, context.run_id)
    with documents.open() as store:
        written = store.replace_chunks(cleaned_text.paper_id, made)
        store.set_paper_fields(
            cleaned_text.paper_id,
            status="chunked",
            chunk_count=len(made),
            coverage=cleaned_text.coverage,
            coverage_note=cleaned_text.coverage_note,
            recovered_pages=cleaned_text.recovered_pages,
        )
    ids = [c.chunk_id for c in made]
    largest = max((c.token_count for c in made), default=0)
    yield dg.AssetCheckResult(
        check_name="no_chunk_over_limit",
        passed=largest <= settings.chunk_tokens,
        metadata={"largest": largest, "limit": settings.chunk_tokens},
    )
    yield dg.AssetCheckResult(
        check_name="chunk_ids_unique", passed=len(set(ids)) == len(ids), metadata={"chunks": len(ids)}
    )
    context.log.info(f"{cleaned_text.source_file}: {len(made)} chunks ({written})")
    yield dg.Output(
        {"paper_id": cleaned_text.paper_id, "source_file": cleaned_text.source_file, "chunk_ids": ids},
        data_version=dg.DataVersion(contract.text_hash("|".join(ids), 16)),
        metadata={
            "chunks": len(made),
            "largest_tokens": largest,
            "tokenizer": counter.name,
            "mean_tokens": round(sum(c.token_count for c in made) / max(len(made), 1), 1),
            "stale_deleted": written["deleted_stale"],
        },
    )


@dg.asset(
    partitions_def=papers_partitions,
    group_name="ingest",
    kinds={"mongodb"},
    code_version="published-1",
    pool="docstore",
    description="The paper is complete in every store (vectors and keyword index, graph, measurement "
    "rows): questions may use it. `chunks` marks a paper building before it rewrites anything and "
    "questions leave building papers out, so a question asked during an ingest is answered from the "
    "papers last completed; a paper whose rebuild fails stays hidden until a rerun succeeds.",
)
def published_paper(
    context: dg.AssetExecutionContext,
    chunk_embeddings: dict[str, Any],
    knowledge_graph: dict[str, Any],
    measurements: dict[str, Any],
    geo: GeoRagResource,
    documents: DocumentStoreResource,
    home_writer: HomeWriterResource,
):
    paper_id = str(chunk_embeddings["paper_id"])
    settings = geo.settings()
    with documents.open() as store:
        store.set_paper_fields(paper_id, status="published")
        publication.mark_published(settings.home_dir, paper_id)
        if publication.mark_unretired(settings.home_dir, paper_id):  # ingested again: wanted again
            context.log.info(f"{paper_id}: was retired; published again, so no longer retired")
        # the PDF's bytes changed under the same name: its earlier version steps aside (kept until purged)
        for old in retire.retire_replaced(settings, store, context.partition_key, paper_id):
            context.log.info(
                f"{old}: replaced by {paper_id} (retired: `geo-rag unretire {old}` brings it back)"
            )
    context.log.info(f"{paper_id}: published")
    return dg.Output(
        {"paper_id": paper_id},
        metadata={
            "vectors": chunk_embeddings.get("vectors", 0),
            "facts": knowledge_graph.get("facts", 0),
            "measurements": measurements.get("measurements", 0),
        },
    )
