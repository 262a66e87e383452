"""Step 4: page 1's front matter: title, authors, DOI and publication year.

The title is the largest-font line group of page 1, or the group that matches the PDF's metadata
title; the authors are the name-like lines after it (affiliation markers removed). The DOI comes
from page 1, else from the running heads/footers, else from the PDF's metadata; the year from
"Published", "©", "Accepted" or "Received" on page 1. Title lines are marked ``title`` so that the
later steps leave them out of the body.
"""

import re
from collections import Counter
from typing import Any

from rapidfuzz import fuzz

from geo_assets.ingest.pdf.document import Document
from geo_assets.ingest.pdf.headings import CAPTION
from geo_assets.ingest.pdf.layout import Line, clean_text
from geo_assets.ingest.pdf.references import find_doi

_YEAR_CLUES = (
    re.compile(r"Published(?: online)?:?\s*(?:\d{1,2}\s*\w+\.?\s*)?((?:19|20)\d{2})"),
    re.compile(r"©\s*(?:The Author\(s\)\s*|Copyright\s*)?((?:19|20)\d{2})"),
    # a © the font maps to another glyph or to none (Springer: "Ó 2023 The Author(s)", "2023 The Author(s)")
    re.compile(r"\b((?:19|20)\d{2})\s*The\s*Author\(s\)"),
    re.compile(r"Accepted:?\s*(?:\d{1,2}\s*\w+\.?\s*)?((?:19|20)\d{2})"),
    re.compile(r"Received:?\s*(?:\d{1,2}\s*\w+\.?\s*)?((?:19|20)\d{2})"),
)
_NOT_A_NAME = re.compile(
    r"@|universit|department|institut|abstract|received|school|laborator|college|centre|center|"
    r"correspond|doi|journal|http|research article|original article|article|licen[cs]e|copyright|©",
    re.IGNORECASE,
)
_NAME_PARTICLES = {"van", "de", "der", "den", "von", "da", "del", "della", "la", "le", "di", "du", "dos"}
# capitalised words of a journal banner, a report series, a rock unit or a title-case first line of
# text that follow a byline within its 30 lines ("Solid Earth", "Open-File Report", "Bishop Tuff",
# "The Mean Square Weighted Deviation"): no part of a person's name
_NOT_NAME_WORDS = {
    "the", "of", "for", "in", "on", "earth", "report", "reports", "series", "survey", "geological", "open-file",
    "supplement", "supplementary", "material", "materials", "information", "data", "table", "figure", "volume",
    "tuff", "basalt", "granite", "formation", "group", "suite", "complex", "volcano", "island", "islands",
}  # fmt: skip
_BANNER = re.compile(r"journal homepage\s*:|contents lists available at", re.IGNORECASE)
_BYLINE_LEAD = re.compile(r"^\s*by\s+", re.IGNORECASE)  # USGS reports: "By Michael A. Clynne, …"


def read_front_matter(
    doc: Document, first: list[Line], all_lines: list[Line], body_size: float, meta: dict[str, Any]
) -> None:
    """Title, authors, DOI and year into ``doc``; the title lines are marked ``title``.

    ``first`` is page 1's lines in reading order, ``all_lines`` every page's (a DOI printed in the
    running heads/footers, already marked ``drop``, is a fallback), ``meta`` the PDF's metadata.
    """
    meta_title = meta.get("Title") if isinstance(meta.get("Title"), str) else None
    title_lines = _find_title(first, body_size, meta_title)
    for line in title_lines:
        line.kind = "title"
    doc.title = re.sub(r"^[^\w‘“\"'(¿¡]+", "", clean_text(" ".join(ln.text for ln in title_lines)))
    if not doc.title and meta_title:
        doc.title = _usable_meta_title(meta_title)  # a cover page set as an image (a survey's user guide)
    doc.authors = _authors_after_title(first, title_lines, body_size) or _labelled_authors(first)
    page1 = " ".join(ln.text for ln in first)
    margins = Counter(
        doi for ln in all_lines if ln.kind == "drop" for doi in [find_doi(ln.text)] if doi is not None
    )
    doc.doi = (
        find_doi(page1)
        or (margins.most_common(1)[0][0] if margins else None)
        or find_doi(" ".join(str(v) for v in meta.values()))
    )
    for pattern in _YEAR_CLUES:
        found = pattern.search(page1)
        if found:
            doc.year = found.group(1)
            break


