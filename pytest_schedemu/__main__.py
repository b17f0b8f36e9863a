"""``python -m pytest_schedemu serve``: the same as the ``schedemu`` command."""

import sys

from pytest_schedemu.cli import main

sys.exit(main())
