"""Terminal tables of scored batches (rich), shared by `reward score`, `make run` and the server's startup demo."""

from __future__ import annotations

from collections.abc import Sequence
from statistics import mean

from rich.console import Console
from rich.table import Table

from reward.rubric import LoadedSuite
from reward.schema import ItemResult


def _fmt(value: float | None) -> str:
    return "—" if value is None else f"{value:.3f}"


def items_table(results: Sequence[ItemResult], suite: LoadedSuite) -> Table:
    table = Table(title=f"Rewards ({suite.name}, {suite.suite.aggregation}, version {suite.version})")
    table.add_column("item", overflow="fold")
    table.add_column("reward", justify="right")
    table.add_column("gate B", justify="right")
    table.add_column("utility U", justify="right")
    table.add_column("valid")
    table.add_column("lowest dimensions")
    for result in results:
        scored = sorted((s.score, n) for n, s in result.dimensions.items() if s.score is not None)
        lowest = ", ".join(f"{n} {s:.2f}" for s, n in scored[:3] if s < 0.75)
        table.add_row(
            result.id,
            _fmt(result.reward),
            _fmt(result.gate),
            _fmt(result.utility),
            "yes" if result.valid else f"[red]no[/red] {result.reason or ''}",
            lowest,
        )
    return table


def dimensions_table(results: Sequence[ItemResult], suite: LoadedSuite) -> Table:
    table = Table(title="Per-dimension scores")
    table.add_column("dimension", no_wrap=True, min_width=len(max(suite.dimensions, key=len)))
    for column, justify in (("layer", "left"), ("backend", "left"), ("mean", "right"),
                            ("min", "right"), ("max", "right"), ("unscored", "right")):
        table.add_column(column, justify=justify)
    for name, dimension in suite.dimensions.items():
        scores = [r.dimensions[name] for r in results if name in r.dimensions]
        values = [s.score for s in scores if s.score is not None]
        reasons: dict[str, int] = {}
        for s in scores:
            if s.status == "unscored":
                reasons[s.reason or "unknown"] = reasons.get(s.reason or "unknown", 0) + 1
        backends = sorted({s.backend for s in scores})
        table.add_row(
            name,
            "bottom-line" if dimension.layer == "bottom_line" else "behavioral",
            ",".join(backends),
            _fmt(mean(values)) if values else "—",
            _fmt(min(values)) if values else "—",
            _fmt(max(values)) if values else "—",
            ", ".join(f"{k}: {v}" for k, v in reasons.items()) or "0",
        )
    return table


def print_report(results: Sequence[ItemResult], suite: LoadedSuite, console: Console | None = None) -> None:
    console = console or Console()
    console.print(items_table(results, suite))
    console.print(dimensions_table(results, suite))
