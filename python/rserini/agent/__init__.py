"""Agent tools over an rserini index, and the evaluation of agent runs."""
