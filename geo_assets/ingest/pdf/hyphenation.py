"""Joining text lines into running text, resolving end-of-line hyphens.

Geochemical notation is data, so a line-end hyphen is removed only where the document itself
shows the unhyphenated word (or the break is plainly a syllable split), and never before an
uppercase letter or a digit (U-Pb, Re–Os, gchron-3-247). ``vocabulary`` collects, once per
document, the words and hyphenated compounds written inside lines; ``join_lines`` is used for
paragraphs, heads, captions, keywords and (with ``refs=True``, which also rejoins wrapped URLs and DOIs)
reference entries.
"""

import re
from collections.abc import Iterable, Sequence

from geo_assets.ingest.pdf.layout import Line, clean_text

_URL_END = re.compile(r"(?:https?://|doi:|\b10\.\d{4,9}/)\S*$")
_URL_CONTINUES = re.compile(r"^[\w.\-/()%:;<>#=?&~]+(?:[,.]?\s|[,.]?$)(?![A-Z][a-z]+,)")


def join_lines(lines: Sequence[str], vocab: set[str], hyphenated: set[str], refs: bool = False) -> str:
    """Join text lines, resolving end-of-line hyphens with the document's own vocabulary.

    A hyphen before a lowercase continuation is dropped when the joined word occurs elsewhere
    in the document, or when the hyphenated form does not ("geochro-" + "nology"); it is kept for
    compounds the document also writes with a hyphen ("well-known"), and always before an
    uppercase letter or a digit ("U-" + "Pb"), except in a line of capitals where the document
    writes the joined word ("BE-" + "ING"). En dashes and slashes at a line end are kept.
    """
    out = ""
    for raw in lines:
        line = raw.strip()
        if not line:
            continue
        if not out:
            out = line
            continue
        hyphen = re.search(r"([A-Za-zÀ-ÖØ-öø-ÿ]+)-$", out)
        first = re.match(r"([a-zß-öø-ÿ]+)", line)
        shout = re.match(r"([A-ZÀ-ÖØ-Þ]{2,})\b", line)
        if hyphen and shout and hyphen.group(1).isupper():
            # a head in capitals broken at a syllable ("IMPORTANCE OF BE-" / "ING"): joined only
            # where the document writes the word ("being"), so "SM-" / "ND" stays Sm–Nd's
            joined = (hyphen.group(1) + shout.group(1)).lower()
            dashed = f"{hyphen.group(1)}-{shout.group(1)}".lower()
            out = out[:-1] + line if joined in vocab and dashed not in hyphenated else out + line
            continue
        if hyphen and first:
            left, right = hyphen.group(1), first.group(1)
            joined, dashed = (left + right).lower(), f"{left}-{right}".lower()
            if dashed in hyphenated and joined not in vocab:
                out += line  # a compound the document writes with its hyphen
            elif joined in vocab or dashed not in hyphenated:
                out = out[:-1] + line
            else:
                out += line
            continue
        if out.endswith(("-", "–", "—", "/")) and not out.endswith(" -"):
            out += line  # U-Pb, Re–Os, 87Sr/86Sr, gchron-3-247 broken at the line end
            continue
        if refs and _URL_END.search(out) and not out.endswith((",", ";")) and _URL_CONTINUES.match(line):
            out += line  # a URL or DOI wrapped without a hyphen
            continue
        out += " " + line
    return clean_text(out)


def vocabulary(lines: Iterable[Line]) -> tuple[set[str], set[str]]:
    """Words and hyphenated compounds the document writes inside lines (not at line ends)."""
    words: set[str] = set()
    hyphenated: set[str] = set()
    for line in lines:
        tokens = line.text.split()
        if tokens and tokens[-1].endswith("-"):
            tokens = tokens[:-1]
        for token in tokens:
            token = token.strip(".,;:()[]{}\"'“”‘’").lower()
            if not token:
                continue
            if "-" in token.strip("-"):
                hyphenated.add(token)
            else:
                words.add(token)
    return words, hyphenated
