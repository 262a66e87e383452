"""Choosing the answering sentence among the context's candidates: a learned linear ranker.

The relevance score (MiniLM cosine + entity and keyword overlap, ``query.relevance``) finds sentences
*near* the question; the sentence that *answers* it is often another one of the same passage: it
names the sample, states the value with its unit, or gives the reason — and may share few words with
the question. No cross-encoder weights trained for this can be installed offline, so the ranker is a
logistic regression over cheap, interpretable features of (question, sentence), learned from pairs
the corpus itself provides (``geo_assets.answers``: questions written from a sentence's own values,
entities and sample names, with the other sentences of the retrieved context as negatives). It is a
few dozen numbers in a JSON file — no pickle — so it is read safely from a home or a backup.

Features are relative within one question where that matters (a cosine 0.05 below the best candidate
says more than the cosine itself), so one model serves questions of every length and type.
"""

from __future__ import annotations

import json
import math
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from geo_rag_runtime.query.relevance import QuestionRelevance, SentenceScore

__all__ = [
    "FEATURES",
    "PACKAGED_SELECTOR",
    "SELECTOR_FILE",
    "SelectorInput",
    "SelectorModel",
    "candidate_features",
    "load_selector",
]

SELECTOR_FILE = "answer_selector.json"
# trained by the same code on the five sample papers (scripts/train_selector.py): used by a home that
# has not trained its own yet
PACKAGED_SELECTOR = Path(__file__).with_name(SELECTOR_FILE)
FEATURES = (
    "cosine",
    "cosine_gap",
    "entities",
    "keywords",
    "idf_overlap",
    "idf_gap",
    "tightness",
    "has_value",
    "value_for_value_question",
    "identifier",
    "cause_for_why_question",
    "evidence_for_rationale_question",
    "passage_rank",
    "first_in_passage",
    "graph_fact",
    "length",
    "previous_cosine_gap",
    "next_cosine_gap",
)

_VALUE = re.compile(r"(?<![\w.\-−/])[-−]?\d+(?:[.,]\d+)*(?![\w/])")
_UNIT = re.compile(
    r"(?:±|\b(?:Ma|Ga|ka|kyr|Myr|Gyr|wt\s?\.?\s?%|ppm|ppb|GPa|kbar|MPa|km|°C|K|µm|μm|mm|cm|m|%|‰|"
    r"MSWD|ε\w*|δ\w*))",
)
# the question asks for a quantity, a date or a count
_ASKS_VALUE = re.compile(
    r"\b(?:how (?:much|many|old|long|large|deep|hot|high|fast)|what (?:is|was|were|are) the "
    r"(?:\w+\s){0,3}(?:age|ratio|value|temperature|pressure|depth|concentration|content|range|rate|"
    r"number|size|mswd|precision|uncertainty|error|proportion|fraction|abundance)|which (?:age|value|"
    r"ratio|temperature|pressure)|ages?\b|ratios?\b|values?\b|temperatures?\b|pressures?\b|"
    r"concentrations?\b|wt\s?%|ppm|\bma\b|\bga\b)",
    re.IGNORECASE,
)
_ASKS_WHY = re.compile(r"\b(?:why|how come|what (?:could|would|might) explain|what causes?|reason)\b", re.I)
_ASKS_RATIONALE = re.compile(
    r"\b(?:evidence|criteria|criterion|factors?|arguments?|reasons?|justif\w*|assumptions?|"
    r"what makes|on what basis|support)\b",
    re.IGNORECASE,
)
_CAUSE = re.compile(
    r"\b(?:because|due to|owing to|since|therefore|thus|hence|as a result|result(?:s|ed)? in|leads? to|"
    r"caus\w*|explain\w*|reflect\w*|implies|imply|attribut\w*|driven by|controlled by)\b",
    re.IGNORECASE,
)
_EVIDENCE = re.compile(
    r"\b(?:indicat\w*|suggest\w*|show\w*|demonstrat\w*|consistent with|support\w*|evidence|argue\w*|"
    r"reveal\w*|confirm\w*|based on|criteri\w*|requires?|must)\b",
    re.IGNORECASE,
)
# a sample, standard or site name: letters and digits in one token ("19MAT-169", "GJ-1", "KL29"),
# not an isotope or a ratio ("87Sr", "206Pb/238U") and not a plain number
_IDENTIFIER = re.compile(r"\b(?=[\w-]*\d)(?=[\w-]*[A-Za-z])[A-Za-z0-9][\w-]*[A-Za-z0-9]\b")
_ISOTOPE = re.compile(r"^\d{1,3}[A-Z][a-z]?$|^[A-Z][a-z]?-?\d{1,3}$")
_WORDS = re.compile(r"\S+")


@dataclass(frozen=True)
class SelectorInput:
    """One candidate sentence as the ranker sees it."""

    text: str
    item: int  # rank of its passage in the context (facts after the passages)
    position: int  # sentence number within the passage
    fact: bool = False


def _identifiers(text: str) -> set[str]:
    out = set()
    for token in _IDENTIFIER.findall(text):
        if not _ISOTOPE.match(token):
            out.add(token.replace("-", "").casefold())
    return out


