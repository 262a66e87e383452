"""The vocabulary: types, sizes, canonical names and surface forms (periodictable + curated data)."""

from __future__ import annotations

import pytest

from geo_rag_runtime.vocab import ENTITY_TYPES, RELATIONS, load_vocabulary, lookup
from geo_rag_runtime.vocab.vocabulary import normalize_text, plural_forms


def test_types_and_sizes() -> None:
    vocab = load_vocabulary()
    assert vocab.types == ENTITY_TYPES
    assert len(vocab.entities("Element")) == 118
    assert len(vocab.entities("Mineral")) >= 150
    assert len(vocab.entities("Rock")) >= 80
    assert {"REE", "LREE", "HREE", "HFSE", "LILE", "PGE"} <= set(vocab.entities("ElementGroup"))
    assert {"tholeiitic", "calc-alkaline", "alkaline"} <= set(vocab.entities("MagmaSeries"))
    assert {"U–Pb", "Re–Os", "K–Ca", "Ar–Ar", "Lu–Hf", "Sm–Nd", "Rb–Sr", "Th–Pb", "U–Th–He"} <= set(
        vocab.entities("GeochronometerSystem")
    )
    with pytest.raises(KeyError):
        vocab.entities("Planet")


@pytest.mark.parametrize(
    ("surface", "expected"),
    [
        ("strontium", ("Sr", "Element")),
        ("Sr", ("Sr", "Element")),
        ("aluminium", ("Al", "Element")),
        ("87Sr", ("87Sr", "Isotope")),
        ("Sr-87", ("87Sr", "Isotope")),
        ("strontium-87", ("87Sr", "Isotope")),
        ("238U", ("238U", "Isotope")),  # radioactive, listed on purpose
        ("⁸⁷Sr/⁸⁶Sr", ("87Sr/86Sr", "IsotopeRatio")),
        ("176Hf/177Hf", ("176Hf/177Hf", "IsotopeRatio")),
        ("d18O", ("δ18O", "IsotopeRatio")),
        ("εNd(t)", ("εNd", "IsotopeRatio")),
        ("Zircons", ("zircon", "Mineral")),
        ("sphene", ("titanite", "Mineral")),
        ("cpx", ("clinopyroxene", "Mineral")),
        ("mid-ocean ridge basalt", ("MORB", "Rock")),
        ("SiO₂", ("SiO2", "Oxide")),
        ("FeO*", ("FeOT", "Oxide")),
        ("rare earth elements", ("REE", "ElementGroup")),
        ("fractional crystallisation", ("fractional crystallization", "Process")),
        ("Hawai'i", ("Hawaii", "Location")),
        ("Mongol–Okhotsk", ("Mongol-Okhotsk", "Location")),
        ("LA-ICPMS", ("LA-ICP-MS", "AnalyticalMethod")),
        ("U-Pb", ("U–Pb", "GeochronometerSystem")),
        ("(U-Th)/He", ("U–Th–He", "GeochronometerSystem")),
        ("calc-alkalic", ("calc-alkaline", "MagmaSeries")),
        ("251.9 ± 0.1 Ma", ("251.9 ± 0.1 Ma", "Age")),
        ("52.3 wt%", ("52.3 wt.%", "Measurement")),
    ],
)
def test_lookup(surface: str, expected: tuple[str, str]) -> None:
    assert lookup(surface) == expected


@pytest.mark.parametrize(
    "surface", ["Sr-200", "200Sr", "basaltic granite pizza", "", "   ", "mongolia", "xyz"]
)
def test_lookup_rejects(surface: str) -> None:
    # isotopes exist only with real mass numbers; place names are proper nouns (case-exact)
    assert lookup(surface) is None


def test_canonical_names_unique_across_types() -> None:
    vocab = load_vocabulary()
    seen: dict[str, str] = {}
    for type_ in vocab.types:
        for name in vocab.entities(type_):
            assert seen.setdefault(name, type_) == type_, name
            assert vocab.type_of(name) == type_


def test_isotopes_come_from_periodictable() -> None:
    vocab = load_vocabulary()
    isotopes = set(vocab.entities("Isotope"))
    assert {
        "86Sr",
        "87Sr",
        "143Nd",
        "144Nd",
        "176Hf",
        "177Hf",
        "206Pb",
        "204Pb",
        "40Ar",
        "39Ar",
        "187Os",
    } <= isotopes
    assert "87Ca" not in isotopes and "300U" not in isotopes


def test_relations_are_typed() -> None:
    assert RELATIONS["ISOTOPE_OF"].allows("Isotope", "Element")
    assert not RELATIONS["ISOTOPE_OF"].allows("Mineral", "Element")
    assert RELATIONS["CONTAINS"].allows("Mineral", "Element")
    assert RELATIONS["DATED_BY"].allows("Mineral", "GeochronometerSystem")
    for spec in RELATIONS.values():
        assert spec.heads <= set(ENTITY_TYPES) and spec.tails <= set(ENTITY_TYPES), spec.name


def test_normalization_keeps_length() -> None:
    text = "⁸⁷Sr/⁸⁶Sr, SiO₂, U–Pb, Hawaiʻi\u00a0lavas"
    assert len(normalize_text(text)) == len(text)
    assert normalize_text(text) == "87Sr/86Sr, SiO2, U-Pb, Hawai'i lavas"


def test_plurals() -> None:
    assert plural_forms("zircon") == ["zircons"]
    assert plural_forms("gneiss") == ["gneisses"]
    assert plural_forms("quartz") == ["quartzes"]
    assert plural_forms("MORB") == ["MORBs"]
    assert plural_forms("island arc") == ["island arcs"]
