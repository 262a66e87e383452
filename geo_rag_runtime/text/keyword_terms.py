"""The normalized keyword stream for sparse (BM25) retrieval, the same at ingest and query time.

Ordinary words are lowercased, stop words dropped, lemmatized (simplemma, English) and stemmed
(Snowball English). Notation tokens are kept whole and only lowercased — never split, lemmatized
or stemmed — so "87Sr/86Sr" stays one token "87sr/86sr" instead of becoming "sr sr".

A token is notation when it holds a digit (87Sr/86Sr, 0.7035, SiO2, 2σ, 206Pb/238U), a Greek letter
(δ18O, εNd, ΣREE), a bracket with content (U(IV), (La/Yb)N), one of ``% ‰ ° * # + ±`` (wt.%,
Eu/Eu*, Mg#, °C), or when it is an element symbol or a formula of element symbols (U, Sr, He, MgO,
FeOT). Compounds joined by "-" or "/" stay whole when every part is notation (U-Pb, Re–Os, La/Yb,
Th/U) or one part is a single letter (A-type, P-T, high-K); otherwise they are split
(Nb-enriched → nb, enrich; and/or → dropped). En dashes inside words count as hyphens, so "U–Pb"
and "U-Pb" give the same token; number ranges (410–415) give both numbers.

Queries are often typed in lowercase, so the rules are made to agree across case: lowercase
compounds of element symbols ("u-pb", "la/yb") stay whole, words of one or two letters are never
lemmatized or stemmed ("sr" = "Sr"), and single letters survive only when they are element symbols
("u"). Known gap: lowercase "he" is a stop word, so a query "he" does not match helium's "He".
"""

from __future__ import annotations

import re
import threading
from functools import lru_cache

import simplemma
import snowballstemmer
from snowballstemmer.basestemmer import BaseStemmer

from geo_rag_runtime.text.readable import ELEMENT_SYMBOLS, ENGLISH_SYMBOLS, normalize_chars
from geo_rag_runtime.text.stop_words import ENGLISH_STOP_WORDS

__all__ = ["normalize_tokens", "normalize_query", "normalize_word", "is_notation", "STOP_WORDS"]

# scikit-learn's list drops words that carry meaning in geoscience ("system" in "rift system",
# "thin" in "thin section", "fire", "top"/"bottom" of a section); keep those. "et"/"al" are
# citation residue ("et al.").
_DOMAIN_WORDS = frozenset(
    [
        "system",
        "thick",
        "thin",
        "top",
        "bottom",
        "fire",
        "fill",
        "amount",
        "empty",
        "full",
        "side",
        "back",
        "front",
        "interest",
        "detail",
        "found",
        "find",
        "part",
        "move",
    ]
)
STOP_WORDS: frozenset[str] = frozenset((ENGLISH_STOP_WORDS - _DOMAIN_WORDS) | {"et", "al"})

_GREEK = re.compile(r"[\u0370-\u03ff\u1f00-\u1fff]")
_NOTATION_MARKS = frozenset("%‰°*#+±")
_FORMULA = re.compile(r"(?:[A-Z][a-z]?\d*)+[T*#]?")
_FORMULA_STRICT = re.compile(r"(?:[A-Z][a-z]?\d*)+")
_SYMBOL = re.compile(r"[A-Z][a-z]?")
_NUMBER = r"[-+]?\d+(?:[.,]\d+)*"
_NUMBER_RANGE = re.compile(rf"({_NUMBER})-(\d+(?:[.,]\d+)*)")
_THOUSANDS = re.compile(r"\d{1,3}(?:,\d{3})+(?:\.\d+)?")
_WORD_PIECES = re.compile(r"[^\W\d_]+")
_SPLIT_COMPOUND = re.compile(r"[-/]")
_PAREN_GROUP = re.compile(r"\([^()\s]+\)")
_CHUNK = re.compile(r"\S+")
_OPENERS = "\"'“”‘’«»[{<"
_CLOSERS = ".,;:!?\"'“”‘’»]}>…"
_DASHES = str.maketrans({"\u2013": "-", "\u2012": "-", "\u2014": " ", "\u2015": " "})


def _is_formula(word: str) -> bool:
    """Element symbol or formula of symbols: U, He, Sr, MgO, Al2O3, FeOT, FeO*, Mg#."""
    if _FORMULA.fullmatch(word) is None:
        return False
    core = word[:-1] if word[-1] in "T*#" else word
    if not (_all_symbols(word) or (core != word and core and _all_symbols(core))):
        return False
    if any(c.isdigit() for c in word):
        return True
    # capitalized or all-caps English words that happen to spell symbols: In, As, No, ON, HIS
    if word in ENGLISH_SYMBOLS:
        return False
    return not (len(word) > 1 and word.isupper() and word.lower() in STOP_WORDS)


