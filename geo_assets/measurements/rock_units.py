"""Which named rock unit a value in running text describes, where the sentence says it.

Papers report many values for a whole unit rather than for one sample: "The mafic rocks from the
Ulgey bimodal volcanic suite have SiO2 contents of 52.94–57.28 wt.%", "The youngest zircon ages
(391 Ma) in the Mukhar Formation …", "ca. 306 Ma for the Nisa-Albuquerque pluton". GEOROC keeps
such a value with its geological unit; without it the value is a number about nothing. This module
reads the mentions of named units and gives each value the one before it in the sentence (or one
that follows it directly: "306 Ma for the … pluton"), as :mod:`geo_assets.measurements.samples` does
for sample names.

A unit mention is a proper name (capitalised words, with "de", "del", "la" … between, hyphenated
parts allowed) followed by a unit word: lithostratigraphic (Formation, Group, Supergroup, Member,
Suite, Complex) or an intrusive or volcanic body (Pluton, Batholith, Intrusion, Stock, Massif, Dyke, Sill,
Volcano, Province), or a rock name printed after a place name ("the Perelle diorite", "Hawaiian
basalts"), or a mineral after one (a named material, often a reference material: "Durango
apatite", "Fish Canyon sanidine"); and the rocks of a tectonic setting ("mid-ocean ridge basalts",
"island arc lavas": GEOROC divides its data by setting), and the rocks of a named region, when the
sentence names them ("mafic rocks of the Central Iberian Zone": GEOROC keys its data by location).
Lowercase unit words count too ("Mukhar formation") unless the word names a process ("orocline
formation"). The rocks the subject names before it are kept with it ("mafic rocks from
the Ulgey bimodal volcanic suite"), so mafic and felsic rocks of one suite stay apart.

Not units: a name made only of ages and positions ("Middle Permian dykes"), a statistical
"Group 1", an all-capital acronym ("OIB basalts"), words at a sentence's start ("The formation").
Kept as printed (whitespace made single). Why rules and not a tagger: as for sample names, no
labelled corpus of unit names exists; the rules are scored on the project's gold sets
(scripts/score_measurements.py, "rock unit": 0.80 with samples, a development score) and were
measured blind on papers nobody tuned them for (docs/experiments.md: 0.22–0.29, the groups papers
name by region and rock over several sentences missing).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from geo_assets.measurements.rock_words import MINERALS as _MINERALS
from geo_assets.measurements.rock_words import ROCKS as _ROCKS
from geo_assets.measurements.samples import samples_for_values

__all__ = ["UnitMention", "continues", "unit_mentions", "units_for_values"]

# orogenies name no place a mineral comes from ("Variscan zircon")
_OROGENIES = {
    "Variscan", "Hercynian", "Caledonian", "Grenvillian", "Pan-African", "Alpine", "Cadomian",
    "Avalonian", "Laramide", "Andean", "Himalayan",
}  # fmt: skip
# words between a name and its unit word: "Ulgey bimodal volcanic suite", "Penggongmiao granite
# batholith", "Alentejo-Plasencia mafic dyke"
_BETWEEN = (
    rf"(?:{_ROCKS}|bimodal|volcanic|plutonic|intrusive|igneous|mafic|felsic|ultramafic|alkaline|"
    r"calc-alkaline|peralkaline|layered|granitic|basaltic|gabbroic|sedimentary|metamorphic|"
    r"metasedimentary|volcaniclastic|ophiolitic|magmatic|dyke|dike|quartz|biotite|muscovite|hornblende|"
    r"two-mica|garnet|cordierite|tourmaline|alkali|alkali-feldspar|K-feldspar|porphyritic|leucocratic|"
    r"olivine|pyroxene|plagioclase|composite)"
)
# the unit word, capitalised or not (lowercase Group/Member/Series are too often ordinary words)
_UNIT_WORD = (
    r"(?:Formation|formation|Fm\.|Group|Supergroup|Subgroup|Member|Suite|suite|Complex|complex|"
    r"Pluton|pluton|Batholith|batholith|Intrusion|intrusion|Stock|stock|massif|"
    r"(?<=[Ii]gneous\s)Province|(?<=[Mm]agmatic\s)Province|(?<=[Vv]olcanic\s)Province|"
    r"Volcano|volcano|Sill|sill|(?:Dyke|dyke|Dike|dike)(?:s|\s+[Ss]warm)?)"
)
_NAME_WORD = r"[A-Z][A-Za-z'’‘\u0300-\u036f\u00c0-\u024f]*[a-z\u00df-\u024f][A-Za-z'’‘\u00c0-\u024f]*"
_CONNECTOR = r"(?:de|del|da|do|dos|das|di|la|las|los|le|von|van|der)"
_NAME = rf"{_NAME_WORD}(?:-{_NAME_WORD})*(?:\s+(?:{_CONNECTOR}\s+)?{_NAME_WORD}(?:-{_NAME_WORD})*){{0,4}}"
# rocks named as a process, not a body of rock: "Variscan granitoid magmatism", "Deccan basalt volcanism"
_PROCESS_AFTER = r"(?!\s+(?:magmatism|volcanism|plutonism|activity|emplacement|genesis|petrogenesis)\b)"
_UNIT = re.compile(
    rf"(?<![\w-])(?P<name>{_NAME})(?:\s+{_BETWEEN}){{0,2}}\s+(?:{_UNIT_WORD}(?:\s+\d+\b)?"
    rf"|(?P<rock>{_ROCKS}|(?P<mineral>{_MINERALS}))){_PROCESS_AFTER}(?![\w-])"
)
# rocks the subject names before the unit: "the mafic rocks from the", "rhyolites collected from
# the", "basaltic samples of", "gabbros and diorites of the"
_ROCK_NOUN = rf"(?:rocks?|samples?|lavas?|flows?|sediments?|deposits?|clasts?|xenoliths?|units?|{_ROCKS})"
_FUNCTION = r"(?:of|and|or|the|in|from|for|with|to|an?|on|at|by|as|that|which|are|is|were|was|its|their|our)"
# what joins rocks to their unit: "from", "of", "collected from", "sampled in"
_OF = r"(?:(?:collected|sampled|exposed|analy[sz]ed|dated|found)\s+)?(?:from|of|in|within)"
_SUBJECT = re.compile(
    rf"(?:(?<![\w-])(?!{_FUNCTION}\s)[a-z][\w-]*\s+){{0,2}}(?:{_ROCK_NOUN}\s+(?:and|or)\s+)?"
    rf"(?<![\w-]){_ROCK_NOUN}\s+{_OF}\s+(?:the\s+)?$",
    re.I,
)
# the rocks of a named region, named before it: "mafic rocks of the Central Iberian Zone", "detrital
# zircons from the South Kitakami forearc basin", "volcanic rocks in the northern Arabian-Nubian
# Shield", or by its acronym ("granulite xenoliths from the CIZ"; not "analysed samples from the
# USGS") (GEOROC keys its data by location). A region alone is no unit ("the Iberian Massif"), nor
# are bare "rocks of" or "samples from" it: the rocks must be named ("mafic rocks", "strata")
_REGION_WORD = (
    r"(?:Zone|Belt|belt|Shield|Basin|basin|Uplift|Terrane|terrane|Craton|craton|Block|Orogen|Orocline|"
    r"Range|Mountains|Domain|Massif|Platform|Rift|Islands?|Ridge|Plateau|Arc)"
)
_REGION_KIND = (
    r"(?:forearc|fore-arc|back-arc|foreland|intracratonic|rift|sedimentary|volcanic|magmatic|mobile|"
    r"fold|fold-and-thrust|orogenic|accretionary)"
)
# words that describe rocks ("mafic", "detrital", "igneous", "alkaline", "sedimentary", "deformed"),
# not verbs or prepositions before them ("include", "unlike")
_DESCRIBING = r"[A-Za-z][a-z-]*(?:ic|al|ous|ine|ary|ed|ar|ite|ian|ant|ent)"
_GROUP_NOUN = rf"(?:{_ROCK_NOUN}|strata|zircons?|rocks?|intrusions?|plutons?|granitoids?|volcanics)"
_REGION = re.compile(
    rf"(?<![\w-])(?:(?i:{_GROUP_NOUN})\s+(?:and|or)\s+)?(?:{_DESCRIBING}\s+){{1,2}}"
    rf"(?:{_GROUP_NOUN}\s+(?:and|or)\s+)?{_GROUP_NOUN}"
    rf"\s+{_OF}\s+the\s+(?:(?:northern|southern|eastern|western|central|outer|inner)\s+)?"
    rf"(?:(?P<name>{_NAME})(?:\s+{_REGION_KIND}){{0,2}}\s+{_REGION_WORD}|(?P<acronym>[A-Z]{{2,6}}))(?![\w-])"
)
# a word before the rocks that is no part of the unit's phrase ("the mafic rocks …" → "mafic rocks …")
_ARTICLE = re.compile(r"(?:the|these|those|all|most|our)\s+", re.I)
# the rocks of a tectonic setting, GEOROC's own division of its data: "mid-ocean ridge basalts",
# "ocean island basalts", "island arc lavas" (lowercase, no proper name; acronyms such as MORB are
# left alone, as a unit's are)
_SETTING = re.compile(
    r"(?<![\w-])(?:mid-ocean[\s-]+ridge|ocean[\s-]+island|(?:island|continental|oceanic)[\s-]+arc|back-arc(?:[\s-]+basin)?|"
    r"continental[\s-]+flood|oceanic[\s-]+plateau|intraplate)\s+(?:basalts?|lavas?|magmas?|andesites?|volcanic\s+rocks)"
    r"(?![\w-])",
    re.I,
)
# rocks printed after the unit: "Walongshan Formation limestones", "Karaj Formation lava flows"
_AFTER = re.compile(rf"^\s+(?:lava\s+flows|{_ROCK_NOUN})(?![\w-])")
# words that name no place: ages and positions (kept when a name follows: "Lower Cambrian Tamames
# Formation") and sentence openers (dropped: "The Mukhar Formation" is the "Mukhar Formation")
_AGES = {
    "Archean", "Archaean", "Proterozoic", "Paleoproterozoic", "Mesoproterozoic", "Neoproterozoic",
    "Phanerozoic", "Paleozoic", "Palaeozoic", "Mesozoic", "Cenozoic", "Cambrian", "Ordovician",
    "Silurian", "Devonian", "Carboniferous", "Mississippian", "Pennsylvanian", "Permian", "Triassic",
    "Jurassic", "Cretaceous", "Paleogene", "Neogene", "Paleocene", "Eocene", "Oligocene", "Miocene",
    "Pliocene", "Pleistocene", "Holocene", "Quaternary", "Tertiary", "Precambrian", "Hadean",
    "Ediacaran", "Cryogenian", "Tonian", "Stenian", "Ectasian", "Calymmian", "Statherian", "Orosirian",
    "Rhyacian", "Siderian", "Permo", "Sturtian", "Marinoan", "Eoarchean", "Paleoarchean",
    "Mesoarchean", "Neoarchean", "Palaeoproterozoic", "Palaeogene",
    "Early", "Late", "Middle", "Lower", "Upper", "Northern", "Southern", "Eastern", "Western",
    "Central", "North", "South", "East", "West", "Older", "Younger", "Main", "High", "Low",
}  # fmt: skip
_OPENERS = {
    "The", "This", "These", "That", "Those", "Most", "All", "Some", "Both", "Our", "Its", "Their",
    "Each", "Such", "Other", "Several", "Many", "In", "At", "For", "Of", "From", "With", "By", "On",
    "An", "As", "If", "When", "Where", "While", "Although", "However", "Thus", "Here", "We", "Two",
    "Three", "Four", "Five", "Statistical", "Table", "Figure", "Fig", "Supplementary", "Ma", "Ga",
    "Since", "Because", "Whereas", "Unlike", "Like", "Only", "Then", "Hence", "Therefore", "Moreover",
    "Also", "Note", "Using", "Assuming", "Given",
}  # fmt: skip
# minerals and rock descriptions printed capitalised in a table's header ("Biotite Hornblende
# Riebeckite granites"): no names
_DESCRIPTIONS = {
    "Biotite", "Muscovite", "Hornblende", "Riebeckite", "Quartz", "Garnet", "Cordierite", "Tourmaline",
    "Olivine", "Pyroxene", "Clinopyroxene", "Orthopyroxene", "Plagioclase", "Feldspar", "Alkali",
    "Amphibole", "Zircon", "Apatite", "Mica", "Porphyritic", "Leucocratic", "Granitic", "Mafic", "Felsic",
    "Ultramafic", "Volcanic", "Plutonic", "Intrusive", "Fresh", "Altered", "Mineralized", "Mineralised",
    "Barren", "Average", "Mean", "Typical", "Sample", "Samples",
}  # fmt: skip
# a unit the sentence sets apart from what its values are about: "With the exception of the X
# Formation, each of these units …", "values similar to those of the Y granite", "the source area
# of the Z Formation", "Sample JR1, located nearest to the W serpentinite" (looked for after the
# last comma, brackets aside)
_SET_APART = re.compile(
    r"\b(?:exception\s+of|except(?:\s+for)?|unlike|similar\s+to|compared\s+(?:to|with)|other\s+than|"
    r"in\s+contrast\s+to|source\s+(?:area|region|rocks?)\s+(?:of|for)|provenance(?:\s+area)?\s+(?:of|for)|"
    r"(?:near(?:est)?|close|closest|adjacent|next)\s+to)\b",
    re.I,
)
# a comparison, only right before the unit: "indistinguishable from the mafic rocks of the W suite",
# "higher than the V pluton" (not "younger than the inferred 500 Ma age of the U Formation")
_COMPARED = re.compile(
    r"\b(?:(?:indistinguishable|different|distinct|deviates?|differs?)\s+(?:\w+\s+){0,4}from|"
    r"(?:higher|lower|greater|less|younger|older)\s+than)\b"
    r"[^\d]*$",
    re.I,
)


def _set_apart(sentence: str, start: int) -> bool:
    """Whether the clause before ``start`` (after its last comma or semicolon, brackets aside) sets
    what follows apart from the sentence's values ("with the exception of", "similar to")."""
    clause = re.sub(r"\([^()]*\)", "", sentence[:start]).rsplit(",", 1)[-1].rsplit(";", 1)[-1]
    return _SET_APART.search(clause) is not None or _COMPARED.search(clause) is not None


