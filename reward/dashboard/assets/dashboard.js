
(function () {
  const data = JSON.parse(document.getElementById('dashboard-data').textContent);
  const runs = Object.keys(data.runs);
  const colors = ['#2563eb', '#dc2626', '#16a34a', '#9333ea', '#ea580c', '#0891b2', '#4b5563', '#be185d'];
  const color = (i) => colors[i % colors.length];
  const fill = (i) => color(i) + '1a';
  const title = (name) => data.titles[name] || name;
  const anyUnstepped = runs.some((r) => data.runs[r].unstepped);
  const xTitle = anyUnstepped ? `training step (runs without steps: batches of ${data.bucket} records in log order)` : 'training step';
  // A short toolbar at the top right and titles at the top left: the two never overlap (also in screenshots).
  const config = {displaylogo: false, responsive: true,
    modeBarButtons: [['toImage', 'zoom2d', 'pan2d', 'resetScale2d']]};
  const state = {smoothing: data.smoothing, bands: true, hidden: new Set()};
  const charts = [];  // {div, build}: build() gives the traces for the current state
  const records = runs.reduce((n, r) => n + data.runs[r].items.reduce((a, b) => a + b, 0), 0);
  const stepCount = Math.max(0, ...runs.map((r) => data.runs[r].steps.length));
  document.getElementById('summary').textContent =
    `${runs.length} run(s): ${runs.join(', ')} · ${records} scored items · up to ${stepCount} steps`;

  // Exponential moving average that skips missing points and corrects the start-up bias (as TensorBoard does).
  function smooth(values, weight) {
    if (!weight) return values;
    let last = 0, norm = 0;
    return values.map((v) => {
      if (v === null || v === undefined) return null;
      last = last * weight + (1 - weight) * v; norm = norm * weight + (1 - weight);
      return last / norm;
    });
  }

  // Every chart shares one step range (the reward dimensions and the trainer's metrics line up).
  const allSteps = runs.flatMap((r) => data.runs[r].steps).concat(
    Object.values(data.trainer || {}).flatMap((t) => t.steps));
  const stepRange = allSteps.length ? [Math.min(...allSteps), Math.max(...allSteps)] : null;
  // A single step gets a range of its own (plotly would pad it with fractional steps); a short run ticks every step.
  const xRange = !stepRange ? undefined : stepRange[1] > stepRange[0] ?
    [stepRange[0] - (stepRange[1] - stepRange[0]) * 0.02, stepRange[1] + (stepRange[1] - stepRange[0]) * 0.02] :
    [stepRange[0] - 0.5, stepRange[0] + 0.5];
  const xTicks = stepRange && stepRange[1] - stepRange[0] <= 10 ? {dtick: 1, tick0: 0} : {};

  // Rubric-version changes (a hot reload, a new suite) as dashed lines on every chart, one colour per run.
  function versionMarks() {
    const shapes = [], annotations = [];
    runs.forEach((run, i) => {
      if (state.hidden.has(run)) return;
      (data.runs[run].versions || []).slice(1).forEach((change) => {
        shapes.push({type: 'line', xref: 'x', yref: 'paper', x0: change.step, x1: change.step, y0: 0, y1: 1,
          line: {color: color(i), width: 1.5, dash: 'dash'}});
        annotations.push({xref: 'x', yref: 'paper', x: change.step, y: 1, yanchor: 'bottom', showarrow: false,
          text: escapeHtml(change.summary || `${change.suite} ${change.version}`), hovertext: `version ${change.version}`,
          font: {size: 9, color: color(i)}, bgcolor: '#ffffffcc'});
      });
    });
    return {shapes: shapes, annotations: annotations};
  }

  function layoutFor(text, percent, secondary) {
    const marks = versionMarks();
    const layout = {title: {text: text, font: {size: 14}, x: 0, xref: 'container', xanchor: 'left', pad: {l: 10, t: 10},
        y: 1, yref: 'container', yanchor: 'top'},
      margin: {l: 48, r: 12, t: 46, b: 40},
      xaxis: {title: {text: xTitle, font: {size: 11}}, zeroline: false, range: xRange, tickformat: 'd', ...xTicks},
      // Scores and rates live in [0, 1]: a fixed axis, so a flat line near 1 does not look like a swing.
      yaxis: {zeroline: false, tickformat: percent ? '.0%' : undefined, range: [-0.02, 1.02]},
      legend: {orientation: 'h', y: -0.4, yanchor: 'top', font: {size: 11}}, hovermode: 'closest', uirevision: 'keep',
      shapes: marks.shapes, annotations: marks.annotations};
    if (secondary) {
      layout.yaxis2 = {overlaying: 'y', side: 'right', zeroline: false, showgrid: false, tickformat: '.1f',
        title: {text: secondary, font: {size: 10}}};
      layout.margin.r = 48;
    }
    return layout;
  }

  // Splines cost far more to draw than straight segments and add nothing once a run has hundreds of steps.
  const shape = (steps) => steps.length > 200 ? 'linear' : 'spline';

  function bandTraces(series, steps, run, i, channel, axis) {
    const w = state.smoothing;
    const mean = smooth(series.mean, w);
    const counts = series.count || data.runs[run].items;
    const traces = [];
    if (state.bands && !series.binary) traces.push(
      {x: steps, y: smooth(series.p10, w), mode: 'lines', line: {width: 0, shape: shape(steps)}, showlegend: false,
       hoverinfo: 'skip', legendgroup: run, name: run + ' p10', meta: {run: run, role: 'band'}, yaxis: axis || 'y'},
      {x: steps, y: smooth(series.p90, w), mode: 'lines', line: {width: 0, shape: shape(steps)}, fill: 'tonexty',
       fillcolor: fill(i), showlegend: false, hoverinfo: 'skip', legendgroup: run, name: run + ' p90',
       meta: {run: run, role: 'band'}, yaxis: axis || 'y'});
    traces.push({x: steps, y: mean, mode: steps.length > 60 ? 'lines' : 'lines+markers',
      line: {color: color(i), width: 2, shape: shape(steps), smoothing: 0.6}, marker: {size: 4},
      name: run, legendgroup: run, meta: {run: run, role: 'mean', channel: channel},
      yaxis: axis || 'y',
      customdata: steps.map((_, k) => [series.mean[k], series.p10[k], series.p90[k], counts[k], (data.runs[run].time || [])[k] || '']),
      hovertemplate: `<b>${run}</b> step %{x} · %{customdata[4]} UTC<br>mean %{customdata[0]:.3f} (smoothed %{y:.3f})` +
        '<br>p10 %{customdata[1]:.3f} · p90 %{customdata[2]:.3f}<br>n %{customdata[3]}<extra></extra>'});
    return traces;
  }

  // Alerts (reward.dashboard.monitors) as markers on the curve they concern: every alert of a run on its reward
  // curve, a dimension's own alerts on that dimension's curve; the hover lists the messages.
  const monitorOnly = new Set(data.monitor || []);
  function alertTraces(series, steps, run, i, dimension) {
    const alerts = (data.runs[run].alerts || []).filter((a) => dimension === null || a.dimension === dimension);
    if (!alerts.length) return [];
    const byStep = new Map();
    alerts.forEach((a) => { if (!byStep.has(a.step)) byStep.set(a.step, []); byStep.get(a.step).push(a); });
    const mean = smooth(series.mean, state.smoothing);
    const marked = [...byStep.keys()].filter((step) => steps.indexOf(step) >= 0);
    return [{x: marked, y: marked.map((step) => mean[steps.indexOf(step)]), mode: 'markers', showlegend: false,
      name: run + ' alerts', marker: {symbol: 'triangle-down', size: 11, color: '#d97706', line: {color: color(i), width: 1.5}},
      meta: {run: run, role: 'alert'}, legendgroup: run,
      text: marked.map((step) => byStep.get(step).map((a) => escapeHtml(a.rule + ': ' + a.message)).join('<br>')),
      hovertemplate: `<b>${escapeHtml(run)}</b> step %{x}: alert<br>%{text}<extra></extra>`}];
  }

  function drawAlerts() {
    const box = document.getElementById('alerts');
    if (!box) return;
    const rows = [];
    runs.forEach((run) => {
      const spans = new Map();
      (data.runs[run].alerts || []).forEach((a) => {
        const key = a.rule + '|' + (a.dimension || '');
        const span = spans.get(key) || {rule: a.rule, dimension: a.dimension, first: a.step, last: a.step, steps: 0};
        span.last = a.step; span.steps += 1; span.message = a.message;
        spans.set(key, span);
      });
      [...spans.values()].sort((a, b) => a.first - b.first).forEach((span) => rows.push(
        `<tr data-run="${escapeHtml(run)}" data-rule="${escapeHtml(span.rule)}"><td>${escapeHtml(run)}</td>` +
        `<td><b>${escapeHtml(span.rule)}</b>${span.dimension ? ' · ' + escapeHtml(title(span.dimension)) +
          (monitorOnly.has(span.dimension) ? ' (monitor-only)' : '') : ''}</td>` +
        `<td>from step ${span.first}${span.last !== span.first ? ` to ${span.last}` : ''} (${span.steps} step${span.steps > 1 ? 's' : ''})</td>` +
        `<td>${escapeHtml(span.message)}</td></tr>`));
    });
    box.className = rows.length ? '' : 'quiet';
    box.innerHTML = rows.length ? '<table><tr><th>run</th><th>alert</th><th>when</th><th>latest</th></tr>' + rows.join('') +
      '</table>' : 'No alert fired on any run.';
  }
  drawAlerts();

  function addChart(container, id, build, cls, channel, percent, owner) {
    const card = document.createElement('div');
    card.className = 'card ' + (cls || '');
    const div = document.createElement('div');
    div.className = 'chart'; div.id = id;
    if (channel) div.dataset.channel = channel;
    card.appendChild(div);
    document.getElementById(container).appendChild(card);
    const chart = {div: div, build: build, percent: percent, card: card, owner: owner, channel: channel, drawn: false};
    charts.push(chart);
    draw(chart);
    return div;
  }

  function draw(chart) {
    if (chart.owner) chart.card.style.display = state.hidden.has(chart.owner) ? 'none' : '';
    const [text, traces, secondary, layoutExtra] = chart.build();
    // Runs switched off in the header are hidden on every chart (their legend entries stay, greyed).
    traces.forEach((t) => { if (t.meta && state.hidden.has(t.meta.run)) t.visible = 'legendonly'; });
    Plotly.react(chart.div, traces, Object.assign(layoutFor(text, chart.percent, secondary), layoutExtra || {}), config);
    if (!chart.drawn && chart.channel) chart.div.on('plotly_click', (event) => {
      const point = event.points.find((p) => p.data.meta && p.data.meta.role === 'mean');
      if (point) showSamples(chart.channel, point.data.meta.run, point.x, chart.card);
    });
    chart.drawn = true;
    chart.div.dataset.series = String(traces.filter((t) => t.showlegend !== false && t.visible !== 'legendonly').length);
  }

  const curveTitles = {reward: 'reward R', gate: 'gate B (bottom-line)', utility: 'utility U (behavioral)'};
  // A summed reward (searchllm-sum) lives on another scale than [0, 1]: such runs get the right-hand axis.
  const outOfUnit = (run) => data.runs[run].curves.reward.p90.some((v) => v !== null && v > 1.0001);
  ['reward', 'gate', 'utility'].forEach((key) => {
    const present = runs.filter((run) => data.runs[run].curves[key].mean.some((v) => v !== null));
    if (!present.length) return;
    const split = key === 'reward' && present.some(outOfUnit) && !present.every(outOfUnit);
    const free = key === 'reward' && present.every(outOfUnit);
    addChart('overall', 'chart-' + key, () => [curveTitles[key], present.flatMap((run) =>
      bandTraces(data.runs[run].curves[key], data.runs[run].steps, run, runs.indexOf(run), key,
        split && outOfUnit(run) ? 'y2' : 'y').concat(key !== 'reward' || (split && outOfUnit(run)) ? [] :
        alertTraces(data.runs[run].curves[key], data.runs[run].steps, run, runs.indexOf(run), null))), split ? 'summed reward: ' + present.filter(outOfUnit).join(', ') : null,
      free ? {yaxis: {zeroline: false, autorange: true}} : null], '',
      key === 'reward' ? 'reward' : null);
  });
  addChart('overall', 'chart-valid', () => ['valid rate (masked items excluded from GRPO)', runs.map((run, i) => ({
    x: data.runs[run].steps, y: smooth(data.runs[run].valid_rate, state.smoothing), mode: 'lines',
    line: {color: color(i), shape: shape(data.runs[run].steps), width: 2}, name: run, meta: {run: run, role: 'rate'},
    hovertemplate: `<b>${run}</b> step %{x}<br>valid %{y:.1%}<extra></extra>`}))], '', null, true);

  // The trainer's own metrics (KL, loss, entropy, response length), on the same step axis as the reward.
  const trainerRuns = runs.filter((run) => (data.trainer || {})[run]);
  const trainerNames = [...new Set(trainerRuns.flatMap((run) => Object.keys(data.trainer[run].metrics)))];
  const trainerNotes = data.trainer_notes || [];
  if (trainerNotes.length) {
    document.getElementById('trainer-section').hidden = false;
    document.getElementById('trainer-notes').textContent = trainerNotes.join(' · ');
  }
  if (trainerNames.length) {
    document.getElementById('trainer-section').hidden = false;
    trainerNames.forEach((name, k) => {
      const div = addChart('trainer', 'chart-trainer-' + k, () => [escapeHtml(name), trainerRuns.filter((run) =>
        data.trainer[run].metrics[name]).map((run) => ({
          x: data.trainer[run].steps, y: smooth(data.trainer[run].metrics[name], state.smoothing), mode: 'lines',
          connectgaps: true, line: {color: color(runs.indexOf(run)), width: 2}, name: run,
          meta: {run: run, role: 'trainer', metric: name},
          customdata: data.trainer[run].metrics[name],
          hovertemplate: `<b>${escapeHtml(run)}</b> step %{x}<br>${escapeHtml(name)} %{customdata:.4g} (smoothed %{y:.4g})<extra></extra>`})),
        null, {yaxis: {zeroline: false, autorange: true}}], 'trainer');
      div.dataset.metric = name;
    });
  }

  // Bottom-line dimensions first, then behavioral; each group alphabetical by title.
  const dimensions = Object.keys(data.layers).sort((a, b) =>
    (data.layers[a] === 'bottom_line' ? 0 : 1) - (data.layers[b] === 'bottom_line' ? 0 : 1) ||
    title(a).localeCompare(title(b)));
  // A dimension no run ever scored (e.g. bottom-line judges under the local tier) gets a panel that says why,
  // not an empty chart.
  const reasonsOf = (run, name) => {
    const series = data.runs[run].dimensions[name];
    if (!series) return [];
    const seen = series.seen.reduce((a, b) => a + b, 0);
    return Object.entries(series.unscored).map(([reason, counts]) => [reason, counts.reduce((a, b) => a + b, 0), seen])
      .filter(([, count]) => count > 0).sort((a, b) => b[1] - a[1]);
  };
  const neverScored = (name) => runs.every((run) => {
    const series = data.runs[run].dimensions[name];
    return !series || series.count.every((c) => !c);
  }) && runs.some((run) => data.runs[run].dimensions[name]);
  const unscoredText = (run, name) => reasonsOf(run, name).map(([reason, count, seen]) =>
    `${(count / seen * 100).toFixed(count === seen ? 0 : 1)}% unscored: ${reason}`).join(' · ');
  function addUnscoredPanel(container, name, layer) {
    const card = document.createElement('div');
    card.className = 'card unscored-panel ' + layer;
    card.dataset.channel = name;
    card.id = 'panel-dim-' + name;
    card.innerHTML = `<div class="panel-title">${escapeHtml(title(name))}</div>` + runs.filter((run) =>
      data.runs[run].dimensions[name]).map((run) => `<div class="panel-run" data-run="${escapeHtml(run)}">` +
      `${runs.length > 1 ? '<b>' + escapeHtml(run) + '</b>: ' : ''}${escapeHtml(unscoredText(run, name))}` +
      ` <span class="note">(${data.runs[run].dimensions[name].seen.reduce((a, b) => a + b, 0)} scores, none scored)</span></div>`).join('') +
      '<div class="note">No run scored this dimension at any step, so there is no curve to draw.</div>';
    document.getElementById(container).appendChild(card);
  }

  dimensions.forEach((name) => {
    const layer = data.layers[name];
    if (neverScored(name)) { addUnscoredPanel(layer === 'bottom_line' ? 'bottom_line' : 'behavioral', name, layer); return; }
    const binary = runs.some((run) => data.runs[run].dimensions[name] && data.runs[run].dimensions[name].binary);
    const monitored = monitorOnly.has(name);
    addChart(layer === 'bottom_line' ? 'bottom_line' : 'behavioral', 'chart-dim-' + name, () => [title(name) +
      (binary ? ' <span style="font-size:11px;color:#6b7280">(pass/fail: pass rate)</span>' : '') +
      (monitored ? ' <span style="font-size:11px;color:#6d28d9">(monitor-only)</span>' : ''),
      runs.flatMap((run, i) => data.runs[run].dimensions[name] ?
        bandTraces(data.runs[run].dimensions[name], data.runs[run].steps, run, i, name).concat(
          alertTraces(data.runs[run].dimensions[name], data.runs[run].steps, run, i, name)) : [])],
      monitored ? 'monitor' : layer, name);
  });

  runs.forEach((run, i) => {
    addChart('unscored', 'chart-unscored-' + i, () => {
      const entries = Object.entries(data.runs[run].unscored);
      const traces = entries.map(([reason, rates], j) => ({x: data.runs[run].steps, y: smooth(rates, state.smoothing),
        mode: 'lines', stackgroup: 'one', name: reason, line: {color: colors[(j + 3) % colors.length], shape: shape(data.runs[run].steps)},
        hovertemplate: `${reason}: %{y:.2%}<extra>step %{x}</extra>`}));
      if (!traces.length) traces.push({x: data.runs[run].steps, y: data.runs[run].steps.map(() => 0), mode: 'lines',
        name: 'none unscored', line: {color: '#9ca3af'}});
      // A legend even for a single reason: the colour alone does not say which.
      return ['unscored: ' + escapeHtml(run), traces, null, {showlegend: true,
        // Two significant digits, trailing zeros trimmed: small rates get distinct labels (0.5%, 1%, 1.5%), not 1%, 1%.
        yaxis: {zeroline: false, tickformat: '.2~%', rangemode: 'tozero', autorange: true}}];
    }, '', null, true, run);
  });

  // Judge cascade: one chart per run with cascade-routed dimensions (the section is on the page only then).
  if (document.getElementById('cascade')) runs.forEach((run, i) => {
    const cascade = data.runs[run].cascade || {};
    const names = Object.keys(cascade).sort((a, b) => title(a).localeCompare(title(b)));
    if (!names.length) return;
    addChart('cascade', 'chart-cascade-' + i, () => {
      const steps = data.runs[run].steps;
      const traces = names.flatMap((name, j) => {
        const c = cascade[name], hue = colors[j % colors.length];
        return [
          {x: steps, y: smooth(c.agreement, state.smoothing), mode: 'lines+markers', connectgaps: true,
           name: title(name), legendgroup: name, line: {color: hue, width: 2},  // straight: a spline overshoots 100%
           marker: {size: 4}, meta: {run: run, role: 'agreement', dimension: name},
           customdata: steps.map((_, k) => [c.agreement[k] === null ? '—' : (c.agreement[k] * 100).toFixed(1) + '%',
             c.audits[k], c.kappa[k] === null ? '—' : c.kappa[k].toFixed(2)]),
           hovertemplate: `<b>${title(name)}</b> step %{x}<br>agreement %{customdata[0]} (smoothed %{y:.1%})` +
             `<br>%{customdata[1]} audits · kappa %{customdata[2]}<extra>${run}</extra>`},
          {x: steps, y: smooth(c.cheap_share, state.smoothing), mode: 'lines', connectgaps: true,
           name: title(name) + ' (cheap share)', legendgroup: name, showlegend: false,
           line: {color: hue, width: 1.5, dash: 'dot'}, meta: {run: run, role: 'cheap_share', dimension: name},
           customdata: steps.map((_, k) => [c.cheap[k], c.routed[k], c.fallback[k]]),
           hovertemplate: `<b>${title(name)}</b> step %{x}<br>cheap tier decided %{y:.1%}` +
             ` (%{customdata[0]} of %{customdata[1]} routed; %{customdata[2]} in fallback)<extra>${run}</extra>`}];
      });
      // One legend entry per dimension (it toggles both of its lines), beside the plot: a cascade routes up to ~20.
      return ['judge cascade: ' + run, traces, null, {legend: {orientation: 'v', x: 1.02, y: 1, font: {size: 11}},
        yaxis: {zeroline: false, tickformat: '.0%', range: [0, 1.04]}}];
    }, 'wide', null, true, run);
  });

  function escapeHtml(text) {
    return String(text === null || text === undefined ? '' : text).replace(/[&<>"']/g,
      (c) => ({'&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;'}[c]));
  }
  const fmt = (v) => (v === null || v === undefined) ? '—' : v.toFixed(3);
  const lastIndex = (arr) => { for (let k = arr.length - 1; k >= 0; k--) if (arr[k] !== null) return k; return -1; };
  const firstIndex = (arr) => arr.findIndex((v) => v !== null);

  function latestCell(series, unscoredOf, run, name) {
    if (!series) return '<td>—</td>';
    const k = lastIndex(series.mean), f = firstIndex(series.mean);
    if (k < 0) return unscoredOf && reasonsOf(run, name).length ?
      `<td><span class="warn">${escapeHtml(unscoredText(run, name))}</span></td>` : '<td>—</td>';
    const delta = series.mean[k] - series.mean[f];
    let extra = k !== f ? `<span class="delta">${delta >= 0 ? '+' : ''}${delta.toFixed(3)}</span>` : '';
    if (unscoredOf) {
      const seen = series.seen[k], scored = series.count[k];
      if (seen && scored < seen) extra += `<span class="warn">${((seen - scored) / seen * 100).toFixed(1)}% unscored</span>`;
    }
    return `<td>${fmt(series.mean[k])}${extra}</td>`;
  }
  const table = document.createElement('table');
  table.id = 'latest-table';
  document.getElementById('latest').appendChild(table);
  function drawTable() {
    const shown = runs.filter((r) => !state.hidden.has(r));
    const rows = ['<tr><th>channel</th>' + shown.map((r) => {
      const info = data.runs[r], last = info.steps.length - 1;
      const when = info.time && info.time[last] ? `<br><span class="legend-note">${escapeHtml(info.time[last])} UTC</span>` : '';
      return `<th>${escapeHtml(r)}<br><span class="legend-note">step ${info.steps[last]}</span>${when}</th>`;
    }).join('') + '</tr>'];
    ['reward', 'gate', 'utility'].forEach((key) => rows.push(`<tr><td>${key}</td>` +
      shown.map((r) => latestCell(data.runs[r].curves[key], false)).join('') + '</tr>'));
    rows.push(`<tr><td>valid rate</td>` + shown.map((r) => `<td>${
      (data.runs[r].valid_rate[data.runs[r].valid_rate.length - 1] * 100).toFixed(1)}%</td>`).join('') + '</tr>');
    let section = null;
    dimensions.forEach((name) => {
      if (data.layers[name] !== section) {
        section = data.layers[name];
        rows.push(`<tr class="section"><td colspan="${shown.length + 1}">${section === 'bottom_line' ? 'Bottom-line' : 'Behavioral'}</td></tr>`);
      }
      rows.push(`<tr class="${monitorOnly.has(name) ? 'monitor' : data.layers[name]}"><td>${escapeHtml(title(name))}` +
        `${monitorOnly.has(name) ? ' (monitor-only)' : ''}</td>` +
        shown.map((r) => latestCell(data.runs[r].dimensions[name], true, r, name)).join('') + '</tr>');
    });
    table.innerHTML = rows.join('');
  }
  drawTable();

  // Run toggles: switch a run off on every chart and in the table at once.
  const toggles = document.getElementById('run-toggles');
  runs.forEach((run, i) => {
    const label = document.createElement('label');
    const box = document.createElement('input');
    box.type = 'checkbox'; box.checked = true; box.dataset.run = run;
    box.addEventListener('change', () => setRunVisible(run, box.checked));
    label.appendChild(box);
    label.insertAdjacentHTML('beforeend', `<span class="swatch" style="background:${color(i)}"></span>${escapeHtml(run)}`);
    toggles.appendChild(label);
  });
  function setRunVisible(run, visible) {
    if (visible) state.hidden.delete(run); else state.hidden.add(run);
    toggles.querySelectorAll('input').forEach((box) => { if (box.dataset.run === run) box.checked = visible; });
    charts.forEach(draw);
    drawTable();
  }

  // A step's samples. The served page asks the server for one page of the step's items ranked for the channel
  // (any item of the step, searchable by item or group id); a shared file has the kept samples of every
  // `sample_stride`-th step embedded and pages and searches those.
  const fetched = {};
  const PAGE = 10;
  function fetchJson(url) {
    if (!fetched[url]) fetched[url] = fetch(url, {credentials: 'same-origin'}).then((r) =>
      r.json().then((body) => r.ok ? body : Promise.reject(new Error(body.error || r.statusText))));
    return fetched[url];
  }
  function nearestSampled(info, step) {
    let nearest = null;
    (info.sampled_steps || []).forEach((s) => { if (nearest === null || Math.abs(s - step) < Math.abs(nearest - step)) nearest = s; });
    return nearest;
  }
  // One page of a (run, step, channel): resolves to {step, samples, items, total, offset, kept}.
  function pageOf(run, step, channel, search, offset) {
    const info = data.runs[run];
    if (data.samples_url) {
      const url = `${data.samples_url}?run=${encodeURIComponent(run)}&step=${step}&channel=${encodeURIComponent(channel)}` +
        `&q=${encodeURIComponent(search)}&offset=${offset}&limit=${PAGE}`;
      return fetchJson(url).then((body) => ({step: step, samples: body.channels[channel] || [], items: body.items,
        total: body.total, offset: body.offset, records: body.records, kept: false}));
    }
    const shown = nearestSampled(info, step);
    const found = shown === null ? null : (info.step_samples || {})[String(shown)];
    if (!found) return Promise.resolve({step: shown, samples: [], items: [], total: 0, offset: 0, kept: true});
    const needle = search.trim().toLowerCase();
    const all = (found.channels[channel] || []).filter((s) => !needle ||
      String(found.items[s.item].id).toLowerCase().includes(needle) ||
      String(found.items[s.item].group || '').toLowerCase().includes(needle));
    return Promise.resolve({step: shown, samples: all.slice(offset, offset + PAGE), items: found.items,
      total: all.length, offset: offset, records: found.records, kept: true});
  }
  // The step before: the run's previous step on the server, the previous sampled step in a shared file.
  function previousStep(run, step) {
    const info = data.runs[run];
    const pool = data.samples_url ? info.steps : (info.sampled_steps || []);
    const before = pool.filter((s) => s < step);
    return before.length ? before[before.length - 1] : null;
  }

  const box = document.getElementById('drilldown');
  const drill = {channel: null, run: null, step: null, search: '', offset: 0};
  // Put the drill-down right under the clicked chart's row, full width, and bring it into view.
  function placeDrilldown(card) {
    if (!card) card = document.querySelector(`.chart[data-channel="${CSS.escape(drill.channel)}"]`)?.parentElement ||
      document.querySelector(`.card[data-channel="${CSS.escape(drill.channel)}"]`);
    if (card && card.parentElement && card.parentElement.classList.contains('grid')) card.after(box);
    box.hidden = false;
  }

  function showSamples(channel, run, x, card) {
    if (!data.runs[run]) return Promise.resolve();
    Object.assign(drill, {channel: channel, run: run, step: Number(x), search: '', offset: 0});
    placeDrilldown(card);
    return refresh(true);
  }

  function refresh(scroll) {
    const {channel, run, step, search, offset} = drill;
    box.dataset.loading = 'true';
    return pageOf(run, step, channel, search, offset).then((current) => {
      const before = current.step === null ? null : previousStep(run, current.step);
      return (before === null ? Promise.resolve(null) : pageOf(run, before, channel, search, offset)
        .catch(() => null)).then((prior) => renderSamples(current, prior));
    }).catch((error) => {
      box.innerHTML = `<span class="unscored">samples of step ${step} unavailable: ${escapeHtml(error.message)}</span>`;
      box.dataset.samples = '0';
    }).finally(() => {
      box.dataset.loading = 'false';
      // Bring the samples' top into the upper part of the window; the clicked chart stays just above it.
      const top = box.getBoundingClientRect().top;
      if (scroll && (top < 0 || top > window.innerHeight * 0.6)) window.scrollBy(0, top - window.innerHeight * 0.35);
    });
  }

  function sampleHtml(s, items, channel) {
    const item = items[s.item];
    const verdict = s.score == null ? `unscored (${escapeHtml(s.reason)})` :
      `score ${s.score.toFixed(3)}${s.label ? ' · label ' + escapeHtml(s.label) : ''}${s.status === 'invalid' ? ' · invalid: ' + escapeHtml(s.reason) : ''}`;
    return `<div class="sample ${escapeHtml(s.status)}" data-item="${escapeHtml(item.id)}"><div><b>${escapeHtml(item.id)}</b> ${verdict} · reward ${item.reward.toFixed(3)}` +
      `${item.valid ? '' : ' (masked)'} · ${escapeHtml(s.backend)}${item.group ? ' · group ' + escapeHtml(item.group) : ''}</div>` +
      `<div><i>query</i>: ${escapeHtml(item.query)}</div><div><i>answer</i>: ${escapeHtml(item.answer)}</div>` +
      (s.explanation ? `<div><i>${channel === 'reward' ? 'aggregate' : 'judge'}</i>: ${escapeHtml(s.explanation)}</div>` : '') +
      (s.quotes || []).map((q) => `<div class="quote ${q.verified ? '' : 'unverified'}"><i>quote [Doc ${escapeHtml(q.doc)}]${
        q.verified ? '' : ' (not found in evidence)'}</i>: “${escapeHtml(q.text)}”</div>`).join('') + '</div>';
  }

  // The step's counts for the channel (all items, not only the samples) and its wall-clock time.
  function stepSummary(run, channel, shownStep) {
    const info = data.runs[run];
    const series = info.dimensions[channel], at = info.steps.indexOf(shownStep);
    const reasons = series && at >= 0 ? Object.entries(series.unscored).filter(([, c]) => c[at] > 0)
      .map(([reason, c]) => `${escapeHtml(reason)} ${c[at]}`) : [];
    const counts = series && at >= 0 ? ` · ${series.count[at]} of ${series.seen[at]} scored` +
      (reasons.length ? ` (unscored: ${reasons.join(', ')})` : '') : '';
    const when = info.time && at >= 0 ? ` · ${escapeHtml(info.time[at])} UTC` : '';
    return when + counts;
  }

  function column(result, channel, cls, heading) {
    if (!result) return `<div class="drill-col ${cls}"><div class="note">${heading}: no earlier step with samples</div></div>`;
    const last = Math.min(result.offset + result.samples.length, result.total);
    return `<div class="drill-col ${cls}" data-step="${result.step}"><div class="col-head"><b>${heading} ${escapeHtml(result.step)}</b>` +
      `${stepSummary(drill.run, channel, result.step)} · showing ${result.total ? result.offset + 1 : 0}-${last} of ${result.total}` +
      `${result.kept ? ' kept samples' : (drill.search ? ' matching items' : ' items')}</div>` +
      result.samples.map((s) => sampleHtml(s, result.items, channel)).join('') + '</div>';
  }

  function renderSamples(current, prior) {
    const {channel, run, step} = drill;
    const info = data.runs[run];
    const label = channel === 'reward' ? 'Reward (lowest-reward items)' : title(channel);
    const note = current.step !== null && current.step !== step ?
      ` <span class="note">(no samples kept at step ${step}: ${info.sample_stride ? `samples are kept every ${info.sample_stride} steps` +
        ' and at the latest' : 'samples are kept for a thinned set of steps'}; nearest step shown)</span>` : '';
    const pages = Math.max(1, Math.ceil(current.total / PAGE)), page = Math.floor(current.offset / PAGE) + 1;
    box.innerHTML = `<div class="drill-head"><b>${escapeHtml(label)}</b> · run <b>${escapeHtml(run)}</b> · step <b>${escapeHtml(current.step)}</b>${note}` +
      ` <button type="button" class="drill-close" title="close">×</button></div>` +
      `<div class="drill-controls"><input type="search" id="drill-search" placeholder="search item or group id" value="${escapeHtml(drill.search)}">` +
      ` <button type="button" id="drill-prev" ${current.offset > 0 ? '' : 'disabled'}>◀ previous</button>` +
      ` <span id="drill-page">page ${page} of ${pages}</span>` +
      ` <button type="button" id="drill-next" ${current.offset + PAGE < current.total ? '' : 'disabled'}>next ▶</button>` +
      (current.kept ? ' <span class="note">(a shared file keeps the lowest and a few random items per step; the served page pages through all of them)</span>' : '') +
      `</div><div class="drill-cols">${column(current, channel, 'current', 'step')}${column(prior, channel, 'previous', 'previous step')}</div>`;
    box.dataset.samples = String(current.samples.length);
    box.dataset.step = String(current.step);
    box.dataset.total = String(current.total);
    box.dataset.previous = prior ? String(prior.step) : '';
    box.querySelector('#drill-prev').addEventListener('click', () => { drill.offset = Math.max(0, drill.offset - PAGE); refresh(false); });
    box.querySelector('#drill-next').addEventListener('click', () => { drill.offset += PAGE; refresh(false); });
    box.querySelector('.drill-close').addEventListener('click', () => { box.hidden = true; });
    const input = box.querySelector('#drill-search');
    input.addEventListener('change', () => { drill.search = input.value; drill.offset = 0; refresh(false); });
  }

  // The per-step table as CSV, the same columns as `reward dashboard --export steps.csv` (reward/dashboard/export.py).
  function stepTableCsv() {
    const rows = [];
    const columns = new Map();
    const pick = (arr, k) => (arr && arr[k] !== undefined ? arr[k] : null);
    runs.forEach((run) => {
      const info = data.runs[run], trainer = (data.trainer || {})[run];
      info.steps.forEach((step, k) => {
        const row = {run: run, step: step, time_utc: pick(info.time, k), items: info.items[k], valid_rate: info.valid_rate[k]};
        ['reward', 'gate', 'utility'].forEach((key) => ['mean', 'p10', 'p90'].forEach((stat) =>
          row[`${key}_${stat}`] = pick((info.curves[key] || {})[stat], k)));
        Object.keys(data.layers).sort().forEach((name) => {
          const series = info.dimensions[name];
          const seen = series ? series.seen[k] : null, scored = series ? series.count[k] : null;
          row[`${name}_mean`] = series ? series.mean[k] : null;
          row[`${name}_p10`] = series ? series.p10[k] : null;
          row[`${name}_p90`] = series ? series.p90[k] : null;
          row[`${name}_scored`] = scored;
          row[`${name}_seen`] = seen;
          row[`${name}_unscored_share`] = seen ? Math.round((seen - scored) / seen * 1e4) / 1e4 : null;
        });
        if (trainer) Object.entries(trainer.metrics).forEach(([name, values]) => {
          const at = trainer.steps.indexOf(step);
          row[`trainer/${name}`] = at >= 0 ? values[at] : null;
        });
        Object.keys(row).forEach((c) => columns.set(c, true));
        rows.push(row);
      });
    });
    const cell = (v) => v === null || v === undefined ? '' : /[",\n]/.test(String(v)) ? `"${String(v).replace(/"/g, '""')}"` : String(v);
    const header = [...columns.keys()];
    return [header.map(cell).join(',')].concat(rows.map((row) => header.map((c) => cell(row[c])).join(','))).join('\r\n') + '\r\n';
  }
  document.getElementById('export-csv').addEventListener('click', () => {
    const link = document.createElement('a');
    link.href = URL.createObjectURL(new Blob([stepTableCsv()], {type: 'text/csv'}));
    link.download = 'steps.csv';
    link.click();
    setTimeout(() => URL.revokeObjectURL(link.href), 1000);
  });

  const slider = document.getElementById('smoothing');
  const sliderValue = document.getElementById('smoothing-value');
  slider.value = String(state.smoothing); sliderValue.textContent = state.smoothing.toFixed(2);
  function setSmoothing(weight) {
    state.smoothing = weight; slider.value = String(weight); sliderValue.textContent = weight.toFixed(2);
    charts.forEach(draw);
  }
  slider.addEventListener('input', () => setSmoothing(Number(slider.value)));
  document.getElementById('bands').addEventListener('change', (e) => { state.bands = e.target.checked; charts.forEach(draw); });

  window.dashboard = {charts: charts.length, runs: runs, showSamples: showSamples, setSmoothing: setSmoothing,
    setRunVisible: setRunVisible, stepTableCsv: stepTableCsv, search: (text) => { drill.search = text; drill.offset = 0; return refresh(false); },
    page: (delta) => { drill.offset = Math.max(0, drill.offset + delta * PAGE); return refresh(false); }};
  window.dashboardReady = true;
})();
