"""Section-head vocabulary, and whether one line, on its own, reads as a section head.

The known head names (body, back matter, references, abstract, skipped front-matter heads) are
used by line classification (``classify``), by document assembly (``assemble``: which part of the
paper a head opens) and by TEI output (acknowledgement or annex), so they live here with
``norm_head``, below all three. ``heading_of`` judges the line alone; whether its neighbours
confirm it is ``classify``'s job.
"""

import re

from geo_assets.ingest.pdf.layout import Line

# Heads that papers use without numbers; normalized lower case, no trailing punctuation.
_BODY_HEADS = {
    "introduction",
    "background",
    "methods",
    "method",
    "methodology",
    "materials and methods",
    "methods and materials",
    "material and methods",
    "results",
    "discussion",
    "results and discussion",
    "discussion and conclusions",
    "conclusion",
    "conclusions",
    "concluding remarks",
    "summary",
    "summary and conclusions",
    "conclusions and outlook",
    "outlook",
    "geological setting",
    "geologic setting",
    "regional geology",
    "samples",
    "sampling",
    "analytical methods",
    "analytical techniques",
    "data",
    "study area",
    "case study",
    "case studies",
    "implications",
    "limitations",
    "related work",
    "experiments",
    "evaluation",
    "significance",
    "plain language summary",
    "key points",
}
BACK_HEADS = {
    "acknowledgements",
    "acknowledgments",
    "acknowledgement",
    "acknowledgment",
    "data availability",
    "data availability statement",
    "code availability",
    "code and data availability",
    "data and code availability",
    "author contributions",
    "authors' contributions",
    "authors' contribution",
    "author contribution",
    "competing interests",
    "conflict of interest",
    "conflicts of interest",
    "declaration of competing interest",
    "financial support",
    "funding",
    "review statement",
    "supplement",
    "supplementary material",
    "supplementary materials",
    "supplementary information",
    "supporting information",
    "open research",
    "abbreviations",
    "availability of data and materials",
    "ethics approval and consent to participate",
    "consent for publication",
    "additional information",
    "publisher's note",
    "disclaimer",
    "disclosure statement",
    "credit authorship contribution statement",
    "declaration of interests",
    "funding information",
}
REFERENCE_HEADS = {
    "references",
    "references cited",
    "bibliography",
    "literature cited",
    "cited literature",
    "reference list",
    "references and notes",
    "works cited",
}
ABSTRACT_HEADS = {"abstract", "summary"}
SKIPPED_HEADS = {
    "contents",
    "table of contents",
    "highlights",
    "graphical abstract",
    "article info",
    "articleinfo",  # "a r t i c l e i n f o", letter-spaced
    "article history",
}
KNOWN_HEADS = (
    _BODY_HEADS | BACK_HEADS | REFERENCE_HEADS | ABSTRACT_HEADS | SKIPPED_HEADS | {"appendix", "appendices"}
)

# a supplement's own heads open its body as a known head does ("Supplementary Texts", "Text S1: …",
# "Supporting Information for …"): a supplement has no "Introduction", and its heads carry no number
SUPPLEMENT_HEAD = re.compile(
    r"^(?:supplementa(?:ry|l)|supporting)\b|^(?:text|note|section|methods?)\s+s\d{1,2}\b"
)
NUMBERED_HEAD = re.compile(
    r"^(?P<n>(?:[1-9]\d?|[A-H]\d{1,2}|[A-H](?=\.))(?:\.\d{1,2}){0,3})\.?\s+(?P<t>[A-Z(‘'\"“][^\n]{1,160})$"
)
_ROMAN_HEAD = re.compile(r"^(?P<n>(?:X{0,2})(?:IX|IV|V?I{1,3}|V))\.\s+(?P<t>[A-Z][^\n]{1,160})$")
_APPENDIX_HEAD = re.compile(r"^(?P<n>Appendix\s+[A-Z0-9]+)[.:]?\s*(?P<t>.*)$", re.IGNORECASE)
# a caption's number: "1", "S1", "A2", "SI1", a GSA Data Repository item's "DR1", a Roman numeral
# ("II", older papers and reports; "Ⅱ" as one glyph) and a report's section numbering ("3.1", "Ⅱ-1-2")
CAPTION_NUMBER = r"(?:(?:DR|SI|[A-Z]?S?)\d{1,3}[a-z]?|[IVX]{1,5}\b|[\u2160-\u216b])(?:[.-]\d{1,3}){0,2}"
CAPTION = re.compile(
    # "Table S1", "Figure A2", "Figure SI1", "Table DR1", "Table II", "Table 3.1"
    rf"^(?P<kind>fig(?:ure)?s?\.?|table|tab\.)\s*(?P<num>{CAPTION_NUMBER})"
    r"(?P<after>\s*[.:|—–-]|\s*$|\s+(?=[A-Z(]))",
    re.IGNORECASE,
)


