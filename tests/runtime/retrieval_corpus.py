"""Real corpus chunks and embeddings for the retrieval tests, computed once per test process.

Chunks come from the ingest pipeline (PDF -> TEI -> Paper -> CleanedPaper -> chunk_paper), so the
tests exercise real text, real 512-token windows and real tokens.
"""

from __future__ import annotations

import functools
from pathlib import Path

import numpy as np

from geo_rag_runtime.models import Chunk

PEASE = "VermeeschPease2021_GPL_TholeiiticCalcAlkaline_CCBY.pdf"
KELLER = "Keller2018_GPL_ZirconEruptionAge_CCBY.pdf"
ISOCHRON = "LiVermeesch2021_Geochronology_InverseIsochron_CCBY.pdf"
SMALL_SET = (PEASE, KELLER, ISOCHRON)  # 19 + 34 + 15 chunks: small enough to embed in seconds


@functools.lru_cache(maxsize=1)
def token_counter():  # type: ignore[no-untyped-def]
    from geo_rag_runtime.settings import Settings
    from geo_rag_runtime.text.tokenizer import get_token_counter

    return get_token_counter(Settings())


@functools.cache
def paper_chunks(path: Path) -> tuple[Chunk, ...]:
    """512-token chunks (100 overlap) of one corpus paper."""
    from geo_assets.ingest.chunking import chunk_paper
    from geo_assets.ingest.cleaned_paper import clean_paper
    from geo_assets.ingest.pipeline import paper_from_pdf

    return tuple(chunk_paper(clean_paper(paper_from_pdf(path)), token_counter(), max_tokens=512, overlap=100))


@functools.lru_cache(maxsize=1)
def embedder():  # type: ignore[no-untyped-def]
    from geo_rag_runtime.embeddings import SentenceTransformerEmbedder

    return SentenceTransformerEmbedder()


@functools.cache
def paper_embeddings(path: Path) -> np.ndarray:
    vectors = embedder().embed_documents([chunk.text for chunk in paper_chunks(path)])
    vectors.setflags(write=False)
    return vectors
