"""rules-v1: rule patterns of one sentence, and the deterministic rules extractor of a chunk.

Per sentence the recognized entities (as units, see ``units``), then
  - gap patterns between neighbouring units ("Hf in zircon", "Fe-rich olivine", "87Sr/86Sr of 0.7035",
    "tholeiitic basalts", "dated by U–Pb");
  - ages bound to the nearest dated thing before them ("zircon U–Pb ages of 385 Ma");
  - trigger verbs with the nearest type-compatible unit on each side inside the clause ("... indicates",
    "derived from", "measured by", "affected by", "contains");
  - typed co-occurrence (``cooccurrence``) of adjacent units no gap pattern linked.
The chunk extractor adds the vocabulary-structural facts (``structural``) and keeps, per triple id, the
most confident finding.
"""

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from geo_assets.graph.extraction.common import (
    RULES_EXTRACTOR,
    _quantity_attributes,
    _sentences,
    _skip_chunk,
    _triple,
)
from geo_assets.graph.extraction.cooccurrence import _cooccurrence
from geo_assets.graph.extraction.structural import _structural_triples
from geo_assets.graph.extraction.units import _Found, _modifier, _pairs, _Unit, _units
from geo_rag_runtime.models import Chunk, Entity, Triple
from geo_rag_runtime.vocab import RELATIONS, recognize

_CLAUSE_BREAK = re.compile(
    r";|—|\.\s|:\s|,\s*(?:but|whereas|while|although|however|which|where)\b|\bwhereas\b|\bbut\b"
)
_NEGATION = re.compile(r"\b(?:not|no|neither|nor|cannot|never|without|unlikely)\b(?:\s+\w+){0,2}\s*$")

_CHEM = frozenset({"Element", "Isotope", "IsotopeRatio", "ElementRatio", "Oxide", "ElementGroup", "Species"})
_RATIOS = frozenset({"IsotopeRatio", "ElementRatio"})
_MATERIALS = frozenset({"Mineral", "Rock"})


# --- gap patterns (neighbouring units) ---------------------------------------------------------------

_VALUE_LINK = re.compile(
    r"^\s*(?:\(\w{1,4}\)\s*)?(?:(?:isotopic|isotope|initial|average|mean|whole-rock|bulk|present-day)\s+)*"
    r"(?:(?:ratios?|values?|compositions?|contents?|concentrations?|signatures?|anomal(?:y|ies)|of|=|≈|~|:|"
    r"\(|between|from|ranging|range|ranges|varies|varying|vary|up|to|as|high|low|about|ca\.|around|"
    r"approximately|averaging|average|mean|is|are|was|were|with|in|the|within|reach(?:es|ing)?|"
    r"yield(?:s|ed|ing)?|gives?|gave|show(?:s|ed|ing)?|has|have|had)(?![A-Za-z])\s*)*$"
)
_VALUE_BEFORE_LINK = re.compile(r"^\s*(?:of\s+)?$")
_AGE_LINK = re.compile(
    r"^\s*(?:(?:ages?|dates?|of|at|yield(?:s|ed|ing)?|gave|gives?|dated|crystalli[sz]ation|crystalli[sz]ed|"
    r"eruption|erupted|emplacement|emplaced|weighted|mean|concordia|concordant|isochron|intercept|upper|"
    r"lower|an?|the|with|is|are|was|were|about|ca\.|c\.|around|approximately|~|≈|=|:|\(|formed|deposited|"
    r"model|maximum|minimum|depositional|magmatic|metamorphic|cooling|\d+)(?![A-Za-z])\s*)*$"
)
_CONTAINS_LINK = re.compile(
    r"^\s*(?:that\s+|which\s+)?(?:contains?|containing|contained|hosts?|hosting|incorporates?|"
    r"incorporating|(?:is|are)\s+rich\s+in|rich\s+in|(?:is|are)?\s*enriched\s+in|with\s+(?:high|elevated)|"
    r"(?:has|have)\s+(?:high|elevated))\s+(?:(?:high|elevated|significant|abundant|substantial|some|the|"
    r"trace|minor|major|amounts?|concentrations?|contents?|of)\s+)*$"
)
_IN_MATERIAL = re.compile(
    r"^\s*(?:isotopes?|isotopic\s+compositions?|isotope\s+compositions?|concentrations?|contents?|"
    r"abundances?|partitioning|diffusion|diffusivity|ratios?|values?|signatures?)?\s*(?:in|within|of|from|"
    r"hosted\s+in|hosted\s+by|incorporated\s+in(?:to)?)\s+(?:the\s+|a\s+)?(?:[a-z]+\s+)?$"
)
_RICH = re.compile(r"^-(?:rich|bearing|enriched)?\s*$")
_ADJACENT = re.compile(r"^\s+$")
_DATED_LINK = re.compile(
    r"^\s+(?:(?:was|were|is|are|has\s+been|have\s+been)\s+)?dated\s+(?:by|using|with|via)\s+(?:the\s+)?$"
)
_DATING_OF = re.compile(
    r"^\s+(?:dating|ages?|geochronology|analys[ie]s|data|dates)\s+(?:of|on|for|from)\s+(?:the\s+)?(?:[a-z]+\s+)?$"
)
_PLACE_LINK = re.compile(
    r"^\s+(?:[a-z]+\s+)?(?:from|in|of|at|within|beneath|along)\s+(?:the\s+|an?\s+)?(?:[a-z]+\s+)?$"
)
_SERIES_LINK = re.compile(
    r"^\s+(?:(?:are|is|were|was|have|has|of|show|shows|showing|display|displays|with|belong|belongs|"
    r"belonging|to|a|an|the|clearly|typically|mainly|dominantly|predominantly)\s+)+$"
)
_GROUP_EXAMPLES = re.compile(r"^\s*(?:\(|,)?\s*(?:such\s+as|e\.g\.,?|including|like|i\.e\.,?)\s+$")
_GROUP_OTHER = re.compile(r"^\s*,?\s*(?:and|or)\s+other\s+$")


