"""The evaluation dataset: the shipped file is complete and its passages really come from the papers."""

import json
import re
import unicodedata
from collections import Counter
from pathlib import Path

import pytest
from pypdf import PdfReader
from rapidfuzz import fuzz

from geo_assets.evaluation.dataset import (
    CORPUS_DATASET,
    DATASETS,
    DEFAULT_DATASET,
    EvalQuestion,
    dataset_version,
    load_eval_dataset,
    match_key,
    resolve_dataset,
)
from geo_rag_runtime.errors import InputError
from geo_rag_runtime.models import QUERY_TYPES

REPO = Path(__file__).resolve().parents[2]
MIN_PER_TYPE = 12
MIN_PER_PAPER = 6
MIN_PASSAGE_SCORE = 90  # rapidfuzz partial_ratio on match_key()-normalized text
NUMBER = re.compile(r"\d+(?:[.,]\d+)*")


@pytest.fixture(scope="session")
def shipped() -> list[EvalQuestion]:
    return load_eval_dataset(DEFAULT_DATASET)


@pytest.fixture(scope="session")
def paper_texts(sample_papers: Path) -> dict[str, str]:
    """pypdf text of every sample paper (NFKC), extracted once per session."""
    return {
        pdf.name: unicodedata.normalize(
            "NFKC", "\n".join(page.extract_text() or "" for page in PdfReader(pdf).pages)
        )
        for pdf in sorted(sample_papers.glob("*.pdf"))
    }


@pytest.fixture(scope="session")
def paper_keys(paper_texts: dict[str, str]) -> dict[str, str]:
    return {name: match_key(text) for name, text in paper_texts.items()}


def _good_record(**overrides: object) -> dict[str, object]:
    record: dict[str, object] = {
        "id": "q001",
        "question": "What is the decay constant of 187Re?",
        "query_type": "explicit_fact",
        "reference_answer": "It is given by Smoliar et al. (1996).",
        "reference_passages": [{"source_file": "paper.pdf", "text": "A passage."}],
        "reference_entities": ["187Re"],
        "papers": ["paper.pdf"],
    }
    record.update(overrides)
    return record


def _write(tmp_path: Path, lines: list[str]) -> Path:
    path = tmp_path / "dataset.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


# ------------------------------------------------------------------------------------ shipped file


def test_default_dataset_resolves_inside_the_checkout():
    assert DEFAULT_DATASET == REPO / "data" / "evaluation" / "geochem_qa_v1.jsonl"
    assert DEFAULT_DATASET.is_file()


def test_shipped_dataset_loads(shipped: list[EvalQuestion]):
    assert len(shipped) >= 4 * MIN_PER_TYPE
    assert [q.id for q in shipped] == [f"q{i:03d}" for i in range(1, len(shipped) + 1)]


def test_at_least_twelve_questions_per_query_type(shipped: list[EvalQuestion]):
    counts = Counter(q.query_type for q in shipped)
    assert set(counts) == set(QUERY_TYPES)
    assert min(counts.values()) >= MIN_PER_TYPE, counts


def test_at_least_six_questions_per_paper(shipped: list[EvalQuestion], sample_papers: Path):
    counts = Counter(paper for q in shipped for paper in q.papers)
    pdfs = {p.name for p in sample_papers.glob("*.pdf")}
    assert set(counts) == pdfs
    assert min(counts.values()) >= MIN_PER_PAPER, counts


def test_every_cited_paper_exists(shipped: list[EvalQuestion], sample_papers: Path):
    cited = {p.source_file for q in shipped for p in q.reference_passages} | {
        paper for q in shipped for paper in q.papers
    }
    missing = sorted(name for name in cited if not (sample_papers / name).is_file())
    assert not missing


def test_every_paper_listed_is_cited_by_a_passage(shipped: list[EvalQuestion]):
    for q in shipped:
        assert set(q.papers) == {p.source_file for p in q.reference_passages}, q.id


def test_reference_entities_appear_in_the_reference_answer(shipped: list[EvalQuestion]):
    missing = [
        (q.id, entity)
        for q in shipped
        for entity in q.reference_entities
        if match_key(entity) not in match_key(q.reference_answer)
    ]
    assert not missing


