"""What a question is about, for the strategies: keywords, entity alternatives, graph neighbours.

Deterministic equivalents of the LLM's rephrasing and expansion steps use these: the vocabulary's
canonical names and synonyms of the question's entities (e.g. "Sr" ↔ "strontium", plus the isotope
ratio an "X isotopes" phrase means: "Sr isotopes" ↔ "87Sr/86Sr"), entities one hop away in the graph,
and a keyword form of the question with question words and stop words removed.
"""

from __future__ import annotations

import re
import threading
from collections import Counter
from collections.abc import Sequence
from typing import Any

from geo_rag_runtime.models import RetrievedItem
from geo_rag_runtime.query.tools import RetrievalTools

__all__ = [
    "ISOTOPE_SYSTEM_RATIOS",
    "keyword_form",
    "entity_alternatives",
    "graph_neighbours",
    "fact_entities",
    "named_entities",
]

# Isotope systems a question names as "<element> isotopes": the ratio that phrase means in papers.
ISOTOPE_SYSTEM_RATIOS: dict[str, tuple[str, ...]] = {
    "Sr": ("87Sr/86Sr",),
    "Nd": ("143Nd/144Nd", "εNd"),
    "Hf": ("176Hf/177Hf", "εHf"),
    "Pb": ("206Pb/204Pb", "207Pb/204Pb", "208Pb/204Pb"),
    "Os": ("187Os/188Os",),
    "O": ("δ18O",),
    "H": ("δD",),
    "C": ("δ13C",),
    "S": ("δ34S",),
    "Li": ("δ7Li",),
    "B": ("δ11B",),
    "Mg": ("δ26Mg",),
    "Fe": ("δ56Fe",),
    "U": ("238U/235U", "234U/238U"),
    "Ar": ("40Ar/39Ar",),
    "He": ("3He/4He",),
    "Ca": ("40Ca/44Ca", "δ44Ca"),
    "Re": ("187Re/188Os",),
}
_ISOTOPE_WORD = re.compile(r"\bisotop", re.IGNORECASE)
_QUESTION_WORDS = frozenset(
    # a word list reads best as text
    """what which who whom whose when where why how does do did is are was were can could should
    would will shall may might explain describe tell give list name please""".split()  # noqa: SIM905
)
_WORD = re.compile(r"[^\s,;:?!()\[\]{}\"“”‘’]+")


def keyword_form(question: str) -> str:
    """The question without question words and stop words, notation kept as written."""
    from geo_rag_runtime.text.keyword_terms import STOP_WORDS

    kept = []
    for match in _WORD.finditer(question):
        word = match.group().strip(".'\"")
        if not word:
            continue
        low = word.casefold()
        if low in _QUESTION_WORDS or low in STOP_WORDS:
            continue
        kept.append(word)
    return " ".join(kept)


_FORMS: dict[int, dict[str, list[str]]] = {}
_FORMS_LOCK = threading.Lock()


def _forms_by_canonical(vocabulary: Any) -> dict[str, list[str]]:
    """Every surface form per canonical name (built once per vocabulary object)."""
    with _FORMS_LOCK:
        cached = _FORMS.get(id(vocabulary))
        if cached is None:
            cached = {}
            for term in vocabulary.terms():
                bucket = cached.setdefault(term.canonical, [])
                if term.form not in bucket:
                    bucket.append(term.form)
            _FORMS[id(vocabulary)] = cached
        return cached


def entity_alternatives(
    question: str, entities: Sequence[Any], tools: RetrievalTools
) -> dict[str, list[str]]:
    """Per surface form of the question's entities, other names the corpus may use for them."""
    if tools.recognize is None:
        return {}
    forms = _forms_by_canonical(tools.vocabulary) if tools.vocabulary is not None else {}
    out: dict[str, list[str]] = {}
    for entity in entities:
        surface = str(entity.surface)
        names = [str(entity.name)] + [f for f in forms.get(str(entity.name), []) if len(f) > 1]
        if entity.type == "Element" and _ISOTOPE_WORD.search(question):
            names += list(ISOTOPE_SYSTEM_RATIOS.get(str(entity.name), ()))
        seen = {surface.casefold()}
        alternatives = []
        for name in names:
            if name.casefold() not in seen:
                seen.add(name.casefold())
                alternatives.append(name)
        if alternatives:
            out[surface] = alternatives[:4]
    return out


def graph_neighbours(entity_names: Sequence[str], tools: RetrievalTools, limit: int = 6) -> list[str]:
    """Entities one hop from the question's entities in the graph, most connected first."""
    if tools.graph is None or not entity_names:
        return []
    facts = tools.graph.subgraph(list(entity_names), 1, 50)
    asked = {name.casefold() for name in entity_names}
    counts: Counter[str] = Counter()
    for fact in facts:
        if tools.only_hidden(fact.provenance):
            continue
        for name in fact_entities(fact):
            if name.casefold() not in asked:
                counts[name] += 1
    return [name for name, _ in counts.most_common(limit)]


def fact_entities(fact: Any) -> list[str]:
    """Head and tail names of a graph fact: a store ``Fact`` or a retrieved fact item."""
    if isinstance(fact, RetrievedItem):
        from geo_rag_runtime.vocab import RELATIONS

        words = fact.text.split(" ")
        for i, word in enumerate(words[1:-1], start=1):  # "<head> RELATION <tail>" (GraphRetriever)
            if word in RELATIONS:
                return [" ".join(words[:i]), " ".join(words[i + 1 :])]
        return []
    names = [getattr(fact, key, None) for key in ("head", "tail")]
    return [str(name) for name in names if name]


def named_entities(texts: Sequence[str], tools: RetrievalTools) -> set[str]:
    """Canonical names (case folded) of the entities the texts mention.

    With the recognizer, "iron" and "Fe" are the same entity; without it, whole words of the texts
    stand in (never substrings: the element U must not match every "u").
    """
    if tools.recognize is not None:
        return {str(e.name).casefold() for text in texts for e in tools.recognize(text)}
    words = re.findall(r"[^\s,;:.!?()\[\]]+", " ".join(texts))
    return {w.casefold() for w in words}
