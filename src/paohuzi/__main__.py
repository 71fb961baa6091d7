"""``python -m paohuzi``: the ``paohuzi`` command line (:mod:`paohuzi.apps.cli`)."""

import sys

from paohuzi.apps.cli import main

if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