@pytest.mark.slow
def test_reference_passages_are_found_in_their_papers(
    shipped: list[EvalQuestion], paper_keys: dict[str, str]
):
    """Every passage is a real quotation: found (fuzzily, after normalization) in its paper's text."""
    failures = []
    for q in shipped:
        for passage in q.reference_passages:
            needle = match_key(passage.text)
            haystack = paper_keys[passage.source_file]
            if needle in haystack:
                continue
            score = fuzz.partial_ratio(needle, haystack)
            if score < MIN_PASSAGE_SCORE:
                failures.append(f"{q.id} ({score:.0f}): {passage.text[:80]}")
    assert not failures, "passages not found in their papers:\n" + "\n".join(failures)


@pytest.mark.slow  # reads every sample PDF
def test_numbers_quoted_occur_in_the_papers(shipped: list[EvalQuestion], paper_texts: dict[str, str]):
    """Fuzzy matching forgives a changed digit; this does not: every number in a reference answer or passage
    is a number token of the papers the question rests on."""
    tokens = {name: set(NUMBER.findall(text)) for name, text in paper_texts.items()}
    failures = []
    for q in shipped:
        known = set().union(*(tokens[paper] for paper in q.papers))
        for text in [q.reference_answer, *(p.text for p in q.reference_passages)]:
            unknown = [n for n in NUMBER.findall(unicodedata.normalize("NFKC", text)) if n not in known]
            if unknown:
                failures.append(f"{q.id}: {unknown}")
    assert not failures


def test_match_key_tolerates_extraction_artefacts():
    extracted = "the calc-\nalkaline trend (Ao =\u00a00.23 %) de-\ncompresses; thebest-ﬁtting 𝑇𝑝, A þ F"
    typed = "the calc-alkaline trend (Ao = 0.23 %) decompresses; the best-fitting Tp, A + F"
    assert match_key(extracted) == match_key(typed)


# ------------------------------------------------------------------------------------ version


def test_dataset_version_is_short_hex_and_ignores_formatting(tmp_path: Path):
    version = dataset_version(DEFAULT_DATASET)
    assert len(version) == 12
    int(version, 16)
    records = [json.loads(line) for line in DEFAULT_DATASET.read_text(encoding="utf-8").splitlines()]
    reformatted = [
        json.dumps(dict(reversed(list(r.items()))), indent=None, ensure_ascii=True) for r in records
    ]
    assert dataset_version(_write(tmp_path, ["", *reformatted, ""])) == version


def test_dataset_version_changes_with_content(tmp_path: Path):
    one = dataset_version(_write(tmp_path, [json.dumps(_good_record())]))
    two = dataset_version(_write(tmp_path, [json.dumps(_good_record(reference_answer="Another answer."))]))
    assert one != two


# ------------------------------------------------------------------------------------ bad files


@pytest.mark.parametrize(
    ("bad_line", "expected"),
    [
        ('{"id": "q002", "question": ', "invalid JSON"),
        ("[1, 2, 3]", "expected a JSON object"),
        (
            json.dumps({k: v for k, v in _good_record(id="q002").items() if k != "reference_answer"}),
            "reference_answer",
        ),
        (json.dumps(_good_record(id="q002", query_type="factoid")), "query_type"),
        (json.dumps(_good_record(id="q002", reference_passages="see the paper")), "reference_passages"),
        (json.dumps(_good_record(id="q002", reference_passages=[])), "reference_passages"),
        (json.dumps(_good_record(id="q002", question="   ")), "question"),
        (json.dumps(_good_record(id="q002", papers=["other.pdf"])), "not listed in papers"),
        (json.dumps(_good_record(id="q002", surprise=1)), "surprise"),
        (json.dumps(_good_record(id="q002", answerable=False)), "unanswerable question has no"),
        (json.dumps(_good_record()), "duplicate id 'q001' (first used on line 1)"),
    ],
    ids=[
        "bad-json",
        "not-object",
        "missing-field",
        "unknown-type",
        "wrong-type",
        "no-passages",
        "blank-question",
        "unlisted-paper",
        "extra-field",
        "unanswerable-with-evidence",
        "duplicate-id",
    ],
)
def test_bad_line_raises_input_error_naming_file_and_line(tmp_path: Path, bad_line: str, expected: str):
    path = _write(tmp_path, [json.dumps(_good_record()), bad_line, json.dumps(_good_record(id="q003"))])
    with pytest.raises(InputError) as info:
        load_eval_dataset(path)
    message = str(info.value)
    assert str(path) in message
    assert "line 2" in message
    assert expected in message


