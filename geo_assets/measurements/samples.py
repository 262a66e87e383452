"""Which sample a value in running text belongs to, where the sentence says it.

GEOROC's unit of data is the sample, so a value without one is half a datum. Papers name samples in
a few ways, and this module reads them:

* after the word *sample(s)*: "Fifteen analyses of sample 19MAT‐169 yield … 410 ± 4 Ma",
  "Samples 19MAT‐33 (sandstone), 19MAT‐193 and 19MAT‐225 yield …";
* as an identifier of letters and digits joined by a hyphen, anywhere: "… for KIL-1 and KIL-2,
  respectively", "zircon from D21G-2";
* beside the mineral it is ("Temora2 zircon", "zircon LGC1"), or with its value in brackets after it
  ("OG.1 (3440.7 ± 3.2 Ma)");
* in brackets after the rocks it is ("Red beds (GV10.11) and baked contacts (GV10.08)");
* as what parts were taken from ("Four aliquots of TDPH14 yield …", "zircons from D21G-2");
* by a capital letter after "Sample" or "Boulders" ("Sample C consists of …", "Boulders A and B");
* bare, once the paper has named it after "sample" or its tables give it as a sample
  (:func:`known_names`: "The age of LAB03 is …"), with the other members of its series ("BD03"
  named, "BD02" printed) and catalogue numbers ("10017");

and gives each value the sample mention in the bracket that follows it ("-5.9 (Braga pluton, sample
LD-18)"), else one it is said to be for ("410 Ma for KIL-1", "a 611 Ma U–Pb age for the Perelle
diorite"), else the one that precedes it in the sentence. With "respectively" and as many samples as values,
the n-th value takes the n-th sample (and the values listed right before the word take the names
printed before them, in order: "438 ± 20 for B188 and 437 ± 20 Ma for RB140 …, with MSWD values of
1.83 and 2.97, respectively"); otherwise a value after a list of samples takes the whole list
("19MAT-33; 19MAT-193; 19MAT-225"), as a reader would. Names are kept as printed, with typographic
hyphens made ASCII; :func:`normalise_names` gives the one printing a paper's forms share (FC4b /
FC-4b), stored beside the printed name as ``sample_key``.

Not samples: chemical formulas (H2O-CO2), isotope notation (206Pb-238U, 207Pb-corrected), figure and
table labels, units with a power (cm2), a count with a statistic or dimension (1-SE, 3-D), a category
and its number (Type-1, Stage-2), a count in brackets ("four samples (13 apatites)"). A reference material is a sample here (BCR-2, GJ-1): a value
measured on it is its value; :func:`reference_material` tells it from the study's own samples (the
vocabulary's ReferenceMaterial names), so a row of it can be noted as such.
Why rules and not a tagger: no labelled corpus of sample names exists for this domain; the rules are
scored on the project's gold sets (scripts/score_measurements.py, "sample right").
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Protocol

from geo_assets.measurements.rock_words import MINERALS, ROCKS
from geo_assets.measurements.text_values import ELEMENT_SYMBOLS
from geo_rag_runtime.measurements import sample_key  # one form for ingest and questions alike
from geo_rag_runtime.vocab import load_vocabulary

__all__ = [
    "Mention",
    "known_names",
    "SampleMention",
    "as_printed",
    "caption_samples",
    "label_identifier",
    "normalise_names",
    "reference_material",
    "sample_for_label",
    "sample_key",
    "sample_mentions",
    "samples_for_values",
]

_HYPHENS = "\u2010\u2011\u2012\u2013\u2212"
_H = rf"[-{_HYPHENS}]"
# an identifier: alphanumeric parts joined by hyphens, with a digit and a letter somewhere
_HYPHENATED = rf"[A-Za-z0-9]+(?:{_H}[A-Za-z0-9]+)+"
# after "sample(s)": any token with a digit ("sample 01", "sample ZG12", "sample FC4b")
_AFTER_WORD = rf"(?:{_HYPHENATED}|[A-Za-z]*\d[A-Za-z0-9]*)"
_GAP = r"(?:\s*\([^()]{0,40}\))?\s*(?:,\s*(?:and\s+|or\s+)?|\s+and\s+|\s+or\s+|\s*&\s*)"
# a name set off by commas or quoted ("The sample, NAX-3, comes …", "The sample (‘KL29’)"); not a
# count: "the samples (10 out of 20)", "samples 12 of 15", "four samples (13 apatites)"; nor a number:
# "the highest-grade sample (0.85% SnO2)"
_LIST_AFTER_WORD = re.compile(
    r"\b[Ss]amples?(?:,\s*(?=[^,]{2,24},)|\s+)(?!\(\d+\s+(?!and\b|or\b)[A-Za-z])\(?[‘'\"“]?"
    rf"(?P<names>{_AFTER_WORD}(?:{_GAP}{_AFTER_WORD})*)(?![A-Za-z0-9])"
    r"(?!\s*(?:out\s+of|of\s+\d))(?![.,·]\d|\s*%)"
)
_LIST_ANYWHERE = re.compile(rf"(?<![\w/.]){_HYPHENATED}(?:{_GAP}{_HYPHENATED})*(?![\w/])")
# a name printed beside the mineral or material it is: "Temora2 zircon", "Sri Lanka zircon LGC1",
# "91500 zircon"
_MATERIAL = r"(?:zircon|apatite|monazite|titanite|sanidine|rutile|baddeleyite|glass|standard)"
_TOKEN = r"(?:[A-Za-z]+\d(?:[A-Za-z0-9.]*[A-Za-z0-9])?|\d{5,6})"  # not a year
_BESIDE_MATERIAL = re.compile(
    rf"(?<![\w/.])(?P<names>{_TOKEN})(?=\s+{_MATERIAL}\b)|\b{_MATERIAL}\s+(?P<after>{_TOKEN})(?![\w/])"
)
# a name whose value follows it in brackets: "OG.1 (3440.7 ± 3.2 Ma, Stern et al., 2009)", "M127
# (524.36 ± 0.16 Ma)"; formulas and isotopes before a bracket ("SiO2 (45 wt.%)") are no names
_DOTTED = r"[A-Z]{1,4}\.\d[A-Za-z0-9]*"  # "OG.1", not "Fig.3" or "No.5"
_BEFORE_BRACKETED_VALUE = re.compile(rf"(?<![\w/.])(?P<names>{_DOTTED}|{_TOKEN})(?=\s*\(\s*[-−~≈<>]?\d)")
# names in brackets after the rocks they are: "Red beds (GV10.11) and baked contacts (GV10.08)", "a
# dacite (TDPH14)" (a letter first: "samples (12)" counts them; not after other words: "the second
# deformation (D2)", "foliation (S1)" name events and fabrics)
_HOLDER = (
    rf"(?:{ROCKS}|{MINERALS}|rocks?|samples?|specimens?|beds?|contacts?|boulders?|clasts?|pebbles?|cobbles?|"
    r"grains?|crystals?|cores?|lavas?|flows?|dykes?|dikes?|sills?|veins?|xenoliths?|nodules?|sediments?|"
    r"sands?|soils?|ash(?:es)?|layers?|horizons?|outcrops?|sites?)"
)
_BRACKET_NAME = rf"(?:{_HYPHENATED}|[A-Za-z]+\d(?:[A-Za-z0-9.]*[A-Za-z0-9])?)"
_BRACKETED_AFTER_ROCKS = re.compile(
    rf"(?<![\w-]){_HOLDER}\s+\((?P<names>{_BRACKET_NAME}(?:{_GAP}{_BRACKET_NAME})*)\)"
)
# samples named by a capital letter: "Sample C consists of …", "Boulders A and B both have …"
_LETTER = re.compile(r"\b[A-Z]\b")
_LETTERS_AFTER_WORD = re.compile(
    r"\b(?:[Ss]amples?|[Bb]oulders?|[Ss]pecimens?|[Cc]lasts?|[Pp]ebbles?|[Cc]obbles?)\s+"
    r"(?P<names>[A-HJ-Z](?:\s*(?:,\s*(?:and\s+)?|and|or|&)\s*[A-HJ-Z])*)(?![\w'’-]|\.\w)"
)
# names of what parts were taken from: "Four aliquots of TDPH14 yield …", "zircons from D21G-2"
_PARTS_OF = re.compile(
    rf"\b(?:aliquots?|analys[ie]s|grains?|fractions?|splits?|crystals?|{MINERALS})\s+(?:of|from)\s+"
    rf"(?P<names>{_BRACKET_NAME}(?:{_GAP}{_BRACKET_NAME})*)(?![\w/-])"
)
_NAME = re.compile(rf"{_DOTTED}|{_HYPHENATED}|[A-Za-z]*\d(?:[A-Za-z0-9.]*[A-Za-z0-9])?|\d+")
_ELEMENTS = ELEMENT_SYMBOLS
_FORMULA_TOKEN = re.compile(r"([A-Z][a-z]?)(\d*)")
_ISOTOPE_PART = re.compile(r"\d{1,3}[A-Z][a-z]?")
_LABEL_BEFORE = re.compile(r"\b(?:Fig(?:ure)?s?|Tables?|Eqs?|Equations?|Sections?|Appendix|S)\.?\s*$", re.I)
# what may stand between a value and the name it is for: "410 Ma for KIL-1", "(391 Ma) in the Mukhar
# Formation", "(469 ± 13 Ma, D'Lemos, 1987) for gabbros of the …", "a 611 Ma zircon U-Pb age for the …"
_FOLLOWING = re.compile(
    r"^\s*(?:[^()]{0,40}\)\s*|\([^()]{0,40}\)\s*)?(?:(?:[\w/–-]+\s+){0,3}(?:ages?|dates?)\s+)?(?:for|in|of|from|at)\s+(?:the\s+)?"
    r"(?:samples?\s+)?$",
    re.I,
)
# names of instruments and software, not samples: "a variety of instruments (including SHRIMP-1,
# SHRIMP-2 …)", "data reduction software (including Squid-1, Squid-2 …)", "the Neptune-Plus
# spectrometer" (only for names found without the word "sample")
_TOOLS = (
    r"(?:software|instruments?|programs?|packages?|spectrometers?|versions?|codes?|scripts?|librar(?:y|ies)|"
    r"toolbox(?:es)?|detectors?|satellites?|missions?|computers?)"
)
_TOOL_BEFORE = re.compile(
    rf"\b{_TOOLS}\s*(?:\(\s*|,\s*|:\s*)?(?:including|such as|like|e\.g\.,?|i\.e\.,?|namely|called|named)?\s*$",
    re.I,
)
_TOOL_AFTER = re.compile(rf"^\s*{_TOOLS}\b", re.I)


class Mention(Protocol):
    """Names printed together and their span: a sample list, or a rock unit (one phrase)."""

    @property
    def names(self) -> tuple[str, ...]: ...
    @property
    def start(self) -> int: ...
    @property
    def end(self) -> int: ...


@dataclass(frozen=True)
class SampleMention:
    """Sample names printed together (a list), with their span in the sentence; ``named`` when
    they follow the word "sample(s)" (the names a paper may then print bare: :func:`known_names`)."""

    names: tuple[str, ...]
    start: int
    end: int
    named: bool = False


def as_printed(name: str) -> str:
    """A sample name as stored: as printed, typographic hyphens made ASCII (LD‐1 → LD-1)."""
    return re.sub(f"[{_HYPHENS}]", "-", name.strip())


# parts of a hyphenated token that make it a compound word or a quantity, not a name: a lowercase
# word ("16-sample", "64-bit", "3-dimensional", a word broken at the line end and a line number,
# "influ-34") or a unit ("10-km", "Ma-20")
_WORD_PART = re.compile(r"[a-z]{2,}")
_SYMBOL_NUMBER = re.compile(r"[A-Z][a-z]?\d{1,3}[a-z]?")
_UNIT_PART = re.compile(r"(?:[kMG]a|[kMG]?yrs?|[kMG]y|[kcmμµn]?m|Hz|wt|ppm|ppb)")
# a unit raised to a power, its exponent flattened: "342 ± 23 a cm2 (1s)"
_UNIT_POWER = re.compile(r"[kcmμµn]?m[23]")
# a count and a statistic or a dimension: "the 1-SE rule", "2-SD", "a 3-D model"
_COUNTED = re.compile(r"\d(?:D|SE|SD|SEM)")
# a category and its number, not a thing measured: "a Type-1 error", "Stage-2", "TableII-1-8"
_CATEGORY = re.compile(
    r"(?:Type|Stage|Phase|Group|Zone|Event|Episode|Model|Case|Scenario|Step|Level|Class|Domain|Generation|"
    r"Population|Component|Cluster|Table|Fig|Figure|Eq|Equation)[IVX]*",
)


def _is_sample_name(name: str, *, after_word: bool) -> bool:
    if not any(c.isdigit() for c in name) or not any(c.isalpha() for c in name) and not after_word:
        return False
    parts = re.split(_H, name)
    if (
        _UNIT_POWER.fullmatch(name)
        or (len(parts) == 2 and _COUNTED.fullmatch("".join(parts)))
        or _CATEGORY.fullmatch(parts[0])
    ):
        return False  # "cm2", "1-SE", "Type-1"
    if len(parts) > 1 and any(
        _UNIT_PART.fullmatch(p) or not after_word and _WORD_PART.fullmatch(p) for p in parts
    ):
        return False
    if not after_word and not any(c.isupper() for c in name):
        return False  # "2n-3", "1547-grain": a name found anywhere has a capital ("KIL-1", "19MAT-169")
    if after_word and _SYMBOL_NUMBER.fullmatch(name):
        return True  # "samples N1 and N2": after the word, one symbol and a number is a name
    if all(_is_formula(p) or p.isdigit() for p in parts) and any(
        _is_formula(p) and any(c.isdigit() for c in p) and (not after_word or _OXIDIC.search(p))
        for p in parts
    ):
        # H2O-CO2, Al2O3-Fe2O3; after the word "sample" only an oxide is ("sample OK16" is a name)
        return False
    return not _ISOTOPE_PART.fullmatch(parts[0])  # 206Pb-238U, 207Pb-corrected


def _is_formula(part: str) -> bool:
    """A chemical formula of element symbols and small counts (H2O, CO2, Al2O3), not KIL, MAT or HUI47."""
    tokens = _FORMULA_TOKEN.findall(part)
    return (
        bool(tokens)
        and "".join(a + b for a, b in tokens) == part
        and all(a in _ELEMENTS and (not n or int(n) <= 20) for a, n in tokens)  # HUI47-B is a name
    )


_OXIDIC = re.compile(r"O\d*$")  # a formula of an oxide or volatile (H2O, Al2O3), not "OK16" or "NB12"
_CATALOGUE = re.compile(r"(?!(?:1[5-9]|20)\d\d\b)\d{5,6}")  # a catalogue number ("10017"), no year
_SERIES = re.compile(r"([A-Za-z]{2,})\d{1,4}")


def known_names(names: Iterable[str]) -> re.Pattern[str] | None:
    """A pattern for the paper's own sample names printed bare ("The age of LAB03 is …" once the
    paper said "sample LAB03"): names that followed the word "sample(s)" somewhere in the paper, or
    that its tables give as samples (the caller passes those), of letters and digits, three
    characters or more, as printed, and catalogue numbers of five or six digits ("10017", no year).
    With each name of letters and a number, the other numbers of its series ("BD03": BD02, BD08; a
    paper lists its sites so, and a list broke at a member no table printed). Lists of them are one
    mention. None when the paper names none."""
    usable = sorted(
        {
            n
            for n in names
            if len(n) >= 3
            and any(c.isdigit() for c in n)
            and any(c.isalpha() for c in n)
            or _CATALOGUE.fullmatch(n)
        },
        key=len,
        reverse=True,
    )
    if not usable:
        return None
    # the series a name is one of: letters, then a number ("BD03" → BD02, BD08), when the letters are
    # no element or formula
    series = sorted(
        {m.group(1) for n in usable if (m := _SERIES.fullmatch(n)) and not _is_formula(m.group(1))},
        key=len,
        reverse=True,
    )
    alts = "|".join([*(re.escape(n) for n in usable), *(rf"{re.escape(p)}\d{{1,4}}" for p in series)])
    return re.compile(rf"(?<![\w/.-])(?P<names>(?:{alts})(?:{_GAP}(?:{alts}))*)(?![\w/-])")


def sample_mentions(sentence: str, known: re.Pattern[str] | None = None) -> list[SampleMention]:
    """The sample names a sentence prints, as lists in text order (``known``: the paper's own
    names, :func:`known_names`, found bare too)."""
    found: list[SampleMention] = []
    taken: list[tuple[int, int]] = []
    patterns: tuple[tuple[re.Pattern[str], bool], ...] = (
        (_LIST_AFTER_WORD, True),
        (_LETTERS_AFTER_WORD, True),
        (_BESIDE_MATERIAL, True),
        (_BEFORE_BRACKETED_VALUE, True),
        (_BRACKETED_AFTER_ROCKS, False),
        (_PARTS_OF, False),
        (_LIST_ANYWHERE, False),
    ) + (((known, True),) if known is not None else ())
    for pattern, after_word in patterns:
        for match in pattern.finditer(sentence):
            group = "names" if "names" in match.groupdict() else 0
            group = "after" if match.groupdict().get("after") else group
            start, end = match.start(group), match.end(group)
            if any(a < end and start < b for a, b in taken):
                continue
            if _LABEL_BEFORE.search(sentence[:start]):
                continue
            if not after_word and (
                _TOOL_BEFORE.search(sentence[max(0, start - 60) : start]) or _TOOL_AFTER.match(sentence[end:])
            ):
                continue  # "software (including Squid-1, Squid-2)": tools, not samples
            names = (
                tuple(_LETTER.findall(match.group(group)))
                if pattern is _LETTERS_AFTER_WORD
                else tuple(
                    as_printed(n.group(0))
                    # what a list prints in brackets after a name describes it ("ZG12 (40 zircons)
                    # and ZG13"): no name of its own
                    for n in _NAME.finditer(_IN_BRACKETS.sub(" ", match.group(group)))
                    if _is_sample_name(n.group(0), after_word=after_word)
                )
            )
            if names:
                found.append(SampleMention(names, start, end, named=pattern is _LIST_AFTER_WORD))
                taken.append((start, end))
    # a sample the sentence sets apart is not what its values are of ("present in all samples except OD1")
    return [
        m
        for m in _joined(sorted(found, key=lambda m: m.start), sentence)
        if not _EXCEPT.search(sentence[max(0, m.start - 50) : m.start])
    ]


def _joined(mentions: list[SampleMention], sentence: str) -> list[SampleMention]:
    """Mentions found by different rules but printed as one list are one ("BD02 (sedimentary
    jasper, Fig. 4) and BD06-12 (acidic tuffs) show …": a known name and a hyphenated one), unless
    each has its own value in brackets."""
    out: list[SampleMention] = []
    for mention in mentions:
        last = out[-1] if out else None
        gap = sentence[last.end : mention.start] if last is not None else ""
        if last is not None and _GAP_ONLY.fullmatch(gap) and not _VALUE_BRACKET.match(gap):
            out[-1] = SampleMention(
                last.names + mention.names, last.start, mention.end, last.named or mention.named
            )
        else:
            out.append(mention)
    return out


_GAP_ONLY = re.compile(_GAP)
_EXCEPT = re.compile(
    r"\b(?:except(?:\s+for)?|excluding|other\s+than|apart\s+from|with\s+the\s+exception\s+of)\s+"
    r"(?:(?:the\s+)?samples?\s+)?$",
    re.I,
)
_VALUE_BRACKET = re.compile(r"\s*\(\s*[-−~≈<>]?\d")  # "OG.1 (3440.7 ± 3.2 Ma) and M127 (…)": each its own
_IN_BRACKETS = re.compile(r"\([^()]*\)")
_OPENED = re.compile(r"\(\s*[-−~≈<>]?\s*$")  # a value that opens a bracket
# a bracket holding a value, not a count of things ("(0.55%)", "(410 Ma)", not "(35 zircons)")
_OWN_VALUE = re.compile(r"\(\s*[-−~≈<>]?\d[\d.,·]*(?![\d.,·])(?!\s*[A-Za-z]{4,})[^()]*\)")


# a caption naming the one sample a table analyses: "Chemical composition of 15682", "Analyses
# of KIL93." — a bare number only with four to six digits and no year
_CAPTION_SUBJECT = re.compile(
    r"\b(?:compositions?|analys[ie]s|chemistry|data)\s+(?:of|for)\s+"
    r"(?P<name>[A-Za-z]+\d[A-Za-z0-9]*|(?!(?:19|20)\d\d\b)\d{4,6})\s*(?:[.;:]|$)",
    re.IGNORECASE,
)


def caption_samples(caption: str) -> list[str]:
    """The sample names a table caption prints: those :func:`sample_mentions` finds, else the one
    the caption says the table analyses ("Chemical composition of 15682": a data sheet names its
    sample so, with no word "sample" and no hyphen)."""
    found = [n for m in sample_mentions(caption) for n in m.names]
    if found:
        return found
    match = _CAPTION_SUBJECT.search(caption)
    if match is None or _is_formula(match.group("name")):
        return []
    return [as_printed(match.group("name"))]


def samples_for_values(
    sentence: str, spans: Sequence[tuple[int, int]], mentions: Sequence[Mention] | None = None
) -> list[str]:
    """For each value (its span in ``sentence``): its sample(s), "; "-joined, or "" (``mentions``:
    the sentence's :func:`sample_mentions`, when the caller has them already; the rock units of
    :mod:`geo_assets.measurements.rock_units` are given to their values by the same rule)."""
    mentions = sample_mentions(sentence) if mentions is None else mentions
    if not mentions:
        return [""] * len(spans)
    names = [n for m in mentions for n in m.names]
    if "respectively" in sentence and len(mentions) == 1 and len(names) == len(spans) > 1:
        return names
    paired = _respectively(sentence, spans, mentions, names)
    out = []
    for start, end in spans:
        # a value followed by its own bracket names its sample there: "-5.9 (Braga pluton, sample LD-18)"
        opened = re.match(r"\s*\(", sentence[end:])
        close = sentence.find(")", end) if opened else -1
        inside = next((m for m in mentions if end < m.start and m.end <= close), None)
        if inside is not None:
            out.append("; ".join(inside.names))
            continue
        # a value in brackets inside a list of names is the names' printed right before it: "anomalies
        # including EST-012 (0.55%), EST-063 and EST-068 (0.52% each), BGS-023 (0.48%)"
        in_bracket = _OPENED.search(sentence[:start]) is not None
        within = next((m for m in mentions if m.start < start and end <= m.end), None) if in_bracket else None
        if within is not None:
            out.append("; ".join(_printed_before(sentence, within, start)))
            continue
        # a name the value is said to be for comes first: "… Massif … 2,061 Ma for the Icart orthogneiss"
        after = next(
            (m for m in mentions if m.start >= end and _FOLLOWING.match(sentence[end : m.start])), None
        )
        before = [m for m in mentions if m.end <= start]
        if in_bracket and after is None and before:
            out.append("; ".join(_printed_before(sentence, before[-1], start)))  # "…, BGS-025 (0.43%)"
            continue
        chosen = after or (before[-1] if before else None)
        out.append("; ".join(chosen.names) if chosen else "")
    for i, name in paired.items():
        out[i] = name
    return out


def _printed_before(sentence: str, mention: Mention, start: int) -> list[str]:
    """The names of ``mention`` printed after the last bracket before ``start`` that holds a value
    (the value before's; "(sandstone)" or "(35 zircons)" describe a name) : all of them where none
    is."""
    printed = sentence[mention.start : start]
    ends = [m.end() for m in _OWN_VALUE.finditer(printed)]
    tail = re.sub(_H, "-", printed[ends[-1] if ends else 0 :])
    return [n for n in mention.names if re.search(rf"(?<![\w-]){re.escape(n)}(?![\w-])", tail)] or list(
        mention.names
    )


def _respectively(
    sentence: str, spans: Sequence[tuple[int, int]], mentions: Sequence[Mention], names: Sequence[str]
) -> dict[int, str]:
    """The values "respectively" pairs with the sentence's names, by index: the last as many values
    before the word as there are names, when every name is printed before them ("438 ± 20 for B188 and
    437 ± 20 Ma for RB140 …, with MSWD values of 1.83 and 2.97, respectively": 1.83 is B188's)."""
    at = sentence.find("respectively")
    if at < 0 or len(names) < 2:
        return {}
    listed = [i for i, (_, end) in enumerate(spans) if end <= at]
    if len(listed) < len(names):
        return {}
    chosen = listed[-len(names) :]
    if any(m.end > spans[chosen[0]][0] for m in mentions):
        return {}
    gaps = [sentence[spans[a][1] : spans[b][0]] for a, b in zip(chosen, chosen[1:], strict=False)]
    if any(re.search(r"\d", gap) or len(re.findall(r"[A-Za-z]+", gap)) > 3 for gap in gaps):
        return {}  # not one list of values ("410 Ma, and 3 ppm and 4 ppm U": a value was not read)
    return dict(zip(chosen, names, strict=True))


def normalise_names(samples: Iterable[str]) -> dict[str, str]:
    """Printed name → the paper's most frequent printing of the same name (FC4b and FC-4b agree)."""
    counts: Counter[str] = Counter()
    for joined in samples:
        counts.update(n for n in joined.split("; ") if n)
    best: dict[str, str] = {}
    for name, _ in counts.most_common():
        best.setdefault(sample_key(name), name)
    return {name: best[sample_key(name)] for name in counts}


_ELEMENT_MASS = re.compile(r"([A-Z][a-z]?)(\d{1,3})")
_NO_ITEM = re.compile(r"(?i:step|stage|run\b)|[AaαΑ]95", re.IGNORECASE)
# a row label that is one token of letters and digits ("BGC-5", "NEM-26/27", "T12", "CRPG-2")
_IDENTIFIER_LABEL = re.compile(rf"[A-Za-z0-9]+(?:[-_/.{_HYPHENS}][A-Za-z0-9]+)*[*†‡⁎]{{0,3}}")


def label_identifier(label: str) -> str:
    """The row label itself when it is an identifier of what the row's values were measured on (one
    token with a capital letter and a digit, no formula, isotope, unit or word part: "BGC-5",
    "NEM-26/27", "T12"), as printed and without a footnote mark; else "" ("4A", "SiO2", "1",
    "10-duplicate-1", "Roof contact"). For the rows of a table whose paper names its samples
    nowhere else, and whose label column is not headed "Sample"."""
    name = as_printed(label)
    if len(name) > 24 or not _IDENTIFIER_LABEL.fullmatch(name):
        return ""
    name = name.rstrip("*†‡⁎")
    if _NO_ITEM.match(name):
        return ""  # a heating step, a paleomagnetic confidence angle
    isotope = _ELEMENT_MASS.fullmatch(name)
    element = load_vocabulary().elements.get(isotope.group(1)) if isotope else None
    if isotope and element and element.number <= int(isotope.group(2)) <= 3 * element.number:
        return ""  # "U238", "Al26", "Cl36": an isotope written symbol first (its mass ≥ Z)
    return name if _is_sample_name(name, after_word=False) else ""


def sample_for_label(label: str, known: Iterable[str]) -> str:
    """The paper's sample a table row label names: the label itself, or a spot or grain within it
    ("GJ1-2-2" is a spot of the reference zircon printed "GJ-1" elsewhere in the paper, "19MAT-169_03"
    one of 19MAT-169): a known name, hyphens and case aside, followed by a separator or the label's
    end. The longest such name, as the paper prints it; "" when none (a label is never guessed to be
    a sample the paper does not name)."""
    plain = as_printed(label).casefold()
    best = ""
    for name in known:
        key = sample_key(name)
        if not any(c.isdigit() for c in key) or len(key) <= len(sample_key(best)):
            continue
        if not (len(key) >= 5 or len(key) >= 3 and any(c.isalpha() for c in key)):  # not "01" or "123"
            continue
        # the name's characters in order, a hyphen, space or underscore allowed between them
        pattern = "[-_ ]?".join(re.escape(c) for c in key)
        if re.match(rf"{pattern}(?=$|[-_.:/ ])", plain):
            best = name
    return best


# a reference material's printing without the mineral or word it is named with ("91500 zircon",
# "Durango apatite", "zircon standard 91500"): a table's sample column prints the bare name
_NAMED_WITH = re.compile(r"\b(?:zircon|apatite|sanidine|biotite|monazite|titanite|glass|standard|Nd)\b")
_NOT_ALNUM = re.compile(r"[\W_]+")


@lru_cache(maxsize=1)
def _reference_materials() -> dict[str, str]:
    """Letters and digits (case folded) of every printing of a reference material → its name."""
    out: dict[str, str] = {}
    for term in load_vocabulary().terms():
        if term.type == "ReferenceMaterial":
            for form in (term.form, _NAMED_WITH.sub(" ", term.form)):
                if key := _NOT_ALNUM.sub("", form).casefold():
                    out.setdefault(key, term.canonical)
    return out


def reference_material(name: str) -> str:
    """The reference material a sample name is, as the vocabulary names it ("Temora2", "GJ1",
    "BCR-2"), else "": an analysis of a standard is data, but not of the study's rocks."""
    return _reference_materials().get(_NOT_ALNUM.sub("", name).casefold(), "")
