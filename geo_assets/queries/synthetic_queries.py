"""Synthetic labelled questions for training the query-type classifier (PAPER.md section 6).

The paper generated its training set with an LLM. Offline we generate it from templates: many
phrasings per query type, slots filled with geochemical entities (the knowledge graph's entities
merged with the vocabulary, passed in by the asset), optional modifiers, and label-neutral noise
(casing, punctuation, filler prefixes). When an LLM is configured its questions are added first.

What separates the four types is the *kind of answer asked for*, not the first word, so every type
uses several question words and some words on purpose cross types:

- explicit_fact: a value, name, list, date or definition ("What is", "Which", "List", "Give",
  "Report", "How much", "How old", terse keyword queries).
- implicit_reasoning: a relation between two named things: effect, correlation, comparison,
  covariation ("How does X affect Y", "relationship between", "compare", "does X correlate").
- interpretable_rationale: the factors, criteria, evidence, assumptions or method choices that the
  literature lays out ("what factors", "which criteria", "what evidence", "why is X used for",
  "list the factors").
- hidden_rationale: explanations of observations that are not stated anywhere directly: anomalies,
  paradoxes, mechanisms, hypotheticals ("why do ... show anomalously", "what could explain",
  "how come", "what underlying mechanism", "if ..., why would").

Near duplicates are removed in two steps: exact duplicates after normalization (lower case, no
punctuation, collapsed spaces; a text seen with two labels is dropped entirely), then a greedy filter
on the cosine similarity of word 1–3-gram count vectors (the classifier's n-grams, hashed, without
IDF so that similarity is a property of the pair alone) that drops a question when it is more than
``NEAR_DUPLICATE_COSINE`` similar to one already kept.
"""

import hashlib
import json
import os
import random
import re
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Protocol

import numpy as np
import pandas as pd
from sklearn.feature_extraction.text import HashingVectorizer

from geo_rag_runtime.errors import GeoRagError
from geo_rag_runtime.models import QUERY_TYPES

TEMPLATE_GENERATOR = "template-v1"
NEAR_DUPLICATE_COSINE = 0.9
MIN_ENTITIES_PER_TYPE = 8  # fewer than this and the type is topped up from the defaults below
COLUMNS = ("query", "label", "generator", "template")

