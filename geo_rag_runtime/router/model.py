"""Query-type classification at question time (docs/method.md#query-classification).

The artifact is a folder holding ``model.joblib`` (a fitted scikit-learn pipeline: TF-IDF +
LogisticRegression) and ``manifest.json`` (format, model version, label set, scikit-learn version,
training data version, metrics, and the SHA-256 of ``model.joblib``). The pipeline writes it through
``write_artifact`` below, so the on-disk format is defined in one place for both sides.

Unpickling runs code, so ``QueryClassifier.load`` checks the file's SHA-256 against the manifest
before it unpickles anything, and refuses a mismatch. It prefers the numpy copy (``linear.npz``),
which loads without unpickling; a home restored from a backup has only that copy (a backup
never carries the pickle, ``geo_rag_runtime.backup``). This catches a corrupted, half-written or
swapped model file; it is no defence against someone who can rewrite both files in the home folder
(that person can already change the code). A pickle written before the router became a package
names the old module paths; ``router.pickle_compat`` maps them while it loads.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
import threading
import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

from geo_rag_runtime.errors import QueryError, StoreError
from geo_rag_runtime.models import QUERY_TYPES, QueryType
from geo_rag_runtime.settings import Settings, get_settings

ARTIFACT_FORMAT = "georag.query_classifier/1"
MODEL_FILE = "model.joblib"
MANIFEST_FILE = "manifest.json"
LINEAR_FILE = "linear.npz"  # the numpy copy (router.linear): loads without scikit-learn
# Questions of every type (and none) on which the numpy copy must give the model's probabilities.
CHECK_QUESTIONS = (
    "What is the 87Sr/86Sr ratio of the Hawaiian basalts?",
    "How does crustal contamination change εNd and δ18O?",
    "What evidence supports a mantle plume origin?",
    "Why do the zircons record older U–Pb ages than the pluton?",
    "Which method measured SiO2 wt.%, and at what precision (± 2σ)?",
    "Compare La/Yb of the two suites.",
    "zircon",
    "Welche Isotopenverhältnisse wurden gemessen?",
)
ARTIFACT_DIR = "query_classifier"  # under settings.path("models")

_MISSING_HINT = "run `geo-rag ingest` (or materialize the `query_classifier` asset in Dagster) to train it"


def default_artifact_dir(settings: Settings | None = None) -> Path:
    """Where the pipeline writes and the service reads the classifier: <home>/models/query_classifier."""
    settings = settings or get_settings()
    return settings.path("models") / ARTIFACT_DIR


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        while block := handle.read(1 << 20):
            digest.update(block)
    return digest.hexdigest()


def _replace_atomically(path: Path, write: Any) -> None:
    handle, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    os.close(handle)
    try:
        write(Path(tmp))
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


def write_artifact(
    model: Any,
    out_dir: str | Path,
    manifest: dict[str, Any] | None = None,
    *,
    check_questions: Sequence[str] = (),
) -> Path:
    """Persist a fitted classifier with its manifest (hash, versions, label set); return the folder.

    The model must expose ``predict_proba`` and ``classes_`` equal (as a set) to QUERY_TYPES.
    ``manifest`` adds fields (metrics, training data version, ...); format fields are ours. A
    TF-IDF + logistic regression pipeline is also copied into numpy arrays (``linear.npz``,
    :mod:`geo_rag_runtime.router.linear`) when the copy's probabilities agree with the model's on
    :data:`CHECK_QUESTIONS` and ``check_questions``; loading then needs no scikit-learn.
    """
    import joblib
    import sklearn

    classes = [str(c) for c in getattr(model, "classes_", [])]
    if sorted(classes) != sorted(QUERY_TYPES) or not hasattr(model, "predict_proba"):
        raise ValueError(f"classifier must predict probabilities over {list(QUERY_TYPES)}, got {classes}")
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    model_path = out / MODEL_FILE
    _replace_atomically(model_path, lambda tmp: joblib.dump(model, tmp))
    sha = _sha256(model_path)
    document = dict(manifest or {})
    document.update(
        {
            "format": ARTIFACT_FORMAT,
            "artifact": MODEL_FILE,
            "sha256": sha,
            "model_version": document.get("model_version") or f"qc-{sha[:12]}",
            "sklearn_version": sklearn.__version__,
            "labels": list(QUERY_TYPES),
        }
    )
    document["linear"] = _write_linear(model, out, [*CHECK_QUESTIONS, *check_questions])
    text = json.dumps(document, indent=2, ensure_ascii=False, default=str)
    _replace_atomically(out / MANIFEST_FILE, lambda tmp: tmp.write_text(text, encoding="utf-8"))
    return out


def _write_linear(model: Any, out: Path, questions: Sequence[str]) -> dict[str, Any]:
    """The numpy copy of ``model`` beside it, if it agrees with the model; what the manifest says."""
    from geo_rag_runtime.router.linear import MAX_PROBABILITY_DIFF, LinearQueryModel

    (out / LINEAR_FILE).unlink(missing_ok=True)
    linear = LinearQueryModel.from_pipeline(model)
    if linear is None:
        return {"copied": False, "reason": "not a TF-IDF + logistic regression pipeline"}
    unique = list(dict.fromkeys(q for q in questions if q.strip()))
    difference = linear.difference(model, unique)
    record: dict[str, Any] = {"max_probability_diff": difference, "checked_questions": len(unique)}
    if difference > MAX_PROBABILITY_DIFF:
        return {"copied": False, **record}
    _replace_atomically(out / LINEAR_FILE, linear.save)
    return {"copied": True, "file": LINEAR_FILE, "sha256": _sha256(out / LINEAR_FILE), **record}


@dataclass(frozen=True)
class Classification:
    """The routing decision for one question; ``confident`` False means: use the hybrid strategy."""

    label: QueryType
    probabilities: dict[QueryType, float]
    confident: bool
    min_confidence: float
    model_version: str = ""
    ranked: tuple[QueryType, ...] = field(default=())

    @property
    def confidence(self) -> float:
        return self.probabilities[self.label]

    def to_dict(self) -> dict[str, Any]:
        """The JSON form for ``Answer.classification``."""
        return {
            "label": self.label,
            "confidence": round(self.confidence, 4),
            "confident": self.confident,
            "min_confidence": self.min_confidence,
            "probabilities": {k: round(v, 4) for k, v in self.probabilities.items()},
            "model_version": self.model_version,
        }


class QueryClassifier:
    """A loaded, verified query-type classifier."""

    def __init__(
        self, model: Any, manifest: dict[str, Any], *, min_confidence: float = 0.45, path: Path | None = None
    ) -> None:
        self._model = model
        self.manifest = manifest
        self.min_confidence = min_confidence
        self.path = path
        self.model_version = str(manifest.get("model_version", ""))
        classes = [str(c) for c in model.classes_]
        if sorted(classes) != sorted(QUERY_TYPES):
            raise StoreError(f"classifier labels {classes} differ from {list(QUERY_TYPES)}")
        self._classes = cast(list[QueryType], classes)

    @classmethod
    def load(cls, path: str | Path, *, min_confidence: float = 0.45) -> QueryClassifier:
        """Load the artifact folder (or its manifest/model file), verifying the SHA-256 first."""
        folder = Path(path)
        if folder.is_file():
            folder = folder.parent
        manifest_path, model_path = folder / MANIFEST_FILE, folder / MODEL_FILE
        if not manifest_path.is_file():
            raise StoreError(f"no query classifier at {folder}: {_MISSING_HINT}")
        try:
            manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
        except (OSError, json.JSONDecodeError) as exc:
            raise StoreError(
                f"unreadable classifier manifest {manifest_path}: {exc}; {_MISSING_HINT}"
            ) from exc
        if not isinstance(manifest, dict) or manifest.get("format") != ARTIFACT_FORMAT:
            raise StoreError(f"{manifest_path} is not a {ARTIFACT_FORMAT} manifest; {_MISSING_HINT}")
        if list(manifest.get("labels", [])) != list(QUERY_TYPES):
            raise StoreError(
                f"classifier at {folder} was trained for labels {manifest.get('labels')}, "
                f"this version expects {list(QUERY_TYPES)}; {_MISSING_HINT}"
            )
        if model_path.is_file():  # a model that is not the one trained is refused, used or not
            actual = _sha256(model_path)
            if actual != manifest.get("sha256"):
                raise StoreError(
                    f"refusing to load {model_path}: its SHA-256 {actual[:16]}… does not match the "
                    f"manifest ({str(manifest.get('sha256'))[:16]}…); the file was modified or "
                    f"half-written. Re-train it: {_MISSING_HINT}"
                )
        linear = manifest.get("linear") or {}
        copied = folder / LINEAR_FILE
        if linear.get("copied") and copied.is_file() and _sha256(copied) == linear.get("sha256"):
            # arrays only (np.load without pickle); a home restored from a backup has only this copy
            from geo_rag_runtime.router.linear import LinearQueryModel  # no scikit-learn import

            return cls(LinearQueryModel.load(copied), manifest, min_confidence=min_confidence, path=folder)
        if not model_path.is_file():
            raise StoreError(f"no query classifier at {folder}: {_MISSING_HINT}")
        import joblib
        import sklearn

        from geo_rag_runtime.router.pickle_compat import legacy_module_paths

        trained_with = manifest.get("sklearn_version")
        if trained_with and trained_with != sklearn.__version__:
            warnings.warn(
                f"query classifier was trained with scikit-learn {trained_with}, running "
                f"{sklearn.__version__}; re-train it if predictions look wrong",
                stacklevel=2,
            )
        try:
            with legacy_module_paths():  # a home trained before the router package names old modules
                model = joblib.load(model_path)
        except Exception as exc:  # any unpickling failure means an unusable store
            raise StoreError(f"cannot load query classifier {model_path}: {exc}; {_MISSING_HINT}") from exc
        if not hasattr(model, "predict_proba") or not hasattr(model, "classes_"):
            raise StoreError(f"{model_path} does not hold a probabilistic classifier; {_MISSING_HINT}")
        return cls(model, manifest, min_confidence=min_confidence, path=folder)

    def probabilities(self, question: str) -> dict[QueryType, float]:
        """Class probabilities in QUERY_TYPES order (they sum to 1)."""
        text = question.strip() if isinstance(question, str) else ""
        if not text:
            raise QueryError("cannot classify an empty question")
        row = self._model.predict_proba([text])[0]
        by_class = {label: float(p) for label, p in zip(self._classes, row, strict=True)}
        return {label: by_class[label] for label in QUERY_TYPES}

    def classify(self, question: str) -> tuple[QueryType, dict[QueryType, float]]:
        """The most probable type and all probabilities (ties go to the earlier QUERY_TYPES entry)."""
        probabilities = self.probabilities(question)
        return max(QUERY_TYPES, key=lambda label: probabilities[label]), probabilities

    def predict(self, question: str) -> Classification:
        """The routing decision, with ``confident`` = top probability ≥ ``min_confidence``."""
        label, probabilities = self.classify(question)
        ranked = tuple(sorted(QUERY_TYPES, key=lambda t: -probabilities[t]))
        return Classification(
            label=label,
            probabilities=probabilities,
            confident=probabilities[label] >= self.min_confidence,
            min_confidence=self.min_confidence,
            model_version=self.model_version,
            ranked=ranked,
        )


def classifier_manifest(settings: Settings | None = None, path: str | Path | None = None) -> dict[str, Any]:
    """What `geo-rag status` shows: versions and headline metrics, read without unpickling the model."""
    folder = Path(path) if path is not None else default_artifact_dir(settings or get_settings())
    folder = folder.parent if folder.is_file() else folder
    manifest_path = folder / MANIFEST_FILE
    if not manifest_path.is_file():
        raise StoreError(f"no query classifier at {folder}: {_MISSING_HINT}")
    try:
        manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise StoreError(f"unreadable classifier manifest {manifest_path}: {exc}") from exc
    metrics = manifest.get("metrics") or {}
    summary = {
        key: manifest.get(key)
        for key in (
            "model_version",
            "model",
            "sha256",
            "sklearn_version",
            "training_data_version",
            "test_data_version",
        )
        if manifest.get(key) is not None
    }
    summary.update({k: metrics[k] for k in ("test_macro_f1", "test_accuracy", "n_train") if k in metrics})
    summary["path"] = str(folder)
    return summary


def artifact_stamp(folder: Path) -> tuple[int, ...] | None:
    """What changes when the artifact is retrained or restored: the modification times and sizes of
    its manifest, numpy copy and model (0 for one that is absent); None without a manifest.

    Every file is replaced by an atomic rename when written, so a new version always shows here."""
    stamp: list[int] = []
    for name in (MANIFEST_FILE, LINEAR_FILE, MODEL_FILE):
        try:
            info = (folder / name).stat()
        except FileNotFoundError:
            if name == MANIFEST_FILE:
                return None
            stamp += [0, 0]
            continue
        stamp += [info.st_mtime_ns, info.st_size]
    return tuple(stamp)


_CACHE: dict[tuple[str, float], tuple[tuple[int, ...], QueryClassifier]] = {}
_CACHE_LOCK = threading.Lock()


def get_classifier(settings: Settings | None = None, path: str | Path | None = None) -> QueryClassifier:
    """The classifier for these settings, loaded once per process and reloaded when the files change.

    The cache key is the artifact folder and the confidence threshold; the modification times of the
    manifest and the model decide whether a re-trained artifact must be loaded again.
    """
    settings = settings or get_settings()
    folder = Path(path) if path is not None else default_artifact_dir(settings)
    folder = folder.parent if folder.is_file() else folder
    stamp = artifact_stamp(folder)
    if stamp is None:
        raise StoreError(f"no query classifier at {folder}: {_MISSING_HINT}")
    key = (str(folder.resolve()), float(settings.classifier_min_confidence))
    with _CACHE_LOCK:
        cached = _CACHE.get(key)
        if cached is not None and cached[0] == stamp:
            return cached[1]
        classifier = QueryClassifier.load(folder, min_confidence=settings.classifier_min_confidence)
        _CACHE[key] = (stamp, classifier)
        return classifier


def clear_classifier_cache() -> None:
    """Forget loaded classifiers (tests, or a service that wants to free memory)."""
    with _CACHE_LOCK:
        _CACHE.clear()
