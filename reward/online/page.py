"""The online-evaluation page of the dashboard: one self-contained HTML file (no scripts, no network).

Per metric a forest plot of every arm's lift over control with its 95% interval, the rates table, the SRM verdict,
and, when given, the bad-case rates of the audit and the offline-online link (AUC per dimension and outcome).
"""

from __future__ import annotations

import html

from reward.online.audit import ArmBCR
from reward.online.link import OUTCOMES, LinkRow
from reward.online.report import METRIC_TITLES, OnlineReport

_STYLE = """
body{font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:0;background:#f7f7f9;color:#222}
header{background:#1f2937;color:#fff;padding:14px 24px}header h1{margin:0;font-size:20px}
header p{margin:4px 0 0;color:#cbd5e1;font-size:13px}main{padding:16px 24px;max-width:1100px}
section{background:#fff;border:1px solid #e5e7eb;border-radius:8px;padding:12px 16px;margin-bottom:16px}
h2{font-size:16px;margin:0 0 8px}table{border-collapse:collapse;font-size:13px}
td,th{padding:4px 10px;border-bottom:1px solid #eee;text-align:right}th:first-child,td:first-child{text-align:left}
.bad{background:#fee2e2;color:#991b1b;padding:8px;border-radius:6px}.ok{background:#dcfce7;color:#166534;padding:8px;border-radius:6px}
.better{color:#15803d;font-weight:600}.worse{color:#b91c1c;font-weight:600}.muted{color:#6b7280}
"""


def _pct(value: float | None, signed: bool = False) -> str:
    return "—" if value is None else (f"{value * 100:+.2f}%" if signed else f"{value * 100:.2f}%")


def _forest(report: OnlineReport, metric: str) -> str:
    rows = [r for r in report.lifts if r.metric == metric and r.ci is not None]
    if not rows:
        return "<p class='muted'>no lift (control or arm missing)</p>"
    bound = max(max(abs(r.ci[0]), abs(r.ci[1])) for r in rows) * 1.15 or 0.01
    width, left, height = 520, 120, 28 * len(rows) + 30

    def x(value: float) -> float:
        return left + (value + bound) / (2 * bound) * (width - left - 50)

    parts = [f"<svg width='{width}' height='{height}' role='img' aria-label='lift of {html.escape(metric)}'>",
             f"<line x1='{x(0):.1f}' x2='{x(0):.1f}' y1='5' y2='{height - 22}' stroke='#9ca3af' stroke-dasharray='3'/>"]
    for i, row in enumerate(rows):
        y = 20 + 28 * i
        colour = "#6b7280" if row.better is None else ("#15803d" if row.better else "#b91c1c")
        parts.append(f"<text x='4' y='{y + 4}' font-size='12'>{html.escape(row.arm)}</text>"
                     f"<line x1='{x(row.ci[0]):.1f}' x2='{x(row.ci[1]):.1f}' y1='{y}' y2='{y}' stroke='{colour}' stroke-width='3'/>"
                     f"<circle cx='{x(row.lift):.1f}' cy='{y}' r='5' fill='{colour}'><title>{_pct(row.lift, True)} "
                     f"[{_pct(row.ci[0], True)}, {_pct(row.ci[1], True)}], p = {row.p_value:.3g}</title></circle>")
    for tick in (-bound, 0.0, bound):
        parts.append(f"<text x='{x(tick):.1f}' y='{height - 6}' font-size='11' text-anchor='middle' fill='#6b7280'>"
                     f"{_pct(tick, True)}</text>")
    return "".join(parts) + "</svg>"


