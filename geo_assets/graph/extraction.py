"""Triple extraction: (head, relation, tail) facts with provenance, from chunks of cleaned paper text.

Two extractors share one relation vocabulary (``geo_rag_runtime.vocab.RELATIONS``, with allowed head and
tail types per relation) and one entity recognizer, so every triple names vocabulary entities:

* ``extract_triples`` (rules-v1, deterministic, no model): per sentence the recognized entities, then
  - vocabulary-structural facts (87Sr ISOTOPE_OF Sr, 87Sr/86Sr RATIO_OF Sr, SiO2 OXIDE_OF Si), once per chunk;
  - gap patterns between neighbouring entities ("Hf in zircon", "Fe-rich olivine", "87Sr/86Sr of 0.7035",
    "tholeiitic basalts", "zircon U–Pb ages of 385 Ma", "dated by U–Pb");
  - trigger verbs with the nearest type-compatible entity on each side inside the clause ("... indicates",
    "derived from", "measured by", "affected by", "contains");
  - typed co-occurrence of adjacent entities with a lower confidence (zircon U–Pb → DATED_BY).
* ``LLMTripleExtractor`` (when an LLM is configured): a JSON-schema prompt per chunk; output is validated
  against the vocabulary (unknown relations dropped, names canonicalized through the recognizer, type
  constraints enforced) and the evidence sentence is checked against the chunk.
"""

import logging
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from geo_rag_runtime import contract
from geo_rag_runtime.errors import ServiceError
from geo_rag_runtime.models import Chunk, Entity, Triple
from geo_rag_runtime.vocab import RELATIONS, load_vocabulary, recognize, recognize_whole

try:
    from geo_rag_runtime.text.sentences import split_sentences
except ImportError:  # pragma: no cover - the splitter ships with the runtime; kept for partial checkouts
    _SIMPLE = re.compile(r"(?<!\bal)(?<!\bFig)(?<!\be\.g)(?<!\bi\.e)(?<!\bca)[.!?](?=\s+[A-Z0-9(δε])")

    def split_sentences(text: str) -> list[tuple[int, int]]:
        spans, start = [], 0
        for m in _SIMPLE.finditer(text):
            spans.append((start, m.end()))
            start = m.end() + 1
        if text[start:].strip():
            spans.append((start, len(text)))
        return [(s + len(text[s:e]) - len(text[s:e].lstrip()), e) for s, e in spans if text[s:e].strip()]


log = logging.getLogger(__name__)

RULES_EXTRACTOR = "rules-v1"
LLM_EXTRACTOR_PREFIX = "llm:"

_SKIP_SECTIONS = re.compile(
    r"reference|bibliograph|acknowledg|author contribution|data availability|funding|competing interest|"
    r"conflict of interest|open research|supporting information",
    re.IGNORECASE,
)
_CITATION_NOISE = re.compile(r"\b[A-Z]\.\s?(?:,|&|and\b)|\(\d{4}[a-z]?\)\.|doi[:.]|https?://")
_MAX_SENTENCE = 800
_CLAUSE_BREAK = re.compile(
    r";|—|\.\s|:\s|,\s*(?:but|whereas|while|although|however|which|where)\b|\bwhereas\b|\bbut\b"
)
_NEGATION = re.compile(r"\b(?:not|no|neither|nor|cannot|never|without|unlikely)\b(?:\s+\w+){0,2}\s*$")
_COORD = re.compile(r"^\s*(?:,\s*(?:and\s+|or\s+)?|\s+(?:and|or|&|as well as)\s+|-|/)\s*$")

_CHEM = frozenset({"Element", "Isotope", "IsotopeRatio", "ElementRatio", "Oxide", "ElementGroup", "Species"})
_RATIOS = frozenset({"IsotopeRatio", "ElementRatio"})
_MATERIALS = frozenset({"Mineral", "Rock"})


# --- sentence model ----------------------------------------------------------------------------------


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


# --- structural facts --------------------------------------------------------------------------------

_SYMBOLS_IN = re.compile(r"(?<![a-z])([A-Z][a-z]?)")


