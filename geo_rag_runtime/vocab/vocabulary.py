"""The geochemical vocabulary: entity types, canonical names and their surface forms, relation types.

One fixed vocabulary serves ingest (entity recognition, triple extraction, graph labels) and query time
(question entities, graph start nodes), so a name written at ingest is the name looked up at query time.
Elements and isotopes come from ``periodictable`` (names, symbols, mass numbers, natural abundances);
minerals, rocks, oxides, processes, settings, reservoirs, methods, dating systems, magma series and a
small gazetteer are curated in ``data/vocabulary.json`` (sources named there).
"""

from __future__ import annotations

import hashlib
import json
import re
import unicodedata
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources
from importlib.resources.abc import Traversable

import periodictable

# --- entity types -----------------------------------------------------------------------------------

ENTITY_TYPES: tuple[str, ...] = (
    "Element",
    "Isotope",
    "IsotopeRatio",
    "ElementRatio",
    "Species",
    "Oxide",
    "ElementGroup",
    "Mineral",
    "Rock",
    "Process",
    "TectonicSetting",
    "Reservoir",
    "Location",
    "AnalyticalMethod",
    "GeochronometerSystem",
    "MagmaSeries",
    "Parameter",
    "ReferenceMaterial",
    "OreDeposit",
    "Measurement",
    "Age",
)
QUANTITY_TYPES: tuple[str, ...] = ("Measurement", "Age")
"""Types whose names are values with units (``"52.3 wt.%"``, ``"251.9 ± 0.1 Ma"``), not vocabulary terms."""

# --- relation types ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class RelationSpec:
    """Allowed head and tail types of one relation: the extractor and the LLM output are checked against it."""

    name: str
    heads: frozenset[str]
    tails: frozenset[str]
    description: str
    structural: bool = False  # implied by the vocabulary itself (87Sr ISOTOPE_OF Sr)

    def allows(self, head_type: str, tail_type: str) -> bool:
        return head_type in self.heads and tail_type in self.tails


def _spec(name: str, heads: str, tails: str, description: str, structural: bool = False) -> RelationSpec:
    return RelationSpec(name, frozenset(heads.split()), frozenset(tails.split()), description, structural)


_CHEM = "Element Isotope IsotopeRatio ElementRatio Oxide ElementGroup Species"
RELATIONS: dict[str, RelationSpec] = {
    spec.name: spec
    for spec in (
        _spec("ISOTOPE_OF", "Isotope", "Element", "an isotope of an element", structural=True),
        _spec("HAS_ISOTOPE", "Element", "Isotope IsotopeRatio", "an element and its isotope (system)"),
        _spec(
            "RATIO_OF",
            "IsotopeRatio ElementRatio",
            "Element",
            "a ratio built from an element",
            structural=True,
        ),
        _spec("SPECIES_OF", "Species", "Element", "an oxidation state of an element", structural=True),
        _spec("OXIDE_OF", "Oxide", "Element", "an oxide component of an element", structural=True),
        _spec(
            "CONTAINS",
            "Mineral Rock Reservoir",
            "Element Isotope Oxide Mineral ElementGroup Species",
            "a mineral or rock contains a component",
        ),
        _spec(
            "MEASURED_IN",
            "Element Isotope IsotopeRatio ElementRatio Oxide ElementGroup Species",
            "Mineral Rock",
            "a quantity measured in a mineral or rock",
        ),
        _spec(
            "MEASURED_BY",
            _CHEM + " Mineral Rock GeochronometerSystem Age Measurement",
            "AnalyticalMethod",
            "a quantity or material analysed with a method",
        ),
        _spec("HAS_VALUE", _CHEM, "Measurement", "a quantity has a measured value"),
        _spec(
            "HAS_AGE",
            "Rock Mineral Location GeochronometerSystem Process TectonicSetting",
            "Age",
            "something dated to an age",
        ),
        _spec(
            "OCCURS_IN",
            "Mineral Rock MagmaSeries Process",
            "Location TectonicSetting Reservoir",
            "found in a place or setting",
        ),
        _spec(
            "INDICATES",
            _CHEM + " Mineral Process",
            "Process TectonicSetting MagmaSeries Reservoir",
            "evidence for a process or setting",
        ),
        _spec("DATED_BY", "Rock Mineral", "GeochronometerSystem AnalyticalMethod", "dated with a system"),
        _spec("FORMED_BY", "Rock Mineral MagmaSeries Reservoir", "Process", "formed by a process"),
        _spec(
            "AFFECTED_BY",
            "Rock Mineral Reservoir Element Isotope IsotopeRatio ElementRatio GeochronometerSystem",
            "Process",
            "modified by a process",
        ),
        _spec("BELONGS_TO", "Rock", "MagmaSeries", "a rock of a magma series"),
        _spec("MEMBER_OF", "Element", "ElementGroup", "an element of a group (REE, HFSE ...)"),
        _spec(
            "DERIVED_FROM",
            "Rock Mineral MagmaSeries Reservoir",
            "Reservoir Rock TectonicSetting Location",
            "derived from a source",
        ),
    )
}
INVERSE_RELATIONS: dict[str, str] = {"HAS_ISOTOPE": "ISOTOPE_OF"}
"""Relations that state the same fact as another read backwards; retrieval folds them together."""