def candidate_features(
    relevance: QuestionRelevance,
    candidates: Sequence[SelectorInput],
    scores: Sequence[SentenceScore],
) -> np.ndarray:
    """One row of :data:`FEATURES` per candidate (float32), for one question."""
    question = relevance.question
    keywords = [relevance.scorer.keywords(c.text) for c in candidates]
    question_keywords = set(relevance.keywords)
    df: Counter[str] = Counter()
    for words in keywords:
        df.update(set(words) & question_keywords)
    n = len(candidates)
    idf = {w: math.log((n + 1) / (df[w] + 0.5)) for w in question_keywords}
    idf_total = sum(idf.values()) or 1.0
    asks_value = bool(_ASKS_VALUE.search(question))
    asks_why = bool(_ASKS_WHY.search(question))
    asks_rationale = bool(_ASKS_RATIONALE.search(question))
    wanted_ids = _identifiers(question)
    rows = np.zeros((n, len(FEATURES)), dtype=np.float32)
    idf_overlaps = [sum(idf[w] for w in set(words) & question_keywords) / idf_total for words in keywords]
    best_cosine = max((s.cosine for s in scores), default=0.0)
    best_idf = max(idf_overlaps, default=0.0)
    # the sentences around a candidate: an answer often follows (or precedes) the sentence that
    # names the question's subject ("X happens. This is because …"); 0 where the neighbour is no
    # candidate (a heading, a table row) or the passage ends
    at = {
        (c.item, c.position): score.cosine for c, score in zip(candidates, scores, strict=True) if not c.fact
    }
    for i, (candidate, score, words) in enumerate(zip(candidates, scores, keywords, strict=True)):
        text = candidate.text
        has_value = bool(_VALUE.search(text)) and bool(_UNIT.search(text))
        own_ids = _identifiers(text) if wanted_ids else set()
        tightness = len(set(words) & question_keywords) / len(set(words)) if words else 0.0
        rows[i] = (
            score.cosine,
            score.cosine - best_cosine,
            score.entities,
            score.keywords,
            idf_overlaps[i],
            idf_overlaps[i] - best_idf,
            tightness,
            float(has_value),
            float(has_value and asks_value),
            len(wanted_ids & own_ids) / len(wanted_ids) if wanted_ids else 0.0,
            float(asks_why and bool(_CAUSE.search(text))),
            float(asks_rationale and bool(_EVIDENCE.search(text))),
            0.0 if candidate.fact else 1.0 / (1.0 + candidate.item),
            1.0 / (1.0 + candidate.position),
            float(candidate.fact),
            math.log1p(len(_WORDS.findall(text))) / math.log(90.0),
            (0.0 if candidate.fact else at.get((candidate.item, candidate.position - 1), 0.0)) - best_cosine,
            (0.0 if candidate.fact else at.get((candidate.item, candidate.position + 1), 0.0)) - best_cosine,
        )
    return rows


@dataclass
class SelectorModel:
    """Standardised features → logistic regression; ``score`` is the probability of answering."""

    coef: np.ndarray
    intercept: float
    mean: np.ndarray
    scale: np.ndarray
    features: tuple[str, ...] = FEATURES
    meta: dict[str, Any] = field(default_factory=dict)

    @property
    def version(self) -> str:
        return str(self.meta.get("version", "unversioned"))

    def score(self, rows: np.ndarray) -> np.ndarray:
        if rows.size == 0:
            return np.zeros(0, dtype=np.float32)
        z = (rows - self.mean) / self.scale
        logits = z @ self.coef + self.intercept
        out: np.ndarray = (1.0 / (1.0 + np.exp(-logits))).astype(np.float32)
        return out

    def to_json(self) -> dict[str, Any]:
        return {
            "features": list(self.features),
            "coef": [float(x) for x in self.coef],
            "intercept": float(self.intercept),
            "mean": [float(x) for x in self.mean],
            "scale": [float(x) for x in self.scale],
            "meta": self.meta,
        }

    def save(self, path: Path) -> Path:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".tmp")
        tmp.write_text(json.dumps(self.to_json(), indent=1, sort_keys=True), encoding="utf-8")
        tmp.replace(path)
        return path

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> SelectorModel:
        features = tuple(str(f) for f in data["features"])
        if features != FEATURES:
            raise ValueError(f"selector features {features} differ from this code's {FEATURES}: retrain it")
        arrays = [np.asarray(data[k], dtype=np.float32) for k in ("coef", "mean", "scale")]
        if any(a.shape != (len(FEATURES),) for a in arrays) or not all(np.isfinite(a).all() for a in arrays):
            raise ValueError("selector weights are malformed")
        return cls(
            arrays[0], float(data["intercept"]), arrays[1], arrays[2], features, dict(data.get("meta", {}))
        )


def load_selector(path: Path) -> SelectorModel | None:
    """The ranker saved at ``path``; None when there is none (the relevance score then ranks)."""
    if not path.is_file():
        return None
    return SelectorModel.from_json(json.loads(path.read_text(encoding="utf-8")))