_PHYSICAL_UNIT = re.compile(r" (?:°C|GPa|MPa|kbar)$")


def _physical(unit: _Unit) -> bool:
    return unit.type == "Measurement" and bool(_PHYSICAL_UNIT.search(unit.members[0].name))


def _gap_rules(sentence: str, a: _Unit, b: _Unit, gap: str) -> list[_Found]:
    """Facts stated by the words between two neighbouring units."""
    out: list[_Found] = []
    respectively = "respectively" in sentence

    def emit(head_unit: _Unit, relation: str, tail_unit: _Unit, conf: float, rule: str) -> None:
        left, right = (head_unit, tail_unit) if head_unit.start <= tail_unit.start else (tail_unit, head_unit)
        for x, y in _pairs(left, right, respectively):
            head, tail = (x, y) if left is head_unit else (y, x)
            if RELATIONS[relation].allows(head.type, tail.type):
                out.append(_Found(head, relation, tail, conf, rule))

    ta, tb = a.type, b.type
    if _physical(a) or _physical(b):
        pass  # a temperature or pressure is no value of an element or ratio ("MgO ... 1499 °C")
    elif tb == "Measurement" and ta in _CHEM and _VALUE_LINK.match(gap):
        emit(a, "HAS_VALUE", b, 0.85, "value-after")
    elif ta == "Measurement" and tb in _CHEM and _VALUE_BEFORE_LINK.match(gap):
        emit(b, "HAS_VALUE", a, 0.8, "value-before")
    elif ta in _MATERIALS | {"Reservoir"} and tb in _CHEM and _CONTAINS_LINK.match(gap):
        emit(a, "CONTAINS", b, 0.8, "contains")
    elif ta in _CHEM and tb in _MATERIALS and _RICH.match(gap):
        # "Nb-enriched basalts and charnockites": the prefix qualifies the first noun only
        emit(b if len(b.members) == 1 else _Unit(b.members[:1]), "CONTAINS", a, 0.85, "x-rich")
    elif ta in _CHEM and tb in _MATERIALS and _IN_MATERIAL.match(gap):
        if ta in _RATIOS or re.search(r"isotop|ratio|value|signature", gap):
            emit(a, "MEASURED_IN", b, 0.75, "x-in-material")
        else:
            emit(b, "CONTAINS", a, 0.75, "x-in-material")
    elif ta in _MATERIALS and tb in _CHEM and _ADJACENT.match(gap):
        if tb in _RATIOS or re.match(r"[\s-]*(?:isotop|ratio|value|signature)", sentence[b.end :], re.I):
            emit(b, "MEASURED_IN", a, 0.7, "material-x")
        else:
            emit(a, "CONTAINS", b, 0.6, "material-x")
    elif (
        ta in _MATERIALS and tb == "GeochronometerSystem" and (_ADJACENT.match(gap) or _DATED_LINK.match(gap))
    ):
        emit(a, "DATED_BY", b, 0.85 if "dated" in gap else 0.7, "material-system")
    elif (
        ta == "GeochronometerSystem" and tb in _MATERIALS and (_DATING_OF.match(gap) or _ADJACENT.match(gap))
    ):
        emit(b, "DATED_BY", a, 0.8 if gap.strip() else 0.65, "system-material")
    elif ta == "AnalyticalMethod" and _ADJACENT.match(gap) and RELATIONS["MEASURED_BY"].heads >= {tb}:
        emit(b, "MEASURED_BY", a, 0.6, "method-x")
    elif ta in {"Location", "TectonicSetting"} and tb in _MATERIALS and _ADJACENT.match(gap):
        emit(b, "OCCURS_IN", a, 0.65, "place-material")
    elif (
        ta in _MATERIALS | {"MagmaSeries", "Process"}
        and tb in {"Location", "TectonicSetting", "Reservoir"}
        and (_PLACE_LINK.match(gap) and not _modifier(sentence, b))
    ):
        emit(a, "OCCURS_IN", b, 0.7, "material-in-place")
    elif ta == "MagmaSeries" and tb == "Rock" and _ADJACENT.match(gap):
        emit(b, "BELONGS_TO", a, 0.75, "series-rock")
    elif ta == "Rock" and tb == "MagmaSeries" and _SERIES_LINK.match(gap):
        emit(a, "BELONGS_TO", b, 0.7, "rock-is-series")
    elif ta == "ElementGroup" and tb == "Element" and _GROUP_EXAMPLES.match(gap):
        emit(b, "MEMBER_OF", a, 0.8, "group-such-as")
    elif ta == "Element" and tb == "ElementGroup" and _GROUP_OTHER.match(gap):
        emit(a, "MEMBER_OF", b, 0.8, "and-other-group")
    return out


