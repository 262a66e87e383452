"""Graph retrieval (GraphRAG): question entities → subgraph around them → ranked, de-duplicated facts.

The question's entities come from the same recognizer that built the graph, so "Zircons", "87 Sr/86 Sr"
and "strontium" find the nodes ingest wrote. Depth follows the question: 1 hop for explicit facts, 2 for
reasoning/why/how questions; the scope widens by one hop when too little is found
(docs/method.md#graph-retrieval).
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from typing import Any

from geo_rag_runtime.models import Entity, RetrievedItem, Statement
from geo_rag_runtime.stores.graph.base import MAX_DEPTH, Fact
from geo_rag_runtime.stores.protocols import GraphReader
from geo_rag_runtime.vocab import (
    GENERIC_INFORMATIVE_TYPES,
    INVERSE_RELATIONS,
    RELATIONS,
    entity_names,
    is_class_name,
    names_of,
)

_REASONING = re.compile(
    r"\b(?:why|how|explain|explains|cause[sd]?|mechanisms?|affects?|affected|influences?|influenced|"
    r"controls?|controlled|factors?|relationships?|relate[sd]?|lead to|leads to|result in|implications?|"
    r"role|compare|differ|difference|depend|depends|effect|effects|impact)\b",
    re.IGNORECASE,
)
_DEEP_CATEGORIES = frozenset({"implicit_reasoning", "hidden_rationale"})


def choose_depth(question: str, category: str | None = None) -> int:
    """1 for explicit fact questions, 2 for multi-hop ones (by category, else by the question's wording)."""
    if category in _DEEP_CATEGORIES:
        return 2
    if category == "explicit_fact":
        return 1
    return 2 if _REASONING.search(question) else 1


def display_name(name: str) -> str:
    """Readable casing for fact sentences: 'zircon' → 'Zircon'; '87Sr/86Sr', 'εNd', 'MORB' stay."""
    return name[:1].upper() + name[1:] if name[:1].islower() and name[:1].isascii() else name


def fact_text(fact: Fact) -> str:
    return f"{display_name(fact.head)} {fact.relation} {display_name(fact.tail)}"


def merge_facts(facts: Sequence[Fact]) -> list[Fact]:
    """Fold duplicates: the same (head, relation, tail), and inverse statements (Sr HAS_ISOTOPE 87Sr ≡
    87Sr ISOTOPE_OF Sr), into one fact with the union of their provenance."""
    merged: dict[tuple[str, str, str], Fact] = {}
    for fact in facts:
        head, relation, tail = fact.head, fact.relation, fact.tail
        head_type, tail_type = fact.head_type, fact.tail_type
        if relation in INVERSE_RELATIONS:
            relation = INVERSE_RELATIONS[relation]
            head, tail, head_type, tail_type = tail, head, tail_type, head_type
        key = (head, relation, tail)
        target = merged.get(key)
        if target is None:
            merged[key] = Fact(head, head_type, relation, tail, tail_type, list(fact.provenance))
            continue
        seen = {p.get("triple_id") for p in target.provenance}
        target.provenance += [p for p in fact.provenance if p.get("triple_id") not in seen]
    return list(merged.values())


def informative(facts: Sequence[Fact]) -> list[Fact]:
    """The facts a reader learns something from. Two kinds go:

    * vocabulary truisms (87Sr/86Sr RATIO_OF Sr, SiO2 OXIDE_OF Si, U(IV) SPECIES_OF U — relations
      the vocabulary itself implies, whatever the paper says); on the 78 dev questions they were 122
      of the 780 facts HybridRAG put in its contexts;
    * facts about a class name (``GENERIC_NAMES``: magma, igneous rock ...) unless they tie it to a
      place, an age or a value: "Magma BELONGS_TO Tholeiitic" or "Magma FORMED_BY Partial melting"
      restate definitions, though a sentence of the paper produced them.

    They stay in the graph, where the walk passes through them; they only leave the context."""
    out = []
    for fact in facts:
        spec = RELATIONS.get(fact.relation)
        if spec is not None and spec.structural:
            continue
        if _about_a_class(fact):
            continue
        out.append(fact)
    return out


def _about_a_class(fact: Fact) -> bool:
    ends = ((fact.head, fact.tail_type), (fact.tail, fact.head_type))
    generic = [other for name, other in ends if is_class_name(name)]
    return bool(generic) and not any(other in GENERIC_INFORMATIVE_TYPES for other in generic)


class GraphRetriever:
    """Facts from the knowledge graph around the entities a question names."""

    name = "graph"

    def __init__(
        self, store: GraphReader, max_facts: int = 30, min_facts: int = 5, read_factor: int = 8
    ) -> None:
        self.store = store
        self.max_facts = max_facts
        self.min_facts = min_facts
        self.read_factor = read_factor  # triples read per fact returned (many triples state one fact)

    def question_entities(self, question: str) -> list[str]:
        """Canonical names of the question's entities (values such as "2 GPa" are no start nodes)."""
        return entity_names(question)

    def retrieve(
        self,
        question: str,
        depth: int | None = None,
        category: str | None = None,
        *,
        entities: Sequence[Entity] | None = None,
    ) -> list[RetrievedItem]:
        """Facts around the question's entities; ``entities``: already recognized (the pipeline's)."""
        names = names_of(entities) if entities is not None else self.question_entities(question)
        if not names:
            return []
        depth = depth if depth is not None else choose_depth(question, category)
        limit = self.max_facts * self.read_factor
        facts = informative(merge_facts(self.store.subgraph(names, depth, limit)))
        widened = depth
        while len(facts) < self.min_facts and widened < min(depth + 1, MAX_DEPTH):
            widened += 1
            facts = informative(merge_facts(self.store.subgraph(names, widened, limit)))
        ranked = sorted(facts, key=lambda f: (-self._score(f, names), f.key))[: self.max_facts]
        return [self._item(f, names) for f in ranked]

    @staticmethod
    def _score(fact: Fact, names: Sequence[str]) -> float:
        touched = (fact.head in names) + (fact.tail in names)
        return touched + fact.confidence + 0.05 * math.log1p(len(fact.provenance))

    def _item(self, fact: Fact, names: Sequence[str]) -> RetrievedItem:
        provenance: list[dict[str, Any]] = sorted(
            fact.provenance, key=lambda p: (-(p.get("confidence") or 0.0), str(p.get("triple_id")))
        )
        first = provenance[0] if provenance else {}
        return RetrievedItem(
            kind="fact",
            text=fact_text(fact),
            score=round(self._score(fact, names), 4),
            retriever=self.name,
            chunk_id=first.get("chunk_id"),
            paper_id=first.get("paper_id"),
            statement=Statement(
                head=fact.head,
                head_type=fact.head_type,
                relation=fact.relation,
                tail=fact.tail,
                tail_type=fact.tail_type,
            ),
            provenance=[
                {
                    k: p.get(k)
                    for k in ("paper_id", "chunk_id", "sentence", "extractor", "confidence", "triple_id")
                }
                for p in provenance
            ],
        )
