"""``python -m rserini``: the command-line interface."""

from rserini.cli import main

raise SystemExit(main())