# fmt: off
# Fallback vocabulary: used for entity types the caller does not provide (or provides too few of),
# so that generation never depends on how much the knowledge graph holds yet.
DEFAULT_ENTITIES: dict[str, tuple[str, ...]] = {
    "Element": (
        "uranium", "strontium", "neodymium", "lead", "hafnium", "zirconium", "rubidium", "samarium",
        "lutetium", "thorium", "niobium", "tantalum", "barium", "lanthanum", "cerium", "europium",
        "ytterbium", "yttrium", "titanium", "nickel", "chromium", "vanadium", "lithium", "boron",
        "magnesium", "iron", "osmium", "rhenium", "scandium", "cobalt", "copper", "zinc", "Sr", "Nd", "Pb",
        "Hf", "Zr", "U", "Th", "Nb", "Ba", "La", "Eu", "Yb", "Ti", "Ni", "Cr", "Li", "Mo", "W",
    ),
    "Isotope": (
        "87Sr", "86Sr", "143Nd", "144Nd", "176Hf", "177Hf", "206Pb", "207Pb", "208Pb", "204Pb", "238U",
        "235U", "232Th", "230Th", "147Sm", "176Lu", "87Rb", "187Os", "188Os", "18O", "7Li", "11B", "26Mg",
        "56Fe", "40Ar", "39Ar", "3He", "4He", "53Cr", "98Mo",
    ),
    "IsotopeRatio": (
        "87Sr/86Sr", "143Nd/144Nd", "176Hf/177Hf", "206Pb/204Pb", "207Pb/204Pb", "208Pb/204Pb",
        "187Os/188Os", "238U/235U", "δ18O", "δ7Li", "δ11B", "δ26Mg", "δ56Fe", "εNd", "εHf", "3He/4He",
        "(230Th/238U)", "δ34S", "δ13C", "δ98Mo", "207Pb/206Pb", "εNd(t)", "εHf(t)", "γOs",
    ),
    "Mineral": (
        "zircon", "olivine", "clinopyroxene", "orthopyroxene", "garnet", "plagioclase", "amphibole",
        "hornblende", "biotite", "apatite", "titanite", "monazite", "rutile", "magnetite", "ilmenite",
        "spinel", "K-feldspar", "muscovite", "allanite", "xenotime", "baddeleyite", "chromite", "phlogopite",
        "pyrite", "epidote", "cordierite", "sulfide", "perovskite",
    ),
    "Rock": (
        "basalt", "andesite", "dacite", "rhyolite", "granite", "granodiorite", "tonalite", "gabbro",
        "peridotite", "harzburgite", "lherzolite", "eclogite", "komatiite", "picrite", "trachyte",
        "phonolite", "kimberlite", "carbonatite", "pegmatite", "gneiss", "amphibolite", "shale", "sandstone",
        "MORB", "OIB", "adakite", "syenite", "norite", "pyroxenite", "basanite", "tuff", "ignimbrite",
        "boninite", "monzonite", "diorite", "migmatite", "granulite", "schist",
    ),
    "Oxide": (
        "SiO2", "MgO", "FeO", "Fe2O3", "Al2O3", "CaO", "Na2O", "K2O", "TiO2", "P2O5", "MnO", "Cr2O3", "H2O",
        "CO2", "FeOt", "Na2O+K2O",
    ),
    "Process": (
        "fractional crystallization", "partial melting", "crustal contamination", "assimilation",
        "magma mixing", "metasomatism", "subduction", "slab dehydration", "hydrothermal alteration",
        "chemical weathering", "metamorphism", "degassing", "crystal accumulation", "diffusion",
        "isotopic fractionation", "crustal recycling", "lithospheric delamination", "sediment melting",
        "mantle upwelling", "AFC", "serpentinization", "recrystallization", "Pb loss", "anatexis",
    ),
    "TectonicSetting": (
        "island arc", "continental arc", "mid-ocean ridge", "back-arc basin", "ocean island",
        "continental rift", "intraplate", "subduction zone", "collision zone", "large igneous province",
        "passive margin", "hotspot", "forearc", "post-collisional", "cratonic",
    ),
    "Location": (
        "Iceland", "Hawaii", "the Andes", "Kamchatka", "the Deccan Traps", "the Siberian Traps",
        "the Aleutians", "the Mariana arc", "the East African Rift", "the Tibetan Plateau",
        "the Kaapvaal craton", "the Pilbara craton", "Yellowstone", "the Izu-Bonin arc", "Mount Etna",
        "the Azores", "the Canary Islands", "Réunion", "the Ontong Java Plateau", "the North China Craton",
        "the Lesser Antilles", "the Troodos ophiolite", "Samoa", "the Columbia River basalts",
        "the Central Asian Orogenic Belt", "the Superior Province",
    ),
    "AnalyticalMethod": (
        "LA-ICP-MS", "MC-ICP-MS", "TIMS", "SIMS", "SHRIMP", "EPMA", "XRF", "solution ICP-MS", "ID-TIMS",
        "INAA", "Raman spectroscopy", "SEM-EDS", "CA-ID-TIMS", "LA-MC-ICP-MS", "ion microprobe",
        "noble gas mass spectrometry", "XANES", "FTIR",
    ),
    "GeochronometerSystem": (
        "U-Pb", "Rb-Sr", "Sm-Nd", "Lu-Hf", "Re-Os", "Ar-Ar", "K-Ar", "U-Th", "(U-Th)/He", "Pb-Pb",
        "40Ar/39Ar", "U-Th-Pb",
    ),
    "MagmaSeries": (
        "tholeiitic", "calc-alkaline", "alkaline", "shoshonitic", "high-K calc-alkaline", "peralkaline",
        "komatiitic", "boninitic", "adakitic", "sub-alkaline", "ultrapotassic",
    ),
}

# Slots that templates may use, and the entity type each draws from ("rocks"/"minerals" are plurals).
_SLOT_TYPES: dict[str, str] = {
    "element": "Element",
    "isotope": "Isotope",
    "ratio": "IsotopeRatio",
    "mineral": "Mineral",
    "minerals": "Mineral",
    "rock": "Rock",
    "rocks": "Rock",
    "oxide": "Oxide",
    "process": "Process",
    "setting": "TectonicSetting",
    "location": "Location",
    "method": "AnalyticalMethod",
    "system": "GeochronometerSystem",
    "series": "MagmaSeries",
}
_PLURAL_SLOTS = {"rocks", "minerals"}

# Template-internal word lists (not entity types).
_CONDITIONS = (
    "high pressure", "low temperature", "oxidizing conditions", "reducing conditions", "hydrous conditions",
    "high oxygen fugacity", "upper mantle pressures", "low water activity", "high temperature",
    "fast cooling", "slow cooling", "high melt fraction", "fluid-saturated conditions",
)

# Optional modifiers; "" is listed several times so that most questions carry none.
_MODIFIERS = (
    "", "", "", "", "", "", " in {rocks} from {location}", " in {setting} magmas", " in {location}",
    " during {process}", " in arc basalts", " during subduction", " in the studied samples",
    " in {series} suites", " in the {location} lavas", " at mantle depths", " in {setting} settings",
    " in Archean {rocks}", " in this data set", " across the {location} suite",
)

# Label-neutral noise, applied to every type alike so it cannot carry label information.
_PREFIXES = (
    "According to the papers, ", "Based on the literature, ", "Quick question: ", "In your corpus, ",
    "From the ingested studies, ", "Geochemistry question: ", "For my thesis: ",
    "In the context of {location}, ",
)
_SUFFIXES = (" Please cite sources.", " (with references)", " Thanks.", " Be specific.")

