"""Sentence boundaries for scientific text, as character spans.

Own rules instead of simplemma's ``split_sentences``: on scientific text that splitter breaks after
"ca.", "e.g.", "et al." and "Fig." ("... (e.g." | "Keller et al." | "2018; Fig." | "3).") and returns
strings, while the chunker and the triple extractor need offsets into the text. The rules:

* a boundary needs ``. ! ? …`` (optionally followed by closing quotes/brackets) and then whitespace;
  decimals (0.7035), "wt.%", "e.g.," and "U(IV)," therefore never split;
* after "." the next sentence must open with an uppercase letter, a digit (40Ar/39Ar ages ...),
  a Greek letter (δ18O ...), an opening bracket/quote, or a camel-case name (meltPT, pyMelt);
* no split after known abbreviations (e.g., i.e., et al., Fig., Eq., ca., approx., cf., vs., No.,
  Ref., Sect., ...), after single lowercase letters ("c. 410 Ma", "p. 5"), after an enumerator that
  opens the sentence ("2. The error ellipses"), or after initials ("C. B. Keller"): a single
  capital followed by "." is an initial unless the word before it is lowercase and the next word
  is a function word ("enriched in U. The ..." ends a sentence; "by P. Vermeesch" does not);
* a blank line always ends a sentence; ordinary words such as "Ma." end sentences.
Known limit: "... by Keller et al. The data" is not split (citations nearly always carry a year).
"""

from __future__ import annotations

import re

from geo_rag_runtime.text.stop_words import ENGLISH_STOP_WORDS

__all__ = ["split_sentences", "sentence_texts", "ABBREVIATIONS"]

ABBREVIATIONS: frozenset[str] = frozenset(
    [
        "e.g",
        "i.e",
        "cf",
        "vs",
        "viz",
        "al",
        "fig",
        "figs",
        "eq",
        "eqs",
        "eqn",
        "eqns",
        "ref",
        "refs",
        "tab",
        "sect",
        "sec",
        "ca",
        "approx",
        "resp",
        "no",
        "nos",
        "vol",
        "vols",
        "pp",
        "ed",
        "eds",
        "suppl",
        "supp",
        "dr",
        "prof",
        "mr",
        "mrs",
        "ms",
        "st",
        "mt",
        "inc",
        "ltd",
        "corp",
        "ch",
        "chap",
        "par",
        "n.b",
        "a.k.a",
        "u.s",
        "n.d",
        "sp",
        "spp",
        "var",
        "ssp",
        "aff",
        "op",
        "cit",
        "ibid",
        "lat",
        "lon",
        "long",
        "elev",
        "est",
        "nr",
    ]
)

_PARAGRAPH = re.compile(r"\n[ \t]*\n")
_TERMINATOR = re.compile(r"[.!?…]+[\"'”’»)\]]*(?=\s)")
_OPENING = "([{\"'“‘«"
_CAMEL = re.compile(r"[a-z]+[A-Z0-9]")
_INITIAL = re.compile(r"[A-Z]\.")
_NEXT_WORD = re.compile(r"[^\W\d_]+")
_ENUMERATOR = re.compile(r"\(?(?:\d{1,2}|[ivx]{1,4}|[a-z])\)?")


def _is_greek(ch: str) -> bool:
    return "\u0370" <= ch <= "\u03ff" or "\u1f00" <= ch <= "\u1fff"


def _word_before(text: str, end: int, floor: int) -> tuple[str, int]:
    """The whitespace-delimited word ending at ``end`` (exclusive) and its start offset."""
    start = end
    while start > floor and not text[start - 1].isspace():
        start -= 1
    return text[start:end], start


def _opens_sentence(text: str, pos: int) -> bool:
    ch = text[pos]
    if ch.isupper() or ch.isdigit() or _is_greek(ch) or ch in _OPENING:
        return True
    return _CAMEL.match(text, pos) is not None


def _is_boundary(text: str, match: re.Match[str], next_pos: int, sentence_start: int) -> bool:
    punct = match.group()
    if not _opens_sentence(text, next_pos):
        return False
    if not punct.startswith("."):
        return True  # ? ! … followed by a sentence opener
    word, word_start = _word_before(text, match.start(), sentence_start)
    core = word.lstrip(_OPENING).rstrip(".").lower()
    if core in ABBREVIATIONS:
        return False
    if _ENUMERATOR.fullmatch(word.rstrip(".")):
        before = text[sentence_start:word_start].rstrip()
        if not before or before.endswith((":", ";")):
            return False  # "2. The error ellipses ..." / "(see Fig. 1): 1. Although ..."
    letter = word.lstrip(_OPENING).rstrip(".")
    if len(letter) == 1 and letter.isalpha():
        if letter.islower():
            return not text[next_pos].isdigit()  # "c. 410 Ma", "p. 5"
        if _INITIAL.match(text, next_pos):
            return False  # "C. B. Keller"
        end = word_start
        while end > sentence_start and text[end - 1].isspace():
            end -= 1
        previous, _ = _word_before(text, end, sentence_start)
        following = _NEXT_WORD.match(text, next_pos)
        next_word = following.group().lower() if following else ""
        return previous.isalpha() and previous.islower() and next_word in ENGLISH_STOP_WORDS
    return True


def split_sentences(text: str) -> list[tuple[int, int]]:
    """Character spans ``(start, end)`` of the sentences of ``text``, whitespace trimmed."""
    spans: list[tuple[int, int]] = []
    para_start = 0
    boundaries = [(m.start(), m.end()) for m in _PARAGRAPH.finditer(text)] + [(len(text), len(text))]
    for para_end, next_para in boundaries:
        sentence_start = para_start
        while sentence_start < para_end and text[sentence_start].isspace():
            sentence_start += 1
        for match in _TERMINATOR.finditer(text, sentence_start, para_end):
            next_pos = match.end()
            while next_pos < para_end and text[next_pos].isspace():
                next_pos += 1
            if next_pos >= para_end:
                break
            if _is_boundary(text, match, next_pos, sentence_start):
                spans.append((sentence_start, match.end()))
                sentence_start = next_pos
        end = para_end
        while end > sentence_start and text[end - 1].isspace():
            end -= 1
        if end > sentence_start:
            spans.append((sentence_start, end))
        para_start = next_para
    return spans


def sentence_texts(text: str) -> list[str]:
    """The sentences themselves (convenience for callers that need no offsets)."""
    return [text[s:e] for s, e in split_sentences(text)]
