"""Our judge-free retrieval metrics: hit@k, MRR and passage recall on chunk ranks, and entity recall.

A chunk *matches* a reference passage when rapidfuzz's partial_ratio of their ``match_key`` reaches
:data:`MATCH_THRESHOLD`; why a partial match, and how entity recall treats reference entities the
recognizer does not know, is in the docstring of ``geo_assets.evaluation.metrics``.
"""

from collections.abc import Callable, Iterable, Sequence

from geo_assets.evaluation.dataset import match_key
from geo_assets.evaluation.metric_specs import MATCH_THRESHOLD


def passage_matches(passage: str, chunk: str, threshold: float = MATCH_THRESHOLD) -> bool:
    """True when the chunk contains the passage up to extraction noise (see ``evaluation.metrics``)."""
    from rapidfuzz import fuzz

    a, b = match_key(passage), match_key(chunk)
    if not a or not b:
        return False
    return fuzz.partial_ratio(a, b) >= threshold


def _match_matrix(passages: Sequence[str], chunks: Sequence[str]) -> list[list[bool]]:
    """matrix[rank][passage] for the chunks in rank order."""
    return [[passage_matches(p, c) for p in passages] for c in chunks]


def first_match_rank(passages: Sequence[str], chunks: Sequence[str]) -> int | None:
    """1-based rank of the first chunk that matches any reference passage, or None."""
    for rank, row in enumerate(_match_matrix(passages, chunks), start=1):
        if any(row):
            return rank
    return None


def hit_at_k(passages: Sequence[str], chunks: Sequence[str], k: int) -> float:
    rank = first_match_rank(passages, chunks[:k])
    return 1.0 if rank is not None else 0.0


def reciprocal_rank(passages: Sequence[str], chunks: Sequence[str]) -> float:
    rank = first_match_rank(passages, chunks)
    return 1.0 / rank if rank else 0.0


def passage_recall(passages: Sequence[str], chunks: Sequence[str]) -> float:
    if not passages:
        raise ValueError("passage_recall needs at least one reference passage")
    matrix = _match_matrix(passages, chunks)
    found = sum(1 for j in range(len(passages)) if any(row[j] for row in matrix))
    return found / len(passages)


def entity_recall(context_entities: Iterable[str], reference_entities: Iterable[str]) -> float | None:
    """|ctx ∩ ref| / |ref| over canonical names; None when the reference has no entity."""
    ref = set(reference_entities)
    if not ref:
        return None
    return len(ref & set(context_entities)) / len(ref)


Recognizer = Callable[[str], set[str]]


def default_recognizer() -> Recognizer:
    """Canonical entity names found by the project's geochemical recognizer."""
    from geo_rag_runtime.vocab import recognize

    def names(text: str) -> set[str]:
        return {e.name for e in recognize(text)} if text and text.strip() else set()

    return names