# Class names: rock or melt in general, not a particular one. A fact that joins one to a magma
# series, a process or a constituent ("Magma BELONGS_TO Calc-alkaline", "Magma FORMED_BY Partial
# melting", "Magnetite DERIVED_FROM Magma", "Hf MEASURED_IN Magma") restates what the words mean;
# only a place, an age or a value says something about the rocks a paper studied.
GENERIC_NAMES = frozenset(
    {
        "magma",
        "lava",
        "igneous rock",
        "volcanic rock",
        "plutonic rock",
        "metamorphic rock",
        "sedimentary rock",
        "felsic rock",
        "mafic rock",
        "ultramafic rock",
    }
)
# what a fact about a class name must join it to, to tell the reader something
GENERIC_INFORMATIVE_TYPES = frozenset({"Location", "Age", "Measurement"})


def is_class_name(name: str) -> bool:
    """True for a canonical name in ``GENERIC_NAMES`` (any casing): a rock or melt in general."""
    return name.casefold() in GENERIC_NAMES


# --- text normalization (length-preserving, so entity offsets stay valid) ---------------------------

_DASHES = "\u2010\u2011\u2012\u2013\u2014\u2015\u2212\ufe58\ufe63\uff0d"
_SUP = "⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻"
_SUB = "₀₁₂₃₄₅₆₇₈₉₊₋"
_SPACES = (
    "\u00a0\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u202f\u205f\u3000\t\n\r\f\v"
)
_TRANS = str.maketrans(
    _DASHES + _SUP + _SUB + _SPACES + "\u2019\u2018\u02bb\u02bc`\u03bc\u2217\u00ba\u02da",
    "-" * len(_DASHES) + "0123456789+-" + "0123456789+-" + " " * len(_SPACES) + "'''''\u00b5*°°",
)


def normalize_text(text: str) -> str:
    """Map dash, superscript/subscript digit, quote and space variants to ASCII one char for one char.

    PDFs write 87Sr/86Sr as ``⁸⁷Sr/⁸⁶Sr``, SiO2 as ``SiO₂`` and U–Pb with any of ten dashes; recognition
    runs on this form while offsets still point into the original text.
    """
    return text.translate(_TRANS)


_WS = re.compile(r"\s+")
_AROUND = re.compile(r"\s*([-/])\s*")


def surface_key(surface: str, case_sensitive: bool = False) -> str:
    """The dictionary key of a surface form: normalized, whitespace collapsed, lowercased unless exact."""
    key = _AROUND.sub(r"\1", _WS.sub(" ", normalize_text(unicodedata.normalize("NFC", surface))).strip())
    return key if case_sensitive else key.lower()


def is_case_sensitive(form: str) -> bool:
    """Acronyms (two or more capitals: MORB, LA-ICP-MS, REE) must match case-exactly."""
    return sum(ch.isupper() for ch in form) >= 2


# --- elements and isotopes from periodictable -------------------------------------------------------

# Radioactive nuclides that matter in geochemistry / geochronology (natural abundance 0 in periodictable).
RADIOGENIC_NUCLIDES: tuple[str, ...] = (
    "3H",
    "10Be",
    "14C",
    "26Al",
    "36Cl",
    "39Ar",
    "37Ar",
    "41Ca",
    "53Mn",
    "60Fe",
    "81Kr",
    "90Sr",
    "129I",
    "137Cs",
    "146Sm",
    "182Hf",
    "210Pb",
    "210Po",
    "222Rn",
    "226Ra",
    "228Ra",
    "230Th",
    "231Pa",
    "234U",
    "234Th",
    "236U",
    "237Np",
    "239Pu",
    "240Pu",
    "241Am",
    "244Pu",
    "247Cm",
    "232Th",
    "235U",
    "238U",
)
ALTERNATE_ELEMENT_NAMES: dict[str, tuple[str, ...]] = {
    "Al": ("aluminium",),
    "Cs": ("caesium",),
    "S": ("sulphur",),
}