# dot leaders and a page number: an entry of a report's list of tables or figures ("Table 3 Major
# elements ········ 12"), not the caption
LIST_ENTRY = re.compile(r"(?:[.･·…]\s?){5,}\s*\d")


def caption_title(text: str) -> str | None:
    """A caption's text after its label ("Table 1. Major elements" → "Major elements", "Table 1" →
    ""); None when ``text`` opens with no caption label."""
    match = CAPTION.match(text)
    return text[match.end() :].strip(" .:|—–-") if match else None


HEAD_NUMBER_PREFIX = re.compile(
    r"^((?:[1-9]\d?|[A-H]\d{0,2})(?:\.\d{1,2}){0,3}|(?:IX|IV|V?I{1,3}|V|X))\.?\s+"
)
_MATH_FONT = re.compile(r"^(?:CM(?:MI|SY|EX)|MT(?:MI|SY|EX)|MSBM|Symbol|.*Math)", re.IGNORECASE)
_MATH = re.compile(r"[=<>∑∫√±∗×∈≤≥¼þð]")  # ¼ þ ð: "=", "+", "(" in MathPi fonts that lack a Unicode map


# a head set letter-spaced ("A B S T R A C T", "A R T I C L E  I N F O"; Elsevier): its letters are
# one word, and its first letter is no appendix number ("A" of "A B S T R A C T")
_LETTER_SPACED = re.compile(r"^(?:[^\W\d_] ){3,}[^\W\d_]$")


def _unspaced(text: str) -> str:
    """A letter-spaced head's words ("A B S T R A C T" → "ABSTRACT"); other text as it is."""
    words = re.split(r"\s{2,}", text.strip())
    if all(_LETTER_SPACED.match(w) for w in words):
        return " ".join(w.replace(" ", "") for w in words)
    return text


def norm_head(text: str) -> str:
    text = HEAD_NUMBER_PREFIX.sub("", _unspaced(text).strip())
    text = re.sub(r"[\s.:]+$", "", text).lower().replace("’", "'")
    return re.sub(r"\s+", " ", text)


def heading_of(line: Line, body_size: float, body_font: str) -> tuple[str | None, str, bool] | None:
    """(number, heading text, needs context) when a whole line reads as a section head, else None.

    Known names ("Introduction", "References", ...) and numbered heads in a distinct style are
    heads on their own; other bold, capitalized or large lines only when body text follows them
    (``needs context``), which keeps figure labels and table headers out.
    """
    text = line.text.strip()
    letters = sum(c.isalpha() for c in text)
    if not text or len(text) > 160 or letters < 3 or CAPTION.match(text) or line.size < 5:
        return None
    words = text.split()
    caps = text.isupper() and letters >= 4
    distinct_font = line.font != body_font and not _MATH_FONT.search(line.font)
    styled = line.bold >= 0.6 or line.size >= body_size + 0.8 or caps or distinct_font
    norm = norm_head(text)
    if norm in KNOWN_HEADS and len(words) <= 8:
        number = HEAD_NUMBER_PREFIX.match(text) if _unspaced(text) == text else None
        head = (HEAD_NUMBER_PREFIX.sub("", text) if number else text).rstrip(".: ")
        return (number.group(1) if number else None), head, not (styled or number)
    if line.size < body_size - 1.2 or _MATH.search(text):
        return None
    match = _APPENDIX_HEAD.match(text)
    if match and styled and len(words) <= 15:
        return match.group("n"), match.group("t").rstrip(".: ") or match.group("n"), False
    for pattern in (NUMBERED_HEAD, _ROMAN_HEAD):
        match = pattern.match(text)
        if match and styled and len(words) <= 20:
            title = match.group("t").strip()
            if sum(c.isalpha() for c in title) < 3 or title.endswith((",", ";")):
                return None
            return match.group("n"), title.rstrip(".: "), False
    if (
        len(words) <= 14
        and letters >= 0.6 * len(text.replace(" ", ""))
        and (text[0].isupper() or text[0].isdigit())
    ):
        if not text.endswith((",", ";", "-")) and (line.bold >= 0.9 or caps or line.size >= body_size + 0.8):
            return None, text.rstrip(".: "), True
        if distinct_font and len(words) <= 10 and letters >= 6 and not text.endswith("."):
            return None, text.rstrip(": "), True  # classify() also wants it short or wrapped
    return None
