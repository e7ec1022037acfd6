"""`python -m reward.cli ...`: the same as the `reward` console script."""

import sys

from reward.cli.main import main

sys.exit(main())