def _structural(entity: Entity) -> list[tuple[str, str, str]]:
    """(relation, tail, tail_type) facts the vocabulary itself implies for one entity."""
    elements = load_vocabulary().elements
    name, type_ = entity.name, entity.type
    symbols: list[str] = []
    relation = ""
    if type_ == "Isotope":
        relation, symbols = "ISOTOPE_OF", [name.lstrip("0123456789")]
    elif type_ == "IsotopeRatio":
        relation = "RATIO_OF"
        if name == "δD":
            symbols = ["H"]
        elif name[0] in "δεΔ":
            symbols = [name[1:].lstrip("0123456789")]
        else:
            symbols = [part.lstrip("0123456789") for part in name.split("/")]
    elif type_ == "ElementRatio":
        relation, symbols = "RATIO_OF", _SYMBOLS_IN.findall(name.replace("*", ""))
    elif type_ == "Species":
        relation, symbols = "SPECIES_OF", [name.split("(")[0]]
    elif type_ == "Oxide":
        relation, symbols = "OXIDE_OF", [s for s in _SYMBOLS_IN.findall(name) if s != "O"] or ["O"]
    seen: dict[str, None] = {}
    for symbol in symbols:
        if symbol in elements:
            seen.setdefault(symbol, None)
    return [(relation, symbol, "Element") for symbol in seen]


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


def _pairs(a: _Unit, b: _Unit, respectively: bool) -> list[tuple[Entity, Entity]]:
    if respectively and len(a.members) == len(b.members) > 1:
        return list(zip(a.members, b.members, strict=True))
    if len(a.members) > 1 and len(b.members) > 1:
        return []  # "SiO2 and MgO ... 52 and 8 wt.%" without "respectively": unclear pairing
    return [(x, y) for x in a.members for y in b.members]


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
_MODIFIER = re.compile(r"[-‐]?(?:induced|related|derived|driven|generated|type|like|bearing|hosted)\b")


def _modifier(sentence: str, unit: _Unit) -> bool:
    """'plume-induced melting': the unit only modifies the next noun, so it is not the object."""
    return bool(_MODIFIER.match(sentence, unit.end))


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


# --- typed co-occurrence -----------------------------------------------------------------------------

_COOCCURRENCE: dict[tuple[str, str], tuple[str, bool]] = {
    # (left type, right type): (relation, head is left)
    ("Mineral", "GeochronometerSystem"): ("DATED_BY", True),
    ("Rock", "GeochronometerSystem"): ("DATED_BY", True),
    ("GeochronometerSystem", "Mineral"): ("DATED_BY", False),
    ("GeochronometerSystem", "Rock"): ("DATED_BY", False),
    ("Mineral", "AnalyticalMethod"): ("MEASURED_BY", True),
    ("GeochronometerSystem", "AnalyticalMethod"): ("MEASURED_BY", True),
    ("Rock", "Location"): ("OCCURS_IN", True),
    ("Mineral", "Location"): ("OCCURS_IN", True),
    ("Rock", "TectonicSetting"): ("OCCURS_IN", True),
    ("Location", "Rock"): ("OCCURS_IN", False),
    ("TectonicSetting", "Rock"): ("OCCURS_IN", False),
    ("IsotopeRatio", "Mineral"): ("MEASURED_IN", True),
    ("IsotopeRatio", "Rock"): ("MEASURED_IN", True),
    ("ElementRatio", "Rock"): ("MEASURED_IN", True),
    ("Rock", "MagmaSeries"): ("BELONGS_TO", True),
}
_COOC_GAP = re.compile(r"^[\sA-Za-z'-]{0,40}$")
_COOC_STOP = re.compile(
    r"\b(?:and|or|but|than|versus|vs|whereas|while|not|nor|both|either|neither|to|poor|free|absent|lacking|"
    r"without|non)\b"
)


def _cooccurrence(sentence: str, a: _Unit, b: _Unit, gap: str) -> list[_Found]:
    key = _COOCCURRENCE.get((a.type, b.type))
    if _modifier(sentence, b) and b.type in {"Location", "TectonicSetting", "Reservoir"}:
        return []
    if not key or not _COOC_GAP.match(gap) or _COOC_STOP.search(gap) or len(gap.split()) > 4:
        return []
    relation, head_left = key
    out = []
    for x, y in _pairs(a, b, False):
        head, tail = (x, y) if head_left else (y, x)
        if RELATIONS[relation].allows(head.type, tail.type):
            out.append(_Found(head, relation, tail, 0.5, "cooccurrence"))
    return out


