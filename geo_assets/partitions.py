"""The per-paper partitions: one dynamic partition per registered PDF (key = file name)."""

import dagster as dg

PAPERS = "papers"
papers_partitions = dg.DynamicPartitionsDefinition(name=PAPERS)


def after_papers_change() -> dg.AutomationCondition:
    """When a corpus asset (trained over every paper) is refreshed by the daemon: once its inputs
    changed (a paper's run finished) and no run is writing them or it, the way ``eager()`` does —
    without ``eager()``'s demand that every upstream partition exist, since one failed paper (a
    missing partition, by design) would then keep the query classifier and the ranker from ever
    learning the papers that did arrive. At least one paper must be there to learn from.

    Only the daemon's automation sensor acts on it; ``geo-rag ingest`` refreshes these assets itself.
    """
    any_paper = dg.AutomationCondition.any_deps_match(~dg.AutomationCondition.missing())
    return (
        dg.AutomationCondition.eager().without(~dg.AutomationCondition.any_deps_missing()) & any_paper
    ).with_label("after papers change")
