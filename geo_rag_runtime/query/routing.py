"""Classify the question and pick its route (docs/method.md#query-types-and-routes).

The classifier's label names the strategy. Without a classifier, when it fails, or when its top
probability is below ``classifier_min_confidence``, HybridRAG takes the hybrid sparse + dense route
(the one that needs no assumption about the question) and the answer says so in its notes.
BaselineRAG classifies too (the category is reported) but never routes.

This is the pipeline's step; the classifier itself (its artifact, the numpy copy, its features and
training) is the ``geo_rag_runtime.router`` package, reached here through the store protocol
``QueryClassifierModel`` that ``stores.opening.open_classifier`` opens.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from geo_rag_runtime.models import QueryType
from geo_rag_runtime.query.strategies import HybridSparseDense, Strategy, strategy_for
from geo_rag_runtime.stores.protocols import QueryClassifierModel

__all__ = ["FALLBACK_CATEGORY", "Route", "route"]

FALLBACK_CATEGORY: QueryType = "hidden_rationale"


@dataclass
class Route:
    """The category reported, the classification record, and the strategy to run."""

    category: QueryType
    classification: dict[str, Any]
    confident: bool
    strategy: Strategy
    notes: list[str] = field(default_factory=list)


def route(
    question: str,
    classifier: QueryClassifierModel | None,
    *,
    forced: QueryType | None = None,
    routing: bool = True,
    unavailable_reason: str | None = None,
) -> Route:
    """The route for ``question``; ``forced`` skips the classifier (tests, evaluation by type)."""
    if forced is not None:
        return Route(forced, {"label": forced, "source": "forced"}, True, strategy_for(forced))
    fallback = "used the hybrid strategy; " if routing else ""
    if classifier is None:
        note = (
            f"query classifier unavailable ({unavailable_reason}): {fallback}"
            f"category defaults to {FALLBACK_CATEGORY}"
        )
        return Route(FALLBACK_CATEGORY, {"source": "unavailable"}, False, HybridSparseDense(), [note])
    try:
        decision = classifier.predict(question)
    except Exception as exc:  # a broken model must not take the service down
        note = (
            f"query classifier failed ({type(exc).__name__}: {exc}): {fallback}"
            f"category defaults to {FALLBACK_CATEGORY}"
        )
        return Route(FALLBACK_CATEGORY, {"source": "failed"}, False, HybridSparseDense(), [note])
    record = {**decision.to_dict(), "source": "classifier"}
    notes = []
    if not decision.confident and routing:
        notes.append(
            f"classifier confidence {decision.confidence:.2f} < {decision.min_confidence:.2f} "
            f"for {decision.label}: used the hybrid strategy"
        )
    confident = bool(decision.confident)
    strategy = strategy_for(decision.label) if confident else HybridSparseDense()
    return Route(decision.label, record, confident, strategy, notes)
