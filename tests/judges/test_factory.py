"""`make_judge` over the backend table: every entry of `BACKENDS` names an importable builder, a backend's module
is imported only when that backend is asked for, and an unknown name is answered with the closest known ones."""

from __future__ import annotations

import importlib
import subprocess
import sys

import pytest

from reward.judges.base import Judge
from reward.judges.factory import BACKENDS, TAKES_LATENCY, backend, make_judge
from tests.support import ROOT


@pytest.mark.parametrize("name", sorted(BACKENDS))
def test_every_table_entry_names_an_importable_builder(name):
    module, colon, attribute = BACKENDS[name].partition(":")
    assert colon and callable(getattr(importlib.import_module(module), attribute))
    assert backend(name) is getattr(importlib.import_module(module), attribute)


@pytest.mark.parametrize("name", sorted(TAKES_LATENCY))
def test_the_mock_backends_build_judges_and_take_a_latency(name):
    judge = make_judge(name)
    assert isinstance(judge, Judge) and judge.latency_s == 0.0
    assert make_judge(f"{name}:0.25").latency_s == 0.25


def test_a_backend_module_is_imported_only_when_asked_for():
    code = ("import sys\nfrom reward.judges.factory import make_judge\nmake_judge('mock')\n"
            "print(sorted(m for m in sys.modules if m.startswith('reward.judges.local') or m == 'torch'))")
    run = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == "[]"


@pytest.mark.parametrize(("spec", "suggestion"), [("mokc", "'mock'"), ("loacl", "'local'"), ("mock_hash", "'mock-hash'")])
def test_an_unknown_name_is_answered_with_a_did_you_mean(spec, suggestion):
    with pytest.raises(ValueError, match=f"unknown judge '{spec}'.*did you mean {suggestion}"):
        make_judge(spec)
    with pytest.raises(ValueError, match=f"did you mean {suggestion}"):
        backend(spec)


def test_a_name_far_from_every_backend_lists_them_without_a_guess():
    with pytest.raises(ValueError, match="expected one of local, mock, mock-hash") as caught:
        make_judge("zzzzzz")
    assert "did you mean" not in str(caught.value)


def test_an_option_on_a_backend_that_takes_none_is_refused():
    with pytest.raises(ValueError, match="'local' backend takes no ':' option"):
        make_judge("local:0.1")
