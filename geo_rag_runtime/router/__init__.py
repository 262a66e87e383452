"""The query router: which of the four query types a question is, and so which strategy answers it
(docs/method.md#query-classification).

One module per part, each importable on its own (this package imports nothing, so a serving process
that loads the numpy copy never imports scikit-learn):

* ``model`` — the trained artifact in the home (``<home>/models/query_classifier``): writing it,
  loading it with its hash check, the ``Classification`` a question gets, the per-process cache.
* ``linear`` — the numpy copy of the fitted pipeline (``linear.npz``), what a serving process runs.
* ``features`` — the scikit-learn transformer that puts the question's MiniLM vector beside the
  TF-IDF n-grams (what the pickled pipeline references).
* ``vectors`` — those MiniLM vectors of questions, memoized, shared by ``features`` and ``linear``.
* ``training`` — training, model comparison and the test-split evaluation (scikit-learn, no Dagster);
  the ``query_classifier`` asset in ``geo_assets/queries`` calls it.
* ``pickle_compat`` — the module paths the pickles of older homes name, mapped to these modules.

The pipeline's routing step (``query/routing.py``) asks the loaded model for a decision and picks
the strategy; it stays with the other steps of ``query/``.
"""
