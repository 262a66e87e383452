"""Typed co-occurrence: adjacent entities of a known type pair, linked with a lower confidence (0.5).

The fallback for neighbouring units no gap pattern linked ("zircon U–Pb" → DATED_BY): only for the type
pairs listed, a short gap of plain words, and no contrast or negation word between them.
"""

import re

from geo_assets.graph.extraction.units import _Found, _modifier, _pairs, _Unit
from geo_rag_runtime.vocab import RELATIONS

_COOCCURRENCE: dict[tuple[str, str], tuple[str, bool]] = {
    # (left type, right type): (relation, head is left)
    ("Mineral", "GeochronometerSystem"): ("DATED_BY", True),
    ("Rock", "GeochronometerSystem"): ("DATED_BY", True),
    ("GeochronometerSystem", "Mineral"): ("DATED_BY", False),
    ("GeochronometerSystem", "Rock"): ("DATED_BY", False),
    ("Mineral", "AnalyticalMethod"): ("MEASURED_BY", True),
    ("GeochronometerSystem", "AnalyticalMethod"): ("MEASURED_BY", True),
    ("Rock", "Location"): ("OCCURS_IN", True),
    ("Mineral", "Location"): ("OCCURS_IN", True),
    ("Rock", "TectonicSetting"): ("OCCURS_IN", True),
    ("Location", "Rock"): ("OCCURS_IN", False),
    ("TectonicSetting", "Rock"): ("OCCURS_IN", False),
    ("IsotopeRatio", "Mineral"): ("MEASURED_IN", True),
    ("IsotopeRatio", "Rock"): ("MEASURED_IN", True),
    ("ElementRatio", "Rock"): ("MEASURED_IN", True),
    ("Rock", "MagmaSeries"): ("BELONGS_TO", True),
}
_COOC_GAP = re.compile(r"^[\sA-Za-z'-]{0,40}$")
_COOC_STOP = re.compile(
    r"\b(?:and|or|but|than|versus|vs|whereas|while|not|nor|both|either|neither|to|poor|free|absent|lacking|"
    r"without|non)\b"
)


def _cooccurrence(sentence: str, a: _Unit, b: _Unit, gap: str) -> list[_Found]:
    key = _COOCCURRENCE.get((a.type, b.type))
    if _modifier(sentence, b) and b.type in {"Location", "TectonicSetting", "Reservoir"}:
        return []
    if not key or not _COOC_GAP.match(gap) or _COOC_STOP.search(gap) or len(gap.split()) > 4:
        return []
    relation, head_left = key
    out = []
    for x, y in _pairs(a, b, False):
        head, tail = (x, y) if head_left else (y, x)
        if RELATIONS[relation].allows(head.type, tail.type):
            out.append(_Found(head, relation, tail, 0.5, "cooccurrence"))
    return out