# a lowercase "formation" after these is an event: "orocline formation", "crust formation"
_PROCESS = re.compile(
    r"(?:orocline|orogen|crust|basin|arc|rift|ocean|plateau|mountains?|continent|supercontinent|soil|ore|"
    r"deposit|cloud|planet|star|disk|core|mineral|crystal|melt|magma|island|belt)\s+$",
    re.I,
)


@dataclass(frozen=True)
class UnitMention:
    """A named unit as the sentence prints it, with the rocks it names ("mafic rocks from the Ulgey
    bimodal volcanic suite"), and its span in the sentence. ``names`` holds the one phrase, shaped as
    :class:`~geo_assets.measurements.samples.SampleMention` so the same value-to-mention rule serves both."""

    names: tuple[str, ...]
    start: int
    end: int


def unit_mentions(sentence: str) -> list[UnitMention]:
    """The named rock units a sentence prints, in text order."""
    found: list[UnitMention] = []
    for match in _UNIT.finditer(sentence):
        words = re.split(r"[\s-]+", match.group("name"))
        start = match.start("name")
        while words and words[0] in _OPENERS:  # "The Mukhar Formation": the name is "Mukhar"
            start = sentence.index(words[1], start + len(words[0])) if len(words) > 1 else start
            words = words[1:]
        unit_word = match.group(0)[match.end("name") - match.start() :].split()[-1]
        # a three-letter name only before a capitalised unit word ("Afu Complex", "Jos Plateau"), not
        # before a rock ("Bt-Crd granodiorites") or a lowercase one ("Ma bimodal volcanic suite")
        shortest = 3 if match.group("rock") is None and unit_word[:1].isupper() else 4
        if not any(
            w not in _AGES and w not in _OPENERS and w not in _DESCRIPTIONS and len(w) >= shortest
            for w in words
        ):
            continue  # "Middle Permian dykes", "Ma bimodal volcanic suite", "High-Mg", "Bt-Crd granodiorites"
        if match.group("mineral") and all(w in _OROGENIES or re.fullmatch(_DESCRIBING, w) for w in words):
            continue  # "Variscan zircon", "Albitic plagioclase": no place
        if (
            match.group("rock") is None
            and unit_word == "formation"
            and _PROCESS.search(sentence[start : match.start()] + match.group(0)[: -len("formation")])
        ):
            continue  # "Cantabrian Orocline formation": the forming of it
        if re.fullmatch(r"\d+", unit_word) and "Member" not in match.group(0):
            continue  # "Group 1", "Suite 2": a class of analyses, not a unit
        if _set_apart(sentence, start):
            continue
        end = match.end()
        after = _AFTER.match(sentence[end:])
        if after:
            end += after.end()
        subject = _SUBJECT.search(sentence[max(0, start - 80) : start])
        if subject and match.group("rock") is None:
            start = max(0, start - 80) + subject.start()
            opener = _ARTICLE.match(sentence, start)
            start = opener.end() if opener else start
        found.append(UnitMention((" ".join(sentence[start:end].split()),), start, end))
    for region in _REGION.finditer(sentence):
        named = "name" if region.group("name") else "acronym"
        if _set_apart(sentence, region.start(named)) or any(
            u.start < region.end() and region.start(named) < u.end for u in found
        ):
            continue
        if not any(w not in _AGES and w not in _OPENERS for w in region.group(named).split()):
            continue  # "the Central Zone": a position, no name
        if named == "acronym" and re.search(r"\bsamples?\s+\S+\s+the\s+\S+$", region.group(0), re.I):
            continue  # "samples from the USGS": a lab's, not a place's
        phrase = " ".join(region.group(0).split())
        opener = _ARTICLE.match(phrase)
        found.append(UnitMention((phrase[opener.end() if opener else 0 :],), region.start(), region.end()))
    for setting in _SETTING.finditer(sentence):
        if _set_apart(sentence, setting.start()) or any(
            u.start < setting.end() and setting.start() < u.end for u in found
        ):
            continue
        found.append(UnitMention((" ".join(setting.group(0).split()),), setting.start(), setting.end()))
    for other in _OTHER_ROCKS.finditer(sentence):
        before = [u for u in found if u.end <= other.start()]
        if not before or any(u.start < other.end() and other.start() < u.end for u in found):
            continue
        unit = before[-1].names[0]
        words = other.group("rocks").split()[:-1]
        variant = "" if all(w in unit.split() for w in words) else _other_rocks(unit, other.group("rocks"))
        if variant:
            found.append(UnitMention((variant,), other.start("rocks"), other.end()))
    for holder in list(found):
        held = _HOLDS.match(sentence, holder.end)
        if held is None or any(u.start < held.end() and held.start("rocks") < u.end for u in found):
            continue
        rocks = " ".join(held.group("rocks").split())
        variant = _other_rocks(holder.names[0], rocks) or f"{rocks} of the {holder.names[0]}"
        found.append(UnitMention((variant,), held.start("rocks"), held.end()))
    return sorted(found, key=lambda u: u.start)