@dataclass(frozen=True)
class ElementInfo:
    symbol: str
    name: str
    number: int
    isotopes: tuple[int, ...]  # geochemically relevant mass numbers (stable or listed radiogenic)


def _elements() -> dict[str, ElementInfo]:
    radio: dict[str, set[int]] = {}
    for nuclide in RADIOGENIC_NUCLIDES:
        match = re.fullmatch(r"(\d+)([A-Z][a-z]?)", nuclide)
        assert match, nuclide
        radio.setdefault(match.group(2), set()).add(int(match.group(1)))
    out: dict[str, ElementInfo] = {}
    for el in periodictable.elements:
        if el.number == 0:  # the neutron
            continue
        masses = []
        for mass in el.isotopes:
            iso = el[mass]
            if (getattr(iso, "abundance", 0) or 0) > 0 or mass in radio.get(el.symbol, ()):
                masses.append(mass)
        if el.symbol == "H":  # deuterium is written D as well as 2H
            masses = sorted(set(masses) | {2})
        out[el.symbol] = ElementInfo(el.symbol, el.name, el.number, tuple(sorted(masses)))
    return out


# --- the vocabulary ---------------------------------------------------------------------------------

_DELTA_ELEMENTS = (
    "H",
    "Li",
    "B",
    "C",
    "N",
    "O",
    "Mg",
    "Si",
    "S",
    "Ca",
    "Cr",
    "Fe",
    "Cu",
    "Zn",
    "Mo",
    "Cl",
    "Sr",
    "Ba",
    "Nd",
    "Tl",
    "U",
    "Ti",
    "V",
    "Ni",
    "Se",
    "Cd",
    "Sn",
    "Hg",
    "K",
    "Ge",
    "Ga",
)
EPSILON_ELEMENTS: tuple[str, ...] = ("Nd", "Hf", "Sr", "W", "Cr", "Ti", "Ca", "Mo", "Ni", "Zr", "Ce", "Os")
_PLURAL_TYPES = ("Mineral", "Rock", "TectonicSetting", "Reservoir", "ElementGroup")


def plural_forms(form: str) -> list[str]:
    """English plural(s) of the last word (zircon→zircons, orogeny→orogenies, REE→REEs)."""
    head, _, last = form.rpartition(" ")
    prefix = f"{head} " if head else ""
    if is_case_sensitive(last):
        return [f"{prefix}{last}s"]
    if last.endswith(("s", "x", "z", "sh", "ch")):
        return [f"{prefix}{last}es"]
    if last.endswith("y") and last[-2:-1] not in "aeiou":
        return [f"{prefix}{last[:-1]}ies"]
    return [f"{prefix}{last}s"]


@dataclass(frozen=True)
class Term:
    """One surface form of a vocabulary entry."""

    form: str
    canonical: str
    type: str
    case_sensitive: bool


@dataclass
class Vocabulary:
    """Canonical entities by type, every surface form that names them, and the relation vocabulary."""

    elements: dict[str, ElementInfo]
    _by_type: dict[str, list[str]] = field(default_factory=dict)
    _type_of: dict[str, str] = field(default_factory=dict)
    _exact: dict[str, tuple[str, str]] = field(default_factory=dict)
    _folded: dict[str, tuple[str, str]] = field(default_factory=dict)
    _terms: list[Term] = field(default_factory=list)

    @property
    def types(self) -> tuple[str, ...]:
        """Every entity type, in a fixed order (graph labels come only from here)."""
        return ENTITY_TYPES

    @property
    def relations(self) -> dict[str, RelationSpec]:
        return RELATIONS

    def entities(self, type_: str) -> list[str]:
        """Canonical names of one type (empty for the open quantity types Measurement and Age)."""
        if type_ not in ENTITY_TYPES:
            raise KeyError(f"unknown entity type {type_!r}; known: {', '.join(ENTITY_TYPES)}")
        return list(self._by_type.get(type_, ()))

    def type_of(self, canonical: str) -> str | None:
        return self._type_of.get(canonical)

    def terms(self) -> Iterator[Term]:
        """All listed surface forms (the recognizer compiles them into one matcher)."""
        return iter(self._terms)

    def lookup_exact(self, surface: str) -> tuple[str, str] | None:
        """(canonical, type) of a listed surface form, or None. Context-free: a bare "In" is indium here.

        Patterns (isotopes, ratios, δ/ε notation, quantities) are the recognizer's: use
        ``geo_rag_runtime.vocab.lookup`` to canonicalize any single name.
        """
        if not surface or not surface.strip():
            return None
        return self._exact.get(surface_key(surface, True)) or self._folded.get(surface_key(surface))

    # -- building --

    def _add(self, canonical: str, type_: str, form: str, case_sensitive: bool | None = None) -> None:
        exact = is_case_sensitive(form) if case_sensitive is None else case_sensitive
        previous = self._type_of.get(canonical)
        if previous is None:
            self._type_of[canonical] = type_
            self._by_type.setdefault(type_, []).append(canonical)
        elif previous != type_:
            raise ValueError(f"canonical name {canonical!r} is both {previous} and {type_}")
        table = self._exact if exact else self._folded
        key = surface_key(form, exact)
        if key in table and table[key] != (canonical, type_):
            return  # first entry wins (e.g. "alkaline" stays MagmaSeries)
        table[key] = (canonical, type_)
        self._terms.append(Term(form, canonical, type_, exact))


