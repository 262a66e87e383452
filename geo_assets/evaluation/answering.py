"""Asking the evaluation questions and turning the answers into metric samples.

Every question is asked in every mode; an answer that fails is recorded with its error (its metrics
are then reported with status ``error``), never raised, unless every answer fails. The retrieved
contexts of an ``Answer`` are read back in rank order (``contexts_of``): passages, then graph facts and
reported values.
"""

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from geo_assets.evaluation.dataset import EvalQuestion
from geo_assets.evaluation.metrics import EvalSample
from geo_rag_runtime.models import Answer
from geo_rag_runtime.query.pipeline import fallback_strategy

SYSTEMS = {"hybrid": "HybridRAG", "baseline": "BaselineRAG"}
AnswerFn = Callable[[str, str], Answer]


# --------------------------------------------------------------------------- answers


@dataclass
class AnswerRecord:
    """What one system returned for one question (or why it failed)."""

    question_id: str
    query_type: str
    system: str
    mode: str
    question: str
    answer: str = ""
    category: str = ""
    strategy: str = ""
    generator: str = ""
    chunk_texts: list[str] = field(default_factory=list)
    chunk_ids: list[str | None] = field(default_factory=list)
    source_files: list[str | None] = field(default_factory=list)
    fact_texts: list[str] = field(default_factory=list)
    timings_ms: dict[str, float] = field(default_factory=dict)
    wall_ms: float = 0.0
    notes: list[str] = field(default_factory=list)
    error: str | None = None
    # the routed strategy raised and dense similarity answered instead: a bug, counted per strategy
    fallback_from: str | None = None


def _ordered(items: Any) -> list[Any]:
    """The values of a context dict {"0": ..., "1": ...} in rank order."""
    if isinstance(items, list):
        return items
    if not isinstance(items, dict):
        return []
    keys = sorted(items, key=lambda k: (0, int(k)) if str(k).isdigit() else (1, str(k)))
    return [items[k] for k in keys]


def _text(item: Any) -> str:
    if isinstance(item, dict):
        return str(item.get("text") or "")
    return str(item or "")


def fact_text(fact: dict[str, Any]) -> str:
    """A graph fact as the answer saw it: the triple and the source sentences it was read from.

    The generators cite a fact by its source sentence, so a judge shown only "A RELATION B" would
    call a sentence quoted from that source unsupported.
    """
    sentences = [
        str(p.get("sentence") or "").strip() for p in fact.get("provenance") or [] if isinstance(p, dict)
    ]
    sentences = [s for s in dict.fromkeys(sentences) if s]
    text = _text(fact)
    return f"{text} (source: {' / '.join(sentences)})" if sentences else text


def contexts_of(answer: Answer) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """(passages in rank order, graph facts and reported values) from ``Answer.contexts``."""
    return split_contexts([item.model_dump() for item in answer.contexts])