def _find_title(first_page: list[Line], body_size: float, meta_title: str | None) -> list[Line]:
    """Page 1's title lines: the largest-font line group, or the group matching the metadata title."""
    groups: list[list[Line]] = []
    for line in first_page:
        if line.kind == "drop" or len(line.text) < 2:
            continue
        if groups:
            last = groups[-1][-1]
            same_style = abs(line.size - last.size) < 0.6 and (line.bold >= 0.5) == (last.bold >= 0.5)
            if same_style and -0.5 * line.size < line.top - last.bottom < 1.2 * line.size:
                groups[-1].append(line)
                continue
        groups.append([line])
    # a journal's name in its banner, between "Contents lists available at ScienceDirect" and
    # "journal homepage: …" (Elsevier), is set larger than the article's title
    banner: set[int] = set()
    for i in range(1, len(first_page) - 1):
        found = _BANNER.search(first_page[i].text)
        if found:  # the journal's name is after "Contents lists …" and before "journal homepage: …"
            banner.add(
                id(first_page[i + 1] if found.group(0).lower().startswith("contents") else first_page[i - 1])
            )
    # a table's or figure's caption ("Table 1: Vitrinite reflectance data.") is no title, however
    # large it is set on a data repository item's first page
    groups = [
        g
        for g in groups
        if len(g) <= 6 and not any(id(ln) in banner for ln in g) and not CAPTION.match(g[0].text)
    ]
    if meta_title and len(meta_title.split()) >= 3:
        wanted = _squash(meta_title)
        scored = [(fuzz.ratio(wanted, _squash(" ".join(ln.text for ln in g))), g) for g in groups]
        good = [s for s in scored if s[0] >= 85]
        if good:
            return max(good, key=lambda s: s[0])[1]
    candidates = [
        g for g in groups if sum(len(ln.text.split()) for ln in g) >= 3 and g[0].size >= body_size + 1.5
    ]
    if not candidates:
        # a title set bold at barely more than the body size (LaTeX book and chapter templates: 12 pt
        # bold over 10.95 pt text): page 1's first group, when it is bold, larger than the body and
        # several words that are no numbered section heading — unless the PDF's metadata names the
        # work (a report's cover prints "Version number: 1.0" there)
        usable_meta = bool(meta_title and _usable_meta_title(meta_title))
        opening = groups[0] if groups and not usable_meta else []
        words = " ".join(ln.text for ln in opening).split()
        if (
            opening
            and opening[0].bold >= 0.5
            and opening[0].size >= body_size + 0.8
            and len(words) >= 3
            and not re.match(r"\d", words[0])
        ):
            return opening
        return []
    top_size = max(g[0].size for g in candidates)
    return next(g for g in candidates if g[0].size >= top_size - 0.3)


def _usable_meta_title(meta_title: str) -> str:
    """The PDF's metadata title when it names the work: not a file name or an editor's banner
    ("Microsoft Word - draft3.docx", "paper.tex"), at least two words."""
    title = re.sub(r"^Microsoft (?:Word|PowerPoint) - ", "", meta_title.strip())
    if re.search(r"\.(?:docx?|tex|pdf|dvi|indd|qxd|rtf)$", title, re.IGNORECASE) or len(title.split()) < 2:
        return ""
    return clean_text(title)


