"""`reward score` end to end on the bundled examples: output order, bad lines, and rewards recomputed from the
emitted dimension scores with the suite's weights and delta."""

import json
import math

import pytest

from reward.cli import main
from reward.rubric import load_suite
from tests.support import EXAMPLES


def recompute(result: dict, suite) -> float:
    bottom, behavioral = [], {}
    for name, score in result["dimensions"].items():
        if score["status"] != "ok":
            continue
        if score["layer"] == "bottom_line":
            bottom.append((score["score"], suite.suite.gate_deltas.get(name, suite.suite.delta)))
        else:
            behavioral[name] = score["score"]
    aggregation, delta, weights = suite.suite.aggregation, suite.suite.delta, suite.suite.dimensions
    if aggregation == "sum":
        return sum(s for s, _ in bottom) + sum(behavioral.values())
    if aggregation == "linear":
        everything = {**{n: s["score"] for n, s in result["dimensions"].items() if s["status"] == "ok"}}
        return sum(weights[n] * s for n, s in everything.items()) / sum(weights[n] for n in everything)
    gate = math.exp(sum(math.log((s + d) / (1 + d)) for s, d in bottom) / len(bottom))
    utility = sum(weights[n] * s for n, s in behavioral.items()) / sum(weights[n] for n in behavioral)
    return gate * utility


@pytest.mark.parametrize("suite_name", ["searchllm", "searchllm-linear", "searchllm-sum"])
def test_score_examples_rewards_follow_the_formula(tmp_path, capsys, suite_name):
    out = tmp_path / "results.jsonl"
    assert main(["score", "--suite", suite_name, "--judge", "mock", "--input", str(EXAMPLES), "--output", str(out)]) == 0
    suite = load_suite(suite_name)
    lines = [json.loads(line) for line in out.read_text().splitlines()]
    inputs = [json.loads(line) for line in EXAMPLES.read_text().splitlines() if line.strip()]
    assert [r["id"] for r in lines] == [i["id"] for i in inputs]
    assert len(lines) >= 12
    for result in lines:
        assert (result["suite"], result["suite_version"]) == (suite.name, suite.version)
        assert set(result["dimensions"]) == set(suite.dimensions)
        if result["valid"]:
            assert result["reward"] == pytest.approx(recompute(result, suite), rel=1e-9), result["id"]
    rewards = [r["reward"] for r in lines]
    assert max(rewards) > min(rewards)  # the rule dimensions alone separate good and broken examples
    table = capsys.readouterr().out
    assert "Per-dimension scores" in table and "claim_hallucination" in table


def test_bad_lines_are_reported_with_their_number_and_the_rest_scored(tmp_path, capsys):
    good = EXAMPLES.read_text().splitlines()[0]
    bad_type = json.dumps({**json.loads(good), "response": 42, "id": "typed"})
    source = tmp_path / "items.jsonl"
    source.write_text("\n".join([good, "{not json", bad_type, good.replace('"id": "', '"id": "copy-', 1)]) + "\n")
    out = tmp_path / "out.jsonl"
    assert main(["score", "--suite", "searchllm", "--judge", "mock", "--input", str(source), "--output", str(out), "-q"]) == 0
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert rows[1] == {"line": 2, "error": rows[1]["error"]} and "invalid JSON" in rows[1]["error"]
    assert rows[2]["line"] == 3 and "response" in rows[2]["error"]
    assert "reward" in rows[0] and "reward" in rows[3]
    err = capsys.readouterr().err
    assert f"{source}:2:" in err and f"{source}:3:" in err


def test_unknown_suite_is_a_clear_error(tmp_path, capsys):
    assert main(["score", "--suite", "serchllm", "--judge", "mock", "--input", str(EXAMPLES), "--output", str(tmp_path / "o")]) == 2
    assert "did you mean 'searchllm'" in capsys.readouterr().err


def test_serve_configs_are_read_whole_and_unknown_settings_refused(tmp_path, capsys, monkeypatch):
    import yaml

    from reward.serve.runner import ServeConfig

    cluster = ServeConfig.model_validate(yaml.safe_load(open("configs/serve/cluster.yaml")))
    assert cluster.http_options.request_timeout_s == 600
    args = cluster.server_args()
    assert (args.scorer_replicas, args.scorer_cpus, args.ingress_replicas) == (8, 2, 4)
    for path in ("configs/serve/local.yaml",):
        ServeConfig.model_validate(yaml.safe_load(open(path))).server_args()
    bad = yaml.safe_load(open("configs/serve/local.yaml"))
    bad["http_options"]["request_timout_s"] = 30  # a typo must not be ignored silently
    (tmp_path / "bad.yaml").write_text(yaml.safe_dump(bad))
    assert main(["serve", "--config", str(tmp_path / "bad.yaml")]) == 2
    assert "request_timout_s" in capsys.readouterr().err


def test_serve_refuses_a_public_bind_without_a_token(monkeypatch, capsys):
    from reward.serve.runner import require_auth_off_loopback

    monkeypatch.delenv("REWARD_SERVER_TOKEN", raising=False)
    assert main(["serve", "--host", "0.0.0.0"]) == 2
    assert "refusing to bind 0.0.0.0 without a token" in capsys.readouterr().err
    require_auth_off_loopback("127.0.0.1", "REWARD_SERVER_TOKEN")  # loopback: fine without a token
    require_auth_off_loopback("0.0.0.0", "REWARD_SERVER_TOKEN", insecure=True)
    monkeypatch.setenv("REWARD_SERVER_TOKEN", "s3cret")
    require_auth_off_loopback("0.0.0.0", "REWARD_SERVER_TOKEN")
