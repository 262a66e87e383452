"""The question's sentence embedding as classifier features, beside the TF-IDF n-grams.

Why: the query classifier is trained on template questions, and word n-grams learn the templates'
wording. On 186 questions people wrote by reading the corpus papers it routed 0.51 correctly with
TF-IDF alone and 0.70 with the packaged MiniLM embedding of the question added (same training data,
``scripts/bench_router.py``): the embedding carries what a question asks for, not how a template
phrased it.

Always the packaged MiniLM, whatever ``GEO_RAG_EMBEDDING_MODEL`` says: the classifier was trained on
these vectors (through the home's ONNX export when there is one: the same vectors to 1e-4, without
importing torch). The transformer holds only its weight, so the pickled pipeline carries no model; the
weights load once per process and vectors are memoized (bounded) because training's cross-validation
and repeated questions embed the same texts again.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from sklearn.base import BaseEstimator, TransformerMixin

from geo_rag_runtime.router.vectors import question_vectors

__all__ = ["QuestionEmbedding"]


class QuestionEmbedding(TransformerMixin, BaseEstimator):  # type: ignore[misc,unused-ignore]
    """``transform(questions)`` → MiniLM vectors (rows of norm ``weight``) for a FeatureUnion."""

    def __init__(self, weight: float = 1.0) -> None:
        self.weight = weight

    def fit(self, texts: Sequence[str], y: Any = None) -> QuestionEmbedding:
        return self

    def transform(self, texts: Sequence[str]) -> np.ndarray:
        items = [str(t) for t in texts]
        if not items:
            return np.zeros((0, 384), dtype=np.float32)
        return question_vectors(items) * np.float32(self.weight)
