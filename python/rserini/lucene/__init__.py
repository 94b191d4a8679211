"""Lucene-facing code: Pyserini's prebuilt Lucene indexes (:mod:`rserini.lucene.prebuilt`)."""