_AUTHOR_LABEL = re.compile(r"^\s*Authors?\s*:\s*(?P<names>.+)$")
_FAMILY_FIRST = re.compile(r"^(?P<family>[A-Z][\w'’-]+),\s*(?P<given>(?:[A-Z][a-z]*\.?\s*-?)+)$")


def _labelled_authors(first_page: list[Line]) -> list[str]:
    """Names on a labelled line of page 1 ("Author: Summons, N. & Arthur, C."), as "N. Summons": a
    report's or manual's imprint page, where no byline follows the title."""
    for line in first_page:
        found = _AUTHOR_LABEL.match(line.text)
        if found is None:
            continue
        names = []
        for part in re.split(r"\s*(?:&|;|\band\b)\s*", found.group("names")):
            part = part.strip(" ,")
            family_first = _FAMILY_FIRST.match(part)
            name = (
                f"{family_first['given'].strip()} {family_first['family']}"
                if family_first
                else _clean_name(part)
            )
            if 2 <= len(name.split()) <= 5 and all(w[0].isupper() for w in name.split()):
                names.append(name)
        return names
    return []


def _squash(text: str) -> str:
    return re.sub(r"[^0-9a-z]+", "", text.lower())


def _authors_after_title(first_page: list[Line], title_lines: list[Line], body_size: float) -> list[str]:
    """Author names: the name-like lines after the title (affiliation markers removed)."""
    if not title_lines:
        return []
    try:
        start = first_page.index(title_lines[-1]) + 1
    except ValueError:
        return []
    names: list[str] = []
    # a first name that ends a line, its family name on the next ("…, and Susan" / "C. Loughlin")
    carried = ""
    for line in first_page[start : start + 30]:
        text = line.text_without_superscripts()
        small_caps = sum(c.isupper() for c in text) > 0.8 * sum(c.isalpha() for c in text) > 0
        if (
            line.kind in ("drop", "title")
            or line.size < body_size - 0.5
            and not (
                small_caps and line.size >= 0.6 * body_size  # "AMY WILLIAMSON1 and RICHARD M. ALLEN1"
            )
        ):
            continue
        if _NOT_A_NAME.search(text):
            if names:
                break
            continue
        parts = [_clean_name(p) for p in re.split(r",|;|\band\b|&", _BYLINE_LEAD.sub("", text))]
        parts = [p for p in parts if p]
        if carried and parts:
            parts[0] = f"{carried} {parts[0]}"
        carried = ""
        if len(parts) > 1 and re.fullmatch(r"[A-Z][a-z]+", parts[-1]) and not text.rstrip().endswith(","):
            carried = parts.pop()
        good = [
            p
            for p in parts
            if 2 <= len(p.split()) <= 5
            and all(w[0].isupper() or w in _NAME_PARTICLES for w in p.split())
            and not any(w.casefold() in _NOT_NAME_WORDS for w in p.split())
            and not any(c.isdigit() for c in p)
        ]
        if parts and len(good) >= 0.6 * len(parts):
            names.extend(_title_case(p) if p.isupper() else p for p in good)
            if len(good) >= 2 or re.search(r"[\d*†‡§¶]", line.text):
                # a byline (several names, or a name with its affiliation marks, "C. Loughlin1") is
                # metadata, not body text, also where it wraps into the text column; one title-case
                # phrase alone ("The Mean Square Weighted Deviation") may be the text's first line
                line.kind = "drop"
        elif names:
            break
    return list(dict.fromkeys(names))[:60]  # a name printed again above its address is one author


def _title_case(name: str) -> str:
    """A name set in capitals or small caps as it is written: "RICHARD M. ALLEN" → "Richard M. Allen"."""
    return " ".join(w if re.fullmatch(r"[A-Z]\.", w) else w.title() for w in name.split())


def _clean_name(text: str) -> str:
    """Drop markers (digits, asterisks, daggers, ORCID glyphs) around an author name."""
    text = "".join(c for c in text if c.isalpha() or c in " .-–'’")
    return re.sub(r"\s+", " ", text).strip(" .-–")
