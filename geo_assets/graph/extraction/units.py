"""The sentence model of the rules: recognized entities grouped into units, and the facts found between them.

A unit is a run of coordinated entities of one type ("Sr, Nd and Pb"), so one rule links every member;
``_pairs`` says which members pair up when both sides are runs, ``_modifier`` when a unit only qualifies
the next noun. The gap patterns, trigger verbs and co-occurrence all work on these.
"""

import re
from dataclasses import dataclass

from geo_rag_runtime.models import Entity

_COORD = re.compile(r"^\s*(?:,\s*(?:and\s+|or\s+)?|\s+(?:and|or|&|as well as)\s+|-|/)\s*$")


@dataclass
class _Unit:
    """A run of coordinated entities of one type ("Sr, Nd and Pb"): rules link every member."""

    members: list[Entity]

    @property
    def type(self) -> str:
        return self.members[0].type

    @property
    def start(self) -> int:
        return self.members[0].start

    @property
    def end(self) -> int:
        return self.members[-1].end


@dataclass(frozen=True)
class _Found:
    head: Entity
    relation: str
    tail: Entity
    confidence: float
    rule: str


def _units(sentence: str, entities: list[Entity]) -> list[_Unit]:
    units: list[_Unit] = []
    for entity in entities:
        if units and units[-1].type == entity.type and _COORD.match(sentence[units[-1].end : entity.start]):
            units[-1].members.append(entity)
        else:
            units.append(_Unit([entity]))
    return units


def _pairs(a: _Unit, b: _Unit, respectively: bool) -> list[tuple[Entity, Entity]]:
    if respectively and len(a.members) == len(b.members) > 1:
        return list(zip(a.members, b.members, strict=True))
    if len(a.members) > 1 and len(b.members) > 1:
        return []  # "SiO2 and MgO ... 52 and 8 wt.%" without "respectively": unclear pairing
    return [(x, y) for x in a.members for y in b.members]


_MODIFIER = re.compile(r"[-‐]?(?:induced|related|derived|driven|generated|type|like|bearing|hosted)\b")


def _modifier(sentence: str, unit: _Unit) -> bool:
    """'plume-induced melting': the unit only modifies the next noun, so it is not the object."""
    return bool(_MODIFIER.match(sentence, unit.end))
