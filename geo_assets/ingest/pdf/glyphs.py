"""Glyphs a PDF names wrongly, read again by the name its font gives them.

Elsevier's typesetting of the 2000s and 2010s (Advent 3B2: Geochimica et Cosmochimica Acta, EPSL,
Chemical Geology, Lithos, Gondwana Research …) sets its symbols in a font ``AdvP4C4E74`` whose
Unicode map is wrong where it exists and missing where it matters. Its "=" maps to "¼", "+" to "þ",
"(" and ")" to "ð" and "Þ", "[" to "½" (and the slash of its sister font ``AdvP4C4E51`` to "=");
its minus, "±" and degree sign map to nothing, so pdfminer
prints "(cid:3)" and the text lost them: "−19.64" was stored as 19.64, "±4.94" was no number at all
and "10−4 SI" read "104 SI". Values losing their sign is the worst kind of silent error this
system can make (εNd, δ18O, inclinations).

No library repairs this (pdfminer, pypdf and poppler read the broken map as printed), so it is
done here, before any step reads the characters: a character of such a font with no Unicode is
named by its glyph name in the font's ``/Encoding /Differences`` ("C0" is the minus wherever the
subset puts it), and the characters the map names wrongly are replaced. Only glyphs read in
context in the benchmark's Elsevier papers are listed (``docs/experiments.md``, "Symbols an
Elsevier font names wrongly"); any other glyph keeps what pdfminer read.
"""

import re
from collections.abc import Iterable, Mapping
from typing import Any

from pdfminer.pdftypes import resolve1

# font (without its subset prefix) -> glyph name -> text, for glyphs the font gives no Unicode
_BY_GLYPH_NAME: dict[str, dict[str, str]] = {
    "AdvP4C4E74": {"C0": "\u2212", "C6": "±", "C14": "°"},
}
# font -> what pdfminer reads -> what is printed, for glyphs the font's Unicode map names wrongly
_MISNAMED: dict[str, dict[str, str]] = {
    "AdvP4C4E74": {"¼": "=", "þ": "+", "ð": "(", "Þ": ")", "½": "["},
    "AdvP4C4E51": {"=": "/"},  # the slash of "ln(A/F)", "ln(M/T)" (64 of 64 in Vermeesch & Pease 2021)
}
_FONTS = _BY_GLYPH_NAME.keys() | _MISNAMED.keys()
_CID = re.compile(r"\(cid:(\d+)\)")


def _base(fontname: str) -> str:
    return fontname.split("+", 1)[-1]


def _differences(font: Mapping[str, Any]) -> dict[int, str]:
    """Code → glyph name from a simple font's ``/Encoding /Differences`` (``[1 /C14 3 /C0 /C2]``)."""
    encoding = resolve1(font.get("Encoding"))
    if not isinstance(encoding, dict):
        return {}
    names: dict[int, str] = {}
    code = 0
    for item in resolve1(encoding.get("Differences")) or []:
        item = resolve1(item)
        if isinstance(item, int):
            code = item
        else:
            names[code] = str(getattr(item, "name", item))
            code += 1
    return names


def _fonts(resources: Any, seen: set[int] | None = None) -> Iterable[tuple[str, Mapping[str, Any]]]:
    """(BaseFont, font dictionary) of a resource dictionary and of the forms it draws."""
    seen = set() if seen is None else seen
    resources = resolve1(resources)
    if not isinstance(resources, dict) or id(resources) in seen:
        return
    seen.add(id(resources))
    for ref in (resolve1(resources.get("Font")) or {}).values():
        font = resolve1(ref)
        if isinstance(font, dict):
            yield str(getattr(resolve1(font.get("BaseFont")), "name", "")), font
    for ref in (resolve1(resources.get("XObject")) or {}).values():
        form = resolve1(ref)
        attrs = getattr(form, "attrs", None)
        if isinstance(attrs, dict):
            yield from _fonts(attrs.get("Resources"), seen)


def _glyph_names(page: Any) -> dict[str, dict[int, str]]:
    """BaseFont → code → glyph name for the page's fonts; none when the resources cannot be read
    (a broken font dictionary leaves the glyphs as pdfminer read them, never fails the paper)."""
    try:
        return {name: _differences(font) for name, font in _fonts(page.page_obj.resources)}
    except Exception:  # pdfminer raises many types on broken objects
        return {}


def repair_glyphs(page: Any) -> int:
    """Give the characters of a pdfplumber page the text their font's glyphs print (in place, so
    every later reader of ``page.chars`` sees it); returns how many were changed."""
    chars = page.chars
    listed = [c for c in chars if _base(str(c.get("fontname", ""))) in _FONTS]
    if not listed:
        return 0
    names: dict[str, dict[int, str]] | None = None
    changed = 0
    for char in listed:
        fontname = str(char["fontname"])
        text = str(char.get("text", ""))
        base = _base(fontname)
        cid = _CID.fullmatch(text)
        if cid is not None:
            if names is None:
                names = _glyph_names(page)
            glyph = names.get(fontname, {}).get(int(cid.group(1)), "")
            new = _BY_GLYPH_NAME.get(base, {}).get(glyph)
        else:
            new = _MISNAMED.get(base, {}).get(text)
        if new is not None:
            char["text"] = new
            changed += 1
    return changed
