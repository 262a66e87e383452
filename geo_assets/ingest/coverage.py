"""How much of a PDF's text reached the knowledge base: coverage, per paper and per page.

A parser that silently loses half a paper is the worst failure an ingest can have: every answer and
every measurement row downstream is missing, and nothing looks wrong. So each paper's cleaned text
is compared with its PDF's text layer as read by a second, independent reader (pypdf; the
embedded parser reads glyphs with pdfminer), and the share is a first-class number: Dagster
metadata and an asset check on ``cleaned_text``, a field of the paper in the document store,
``geo-rag status`` and ``geo-rag ingest``.

The measure: the distinct words of four or more letters of the text layer (case folded, line-end
hyphenation joined, a manuscript's line numbers dropped), and the share of them that occur in the
cleaned text (or whose pair with the next word does: pypdf splits widely spaced words, "drilli
ng"). Distinct words make a running header count once, not once per page, and ignore the order the
two readers chose. Words the cleaner removes on purpose (licence lines, running heads) count as
lost, so a fully read paper scores about 0.9, not 1.0. A page is *lost* when fewer than half of its
words reached the text; a page without a text layer is an *image-only* page (a scan, or a figure
page), named as such.

The second reader can be the one that fails: pypdf decodes a font whose encoding it does not
implement (90msp-RKSJ-H, a Japanese CMap) as UTF-16 and returns CJK debris for Latin text the parser
read right, and it says so in a log record. On the pages where it said so (*undecoded* pages), words
with a letter in a script the measured text has nowhere (after NFKC) are not judged; their count is
named with the pages.
"""

from __future__ import annotations

import logging
import re
import threading
import unicodedata
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from geo_rag_runtime.contract import COVERAGE_FAIL_BELOW, COVERAGE_WARN_BELOW

__all__ = [
    "FAIL_BELOW",
    "WARN_BELOW",
    "Coverage",
    "TextLayer",
    "foreign_share",
    "measure_coverage",
    "scripts_of",
    "text_layer",
    "text_layer_pages",
    "words_of",
]

WARN_BELOW = COVERAGE_WARN_BELOW  # the asset check warns, `geo-rag ingest` and `status` name the paper
FAIL_BELOW = COVERAGE_FAIL_BELOW  # the check fails: most of the paper did not reach the knowledge base
LOST_PAGE_BELOW = 0.5  # a page with fewer of its words in the text than this was not read
_HYPHEN_BREAK = re.compile(r"(\w)[-\u00ad\u2010]\s*\n\s*(\w)")
_WORD = re.compile(r"[^\W\d_]{4,}")
_NOT_LETTER = re.compile(r"[\W\d_]+")
_GLUED_MIN = 10
_LINE_NUMBER = re.compile(r"\d{1,4}[ \t]*$", re.MULTILINE)  # a manuscript's margin number, read last


def words_of(text: str) -> set[str]:
    """Distinct words of ≥ 4 letters, NFKC-normalized and case folded, hyphen-broken line ends joined."""
    text = unicodedata.normalize("NFKC", text)
    return {w.casefold() for w in _WORD.findall(_HYPHEN_BREAK.sub(r"\1\2", text))}


def _without_line_numbers(page: str) -> str:
    """A page of a line-numbered manuscript without its margin numbers: pypdf reads the margin's
    "46" after a line-end hyphen ("con-46" / "ducted"), which hid the break and made two fragments of
    every broken word. Numbered means that most lines end in the number one above the line's
    before it, which a table's last column does not."""
    counted: list[int | None] = []
    for line in page.splitlines():
        if line.strip():
            number = _LINE_NUMBER.search(line)
            counted.append(int(number.group()) if number else None)
    steps = sum(1 for a, b in zip(counted, counted[1:], strict=False) if a is not None and b == a + 1)
    return _LINE_NUMBER.sub("", page) if counted and steps >= len(counted) / 2 else page


# a word, one space, and (looked ahead, so that "a b c" gives "a b" and "b c") the word after it
_SPLIT = re.compile(r"(?<![^\W\d_])([^\W\d_]+) (?=([^\W\d_]+))")


def _split_by_the_reader(pages: Sequence[str], found: set[str]) -> set[str]:
    """Parts of words pypdf split with a space inside a line ("drilli ng", "v olcanic": a word set
    with wide letter spacing) where the joined word is in the text: those parts were read."""
    parts: set[str] = set()
    for page in pages:
        for first, second in _SPLIT.findall(unicodedata.normalize("NFKC", page)):
            if (first + second).casefold() in found:
                parts.update((first.casefold(), second.casefold()))
    return parts


def _script(letter: str) -> str:
    # the first word of the letter's Unicode name (LATIN, GREEK, CYRILLIC, CJK, HANGUL …): the
    # standard library has no script property, and this is enough to tell a paper's alphabets apart
    return unicodedata.name(letter, "?").split(" ", 1)[0]


def scripts_of(text: str) -> set[str]:
    """The scripts of the letters in ``text`` (after NFKC)."""
    return {_script(c) for c in set(unicodedata.normalize("NFKC", text)) if c.isalpha()}


def foreign_share(text: str, scripts: set[str]) -> float:
    """The share of ``text``'s letters (after NFKC) in none of ``scripts`` (0.0 without letters)."""
    letters = [c for c in unicodedata.normalize("NFKC", text) if c.isalpha()]
    return sum(_script(c) not in scripts for c in letters) / len(letters) if letters else 0.0


@dataclass(frozen=True)
class TextLayer:
    """Each page's text as pypdf reads it ("" for a page it cannot read), and the pages (1-based)
    on which it reported a font whose encoding it does not implement (their text is partly debris)."""

    pages: list[str]
    undecoded: list[int] = field(default_factory=list)