TEMPLATES: dict[str, tuple[str, ...]] = {
    "explicit_fact": (
        "What is the {ratio} of {rock}{mod}?",
        "What {ratio} value is reported for the {rock} from {location}?",
        "Which {ratio} values were measured in {minerals}{mod}?",
        "What is the concentration of {element} in {mineral}{mod}?",
        "How much {oxide} does the {rock} contain{mod}?",
        "What {oxide} content was measured in the {series} {rocks}?",
        "List the minerals analysed by {method} in the {rock} samples.",
        "List the elements that are enriched in {mineral}.",
        "Give the {system} age of the {rock} from {location}.",
        "Give the range of {oxide} in the {series} lavas.",
        "Report the {ratio} obtained on {mineral} separates{mod}.",
        "Report the detection limit of {method} for {element}.",
        "Which analytical technique was used to measure {ratio} in {mineral}?",
        "Which {mineral} grains gave the oldest {system} dates?",
        "What is the half-life of {isotope}?",
        "What is the decay product of {isotope}?",
        "What is the partition coefficient of {element} between {mineral} and melt?",
        "What is the closure temperature of the {system} system in {mineral}?",
        "How old is the {rock} at {location} according to {system} dating?",
        "When did the {rock} at {location} crystallize?",
        "Where were the {rock} samples collected?",
        "Name the mineral that hosts most of the {element} in {rock}.",
        "Name the reference material used for {method} {system} analyses.",
        "What is the definition of {ratio}?",
        "Define {process}.",
        "What does {method} stand for?",
        "How many {rock} samples were analysed by {method}?",
        "What is the average {element} content of {setting} {rocks}?",
        "State the {ratio} of the depleted mantle.",
        "Which isotopes of {element} are used in {system} dating?",
        "What is the atomic number of {element}?",
        "What temperature does the {mineral} thermometer give for the {rock}?",
        "At what pressure did the {rock} equilibrate according to {mineral} barometry?",
        "What {system} isochron age was obtained for the {rock}{mod}?",
        "What is the initial {ratio} of the {rock} suite?",
        "Which sample has the highest {oxide} content?",
        "Which {rock} samples plot in the {series} field?",
        "Give me the {element} abundance of CI chondrite.",
        "Provide the 2σ uncertainty of the {system} age of the {rock}.",
        "What is the chemical formula of {mineral}?",
        "What tectonic setting is {location} in?",
        "What {ratio} was measured for sample {sample}?",
        "{ratio} of {rocks} from {location}?",
        "{system} age of {mineral} in the {rock}",
        "Look up the {oxide} wt.% of the {rock}.",
        "What are the {element} concentrations in the {series} {rocks}?",
        "Which instrument was used for the {method} measurements?",
        "What is the typical {ratio} of {location} lavas?",
        "What MSWD does the {system} isochron of the {rock} have?",
        "Show the {element} data for {mineral} in sample {sample}.",
        "How much {element} is in {setting} {rocks}, in ppm?",
    ),
    "implicit_reasoning": (
        "How does {process} affect the {ratio} of {rocks}{mod}?",
        "How does {mineral} fractionation change the {element} content of the melt?",
        "What is the relationship between {oxide} and {element} in the {series} suite?",
        "How is {ratio} related to {oxide} content in {rocks}{mod}?",
        "How do {minerals} and {mineral2} compete for {element} during {process}?",
        "What is the effect of {process} on the {system} ages of {minerals}?",
        "How does {oxide} vary with {oxide2} in the {series} {rocks}?",
        "Compare the {ratio} of {rocks} from {location} with {rocks2} from {location2}.",
        "How do {setting} {rocks} and {setting2} {rocks} differ in {ratio}?",
        "In what way does {process} modify {element} partitioning between {mineral} and melt?",
        "To what extent does {process} control the {ratio} signature of {setting} magmas?",
        "Does {ratio} correlate with {ratio2} in the {rocks} of {location}?",
        "Is {element} enrichment coupled with changes in {ratio}{mod}?",
        "What happens to the {ratio} of the melt when {mineral} crystallizes?",
        "How does increasing {condition} change the stability of {mineral} in {rock}?",
        "How does {condition} influence the uptake of {element} into {mineral}?",
        "How are {process} and {process2} linked in the evolution of {setting} magmas?",
        "What role does {mineral} play in the {element} budget of {rock}?",
        "How does the {element} content of {mineral} change with the {oxide} of the host {rock}?",
        "What is the connection between the {setting} setting and the {ratio} of erupted {rocks}?",
        "How do the {system} and {system2} ages of the {rock} compare?",
        "How does {mineral} breakdown during {process} release {element} to fluids?",
        "Does {mineral} in the source shift the {ratio} of the melt?",
        "How do {ratio} and {ratio2} co-vary across the {location} samples?",
        "What is the influence of {condition} on {element} isotope fractionation between {mineral} and fluid?",
        "How does the amount of residual {mineral} affect the {element}/{element2} of melts?",
        "How is the {ratio} of the {rocks} connected to their {system} age?",
        "How does {process} disturb the {system} system in {mineral}?",
        "What changes in {ratio} accompany {process} of the {rock}?",
        "{process} versus {process2}: how do their effects on {ratio} differ?",
        "How do {element} and {element2} behave relative to each other during {process}?",
        "How does {mineral} composition vary with depth through the {rock} sequence?",
        "Does {oxide} in the {rock} rise or fall as {process} proceeds?",
        "How strongly does the {ratio} depend on the degree of {process}?",
        "How does the {element} content change with distance from the trench in {location}?",
        "What is the impact of {process} on the {element} content of {mineral}?",
        "How do {series} and {series2} {rocks} differ in {element} enrichment?",
        "Is {mineral} or {mineral2} richer in {element}, and how does that affect the melt?",
        "How does {element} diffusion in {mineral} depend on {condition}?",
        "How is the {ratio} signature passed from the {setting} source to the erupted {rocks}?",
        "What is the correlation between {ratio} and {oxide} in {rocks}{mod}?",
        "How does adding {element}-rich fluid change the {ratio} of the mantle wedge?",
        "How does {mineral} saturation affect the {oxide} trend of {series} magmas?",
        "Do {rocks} with higher {oxide} also have higher {ratio}?",
        "What is the link between {ratio} and the tectonic setting of {rocks}?",
        "How does the presence of {mineral} change {element} partitioning during {process}?",
        "How do {rocks} from {location} compare with {rocks2} in {element} and {element2}?",
    ),
    "interpretable_rationale": (
        "What factors control {ratio} variations in {rocks}{mod}?",
        "What factors influence {element} partitioning into {mineral}?",
        "What are the main controls on {element} concentration in {setting} magmas?",
        "Which criteria are used to identify {process} in {rocks}?",
        "What evidence supports {process} as the origin of the {rocks} from {location}?",
        "What lines of evidence are used to infer {process} from {ratio} data?",
        "Why is {mineral} used for {system} dating?",
        "Why is {method} preferred for measuring {ratio}?",
        "Why do geochemists normalize {element} concentrations to chondrite?",
        "How can {ratio} be used to trace {process}?",
        "How do researchers distinguish {process} from {process2} using {ratio}?",
        "What is the rationale for using {ratio} as a tracer of {process}?",
        "Explain the reasoning behind applying {mineral} thermometry to {rocks}.",
        "What assumptions are made when calculating {system} isochron ages?",
        "What considerations determine the choice of {method} for {element} analysis?",
        "Which indicators are diagnostic of a {setting} origin for {rocks}?",
        "On what grounds are the {rocks} from {location} attributed to {process}?",
        "What are the key parameters that govern {element} mobility during {process}?",
        "What steps are needed to correct {method} data for isobaric interferences on {isotope}?",
        "How should a {system} age be interpreted when {mineral} has experienced {process}?",
        "What justifies using {ratio} to discriminate between {setting} and {setting2} settings?",
        "What observations support a {series} affinity for the {rocks}?",
        "How do geochemists decide whether the {rock} underwent {process}?",
        "What are the criteria for selecting {mineral} grains for {system} analysis?",
        "Which geochemical signatures are considered diagnostic of {process}?",
        "What variables determine the {ratio} of melts produced by {process}?",
        "Why is {ratio} considered a reliable indicator of {process}?",
        "What is the basis for classifying a {rock} as {series}?",
        "What controls the {element} content of {mineral} in {rocks}?",
        "Summarize the evidence for {process} beneath {location}.",
        "Outline the factors that set the closure temperature of {system} in {mineral}.",
        "What are the advantages of {method} over {method2} for {system} geochronology?",
        "What are the limitations of {method} when measuring {ratio}?",
        "How should {ratio} data be interpreted in terms of {process}?",
        "What arguments are given for {process} in {location}?",
        "Which parameters must be considered when modelling {process} with {element} partition coefficients?",
        "What features distinguish {rocks} formed by {process} from those formed by {process2}?",
        "List the factors that affect {element} isotope fractionation in {mineral}.",
        "Give the reasons why {method} is used to analyse {mineral}.",
        "How is {ratio} used to constrain the source of {rocks}?",
        "What is the methodological basis of {system} dating of {mineral}?",
        "What conditions favour {process} according to studies of {setting} settings?",
        "What criteria separate {series} from {series2} {rocks}?",
        "Which proxies are used to reconstruct {process} and why are they chosen?",
        "How do studies justify the use of {element}/{element2} as a {process} proxy?",
        "What are the accepted tests for closed-system behaviour of {system} in {mineral}?",
        "Which data quality checks are applied before interpreting {method} {ratio} results?",
    ),
    "hidden_rationale": (
        "Why do {rocks} from {location} show anomalously high {ratio}?",
        "Why does {mineral} in the {rock} record a {ratio} unlike its host?",
        "What could explain the decoupling of {ratio} and {ratio2} in the {rocks}?",
        "How come {mineral} preserves older {system} ages than the {rock} that contains it?",
        "What underlying mechanism drives {element} isotope fractionation under {condition}?",
        "What might account for the unexpected {element} enrichment in {setting} {rocks}?",
        "Why would {process} produce a {ratio} signature opposite to what models predict?",
        "If {mineral} were absent from the source, why would the {ratio} of the melt change?",
        "Is it possible that {process} rather than {process2} caused the {element} anomaly, and why?",
        "Why might the {system} and {system2} ages of the {rock} disagree?",
        "What hidden process could reset the {system} system of {mineral} without visible alteration?",
        "Why do certain isotopes of {element} fractionate under {condition}?",
        "What mechanism might link {process} to the odd {ratio} values at {location}?",
        "Why is the {ratio} of the {rocks} so heterogeneous at the sample scale?",
        "What would cause {mineral} to take up more {element} than predicted?",
        "Why does the {element} content of the {rocks} not follow the expected {process} trend?",
        "How could a {setting} source produce {rocks} with {setting2}-like {ratio}?",
        "What is the underlying reason for the puzzling {ratio} of the {series} {rocks}?",
        "Why might {ratio} fail to record {process} in {rocks}?",
        "Could {process} be responsible for the scatter in {ratio}, and if so how?",
        "What explains the mismatch between the {ratio} and {oxide} trends of the {rocks}?",
        "Why would {mineral} zoning in the {rock} be reversed?",
        "Why do some {rock} samples fall off the {system} isochron?",
        "What deeper cause lies behind the {element} depletion of {setting} {rocks} despite {process}?",
        "Why are the {ratio} values at {location} decoupled from the regional trend?",
        "What might be the cause of the {ratio} excess in {mineral}?",
        "Why does {element} become incompatible in {mineral} under {condition} when it is normally compatible?",
        "How can the {ratio} of the {rocks} be reconciled with an origin by {process}?",
        "What speculative mechanisms could produce {element} isotope anomalies in {rocks}?",
        "Why would two {rocks} from {location} with the same {oxide} have different {ratio}?",
        "What hidden factor causes the {ratio} shift after {process}?",
        "Why might {method} {system} ages of {mineral} be systematically too young?",
        "Why is {element} isotope fractionation larger under {condition} than theory expects?",
        "What would happen to the {ratio} if {process} took place at greater depth, and why?",
        "Why did {process} apparently leave no trace in the {ratio} of the {rocks}?",
        "What hypothesis best explains the {element} anomaly of the {rocks} at {location}?",
        "Why do {mineral} inclusions carry a {ratio} different from their {mineral2} host?",
        "Why would {process} generate {element}-rich melts in a {setting} setting at all?",
        "What accounts for the absence of {mineral} in {rocks} that should be saturated in it?",
        "Why does the {system} age distribution of {minerals} from {location} have two peaks?",
        "What unrecognized source could supply the extra {element} in the {rocks}?",
        "Why are {mineral} and whole-rock {ratio} out of equilibrium?",
        "Why should {rocks} erupted in a {setting} setting carry a {setting2} {ratio} fingerprint?",
        "How is it that {element} stays immobile during {process} in some {rocks} but not in others?",
        "What could make the {ratio} of {minerals} vary more than that of the whole rock?",
        "Why might {isotope} be in excess in young {rocks} from {location}?",
        "What is behind the inverse relation between {ratio} and {oxide} that models do not predict?",
    ),
}
# fmt: on


