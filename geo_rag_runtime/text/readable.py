"""Readable text for embedding and answering, with geochemical notation left intact.

``clean_text`` repairs what PDF extraction and GROBID leave behind (ligatures, soft hyphens,
zero-width and control characters, odd spaces, line-end hyphenation, broken lines) without touching
notation such as 87Sr/86Sr, δ18O, εNd, U(IV), La/Yb, SiO2, wt.%, ±, ‰, °C.

Unicode policy, decided per character class because blanket NFKC would rewrite notation
(NFKC turns "″" into two primes, "…" into "...", "½" into "1⁄2"):

* NFC always (composes accents; also folds the Kelvin and Ångström signs into K and Å).
* Expanded to their NFKC form: ligatures (ﬁ ﬂ ﬀ ﬃ ﬄ ﬅ ﬆ), mathematical alphanumeric letters
  (𝐾𝑑 → Kd, common in PDF maths), full-width ASCII forms, Roman-numeral characters (Ⅳ → IV),
  the micro sign (µ → Greek μ), Greek symbol variants (ϵ → ε, ϑ → θ, ϕ → φ: PDFs write εNd with
  either epsilon) and ℃/℉ (→ °C/°F).
* Super- and subscript digits and signs become plain ones (⁸⁷Sr → 87Sr, SiO₂ → SiO2, Fe³⁺ → Fe3+):
  the plain spelling is how the papers, GROBID and users write the notation, so the same fact
  reads and matches the same way.
* U+2010 HYPHEN and U+2011 NON-BREAKING HYPHEN (Wiley's "newly‐discovered") become "-".
  U+2212 MINUS SIGN becomes "-" as well: the value is unchanged and users type hyphen-minus.
  En and em dashes stay (U–Pb, Re–Os, 410–415 Ma are written that way); ‰, ±, °, ×, ′ stay.
* A middle dot between digits is a decimal point (Journal of Petrology and other Oxford and
  Cambridge journals print "SiO2 66·0", "0·60–1·40 %") and becomes ".", as the minus sign becomes
  "-"; a hydrate's dot stays (CaSO4·2H2O: a letter follows its digits).
* Lone surrogates (broken PDF font maps) become U+FFFD, so the text can be encoded and hashed.
* Removed: soft hyphens, zero-width and bidi format characters, C0/C1 control characters (tab and
  the odd spaces NBSP, thin, hair, figure, narrow NBSP ... become one ordinary space).
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from collections.abc import Iterable
from functools import lru_cache

import periodictable
import simplemma

__all__ = [
    "clean_text",
    "normalize_chars",
    "decimal_points",
    "dehyphenate",
    "strip_repeated_lines",
    "is_boilerplate",
    "line_key",
    "ELEMENT_SYMBOLS",
    "ENGLISH_SYMBOLS",
]

ELEMENT_SYMBOLS: frozenset[str] = frozenset(e.symbol for e in periodictable.elements if e.number > 0)

_SPACE_CHARS = (
    "\u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u202f\u205f\u3000\t\v\f"
)
_DELETE_CHARS = "\u00ad\u180e\u200b\u200c\u200d\u200e\u200f\u2060\u2061\u2062\u2063\u2064\ufeff"
_DELETE_RANGES = ((0x202A, 0x202E), (0x2066, 0x206F), (0xFFF9, 0xFFFB))
_NFKC_RANGES = (
    (0xFB00, 0xFB06),  # Latin ligatures
    (0x1D400, 0x1D7FF),  # mathematical alphanumeric symbols
    (0xFF01, 0xFF5E),  # full-width ASCII
    (0x2160, 0x217F),  # Roman numerals
    (0x2070, 0x209F),  # superscripts and subscripts
)
_NFKC_SINGLES = "\u00b5\u00b2\u00b3\u00b9\u03d0\u03d1\u03d5\u03d6\u03f0\u03f1\u03f4\u03f5\u2103\u2109"


@lru_cache(maxsize=1)
def _char_table() -> dict[int, str | None]:
    """The per-character translation table (built once; see the module docstring for the policy)."""
    table: dict[int, str | None] = {}
    for lo, hi in _NFKC_RANGES:
        for cp in range(lo, hi + 1):
            ch = chr(cp)
            mapped = unicodedata.normalize("NFKC", ch)
            if mapped != ch:
                table[cp] = mapped.replace("\u2212", "-")
    for ch in _NFKC_SINGLES:
        table[ord(ch)] = unicodedata.normalize("NFKC", ch)
    # C0/C1 control characters: keep newline (and CR, handled later); tab is an odd space.
    for cp in list(range(0x00, 0x20)) + list(range(0x7F, 0xA0)):
        if chr(cp) not in "\n\r":
            table[cp] = None
    for ch in _SPACE_CHARS:
        table[ord(ch)] = " "
    for ch in _DELETE_CHARS:
        table[ord(ch)] = None
    for lo, hi in _DELETE_RANGES:
        for cp in range(lo, hi + 1):
            table[cp] = None
    for cp in range(0xD800, 0xE000):  # lone surrogates (pypdf emits some) cannot be encoded
        table[cp] = "\ufffd"
    table[0x2028] = "\n"  # line separator
    table[0x2029] = "\n\n"  # paragraph separator
    table[0x2010] = "-"
    table[0x2011] = "-"
    table[0x2212] = "-"
    return table


_SOFT_HYPHEN_BREAK = re.compile("\u00ad[ \t]*\r?\n[ \t]*")
# a middle dot (or bullet operator) between digits whose digits after it end the number (a footnote
# mark may follow): "66·0", "0·60–1·40", "1·07a"; not "CaSO4·2H2O"
_DECIMAL_DOT = re.compile(r"(?<=\d)[\u00b7\u2219](?=\d+[a-f*\u2020\u2021]?(?![A-Za-z\d]))")


def decimal_points(text: str) -> str:
    """A middle-dot decimal point ("66·0") as ".", character for character (offsets stay valid)."""
    return _DECIMAL_DOT.sub(".", text) if "\u00b7" in text or "\u2219" in text else text


def normalize_chars(text: str) -> str:
    """Character-level normalization only (NFC + the per-class table); no layout changes.

    Shared with the keyword normalizer so ingest and query text see the same characters.
    """
    text = unicodedata.normalize("NFC", text)
    if "\u00ad" in text:  # a soft hyphen at a line end joins the word halves
        text = _SOFT_HYPHEN_BREAK.sub("", text)
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    return decimal_points(text.translate(_char_table()))


# "frac-\ntionation", and pypdf's "estima -\ntion" (a space before the hyphen)
_LINE_END_HYPHEN = re.compile(r"(\w+) ?-[ \t]*\n[ \t]*(\w+)")
# capitalized English words that are element symbols only by accident
ENGLISH_SYMBOLS: frozenset[str] = frozenset({"In", "As", "At", "Be", "No", "Am", "I"})


def _symbol_like(part: str) -> bool:
    """True for element symbols and acronyms (U, Re, Nb, CA, ID): their hyphen is part of a name."""
    if part.isupper():
        return True
    return part in ELEMENT_SYMBOLS and part not in ENGLISH_SYMBOLS


def _join_hyphenated(match: re.Match[str]) -> str:
    """Decide one line-end hyphen: a syllable break (join) or a real compound hyphen (keep).

    Heuristic, in order:
    1. the continuation starts with an uppercase letter or digit ("U-\\nPb", "mid-\\nMiocene",
       "10-\\n12") -> keep the hyphen;
    2. the first part holds a digit or is an element symbol / acronym ("Re-\\nOs", "CA-ID-\\nTIMS")
       -> keep;
    3. the joined word is a known English word form (simplemma's dictionary) -> join;
    4. both halves are known words ("calc-\\nalkaline", "trace-\\nelement") -> keep;
    5. otherwise it was a syllable break ("crystalli-\\nsation") -> join.
    """
    first, second = match.group(1), match.group(2)
    hyphenated = f"{first}-{second}"
    if second[0].isupper() or second[0].isdigit():
        return hyphenated
    if any(c.isdigit() for c in first) or _symbol_like(first):
        return hyphenated
    joined = first + second
    if simplemma.is_known(joined.lower(), lang="en"):
        return joined
    if (
        len(first) > 1
        and simplemma.is_known(first.lower(), lang="en")
        and simplemma.is_known(second.lower(), lang="en")
    ):
        return hyphenated
    return joined


# an en/em dash at a line end belongs to both lines: "U–\nPb" is U–Pb, "1–\n2 GPa" is 1–2 GPa
_LINE_END_DASH = re.compile(r"(?<=\w)([–—])[ \t]*\n[ \t]*(?=\w)")
# pypdf spaces isotope ratios apart ("207Pb /235U"); the ratio is one piece of notation
_SPACED_RATIO = re.compile(r"(?<![\w/])(\d{1,3}[A-Z][a-z]?) +/ *(?=\d{1,3}[A-Z])")


def dehyphenate(text: str) -> str:
    """Undo line-end hyphenation in text that still has its line breaks."""
    if "\n" not in text:
        return text
    text = _LINE_END_DASH.sub(r"\1", text)
    return _LINE_END_HYPHEN.sub(_join_hyphenated, text) if "-" in text else text


_PARAGRAPH_BREAK = re.compile(r"\n[ \t]*\n\s*")
_WHITESPACE = re.compile(r"\s+")
_OPEN_PAREN_SPACE = re.compile(r"([(\[]) +")
_CLOSE_PAREN_SPACE = re.compile(r"(?<=\S) +([)\]])")


def clean_text(text: str) -> str:
    """Readable text: normalized characters, hyphenation repaired, lines joined, spaces collapsed.

    Paragraphs (blank-line separated in the input) stay separated by one blank line ("\\n\\n");
    single line breaks inside a paragraph become spaces.
    """
    text = dehyphenate(normalize_chars(text))
    paragraphs = []
    for para in _PARAGRAPH_BREAK.split(text):
        para = _WHITESPACE.sub(" ", para).strip()
        if not para:
            continue
        # pypdf leaves "( e.g., Ellis" and "2017 )": spacing artefacts inside brackets
        para = _OPEN_PAREN_SPACE.sub(r"\1", para)
        para = _CLOSE_PAREN_SPACE.sub(r"\1", para)
        para = _SPACED_RATIO.sub(r"\1/", para)
        paragraphs.append(para)
    return "\n\n".join(paragraphs)


_DIGITS = re.compile(r"\d+")


def line_key(line: str) -> str:
    """Comparison key for repeated lines: whitespace-free, casefolded, digit runs replaced.

    Running headers differ only in their page numbers ("Page 64" / "Page 65"), so digits are
    folded; whitespace is dropped because extraction spaces the same header differently per page.
    """
    return _DIGITS.sub("#", "".join(line.split()).casefold())


# Whole-line publisher boilerplate: licences, copyright, DOI/URL-only lines, received/accepted
# dates, page numbers. Only whole short lines are matched, never a sentence that mentions a DOI.
_BOILERPLATE = re.compile(
    r"""^(?:
        (?:©|\(c\)|copyright\b).*
      | .*\b(?:open[ -]access\s+article|creative\s+commons|licen[cs]ed\s+under|cc[ -]by(?:[ -]\d\.\d)?\s+licen[cs]e)\b.*
      | .*\ball\s+rights\s+reserved\b.*
      | (?:doi:?\s*|https?://(?:dx\.)?doi\.org/)\S+
      | https?://\S+
      | (?:received|accepted|published(?:\s+online)?|revised|available\s+online)\b[:\s]+.{0,60}\d{4}\.?
      | (?:page\s*)?\d{1,4}(?:\s*(?:of|/)\s*\d{1,4})?
    )$""",
    re.IGNORECASE | re.VERBOSE,
)
_MAX_BOILERPLATE_CHARS = 300


def is_boilerplate(line: str) -> bool:
    """True for a whole line/paragraph that is publisher metadata, not content."""
    line = line.strip()
    if not line:
        return True
    return len(line) <= _MAX_BOILERPLATE_CHARS and _BOILERPLATE.match(line) is not None


def strip_repeated_lines(pages: Iterable[str], min_repeats: int = 3) -> list[str]:
    """Remove running headers/footers and boilerplate lines from page (or block) texts.

    A line whose :func:`line_key` occurs on at least ``min_repeats`` different pages is a header
    or footer (journal name, "Geochem. Persp. Let. (2018) 8, 31-35 | doi: ...", page numbers);
    boilerplate lines (:func:`is_boilerplate`) are removed wherever they occur. The line structure
    of what remains is kept, so :func:`clean_text` can still repair hyphenation afterwards.
    """
    if min_repeats < 2:
        raise ValueError(f"min_repeats must be at least 2, got {min_repeats}")
    page_list = list(pages)
    seen: Counter[str] = Counter()
    for page in page_list:
        seen.update({line_key(line) for line in page.splitlines() if line.strip()})
    repeated = {key for key, n in seen.items() if n >= min_repeats}
    out = []
    for page in page_list:
        kept = [
            line
            for line in page.splitlines()
            if not line.strip() or (line_key(line) not in repeated and not is_boilerplate(line))
        ]
        out.append("\n".join(kept))
    return out
