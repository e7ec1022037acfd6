import gzip
import json

import pytest

from reward.online.log import Interaction, hash_user, read_interactions
from reward.online.store import OnlineStore

from .conftest import row, write_log


def test_good_row_round_trips_and_derives_gap_and_day():
    parsed = Interaction.model_validate(row(1, dwell=4000, next_query="x", next_after_ms=12_345))
    assert parsed.gap_ms == 12_345
    assert str(parsed.day) == "2026-01-12"
    assert Interaction.model_validate(row(2)).gap_ms is None


@pytest.mark.parametrize("mutate, field, message", [
    (lambda r: r.pop("dwell_ms"), "dwell_ms", "Field required"),
    (lambda r: r.update(dwell_ms=-5), "dwell_ms", "greater than or equal"),
    (lambda r: r.update(user="alice@example.com"), "user", "should match pattern"),
    (lambda r: r.update(shown_at="2026-01-12T10:00:00"), "shown_at", "timezone"),
    (lambda r: r.update(colour="red"), "colour", "unknown field"),
    (lambda r: r.update(next_query="again"), "(row)", "give both or neither"),
    (lambda r: r.update(next_query="again", next_query_at="2026-01-12T09:00:00Z"), "(row)", "before shown_at"),
    (lambda r: r.update(feedback="meh"), "feedback", "'up' or 'down'"),
])
def test_bad_rows_name_line_and_field(tmp_path, mutate, field, message):
    bad = row(2)
    mutate(bad)
    path = write_log(tmp_path / "log.jsonl", [row(1), bad, row(3)])
    entries = list(read_interactions(path))
    assert [n for n, _ in entries] == [1, 2, 3]
    error = entries[1][1]
    assert not isinstance(error, Interaction)
    assert str(error).startswith(f"{path}:2: {field}")
    assert message in str(error)


def test_invalid_json_is_an_error_not_a_crash(tmp_path):
    path = write_log(tmp_path / "log.jsonl", [row(1), '{"session": "s2", ', "", row(3)])
    entries = list(read_interactions(path))
    assert [n for n, _ in entries] == [1, 2, 4]  # blank line 3 skipped, not an error
    assert "invalid JSON" in str(entries[1][1])


def test_ingest_counts_bad_rows_and_duplicates_and_skips_unchanged_files(tmp_path, similarity_factory):
    rows = [row(1), row(2, dwell=-1), "not json", row(1, dwell=9000), row(3, arms={"exp": "treatment"})]
    path = write_log(tmp_path / "log.jsonl", rows)
    with OnlineStore(tmp_path / "store.sqlite") as store:
        summary = store.ingest([path], similarity=similarity_factory({}))
        assert (summary.rows, summary.inserted, summary.duplicates, summary.bad) == (3, 2, 1, 2)
        assert summary.errors[0].startswith(f"{path}:2: dwell_ms")
        assert store.row_errors() == [f"{path}:2: dwell_ms: Input should be greater than or equal to 0",
                                      f"{path}:3: invalid JSON: expected ident at line 1 column 2"]
        # the duplicate's dwell (9000) did not replace the first row's (3000), nor count twice
        assert store.conn.execute("SELECT dwell_ms FROM online_sessions WHERE session = 's1'").fetchone() == (3000,)
        assert store.conn.execute("SELECT COUNT(*) FROM online_exposures").fetchone() == (2,)
        again = store.ingest([path], similarity=similarity_factory({}))
        assert (again.files, again.skipped_files, again.rows) == (0, 1, 0)
        # a new file repeating stored sessions adds nothing
        other = write_log(tmp_path / "more.jsonl", [row(1), row(3), row(4)])
        more = store.ingest([other], similarity=similarity_factory({}))
        assert (more.inserted, more.duplicates) == (1, 2)
        assert store.ingest_counts() == {"files": 2, "rows": 6, "sessions": 3, "duplicates": 3, "bad": 2}


def test_gzipped_logs_and_folders(tmp_path, similarity_factory):
    folder = tmp_path / "logs"
    folder.mkdir()
    with gzip.open(folder / "a.jsonl.gz", "wt") as out:
        out.write(json.dumps(row(1)) + "\n")
    write_log(folder / "b.jsonl", [row(2)])
    with OnlineStore(tmp_path / "store.sqlite") as store:
        assert store.ingest([folder], similarity=similarity_factory({})).inserted == 2


def test_missing_log_is_a_clear_error(tmp_path):
    with OnlineStore(tmp_path / "store.sqlite") as store, pytest.raises(FileNotFoundError):
        store.ingest([tmp_path / "nope.jsonl"])


def test_hash_user_is_keyed_and_fits_the_log_format():
    a, b = hash_user("alice", "pepper-1"), hash_user("alice", "pepper-2")
    assert a != b and a == hash_user("alice", "pepper-1")
    Interaction.model_validate(row(1) | {"user": a})
