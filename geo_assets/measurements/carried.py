"""What a section's sentences go on about: the sample or rock unit an earlier sentence named.

Papers name a sample or a unit once and then write "Two analyses yield …", "They have …". This
module keeps, sentence by sentence through one section, what the text named last, and says what a
sentence that names nothing of its own takes from it:

* a sample, within its paragraph. Past a paragraph break only the one sample the section names,
  when the paper calls it a sample ("sample UT09DV04 was collected …", then paragraphs on its
  results), or onto the figure cited where it was named ("Figure 3a shows … sample (MF482)", a
  paragraph on: "Figure 3b shows …"). Three blind labellings found samples carried further were
  mostly another subject's (a lab procedure's temperature, a standard's ratio: docs/experiments.md).
  A list is not lent to a sentence about one unnamed sample of it ("the highest-grade sample"), nor one
  sample to a sentence about samples ("All other samples analyzed have …", "Our samples are …"),
  unless it was named as a site or locality, whose samples they are ("In site JaIb5 …. A set of
  samples unblocks …"). A value printed with a citation in its bracket is a literature value and
  takes none ("the Kiaman reversed superchron (314–264 Ma, e.g. Langereis et al., 2010)").
* a unit, only into a sentence that goes on about its rocks (:func:`~geo_assets.measurements.
  rock_units.continues`: "They have …", "these basalts"), or that names them with words of their
  own up to three sentences on ("The felsic rocks …").

Naming a sample drops the unit carried, and naming a unit drops the sample.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from geo_assets.measurements.rock_units import UnitMention, continues
from geo_assets.measurements.samples import SampleMention, sample_key

__all__ = ["Carried", "cited"]

# how many sentences on a section may take up the unit it named by naming its rocks ("The felsic rocks")
_TAKEN_UP = 3
_PARAGRAPH = "\n\n"  # the cleaned text's paragraph break
_ENDED = re.compile(r"[.!?:][\"'”’)\]]*\s*$")  # a sentence's end, quotes and brackets after it
_ONE_SAMPLE = re.compile(r"\b(?:the|this|that|one|a|an)\s+(?:[\w-]+\s+){0,2}sample\b(?!s)", re.I)
_SAMPLES = re.compile(r"\bsamples\b", re.I)
_SITE = re.compile(r"\b(?:sites?|localit(?:y|ies)|outcrops?|sections?)\b", re.I)
_FIGURE = re.compile(r"\bFig(?:ure)?s?\.?\s*(\d+)")


@dataclass
class Carried:
    """One section's carried sample and unit. ``said``: the keys of the names the paper prints after
    the word "sample(s)" anywhere (what it calls a sample). Call :meth:`enter`, then :meth:`lent`
    and :meth:`opener` for the sentence's values, then :meth:`named`, once per sentence in order."""

    said: set[str]
    sample: str = ""  # the sample the section named last, "; "-joined
    figures: set[str] = field(default_factory=set)  # the figures cited where it was named
    unit: str = ""  # the unit the sentence before named or went on about
    named_unit: str = ""  # the unit the section named last, and how many sentences ago
    since: int = 0
    samples: set[str] = field(default_factory=set)  # the samples the section has named so far
    end: int = 0  # where the sentence before ended
    site: bool = False  # the sample was named as a site or locality (its "samples" are its own)

    def enter(self, text: str, start: int, end: int, mentions: Sequence[SampleMention]) -> None:
        """Enter the sentence ``text[start:end]`` (``mentions``: the samples it names): a new
        paragraph drops the sample unless the section is still about it."""
        if _new_paragraph(text, self.end, start) and not self._still_about(text[start:end]):
            self.sample = ""
        self.end = end
        self.samples.update(sample_key(n) for m in mentions for n in m.names)

    def lent(self, sentence: str, units: Sequence[UnitMention]) -> str:
        """The sample the sentence's values without one of their own take ("" where it names a unit)."""
        if units or "; " in self.sample and _ONE_SAMPLE.search(sentence):
            return ""
        if (
            self.sample
            and "; " not in self.sample
            and not self.site
            and _SAMPLES.search(sentence)
            and not _SITE.search(sentence)
        ):
            return ""
        return self.sample

    def opener(self, sentence: str, mentions: Sequence[SampleMention]) -> str:
        """The unit the sentence goes on about, for its values before any unit of its own ("" where it
        names a sample)."""
        self.since += 1
        if mentions:
            self.unit = ""
        else:
            taken_up = self.since <= _TAKEN_UP
            self.unit = continues(sentence, self.unit) or (
                continues(sentence, self.named_unit, pronouns=False) if taken_up else ""
            )
        return self.unit

    def named(self, sentence: str, mentions: Sequence[SampleMention], units: Sequence[UnitMention]) -> None:
        """What the sentence named becomes what later sentences may go on about."""
        if not (mentions or units):
            return
        self.sample = "; ".join(mentions[-1].names) if mentions else ""
        self.figures = _figures(sentence) if mentions else set()
        self.site = bool(mentions and _SITE.search(sentence))
        self.unit = units[-1].names[0] if units else ""
        self.named_unit, self.since = self.unit, 0

    def _still_about(self, sentence: str) -> bool:
        """Whether a paragraph's first sentence goes on about the sample an earlier paragraph named:
        the one sample the section names, which the paper calls a sample, or one shown in a figure
        the sentence cites."""
        one = len(self.samples) == 1 and self.samples <= self.said
        return one or bool(self.figures & _figures(sentence))


_CITATION = re.compile(
    r"\bet al\.|\b[A-Z][A-Za-z'’-]+(?:\s+and\s+[A-Z][A-Za-z'’-]+)?,?\s+(?:19|20)\d\d[a-z]?\b"
)


def cited(sentence: str, start: int, end: int) -> bool:
    """Whether the value at ``sentence[start:end]`` is printed with a citation in its bracket, a
    literature value ("the Kiaman reversed superchron (314–264 Ma, e.g. Langereis et al., 2010)"):
    not the carried sample's."""
    opened = sentence.rfind("(", 0, start)
    if opened < 0 or ")" in sentence[opened:start]:
        return False
    closed = sentence.find(")", end)
    return bool(_CITATION.search(sentence[opened : closed if closed >= 0 else len(sentence)]))


def _new_paragraph(text: str, last_end: int, start: int) -> bool:
    """Whether the sentence at ``start`` opens a paragraph: a paragraph break before it, after a
    sentence that ended ("… and\n\nCambrian to Early Ordovician ages": a sentence broken at a page or
    column end is one paragraph)."""
    return _PARAGRAPH in text[last_end:start] and bool(_ENDED.search(text[:last_end]))


def _figures(sentence: str) -> set[str]:
    """The numbers of the figures a sentence cites ("Figure 3a", "Fig. 3b" → {"3"})."""
    return set(_FIGURE.findall(sentence))
