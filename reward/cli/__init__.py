"""The `reward` command line: `main` builds the parser from one module per command group."""

from reward.cli.main import main

__all__ = ["main"]
