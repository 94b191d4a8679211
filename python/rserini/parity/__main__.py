"""``python -m rserini.parity``: ``--install``, ``--check``, ``index ARGS``, or a parity check."""

from rserini.cli.parity import main

raise SystemExit(main())
