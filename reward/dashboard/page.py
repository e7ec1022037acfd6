"""The per-dimension training-dynamics dashboard: a self-contained HTML page over a score log.

For one or several runs side by side (e.g. gated vs linear): per dimension the mean score per training step with
a p10-p90 band, gate / utility / reward curves, unscored rates by reason, the bottom-line dimensions highlighted,
a table of the latest values, and, for runs scored through a judge cascade, its audit agreement and the share of
calls the cheap tier decided per dimension (the section is left out when no run has cascade scores). Click a
point to see sample items of that step with their scores, judge explanations and quotes. Plotly.js (from the
`plotly` package) is inlined, so the page works offline. The HTML and the script are files of `assets/` (package
data); this module fills in the title, the data and the script.

    reward dashboard --log var/scores --out report.html
"""

from __future__ import annotations

import functools
import html
import json
from collections.abc import Iterable, Mapping, Sequence
from importlib import resources
from pathlib import Path

from reward.dashboard.data import drilldown, embedded_samples, ensure_store, page_data, store_version
from reward.dashboard.monitors import page_alerts
from reward.dashboard.stats import SAMPLE_STEPS, summarise
from reward.dashboard.trainer import TrainerMetricsError, trainer_data
from reward.scorelog import ScoreRecord
from reward.scorelog.store import UNSTEPPED_BUCKET

__all__ = ["drilldown", "render", "render_from_log", "summarise"]

DEFAULT_TITLE = "Reward training dynamics"
DEFAULT_SMOOTHING = 0.6
"""Exponential-moving-average weight of the curves when the page opens (TensorBoard's convention; 0 = raw)."""


@functools.cache
def _asset(name: str) -> str:
    """A file of `reward/dashboard/assets` (package data): the page's HTML skeleton (`page.html`, with `%TITLE%`,
    `%CASCADE%`, `%DATA%`, `%PLOTLY%` and `%SCRIPT%` slots), the cascade section and the page's script."""
    return resources.files("reward.dashboard").joinpath("assets", name).read_text(encoding="utf-8")


def _plotly_js() -> str:
    return resources.files("plotly").joinpath("package_data/plotly.min.js").read_text(encoding="utf-8")


@functools.cache
def _titles() -> dict[str, str]:
    from reward.rubric import DEFAULT_RUBRIC_DIR

    return _read_titles(DEFAULT_RUBRIC_DIR)


def _read_titles(root: Path) -> dict[str, str]:
    from reward.rubric import load_dimension

    titles = {}
    for path in sorted((root / "dimensions").glob("*.yaml")):
        try:
            titles[path.stem] = load_dimension(path).title
        except Exception:  # a broken rubric must not break the dashboard; the name is shown instead
            continue
    return titles


def rubric_titles(root: str | Path | None = None) -> dict[str, str]:
    """Display titles of dimensions: those of the rubric folder `root` (the one the log was scored with), over those
    of the shipped rubrics (a dimension the folder lacks keeps its shipped title)."""
    titles = dict(_titles())
    if root is not None:
        folder = Path(root)
        if not (folder / "dimensions").is_dir():
            raise ValueError(f"rubric folder {folder} has no dimensions/ folder")
        titles.update(_read_titles(folder))  # read each time: a served folder may gain a dimension by hot reload
    return titles


def render(
    records: Iterable[ScoreRecord],
    *,
    title: str = DEFAULT_TITLE,
    seed: int = 0,
    sample_steps: int = SAMPLE_STEPS,
    smoothing: float = DEFAULT_SMOOTHING,
    titles: dict[str, str] | None = None,
) -> str:
    """A complete HTML page for the records (any iterable of `ScoreRecord`, read once as a stream).

    `seed` fixes the random drill-down samples; `sample_steps` caps the steps per run that keep samples;
    `smoothing` is the initial EMA weight of the curves (the page has a slider); `titles` maps dimension names to
    display titles (default: the titles of the rubrics in `rubrics/dimensions`).
    """
    _check_smoothing(smoothing)
    return _page(summarise(records, seed=seed, sample_steps=sample_steps), title=title, smoothing=smoothing,
                 titles=titles)


def _check_smoothing(smoothing: float) -> None:
    if not 0 <= smoothing < 1:
        raise ValueError(f"smoothing must be in [0, 1), got {smoothing}")


