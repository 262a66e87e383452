"""Answer-level metrics: does the answer a user reads state what the evidence says?

Retrieval metrics ask whether the evidence reached the context; these ask whether it reached the
answer. All are judge-free and deterministic, so they run in every evaluation.

``answer_evidence_recall``
    Share of the question's reference passages that the answer carries. An answer sentence (citation
    markers removed) carries a passage when it quotes it — ``partial_ratio`` of their ``match_key``
    ≥ :data:`~geo_assets.evaluation.metric_specs.MATCH_THRESHOLD`, the shorter text aligned inside the
    longer, at least :data:`MIN_QUOTE_CHARS` long — or when it is attributed to one of the passage's
    sentences by the grounded generator's own rule (every number of the answer sentence in that
    sentence and ≥ 0.6 of its content words: ``query.grounded.attribute_sentences``), which is how a
    paraphrase by a model counts.
``reference_numbers_stated``
    Share of the numbers of the reference answer that the answer states (numbers as values: not the
    mass numbers glued to an element, "87Sr/86Sr", "206Pb"); undefined when the reference has none.
``both_papers@5``
    On a question whose reference rests on two or more papers: 1 when every one of them is the source
    of a chunk among the first five, else 0.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence

from rapidfuzz import fuzz

from geo_assets.evaluation.dataset import match_key, printed
from geo_assets.evaluation.metric_specs import EVIDENCE_K, MATCH_THRESHOLD, OK, UNDEFINED, MetricValue
from geo_rag_runtime.query.generation import NOT_FOUND
from geo_rag_runtime.query.grounded import attribute_sentences, split_answer
from geo_rag_runtime.text.sentences import split_sentences

__all__ = [
    "MIN_QUOTE_CHARS",
    "answer_evidence_recall",
    "both_papers_found",
    "carried_passages",
    "reference_numbers",
    "reference_numbers_stated",
]

MIN_QUOTE_CHARS = 30  # a shorter answer sentence ("Yes.") quotes nothing worth counting
# a value: not glued to letters on either side (so "206Pb", "87Sr/86Sr", "U-238" are notation, not
# numbers), thousands separators and decimal commas folded, unicode minus as "-"
_VALUE = re.compile(r"(?<![\w.\-−/])[-−]?\d+(?:[.,]\d+)*(?![\w/])")


def _passage_sentences(passage: str) -> list[str]:
    spans = split_sentences(passage)
    return [passage[a:b].strip() for a, b in spans if passage[a:b].strip()] or [passage]


def _quotes(sentence: str, passage: str) -> bool:
    """The shorter text aligned inside the longer, and no number of the shorter one missing from the
    longer (a fuzzy match would otherwise let "420 ± 4 Ma" quote "410 ± 4 Ma")."""
    a, b = match_key(sentence), match_key(passage)
    if min(len(a), len(b)) < MIN_QUOTE_CHARS:
        return False
    shorter, longer = (sentence, passage) if len(a) <= len(b) else (passage, sentence)
    # numbers compared as printed: a passage quoted as extracted ("yo =2.12Þ") reads "2" otherwise
    if not reference_numbers(printed(shorter)) <= reference_numbers(printed(longer)):
        return False
    return fuzz.partial_ratio(a, b) >= MATCH_THRESHOLD


def carried_passages(answer: str, passages: Sequence[str]) -> list[bool]:
    """For each reference passage: does some sentence of ``answer`` quote it or rest on it?"""
    sentences = [s for s in split_answer(answer) if s.strip()]
    out = []
    for passage in passages:
        if any(_quotes(s, passage) for s in sentences):
            out.append(True)
            continue
        own = _passage_sentences(passage)
        out.append(any(a.evidence is not None for a in attribute_sentences(sentences, own)))
    return out


def answer_evidence_recall(answer: str, passages: Sequence[str], answerable: bool) -> MetricValue:
    name = "answer_evidence_recall"
    if not answerable or not passages:
        return MetricValue(name, math.nan, UNDEFINED, "no reference passages")
    if answer.strip().startswith(NOT_FOUND) or not answer.strip():
        return MetricValue(name, 0.0, OK, "the answer abstained")
    carried = carried_passages(answer, passages)
    return MetricValue(name, sum(carried) / len(carried))


def reference_numbers(text: str) -> set[str]:
    """The values a text states, normalised (see :data:`_VALUE`)."""
    out = set()
    for raw in _VALUE.findall(text):
        number = raw.replace("−", "-").replace(",", "")
        out.add(number.lstrip("-") if number.startswith("-0") and float(number) == 0 else number)
    return out


def reference_numbers_stated(answer: str, reference_answer: str, answerable: bool) -> MetricValue:
    name = "reference_numbers_stated"
    wanted = reference_numbers(reference_answer) if answerable else set()
    if not wanted:
        return MetricValue(name, math.nan, UNDEFINED, "no number in the reference answer")
    stated = reference_numbers(answer)
    return MetricValue(name, len(wanted & stated) / len(wanted))


def both_papers_found(source_files: Sequence[str | None], reference_papers: Sequence[str]) -> MetricValue:
    name = f"both_papers@{EVIDENCE_K}"
    papers = set(reference_papers)
    if len(papers) < 2:
        return MetricValue(name, math.nan, UNDEFINED, "the reference rests on one paper")
    top = {f for f in source_files[:EVIDENCE_K] if f}
    return MetricValue(name, float(papers <= top))