def _all_symbols(formula: str) -> bool:
    if _FORMULA_STRICT.fullmatch(formula) is None:
        return False
    return all(s in ELEMENT_SYMBOLS for s in _SYMBOL.findall(formula))


def _is_atomic_notation(word: str) -> bool:
    if any(c.isdigit() for c in word) or _GREEK.search(word):
        return True
    if any(c in _NOTATION_MARKS for c in word):
        return True
    return _is_formula(word)


def is_notation(word: str) -> bool:
    """True when ``word`` (surface form, case kept) must be kept whole and never stemmed."""
    if _PAREN_GROUP.search(word):  # U(IV), εNd(t), (La/Yb)N, (U-Th)/He, f(tr)
        return True
    parts = [p for p in _SPLIT_COMPOUND.split(word) if p]
    if len(parts) <= 1:
        return _is_atomic_notation(word)
    if any(len(p) == 1 and p.isalpha() for p in parts):  # A-type, P-T, high-K, A–F–M, x-ray
        return True
    if all(_is_symbol_lowercased(p) for p in parts):  # queries typed in lowercase: u-pb, la/yb
        return True
    return all(_is_atomic_notation(p.strip("()")) for p in parts)


def _is_symbol_lowercased(part: str) -> bool:
    return part.islower() and part.capitalize() in ELEMENT_SYMBOLS


_local = threading.local()


def _stemmer() -> BaseStemmer:
    """One Snowball stemmer per thread: the stemmer keeps state while it stems a word."""
    stemmer = getattr(_local, "stemmer", None)
    if stemmer is None:
        stemmer = _local.stemmer = snowballstemmer.stemmer("english")
    return stemmer


@lru_cache(maxsize=200_000)
def normalize_word(word: str) -> str | None:
    """Lowercase, stop-word filter, lemmatize, stem one ordinary (alphabetic) word; None = drop."""
    low = word.lower()
    if low in STOP_WORDS:
        return None
    if len(low) <= 2:
        # "u", "sr", "pb" typed in a query must equal the notation tokens "U", "Sr", "Pb" give at
        # ingest, so short words are never lemmatized or stemmed; other single letters are noise.
        return low if len(low) == 2 or low.upper() in ELEMENT_SYMBOLS else None
    lemma = simplemma.lemmatize(low, lang="en").lower()
    if lemma in STOP_WORDS:
        return None
    stem: str = _stemmer().stemWord(lemma)
    return stem


def _trim(word: str) -> str:
    """Strip sentence punctuation and unbalanced brackets from the edges, keep notation inside."""
    while word:
        before = word
        word = word.lstrip(_OPENERS).rstrip(_CLOSERS)
        if word.endswith(("'s", "’s")):  # possessive: "Earth's"
            word = word[:-2]
        if word.startswith("(") and word.count("(") > word.count(")"):
            word = word[1:]
        if word.endswith(")") and word.count(")") > word.count("("):
            word = word[:-1]
        if word.startswith("(") and word.endswith(")") and word.count("(") == 1:
            word = word[1:-1]  # "(2σ)", "(MORB)"; not "(La/Yb)N" or "U(IV)"
        if word == before:
            break
    return word


def _canonical_notation(word: str) -> str:
    low = word.lower()
    if low in {"wt%", "wt.%"}:
        return "wt.%"
    return low


@lru_cache(maxsize=200_000)
def _word_tokens(raw: str) -> tuple[str, ...]:
    """Tokens of one whitespace-separated chunk of text (cached: words repeat a lot)."""
    word = _trim(raw)
    if not word:
        return ()
    if ("," in word or ";" in word) and not _THOUSANDS.fullmatch(word):
        return tuple(t for part in re.split(r"[,;]+", word) for t in _word_tokens(part))
    range_match = _NUMBER_RANGE.fullmatch(word)
    if range_match:
        return (range_match.group(1).lower(), range_match.group(2))
    if not any(c.isalnum() for c in word):
        return ("‰",) if word == "‰" else ()  # a lone ± or % carries no keyword
    if is_notation(word):
        return (_canonical_notation(word),)
    if _SPLIT_COMPOUND.search(word):
        return tuple(t for part in _SPLIT_COMPOUND.split(word) for t in _word_tokens(part))
    out = []
    for piece in _WORD_PIECES.findall(word):
        token = normalize_word(piece)
        if token:
            out.append(token)
    return tuple(out)


def normalize_tokens(text: str) -> list[str]:
    """The keyword stream of ``text``: notation kept whole, ordinary words stop-filtered and stemmed."""
    text = normalize_chars(text).translate(_DASHES)
    tokens: list[str] = []
    for match in _CHUNK.finditer(text):
        tokens.extend(_word_tokens(match.group()))
    return tokens


def normalize_query(text: str) -> list[str]:
    """Query-time keyword stream: deliberately identical to :func:`normalize_tokens`."""
    return normalize_tokens(text)
