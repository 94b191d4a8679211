"""``python -m rserini.parity``: ``--install``, ``--check``, ``index ARGS``, or a parity check."""

from rserini.parity._cli import main

raise SystemExit(main())
