"""Geochemical entity recognition: one code path for ingest (triples) and query time (graph start nodes).

Surface forms resolve to one canonical entity of the vocabulary: "Sr"/"strontium" → Sr (Element);
"87Sr", "87 Sr", "Sr-87", "strontium-87", "⁸⁷Sr" → 87Sr (Isotope); "87Sr/86Sr", "⁸⁷Sr/⁸⁶Sr",
"87 Sr/86 Sr" → 87Sr/86Sr (IsotopeRatio); "δ18O", "d18O", "delta 18O" → δ18O; "εNd(t)", "eNd" → εNd;
"U–Pb", "U-Pb", "U/Pb dating" → U–Pb (GeochronometerSystem); "zircons" → zircon (Mineral); values with
units → Measurement or Age whose name carries value and unit ("52.3 wt.%", "251.9 ± 0.1 Ma";
:func:`parse_quantity` reads them back).

Bare element symbols are ambiguous in English ("In", "As", "He", "I", "S", "B", "Be", "No", ...) and in
author lists ("Li", "Lu", "Ho", initials "O.", "U."). A bare symbol is accepted only case-exactly and

1. if it is one of the common two-letter symbols that are no English word or name (:data:`SAFE_SYMBOLS`:
   Sr, Nd, Hf, Zr, Rb, Pb, ...), anywhere except as an abbreviation ("Ca. 250") or before a capitalized
   word ("La Palma"); or
2. next to a value with a unit ("U = 120 ppm", "Li (5 ppm)", "30 ppm Li"); or
3. before a chemical noun ("O isotopes", "He diffusion", "U concentrations", "Fe-rich"); a symbol that is
   an English word ("As", "In", "At", "No", "Be", "I") at a sentence start needs rule 2; or
4. in an element list with at least one safe member ("U, Th and Pb", "Hf and O", "Sr–Nd–Pb"); or
5. inside a ratio ("Th/U", "La/Yb") or an isotope ("238U"), which other patterns handle.

Single letters followed by a period are never symbols (author initials).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from geo_rag_runtime.models import Entity
from geo_rag_runtime.vocab.vocabulary import (
    EPSILON_ELEMENTS,
    QUANTITY_TYPES,
    Vocabulary,
    load_vocabulary,
    normalize_text,
    surface_key,
)

_SAFE = (
    "Na Mg Al Si Cl Ar Ca Ti Cr Mn Fe Ni Cu Zn Rb Sr Zr Nb Ru Rh Pd Ag Cd Sn Sb Te Cs Ba La Ce Pr Nd Sm Eu Gd"
)
SAFE_SYMBOLS: frozenset[str] = frozenset(
    f"{_SAFE} Tb Dy Er Tm Yb Hf Ta Os Ir Pt Hg Tl Pb Th Kr Xe Ne Se Rn Ra Np Pu".split(" ")
)
"""Two-letter symbols that are no English word, common name or abbreviation: accepted standing alone."""
ENGLISH_SYMBOLS: frozenset[str] = frozenset({"As", "At", "Be", "He", "In", "No", "I"})
"""Symbols that are English words: at a sentence start they need a value with a unit next to them."""

_CHEM_NOUNS = (
    r"isotopes?|isotopic|isotope|concentrations?|contents?|abundances?|budgets?|systematics|partitioning|"
    r"diffusion|diffusivit(?:y|ies)|loss|gain|anomal(?:y|ies)|enrichments?|depletions?|rich|poor|bearing|"
    r"atoms?|ions?|cations?|signatures?|compositions?|ratios?|saturation|solubility|speciation|mobility|"
    r"zoning|metasomatism|isotopologues?|oxides?|minerals?|fractionation|data|values|budget|degassing|"
    r"ingrowth|production|retention|dating|age|ages|spectra|measurements?"
)
_NOUN_AFTER = re.compile(r"[\s-]+(?:" + _CHEM_NOUNS + r")\b")
_STRICT_NOUN_AFTER = re.compile(
    r"[\s-]+(?:isotopes?|isotopic|concentrations?|contents?|abundances?|diffusion|diffusivity|"
    r"rich|poor|bearing|anomal(?:y|ies)|partitioning|loss|ratios?|ingrowth|retention|degassing)\b"
)
_UNIT_WORDS = r"(?:ppm|ppb|ppt|wt|µg|ng|mg|pg|mol|at\.?\s?%|‰)"
_VALUE_AFTER = re.compile(
    r"\s*(?:\(|=|:|of|contents? of|concentrations? of)?\s*[<>~≈]?\s*[-+]?\d[\d.,]*\s*"
    r"(?:(?:-|to)\s*\d[\d.,]*\s*)?" + _UNIT_WORDS
)
_VALUE_BEFORE = re.compile(r"\d[\d.,]*\s*(?:ppm|ppb|ppt|µg/g|ng/g|mg/kg|wt\.?\s?%)\s+(?:of\s+)?$")
_LIST_SEP = r"(?:\s*,\s*(?:and\s+|or\s+)?|\s+(?:and|or|&)\s+|-|\s*/\s*)"

# --- patterns ---------------------------------------------------------------------------------------

_NUM = r"[-+]?(?:\d{1,3}(?:,\d{3})+(?!\d)|\d+)(?:\.\d+)?"
_AGE_UNITS = {
    "Ma": "Ma",
    "Ga": "Ga",
    "ka": "ka",
    "Myr": "Myr",
    "Gyr": "Gyr",
    "kyr": "kyr",
    "My": "Myr",
    "m.y.": "Myr",
}
_UNIT_RE = (
    r"(?P<unit>wt\.?\s?%|mol\.?\s?%|vol\.?\s?%|at\.?\s?%|ppm|ppb|ppt|µg/g|ng/g|pg/g|mg/kg|µg/kg|‰|"
    r"per\s?mil|permil|°\s?C|GPa|MPa|kbar|Myr|Gyr|kyr|Ma|Ga|ka|My|m\.y\.)"
)
_QUANTITY = re.compile(
    rf"(?<![\w.+-])(?P<value>{_NUM}(?:\s?(?:-|to)\s?{_NUM})?)(?:\s?(?:±|\+/-|\+-)\s?(?P<err>{_NUM}))?"
    rf"\s?{_UNIT_RE}(?![\w])"
)
_ISOTOPE = re.compile(r"(?<![\w.,/])(\d{1,3})(\s?)([A-Z][a-z]?)(?![a-z])")
_ISO_PART = r"\[?(\d{1,3})\s?([A-Z][a-z]?)\]?"
_ISOTOPE_RATIO = re.compile(
    rf"(?<![\w.])\(?{_ISO_PART}\s?/\s?{_ISO_PART}\)?(?:\s?\((?:i|t|0|T|init)\)|i(?![a-z]))?(?![a-z])"
)
_DELTA = re.compile(
    r"(?<![\w])(?:δ\s?|d(?=\d)|delta\s?|Delta\s?|Δ\s?)(\d{1,3})\s?([A-Z][a-z]?)(?![a-z])|δ\s?D\b"
)
_CAP_DELTA = re.compile(r"(?<![\w])Δ\s?(\d{1,3})\s?([A-Z][a-z]?)?(?![a-z])")
_EPSILON = re.compile(
    r"(?<![\w])(?:ε\s?|epsilon\s?|e(?=[A-Z]))(" + "|".join(EPSILON_ELEMENTS) + r")"
    r"(?:\s?\((?:t|T|i|0|CHUR|DM)\)|(?<=Nd)i|(?<=Hf)i|t(?![a-z]))?(?![a-z])"
)
_ELEMENT_RATIO = re.compile(r"(?<![\w/.])\(?([A-Z][a-z]?)\s?/\s?([A-Z][a-z]?)\)?(?:N|CN|cn|PM|pm)?(?![\w/])")
_DATING_AFTER = re.compile(
    r"\s+(?:dating|ages?|dates?|geochronology|geochronometer|method|system|isochrons?|chronometers?|"
    r"chronometry|data|analyses|measurements)\b"
)
_SPECIES_ROMAN = re.compile(r"(?<![\w])([A-Z][a-z]?)\s?\((I{1,3}|IV|V|VI{1,2})\)")
_SPECIES_CHARGE = re.compile(r"(?<![\w])([A-Z][a-z]?)([1-7]?)\+(?![\w+])")
_OXIDE = re.compile(
    r"(?<![\w])((?:[A-Z][a-z]?)(?:\s?\d)?\s?O(?:\s?\d)?)(\*|T|t|tot|total|\(T\)|\(t\))?(?![\w*])"
)
_SYMBOL = re.compile(r"(?<![\w])([A-Z][a-z]?)(?![\w])")
_ROMAN = {1: "I", 2: "II", 3: "III", 4: "IV", 5: "V", 6: "VI", 7: "VII"}
_LINK_WORDS = (
    r"(?:ratios?|values?|compositions?|signatures?|of|is|are|was|were|between|from|ranging|range|ranges|up|"
    r"to|as|high|low|about|ca\.|around|approximately|averaging|average|mean|initial|=|≈|~|:|\()"
)
_CONTEXT_NUMBER = re.compile(
    rf"(?:\s*\((?:t|i|0|T)\))?(?:\s*{_LINK_WORDS}(?![A-Za-z]))+\s*(?<=[\s(=:~≈])"
    rf"(?P<value>{_NUM}(?:\s?(?:-|to|and)\s?{_NUM})?)(?:\s?(?:±|\+/-)\s?(?P<err>{_NUM}))?"
    r"(?!\d)(?!,\d)(?!\.\d)(?!\s?(?:[%‰°]|ppm|ppb|wt|Ma|Ga|ka|[µn]g|mol|GPa|MPa|kbar))"
)
_BARE_VALUE = re.compile(rf"(?P<value>{_NUM}(?:\s?(?:-|to)\s?{_NUM})?)(?:\s?(?:±|\+/-)\s?(?P<err>{_NUM}))?")
_UNIT_CANON = [
    (re.compile(r"wt\.?\s?%"), "wt.%"),
    (re.compile(r"mol\.?\s?%"), "mol%"),
    (re.compile(r"vol\.?\s?%"), "vol%"),
    (re.compile(r"at\.?\s?%"), "at.%"),
    (re.compile(r"per\s?mil|permil"), "‰"),
    (re.compile(r"°\s?C"), "°C"),
]

_P_SYMBOL, _P_CONTEXT_NUMBER, _P_SPECIES, _P_PATTERN, _P_DICT = 1, 2, 4, 6, 7


@dataclass(frozen=True)
class Quantity:
    """A value read back from a Measurement/Age name: value (or range), error and unit."""

    value: float
    unit: str
    low: float | None = None
    high: float | None = None
    error: float | None = None


@dataclass(frozen=True)
class _Cand:
    start: int
    end: int
    name: str
    type: str
    priority: int


# --- the compiled matcher ---------------------------------------------------------------------------


def _trie_regex(forms: Iterable[str]) -> str:
    """One regex alternation factored as a character trie, so matching cost does not grow with the list."""
    trie: dict[str, Any] = {}
    for form in forms:
        node = trie
        for ch in form:
            node = node.setdefault(ch, {})
        node[""] = {}

    def emit(node: dict[str, Any]) -> str:
        ends = "" in node
        branches = []
        for ch in sorted(k for k in node if k):
            piece = r"\s+" if ch == " " else re.escape(ch)
            branches.append(piece + emit(node[ch]))
        if not branches:
            return ""
        body = branches[0] if len(branches) == 1 and not ends else "(?:" + "|".join(branches) + ")"
        if ends:
            body = (body if body.startswith("(?:") else "(?:" + body + ")") + "?"
        return body

    return emit(trie)


# a place name right after "New " is part of another place's name ("New Mexico"); an adjective is not
# ("New Icelandic data")
_NEW_BEFORE = re.compile(r"\bNew\s$")
_ADJECTIVE = re.compile(r"(?:an|ic|ese|ish)$")


class Recognizer:
    """Compiled patterns over one vocabulary; stateless after construction and safe to share."""

    def __init__(self, vocab: Vocabulary):
        self.vocab = vocab
        self.elements = vocab.elements
        exact_forms: set[str] = set()
        folded_forms: set[str] = set()
        for term in vocab.terms():
            if term.type == "Element" and term.case_sensitive:
                continue  # bare symbols go through the context rules
            if term.type == "Isotope" and term.case_sensitive and "-" not in term.form:
                continue  # "87Sr" is matched by _ISOTOPE (spaced forms too)
            if term.type == "IsotopeRatio":
                continue  # δ/ε/Δ notation has its own patterns
            key = surface_key(term.form, term.case_sensitive)
            (exact_forms if term.case_sensitive else folded_forms).add(key)
        self._exact = re.compile(r"(?<![\w])" + _trie_regex(exact_forms) + r"(?![\w])")
        self._folded = re.compile(r"(?<![\w])" + _trie_regex(folded_forms) + r"(?![\w])", re.IGNORECASE)

    # -- helpers --

    def _isotope(self, mass: str, symbol: str) -> str | None:
        info = self.elements.get(symbol)
        return f"{int(mass)}{symbol}" if info and int(mass) in info.isotopes else None

    def _is_symbol(self, symbol: str) -> bool:
        return symbol in self.elements and self.elements[symbol].number <= 103

    # -- passes --

    def _dictionary(self, t: str, out: list[_Cand]) -> None:
        for regex, exact in ((self._exact, True), (self._folded, False)):
            for m in regex.finditer(t):
                hit = self.vocab._exact.get(surface_key(m.group(0), True)) if exact else None
                hit = hit or self.vocab._folded.get(surface_key(m.group(0)))
                if not hit:
                    continue
                name, type_ = hit
                if type_ == "Element" and m.group(0).lower() == "lead" and not self._lead_context(t, m.end()):
                    continue
                if (
                    type_ == "Location"
                    and _NEW_BEFORE.search(t, max(0, m.start() - 4), m.start())
                    and not _ADJECTIVE.search(m.group(0))
                ):
                    continue  # "New Mexico", "New England": another place (unless the vocabulary has it)
                out.append(_Cand(m.start(), m.end(), name, type_, _P_DICT))

    @staticmethod
    def _lead_context(t: str, end: int) -> bool:
        return bool(
            re.match(r"[\s-]+(?:isotopes?|isotopic|concentrations?|contents?|loss)\b", t[end : end + 30])
        )

    def _patterns(self, t: str, out: list[_Cand]) -> None:
        for m in _QUANTITY.finditer(t):
            unit = m.group("unit")
            for regex, canon in _UNIT_CANON:
                if regex.fullmatch(unit):
                    unit = canon
            type_ = "Age" if unit in _AGE_UNITS else "Measurement"
            unit = _AGE_UNITS.get(unit, unit)
            out.append(
                _Cand(
                    m.start(),
                    m.end(),
                    _quantity_name(m.group("value"), m.group("err"), unit),
                    type_,
                    _P_PATTERN,
                )
            )
        for m in _ISOTOPE_RATIO.finditer(t):
            a = self._isotope(m.group(1), m.group(2))
            b = self._isotope(m.group(3), m.group(4))
            if a and b and a != b:
                out.append(_Cand(m.start(), m.end(), f"{a}/{b}", "IsotopeRatio", _P_PATTERN))
        for m in _ISOTOPE.finditer(t):
            name = self._isotope(m.group(1), m.group(3))
            if not name:
                continue
            if m.group(2) and len(m.group(3)) == 1 and int(m.group(1)) < 10:
                continue  # "Fig. 2 C": a spaced single-letter isotope needs a two-digit mass
            out.append(_Cand(m.start(), m.end(), name, "Isotope", _P_PATTERN - 1))
        for m in _DELTA.finditer(t):
            if m.group(1) is None:
                out.append(_Cand(m.start(), m.end(), "δD", "IsotopeRatio", _P_PATTERN))
                continue
            name = f"δ{int(m.group(1))}{m.group(2)}"
            if self.vocab.type_of(name) == "IsotopeRatio":
                out.append(_Cand(m.start(), m.end(), name, "IsotopeRatio", _P_PATTERN))
        for m in _CAP_DELTA.finditer(t):
            name = f"Δ{int(m.group(1))}{m.group(2) or ''}"
            if self.vocab.type_of(name) == "IsotopeRatio":
                out.append(_Cand(m.start(), m.end(), name, "IsotopeRatio", _P_PATTERN))
        for m in _EPSILON.finditer(t):
            out.append(_Cand(m.start(), m.end(), f"ε{m.group(1)}", "IsotopeRatio", _P_PATTERN))
        for m in _ELEMENT_RATIO.finditer(t):
            a, b = m.group(1), m.group(2)
            if not (self._is_symbol(a) and self._is_symbol(b)) or a == b:
                continue
            after = t[m.end() : m.end() + 40]
            system = self.vocab._exact.get(surface_key(f"{a}-{b}", True))
            if system and system[1] == "GeochronometerSystem" and _DATING_AFTER.match(after):
                out.append(_Cand(m.start(), m.end(), system[0], system[1], _P_PATTERN))
                continue
            if len(a) == 1 and len(b) == 1 and not re.match(r"\s+ratios?\b", after):
                continue  # "S/N", "P/T": two single letters need the word "ratio"
            out.append(_Cand(m.start(), m.end(), f"{a}/{b}", "ElementRatio", _P_PATTERN - 2))
        for m in _SPECIES_ROMAN.finditer(t):
            if self._is_symbol(m.group(1)):
                out.append(_Cand(m.start(), m.end(), f"{m.group(1)}({m.group(2)})", "Species", _P_SPECIES))
        for m in _SPECIES_CHARGE.finditer(t):
            if self._is_symbol(m.group(1)):
                charge = int(m.group(2) or 1)
                out.append(
                    _Cand(m.start(), m.end(), f"{m.group(1)}({_ROMAN[charge]})", "Species", _P_SPECIES)
                )
        for m in _OXIDE.finditer(t):
            compact = re.sub(r"\s", "", m.group(0))
            hit = self.vocab._exact.get(surface_key(compact, True))
            if hit and hit[1] == "Oxide":
                out.append(_Cand(m.start(), m.end(), hit[0], "Oxide", _P_PATTERN))

    def _symbols(self, t: str, out: list[_Cand]) -> None:
        matches = [m for m in _SYMBOL.finditer(t) if self._is_symbol(m.group(1))]
        listed = self._listed(t, matches)
        for m in matches:
            symbol, start, end = m.group(1), m.start(), m.end()
            nxt = t[end : end + 3]
            if len(symbol) == 1 and nxt.startswith("."):
                continue  # author initials "O.", "U."
            if nxt.startswith(".") and re.match(r"\.\s?[\d(]", nxt):
                continue  # "Ca. 250", "Sc. (" abbreviations
            after = t[end : end + 60]
            if self._valued(t, start, end):
                ok = True
            elif symbol in ENGLISH_SYMBOLS and _sentence_start(t, start):
                ok = False
            elif symbol in SAFE_SYMBOLS:
                ok = not re.match(r" [A-Z][a-z]{2,}", after) or bool(_NOUN_AFTER.match(after))
            else:
                ok = bool(
                    _STRICT_NOUN_AFTER.match(after) if symbol in ENGLISH_SYMBOLS else _NOUN_AFTER.match(after)
                )
                ok = ok or start in listed
            if ok:
                out.append(_Cand(start, end, symbol, "Element", _P_SYMBOL))

    @staticmethod
    def _valued(t: str, start: int, end: int) -> bool:
        return bool(
            _VALUE_AFTER.match(t[end : end + 40]) or _VALUE_BEFORE.search(t[max(0, start - 30) : start])
        )

    def _listed(self, t: str, matches: list[re.Match[str]]) -> set[int]:
        """Starts of symbols in an element list ("U, Th and Pb") that has a safe member."""
        accepted: set[int] = set()
        run: list[re.Match[str]] = []

        def close() -> None:
            if len(run) >= 2 and any(m.group(1) in SAFE_SYMBOLS for m in run):
                accepted.update(m.start() for m in run)

        for m in matches:
            if len(m.group(1)) == 1 and t[m.end() : m.end() + 1] == ".":
                close()
                run = []
                continue
            if run and re.fullmatch(_LIST_SEP, t[run[-1].end() : m.start()]):
                run.append(m)
            else:
                close()
                run = [m]
        close()
        return accepted

    def _context_numbers(self, t: str, picked: list[_Cand], out: list[_Cand]) -> None:
        """Unitless values right after a ratio: "87Sr/86Sr = 0.7035", "Th/U ratios between 0.41 and 1.20"."""
        for cand in picked:
            if cand.type not in ("IsotopeRatio", "ElementRatio"):
                continue
            m = _CONTEXT_NUMBER.match(t, cand.end, min(len(t), cand.end + 80))
            if not m or m.start("value") - cand.end > 60:
                continue
            raw = m.group("value")
            out.append(
                _Cand(
                    m.start("value"),
                    m.end("err") if m.group("err") else m.end("value"),
                    _quantity_name(raw, m.group("err"), ""),
                    "Measurement",
                    _P_CONTEXT_NUMBER,
                )
            )

    def recognize(self, text: str) -> list[Entity]:
        t = normalize_text(text)
        cands: list[_Cand] = []
        self._dictionary(t, cands)
        self._patterns(t, cands)
        self._symbols(t, cands)
        picked = _resolve(cands)
        extra: list[_Cand] = []
        self._context_numbers(t, picked, extra)
        if extra:
            picked = _resolve(picked + extra)
        return [
            Entity(name=c.name, type=c.type, surface=text[c.start : c.end], start=c.start, end=c.end)
            for c in picked
        ]


def _resolve(cands: list[_Cand]) -> list[_Cand]:
    """Non-overlapping spans: longest first, then the more specific pattern; returned in text order."""
    chosen: list[_Cand] = []
    taken: list[tuple[int, int]] = []
    for cand in sorted(cands, key=lambda c: (-(c.end - c.start), -c.priority, c.start)):
        if any(cand.start < e and s < cand.end for s, e in taken):
            continue
        chosen.append(cand)
        taken.append((cand.start, cand.end))
    return sorted(chosen, key=lambda c: c.start)


def _sentence_start(t: str, start: int) -> bool:
    before = t[:start].rstrip()
    return not before or before[-1] in ".!?:;(\"'"


def _quantity_name(value: str, err: str | None, unit: str) -> str:
    value = re.sub(r"(?<=\d),(?=\d{3})", "", value)
    value = re.sub(r"\s*(?:to|and)\s*", "–", value)
    value = re.sub(r"(?<=\d)\s*-\s*(?=[-+]?\d)", "–", value)
    name = value
    if err:
        name += " ± " + re.sub(r"(?<=\d),(?=\d{3})", "", err)
    return f"{name} {unit}".strip() if unit else name


_QUANTITY_NAME = re.compile(
    r"(?P<low>[-+]?\d+(?:\.\d+)?)(?:–(?P<high>[-+]?\d+(?:\.\d+)?))?(?: ± (?P<err>\d+(?:\.\d+)?))?(?: (?P<unit>.+))?"
)


def parse_quantity(name: str) -> Quantity | None:
    """Value, range, error and unit of a Measurement/Age name such as "251.9 ± 0.1 Ma" or "3.79–5.25 wt.%"."""
    m = _QUANTITY_NAME.fullmatch(name.strip())
    if not m:
        return None
    low = float(m.group("low"))
    high = float(m.group("high")) if m.group("high") else None
    value = (low + high) / 2 if high is not None else low
    err = float(m.group("err")) if m.group("err") else None
    return Quantity(
        value=value, unit=m.group("unit") or "", low=low if high is not None else None, high=high, error=err
    )


@lru_cache(maxsize=1)
def get_recognizer() -> Recognizer:
    """The process-wide recognizer (compiling the vocabulary takes a few hundred milliseconds)."""
    return Recognizer(load_vocabulary())


def recognize(text: str) -> list[Entity]:
    """Every geochemical entity in ``text``, canonicalized, with offsets into ``text``."""
    return get_recognizer().recognize(text)


def recognize_whole(surface: str) -> Entity | None:
    """The entity that spans all of ``surface`` (used to canonicalize a single name), else None."""
    stripped = surface.strip()
    if not stripped:
        return None
    entities = recognize(stripped)
    if len(entities) == 1 and entities[0].start == 0 and entities[0].end == len(stripped):
        return entities[0]
    # a bare value ("1.3–2.1", "0.7035") in a name field is a unitless measurement
    bare = _BARE_VALUE.fullmatch(normalize_text(stripped))
    if bare:
        name = _quantity_name(bare.group("value"), bare.group("err"), "")
        return Entity(name=name, type="Measurement", surface=stripped, start=0, end=len(stripped))
    # a lone symbol has no context in a name field: accept it when it is a known element symbol
    vocab = load_vocabulary()
    if stripped in vocab.elements:
        return Entity(name=stripped, type="Element", surface=stripped, start=0, end=len(stripped))
    return None


def lookup(surface: str) -> tuple[str, str] | None:
    """(canonical, type) of one name: a listed surface form, else a pattern that spans all of it,
    so "⁸⁷Sr/⁸⁶Sr" and "251.9 ± 0.1 Ma" canonicalize too. None for anything else."""
    hit = load_vocabulary().lookup_exact(surface)
    if hit:
        return hit
    entity = recognize_whole(surface) if surface and surface.strip() else None
    return (entity.name, entity.type) if entity else None


def names_of(entities: Iterable[Entity], *, include_quantities: bool = False) -> list[str]:
    """Distinct canonical names in order of first appearance: graph start nodes, since values such
    as "2 GPa" are no entities to start from (unless ``include_quantities``)."""
    seen: dict[str, None] = {}
    for entity in entities:
        if include_quantities or entity.type not in QUANTITY_TYPES:
            seen.setdefault(entity.name, None)
    return list(seen)


def entity_names(text: str, *, include_quantities: bool = False) -> list[str]:
    """Distinct canonical names of the entities in ``text`` (see :func:`names_of`)."""
    return names_of(recognize(text), include_quantities=include_quantities)
