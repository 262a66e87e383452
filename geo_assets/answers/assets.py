"""Answer stage: the answer-sentence ranker the home serves (packaged, or trained on its own papers)."""

import dagster as dg

from geo_assets.answers.selector_training import MIN_QUESTIONS, TRAINING_VERSION
from geo_assets.partitions import after_papers_change
from geo_assets.queries.assets import query_classifier
from geo_assets.resources import GeoRagResource, HomeWriterResource


@dg.asset(
    deps=[query_classifier],
    group_name="answers",
    kinds={"scikitlearn", "json"},
    code_version=TRAINING_VERSION,
    automation_condition=after_papers_change(),
    description="The answer-sentence ranker the home serves: a logistic regression over 18 cheap "
    "features of (question, sentence). By default the packaged one, trained on hand-written questions "
    "(measured best on papers it never trained on); with GEO_RAG_ANSWER_SELECTOR=home it is trained "
    "here on template questions written from the home's own sentences (value rows, entity pairs, rare "
    "words) with the real retrieval's other sentences as negatives, saved as JSON weights in "
    f"$GEO_RAG_HOME/models (no pickle); a home with fewer than {MIN_QUESTIONS} usable questions keeps "
    "the packaged ranker.",
)
def answer_selector(
    context: dg.AssetExecutionContext,
    geo: GeoRagResource,
    home_writer: HomeWriterResource,  # the home's writer lock, held for the run (it writes models/)
):
    from geo_assets.answers.selector_training import train_for_home
    from geo_rag_runtime import contract
    from geo_rag_runtime.query.selector import PACKAGED_SELECTOR, SELECTOR_FILE, load_selector

    settings = geo.settings()
    target = settings.path("models") / SELECTOR_FILE
    if settings.answer_selector != "home":
        # the packaged ranker serves (or none, with answer_selector=relevance): training one here that
        # nothing reads would only cost ingest time
        used = PACKAGED_SELECTOR
        model = load_selector(PACKAGED_SELECTOR)
        if model is None:
            raise FileNotFoundError(f"the packaged answer ranker {PACKAGED_SELECTOR} is missing")
        context.log.info(f"answer_selector={settings.answer_selector}: the packaged ranker is served")
    else:
        model = train_for_home(settings, log=context.log.info)
        questions = int(model.meta.get("questions", 0))
        if questions < MIN_QUESTIONS:
            used = PACKAGED_SELECTOR
            context.log.warning(
                f"only {questions} usable training questions: the packaged ranker stays in use"
            )
        else:
            used = model.save(target)
    text = used.read_text(encoding="utf-8")
    return dg.Output(
        str(used),
        data_version=dg.DataVersion(contract.text_hash(text, 16)),
        metadata={
            "selector": dg.MetadataValue.path(str(used)),
            "trained_here": used == target,
            "training": dg.MetadataValue.json(model.meta),
            "weights": dg.MetadataValue.json(
                {f: round(float(w), 4) for f, w in zip(model.features, model.coef, strict=True)}
            ),
        },
    )
