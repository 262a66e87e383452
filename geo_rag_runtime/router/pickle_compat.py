"""Old module paths in pickles, mapped to where those modules live now.

A pickle names every class by module path and class name. The query classifier's ``model.joblib``
in a home trained before the router became a package names
``geo_rag_runtime.question_features.QuestionEmbedding`` (the transformer inside the fitted
pipeline); after the move that module is ``geo_rag_runtime.router.features``, and unpickling the
file would fail with ``ModuleNotFoundError``. ``legacy_module_paths`` makes the old paths resolve
while such a file is loaded (``router.model.QueryClassifier.load`` wraps its ``joblib.load`` in it):
every old path in :data:`LEGACY_MODULES` that is not imported is entered in ``sys.modules`` as an
alias that forwards attribute look-ups to the new module, and removed again when the last load ends.
Outside a load the old paths stay unimportable, so no code comes to depend on them. Classes kept
their names; only modules moved. The mapping works for any unpickler (pickle's C and Python ones,
joblib's), because all of them import the module and then read ``sys.modules``.

Where else a home stores pickles: Dagster's IO manager pickles asset outputs under
``<home>/dagster/storage``; those hold ``geo_rag_runtime.models`` objects, paths and plain data (checked
on a 17-paper home), and ``geo_rag_runtime.models`` did not move. The numpy copy (``linear.npz``),
the answer selector (JSON) and the embedder export (ONNX + JSON) hold no module paths. The one
module that moved out of ``geo_assets`` (``geo_assets.queries.classifier_training``, now
``router.training``) has no class that anything stores, so it needs no entry (an entry would make a
load import ``geo_assets``, which the runtime never does).

When a module that pickles can name moves again, add its old path here (and keep the old entries).
"""

from __future__ import annotations

import importlib
import sys
import threading
import types
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

__all__ = ["LEGACY_MODULES", "legacy_module_paths"]

# old module path (as older pickles name it) → the module that holds its classes now
LEGACY_MODULES: dict[str, str] = {
    "geo_rag_runtime.question_features": "geo_rag_runtime.router.features",
    "geo_rag_runtime.question_vectors": "geo_rag_runtime.router.vectors",
    "geo_rag_runtime.linear_router": "geo_rag_runtime.router.linear",
    "geo_rag_runtime.classifier": "geo_rag_runtime.router.model",
    "geo_rag_runtime.query.support": "geo_rag_runtime.query.abstention",
    "geo_rag_runtime.query.values": "geo_rag_runtime.query.reported_values",
    "geo_rag_runtime.text.clean": "geo_rag_runtime.text.readable",
    "geo_rag_runtime.text.normalize": "geo_rag_runtime.text.keyword_terms",
}


class _ModuleAlias(types.ModuleType):
    """Stands in ``sys.modules`` for an old path; imports the new module on first attribute use, so
    a load pays only for the modules its pickle actually names."""

    def __init__(self, old: str, new: str) -> None:
        super().__init__(old, f"alias of {new} while an old pickle loads")
        self._georag_target = new

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__") and name.endswith("__"):
            raise AttributeError(name)  # module protocol look-ups (__path__, ...) stay on the alias
        return getattr(importlib.import_module(self._georag_target), name)


_lock = threading.Lock()
_active = 0
_installed: dict[str, _ModuleAlias] = {}


@contextmanager
def legacy_module_paths() -> Iterator[None]:
    """Within the block, the old module paths of :data:`LEGACY_MODULES` resolve to the new modules.

    Re-entrant and thread-safe: aliases are installed by the first active block and removed by the
    last; an old path that is a real module in ``sys.modules`` is left alone."""
    global _active
    with _lock:
        if _active == 0:
            for old, new in LEGACY_MODULES.items():
                if old not in sys.modules:
                    alias = _ModuleAlias(old, new)
                    sys.modules[old] = alias
                    _installed[old] = alias
        _active += 1
    try:
        yield
    finally:
        with _lock:
            _active -= 1
            if _active == 0:
                for old, alias in _installed.items():
                    if sys.modules.get(old) is alias:
                        del sys.modules[old]
                _installed.clear()