class _UndecodedFont(logging.Handler):
    """pypdf's "Advanced encoding … not implemented yet" records, from the reading thread only."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.thread = threading.get_ident()
        self.seen = False

    def emit(self, record: logging.LogRecord) -> None:
        if record.thread == self.thread and "not implemented" in record.getMessage():
            self.seen = True


def text_layer(path: Path) -> TextLayer:
    """The text layer of each page, and the pages pypdf could not decode a font of."""
    from pypdf import PdfReader

    reader = PdfReader(str(path))
    watch = _UndecodedFont()
    logger = logging.getLogger("pypdf")
    logger.addHandler(watch)
    pages, undecoded = [], []
    try:
        for number, page in enumerate(reader.pages, 1):
            watch.seen = False
            try:
                pages.append(page.extract_text() or "")
            except Exception:  # pypdf raises a wide range on damaged content streams: that page is unread
                pages.append("")
            if watch.seen:
                undecoded.append(number)
    finally:
        logger.removeHandler(watch)
    return TextLayer(pages, undecoded)


def text_layer_pages(path: Path) -> list[str]:
    """The text layer of each page as pypdf reads it ("" for a page it cannot read)."""
    return text_layer(path).pages


@dataclass(frozen=True)
class Coverage:
    """The share of the text layer that reached a text, overall and per page (1-based pages)."""

    share: float
    layer_words: int
    page_shares: list[float | None] = field(default_factory=list)  # None: no word judged
    unjudged_words: int = 0  # words of undecoded pages in a script the text has nowhere
    undecoded_pages: list[int] = field(default_factory=list)  # pypdf could not decode a font of

    @property
    def image_only_pages(self) -> list[int]:
        return [
            i for i, s in enumerate(self.page_shares, 1) if s is None and i not in self.undecoded_pages
        ]  # an undecoded page has a text layer, though none of its words could be judged

    @property
    def lost_pages(self) -> list[int]:
        return [i for i, s in enumerate(self.page_shares, 1) if s is not None and s < LOST_PAGE_BELOW]

    @property
    def level(self) -> str:
        """``ok``, ``warn`` (below :data:`WARN_BELOW`) or ``fail`` (below :data:`FAIL_BELOW`)."""
        if self.share < FAIL_BELOW:
            return "fail"
        return "warn" if self.share < WARN_BELOW else "ok"

    def reason(self) -> str:
        """What a person can act on: the share, which pages were lost, which have no text layer."""
        parts = [
            f"{self.share:.0%} of the PDF text layer's {self.layer_words} distinct words reached the text"
        ]
        if self.lost_pages:
            parts.append(f"pages with most words lost: {_pages(self.lost_pages)}")
        if self.image_only_pages:
            parts.append(
                f"pages without a text layer (scanned or image-only): {_pages(self.image_only_pages)}"
            )
        if self.unjudged_words:
            parts.append(
                f"{self.unjudged_words} words not judged: pypdf could not decode a font on pages"
                f" {_pages(self.undecoded_pages)}"
            )
        if self.level != "ok" and not self.lost_pages:
            worst = sorted(
                ((s, i) for i, s in enumerate(self.page_shares, 1) if s is not None and s < WARN_BELOW)
            )[:3]
            where = ", ".join(f"page {i} ({s:.0%})" for s, i in sorted(worst, key=lambda x: x[1]))
            parts.append(
                "the loss is spread over the pages (tables, figure labels or boilerplate)"
                + (f"; least read: {where}" if where else "")
            )
        return "; ".join(parts)

    def as_metadata(self) -> dict[str, Any]:
        return {
            "coverage": round(self.share, 4),
            "coverage_words": self.layer_words,
            "coverage_lost_pages": self.lost_pages,
            "coverage_image_only_pages": self.image_only_pages,
            "coverage_unjudged_words": self.unjudged_words,
        }


def _pages(pages: Sequence[int]) -> str:
    shown = ", ".join(str(p) for p in pages[:12])
    return shown + (f" … ({len(pages)} pages)" if len(pages) > 12 else "")


def measure_coverage(pages: Sequence[str], text: str, undecoded: Collection[int] = ()) -> Coverage:
    """The share of the pages' distinct words found in ``text``, overall and per page; on the
    ``undecoded`` pages (1-based), words in a script ``text`` has nowhere are not judged."""
    found = words_of(text)
    scripts = scripts_of(text)
    # some PDFs (AGU/Wiley, PNAS) place words without space glyphs, so a text-layer reader returns
    # "createdbytheopeningandclosing": a long word is found when it occurs in the text read without
    # spaces (short words are not looked up so: nearly every 4-letter string occurs somewhere)
    despaced = _NOT_LETTER.sub("", unicodedata.normalize("NFKC", text).casefold())
    read = [words_of(_without_line_numbers(p)) for p in pages]
    per_page = [
        {w for w in words if not foreign_share(w, scripts)} if n in undecoded else words
        for n, words in enumerate(read, 1)
    ]
    layer = set().union(*per_page) if per_page else set()
    unjudged = set().union(*read) - layer if read else set()
    hits = {w for w in layer if w in found or (len(w) >= _GLUED_MIN and w in despaced)}
    hits |= layer & _split_by_the_reader(pages, found)
    shares = [len(w & hits) / len(w) if w else None for w in per_page]
    share = len(hits) / len(layer) if layer else 0.0
    return Coverage(
        share=share,
        layer_words=len(layer),
        page_shares=shares,
        unjudged_words=len(unjudged),
        undecoded_pages=[n for n in undecoded if 0 < n <= len(pages)] if unjudged else [],
    )