class JsonLLM(Protocol):
    """The part of ``geo_rag_runtime.llm.LLMClient`` this module needs (a fake works in tests)."""

    @property
    def name(self) -> str: ...

    def complete_json(
        self, system: str, user: str, *, json_schema: dict[str, Any], max_tokens: int = 1024
    ) -> dict[str, Any]: ...


_NGRAMS = HashingVectorizer(ngram_range=(1, 3), n_features=1 << 20, alternate_sign=False, norm="l2")
_SLOT = re.compile(r"\{([a-z]+)(2?)\}")
_PUNCT = re.compile(r"[^\w\s]+", re.UNICODE)
_SPACES = re.compile(r"\s+")
_DOUBLE_THE = re.compile(r"\b(the) the\b", re.IGNORECASE)  # "in the {location}" with "the Andes"


def plural(noun: str) -> str:
    """English plural good enough for rock and mineral names ("gneiss" → "gneisses", "MORB" → "MORBs")."""
    if not noun:
        return noun
    if noun.isupper():
        return noun + "s"
    if noun.endswith(("s", "x", "sh", "ch", "z")):
        return noun + "es"
    if noun.endswith("y") and len(noun) > 1 and noun[-2] not in "aeiou":
        return noun[:-1] + "ies"
    return noun + "s"


