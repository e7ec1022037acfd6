
(function () {
  const data = JSON.parse(document.getElementById('dashboard-data').textContent);
  const runs = Object.keys(data.runs);
  const colors = ['#2563eb', '#dc2626', '#16a34a', '#9333ea', '#ea580c', '#0891b2', '#4b5563', '#be185d'];
  const color = (i) => colors[i % colors.length];
  const fill = (i) => color(i) + '1a';
  const title = (name) => data.titles[name] || name;
  const anyUnstepped = runs.some((r) => data.runs[r].unstepped);
  const xTitle = anyUnstepped ? `training step (runs without steps: batches of ${data.bucket} records in log order)` : 'training step';
  const config = {displaylogo: false, responsive: true, modeBarButtonsToRemove: ['lasso2d', 'select2d']};
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

  function layoutFor(text, percent, secondary) {
    const layout = {title: {text: text, font: {size: 14}}, margin: {l: 48, r: 12, t: 34, b: 40},
      xaxis: {title: {text: xTitle, font: {size: 11}}, zeroline: false},
      yaxis: {zeroline: false, tickformat: percent ? '.1%' : undefined},
      legend: {orientation: 'h', y: -0.28, font: {size: 11}}, hovermode: 'closest', uirevision: 'keep'};
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
      if (point) showSamples(chart.channel, point.data.meta.run, point.x);
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
    addChart('overall', 'chart-' + key, () => [curveTitles[key], present.flatMap((run) =>
      bandTraces(data.runs[run].curves[key], data.runs[run].steps, run, runs.indexOf(run), key,
        split && outOfUnit(run) ? 'y2' : 'y')), split ? 'summed reward: ' + present.filter(outOfUnit).join(', ') : null], '',
      key === 'reward' ? 'reward' : null);
  });
  addChart('overall', 'chart-valid', () => ['valid rate (masked items excluded from GRPO)', runs.map((run, i) => ({
    x: data.runs[run].steps, y: smooth(data.runs[run].valid_rate, state.smoothing), mode: 'lines',
    line: {color: color(i), shape: shape(data.runs[run].steps), width: 2}, name: run, meta: {run: run, role: 'rate'},
    hovertemplate: `<b>${run}</b> step %{x}<br>valid %{y:.1%}<extra></extra>`}))], '', null, true);

  // Bottom-line dimensions first, then behavioral; each group alphabetical by title.
  const dimensions = Object.keys(data.layers).sort((a, b) =>
    (data.layers[a] === 'bottom_line' ? 0 : 1) - (data.layers[b] === 'bottom_line' ? 0 : 1) ||
    title(a).localeCompare(title(b)));
  dimensions.forEach((name) => {
    const layer = data.layers[name];
    const binary = runs.some((run) => data.runs[run].dimensions[name] && data.runs[run].dimensions[name].binary);
    addChart(layer === 'bottom_line' ? 'bottom_line' : 'behavioral', 'chart-dim-' + name, () => [title(name) +
      (binary ? ' <span style="font-size:11px;color:#6b7280">(pass/fail: pass rate)</span>' : ''),
      runs.flatMap((run, i) => data.runs[run].dimensions[name] ?
        bandTraces(data.runs[run].dimensions[name], data.runs[run].steps, run, i, name) : [])], layer, name);
  });

  runs.forEach((run, i) => {
    addChart('unscored', 'chart-unscored-' + i, () => {
      const entries = Object.entries(data.runs[run].unscored);
      const traces = entries.map(([reason, rates], j) => ({x: data.runs[run].steps, y: smooth(rates, state.smoothing),
        mode: 'lines', stackgroup: 'one', name: reason, line: {color: colors[(j + 3) % colors.length], shape: shape(data.runs[run].steps)},
        hovertemplate: `${reason}: %{y:.2%}<extra>step %{x}</extra>`}));
      if (!traces.length) traces.push({x: data.runs[run].steps, y: data.runs[run].steps.map(() => 0), mode: 'lines',
        name: 'none unscored', line: {color: '#9ca3af'}});
      return ['unscored: ' + run, traces];
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

  function latestCell(series, unscoredOf) {
    if (!series) return '<td>—</td>';
    const k = lastIndex(series.mean), f = firstIndex(series.mean);
    if (k < 0) return '<td>—</td>';
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
      rows.push(`<tr class="${data.layers[name]}"><td>${escapeHtml(title(name))}</td>` +
        shown.map((r) => latestCell(data.runs[r].dimensions[name], true)).join('') + '</tr>');
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

  // A step's samples: embedded in the page (a shared file), or fetched once from the server for the clicked step.
  const fetched = {};
  function samplesFor(run, step) {
    const info = data.runs[run];
    const embedded = info.step_samples || {};
    if (embedded[String(step)]) return Promise.resolve([step, embedded[String(step)]]);
    if (data.samples_url) {
      const key = JSON.stringify([run, step]);
      if (!fetched[key]) fetched[key] = fetch(`${data.samples_url}?run=${encodeURIComponent(run)}&step=${step}`,
        {credentials: 'same-origin'}).then((r) => r.json().then((body) => r.ok ? body : Promise.reject(new Error(body.error || r.statusText))));
      return fetched[key].then((body) => [step, body]);
    }
    // A shared file keeps samples for a thinned set of steps: show the nearest one that has them.
    let nearest = null;
    (info.sampled_steps || []).forEach((s) => { if (nearest === null || Math.abs(s - step) < Math.abs(nearest - step)) nearest = s; });
    return Promise.resolve([nearest, nearest === null ? null : embedded[String(nearest)]]);
  }

  function showSamples(channel, run, x) {
    const info = data.runs[run];
    if (!info) return Promise.resolve();
    const step = Number(x);
    const box = document.getElementById('drilldown');
    box.dataset.loading = 'true';
    return samplesFor(run, step).then(([shownStep, found]) => renderSamples(channel, run, step, shownStep, found))
      .catch((error) => { box.innerHTML = `<span class="unscored">samples of step ${step} unavailable: ${escapeHtml(error.message)}</span>`;
        box.dataset.samples = '0'; })
      .finally(() => { box.dataset.loading = 'false'; });
  }

  function renderSamples(channel, run, step, nearest, found) {
    const info = data.runs[run];
    const samples = (found && found.channels[channel]) || [];
    const items = (found && found.items) || [];
    const box = document.getElementById('drilldown');
    const label = channel === 'reward' ? 'Reward (lowest-reward items)' : title(channel);
    const note = nearest !== null && nearest !== step ? ` <span class="note">(no samples kept at step ${step}; nearest step shown)</span>` : '';
    // The step's unscored counts by reason for this dimension (all items, not only the samples).
    const series = info.dimensions[channel], at = info.steps.indexOf(nearest);
    const reasons = series && at >= 0 ? Object.entries(series.unscored).filter(([, c]) => c[at] > 0)
      .map(([reason, c]) => `${escapeHtml(reason)} ${c[at]}`) : [];
    const counts = series && at >= 0 ? ` · ${series.count[at]} of ${series.seen[at]} scored` +
      (reasons.length ? ` (unscored: ${reasons.join(', ')})` : '') : '';
    const when = info.time && at >= 0 ? ` · ${escapeHtml(info.time[at])} UTC` : '';
    box.innerHTML = `<b>${escapeHtml(label)}</b> · run <b>${escapeHtml(run)}</b> · step <b>${escapeHtml(nearest)}</b>${when}${note}${counts} · ${samples.length} samples` +
      samples.map((s) => {
        const item = items[s.item];
        const verdict = s.score == null ? `unscored (${escapeHtml(s.reason)})` :
          `score ${s.score.toFixed(3)}${s.label ? ' · label ' + escapeHtml(s.label) : ''}${s.status === 'invalid' ? ' · invalid: ' + escapeHtml(s.reason) : ''}`;
        return `<div class="sample ${escapeHtml(s.status)}"><div><b>${escapeHtml(item.id)}</b> ${verdict} · reward ${item.reward.toFixed(3)}` +
          `${item.valid ? '' : ' (masked)'} · ${escapeHtml(s.backend)}${item.group ? ' · group ' + escapeHtml(item.group) : ''}</div>` +
          `<div><i>query</i>: ${escapeHtml(item.query)}</div><div><i>answer</i>: ${escapeHtml(item.answer)}</div>` +
          (s.explanation ? `<div><i>${channel === 'reward' ? 'aggregate' : 'judge'}</i>: ${escapeHtml(s.explanation)}</div>` : '') +
          (s.quotes || []).map((q) => `<div class="quote ${q.verified ? '' : 'unverified'}"><i>quote [Doc ${escapeHtml(q.doc)}]${
            q.verified ? '' : ' (not found in evidence)'}</i>: “${escapeHtml(q.text)}”</div>`).join('') + '</div>';
      }).join('');
    box.dataset.samples = String(samples.length);
    box.dataset.step = String(nearest);
  }

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
    setRunVisible: setRunVisible};
  window.dashboardReady = true;
})();
