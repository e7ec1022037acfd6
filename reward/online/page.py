"""The online-evaluation page of the dashboard: one self-contained HTML file (no scripts, no network).

Per metric a forest plot of every arm's relative lift over control with its 95% interval, the rates table with
relative and absolute differences, Holm-adjusted p-values and the MDE, the cumulative lift by day, the SRM verdict
(a mismatch greys every lift), and, when the report holds them, the bad-case rates of the audit and the
offline-online link (AUC per dimension and outcome).
"""

from __future__ import annotations

import html

from reward.online.audit import ArmBCR
from reward.online.link import OUTCOMES, LinkResult, LinkRow
from reward.online.report import METRIC_TITLES, OnlineReport

_STYLE = """
body{font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:0;background:#f7f7f9;color:#222}
header{background:#1f2937;color:#fff;padding:14px 24px}header h1{margin:0;font-size:20px}
header p{margin:4px 0 0;color:#cbd5e1;font-size:13px}main{padding:16px 24px;max-width:1400px}
section{background:#fff;border:1px solid #e5e7eb;border-radius:8px;padding:12px 16px;margin-bottom:16px}
h2{font-size:16px;margin:0 0 8px}table{border-collapse:collapse;font-size:13px}
td,th{padding:4px 10px;border-bottom:1px solid #eee;text-align:right;white-space:nowrap}th:first-child,td:first-child{text-align:left}
.bad{background:#fee2e2;color:#991b1b;padding:8px;border-radius:6px}.ok{background:#dcfce7;color:#166534;padding:8px;border-radius:6px}
.better{color:#15803d;font-weight:600}.greyed{color:#9ca3af}.worse{color:#b91c1c;font-weight:600}.muted{color:#6b7280}
"""


def _pct(value: float | None, signed: bool = False) -> str:
    return "—" if value is None else (f"{value * 100:+.2f}%" if signed else f"{value * 100:.2f}%")


def _pp(value: float | None) -> str:
    return "—" if value is None else f"{value * 100:+.2f} pp"


def _p(value: float | None) -> str:
    return "—" if value is None else f"{value:.3g}"


def _interval(value: float | None, ci: tuple[float, float] | None, fmt) -> str:
    return fmt(value) + (f" [{fmt(ci[0])}, {fmt(ci[1])}]" if ci else "")


def _forest(report: OnlineReport, metric: str) -> str:
    rows = [r for r in report.lifts if r.metric == metric and r.relative_ci is not None]
    if not rows:
        return "<p class='muted'>no lift (control or arm missing)</p>"
    bound = max(max(abs(r.relative_ci[0]), abs(r.relative_ci[1])) for r in rows) * 1.15 or 0.01
    width, left, height = 520, 120, 28 * len(rows) + 30

    def x(value: float) -> float:
        return left + (value + bound) / (2 * bound) * (width - left - 50)

    parts = [f"<svg width='{width}' height='{height}' role='img' aria-label='relative lift of {html.escape(metric)}'>",
             f"<line x1='{x(0):.1f}' x2='{x(0):.1f}' y1='5' y2='{height - 22}' stroke='#9ca3af' stroke-dasharray='3'/>"]
    for i, row in enumerate(rows):
        y = 20 + 28 * i
        colour = "#6b7280" if row.better is None or not report.lifts_trusted else ("#15803d" if row.better else "#b91c1c")
        parts.append(f"<text x='4' y='{y + 4}' font-size='12'>{html.escape(row.arm)}</text>"
                     f"<line x1='{x(row.relative_ci[0]):.1f}' x2='{x(row.relative_ci[1]):.1f}' y1='{y}' y2='{y}' "
                     f"stroke='{colour}' stroke-width='3'/><circle cx='{x(row.relative_lift):.1f}' cy='{y}' r='5' "
                     f"fill='{colour}'><title>relative lift {_interval(row.relative_lift, row.relative_ci, lambda v: _pct(v, True))}"
                     f", p = {_p(row.p_value)}, Holm p = {_p(row.p_holm)}</title></circle>")
    for tick in (-bound, 0.0, bound):
        parts.append(f"<text x='{x(tick):.1f}' y='{height - 6}' font-size='11' text-anchor='middle' fill='#6b7280'>"
                     f"{_pct(tick, True)}</text>")
    return "".join(parts) + "</svg>"


