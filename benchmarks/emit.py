"""What every benchmark ends with: its report printed as JSON and, with `--out`, written to a results file
(benchmarks/results/*.json), and the machine it ran on."""

from __future__ import annotations

import json
import os
import platform
from pathlib import Path


def machine() -> str:
    return f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}"


def emit(report: dict, out: str | Path | None) -> None:
    text = json.dumps(report, indent=2)
    print(text)
    if out:
        Path(out).write_text(text + "\n")
