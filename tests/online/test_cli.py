"""`reward online ...` end to end on a small synthetic log (the real MiniLM embeds its query texts)."""

import datetime as dt
import json

import pytest

from reward.cli import main
from reward.online.experiments import load_experiments
from reward.online.synthetic import Traffic, example_catalogue, generate

from .conftest import row, write_log


@pytest.fixture(scope="module")
def log_path(tmp_path_factory):
    folder = tmp_path_factory.mktemp("cli")
    experiments = load_experiments("configs/online/experiments.yaml")
    traffic = Traffic(sessions=400, users=120, start=dt.date(2026, 1, 12), days=2, experiments=list(experiments.values()),
                      good_share={"reward-v2": {"treatment": 0.7}}, policies={"control": "grpo-0301", "treatment": "grpo-0412"},
                      seed=8)
    return generate(example_catalogue("examples/items.jsonl"), traffic, folder / "log.jsonl.gz")


def test_report_json_and_page(tmp_path, log_path, capsys):
    out, page = tmp_path / "report.json", tmp_path / "page.html"
    code = main(["online", "report", "--logs", str(log_path), "--store", str(tmp_path / "s.sqlite"), "--experiment",
                 "reward-v2", "--json", str(out), "--html", str(page), "--scores", "examples/online/scores"])
    assert code == 0
    report = json.loads(out.read_text())
    assert report["experiment"] == "reward-v2" and report["control"] == "control"
    assert {(a["metric"], a["arm"]) for a in report["arms"]} == {
        (m, arm) for m in ("vcr", "skip_rate", "research_rate") for arm in ("control", "treatment")}
    assert sum(a["sessions"] for a in report["arms"] if a["metric"] == "vcr") == 400
    assert report["srm"]["mismatch"] is False
    assert report["ingest"] == {"files": 1, "rows": 400, "sessions": 400, "duplicates": 0, "bad": 0}
    # the example score log has the responses of both policies: every session joins
    assert report["link"]["joined_sessions"] == 400
    html = page.read_text()
    assert "<svg" in html and "Re-search rate" in html and "Which reward dimensions predict" in html
    assert "split ok" in capsys.readouterr().out


def test_bad_rows_are_reported_and_counted(tmp_path, capsys):
    log = write_log(tmp_path / "log.jsonl", [row(1), row(2, dwell="long"), row(3, arms={"exp": "treatment"})])
    assert main(["online", "ingest", "--logs", str(log), "--store", str(tmp_path / "s.sqlite")]) == 0
    err = " ".join(capsys.readouterr().err.split())  # rich wraps long lines
    assert f"{log}:2: dwell_ms" in err and "2 new sessions" in err and "1 bad rows" in err


def test_unknown_experiment_is_a_clear_error(tmp_path, log_path, capsys):
    code = main(["online", "report", "--store", str(tmp_path / "s.sqlite"), "--logs", str(log_path),
                 "--experiment", "nope"])
    assert code == 2
    assert "no experiment 'nope' (known: ['answer-length', 'reward-v2'])" in " ".join(capsys.readouterr().err.split())


@pytest.fixture(scope="module")
def labelled_audit(tmp_path_factory, log_path):
    """A reward-v2 audit of 2026-01-12 drawn by the CLI, with the assisted track returned: every answer of the
    flawed examples marked as a bad case."""
    folder = tmp_path_factory.mktemp("audit")
    store, audit = str(folder / "s.sqlite"), folder / "audit"
    code = main(["online", "audit", "--logs", str(log_path), "--store", store, "--experiment", "reward-v2",
                 "--day", "2026-01-12", "--n", "20", "--scores", "examples/online/scores", "--out", str(audit),
                 "--judge", "mock"])
    assert code == 0
    assisted = [json.loads(line) for line in (audit / "assisted.jsonl").read_text().splitlines()]
    assert assisted and all(r["label"] is None and r["hints"] for r in assisted)
    for row_ in assisted:
        row_["label"] = 1 if "good" in row_["item"]["id"] else 0
    (audit / "assisted.jsonl").write_text("".join(json.dumps(r) + "\n" for r in assisted))
    (audit / "blind.jsonl").unlink()
    return audit, store


def test_audit_then_bcr(tmp_path, labelled_audit, capsys):
    folder, _ = labelled_audit
    out = tmp_path / "bcr.json"
    assert main(["online", "bcr", str(folder), "--json", str(out)]) == 0
    rows = json.loads(out.read_text())
    assert {r["arm"] for r in rows} == {"control", "treatment"}
    assert all(r["labelled"] == r["sampled"] == 10 for r in rows)
    manifest = json.loads((folder / "manifest.json").read_text())
    for r in rows:
        drawn = [d["response_id"] for d in manifest["draws"] if d["arm"] == r["arm"]]
        assert r["bad"] == sum("good" not in d for d in drawn)
        assert r["responses"] == len(set(drawn))
    treatment = next(r for r in rows if r["arm"] == "treatment")
    control = next(r for r in rows if r["arm"] == "control")
    # the difference is absolute and named so; the relative one is beside it
    assert treatment["absolute_difference"] == pytest.approx(treatment["bcr"] - control["bcr"])
    if control["bcr"]:
        assert treatment["relative_difference"] == pytest.approx(treatment["bcr"] / control["bcr"] - 1)
    assert treatment["p_value"] is not None and treatment["p_holm"] >= treatment["p_value"]
    terminal = " ".join(capsys.readouterr().out.split())
    assert "absolute diff" in terminal and "relative diff" in terminal and " pp" in terminal


