"""Index stage: chunk embeddings into the vector store and the BM25 keyword index (``assets``)."""