# rocks a unit is said to hold: "the Rapitan Group contain granitic basement clasts as young as 755 Ma"
# (the clasts' age, not the group's)
_HOLDS = re.compile(
    rf"\s+(?:contains?|hosts?|includes?)\s+(?P<rocks>(?:(?!{_FUNCTION}\s)[a-z][\w-]*\s+){{0,2}}{_ROCK_NOUN})\b"
)


# a sentence that goes on about the rocks the last one named: "They have …", "These basalts …", "The
# felsic samples show …" (after "the felsic rocks from the Ulgey suite")
_ANAPHOR = re.compile(
    rf"^\W*(?:(?:They|These|Those|Their|Its|It)\b|The\s+(?P<words>(?:[a-z][\w-]*\s+){{0,2}}){_ROCK_NOUN}\b)"
)


def continues(sentence: str, unit: str, *, pronouns: bool = True) -> str:
    """The unit ``sentence`` goes on about, when the sentence before named ``unit``: ``unit`` when it
    opens with a pronoun or with "The …" rocks or samples whose words the unit's phrase has ("The
    felsic samples" after "felsic rocks from the Ulgey bimodal suite"), or names "these", "those" or "this"
    rocks anywhere ("… imply that these E-MORB-like basalts formed by …"); the same unit's other rocks
    when it opens with rocks the phrase does not name ("The felsic rocks" after "mafic rocks from the
    Ulgey bimodal suite" are "felsic rocks from the Ulgey bimodal suite"); else "". Without
    ``pronouns``, only rocks named with words of their own count ("The felsic rocks …"): how a
    sentence a few sentences on takes up a unit ("They", "these rocks" there may be anything the
    sentences between named, "The rocks" too general)."""
    match = _ANAPHOR.match(sentence) if unit else None
    if match is not None and not pronouns and not match.group("words"):
        match = None  # "They", "The rock density": not said of the unit's rocks that far on
    if match is None:
        # "these basalts", unless the sentence compares them with others ("the provenance area for")
        said = pronouns and _DEMONSTRATIVE.search(sentence) and not _SET_APART.search(sentence)
        return unit if unit and said else ""
    words = (match.group("words") or "").split()
    if all(w in unit.split() for w in words):
        return unit
    return _other_rocks(unit, match.group(0).split(None, 1)[1])