def _experiments_file(tmp_path, **arms_by_name) -> str:
    """configs/online/experiments.yaml with some experiments' arms replaced (same salts, so the same buckets)."""
    import yaml

    data = yaml.safe_load(open("configs/online/experiments.yaml"))
    for entry in data["experiments"]:
        if entry["name"] in arms_by_name:
            entry["arms"], entry["control"] = arms_by_name[entry["name"]], next(iter(arms_by_name[entry["name"]]))
    path = tmp_path / "experiments.yaml"
    path.write_text(yaml.safe_dump(data))
    return str(path)


def test_sample_ratio_mismatch_exits_non_zero_and_greys_lifts(tmp_path, log_path, capsys):
    claimed = _experiments_file(tmp_path, **{"reward-v2": {"control": 0.9, "treatment": 0.1}})
    out, page = tmp_path / "report.json", tmp_path / "page.html"
    base = ["online", "report", "--logs", str(log_path), "--store", str(tmp_path / "s.sqlite"), "--experiment",
            "reward-v2", "--experiments", claimed, "--json", str(out), "--html", str(page)]
    assert main(base) == 3
    report = json.loads(out.read_text())
    assert report["srm"]["mismatch"] and report["lifts_trusted"] is False
    assert all(lift["better"] is None for lift in report["lifts"])
    html = page.read_text()
    assert "class='greyed'" in html and "class='better'" not in html and "class='worse'" not in html
    assert "sample ratio mismatch" in " ".join(capsys.readouterr().err.split())
    assert main([*base, "--allow-srm"]) == 0
    # the configured split: exit 0 without the flag
    assert main([*base[:-6], "--json", str(out)]) == 0 and json.loads(out.read_text())["lifts_trusted"] is True


def test_audit_of_another_experiment_or_other_arms_is_refused(tmp_path, labelled_audit, capsys):
    folder, store = labelled_audit
    code = main(["online", "report", "--store", store, "--experiment", "answer-length", "--audit", str(folder)])
    err = " ".join(capsys.readouterr().err.split())
    assert code == 2 and "'reward-v2'" in err and "'answer-length'" in err, err
    assert main(["online", "bcr", str(folder), "--experiment", "answer-length"]) == 2
    err = " ".join(capsys.readouterr().err.split())
    assert "experiment 'reward-v2', not of 'answer-length'" in err, err
    renamed = _experiments_file(tmp_path, **{"reward-v2": {"control": 0.5, "variant": 0.5}})
    assert main(["online", "bcr", str(folder), "--experiments", renamed]) == 2
    err = " ".join(capsys.readouterr().err.split())
    assert "['control', 'treatment']" in err and "['control', 'variant']" in err and "unknown: ['treatment']" in err, err
    assert main(["online", "bcr", str(folder), "--day", "2026-01-13"]) == 2
    assert "outside the days asked" in " ".join(capsys.readouterr().err.split())
    assert main(["online", "bcr", str(folder), "--experiments", str(tmp_path / "missing.yaml")]) == 2


def test_every_subcommand_takes_the_same_experiment_options():
    from reward.cli.main import build_parser

    parser, _ = build_parser()
    online = next(a for a in parser._subparsers._group_actions[0].choices["online"]._actions
                  if isinstance(a, type(parser._subparsers._group_actions[0])))
    options = {}
    for name in ("report", "audit", "bcr", "link"):
        group = next(g for g in online.choices[name]._action_groups if g.title == "experiment")
        options[name] = sorted(s for action in group._group_actions for s in action.option_strings)
    assert options["report"] == ["--allow-srm", "--day", "--experiment", "--experiments", "--since", "--until"]
    assert all(found == options["report"] for found in options.values()), options


