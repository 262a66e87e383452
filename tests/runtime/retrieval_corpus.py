"""Real corpus chunks and embeddings for the retrieval tests, computed once per test process.

Chunks come from the ingest pipeline (PDF -> TEI -> Paper -> CleanedPaper -> chunk_paper) when its
modules exist; otherwise from pypdf text fed to the real cleaner-free path (one body section) and
the real chunker, so the tests always exercise real text, real 512-token windows and real tokens.
"""

from __future__ import annotations

import functools
import re
from pathlib import Path

import numpy as np
import pypdf

from geo_rag_runtime.contract import file_sha256, paper_id_from_sha256
from geo_rag_runtime.models import Chunk, CleanedPaper, CleanSection

PEASE = "VermeeschPease2021_GPL_TholeiiticCalcAlkaline_CCBY.pdf"
KELLER = "Keller2018_GPL_ZirconEruptionAge_CCBY.pdf"
ISOCHRON = "LiVermeesch2021_Geochronology_InverseIsochron_CCBY.pdf"
SMALL_SET = (PEASE, KELLER, ISOCHRON)  # 19 + 34 + 15 chunks: small enough to embed in seconds

_SURROGATE = re.compile(r"[\ud800-\udfff]")


@functools.lru_cache(maxsize=1)
def token_counter():  # type: ignore[no-untyped-def]
    from geo_rag_runtime.settings import Settings
    from geo_rag_runtime.text.tokenizer import get_token_counter

    return get_token_counter(Settings())


def _cleaned_from_pipeline(path: Path, paper_id: str, sha256: str) -> CleanedPaper | None:
    try:
        from geo_assets.lib.tei import tei_to_paper

        from geo_assets.lib.cleaning import clean_paper
        from geo_assets.lib.pdf_to_tei import pdf_to_tei
    except ImportError:
        return None
    paper = tei_to_paper(pdf_to_tei(path), paper_id=paper_id, source_file=path.name, sha256=sha256)
    return clean_paper(paper)


def _cleaned_from_pypdf(path: Path, paper_id: str) -> CleanedPaper:
    pages = [(page.extract_text() or "").strip() for page in pypdf.PdfReader(path).pages]
    text = _SURROGATE.sub("\ufffd", "\n\n".join(pages))
    title = path.stem.split("_")[-2] if "_" in path.stem else path.stem
    section = CleanSection(heading="", kind="body", text=text, char_start=0, char_end=len(text))
    return CleanedPaper(paper_id=paper_id, source_file=path.name, title=title, text=text, sections=[section])


@functools.cache
def paper_chunks(path: Path) -> tuple[Chunk, ...]:
    """512-token chunks (100 overlap) of one corpus paper."""
    from geo_assets.lib.chunking import chunk_paper

    sha256 = file_sha256(path)
    paper_id = paper_id_from_sha256(sha256)
    cleaned = _cleaned_from_pipeline(path, paper_id, sha256) or _cleaned_from_pypdf(path, paper_id)
    return tuple(chunk_paper(cleaned, token_counter(), max_tokens=512, overlap=100))


@functools.lru_cache(maxsize=1)
def embedder():  # type: ignore[no-untyped-def]
    from geo_rag_runtime.embeddings import SentenceTransformerEmbedder

    return SentenceTransformerEmbedder()


@functools.cache
def paper_embeddings(path: Path) -> np.ndarray:
    vectors = embedder().embed_documents([chunk.text for chunk in paper_chunks(path)])
    vectors.setflags(write=False)
    return vectors
