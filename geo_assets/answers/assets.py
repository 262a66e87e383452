"""Answer stage: the answer-sentence ranker, trained on the ingested papers themselves."""

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
    description="Logistic regression over 16 cheap features of (question, sentence) that ranks the "
    "context's sentences for the extractive and grounded answers; trained on questions written from "
    "the home's own sentences (value rows, entity pairs, rare words) with the real retrieval's other "
    "sentences as negatives. JSON weights in $GEO_RAG_HOME/models (no pickle); a home with fewer than "
    f"{MIN_QUESTIONS} usable questions keeps the packaged ranker.",
)
def answer_selector(
    context: dg.AssetExecutionContext,
    geo: GeoRagResource,
    home_writer: HomeWriterResource,  # the home's writer lock, held for the run (it writes models/)
):
    from geo_assets.answers.selector_training import train_for_home
    from geo_rag_runtime import contract
    from geo_rag_runtime.query.selector import PACKAGED_SELECTOR, SELECTOR_FILE

    settings = geo.settings()
    model = train_for_home(settings, log=context.log.info)
    questions = int(model.meta.get("questions", 0))
    target = settings.path("models") / SELECTOR_FILE
    if questions < MIN_QUESTIONS:
        used = PACKAGED_SELECTOR
        context.log.warning(f"only {questions} usable training questions: the packaged ranker stays in use")
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
