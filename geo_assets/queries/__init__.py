"""Query-classifier stage: synthetic labelled queries (plain helpers) and the assets (``assets``)
that generate them and train the classifier with ``geo_rag_runtime.router.training``. The
hand-written test split lives in ``data/seed_queries.csv``."""