# --- the rules extractor -----------------------------------------------------------------------------


def _skip_chunk(chunk: Chunk) -> bool:
    return bool(chunk.section and _SKIP_SECTIONS.search(chunk.section))


def _looks_like_reference(sentence: str) -> bool:
    return len(_CITATION_NOISE.findall(sentence)) >= 3


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


def _triple(
    chunk: Chunk,
    head: str,
    head_type: str,
    relation: str,
    tail: str,
    tail_type: str,
    sentence: str,
    extractor: str,
    confidence: float,
    attributes: dict[str, Any],
) -> Triple:
    return Triple(
        triple_id=contract.triple_id(chunk.chunk_id, head, relation, tail, sentence),
        head=head,
        head_type=head_type,
        relation=relation,
        tail=tail,
        tail_type=tail_type,
        paper_id=chunk.paper_id,
        chunk_id=chunk.chunk_id,
        sentence=sentence,
        extractor=extractor,
        confidence=round(confidence, 3),
        attributes=attributes,
    )


def _quantity_attributes(name: str, type_: str) -> dict[str, Any]:
    from geo_rag_runtime.vocab import parse_quantity

    if type_ not in ("Measurement", "Age"):
        return {}
    q = parse_quantity(name)
    if q is None:
        return {}
    attrs: dict[str, Any] = {"value": q.value, "unit": q.unit}
    if q.low is not None:
        attrs.update(low=q.low, high=q.high)
    if q.error is not None:
        attrs["error"] = q.error
    return attrs


def _sentences(chunk: Chunk) -> list[str]:
    out = []
    for s, e in split_sentences(chunk.text):
        sentence = " ".join(chunk.text[s:e].split())
        if (
            sentence
            and len(sentence) <= _MAX_SENTENCE
            and not sentence.rstrip("”\"'").endswith("?")  # questions assert nothing
            and not _looks_like_reference(sentence)
        ):
            out.append(sentence)
    return out


def _structural_triples(
    chunk: Chunk, sentence: str, entities: list[Entity], seen: set[tuple[str, str, str]]
) -> list[Triple]:
    out = []
    for entity in entities:
        for relation, tail, tail_type in _structural(entity):
            key = (entity.name, relation, tail)
            if key in seen or tail == entity.name:
                continue
            seen.add(key)
            out.append(
                _triple(
                    chunk,
                    entity.name,
                    entity.type,
                    relation,
                    tail,
                    tail_type,
                    sentence,
                    RULES_EXTRACTOR,
                    1.0,
                    {"rule": "vocabulary"},
                )
            )
    return out


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


# --- LLM extraction ----------------------------------------------------------------------------------

TRIPLE_JSON_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "triples": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "head": {"type": "string"},
                    "head_type": {"type": "string"},
                    "relation": {"type": "string", "enum": sorted(RELATIONS)},
                    "tail": {"type": "string"},
                    "tail_type": {"type": "string"},
                    "evidence": {"type": "string"},
                },
                "required": ["head", "head_type", "relation", "tail", "tail_type", "evidence"],
                "additionalProperties": False,
            },
        }
    },
    "required": ["triples"],
    "additionalProperties": False,
}


def _system_prompt() -> str:
    lines = [
        "You extract geochemical facts from research paper text as (head, relation, tail) triples.",
        "Use only these relations, each with its allowed head and tail entity types:",
    ]
    for spec in RELATIONS.values():
        if not spec.structural:
            lines.append(
                f"- {spec.name}: {', '.join(sorted(spec.heads))} -> {', '.join(sorted(spec.tails))}"
                f" ({spec.description})"
            )
    lines += [
        "Entity types: " + ", ".join(load_vocabulary().types) + ".",
        "Write entities as they are named in geochemistry (87Sr/86Sr, εNd, δ18O, U–Pb, zircon, SiO2); "
        'a Measurement or Age is a value with its unit ("52.3 wt.%", "251.9 ± 0.1 Ma").',
        "State only facts the text states; evidence is the sentence that states it, copied exactly.",
        'Answer with JSON: {"triples": [{"head", "head_type", "relation", "tail", "tail_type", "evidence"}]}.',
    ]
    return "\n".join(lines)


