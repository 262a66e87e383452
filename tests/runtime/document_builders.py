"""Small document-store objects shared by the document-store tests (embedded and real servers)."""

from __future__ import annotations

from geo_rag_runtime import contract
from geo_rag_runtime.models import Chunk, Paper, Section, Triple

__all__ = ["make_chunks", "make_paper", "make_triple"]


def make_paper(pid: str) -> Paper:
    return Paper(
        paper_id=pid,
        source_file=f"{pid}.pdf",
        sha256=pid * 4,
        title=f"Title {pid}",
        sections=[Section(heading="Intro", paragraphs=["87Sr/86Sr = 0.7035 ± 0.0001"])],
    )


def make_chunks(pid: str, n: int, salt: str = "") -> list[Chunk]:
    out = []
    for i in range(n):
        text = f"chunk {i} of {pid} {salt} εNd = +5.2"
        out.append(
            Chunk(
                chunk_id=contract.chunk_id(pid, i, text),
                paper_id=pid,
                source_file=f"{pid}.pdf",
                ordinal=i,
                char_start=i * 10,
                char_end=i * 10 + 9,
                token_count=9,
                text=text,
            )
        )
    return out


def make_triple(triple_id: str, head: str, head_type: str, tail: str, tail_type: str) -> Triple:
    return Triple(
        triple_id=triple_id,
        head=head,
        head_type=head_type,
        relation="CONTAINS",
        tail=tail,
        tail_type=tail_type,
        paper_id="pa",
        chunk_id="c",
        sentence="s",
        extractor="rules-v1",
    )
