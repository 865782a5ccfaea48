"""``python -m corral``: the command line (see :mod:`corral.cli`)."""

import sys

from .cli import main

sys.exit(main())