def split_contexts(
    contexts: Mapping[str, Any] | Sequence[Any],
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """(passages in rank order, graph facts and reported values in marker order) from an answer's
    contexts as stored in JSON: the typed list (``schema_version`` ``answer-2``: items of kind passage,
    fact, value) or the dictionary of the first shape (``VectorRAG_Context`` / ``GraphRAG_Context``)."""
    if isinstance(contexts, Mapping):
        chunks = [
            c if isinstance(c, dict) else {"text": _text(c)}
            for c in _ordered(contexts.get("VectorRAG_Context"))
        ]
        facts = [
            f if isinstance(f, dict) else {"text": _text(f)}
            for f in _ordered(contexts.get("GraphRAG_Context"))
        ]
        return chunks, facts
    items = [dict(item) for item in contexts if isinstance(item, Mapping)]
    return (
        [item for item in items if item.get("kind") == "passage"],
        [item for item in items if item.get("kind") in ("fact", "value")],
    )


def context_texts(
    chunks: Sequence[dict[str, Any]], facts: Sequence[dict[str, Any]]
) -> tuple[list[str], list[str]]:
    """What the metrics and the judge read: chunk texts, and facts with their source sentences."""
    return [_text(c) for c in chunks], [fact_text(f) for f in facts]


def _error_text(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {exc}".replace("\n", " ")[:500]


def collect_answers(
    questions: Sequence[EvalQuestion],
    answer_fn: AnswerFn,
    *,
    modes: Sequence[str] = ("hybrid", "baseline"),
    log: Callable[[str], None] | None = None,
) -> list[AnswerRecord]:
    """Ask every question in every mode; a failing answer is recorded, not raised.

    If every answer fails (no stores, say), the first error is raised: there is nothing to score.
    """
    records: list[AnswerRecord] = []
    first_error: BaseException | None = None
    for number, q in enumerate(questions, start=1):
        for mode in modes:
            record = AnswerRecord(q.id, q.query_type, SYSTEMS[mode], mode, q.question)
            started = time.perf_counter()
            try:
                answer = answer_fn(q.question, mode)
            except Exception as exc:  # one bad question must not lose the others
                record.error = _error_text(exc)
                first_error = first_error or exc
            else:
                chunks, facts = contexts_of(answer)
                record.answer = answer.answer or ""
                record.category = answer.category
                record.strategy = answer.strategy
                record.generator = answer.generator
                record.chunk_texts, record.fact_texts = context_texts(chunks, facts)
                record.chunk_ids = [c.get("chunk_id") for c in chunks]
                record.source_files = [c.get("source_file") for c in chunks]
                record.timings_ms = dict(answer.timings_ms)
                record.notes = list(answer.notes)
                record.fallback_from = fallback_strategy(answer.notes)
            record.wall_ms = round((time.perf_counter() - started) * 1000, 1)
            records.append(record)
        if log is not None and (number % 10 == 0 or number == len(questions)):
            log(f"answered {number}/{len(questions)} questions")
    if records and all(r.error for r in records) and first_error is not None:
        raise first_error
    return records


def fallback_counts(records: Sequence[AnswerRecord]) -> dict[str, dict[str, int]]:
    """How many answers of each system fell back to dense similarity, per strategy that raised."""
    counts: dict[str, dict[str, int]] = {}
    for record in records:
        if record.fallback_from:
            by_strategy = counts.setdefault(record.system, {})
            by_strategy[record.fallback_from] = by_strategy.get(record.fallback_from, 0) + 1
    return {system: dict(sorted(found.items())) for system, found in sorted(counts.items())}


def fallback_markdown(counts: dict[str, dict[str, int]]) -> str:
    """The summary's warning: answers whose strategy raised are a bug, not a lower score."""
    total = sum(sum(found.values()) for found in counts.values())
    listed = "; ".join(
        f"{system}: " + ", ".join(f"{strategy} ×{n}" for strategy, n in found.items())
        for system, found in counts.items()
    )
    return (
        f"**Fallbacks: {total} answer(s) came from dense similarity because their strategy raised** "
        f"({listed}). Their scores measure the fallback, not the strategy; the notes in answers.jsonl "
        "name the errors."
    )


def to_samples(records: Sequence[AnswerRecord], questions: Sequence[EvalQuestion]) -> list[EvalSample]:
    by_id = {q.id: q for q in questions}
    samples = []
    for r in records:
        q = by_id[r.question_id]
        samples.append(
            EvalSample(
                question_id=r.question_id,
                query_type=r.query_type,
                system=r.system,
                question=r.question,
                answer=r.answer,
                chunk_texts=tuple(r.chunk_texts),
                fact_texts=tuple(r.fact_texts),
                reference_answer=q.reference_answer,
                reference_passages=tuple(p.text for p in q.reference_passages),
                reference_entities=tuple(q.reference_entities),
                error=r.error,
                source_files=tuple(r.source_files),
                reference_papers=tuple(q.papers),
                answerable=q.answerable,
            )
        )
    return samples
