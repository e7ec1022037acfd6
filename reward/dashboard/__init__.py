"""The training-dynamics dashboard of score logs: `page` builds the self-contained HTML page from the assets
(`assets/page.html`, `assets/dashboard.js`), `data` reads the aggregate stores, `stats` summarises records,
`synthetic` writes a synthetic log to try it on."""

from reward.dashboard.page import drilldown, render, render_from_log, summarise

__all__ = ["drilldown", "render", "render_from_log", "summarise"]
