"""GeoRAG runtime: domain models, stores, retrieval and answering. Never imports dagster."""

__version__ = "0.1.0"
