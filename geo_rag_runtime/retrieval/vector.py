"""Dense retrieval (the paper's VectorRAG): preprocess the question, embed it, search Chroma.

Preprocessing only removes what carries no meaning for the embedder (control and zero-width
characters, list bullets, markdown bold and heading marks, surrounding quotes, runs of whitespace). Stop words stay:
MiniLM was trained on full sentences, and notation such as 87Sr/86Sr, δ18O, εNd, U(IV), La/Yb,
SiO2 wt.% or "± 2σ" passes through unchanged.

Filters are values, never query text: ``{"paper_id": "p…"}``, ``{"section": ["Methods", "Results"]}``
or ``{"source_file": {"$ne": "x.pdf"}}`` become Chroma where-clauses built from those values, with
keys checked against an allow-list.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping, Sequence
from typing import Any, Protocol

import numpy as np

from geo_rag_runtime.embeddings import Embedder
from geo_rag_runtime.errors import QueryError
from geo_rag_runtime.models import RetrievedItem
from geo_rag_runtime.retrieval.fusion import collapse_overlaps

__all__ = [
    "FILTER_KEYS",
    "VectorRetriever",
    "build_where",
    "matches_filters",
    "parse_filters",
    "preprocess_query",
]

FILTER_KEYS = frozenset({"paper_id", "source_file", "section"})
_OPERATORS = frozenset({"$eq", "$ne", "$in", "$nin"})
_BULLETS = re.compile(r"[•▪■□●○◦‣∙`]+")
_EMPHASIS = re.compile(r"(\*\*|__)(.+?)\1")  # markdown bold; a lone * or # is notation (Eu/Eu*, Mg#)
_HEADING = re.compile(r"(?m)^[ \t]*#{1,6}[ \t]+")
_SPACE = re.compile(r"\s+")
_QUOTES = "\"'“”‘’«»"

Filter = tuple[str, str, tuple[str, ...]]  # (key, operator, values)


def preprocess_query(question: str, max_chars: int = 2000) -> str:
    """The question as the embedder should see it; QueryError if empty or too long."""
    if not isinstance(question, str):
        raise QueryError("the question must be text")
    text = unicodedata.normalize("NFC", question)
    text = "".join(
        ch if ch in "\n\t" else " " if unicodedata.category(ch) in {"Cc", "Cf", "Zl", "Zp"} else ch
        for ch in text
    )
    text = _HEADING.sub("", _EMPHASIS.sub(r"\2", _BULLETS.sub(" ", text)))
    text = _SPACE.sub(" ", text).strip().strip(_QUOTES).strip()
    if not text:
        raise QueryError("the question is empty")
    if len(text) > max_chars:
        raise QueryError(f"the question has {len(text)} characters; at most {max_chars} are allowed")
    return text


def parse_filters(filters: Mapping[str, Any] | None) -> list[Filter]:
    """Validate filters into (key, operator, values); QueryError names the bad key or value."""
    if not filters:
        return []
    out: list[Filter] = []
    for key in sorted(filters):
        if key not in FILTER_KEYS:
            raise QueryError(f"unknown filter {key!r}; allowed: {', '.join(sorted(FILTER_KEYS))}")
        value = filters[key]
        if isinstance(value, Mapping):
            if len(value) != 1 or next(iter(value)) not in _OPERATORS:
                raise QueryError(f"filter {key!r} needs exactly one of {', '.join(sorted(_OPERATORS))}")
            operator, operand = next(iter(value.items()))
        elif isinstance(value, str):
            operator, operand = "$eq", value
        elif isinstance(value, Sequence | set | frozenset):
            operator, operand = "$in", value
        else:
            raise QueryError(f"filter {key!r} must be a string, a list of strings or an operator mapping")
        if operator in {"$eq", "$ne"}:
            if not isinstance(operand, str):
                raise QueryError(f"filter {key!r} {operator} needs a string")
            values: tuple[str, ...] = (operand,)
        else:
            if isinstance(operand, str) or not isinstance(operand, Sequence | set | frozenset):
                raise QueryError(f"filter {key!r} {operator} needs a list of strings")
            if not operand or not all(isinstance(v, str) for v in operand):
                raise QueryError(f"filter {key!r} {operator} needs a non-empty list of strings")
            values = tuple(sorted(set(operand)))
        out.append((key, operator, values))
    return out


def build_where(filters: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """A Chroma where-clause from validated filter values (None when there are no filters)."""
    clauses: list[dict[str, Any]] = []
    for key, operator, values in parse_filters(filters):
        operand: Any = values[0] if operator in {"$eq", "$ne"} else list(values)
        clauses.append({key: {operator: operand}})
    if not clauses:
        return None
    return clauses[0] if len(clauses) == 1 else {"$and": clauses}


def matches_filters(record: Mapping[str, Any], parsed: Sequence[Filter]) -> bool:
    """The same filters evaluated on a metadata record (for stores without where-clauses)."""
    for key, operator, values in parsed:
        value = str(record.get(key, ""))
        inside = value in values
        if (operator in {"$eq", "$in"}) != inside:
            return False
    return True


class VectorStoreLike(Protocol):  # the part of stores.protocols.VectorStore a retriever uses
    def query(
        self, embedding: np.ndarray, top_k: int, where: Mapping[str, Any] | None = None
    ) -> list[RetrievedItem]: ...

    def check_model(self, identity: Mapping[str, Any]) -> object: ...


class VectorRetriever:
    """Top-k chunks by cosine similarity, duplicates dropped and overlapping windows merged."""

    name = "dense"

    def __init__(
        self,
        store: VectorStoreLike,
        embedder: Embedder,
        top_k: int = 5,
        filters: Mapping[str, Any] | None = None,
        *,
        fetch_factor: int = 3,
        max_merged: int = 3,
        max_question_chars: int = 2000,
    ) -> None:
        if top_k <= 0:
            raise ValueError("top_k must be positive")
        self.store = store
        self.embedder = embedder
        self.top_k = top_k
        self.filters = dict(filters or {})
        self._where = build_where(self.filters)
        self.fetch_factor = max(1, fetch_factor)
        self.max_merged = max_merged
        self.max_question_chars = max_question_chars
        self._model_checked = False

    def retrieve(
        self,
        question: str,
        *,
        top_k: int | None = None,
        filters: Mapping[str, Any] | None = None,
        prepared: bool = False,
    ) -> list[RetrievedItem]:
        """Best chunks for ``question`` (retriever="dense", score = cosine similarity).

        ``prepared``: the text already went through :func:`preprocess_query` (the query pipeline
        prepares the question once); otherwise it is prepared here.
        """
        wanted = top_k or self.top_k
        query = question if prepared else preprocess_query(question, self.max_question_chars)
        where = build_where(filters) if filters is not None else self._where
        if not self._model_checked:
            self.store.check_model(self.embedder.identity)
            self._model_checked = True
        vector = self.embedder.embed_query(query)
        candidates = self.store.query(vector, wanted * self.fetch_factor, where)
        return collapse_overlaps(candidates, top_k=wanted, max_merged=self.max_merged)
