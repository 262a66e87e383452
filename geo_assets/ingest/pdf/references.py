"""Step 6: the references section → entries, each with its DOI, year and (author–year styles) title.

Entries are split by numbering, hanging indents or vertical spacing, whichever the list uses.
``find_doi`` is shared with ``metadata``, which looks for the paper's own DOI the same way.
"""

import re
from dataclasses import dataclass

from geo_assets.ingest.pdf.layout import Line

_NUMBERED_REF = re.compile(r"^\s*(?:\[(\d{1,3})\]|(\d{1,3})\.\s+(?=\S))")
_DOI = re.compile(r"\b10\.\d{4,9}/[^\s,;\"<>]+")
_YEAR = re.compile(r"\b(?:19|20)\d{2}[a-z]?\b")
_REF_TITLE_PATTERNS = (
    # "Authors (2018). Title. Journal" (APA, AGU, PNAS) and "Authors. 2018. Title. In Venue" (ACL)
    re.compile(r"\((?:19|20)\d{2}[a-z]?\)\.?\s+(?P<t>[^.?!]{12,300}[.?!])(?:\s|$)"),
    re.compile(r"\.\s(?:19|20)\d{2}[a-z]?\.\s+(?P<t>[^.?!]{12,300}[.?!])(?:\s|$)"),
)


@dataclass
class Reference:
    raw: str
    doi: str | None
    year: str | None
    title: str | None


def split_references(lines: list[Line]) -> list[list[Line]]:
    """Reference lines → entries, by numbering, hanging indents or vertical spacing."""
    if not lines:
        return []
    numbered = [bool(_NUMBERED_REF.match(ln.text)) for ln in lines]
    if sum(numbered) >= 3 and sum(numbered) >= 0.2 * len(lines):
        starts = numbered
    else:
        # reference lists are set in their own font: measure their own column edges
        left: dict[tuple[int, int, bool], float] = {}
        for ln in lines:
            key = (ln.page, ln.col, ln.spanning)
            left[key] = min(left.get(key, 1e9), ln.x0)
        indents = [ln.x0 - left[(ln.page, ln.col, ln.spanning)] > 0.5 * ln.size for ln in lines]
        share = sum(indents) / len(lines)
        if 0.15 <= share <= 0.9:
            starts = [not indented for indented in indents]
        else:
            starts = [True]
            for prev, cur in zip(lines, lines[1:], strict=False):
                same_col = (cur.page, cur.col) == (prev.page, prev.col)
                short = prev.x1 < prev.right_ref - 2 * prev.size and prev.text.rstrip().endswith(".")
                starts.append((same_col and cur.top - prev.bottom > 0.45 * cur.size) or short)
    entries: list[list[Line]] = []
    for line, start in zip(lines, starts, strict=True):
        if start or not entries:
            entries.append([line])
        else:
            entries[-1].append(line)
    return entries


def parse_reference(text: str) -> Reference:
    """Raw reference text → DOI, year and (for author–year styles) a title."""
    doi = find_doi(text)
    paren = re.search(r"\(((?:19|20)\d{2})[a-z]?\)", text)
    tail = re.search(r",\s*((?:19|20)\d{2})[a-z]?\.?\s*$", text)
    anywhere = _YEAR.search(text)
    year = paren.group(1) if paren else tail.group(1) if tail else anywhere.group(0)[:4] if anywhere else None
    title = None
    for pattern in _REF_TITLE_PATTERNS:
        found = pattern.search(text)
        if found:
            title = found.group("t").rstrip(".").strip()
            break
    return Reference(raw=text, doi=doi, year=year, title=title)


def find_doi(text: str) -> str | None:
    match = _DOI.search(text)
    if not match:
        return None
    doi = match.group(0)
    while doi and doi[-1] in ".)]}>" and not (doi[-1] == ")" and doi.count("(") >= doi.count(")")):
        doi = doi[:-1]
    return doi or None