def _age_rules(sentence: str, units: list[_Unit]) -> list[_Found]:
    """An age belongs to the nearest dated thing before it ("zircon U–Pb ages of 385 ± 2 Ma")."""
    out: list[_Found] = []
    heads = RELATIONS["HAS_AGE"].heads
    for i, unit in enumerate(units):
        if unit.type != "Age":
            continue
        j, gap_ok = i - 1, True
        while j >= 0 and gap_ok:
            gap = sentence[units[j].end : units[j + 1].start]
            if not _AGE_LINK.match(gap):
                break
            cand = units[j]
            if cand.type in heads - {"GeochronometerSystem"}:
                for head in cand.members:
                    for age in unit.members if len(cand.members) == 1 else unit.members[:1]:
                        out.append(_Found(head, "HAS_AGE", age, 0.8, "age-of"))
                break
            gap_ok = cand.type in {"GeochronometerSystem", "AnalyticalMethod", "Age"}
            j -= 1
    return out


# --- trigger verbs -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Trigger:
    pattern: re.Pattern[str]
    relations: tuple[str, ...]  # the first whose types fit wins


_TRIGGERS: tuple[_Trigger, ...] = (
    _Trigger(re.compile(r"\bdated\s+(?:by|using|with|via)\b"), ("DATED_BY", "MEASURED_BY")),
    _Trigger(
        re.compile(
            r"\b(?:measured|analy[sz]ed|determined|obtained|acquired|quantified|imaged|collected)"
            r"\s+(?:by|using|with|via|on)\b|\busing\b|\bby\s+means\s+of\b"
        ),
        ("MEASURED_BY",),
    ),
    _Trigger(
        re.compile(r"\b(?:derived|originat(?:e|ed|es|ing)|sourced|extracted|inherited)\s+from\b"),
        ("DERIVED_FROM", "FORMED_BY"),
    ),
    _Trigger(
        re.compile(
            r"\b(?:formed|produced|generated|created)\s+(?:by|through|via|during)\b|"
            r"\bresult(?:s|ed|ing)?\s+from\b|\bproducts?\s+of\b"
        ),
        ("FORMED_BY", "AFFECTED_BY"),
    ),
    _Trigger(
        re.compile(
            r"\b(?:affected|modified|reset|disturbed|overprinted|altered|influenced|controlled|perturbed|"
            r"fractionated|lowered|raised)\s+by\b|\bsusceptible\s+to\b|\bsensitive\s+to\b"
        ),
        ("AFFECTED_BY",),
    ),
    _Trigger(
        re.compile(r"\b(?:contain(?:s|ed|ing)?|host(?:s|ed|ing)?|incorporat(?:e|es|ed|ing))\b"), ("CONTAINS",)
    ),
    _Trigger(
        re.compile(
            r"\b(?:indicat(?:e|es|ed|ing)|suggest(?:s|ed|ing)?|impl(?:y|ies|ied|ying)|"
            r"reflect(?:s|ed|ing)?|point(?:s|ed)?\s+to|consistent\s+with|evidence\s+(?:for|of)|"
            r"diagnostic\s+of|signatures?\s+of|attributed\s+to|interpreted\s+as|argue(?:s|d)?\s+for|"
            r"support(?:s|ed)?|record(?:s|ed)?|trac(?:e|es|ed|ing)|require(?:s|d)?|caused\s+by|"
            r"due\s+to|explained\s+by)\b"
        ),
        ("INDICATES",),
    ),
)
_WINDOW = 90