def normalize_query(text: str) -> str:
    """Lower case, punctuation removed, spaces collapsed: the key for exact de-duplication."""
    return _SPACES.sub(" ", _PUNCT.sub(" ", text.lower())).strip()


def prepare_entities(entities: Mapping[str, Sequence[str]]) -> dict[str, list[str]]:
    """Clean, de-duplicate and sort the entities per type, topping up thin types from the defaults.

    Sorting makes the output depend on the *set* of entities, not on the order a graph query
    returned them in; overly long names (extraction noise) are dropped.
    """
    prepared: dict[str, list[str]] = {}
    for etype in sorted(set(DEFAULT_ENTITIES) | set(entities)):
        seen: dict[str, str] = {}
        for raw in entities.get(etype, ()):
            name = _SPACES.sub(" ", str(raw)).strip()
            if 1 <= len(name) <= 60 and "{" not in name and "}" not in name:
                seen.setdefault(name.casefold(), name)
        values = sorted(seen.values())
        if len(values) < MIN_ENTITIES_PER_TYPE:
            for name in DEFAULT_ENTITIES.get(etype, ()):
                seen.setdefault(name.casefold(), name)
            values = sorted(seen.values())
        if values:
            prepared[etype] = values
    return prepared


def _fill(template: str, entities: Mapping[str, Sequence[str]], rng: random.Random) -> str:
    """Fill a template's slots; a slot ending in 2 takes a value different from its base slot."""
    template = template.replace("{mod}", rng.choice(_MODIFIERS))
    chosen: dict[str, str] = {}

    def pick(match: re.Match[str]) -> str:
        slot, second = match.group(1), match.group(2)
        if slot == "condition":
            pool: Sequence[str] = _CONDITIONS
        elif slot == "sample":
            return f"{rng.choice('ABCDGHKMNRSTZ')}{rng.choice('ABKLMRSTW')}-{rng.randint(1, 240)}"
        elif slot in _SLOT_TYPES:
            pool = entities[_SLOT_TYPES[slot]]
        else:
            raise KeyError(f"unknown template slot {{{slot}}}")
        base = _SLOT_TYPES.get(slot, slot)
        value = rng.choice(pool)
        if second:
            for _ in range(10):
                if value != chosen.get(base):
                    break
                value = rng.choice(pool)
        else:
            chosen[base] = value
        return plural(value) if slot in _PLURAL_SLOTS else value

    return _DOUBLE_THE.sub(r"\1", _SLOT.sub(pick, template))


