"""The ``rserini`` command line: index, search, run, explain, eval, tune, serve, agent
runs and parity.

One module per command family, each adding its subcommands through ``add_commands``;
each parses its arguments and calls the library: no logic lives here.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from rserini.cli import agent, evaluate, index, parity, search, serve, tune
from rserini.exceptions import RseriniError

__all__ = ["build_parser", "main"]

EPILOG = """\
examples:
  rserini search "inverted index compression"      search the files under the current folder
  rserini index --input corpus.jsonl --index idx   index a JSONL corpus (Pyserini or BEIR shape)
  rserini search --index idx --k1 25 --b 1 "long document query"
  rserini run --index idx --queries queries.jsonl --output run.trec --remove-query
"""

# In the order `rserini --help` lists them.
FAMILIES = (index, search, evaluate, tune, serve, agent, parity)


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of the ``rserini`` command."""
    parser = argparse.ArgumentParser(
        prog="rserini",
        description="Fast, faithful lexical search: Lucene-compatible BM25 (any k1/b at query "
        "time), TF-IDF and exact top-k on a Rust core.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--version", action="version", version=f"rserini {__import__('rserini').__version__}"
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for family in FAMILIES:
        family.add_commands(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Runs the command line; returns the exit status."""
    args = build_parser().parse_args(argv)
    try:
        return int(args.func(args))
    except (RseriniError, OSError) as e:
        print(f"rserini: error: {e}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130