_DOWNPLAYED = re.compile(
    r"\b(?:negligible|no|little|insignificant|limited|not|minor|lack\s+of|absence\s+of)\b"
)


def _trigger_rules(sentence: str, units: list[_Unit]) -> list[_Found]:
    out: list[_Found] = []
    for trigger in _TRIGGERS:
        for m in trigger.pattern.finditer(sentence):
            if _NEGATION.search(sentence[max(0, m.start() - 25) : m.start()]):
                continue
            left = [u for u in units if u.end <= m.start() and m.start() - u.end <= _WINDOW]
            right = [u for u in units if u.start >= m.end() and u.start - m.end() <= _WINDOW]
            left = [u for u in left if not _CLAUSE_BREAK.search(sentence[u.end : m.start()])]
            right = [u for u in right if not _CLAUSE_BREAK.search(sentence[m.end() : u.start])]
            for relation in trigger.relations:
                spec = RELATIONS[relation]
                head = next((u for u in reversed(left) if u.type in spec.heads), None)
                tail = next((u for u in right if u.type in spec.tails and not _modifier(sentence, u)), None)
                if not head or not tail:
                    continue
                if _DOWNPLAYED.search(sentence[m.end() : tail.start]):
                    break  # "indicate negligible crustal contamination" states the opposite
                distance = (m.start() - head.end) + (tail.start - m.end())
                conf = 0.7 if distance <= 60 else 0.6
                for h in head.members:
                    for t in tail.members:
                        if spec.allows(h.type, t.type) and h.name != t.name:
                            out.append(
                                _Found(h, relation, t, conf, f"trigger:{m.group(0).split()[0].lower()}")
                            )
                break
    return out


# --- the rules extractor -----------------------------------------------------------------------------


def sentence_facts(sentence: str, entities: list[Entity] | None = None) -> list[_Found]:
    """Rule-based facts of one sentence (no structural facts): gap patterns, ages, triggers, co-occurrence."""
    entities = recognize(sentence) if entities is None else entities
    units = _units(sentence, entities)
    found: list[_Found] = []
    linked: set[tuple[int, int]] = set()
    for i in range(len(units) - 1):
        a, b = units[i], units[i + 1]
        gap = sentence[a.end : b.start]
        facts = _gap_rules(sentence, a, b, gap)
        if facts:
            linked.add((i, i + 1))
        found += facts
    found += _age_rules(sentence, units)
    found += _trigger_rules(sentence, units)
    for i in range(len(units) - 1):
        if (i, i + 1) not in linked:
            found += _cooccurrence(
                sentence, units[i], units[i + 1], sentence[units[i].end : units[i + 1].start]
            )
    return [f for f in found if f.head.name != f.tail.name]


def extract_chunk_triples(chunk: Chunk) -> list[Triple]:
    """Rule-based triples of one chunk, deterministic, each with its sentence as provenance."""
    if _skip_chunk(chunk):
        return []
    triples: dict[str, Triple] = {}
    structural_seen: set[tuple[str, str, str]] = set()
    for sentence in _sentences(chunk):
        entities = recognize(sentence)
        if not entities:
            continue
        for triple in _structural_triples(chunk, sentence, entities, structural_seen):
            triples.setdefault(triple.triple_id, triple)
        for fact in sentence_facts(sentence, entities):
            attrs: dict[str, Any] = {"rule": fact.rule}
            attrs.update(_quantity_attributes(fact.tail.name, fact.tail.type))
            triple = _triple(
                chunk,
                fact.head.name,
                fact.head.type,
                fact.relation,
                fact.tail.name,
                fact.tail.type,
                sentence,
                RULES_EXTRACTOR,
                fact.confidence,
                attrs,
            )
            old = triples.get(triple.triple_id)
            if old is None or old.confidence < triple.confidence:
                triples[triple.triple_id] = triple
    return list(triples.values())


def extract_triples(chunks: Sequence[Chunk]) -> list[Triple]:
    """Rule-based triples of all chunks (rules-v1), in chunk and sentence order."""
    out: list[Triple] = []
    for chunk in chunks:
        out += extract_chunk_triples(chunk)
    return out