def render_page(report: OnlineReport, *, bcr: list[ArmBCR] | None = None, link: list[LinkRow] | None = None,
                title: str | None = None, notice: str | None = None) -> str:
    """The page as one HTML string."""
    title = title or f"Online evaluation: {report.experiment}"
    span = f"{report.days[0]} – {report.days[1]}" if report.days else "no data"
    srm = report.srm
    observed = ", ".join(f"{html.escape(a)} {c:,}" for a, c in srm.observed.items())
    srm_html = (f"<p class='bad'>Sample ratio mismatch (p = {srm.p_value:.2g}): users per arm {observed} against the "
                f"configured {html.escape(str(srm.expected_share))}. The split is broken; do not trust the lifts.</p>"
                if srm.mismatch else
                f"<p class='ok'>Split as configured (chi-square p = {srm.p_value:.3g}): users per arm {observed}.</p>")
    lifts = {(r.metric, r.arm): r for r in report.lifts}
    sections = []
    for metric, metric_title in METRIC_TITLES.items():
        body = []
        for row in (r for r in report.arms if r.metric == metric):
            lift = lifts.get((metric, row.arm))
            css = "" if lift is None or lift.better is None else (" class='better'" if lift.better else " class='worse'")
            lift_cell = ("control" if row.arm == report.control else "—") if lift is None or lift.lift is None else (
                f"{_pct(lift.lift, True)} [{_pct(lift.ci[0], True)}, {_pct(lift.ci[1], True)}]")
            p_cell = "" if lift is None or lift.p_value is None else f"{lift.p_value:.3g}"
            ci = f" [{_pct(row.ci[0])}, {_pct(row.ci[1])}]" if row.ci else ""
            body.append(f"<tr><td>{html.escape(row.arm)}</td><td>{row.users:,}</td><td>{row.sessions:,}</td>"
                        f"<td>{_pct(row.rate)}{ci}</td><td{css}>{lift_cell}</td><td>{p_cell}</td></tr>")
        sections.append(f"<section id='{metric}'><h2>{html.escape(metric_title)}</h2>{_forest(report, metric)}"
                        "<table><tr><th>arm</th><th>users</th><th>sessions</th><th>rate [95% CI]</th>"
                        f"<th>lift vs control [95% CI]</th><th>p</th></tr>{''.join(body)}</table></section>")
    if bcr:
        body = "".join(f"<tr><td>{html.escape(r.arm)}</td><td>{html.escape(r.track)}</td><td>{r.sampled}</td>"
                       f"<td>{r.labelled}</td><td>{r.bad}</td><td>{_pct(r.bcr)}"
                       f"{f' [{_pct(r.ci[0])}, {_pct(r.ci[1])}]' if r.ci else ''}</td>"
                       f"<td>{_pct(r.lift, True) if r.lift is not None else ''}</td>"
                       f"<td>{'' if r.p_value is None else f'{r.p_value:.3g}'}</td></tr>" for r in bcr)
        sections.append("<section id='bcr'><h2>Bad-case rate (daily audit)</h2><table><tr><th>arm</th><th>track</th>"
                        "<th>sampled</th><th>labelled</th><th>bad</th><th>BCR [95% CI]</th><th>vs control</th><th>p</th>"
                        f"</tr>{body}</table></section>")
    if link:
        by_dimension: dict[str, dict[str, LinkRow]] = {}
        for row in link:
            by_dimension.setdefault(row.dimension, {})[row.outcome] = row

        def cell(row: LinkRow | None) -> str:
            if row is None or row.auc is None:
                return "<td class='muted'>—</td>"
            strength = min(1.0, abs(row.auc - 0.5) * 4)
            hue = "21,128,61" if row.auc >= 0.5 else "185,28,28"
            return (f"<td style='background:rgba({hue},{strength * 0.35:.2f})'>{row.auc:.3f} "
                    f"<span class='muted'>[{row.ci[0]:.3f}, {row.ci[1]:.3f}]</span></td>")

        body = "".join(f"<tr><td>{html.escape(name)}</td><td class='muted'>{html.escape(rows_[OUTCOMES[0]].layer or 'aggregate')}</td>"
                       + "".join(cell(rows_.get(o)) for o in OUTCOMES)
                       + f"<td>{rows_[OUTCOMES[0]].sessions:,}</td><td>{rows_[OUTCOMES[0]].unscored:,}</td></tr>"
                       for name, rows_ in by_dimension.items())
        sections.append("<section id='link'><h2>Which reward dimensions predict user behaviour (AUC, DeLong 95% CI)</h2>"
                        "<p class='muted'>Above 0.5: higher scores go with the good outcome.</p><table><tr><th>dimension</th>"
                        "<th>layer</th><th>valid consumption</th><th>no skip</th><th>no re-search</th><th>sessions</th><th>unscored</th></tr>"
                        f"{body}</table></section>")
    t = report.thresholds
    counts = report.ingest
    footer = (f"<p class='muted'>VCR: dwell &gt; {t.valid_dwell_ms / 1000:g} s; skip: dwell &lt; {t.skip_dwell_ms / 1000:g} s; "
              f"re-search: next query within {t.research_window_s:g} s of the end of the view and MiniLM cosine &ge; "
              f"{t.research_similarity:g}. Intervals: delta method over users. Log: {counts['rows']:,} rows, "
              f"{counts['duplicates']:,} duplicate ids, {counts['bad']:,} bad rows.</p>")
    notice_html = f"<p class='bad'>{html.escape(notice)}</p>" if notice else ""
    return (f"<!doctype html><html lang='en'><head><meta charset='utf-8'><title>{html.escape(title)}</title>"
            f"<style>{_STYLE}</style></head><body><header><h1>{html.escape(title)}</h1><p>{html.escape(span)} · control arm: "
            f"{html.escape(report.control)}</p></header><main>{notice_html}{srm_html}{''.join(sections)}{footer}</main></body></html>")