# "these E-MORB-like basalts", "those samples", "This peraluminous granite": the rocks the sentence
# before named
_DEMONSTRATIVE = re.compile(rf"\b(?:these|those|this)\s+(?:[\w‐-]+\s+){{0,2}}{_ROCK_NOUN}\b", re.I)

_OF_UNIT = re.compile(rf"\s{_OF}\s")


def _other_rocks(unit: str, rocks: str) -> str:
    """``rocks`` ("felsic samples") of the unit a phrase names with its own rocks ("mafic rocks from
    the Ulgey bimodal suite" → "felsic samples from the Ulgey bimodal suite"); "" when the phrase
    names no rocks of its own (then the rocks may be another unit's)."""
    split = _OF_UNIT.search(unit)
    return f"{' '.join(rocks.split())}{unit[split.start() :]}" if split else ""


# later in a sentence, the other rocks of the unit it named: "The mafic rocks from the Ulgey suite
# have …, and the felsic samples have …"
_OTHER_ROCKS = re.compile(rf"\bthe\s+(?P<rocks>(?:(?!{_FUNCTION}\s)[a-z][\w-]*\s+){{1,2}}{_ROCK_NOUN})\b")


# a value printed right before a rock it dates: "pierced by a ca. 590 Ma monzogranite"
_BEFORE_ROCK = re.compile(rf"^\s*(?:[a-z][\w-]*\s+){{0,2}}{_ROCKS}(?![\w-])")