def _cumulative(report: OnlineReport, metric: str) -> str:
    rows = [c for c in report.cumulative if c.metric == metric]
    if not rows:
        return ""
    body = "".join(f"<tr data-key='{html.escape(metric)}/{html.escape(c.arm)}/{c.day}'><td>{c.day}</td>"
                   f"<td>{html.escape(c.arm)}</td><td>{_interval(c.relative_lift, c.relative_ci, lambda v: _pct(v, True))}</td>"
                   f"<td>{_interval(c.absolute_difference, c.absolute_ci, _pp)}</td><td>{_p(c.p_value)}</td></tr>"
                   for c in rows)
    return ("<details><summary>Cumulative lift by day (every day up to the one shown; unadjusted p, do not stop at "
            "the first p &lt; 0.05)</summary><table class='cumulative'><tr><th>through</th><th>arm</th>"
            "<th>relative lift [95% CI]</th><th>absolute diff [95% CI]</th><th>p</th></tr>"
            f"{body}</table></details>")


def _bcr_section(rows: list[ArmBCR]) -> str:
    body = []
    for r in rows:
        control = r.absolute_difference is None and r.p_value is None
        body.append(
            f"<tr data-key='{html.escape(r.arm)}/{html.escape(r.track)}'><td>{html.escape(r.arm)}</td>"
            f"<td>{html.escape(r.track)}</td><td>{r.sampled}</td><td>{r.labelled}</td><td>{r.responses}</td><td>{r.bad}</td>"
            f"<td>{_interval(r.bcr, r.ci, _pct)}</td>"
            + ("<td>control</td><td></td><td></td><td></td><td></td>" if control else
               f"<td>{_interval(r.absolute_difference, r.absolute_ci, _pp)}</td>"
               f"<td>{_interval(r.relative_difference, r.relative_ci, lambda v: _pct(v, True))}</td>"
               f"<td>{_p(r.p_value)}</td><td>{_p(r.p_holm)}</td>"
               f"<td>{'—' if r.mde_absolute is None else '±' + _pp(r.mde_absolute)[1:]}</td>") + "</tr>")
    return ("<section id='bcr'><h2>Bad-case rate (daily audit)</h2><table><tr><th>arm</th><th>track</th>"
            "<th>sampled</th><th>labelled</th><th>responses</th><th>bad</th><th>BCR [95% CI]</th>"
            "<th>absolute diff vs control [95% CI]</th><th>relative diff vs control [95% CI]</th><th>p</th>"
            "<th>p (Holm)</th><th>MDE (80% power)</th></tr>"
            f"{''.join(body)}</table><p class='muted'>Intervals and tests count the labelled responses, not the "
            "sessions: a response shown in several sampled sessions is labelled once. p Holm-adjusted over the rows "
            "of this table.</p></section>")


def _link_section(link: LinkResult) -> str:
    by_dimension: dict[str, dict[str, LinkRow]] = {}
    for row in link.rows:
        by_dimension.setdefault(row.dimension, {})[row.outcome] = row

    def cell(row: LinkRow | None) -> str:
        if row is None or row.auc is None:
            return "<td class='muted'>—</td>"
        strength = min(1.0, abs(row.auc - 0.5) * 4)
        hue = "21,128,61" if row.auc >= 0.5 else "185,28,28"
        return (f"<td style='background:rgba({hue},{strength * 0.35:.2f})'>{row.auc:.3f} "
                f"<span class='muted'>[{row.ci[0]:.3f}, {row.ci[1]:.3f}]</span></td>")

    body = "".join(f"<tr data-key='{html.escape(name)}'><td>{html.escape(name)}</td>"
                   f"<td class='muted'>{html.escape(rows_[OUTCOMES[0]].layer or 'aggregate')}</td>"
                   + "".join(cell(rows_.get(o)) for o in OUTCOMES)
                   + f"<td>{rows_[OUTCOMES[0]].sessions:,}</td><td>{rows_[OUTCOMES[0]].responses:,}</td>"
                   f"<td>{rows_[OUTCOMES[0]].unscored:,}</td></tr>"
                   for name, rows_ in by_dimension.items())
    return ("<section id='link'><h2>Which reward dimensions predict user behaviour (AUC, 95% CI clustered by "
            "response)</h2><p class='muted'>Above 0.5: higher scores go with the good outcome. "
            f"{link.joined_sessions:,} joined sessions showed {link.responses:,} distinct scored responses; each "
            "response was scored once, so the intervals count responses (jackknife over responses), not sessions."
            "</p><table><tr><th>dimension</th><th>layer</th><th>valid consumption</th><th>no skip</th>"
            "<th>no re-search</th><th>sessions</th><th>responses</th><th>unscored sessions</th></tr>"
            f"{body}</table></section>")