def _add_noise(text: str, entities: Mapping[str, Sequence[str]], rng: random.Random) -> str:
    """Label-neutral surface noise: filler prefixes/suffixes, casing, punctuation, spacing."""
    if rng.random() < 0.12:
        prefix = _fill(rng.choice(_PREFIXES), entities, rng)
        first = text.split(" ", 1)[0]
        # "What is..." becomes "..., what is..."; acronyms and formulas ("MORB", "87Sr/86Sr") keep case
        text = prefix + (text[0].lower() + text[1:] if first[1:].islower() else text)
    if rng.random() < 0.06:
        text = text + rng.choice(_SUFFIXES)
    roll = rng.random()
    if roll < 0.10:
        text = text.lower()
    elif roll < 0.14:
        text = text[0].lower() + text[1:]
    roll = rng.random()
    if roll < 0.12:
        text = text.rstrip("?.")
    elif roll < 0.15 and text.endswith("?"):
        text = text[:-1] + " ??"
    if rng.random() < 0.04:
        text = text.replace(" ", "  ", 1)
    return text


def _template_candidates(
    label: str, count: int, entities: Mapping[str, Sequence[str]], rng: random.Random
) -> list[dict[str, str]]:
    """``count`` candidates cycling through the label's templates, so every template contributes."""
    templates = TEMPLATES[label]
    rows = []
    for i in range(count):
        index = i % len(templates)
        text = _add_noise(_fill(templates[index], entities, rng), entities, rng)
        rows.append(
            {
                "query": text,
                "label": label,
                "generator": TEMPLATE_GENERATOR,
                "template": f"{label}:{index:02d}",
            }
        )
    return rows


_TYPE_DEFINITIONS = {
    "explicit_fact": "asks for one fact: a value, name, list, date or definition stated in a paper",
    "implicit_reasoning": "asks how two or more things are related: effects, correlations, comparisons; "
    "needs connecting facts across passages (multi-hop)",
    "interpretable_rationale": "asks for the factors, criteria, evidence, assumptions or methodological "
    "reasons that the literature lays out explicitly",
    "hidden_rationale": "asks why something observed happens when no paper states it directly: anomalies, "
    "mechanisms, hypotheticals; needs inference across sources",
}


