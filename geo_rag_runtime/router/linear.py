"""The query classifier's arithmetic in numpy: the trained pipeline without importing scikit-learn.

Why our own code beside a well-kept library: unpickling the scikit-learn pipeline imports
scikit-learn, scipy.stats and pandas — 1.2–2 s of a cold ``geo-rag ask`` whose whole target is 3 s,
to evaluate what is a sparse dot product and a softmax. Training stays in scikit-learn
(``router.training``); when the artifact is written, the fitted pipeline — TF-IDF (word n-grams,
default analyzer) and the question's MiniLM embedding side by side, then multinomial logistic
regression — is copied into arrays (:meth:`LinearQueryModel.from_pipeline`), and its probabilities
are checked against the pipeline's on the given questions; only a copy that agrees to
:data:`MAX_PROBABILITY_DIFF` is written and used. Any other pipeline shape is simply not copied,
and the runtime unpickles the scikit-learn model as before.

The TF-IDF side reproduces ``TfidfVectorizer`` with the settings it was trained with (lowercase,
``token_pattern``, ``ngram_range``, no stop words, raw counts × ``idf_``, L2 norm); the copy
refuses any other setting rather than guess.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

__all__ = ["MAX_PROBABILITY_DIFF", "LinearQueryModel"]

MAX_PROBABILITY_DIFF = 1e-6
# TfidfVectorizer settings the copy reproduces; anything else keeps the scikit-learn model
_SUPPORTED = {
    "analyzer": "word",
    "lowercase": True,
    "strip_accents": None,
    "stop_words": None,
    "preprocessor": None,
    "tokenizer": None,
    "binary": False,
    "norm": "l2",
    "use_idf": True,
    "sublinear_tf": False,
}


class LinearQueryModel:
    """``predict_proba(texts)`` and ``classes_`` like the pipeline it was copied from."""

    def __init__(
        self,
        *,
        vocabulary: dict[str, int],
        idf: np.ndarray,
        token_pattern: str,
        ngram_range: tuple[int, int],
        embedding_weight: float | None,
        coef: np.ndarray,
        intercept: np.ndarray,
        classes: Sequence[str],
    ) -> None:
        self.vocabulary = vocabulary
        self.idf = np.asarray(idf, dtype=np.float64)
        self.token_pattern = token_pattern
        self._token = re.compile(token_pattern)
        self.ngram_range = (int(ngram_range[0]), int(ngram_range[1]))
        self.embedding_weight = embedding_weight
        self.coef = np.asarray(coef, dtype=np.float64)
        self.intercept = np.asarray(intercept, dtype=np.float64)
        self.classes_ = np.asarray(list(classes), dtype=object)

    # ------------------------------------------------------------------ features

    def _ngrams(self, text: str) -> list[str]:
        tokens = self._token.findall(text.lower())
        low, high = self.ngram_range
        grams: list[str] = []
        for n in range(low, high + 1):
            grams += [" ".join(tokens[i : i + n]) for i in range(len(tokens) - n + 1)]
        return grams

    def _tfidf(self, text: str) -> tuple[np.ndarray, np.ndarray]:
        counts = Counter(g for g in self._ngrams(text) if g in self.vocabulary)
        columns = np.fromiter((self.vocabulary[g] for g in counts), dtype=np.int64, count=len(counts))
        values = np.fromiter(counts.values(), dtype=np.float64, count=len(counts)) * self.idf[columns]
        norm = float(np.sqrt((values**2).sum()))
        return columns, values / norm if norm > 0 else values

    def decision_function(self, texts: Sequence[str]) -> np.ndarray:
        n_tfidf = len(self.idf)
        scores = np.tile(self.intercept, (len(texts), 1))
        for row, text in enumerate(texts):
            columns, values = self._tfidf(text)
            scores[row] += values @ self.coef[:, columns].T
        if self.embedding_weight is not None:
            from geo_rag_runtime.router.vectors import question_vectors

            vectors = question_vectors(list(texts)).astype(np.float64) * self.embedding_weight
            scores += vectors @ self.coef[:, n_tfidf:].T
        return scores

    def predict_proba(self, texts: Sequence[str]) -> np.ndarray:
        scores = self.decision_function([str(t) for t in texts])
        scores -= scores.max(axis=1, keepdims=True)
        exp = np.exp(scores)
        probabilities: np.ndarray = exp / exp.sum(axis=1, keepdims=True)
        return probabilities

    # ------------------------------------------------------------------ copy, save, load

    @classmethod
    def from_pipeline(cls, pipeline: Any) -> LinearQueryModel | None:
        """The arrays of a fitted ``Pipeline([features: FeatureUnion([tfidf, embedding?]), clf:
        LogisticRegression])`` (or ``Pipeline([tfidf, clf])``), or None for any other shape or
        setting (then nothing is copied)."""
        try:
            steps = pipeline.named_steps
            clf = steps["clf"]
            if "features" in steps:
                features = steps["features"]
                if getattr(features, "transformer_weights", None):
                    return None
                parts = dict(features.transformer_list)
            else:  # Pipeline([tfidf, clf])
                parts = {name: step for name, step in steps.items() if name != "clf"}
            vectorizer = parts["tfidf"]
            embedding = parts.get("embedding")
        except (AttributeError, KeyError, TypeError):
            return None
        if type(clf).__name__ != "LogisticRegression" or len(clf.classes_) < 3:
            return None  # binary logistic regression has another probability formula
        if set(parts) - {"tfidf", "embedding"}:
            return None
        params = vectorizer.get_params()
        if any(params.get(key) != value for key, value in _SUPPORTED.items()):
            return None
        if type(vectorizer).__name__ != "TfidfVectorizer":
            return None
        weight = None if embedding is None else float(embedding.weight)
        return cls(
            vocabulary={str(term): int(column) for term, column in vectorizer.vocabulary_.items()},
            idf=vectorizer.idf_,
            token_pattern=str(params["token_pattern"]),
            ngram_range=tuple(params["ngram_range"]),
            embedding_weight=weight,
            coef=clf.coef_,
            intercept=clf.intercept_,
            classes=[str(c) for c in clf.classes_],
        )

    def save(self, path: Path) -> None:
        terms = sorted(self.vocabulary, key=self.vocabulary.__getitem__)
        with open(path, "wb") as handle:
            np.savez(
                handle,
                terms=np.asarray(terms, dtype=str),
                idf=self.idf,
                coef=self.coef,
                intercept=self.intercept,
                classes=np.asarray(list(self.classes_), dtype=str),
                token_pattern=np.asarray(self.token_pattern),
                ngram_range=np.asarray(self.ngram_range),
                embedding_weight=np.asarray(
                    np.nan if self.embedding_weight is None else self.embedding_weight
                ),
            )

    @classmethod
    def load(cls, path: Path) -> LinearQueryModel:
        with np.load(path, allow_pickle=False) as data:
            weight = float(data["embedding_weight"])
            return cls(
                vocabulary={str(term): column for column, term in enumerate(data["terms"])},
                idf=data["idf"],
                token_pattern=str(data["token_pattern"]),
                ngram_range=(int(data["ngram_range"][0]), int(data["ngram_range"][1])),
                embedding_weight=None if np.isnan(weight) else weight,
                coef=data["coef"],
                intercept=data["intercept"],
                classes=[str(c) for c in data["classes"]],
            )

    def difference(self, pipeline: Any, texts: Sequence[str]) -> float:
        """Largest probability difference from ``pipeline`` on ``texts`` (the copy's check)."""
        return float(np.abs(self.predict_proba(texts) - pipeline.predict_proba(list(texts))).max())