def test_blank_lines_are_skipped_and_line_numbers_stay_true(tmp_path: Path):
    path = _write(tmp_path, [json.dumps(_good_record()), "", "   ", "{not json"])
    with pytest.raises(InputError, match="line 4"):
        load_eval_dataset(path)


def test_missing_and_empty_files_raise_input_error(tmp_path: Path):
    with pytest.raises(InputError, match="not found"):
        load_eval_dataset(tmp_path / "absent.jsonl")
    with pytest.raises(InputError, match="no questions"):
        load_eval_dataset(_write(tmp_path, ["", ""]))


def test_the_corpus_set_loads_with_its_unanswerable_questions():
    """The second set (17 shared-corpus papers): what issue 14 asks of it, checked on the file."""
    questions = load_eval_dataset(resolve_dataset("corpus"))
    assert resolve_dataset("corpus") == CORPUS_DATASET and resolve_dataset(None) == DEFAULT_DATASET
    assert len(questions) >= 120
    assert min(Counter(q.query_type for q in questions).values()) >= 25
    assert sum(q.multi_hop for q in questions) >= 20
    unanswerable = [q for q in questions if not q.answerable]
    assert len(unanswerable) >= 15 and all(not q.reference_passages for q in unanswerable)
    assert len({p for q in questions for p in q.papers}) == 17


def test_the_heldout_corpus_set_loads_and_shares_no_question_with_the_corpus_set():
    """The abstention check's fresh set: 30 near misses, 20 answerable, none copied from the first set."""
    from geo_rag_runtime.contract import EVALUATION_SETS

    assert tuple(DATASETS) == EVALUATION_SETS  # the names the CLI passes through
    questions = load_eval_dataset(resolve_dataset("corpus_heldout"))
    assert (len(questions), sum(not q.answerable for q in questions)) == (50, 30)
    from geo_assets.queries.synthetic_queries import normalize_query

    first = {normalize_query(q.question) for q in load_eval_dataset(resolve_dataset("corpus"))}
    assert not {normalize_query(q.question) for q in questions} & first


def test_the_value_question_set_loads_with_its_evidence() -> None:
    """The blind set for the value-question check: 20 numbers the papers give, 20 they do not."""
    questions = load_eval_dataset(resolve_dataset("corpus_values"))
    answerable = [q for q in questions if q.answerable]
    assert (len(questions), len(answerable)) == (40, 20)
    assert len({p for q in answerable for p in q.papers}) == 17
    # every answerable question's reference passage carries a number
    assert all(any(ch.isdigit() for p in q.reference_passages for ch in p.text) for q in answerable)


def test_default_answerability_does_not_change_the_version(tmp_path: Path):
    """Sets written before ``answerable``/``multi_hop`` existed keep their version."""
    plain = dataset_version(_write(tmp_path, [json.dumps(_good_record())]))
    explicit = _write(tmp_path, [json.dumps(_good_record(answerable=True, multi_hop=False))])
    assert dataset_version(explicit) == plain
    hop = _write(tmp_path, [json.dumps(_good_record(multi_hop=True))])
    assert dataset_version(hop) != plain


@pytest.mark.parametrize(("name", "prefixes"), [("corpus_v2", ("w",)), ("corpus_v3", ("A", "B"))])
def test_the_final_report_sets_load_with_their_quotas(name: str, prefixes: tuple[str, ...]) -> None:
    """Issue 29's final-report sets: ≥ 60 questions, ≥ 10 unanswerable, ≥ 10 resting on two papers,
    every answerable one with evidence; ids of their own so that no merge of sets can mix questions."""
    questions = load_eval_dataset(resolve_dataset(name))
    assert len(questions) >= 60
    assert sum(not q.answerable for q in questions) >= 10
    assert sum(len(set(q.papers)) >= 2 for q in questions) >= 10
    assert all(q.id.startswith(prefixes) for q in questions)
    others = {q.id for other in DATASETS if other != name for q in load_eval_dataset(resolve_dataset(other))}
    assert not others & {q.id for q in questions}
