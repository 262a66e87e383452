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
without silencing answerable questions (numbers in docs/experiments.md#abstention).

Numbers in a question (``Age``, ``Measurement``) are skipped: they are usually the givens of a
worked question ("… a weighted mean of 101.1 Ma …"), not its topic. So are class names
(``GENERIC_NAMES``: "igneous rocks", "magma"): they describe, they are not what is asked about, and
papers say "igneous" or "the lavas" instead (on the 17-paper set one false abstention fewer, 4 → 3 of
166, and the same 15 of 20 abstentions). Graph facts do not count, not
even their source sentences: facts are fetched *for* the question's entities, so they name them
whenever the corpus does anywhere — counting them, HybridRAG abstained on 8 of 20 unanswerable
questions instead of 11 (corpus set).

A second, narrower check (``unvalued_quantities``) covers one kind of near miss: a question that
asks for a value in so many words ("What value of the 147Sm decay constant …") when no passage
sentence and no reported value gives that quantity a number. It fires only on that phrasing; asked
of every What/Which question it silenced more answerable ones than it caught
(docs/experiments.md#abstention).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from geo_rag_runtime.query.context import ContextBundle
from geo_rag_runtime.text.keyword_terms import normalize_tokens
from geo_rag_runtime.text.sentences import sentence_texts
from geo_rag_runtime.vocab import is_class_name

__all__ = [
    "SKIPPED_TYPES",
    "Abstention",
    "unsupported",
    "missing_entities",
    "abstention_text",
    "asks_for_value",
    "unvalued_quantities",
    "no_value_text",
]

SKIPPED_TYPES = frozenset({"Age", "Measurement"})
_WORDS = re.compile(r"\S+")
# A question that asks for a number by saying so: "What value of the 147Sm decay constant …",
# "What δ18O values …", "Which numerical …", "What … calibration factor …", "What … ratios …".
_VALUE_QUESTION = re.compile(
    r"^\W*(?:what|which)\b.*\b(?:values?|numerical|constants?|factors?|ratios?)\b",
    re.IGNORECASE | re.DOTALL,
)
# The quantities such a question asks the value of.
QUANTITY_TYPES = frozenset({"Parameter", "IsotopeRatio"})
# A free-standing number (not the digits of "87Sr/86Sr", "SiO2" or "δ18O").
_NUMBER = re.compile(r"(?<![\w/.])[-+−±~≈<>]?\d+(?:[.,]\d+)?(?![\w/])")
# Numbers that are not values: years of citations ("et al., 2018)"), figure/table/equation/section
# numbers ("Eqs. 7 and 10").
_NOT_A_VALUE = re.compile(
    r"(?:\b(?:fig(?:ure)?s?|tables?|eqs?|equations?|sections?|appendix|supplement\w*)\.?\s*"
    r"\(?[A-Z]?\d+[a-z]?\)?(?:\s*(?:,|and|&|–|-)\s*\(?[A-Z]?\d+[a-z]?\)?)*)"
    r"|(?<=[(\s])(?:1[89]|20)\d\d[a-z]?(?=[);,])",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Abstention:
    """The "not found" answer and, for the answer's notes, the reason."""

    answer: str
    reason: str


def unsupported(
    question: str,
    entities: Sequence[Any],
    bundle: ContextBundle,
    recognize: Callable[[str], Sequence[Any]] | None,
    not_found: str,
) -> Abstention | None:
    """Why the context cannot answer the question — an entity it never mentions, else a value it
    never gives — or None when neither check objects."""
    missing = missing_entities(entities, bundle, recognize)
    if missing:
        return Abstention(
            abstention_text(missing, not_found), f"no retrieved passage mentions {', '.join(missing)}"
        )
    unvalued = unvalued_quantities(question, entities, bundle)
    if unvalued:
        return Abstention(
            no_value_text(unvalued, not_found),
            f"the question asks for a value and no retrieved sentence gives one for {', '.join(unvalued)}",
        )
    return None


def _surface(entity: Any) -> str:
    """The entity as the question wrote it."""
    return str(getattr(entity, "surface", entity.name))


def _named(entity: Any, names: set[str], folded: str) -> bool:
    """An entity is named when the recognizer found it in the context, or its canonical name or
    surface form occurs there; a multi-word name ("40Ar/39Ar dating", "igneous rocks") also when each
    of its words does (the papers rarely use the question's exact phrase)."""
    name = str(entity.name).casefold()
    if name in names or any(form in folded for form in _forms(entity)):
        return True
    words = _WORDS.findall(name)
    return len(words) > 1 and all(word in folded for word in words)


def _stem_mentioned(entity: Any, tokens: set[str]) -> bool:
    """All keyword tokens of its name or surface form (``normalize_tokens``: stemmed words, notation
    whole) are among the context's: "tholeiites" in passages that say "tholeiitic", "40Ar/39Ar
    dating" where they say "40Ar/39Ar dates", "lithosphere" where they say "lithospheric"."""
    for form in (str(entity.name), _surface(entity)):
        stems = normalize_tokens(form)
        if stems and all(stem in tokens for stem in stems):
            return True
    return False


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
    unnamed = [e for e in asked if not _named(e, names, folded)]
    if not unnamed:  # the usual case: the context is not tokenized at all
        return []
    tokens = {token for text in texts for token in normalize_tokens(text)}
    return list(dict.fromkeys(_surface(e) for e in unnamed if not _stem_mentioned(e, tokens)))


def _listed(names: Sequence[str]) -> str:
    """``a``, ``a or b``, ``a, b or c``."""
    return ", ".join(names[:-1]) + (f" or {names[-1]}" if len(names) > 1 else names[0])


def abstention_text(missing: Sequence[str], not_found: str) -> str:
    """``Not found in the corpus. The retrieved sources do not mention δ11B.``"""
    return f"{not_found} The retrieved sources do not mention {_listed(missing)}."


def asks_for_value(question: str) -> bool:
    """Whether the question asks for a number in so many words ("What value …", "Which numerical …",
    "What … ratios …")."""
    return _VALUE_QUESTION.search(question) is not None


def _forms(entity: Any) -> set[str]:
    """Its canonical name and surface form, case-folded."""
    return {form for form in (str(entity.name).casefold(), _surface(entity).casefold()) if form}


def _qualified(question: str, quantity: Any, entities: Sequence[Any]) -> tuple[Any | None, str]:
    """The entity written right before the quantity ("147Sm" in "147Sm decay constant"; the value
    asked for is that one's, not any decay constant's), or None; and the phrase as the question
    wrote it ("147Sm decay constant", else the quantity's surface form)."""
    surface = _surface(quantity)
    start = question.find(surface)
    if start <= 0:
        return None, surface
    for other in entities:
        other_surface = _surface(other)
        at = question.find(other_surface)
        if other is quantity or at < 0 or at >= start:
            continue
        if question[at + len(other_surface) : start].strip(" -\u2013") == "":
            return other, question[at : start + len(surface)]
    return None, surface


def _gives_value(forms: set[str], qualifier_forms: set[str], sentences: Sequence[str]) -> bool:
    """Some sentence names the quantity (and its qualifier, if any) and carries a number."""
    for sentence in sentences:
        folded = sentence.casefold()
        if not any(form in folded for form in forms):
            continue
        if qualifier_forms and not any(form in folded for form in qualifier_forms):
            continue
        rest = folded
        for form in forms | qualifier_forms:
            rest = rest.replace(form, " ")
        if _NUMBER.search(_NOT_A_VALUE.sub(" ", rest)):
            return True
    return False


def unvalued_quantities(question: str, entities: Sequence[Any], bundle: ContextBundle) -> list[str]:
    """For a question that asks for a value: the quantities it names (surface forms) when no passage
    sentence and no reported value names any of them together with a number. Empty otherwise.

    Why: the near misses that the entity check cannot catch ask for a number the papers never give
    ("What value of the 147Sm decay constant does IsoplotR use?" over passages that discuss decay
    constants symbolically): every entity is mentioned, yet quoting those sentences would answer
    with something else. A sentence counts only when it names the quantity *and* the entity written
    right before it in the question ("147Sm" for "147Sm decay constant"), plus a number that is not a
    year, a figure, table or equation number. Reported values (measurement rows of the passages'
    papers) count as sentences.
    """
    if not asks_for_value(question):
        return []
    quantities = [e for e in entities if getattr(e, "type", None) in QUANTITY_TYPES]
    if not quantities or not bundle.chunks:
        return []
    sentences = [s for chunk in bundle.chunks for s in sentence_texts(" ".join(chunk.text.split()))]
    sentences += [fact.text for fact in bundle.facts if fact.retriever == "measurements"]
    named: list[str] = []
    for quantity in quantities:
        qualifier, phrase = _qualified(question, quantity, entities)
        if _gives_value(_forms(quantity), _forms(qualifier) if qualifier else set(), sentences):
            return []
        named.append(phrase)
    return list(dict.fromkeys(named))


def no_value_text(quantities: Sequence[str], not_found: str) -> str:
    """``Not found in the corpus. The retrieved sources give no value for δ18O.``"""
    return f"{not_found} The retrieved sources give no value for {_listed(quantities)}."
