"""The package's shape: no import circle inside `reward/` (imports inside functions count: a circle tied by a
function-level import is still two modules that must change together), and `reward/` imports nothing from
`policy/` (the policy side depends on the reward, never the other way; it plugs its commands in by entry point)."""

from __future__ import annotations

import ast
from pathlib import Path

from tests.support import ROOT

PACKAGE = ROOT / "reward"


def _module_name(path: Path, root: Path = ROOT) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(path: Path, modules: set[str], root: Path = ROOT) -> set[str]:
    """Modules of the project a file imports anywhere in it (functions included; `if TYPE_CHECKING:` blocks not).

    Relative imports count as their absolute names, and importing `a.b.c` counts `a.b`'s `__init__` too (Python runs
    it first), except the file's own packages: a package `__init__` that re-exports its modules is no circle.
    """
    tree = ast.parse(path.read_text(encoding="utf-8"))
    skipped: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            skipped |= {id(n) for child in node.body for n in ast.walk(child)}
    own = _module_name(path, root)
    package = own if path.name == "__init__.py" else own.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(tree):
        if id(node) in skipped:
            continue
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                base = ".".join(anchor + ([base] if base else []))
            names = [base] + [f"{base}.{alias.name}" for alias in node.names]
        else:
            continue
        for name in names:
            # The deepest project module the name denotes: `from reward.judges import local` is reward.judges.local.
            while name and name not in modules and "." in name:
                name = name.rsplit(".", 1)[0]
            if name in modules or name.split(".")[0] == "policy":
                found.add(name)
                parts = name.split(".")
                found |= {".".join(parts[:i]) for i in range(1, len(parts))} & modules
    ancestors = {".".join(own.split(".")[:i]) for i in range(1, own.count(".") + 2)}
    return found - ancestors


def _graph() -> dict[str, set[str]]:
    files = {_module_name(p): p for p in PACKAGE.rglob("*.py")}
    modules = set(files) | {_module_name(p) for p in (ROOT / "policy").rglob("*.py")}
    return {name: _imports(path, modules) - {name} for name, path in files.items()}


def _circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in graph.get(node, ()):
            if nxt not in graph:
                continue
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_no_import_circle_in_the_reward_package():
    assert _circles(_graph()) == []


def test_the_reward_package_imports_nothing_from_policy():
    graph = _graph()
    assert {m: sorted(i for i in deps if i.split(".")[0] == "policy") for m, deps in graph.items()
            if any(i.split(".")[0] == "policy" for i in deps)} == {}


def test_the_circle_finder_finds_a_circle():
    assert _circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_the_import_reader_resolves_relative_imports_and_parent_packages(tmp_path):
    folder = tmp_path / "reward" / "pkg"
    folder.mkdir(parents=True)
    source = folder / "mod.py"
    source.write_text("from . import sibling\nfrom ..other.deep import thing\nimport policy.format\n")
    modules = {"reward", "reward.pkg", "reward.pkg.mod", "reward.pkg.sibling", "reward.other", "reward.other.deep",
               "policy", "policy.format"}
    found = _imports(source, modules, root=tmp_path)
    assert found == {"reward.pkg.sibling", "reward.other", "reward.other.deep", "policy", "policy.format"}


def test_every_reward_module_is_in_a_package():
    """Every folder of `reward/` holding Python is a package with an `__init__.py` (no namespace portions, which
    would let another checkout on the path fill in modules this one removed)."""
    folders = {p.parent for p in PACKAGE.rglob("*.py") if "__pycache__" not in p.parts}
    assert sorted(str(f.relative_to(ROOT)) for f in folders if not (f / "__init__.py").is_file()) == []