def render_page(report: OnlineReport, *, title: str | None = None, notice: str | None = None) -> str:
    """The page as one HTML string, drawn from the report object alone (the JSON holds the same numbers)."""
    title = title or f"Online evaluation: {report.experiment}"
    span = f"{report.days[0]} – {report.days[1]}" if report.days else "no data"
    srm = report.srm
    observed = ", ".join(f"{html.escape(a)} {c:,}" for a, c in srm.observed.items())
    srm_html = (f"<p class='bad'>Sample ratio mismatch (p = {_p(srm.p_value)}): users per arm {observed} against the "
                f"configured {html.escape(str(srm.expected_share))}. The split is broken; the lifts are greyed: do not "
                "trust the lifts.</p>" if srm.mismatch else
                f"<p class='ok'>Split as configured (chi-square p = {_p(srm.p_value)}): users per arm {observed}.</p>")
    lifts = {(r.metric, r.arm): r for r in report.lifts}
    sections = []
    for metric, metric_title in METRIC_TITLES.items():
        body = []
        for row in (r for r in report.arms if r.metric == metric):
            lift = lifts.get((metric, row.arm))
            css = " class='greyed'" if not report.lifts_trusted else (
                "" if lift is None or lift.better is None else (" class='better'" if lift.better else " class='worse'"))
            if lift is None:
                cells = f"<td>{'control' if row.arm == report.control else '—'}</td><td></td><td></td><td></td><td></td>"
            else:
                cells = (f"<td{css}>{_interval(lift.relative_lift, lift.relative_ci, lambda v: _pct(v, True))}</td>"
                         f"<td{css}>{_interval(lift.absolute_difference, lift.absolute_ci, _pp)}</td>"
                         f"<td>{_p(lift.p_value)}</td><td>{_p(lift.p_holm)}</td>"
                         f"<td>{'—' if lift.mde_relative is None else '±' + _pct(lift.mde_relative)} "
                         f"({'—' if lift.mde_absolute is None else '±' + _pp(lift.mde_absolute)[1:]})</td>")
            body.append(f"<tr data-key='{html.escape(metric)}/{html.escape(row.arm)}'><td>{html.escape(row.arm)}</td>"
                        f"<td>{row.users:,}</td><td>{row.sessions:,}</td><td>{_interval(row.rate, row.ci, _pct)}</td>"
                        f"{cells}</tr>")
        sections.append(f"<section id='{metric}'><h2>{html.escape(metric_title)}</h2>{_forest(report, metric)}"
                        "<table class='lifts'><tr><th>arm</th><th>users</th><th>sessions</th><th>rate [95% CI]</th>"
                        "<th>relative lift vs control [95% CI]</th><th>absolute diff vs control [95% CI]</th><th>p</th>"
                        f"<th>p (Holm)</th><th>MDE at 80% power, relative (absolute)</th></tr>{''.join(body)}</table>"
                        f"{_cumulative(report, metric)}</section>")
    if report.bcr:
        sections.append(_bcr_section(report.bcr))
    if report.link:
        sections.append(_link_section(report.link))
    t = report.thresholds
    counts = report.ingest
    footer = (f"<p class='muted'>Relative lift = arm rate / control rate − 1; absolute diff = arm rate − control rate, "
              f"in percentage points (pp). {html.escape(report.multiple_comparisons)}. "
              f"VCR: dwell &gt; {t.valid_dwell_ms / 1000:g} s; skip: dwell &lt; {t.skip_dwell_ms / 1000:g} s; "
              f"re-search: next query within {t.research_window_s:g} s of the end of the view and MiniLM cosine &ge; "
              f"{t.research_similarity:g}. Intervals: delta method over users. Log: {counts['rows']:,} rows, "
              f"{counts['duplicates']:,} duplicate ids, {counts['bad']:,} bad rows.</p>")
    notice_html = f"<p class='bad'>{html.escape(notice)}</p>" if notice else ""
    return (f"<!doctype html><html lang='en'><head><meta charset='utf-8'><title>{html.escape(title)}</title>"
            f"<style>{_STYLE}</style></head><body><header><h1>{html.escape(title)}</h1><p>{html.escape(span)} · control arm: "
            f"{html.escape(report.control)}</p></header><main>{notice_html}{srm_html}{''.join(sections)}{footer}</main></body></html>")
