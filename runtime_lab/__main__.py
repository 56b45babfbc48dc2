"""`python -m runtime_lab`: the command line."""

import sys

from runtime_lab.cli.main import main

sys.exit(main())