def units_for_values(
    sentence: str,
    spans: Sequence[tuple[int, int]],
    units: Sequence[UnitMention],
    *,
    opener: str = "",
    compositions: Sequence[bool] = (),
) -> list[str]:
    """For each value (its span in ``sentence``): the unit it describes, or "". The rule of
    :func:`~geo_assets.measurements.samples.samples_for_values` (a value's own bracket, a unit it is
    said to be for, else the one before it), and: a value printed right before a named unit is that
    unit's ("the 28 Ma Fish Canyon Tuff"); one printed right before an unnamed rock is that rock's,
    no unit's ("a ca. 590 Ma monzogranite").

    A value before the sentence's first unit takes ``opener``, the unit the sentence goes on about
    (:func:`continues`: "They have …, unlike the X pluton"); failing that, a composition (a
    concentration, ratio, ε or δ value: ``compositions[i]``) takes the one unit the sentence names
    after it: "the low Th/Ce (0.05–0.06) indicate negligible contamination of the basalts from the
    Mukhar formation". Not an age, temperature or pressure: "At 380 Ma a thermal event heated the
    Tarn Formation" dates the event."""
    out = samples_for_values(sentence, spans, units)
    first = units[0].start if units else len(sentence)
    only = units[0].names[0] if len({u.names[0] for u in units}) == 1 else ""
    for i, (_, end) in enumerate(spans):
        adjacent = next((u for u in units if u.start >= end and not sentence[end : u.start].strip()), None)
        if adjacent is not None:
            out[i] = adjacent.names[0]
        elif _BEFORE_ROCK.match(sentence[end:]):
            out[i] = ""
        elif not out[i] and end <= first:
            out[i] = opener or (only if i < len(compositions) and compositions[i] else "")
        before = [u for u in units if u.end <= spans[i][0] and u.names[0] == out[i]]
        if before and _NEXT_SUBJECT.search(sentence[before[-1].end : spans[i][0]].rstrip(" ~≈∼<>")):
            out[i] = ""  # "the Zinnwald apogranite (200 ppm Ti) and the … tin deposit (60 ppm Ti)"
    return out


# a list of named subjects, each with its values in brackets: after "the X granite (200 ppm Ti)", "and
# the … system of the Ehrenfriedersdorf tin deposit (60 ppm Ti)" names another subject for the values
# in its bracket (a name of its own: "and the high Th/Ta (1.6)" goes on about the unit)
_NEXT_SUBJECT = re.compile(
    r"\)\s*(?:,\s*)?(?:and|or|whereas|while)?\s+the\s+[^()]*?\b[A-Z][a-z]{2,}[^()]*\($"
)
