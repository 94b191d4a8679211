"""Agent runs: a scripted agent over a query set, its trajectories and run records,
and the metrics and citations they are evaluated by.

``write_record`` and ``read_runs`` read and write the run folder (see
:mod:`~rserini.agent.runs.records`).
"""

from rserini.agent.runs.records import read_runs, write_record

__all__ = ["read_runs", "write_record"]
