"""The per-dimension training-dynamics dashboard: a self-contained HTML page over a score log.

For one or several runs side by side (e.g. gated vs linear): per dimension the mean score per training step with
a p10-p90 band, gate / utility / reward curves, unscored rates by reason, the bottom-line dimensions highlighted,
and a table of the latest values. Click a point to see sample items of that step with their scores, judge
explanations and quotes. Plotly.js (from the `plotly` package) is inlined, so the page works offline.

    reward dashboard --log var/scores --out report.html
"""

from __future__ import annotations

import html
import json
from collections.abc import Iterable
from importlib import resources
from pathlib import Path

from reward.dashboard.stats import summarise
from reward.scorelog import ScoreRecord, read_log

__all__ = ["render", "render_from_log", "summarise"]

_TITLES = None


def _plotly_js() -> str:
    return resources.files("plotly").joinpath("package_data/plotly.min.js").read_text(encoding="utf-8")


def _titles() -> dict[str, str]:
    from reward.rubric import DEFAULT_RUBRIC_DIR, load_dimension

    titles = {}
    for path in sorted((DEFAULT_RUBRIC_DIR / "dimensions").glob("*.yaml")):
        try:
            titles[path.stem] = load_dimension(path).title
        except Exception:  # a broken rubric must not break the dashboard; the name is shown instead
            continue
    return titles


def render(records: Iterable[ScoreRecord], *, title: str = "Reward training dynamics", seed: int = 0) -> str:
    """A complete HTML page for the records (any iterable of `ScoreRecord`)."""
    data = summarise(records, seed=seed)
    data["titles"] = _titles()
    data["title"] = title
    payload = json.dumps(data, separators=(",", ":")).replace("</", "<\\/")
    return _PAGE.replace("%TITLE%", html.escape(title)).replace("%DATA%", payload).replace("%PLOTLY%", _plotly_js()).replace(
        "%SCRIPT%", _SCRIPT)


def render_from_log(*folders: str | Path, title: str = "Reward training dynamics") -> str:
    """The page for one or more score-log folders (their runs side by side)."""
    records: list[ScoreRecord] = []
    for folder in folders:
        records.extend(read_log(folder))
    return render(records, title=title)


_PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>%TITLE%</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>
body{font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:0;background:#f7f7f9;color:#222}
header{padding:16px 24px;background:#1f2937;color:#fff}header h1{margin:0;font-size:20px}
header p{margin:4px 0 0;color:#cbd5e1;font-size:13px}
main{padding:16px 24px}h2{font-size:16px;margin:24px 0 8px}
.grid{display:grid;grid-template-columns:repeat(auto-fill,minmax(380px,1fr));gap:12px}
.card{background:#fff;border:1px solid #e5e7eb;border-radius:8px;padding:4px}
.card.bottom_line{border:2px solid #dc2626}.chart{height:260px}
table{border-collapse:collapse;background:#fff;font-size:13px}th,td{border:1px solid #e5e7eb;padding:4px 8px;text-align:right}
th:first-child,td:first-child{text-align:left}tr.bottom_line td:first-child{color:#b91c1c;font-weight:600}
#drilldown{background:#fff;border:1px solid #e5e7eb;border-radius:8px;padding:12px;min-height:40px;font-size:13px}
#drilldown .sample{border-top:1px solid #eee;padding:8px 0}#drilldown .unscored{color:#b45309}
.legend-note{font-size:12px;color:#555}
</style>
<script>%PLOTLY%</script>
</head><body>
<header><h1>%TITLE%</h1><p id="summary"></p></header>
<main>
<h2>Reward, gate and utility</h2><div class="grid" id="overall"></div>
<h2>Bottom-line dimensions <span class="legend-note">(gated: a low score here suppresses the whole reward)</span></h2>
<div class="grid" id="bottom_line"></div>
<h2>Behavioral dimensions</h2><div class="grid" id="behavioral"></div>
<h2>Unscored rates by reason</h2><div class="grid" id="unscored"></div>
<h2>Latest values</h2><div id="latest"></div>
<h2>Drill-down <span class="legend-note">(click a point)</span></h2><div id="drilldown">Click a point on a dimension chart to see sample items of that step.</div>
</main>
<script type="application/json" id="dashboard-data">%DATA%</script>
<script>%SCRIPT%</script>
</body></html>
"""

_SCRIPT = r"""
(function () {
  const data = JSON.parse(document.getElementById('dashboard-data').textContent);
  const runs = Object.keys(data.runs);
  const colors = ['#2563eb', '#dc2626', '#16a34a', '#9333ea', '#ea580c', '#0891b2'];
  const color = (i) => colors[i % colors.length];
  const fill = (i) => color(i) + '26';
  const title = (name) => data.titles[name] || name;
  const layoutFor = (text) => ({title: {text: text, font: {size: 14}}, margin: {l: 40, r: 10, t: 36, b: 32},
    xaxis: {title: {text: 'training step', font: {size: 11}}}, yaxis: {rangemode: 'tozero'},
    legend: {orientation: 'h', y: -0.25, font: {size: 11}}, hovermode: 'x unified'});
  const config = {displaylogo: false, responsive: true};
  let charts = 0;
  const total = runs.reduce((n, r) => n + data.runs[r].items.reduce((a, b) => a + b, 0), 0);
  document.getElementById('summary').textContent =
    `${runs.length} run(s): ${runs.join(', ')} · ${total} scored items`;

  function bandTraces(series, steps, name, i, group) {
    return [
      {x: steps, y: series.p10, mode: 'lines', line: {width: 0}, showlegend: false,
       hoverinfo: 'skip', legendgroup: group, name: name + ' p10'},
      {x: steps, y: series.p90, mode: 'lines', line: {width: 0}, fill: 'tonexty',
       fillcolor: fill(i), showlegend: false, hoverinfo: 'skip', legendgroup: group, name: name + ' p90'},
      {x: steps, y: series.mean, mode: 'lines+markers', line: {color: color(i), width: 2, shape: 'spline'},
       marker: {size: 4}, name: name, legendgroup: group, customdata: steps.map(() => name)},
    ];
  }

  function addChart(container, id, text, traces, cls, dimension) {
    const card = document.createElement('div');
    card.className = 'card ' + (cls || '');
    const div = document.createElement('div');
    div.className = 'chart'; div.id = id;
    if (dimension) div.dataset.dimension = dimension;
    card.appendChild(div);
    document.getElementById(container).appendChild(card);
    Plotly.newPlot(div, traces, layoutFor(text), config);
    div.dataset.series = String(traces.filter((t) => t.showlegend !== false).length);
    charts += 1;
    if (dimension) div.on('plotly_click', (event) => showSamples(dimension, event.points[0]));
    return div;
  }

  ['reward', 'gate', 'utility'].forEach((key) => {
    const traces = [];
    runs.forEach((run, i) => {
      const curve = data.runs[run].curves[key];
      if (curve.mean.some((v) => v !== null)) traces.push(...bandTraces(curve, data.runs[run].steps, run, i, run));
    });
    if (traces.length) addChart('overall', 'chart-' + key, key === 'gate' ? 'gate B' : key === 'utility' ? 'utility U' : 'reward R', traces);
  });
  addChart('overall', 'chart-valid', 'valid rate', runs.map((run, i) => ({x: data.runs[run].steps,
    y: data.runs[run].valid_rate, mode: 'lines', line: {color: color(i), shape: 'spline'}, name: run})));

  const dimensions = Object.keys(data.layers).sort();
  dimensions.forEach((name) => {
    const traces = [];
    runs.forEach((run, i) => {
      const series = data.runs[run].dimensions[name];
      if (series) traces.push(...bandTraces(series, data.runs[run].steps, run, i, run));
    });
    const layer = data.layers[name];
    addChart(layer === 'bottom_line' ? 'bottom_line' : 'behavioral', 'chart-dim-' + name, title(name), traces, layer, name);
  });

  runs.forEach((run, i) => {
    const traces = Object.entries(data.runs[run].unscored).map(([reason, rates], j) => ({x: data.runs[run].steps,
      y: rates, mode: 'lines', stackgroup: 'one', name: reason, line: {color: colors[(i + j + 1) % colors.length]}}));
    if (!traces.length) traces.push({x: data.runs[run].steps, y: data.runs[run].steps.map(() => 0), mode: 'lines', name: 'none'});
    addChart('unscored', 'chart-unscored-' + i, 'unscored share of dimension scores: ' + run, traces);
  });

  const table = document.createElement('table');
  const head = '<tr><th>dimension</th>' + runs.map((r) => `<th>${r}</th>`).join('') + '</tr>';
  const cell = (v) => (v === null || v === undefined) ? '—' : v.toFixed(3);
  const last = (arr) => { for (let k = arr.length - 1; k >= 0; k--) if (arr[k] !== null) return arr[k]; return null; };
  const rows = ['reward', 'gate', 'utility'].map((key) => `<tr><td>${key}</td>` +
    runs.map((r) => `<td>${cell(last(data.runs[r].curves[key].mean))}</td>`).join('') + '</tr>');
  dimensions.forEach((name) => rows.push(`<tr class="${data.layers[name]}"><td>${title(name)}</td>` + runs.map((r) =>
    `<td>${cell(data.runs[r].dimensions[name] ? last(data.runs[r].dimensions[name].mean) : null)}</td>`).join('') + '</tr>'));
  table.innerHTML = head + rows.join('');
  document.getElementById('latest').appendChild(table);

  function escapeHtml(text) {
    return String(text === null || text === undefined ? '' : text).replace(/[&<>"']/g,
      (c) => ({'&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;'}[c]));
  }

  function showSamples(dimension, point) {
    const run = point.data.legendgroup;
    const step = String(point.x);
    const series = data.runs[run] && data.runs[run].dimensions[dimension];
    const samples = (series && series.samples[step]) || [];
    const box = document.getElementById('drilldown');
    box.innerHTML = `<b>${escapeHtml(title(dimension))}</b> · run <b>${escapeHtml(run)}</b> · step <b>${escapeHtml(step)}</b> · ${samples.length} samples` +
      samples.map((s) => `<div class="sample ${s.status}"><div><b>${escapeHtml(s.id)}</b> score ${s.score === null ? 'unscored (' + escapeHtml(s.reason) + ')' : s.score.toFixed(3)} · reward ${s.reward.toFixed(3)} · ${escapeHtml(s.backend)}</div>` +
        `<div><i>query</i>: ${escapeHtml(s.query)}</div><div><i>answer</i>: ${escapeHtml(s.answer)}</div>` +
        `<div><i>judge</i>: ${escapeHtml(s.explanation)}</div>` +
        s.quotes.map((q) => `<div><i>quote [Doc ${escapeHtml(q.doc)}]${q.verified ? '' : ' (not found in evidence)'}</i>: “${escapeHtml(q.text)}”</div>`).join('') +
        '</div>').join('');
    box.dataset.samples = String(samples.length);
  }

  window.dashboard = {charts: charts, runs: runs, showSamples: showSamples};
  window.dashboardReady = true;
})();
"""
