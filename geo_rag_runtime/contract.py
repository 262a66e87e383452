"""The storage contract: collection, label and relationship names, and deterministic ids.

Everything that ingest writes and the runtime reads is named here once, so the two sides can
never disagree.
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

# document store collections
PAPERS = "papers"
CHUNKS = "chunks"
TRIPLES = "triples"
MEASUREMENTS = "measurements"
META = "meta"  # model identities, index versions
SOURCES = "sources"  # partition key -> PDF path registry
# In the home: held by `geo-rag ingest` (and backup/restore) for its whole run; an fcntl lock that the
# kernel releases when its holder dies, so it proves that no other writer of the home is alive.
INGEST_LOCK = "ingest.lock"
KB_VERSION = "ingest.version"  # a new one each time a writer gives the lock back (answer cache)

# named evaluation sets (`geo-rag evaluate --dataset NAME`): the CLI passes a name through, the
# Dagster side resolves it (geo_assets.evaluation.dataset.DATASETS has exactly these keys)
EVALUATION_SETS = ("dev", "corpus", "corpus_heldout", "corpus_values", "corpus_v2", "corpus_v3", "corpus_v4")

# the home's ONNX export of the local embedding model, with its tokenizer (under models/)
EMBEDDER_EXPORT = "embedder-onnx"

# text coverage of a paper (share of its PDF text layer that reached the cleaned text; set by the
# ingest, read by `geo-rag status`): below the first the ingest warns, below the second it fails
COVERAGE_WARN_BELOW = 0.9
COVERAGE_FAIL_BELOW = 0.6

# graph labels and provenance relationships
PAPER_LABEL = "Paper"
CHUNK_LABEL = "Chunk"
MENTIONS = "MENTIONS"  # (Chunk)-[:MENTIONS]->(Entity)
EXTRACTED_FROM = "EXTRACTED_FROM"  # (Chunk)-[:EXTRACTED_FROM]->(Paper)

_BLOCK = 1 << 20


def file_sha256(path: str | Path) -> str:
    """Content hash of a file (streamed): the data version of ``raw_pdf`` and the paper identity."""
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        while block := handle.read(_BLOCK):
            digest.update(block)
    return digest.hexdigest()


def paper_id_from_sha256(sha256: str) -> str:
    """Paper ids derive from content, so the same bytes under another name are the same paper."""
    return f"p{sha256[:16]}"


def text_hash(text: str, length: int = 12) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:length]


def chunk_id(paper_id: str, ordinal: int, text: str) -> str:
    """Deterministic chunk id from the paper, the position and the content."""
    return f"{paper_id}-c{ordinal:04d}-{text_hash(text, 8)}"


def triple_id(chunk_id_: str, head: str, relation: str, tail: str, sentence: str) -> str:
    """Deterministic triple id: the same fact from the same sentence of the same chunk is one triple."""
    return f"t{text_hash('|'.join((chunk_id_, head, relation, tail, sentence)), 20)}"


def measurement_id(paper_id: str, char_start: int, analyte: str, where: str = "") -> str:
    """Deterministic measurement id: one analyte's value at one place (text offset or table cell)."""
    return f"m{text_hash('|'.join((paper_id, str(char_start), analyte, where)), 20)}"


_PARTITION_OK = re.compile(r"[^A-Za-z0-9._\-]+")


def partition_key_for(path: str | Path) -> str:
    """Partition key of a PDF: its file name, made safe for Dagster partition keys."""
    return _PARTITION_OK.sub("_", Path(path).name)