def test_report_json_and_html_carry_the_same_numbers(tmp_path, log_path, labelled_audit):
    from html.parser import HTMLParser

    folder, store = labelled_audit
    out, page = tmp_path / "report.json", tmp_path / "page.html"
    assert main(["online", "report", "--store", store, "--experiment", "reward-v2", "--audit", str(folder),
                 "--scores", "examples/online/scores", "--json", str(out), "--html", str(page)]) == 0
    report = json.loads(out.read_text())

    class Rows(HTMLParser):
        def __init__(self):
            super().__init__()
            self.rows, self.key, self.cell = {}, None, None

        def handle_starttag(self, tag, attrs):
            if tag == "tr":
                self.key = dict(attrs).get("data-key")
                if self.key:
                    self.rows[self.key] = []
            elif tag == "td" and self.key:
                self.rows[self.key].append("")

        def handle_endtag(self, tag):
            if tag == "tr":
                self.key = None

        def handle_data(self, data):
            if self.key and self.rows[self.key]:
                self.rows[self.key][-1] += data

    parsed = Rows()
    parsed.feed(page.read_text())
    rows = parsed.rows
    pct = lambda v, sign="": "—" if v is None else f"{v * 100:{sign}.2f}%"  # noqa: E731
    pp = lambda v: "—" if v is None else f"{v * 100:+.2f} pp"  # noqa: E731
    p = lambda v: "—" if v is None else f"{v:.3g}"  # noqa: E731

    def interval(value, ci, fmt):
        return fmt(value) + (f" [{fmt(ci[0])}, {fmt(ci[1])}]" if ci else "")

    assert report["lifts"] and report["cumulative"] and report["bcr"] and report["link"]["rows"]
    for lift in report["lifts"]:
        cells = rows[f"{lift['metric']}/{lift['arm']}"]
        assert cells[4] == interval(lift["relative_lift"], lift["relative_ci"], lambda v: pct(v, "+"))
        assert cells[5] == interval(lift["absolute_difference"], lift["absolute_ci"], pp)
        assert (cells[6], cells[7]) == (p(lift["p_value"]), p(lift["p_holm"]))
        assert cells[8] == f"±{pct(lift['mde_relative'])} (±{pp(lift['mde_absolute'])[1:]})"
    for arm in report["arms"]:
        assert rows[f"{arm['metric']}/{arm['arm']}"][3] == interval(arm["rate"], arm["ci"], pct)
    for c in report["cumulative"]:
        cells = rows[f"{c['metric']}/{c['arm']}/{c['day']}"]
        assert cells[2:] == [interval(c["relative_lift"], c["relative_ci"], lambda v: pct(v, "+")),
                             interval(c["absolute_difference"], c["absolute_ci"], pp), p(c["p_value"])]
    for r in report["bcr"]:
        cells = rows[f"{r['arm']}/{r['track']}"]
        assert cells[2:7] == [str(r["sampled"]), str(r["labelled"]), str(r["responses"]), str(r["bad"]),
                              interval(r["bcr"], r["ci"], pct)]
        if r["arm"] != report["control"]:
            assert cells[7:11] == [interval(r["absolute_difference"], r["absolute_ci"], pp),
                                   interval(r["relative_difference"], r["relative_ci"], lambda v: pct(v, "+")),
                                   p(r["p_value"]), p(r["p_holm"])]
    for r in report["link"]["rows"]:
        cells = rows[r["dimension"]]
        column = 2 + ["valid_consumption", "no_skip", "no_research"].index(r["outcome"])
        expected = "—" if r["auc"] is None else f"{r['auc']:.3f} [{r['ci'][0]:.3f}, {r['ci'][1]:.3f}]"
        assert cells[column] == expected
        assert cells[6] == f"{r['responses']:,}"


def test_minilm_thresholds_separate_reformulations_from_topic_shifts():
    """The documented threshold (0.6) against the documented hand-written pairs."""
    from reward.online.reformulation import RESEARCH_SIMILARITY, QuerySimilarity

    reformulations = [("how to renew passport", "passport renewal online application"),
                      ("peach egg succulent bumps on leaves", "peach egg succulent leaves fungus"),
                      ("tokyo hotels near shinjuku", "shinjuku cheap hotel")]
    shifts = [("how to renew passport", "passport photo size"), ("tokyo hotels near shinjuku", "tokyo disneyland tickets"),
              ("peach egg succulent bumps on leaves", "cheap flights to tokyo")]
    cosines = QuerySimilarity().cosines(reformulations + shifts)
    assert min(cosines[:3]) >= RESEARCH_SIMILARITY > max(cosines[3:])


def test_link_takes_the_experiment_and_day_options(tmp_path, log_path):
    store, out = str(tmp_path / "s.sqlite"), tmp_path / "link.json"
    base = ["online", "link", "--logs", str(log_path), "--store", store, "--scores", "examples/online/scores"]
    assert main([*base, "--experiment", "reward-v2", "--json", str(out)]) == 0
    everything = json.loads(out.read_text())
    assert everything["joined_sessions"] == 400 and everything["responses"] < 400
    assert main([*base, "--experiment", "reward-v2", "--day", "2026-01-13", "--json", str(out)]) == 0
    one_day = json.loads(out.read_text())
    import sqlite3

    sessions_that_day = sqlite3.connect(store).execute(
        "SELECT COUNT(*) FROM online_sessions WHERE day = ?", ((dt.date(2026, 1, 13) - dt.date(1970, 1, 1)).days,)).fetchone()[0]
    assert one_day["joined_sessions"] == sessions_that_day < 400
    assert main([*base, "--experiment", "nope"]) == 2
    assert main([*base, "--day", "2026-01-13", "--since", "2026-01-12"]) == 2  # one or the other


def test_audit_samples_one_day(tmp_path, capsys):
    code = main(["online", "audit", "--store", str(tmp_path / "s.sqlite"), "--experiment", "reward-v2", "--since",
                 "2026-01-12", "--scores", "examples/online/scores", "--out", str(tmp_path / "audit")])
    assert code == 2 and "--day: the audit samples one day" in " ".join(capsys.readouterr().err.split())
    assert not (tmp_path / "audit").exists()
