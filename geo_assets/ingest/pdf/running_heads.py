"""Step 3: running headers/footers and page numbers, marked ``drop``.

The first step that compares pages with each other: text repeated in the top or bottom margin of
many pages is page furniture, not content. It runs after every page is in reading order and before
the title is searched, so that a banner repeated on every page is never read as the title.
"""

import re
from collections import Counter

from geo_assets.ingest.pdf.layout import Line


def drop_running_heads(pages: list[list[Line]], heights: list[float]) -> None:
    """Mark running headers/footers (text repeated in the page margins) and page numbers."""
    counts: Counter[str] = Counter()
    keyed: list[tuple[Line, str]] = []
    for lines, height in zip(pages, heights, strict=True):
        seen: set[str] = set()
        for line in lines:
            if line.top < 0.1 * height or line.bottom > 0.9 * height:
                key = re.sub(r"\s+", "", re.sub(r"\d+", "#", line.text.lower()))
                keyed.append((line, key))
                if key not in seen:
                    seen.add(key)
                    counts[key] += 1
    repeat = max(2, round(0.3 * len(pages)))
    for line, key in keyed:
        if (
            len(pages) > 2
            and counts[key] >= repeat
            or re.fullmatch(r"(?:page\s*)?\d{1,4}(?:\s*(?:of|/)\s*\d{1,4})?", line.text, re.IGNORECASE)
        ):
            line.kind = "drop"
