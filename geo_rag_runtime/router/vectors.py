"""The packaged MiniLM's vectors of questions, memoized: the query classifier's embedding features.

Kept apart from ``question_features`` (the scikit-learn transformer used in training) so that the
runtime's numpy copy of the classifier (``linear_router``) gets the same vectors without importing
scikit-learn. Always the packaged MiniLM, whatever ``GEO_RAG_EMBEDDING_MODEL`` says: the classifier
was trained on these vectors (through the home's ONNX export when there is one: the same vectors to
1e-4). Vectors are memoized (bounded) because training's cross-validation and repeated questions
embed the same texts again.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Sequence

import numpy as np

__all__ = ["question_vectors"]

_MEMO_LIMIT = 50_000
_memo: OrderedDict[str, np.ndarray] = OrderedDict()
_memo_lock = threading.Lock()


def question_vectors(texts: Sequence[str]) -> np.ndarray:
    """Unit MiniLM vectors of ``texts`` (rows in order)."""
    from geo_rag_runtime.embeddings import local_embedder

    with _memo_lock:
        known = {t: _memo[t] for t in texts if t in _memo}
    todo = sorted(set(texts) - known.keys())
    if todo:
        fresh = dict(zip(todo, local_embedder().embed_documents(todo), strict=True))
        known.update(fresh)
        with _memo_lock:
            _memo.update(fresh)
            while len(_memo) > _MEMO_LIMIT:
                _memo.popitem(last=False)
    return np.stack([known[t] for t in texts])