class LLMTripleExtractor:
    """Triples from an LLM, kept only where they fit the vocabulary (names, types, relation constraints)."""

    def __init__(self, llm: Any, *, max_chunk_chars: int = 6000, max_tokens: int = 1500) -> None:
        self.llm = llm
        self.max_chunk_chars = max_chunk_chars
        self.max_tokens = max_tokens
        self.system = _system_prompt()
        self.dropped = 0  # triples the validation refused (for asset metadata)

    @property
    def extractor(self) -> str:
        return f"{LLM_EXTRACTOR_PREFIX}{self.llm.name}"

    def extract_chunk(self, chunk: Chunk) -> list[Triple]:
        """Raises ServiceError when the LLM fails; callers decide whether to fall back."""
        if _skip_chunk(chunk):
            return []
        payload = self.llm.complete_json(
            self.system,
            chunk.text[: self.max_chunk_chars],
            json_schema=TRIPLE_JSON_SCHEMA,
            max_tokens=self.max_tokens,
        )
        rows = payload.get("triples")
        if not isinstance(rows, list):
            raise ServiceError("LLM triple output has no 'triples' list")
        out: dict[str, Triple] = {}
        for row in rows:
            triple = self._validate(chunk, row)
            if triple is None:
                self.dropped += 1
            else:
                out.setdefault(triple.triple_id, triple)
        return list(out.values())

    def _validate(self, chunk: Chunk, row: Any) -> Triple | None:
        if not isinstance(row, dict):
            return None
        relation = str(row.get("relation", "")).strip().upper().replace(" ", "_")
        spec = RELATIONS.get(relation)
        types = load_vocabulary().types
        if spec is None or row.get("head_type") not in types or row.get("tail_type") not in types:
            return None
        head = recognize_whole(str(row.get("head", "")))
        tail = recognize_whole(str(row.get("tail", "")))
        if head is None or tail is None or head.name == tail.name or not spec.allows(head.type, tail.type):
            return None
        evidence = " ".join(str(row.get("evidence", "")).split())
        sentence, verified = self._evidence_sentence(chunk, evidence, head.name, tail.name)
        if not sentence:
            return None
        attrs: dict[str, Any] = {"evidence_verified": verified}
        attrs.update(_quantity_attributes(tail.name, tail.type))
        return _triple(
            chunk,
            head.name,
            head.type,
            relation,
            tail.name,
            tail.type,
            sentence,
            self.extractor,
            0.8 if verified else 0.6,
            attrs,
        )

    @staticmethod
    def _evidence_sentence(chunk: Chunk, evidence: str, head: str, tail: str) -> tuple[str, bool]:
        """The chunk sentence that holds the evidence (verified), else one naming both entities."""
        sentences = _sentences(chunk)
        if evidence:
            for sentence in sentences:
                if evidence in sentence or sentence in evidence:
                    return sentence, True
        for sentence in sentences:
            names = {e.name for e in recognize(sentence)}
            if head in names and tail in names:
                return sentence, False
        return "", False

    def extract(self, chunks: Sequence[Chunk]) -> list[Triple]:
        out: list[Triple] = []
        for chunk in chunks:
            out += self.extract_chunk(chunk)
        return out


def extract_triples_with(chunks: Sequence[Chunk], llm: Any = None) -> list[Triple]:
    """LLM triples plus the vocabulary-structural ones when an LLM is given, else the rules (rules-v1).

    A chunk whose LLM call fails falls back to the rules, so one bad response never loses a paper.
    """
    if llm is None:
        return extract_triples(chunks)
    extractor = LLMTripleExtractor(llm)
    out: list[Triple] = []
    for chunk in chunks:
        try:
            triples = extractor.extract_chunk(chunk)
        except ServiceError as exc:
            log.warning("LLM extraction failed for %s (%s); using rules-v1", chunk.chunk_id, exc)
            out += extract_chunk_triples(chunk)
            continue
        structural = [t for t in extract_chunk_triples(chunk) if t.attributes.get("rule") == "vocabulary"]
        seen = {t.triple_id for t in triples}
        out += triples + [t for t in structural if t.triple_id not in seen]
    return out