def _llm_schema() -> dict[str, Any]:
    return {
        "type": "object",
        "properties": {
            "queries": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {
                        "query": {"type": "string"},
                        "label": {"type": "string", "enum": list(QUERY_TYPES)},
                    },
                    "required": ["query", "label"],
                },
            }
        },
        "required": ["queries"],
    }


def _llm_candidates(
    llm: JsonLLM,
    entities: Mapping[str, Sequence[str]],
    rng: random.Random,
    per_type: int,
    batch_size: int,
    stats: dict[str, Any],
) -> list[dict[str, str]]:
    """Ask the LLM for questions of each type; keep rows whose label is the requested one."""
    system = (
        "You write realistic questions that geochemists ask a literature assistant about rock, "
        "mineral and isotope geochemistry. Answer with JSON only."
    )
    definitions = "\n".join(f"- {name}: {text}" for name, text in _TYPE_DEFINITIONS.items())
    rows: list[dict[str, str]] = []
    for label in QUERY_TYPES:
        produced = 0
        for batch in range(max(1, -(-per_type // batch_size))):
            sample = {t: rng.sample(list(v), min(6, len(v))) for t, v in sorted(entities.items())}
            user = (
                f"Query types:\n{definitions}\n\nWrite {batch_size} different questions of type "
                f"'{label}' (batch {batch + 1}). Vary the question words, length and wording; do not "
                "start them all the same way. Use some of these entities: "
                f"{json.dumps(sample, ensure_ascii=False)}.\n"
                'Return {"queries": [{"query": "...", "label": "' + label + '"}, ...]}.'
            )
            try:
                payload = llm.complete_json(
                    system, user, json_schema=_llm_schema(), max_tokens=80 * batch_size + 200
                )
            except GeoRagError as exc:  # a failing endpoint degrades to templates, visibly
                stats["llm_errors"].append(f"{label} batch {batch + 1}: {exc}")
                continue
            items = payload.get("queries") if isinstance(payload, dict) else None
            for item in items if isinstance(items, list) else []:
                if not isinstance(item, dict):
                    stats["llm_rejected"] += 1
                    continue
                query = _SPACES.sub(" ", str(item.get("query") or "")).strip()
                if item.get("label") != label or not 8 <= len(query) <= 300:
                    stats["llm_rejected"] += 1
                    continue
                rows.append({"query": query, "label": label, "generator": llm.name, "template": "llm"})
                produced += 1
            if produced >= per_type:
                break
    return rows


def _exact_dedup(rows: list[dict[str, str]]) -> list[dict[str, str]]:
    """Keep the first row per normalized text; drop texts that were generated with two labels."""
    labels: dict[str, set[str]] = {}
    for row in rows:
        labels.setdefault(normalize_query(row["query"]), set()).add(row["label"])
    kept, seen = [], set()
    for row in rows:
        key = normalize_query(row["query"])
        if not key or key in seen or len(labels[key]) > 1:
            continue
        seen.add(key)
        kept.append(row)
    return kept


def near_duplicate_mask(texts: Sequence[str], threshold: float = NEAR_DUPLICATE_COSINE) -> np.ndarray:
    """Greedy filter in input order: False for a text whose n-gram cosine to a kept one exceeds threshold.

    Vectors are hashed word 1–3-gram counts (no IDF), so the similarity of two texts does not depend
    on the rest of the corpus: filtering the filter's output again removes nothing.
    """
    keep = np.ones(len(texts), dtype=bool)
    if len(texts) < 2:
        return keep
    matrix = _NGRAMS.transform(texts).tocsr()
    block = 512
    for start in range(0, len(texts), block):
        stop = min(start + block, len(texts))
        sims = (matrix[start:stop] @ matrix[:stop].T).toarray()
        for offset in range(stop - start):
            i = start + offset
            earlier = sims[offset, :i]
            if earlier.size and np.any(earlier[keep[:i]] > threshold):
                keep[i] = False
    return keep


def generate_synthetic_queries(
    entities: Mapping[str, Sequence[str]],
    n_per_type: int = 600,
    seed: int = 13,
    llm: JsonLLM | None = None,
    *,
    llm_per_type: int = 100,
    llm_batch_size: int = 25,
) -> pd.DataFrame:
    """A balanced, de-duplicated, shuffled set of labelled questions (``n_per_type`` per type).

    Columns: query, label, generator (``template-v1`` or the LLM's model name), template (template id
    such as ``hidden_rationale:07``, or ``llm``) — the template id lets training cross-validate by
    template, which measures generalisation to unseen phrasings rather than to unseen entities.
    LLM rows (when ``llm`` is given) take precedence over template rows of the same label.
    ``df.attrs["generation"]`` holds counts of what was generated, dropped and rejected.
    """
    if n_per_type < 1:
        raise ValueError("n_per_type must be positive")
    pool = prepare_entities(entities)
    rng = random.Random(seed)
    stats: dict[str, Any] = {"llm_errors": [], "llm_rejected": 0}
    llm_rows = _llm_candidates(llm, pool, rng, llm_per_type, llm_batch_size, stats) if llm is not None else []
    for oversample in (3, 6, 12):
        template_rows: list[dict[str, str]] = []
        for label in QUERY_TYPES:
            template_rows.extend(
                _template_candidates(label, n_per_type * oversample, pool, random.Random(f"{seed}:{label}"))
            )
        candidates = _exact_dedup(llm_rows + template_rows)
        keep = near_duplicate_mask([row["query"] for row in candidates])
        survivors = [row for row, ok in zip(candidates, keep, strict=True) if ok]
        by_label: dict[str, list[dict[str, str]]] = {label: [] for label in QUERY_TYPES}
        for row in survivors:
            if len(by_label[row["label"]]) < n_per_type:
                by_label[row["label"]].append(row)
        if all(len(rows) == n_per_type for rows in by_label.values()):
            break
    else:
        short = {label: len(rows) for label, rows in by_label.items()}
        raise ValueError(f"could not generate {n_per_type} distinct questions per type: {short}")
    frame = pd.DataFrame([row for label in QUERY_TYPES for row in by_label[label]], columns=list(COLUMNS))
    frame = frame.sample(frac=1.0, random_state=seed).reset_index(drop=True)
    frame.attrs["generation"] = {
        "candidates": len(llm_rows) + len(template_rows),
        "after_exact_dedup": len(candidates),
        "after_near_dedup": len(survivors),
        "oversample": oversample,
        "llm_rows_kept": int((frame["generator"] != TEMPLATE_GENERATOR).sum()),
        "llm_rejected": stats["llm_rejected"],
        "llm_errors": stats["llm_errors"],
        "near_duplicate_cosine": NEAR_DUPLICATE_COSINE,
    }
    return frame


def dataset_version(df: pd.DataFrame) -> str:
    """Content hash of the dataset (rows in order, all columns): the asset's data version."""
    payload = df.loc[:, [c for c in COLUMNS if c in df.columns]].to_csv(index=False, lineterminator="\n")
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()[:16]


def _atomic_write(path: Path, write: Any) -> None:
    """Write through a temporary file in the same folder, so readers never see half a file."""
    handle, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    os.close(handle)
    try:
        write(tmp)
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


def write_query_dataset(df: pd.DataFrame, out_dir: str | Path) -> dict[str, Path]:
    """Write the dataset as CSV and parquet plus a JSON manifest (version, counts); return the paths."""
    missing = {"query", "label"} - set(df.columns)
    if missing:
        raise ValueError(f"query dataset lacks columns {sorted(missing)}")
    bad = sorted(set(df["label"]) - set(QUERY_TYPES))
    if bad:
        raise ValueError(f"unknown labels in query dataset: {bad}")
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    paths = {
        "csv": out / "synthetic_queries.csv",
        "parquet": out / "synthetic_queries.parquet",
        "manifest": out / "synthetic_queries.json",
    }
    version = dataset_version(df)
    _atomic_write(paths["csv"], lambda tmp: df.to_csv(tmp, index=False, lineterminator="\n"))
    _atomic_write(paths["parquet"], lambda tmp: df.to_parquet(tmp, index=False))
    manifest = {
        "version": version,
        "rows": len(df),
        "labels": {label: int((df["label"] == label).sum()) for label in QUERY_TYPES},
        "generators": {str(k): int(v) for k, v in df["generator"].value_counts().sort_index().items()}
        if "generator" in df.columns
        else {},
        "generation": df.attrs.get("generation", {}),
    }
    text = json.dumps(manifest, indent=2, ensure_ascii=False)
    _atomic_write(paths["manifest"], lambda tmp: Path(tmp).write_text(text, encoding="utf-8"))
    return paths


def read_query_dataset(path: str | Path) -> pd.DataFrame:
    """Read a dataset written by ``write_query_dataset`` (CSV or parquet) or a query,label CSV."""
    path = Path(path)
    frame = pd.read_parquet(path) if path.suffix == ".parquet" else pd.read_csv(path)
    missing = {"query", "label"} - set(frame.columns)
    if missing:
        raise ValueError(f"{path}: missing columns {sorted(missing)}")
    bad = sorted(set(frame["label"]) - set(QUERY_TYPES))
    if bad:
        raise ValueError(f"{path}: unknown labels {bad}")
    return frame


SEED_QUERIES_PATH = Path(__file__).resolve().parent / "data" / "seed_queries.csv"


def load_seed_queries(path: str | Path | None = None) -> pd.DataFrame:
    """The hand-written test split (geo_assets/queries/data/seed_queries.csv): never used for training."""
    return read_query_dataset(path or SEED_QUERIES_PATH)
