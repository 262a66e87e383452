"""The per-paper text stages in one call, for scripts and tests that need real chunks without Dagster.

The assets run these same steps one asset at a time (tei_xml → paper_json → cleaned_text → chunks);
this is the same composition for benchmarks and test fixtures, so they cannot drift from it.
"""

from pathlib import Path

from geo_assets.ingest.chunking import chunk_paper
from geo_assets.ingest.cleaned_paper import clean_paper
from geo_assets.ingest.pdf import pdf_to_tei
from geo_assets.ingest.tei import tei_to_paper
from geo_rag_runtime import contract
from geo_rag_runtime.models import Chunk, Paper
from geo_rag_runtime.settings import Settings
from geo_rag_runtime.text.tokenizer import get_token_counter


def paper_from_pdf(pdf: Path) -> Paper:
    """PDF → embedded TEI → Paper, with the content-derived paper id the pipeline uses."""
    sha = contract.file_sha256(pdf)
    return tei_to_paper(
        pdf_to_tei(pdf), paper_id=contract.paper_id_from_sha256(sha), source_file=pdf.name, sha256=sha
    )


def chunks_from_pdf(pdf: Path, settings: Settings, *, recover: bool = False) -> tuple[Paper, list[Chunk]]:
    """PDF → Paper → cleaned text → chunks sized by the settings and the embedding tokenizer. With
    ``recover``, the pages the parser read short are first filled in from the PDF's text layer and
    each sentence is placed on the page that prints it, as the ``cleaned_text`` asset does (what an
    ingest writes); without, the parser's text alone (the benchmarks and the test knowledge base,
    fixed to it)."""
    paper = paper_from_pdf(pdf)
    if not recover:
        cleaned = clean_paper(paper)
    else:
        from geo_assets.ingest.coverage import text_layer
        from geo_assets.ingest.page_breaks import place_page_breaks
        from geo_assets.ingest.recovery import recover_lost_text

        layer = text_layer(pdf)
        paper, _ = recover_lost_text(paper, layer.pages, layer.undecoded)
        cleaned = place_page_breaks(clean_paper(paper), layer.pages)
    chunks = chunk_paper(
        cleaned,
        get_token_counter(settings),
        max_tokens=settings.chunk_tokens,
        overlap=settings.chunk_overlap,
    )
    return paper, chunks
