"""The words that name rocks and minerals in running text, as regular-expression alternatives.

Shared by :mod:`geo_assets.measurements.rock_units` (a rock after a place name is a unit: "the
Palisades dolerite") and :mod:`geo_assets.measurements.samples` (an identifier in brackets after
rocks names them: "red beds (GV10.11)"). Kept as patterns, not the vocabulary's entries, because
both readers need the plural forms and one alternation compiled into larger patterns; the names
follow the vocabulary's Rock type (single words), with the rock words papers print that it lacks
(diabase, greisen, breccia, marl …).
"""

from __future__ import annotations

__all__ = ["MINERALS", "ROCKS"]

ROCKS = (
    r"(?i:granite|granodiorite|diorite|tonalite|trondhjemite|monzonite|monzogranite|leucogranite|syenite|"
    r"apogranite|granitoid|charnockite|gabbro|norite|troctolite|anorthosite|dolerite|diabase|"
    r"peridotite|dunite|harzburgite|lherzolite|wehrlite|websterite|pyroxenite|hornblendite|komatiite|"
    r"basalt|andesite|trachyandesite|trachybasalt|dacite|rhyolite|trachyte|phonolite|basanite|tephrite|"
    r"nephelinite|foidite|picrite|boninite|adakite|tholeiite|ignimbrite|tuff|pumice|obsidian|scoria|"
    r"kimberlite|carbonatite|lamprophyre|lamproite|pegmatite|aplite|porphyry|orthogneiss|paragneiss|"
    r"gneiss|migmatite|granulite|eclogite|amphibolite|schist|greenschist|blueschist|phyllite|slate|"
    r"marble|quartzite|serpentinite|skarn|hornfels|greisen|mylonite|ophiolite|greenstone|"
    r"sandstone|siltstone|mudstone|claystone|shale|greywacke|graywacke|arkose|limestone|dolostone|marl|"
    r"chert|evaporite|conglomerate|breccia|diamictite|tillite)s?"
)
# a mineral after a place name is a named material, often a reference material: "Durango apatite",
# "Fish Canyon sanidine", "Plešovice zircon", "Mount Dromedary biotite", "Jack Hills zircon"
MINERALS = (
    r"(?:zircons?|apatites?|titanites?|sphenes?|monazites?|xenotimes?|rutiles?|baddeleyites?|allanites?|"
    r"sanidines?|biotites?|muscovites?|phlogopites?|hornblendes?|amphiboles?|plagioclases?|feldspars?|"
    r"garnets?|olivines?|pyroxenes?|clinopyroxenes?|orthopyroxenes?|spinels?|micas?|calcites?|"
    r"dolomites?|quartz|magnetites?|ilmenites?|cassiterites?|columbites?|tourmalines?|topaz|glass)"
)
