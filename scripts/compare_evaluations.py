"""Compare two `geo-rag evaluate` output folders: are the results the same?

    python scripts/compare_evaluations.py BEFORE_DIR AFTER_DIR

Each folder holds one run (as `geo-rag evaluate --out DIR` writes it). Prints how many per-question
metric values differ, whether the per-type tables are equal (run ids, hashes and code versions aside),
and how many answers are identical with timings excluded, naming the fields of each answer that differ.
Used to show that a refactoring or a speed-up changed no result.
"""

import glob
import json
import sys

import pandas as pd

a = glob.glob(sys.argv[1] + "/*/")[0]
b = glob.glob(sys.argv[2] + "/*/")[0]
key = ["question_id", "query_type", "system", "metric"]
pa = pd.read_csv(a + "per_question.csv").sort_values(key).reset_index(drop=True)
pb = pd.read_csv(b + "per_question.csv").sort_values(key).reset_index(drop=True)
cols = key + ["group", "value", "status", "reason"]
d = (pa[cols].astype(object).fillna("") != pb[cols].astype(object).fillna("")).any(axis=1)
print(f"per_question: {len(pa)} vs {len(pb)} rows; rows with a different value/status: {int(d.sum())}")
ta = pd.read_csv(a + "per_type.csv")
tb = pd.read_csv(b + "per_type.csv")
tc = [
    c
    for c in ta.columns
    if c not in ("run_id", "identity_hash", "code_version", "config_hash", "data_versions_hash")
]
print("per_type compared columns:", tc)
print("per_type identical:", ta[tc].astype(object).fillna("").equals(tb[tc].astype(object).fillna("")))


def load(folder: str) -> dict[tuple[str, str], dict]:
    out = {}
    with open(folder + "answers.jsonl", encoding="utf-8") as handle:
        rows = [json.loads(line) for line in handle]
    for r in rows:
        for k in list(r):
            if "timing" in k or k.endswith("_ms") or k == "prompts":
                r.pop(k)
        out[(r["question_id"], r["system"])] = r
    return out


A, B = load(a), load(b)
same = [k for k in A if A[k] == B.get(k)]
print(f"answers identical (timings excluded): {len(same)}/{len(A)}")
for k in A:
    if A[k] != B.get(k):
        print("DIFF", k, [f for f in A[k] if A[k].get(f) != B[k].get(f)])