def _page(data: dict, *, title: str, smoothing: float, titles: dict[str, str] | None,
          samples_url: str | None = None) -> str:
    data["titles"] = dict(_titles()) if titles is None else titles
    data["title"] = title
    data["smoothing"] = smoothing
    data["bucket"] = UNSTEPPED_BUCKET
    data["samples_url"] = samples_url
    data.setdefault("trainer", {})
    data.setdefault("monitor", [])
    cascade = any(info.get("cascade") for info in data["runs"].values())
    # Inside <script>, "</script", "<!--" and "<script" in logged text would end or derail the block (and with it
    # the page); JSON's \u escapes keep every such character out of the HTML parser's sight.
    payload = (json.dumps(data, separators=(",", ":"), allow_nan=False)
               .replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026"))
    return (_asset("page.html").replace("%TITLE%", html.escape(title))
            .replace("%CASCADE%", _asset("cascade.html") if cascade else "")
            .replace("%DATA%", payload)
            .replace("%PLOTLY%", _plotly_js()).replace("%SCRIPT%", _asset("dashboard.js")))


_CACHE: dict[tuple, str] = {}


def render_from_log(*folders: str | Path, title: str = DEFAULT_TITLE,
                    sample_steps: int = SAMPLE_STEPS, smoothing: float = DEFAULT_SMOOTHING,
                    titles: dict[str, str] | None = None, samples_url: str | None = None,
                    sample_stride: int | None = None, trainer: Mapping[str, str | Path] | None = None,
                    trainer_keys: Sequence[str] | None = None, trainer_missing_ok: bool = False,
                    rubrics: str | Path | None = None) -> str:
    """The page for one or more score-log folders, drawn from their aggregate stores (their runs side by side).

    A run is (folder, run name): with several folders every run is labelled `<folder>/<run>`, so two experiments
    never merge. With `samples_url` (the server's `GET /dashboard/samples`) the page fetches a clicked step's
    samples on demand and embeds none; without it (a file to share) it embeds the samples of `sample_steps` evenly
    spread steps per run, or of every `sample_stride`-th step (and the latest) when a stride is given. `trainer`
    maps a run label ("" for the only run) to a trainer-metrics file (`reward.dashboard.trainer`), drawn on the same
    step axis; `trainer_keys` picks its metrics (default: KL, losses, entropy, response length); with
    `trainer_missing_ok` (a live run whose trainer has not written its file yet) a missing or unreadable file is
    named on the page instead of raising. The runs' alerts (`reward.dashboard.monitors`) are drawn where their
    curves are, with the monitor-only dimensions of the suites in `rubrics` (default: the shipped folder) marked.
    The last page is
    cached until a store or a trainer file changes, so repeated `GET /dashboard` calls on an idle server cost
    nothing.
    """
    if not folders:
        raise ValueError("render_from_log needs at least one score-log folder")
    _check_smoothing(smoothing)
    paths = [Path(folder) for folder in folders]
    for path in paths:
        if not path.exists():
            raise FileNotFoundError(f"score log {path} does not exist")
    for path in paths:
        ensure_store(path)
    sources = {label: Path(path) for label, path in (trainer or {}).items()}
    notes = []
    for label, path in list(sources.items()):
        if not path.is_file():
            if not trainer_missing_ok:
                raise FileNotFoundError(f"trainer metrics file {path} does not exist")
            notes.append(f"trainer metrics of {label or 'the run'}: {path} does not exist yet")
            del sources[label]
    key = (tuple(map(str, paths)), store_version(paths), title, sample_steps, sample_stride, smoothing,
           samples_url, None if titles is None else tuple(sorted(titles.items())),
           tuple((label, str(path), path.stat().st_mtime_ns, path.stat().st_size) for label, path in sources.items()),
           tuple(notes),
           tuple(trainer_keys or ()), None if rubrics is None else str(rubrics))
    if key in _CACHE:
        return _CACHE[key]
    data, where = page_data(paths)
    data["trainer"] = {}
    for label, path in sources.items():
        try:
            data["trainer"].update(trainer_data({label: path}, list(data["runs"]), trainer_keys))
        except TrainerMetricsError as exc:
            if not trainer_missing_ok:
                raise
            notes.append(str(exc))  # a live page names a file it cannot read rather than failing
    data["trainer_notes"] = notes
    page_alerts(where, data, None if rubrics is None else Path(rubrics))
    if samples_url is None:
        embedded_samples(where, data, sample_steps, sample_stride)
    page = _page(data, title=title, smoothing=smoothing, titles=titles, samples_url=samples_url)
    _CACHE.clear()
    _CACHE[key] = page
    return page
