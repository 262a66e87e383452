"""Measurements stage: every reported value of a paper as a typed, cited row (``measurements``)."""

from collections import Counter
from typing import Any

import dagster as dg

from geo_assets.partitions import papers_partitions
from geo_assets.resources import DocumentStoreResource, HomeWriterResource
from geo_rag_runtime.models import CleanedPaper, Paper
from geo_rag_runtime.vocab import vocabulary_version


@dg.asset(
    partitions_def=papers_partitions,
    group_name="measurements",
    kinds={"mongodb"},
    # 34: a row whose sample is a reference material (GJ-1, BCR-2, Temora2) is noted "reference
    # material: …" and counted by the check;
    # 33: any metal's oxide at the valences analyses print (SnO2, WO3, Nb2O5, Ta2O5, Li2O), no "NaO";
    # a value in brackets inside a list of names is the names' printed before it; "sample OK16" a name;
    # the rocks of a region named by its acronym ("leucogranites in the WALZ") are a unit; a sample set
    # apart ("all samples except OD1") is no value's;
    # 32: samples the tables name found bare in the text, series and catalogue numbers, parts of a sample;
    # 31: a sample named in an earlier paragraph is carried only when it is the one sample the section
    # names and the paper calls it a sample; "cm2", "1-SE", "3-D", "Type-1" are no samples; names in
    # brackets after rocks ("red beds (GV10.11)") are; a stock is a unit, a unit a value "deviates
    # from" is set apart, "This … granite" goes on about the unit before; more rock names;
    # 30: a composition printed before the one unit its sentence names is that unit's; a sentence
    # goes on about a unit with "these basalts" anywhere, or "The felsic rocks" up to three sentences
    # on; rocks a unit "contains" are that unit's; a unit a value is compared with ("indistinguishable
    # from", "higher than") is not its; the rocks of a named region ("mafic rocks of the Central
    # Iberian Zone") and a mineral after a place name ("Durango apatite") are a unit; footnotes give
    # a kind of row its unit ("Trace elements in ppm"), and a table split over pages takes its last
    # page's footnotes on every page;
    # 29: a range cell ("89–95") is a value and its high end, a mean bracketed after it a note; "131 ± 5"
    # gridded over three columns is one value and its uncertainty; a parameter in the label column
    # ("ζ = 385.9" under "JR1") is the sample's, its row the sample's next grain; columns headed by
    # identifiers ("Säntis (T7)") are samples whatever the rows name; coordinates are no row label;
    # the rocks of a tectonic setting ("mid-ocean ridge basalts") are a text value's rock unit;
    # 28: a unit outside the vocabulary is the row's unit as printed, not a note ("U [pmol]", "3He
    # (×10³)", "10Be (×1000 at g⁻¹)"), and "(m Ma⁻¹)" is a rate, not Ma; a headless column of units
    # beside a whole-rock table's labels ("SiO2 | (%)") gives each row its unit; "SiO[2]" is SiO2; a
    # group header printed once over its columns ("In situ statistics") names none of them; a
    # fission-track table's "Ni" and "Nd" are track counts, no nickel or neodymium; a row label that
    # is an identifier ("BGC-5", "NEM-26/27") names the row's sample where nothing else does; a
    # caption that ends in a unit ("… data (×10⁴ atoms g⁻¹)") gives it to the columns that print
    # none; "(ºC)" with an ordinal o, "25 oC" and a bare "(°)" are units; a line of bracketed numbers
    # under a row of values ("(0.0063) (21)") holds their uncertainties; a matrix of pairs (the same
    # labels down the side and across the top: distances, confusion counts) holds no values;
    # 27: a row that names a sample and states a parameter in place of values ("IH-3  J = 0.0106220 ±
    # 0.0000425") is a section row, not a header line; a head naming a quantity with its uncertainty
    # ("36Ar ± 1σ") spans the blank column right of it on a one-line header; a head split "Age ±" |
    # "2σ (Ma)" gives the value its unit; rows of heads after data head the rows under them (an Ar–Ar
    # results block); "Na" over a column is sodium; a serial-number column ("S/NO") is no S/N ratio;
    # 26: a unit printed on a row label where a block begins ("SiO2 %", "Sc ppm") holds for the rows of
    # its kind under it that print none ("Ge ppb" inside a ppm block is that row's alone); an oxide's
    # or element's "%" is wt.%; a header row headed "reference" (or source, analyst) names no samples,
    # and a caption naming the one sample a table analyses ("Chemical composition of 15682") gives it;
    # letter marks set in cells of their own ("(a)", "(c", ")") make no row a header row;
    # 25: "ΔD" after "D" (and cells printed "±4.94") is the uncertainty of the column before it; a count
    # after the word "samples" ("(10 out of 20)") is no sample; a column of lone minus signs gives each
    # to the number right of it; every year of an author's list ("Vermeesch, 2008, 2010") is a citation's;
    # 24: a value said of a named rock unit carries it (rock_unit); a name given after "sample" is found
    # bare in the paper's other sentences;
    # 23: a table set in halves side by side, each with its own sample column, gives each half's rows
    # their own sample (the right half was read as a second block of the left sample's columns);
    # correlation matrices and component loadings are no measurements; numbers under a text column's
    # header spread over blank cells, a letter-spaced head ("M I N E R A L S") or "Remarks" have no name;
    # 22: cells under a blank row label, a repeated column header or a repeated label under another
    # section row are kept apart, not dropped as repeats; "+2σ" (a lost "±"), "36Ar ± 1σ" over two
    # columns and "2s" after an unread column are uncertainties; "Au" over "ppm" is Au in ppm, "21/20"
    # a ratio; "eNd(t)", "Epsilon Nd" and "d18O" (no Greek letters) are εNd and δ18O;
    # 21: middle-dot decimal points ("66·0", Journal of Petrology), raised footnote marks after a cell
    # or an element ("77·1¹", "Be¹") no digits of it, an element with its concentration in brackets
    # ("Rb (590–1250 ppm)"), the header row of identifiers names a table's samples ("Analysis:");
    # 20: a concentration printed before its element or oxide is that analyte's ("4 wt% H2O",
    # "200 ppm Sr"), a reciprocal unit is no range, "respectively" over a name that is no analyte;
    # 19: εNd(t) and εNd(0) notes, rows with descriptions, repeated row labels;
    # 18: a quantity named by its header drops the unit the header prints ("dt [Ma]" → "dt"); a
    # bracketed unit outside the vocabulary ("U [pmol]") goes to the notes; a capital ΔD is no δD;
    # "Scenarios 1 and 2", "an uncertainty of 1 Ma", "10 °C min-1", "[5]", "df > 3" are no values;
    # a header that sets a condition ("λ = 200", "P = 1 GPa") holds the quantity the caption names;
    # instruments and software ("software (including Squid-1, Squid-2)") are no samples; whole-rock
    # units from section rows ("Trace elements (ppm)") or a caption naming wt.% and ppm, the sample
    # from the "Sample" header row (others as notes), "2SD" rows as uncertainties, "(La/Yb)N" a ratio;
    # total iron "Fe2O3(T)", "FeOtot" stored as Fe2O3T / FeOT, never ferric Fe2O3; a table row's
    # material from its "Rock type" cell or the caption's one mineral or rock; "± 2.1 Ma (2σ, MSWD …)"
    # gives the level; an initial isotope ratio ("(87Sr/86Sr)i", "initial 87Sr/86Sr") says so; mineral
    # end-members in mol% ("Fo85–91"); a "Total" column is no uncertainty;
    # 17: a caption that says the values are percentages gives "%" to columns named by their words;
    # 16: formula terms, potassium-40, lone "±" offsets and time scales are no values; compound words,
    # units and formula indices are no samples; "Site"/"Code" columns name samples (audit of unseen rows);
    # 15: sample section rows, stacked ratio headers, footnote-mark header rows, "± x (y) [z]";
    # 14: a sparse top header line heads its own column only; a wrapped header's "error)" is no
    # uncertainty column; a continued page takes its first page's caption unit and is cited at its
    # own block; 13: a name before its bracketed value is its sample; ratio columns in Ma are ages
    code_version=f"measurements-34+vocab.{vocabulary_version()}",
    pool="docstore",
    check_specs=[dg.AssetCheckSpec("rows_with_sample", asset="measurements")],
    description="Every numeric value the paper's text reports with its analyte (canonical: element, "
    "oxide, isotope ratio, ε/δ notation, age, T, P …), value or range, unit, uncertainty, qualifier, "
    "material and method where the sentence names them, and provenance (page, section, chunk, "
    "sentence, character span) — and every numeric cell of the tables whose cells the TEI carries "
    "(GROBID's <table>, and the embedded parser's tables read by pdfplumber), named by table, row "
    "and column; each row carries the sample the paper names for it (table label, or the sentence "
    "or its section: 'sample 19MAT-169 yields …'); "
    "replaced on re-ingest, removed when the paper is retired.",
)
def measurements(
    context: dg.AssetExecutionContext,
    paper_json: Paper,
    cleaned_text: CleanedPaper,
    chunks: dict[str, Any],
    documents: DocumentStoreResource,
    home_writer: HomeWriterResource,  # the home's writer lock, held for the run
):
    from geo_assets.measurements.extract import EXTRACTOR, REFERENCE_NOTE, paper_measurements

    with documents.open() as store:
        held = store.get_chunks(chunks["chunk_ids"])
        rows = paper_measurements(cleaned_text, held, paper_json.captions)
        written = store.replace_measurements(cleaned_text.paper_id, rows)
    by_analyte = Counter(r.analyte for r in rows)
    by_source = Counter(r.source_type for r in rows)
    preview = [
        {"analyte": r.analyte, "value": r.value, "value_max": r.value_max, "unit": r.unit, "page": r.page,
         "printed": r.printed}
        for r in rows[:10]
    ]  # fmt: skip
    context.log.info(f"{cleaned_text.source_file}: {len(rows)} measurements ({written})")
    with_sample = sum(bool(r.sample) for r in rows)
    standards = sum(any(n.startswith(REFERENCE_NOTE) for n in r.notes) for r in rows)
    unit_only = sum(bool(r.rock_unit and not r.sample) for r in rows)
    yield dg.AssetCheckResult(
        check_name="rows_with_sample",
        # a report, not a gate: many values (literature ages, ranges over a suite) have no sample
        passed=True,
        description=(
            f"{with_sample} of {len(rows)} rows carry the sample the paper names for them"
            f" ({standards} of a reference material); {unit_only} more the rock unit they describe"
        ),
        metadata={
            "rows": len(rows),
            "with_sample": with_sample,
            "of_reference_materials": standards,
            "share": round(with_sample / len(rows), 3) if rows else 0.0,
            "samples": sorted({r.sample_key or r.sample for r in rows if r.sample})[:50],
            "with_rock_unit_only": unit_only,
            "rock_units": sorted({r.rock_unit for r in rows if r.rock_unit})[:50],
        },
    )
    yield dg.Output(
        {"paper_id": cleaned_text.paper_id, "measurements": len(rows)},
        metadata={
            "measurements": len(rows),
            "from_text": by_source.get("text", 0),
            "from_tables": by_source.get("table", 0),
            "analytes": dg.MetadataValue.json(dict(by_analyte.most_common())),
            "preview": dg.MetadataValue.json(preview),
            "extractor": EXTRACTOR,
            "stale_deleted": written["deleted_stale"],
        },
    )
