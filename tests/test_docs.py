"""The README is the first screen and the guides in docs/ hold the rest: the README stays short, names the two
commands, and every relative link in it, in docs/ and in benchmarks/README.md points at a file that exists (and, with
an anchor, at a heading that exists)."""

import re
from pathlib import Path
from urllib.parse import unquote

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
DOCUMENTS = [README, ROOT / "benchmarks" / "README.md", *sorted((ROOT / "docs").glob("*.md"))]

# [text](target) and ![alt](target); a target may carry a "title" after a space.
LINK = re.compile(r"!?\[(?:[^\]\\]|\\.)*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
FENCE = re.compile(r"^\s*(```|~~~)")
INLINE_CODE = re.compile(r"`[^`]*`")
HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")


def prose_lines(text: str) -> list[str]:
    """The lines outside fenced code blocks, with inline code removed (a link inside code is not a link)."""
    lines, fenced = [], False
    for line in text.splitlines():
        if FENCE.match(line):
            fenced = not fenced
            continue
        if not fenced and not line.startswith("    "):
            lines.append(INLINE_CODE.sub("", line))
    return lines


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, Markdown marks and punctuation dropped, spaces to hyphens.

    >>> slug("Against the peers on a real LLM judge (llama.cpp's own prefix cache, a few items)")
    'against-the-peers-on-a-real-llm-judge-llamacpps-own-prefix-cache-a-few-items'
    >>> slug("HTTP overhead of /v1/score")
    'http-overhead-of-v1score'
    """
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading).replace("`", "").lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors(path: Path) -> set[str]:
    """Every heading's anchor in a Markdown file, with GitHub's -1, -2 suffixes for repeated headings."""
    seen: dict[str, int] = {}
    found = set()
    fenced = False
    for line in path.read_text(encoding="utf-8").splitlines():
        if FENCE.match(line):
            fenced = not fenced
            continue
        match = HEADING.match(line)
        if fenced or not match:
            continue
        base = slug(match.group(2))
        count = seen.get(base, 0)
        found.add(base if count == 0 else f"{base}-{count}")
        seen[base] = count + 1
    return found


def relative_links(path: Path) -> list[str]:
    links = []
    for line in prose_lines(path.read_text(encoding="utf-8")):
        for target in LINK.findall(line):
            if re.match(r"^[a-z][a-z0-9+.-]*:", target, re.IGNORECASE) or target.startswith("//"):
                continue  # http:, https:, mailto: ...
            links.append(target)
    return links


def test_readme_is_one_screen():
    lines = README.read_text(encoding="utf-8").splitlines()
    assert len(lines) <= 200, f"README.md has {len(lines)} lines; guides belong in docs/"


def test_readme_names_the_two_commands_as_the_makefile_defines_them():
    readme = README.read_text(encoding="utf-8")
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    for command in ("run", "test"):
        assert f"make {command}" in readme
        assert re.search(rf"^{command}:", makefile, re.MULTILINE), f"the Makefile has no `{command}` target"


def test_docs_folder_has_the_guides():
    for name in ("README.md", "server.md", "wire-format.md", "judges.md", "rubrics.md", "training.md", "cluster.md",
                 "dashboard.md", "calibration.md", "online.md", "reliability.md"):
        assert (ROOT / "docs" / name).is_file(), f"docs/{name} is missing"


def test_readme_links_into_docs():
    targets = {link.split("#")[0] for link in relative_links(README)}
    assert "docs/README.md" in targets
    assert sum(target.startswith("docs/") for target in targets) >= 8


@pytest.mark.parametrize("document", DOCUMENTS, ids=lambda path: str(path.relative_to(ROOT)))
def test_relative_links_resolve(document: Path):
    broken = []
    for link in relative_links(document):
        target, _, anchor = link.partition("#")
        resolved = (document.parent / unquote(target)).resolve() if target else document
        if not resolved.exists():
            broken.append(f"{link}: no file {resolved.relative_to(ROOT) if ROOT in resolved.parents else resolved}")
            continue
        if ROOT != resolved and ROOT not in resolved.parents:
            broken.append(f"{link}: points outside the repository")
            continue
        if anchor and resolved.suffix == ".md" and anchor not in anchors(resolved):
            broken.append(f"{link}: no heading with anchor #{anchor} in {resolved.relative_to(ROOT)}")
    assert not broken, f"{document.relative_to(ROOT)}: broken links:\n" + "\n".join(broken)


def test_link_checker_sees_links_and_skips_code(tmp_path: Path):
    page = tmp_path / "page.md"
    page.write_text("# Title\n\nSee [a](a.md#part), ![b](img/b.png), [web](https://example.org).\n\n"
                    "`[not](code.md)`\n\n```\n[not](fenced.md)\n```\n", encoding="utf-8")
    assert relative_links(page) == ["a.md#part", "img/b.png"]
    assert anchors(page) == {"title"}