def _curated_file() -> Traversable:
    """The curated names (``data/vocabulary.json``), read by the vocabulary and hashed for its version."""
    return resources.files("geo_rag_runtime.vocab").joinpath("data/vocabulary.json")


def _build() -> Vocabulary:
    vocab = Vocabulary(elements=_elements())
    for info in vocab.elements.values():
        # element symbols are looked up case-exactly; the recognizer adds context rules for bare symbols
        vocab._add(info.symbol, "Element", info.symbol, case_sensitive=True)
        for name in (info.name, *ALTERNATE_ELEMENT_NAMES.get(info.symbol, ())):
            vocab._add(info.symbol, "Element", name, case_sensitive=False)
        for mass in info.isotopes:
            canonical = f"{mass}{info.symbol}"
            vocab._add(canonical, "Isotope", canonical, case_sensitive=True)
            vocab._add(canonical, "Isotope", f"{info.symbol}-{mass}", case_sensitive=True)
            for name in (info.name, *ALTERNATE_ELEMENT_NAMES.get(info.symbol, ())):
                vocab._add(canonical, "Isotope", f"{name}-{mass}", case_sensitive=False)
    for symbol in _DELTA_ELEMENTS:
        for mass in vocab.elements[symbol].isotopes:
            vocab._add(f"δ{mass}{symbol}", "IsotopeRatio", f"δ{mass}{symbol}", case_sensitive=True)
    vocab._add("δD", "IsotopeRatio", "δD", case_sensitive=True)
    for capital in ("Δ17O", "Δ33S", "Δ36S", "Δ47"):
        vocab._add(capital, "IsotopeRatio", capital, case_sensitive=True)
    for symbol in EPSILON_ELEMENTS:
        vocab._add(f"ε{symbol}", "IsotopeRatio", f"ε{symbol}", case_sensitive=True)

    data = json.loads(_curated_file().read_text("utf-8"))
    for type_, entries in data["types"].items():
        if type_ not in ENTITY_TYPES:
            raise ValueError(f"vocabulary.json names an unknown type {type_!r}")
        for entry in entries:
            canonical = entry[0]
            forms = list(entry)
            if type_ in _PLURAL_TYPES:
                forms += [p for form in entry for p in plural_forms(form)]
            exact = True if type_ == "Location" else None  # place names are proper nouns
            for form in forms:
                vocab._add(canonical, type_, form, exact)
    return vocab


@lru_cache(maxsize=1)
def vocabulary_version() -> str:
    """12 hex digits naming this vocabulary: the curated file, the entity types and the periodictable
    release. Ingest assets that recognize entities put it in their code version, so editing the
    vocabulary re-extracts every paper on the next ``geo-rag ingest`` instead of leaving old entities
    in the graph beside new ones."""
    digest = hashlib.sha256()
    digest.update(_curated_file().read_bytes())
    digest.update("\n".join(ENTITY_TYPES).encode())
    digest.update(str(periodictable.__version__).encode())
    return digest.hexdigest()[:12]


@lru_cache(maxsize=1)
def load_vocabulary() -> Vocabulary:
    """The vocabulary, built once per process (about 2,000 surface forms)."""
    return _build()
