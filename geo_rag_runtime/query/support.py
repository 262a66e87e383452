"""Abstention: does the context speak of what the question asks about at all?

A question names entities — an isotope ratio, a mineral, a rock, a place, a method. When one of them
occurs in none of the passages the answer would be built from, the sources cannot answer it, and quoting the nearest sentences about something else
would mislead: "What δ11B values do the Cascades lavas have?" over a corpus without boron isotopes
retrieves passages about other isotopes of the Cascades lavas. The pipeline then answers "Not found
in the corpus." and names what the sources lack (``generator="evidence_check"``), for both modes.

Why entities and not a relevance threshold: on the hand-written 17-paper set the best sentence's
relevance and the share of the question's rare terms a passage covers overlap almost completely
between answerable and unanswerable questions (near misses are the hard case: the right paper, a
neighbouring quantity). A named entity that no passage mentions is the one signal that separated them
without silencing answerable questions (numbers in the README's evaluation section).

Numbers in a question (``Age``, ``Measurement``) are skipped: they are usually the givens of a
worked question ("… a weighted mean of 101.1 Ma …"), not its topic. So are class names
(``GENERIC_NAMES``: "igneous rocks", "magma"): they describe, they are not what is asked about, and
papers say "igneous" or "the lavas" instead (on the 17-paper set one false abstention fewer, 4 → 3 of
166, and the same 15 of 20 abstentions). Graph facts do not count, not
even their source sentences: facts are fetched *for* the question's entities, so they name them
whenever the corpus does anywhere — counting them, HybridRAG abstained on 8 of 20 unanswerable
questions instead of 11 (corpus set).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from geo_rag_runtime.query.context import ContextBundle
from geo_rag_runtime.vocab import is_class_name

__all__ = ["SKIPPED_TYPES", "missing_entities", "abstention_text"]

SKIPPED_TYPES = frozenset({"Age", "Measurement"})
_WORDS = re.compile(r"\S+")


def _mentioned(entity: Any, names: set[str], folded: str) -> bool:
    """An entity is mentioned when the recognizer found it in the context, or its canonical name or
    surface form occurs there; a multi-word name ("40Ar/39Ar dating", "igneous rocks") also when each
    of its words does (the papers rarely use the question's exact phrase)."""
    name = str(entity.name).casefold()
    surface = str(getattr(entity, "surface", entity.name)).casefold()
    if name in names or name in folded or surface in folded:
        return True
    words = _WORDS.findall(name)
    return len(words) > 1 and all(word in folded for word in words)


def missing_entities(
    entities: Iterable[Any],
    bundle: ContextBundle,
    recognize: Callable[[str], Sequence[Any]] | None,
) -> list[str]:
    """The question's entities (surface forms, in order) that nothing in the context mentions.

    Empty when the context holds no passage (the generators decide) or nothing was recognized in
    the question.
    """
    asked = [
        e
        for e in entities
        if getattr(e, "type", None) not in SKIPPED_TYPES and not is_class_name(str(e.name))
    ]
    texts = [chunk.text for chunk in bundle.chunks]
    if not asked or not texts:
        return []
    folded = " ".join(" ".join(t.split()) for t in texts).casefold()
    names: set[str] = set()
    if recognize is not None:
        for text in texts:
            names.update(str(e.name).casefold() for e in recognize(text))
    missing = [str(getattr(e, "surface", e.name)) for e in asked if not _mentioned(e, names, folded)]
    return list(dict.fromkeys(missing))


def abstention_text(missing: Sequence[str], not_found: str) -> str:
    """``Not found in the corpus. The retrieved sources do not mention δ11B.``"""
    listed = ", ".join(missing[:-1]) + (f" or {missing[-1]}" if len(missing) > 1 else missing[0])
    return f"{not_found} The retrieved sources do not mention {listed}."
