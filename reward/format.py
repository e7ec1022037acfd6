"""The policy's response format: intent plan, selected evidence, grounded answer with citations.

One module renders and parses it, and both the policy prompt (`policy.prompts`, through its re-export
`policy.format`) and the reward rules use it, so what the policy is asked to write and what the reward reads cannot
drift apart. A response looks like::

    <plan>
    1. Is the premiere still upcoming? [Doc 3]
    2. Where can it be streamed for free now? [Doc 1,2,6]
    </plan>
    <evidence>1, 2, 6</evidence>
    <answer>
    The song premiered on 27 August 2025 and is now free on Spotify's free tier [Doc 1,6].
    </answer>

The plan lists the facets of the user's need, one per line, each with the evidence it needs cited in the same
`[Doc i,j]` syntax as the answer (a facet with no citation needs no evidence, e.g. a clarification). The
evidence block lists the ids of the selected evidence (`none` when nothing is usable). The answer is Markdown
that cites selected evidence as `[Doc 2]` or `[Doc 1,6]`.

Parsing never raises: structural problems are collected in `ParsedResponse.problems` for the format rule.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cached_property, lru_cache
from typing import NamedTuple

from reward.memo import by_content

PARTS = ("plan", "evidence", "answer")

_TAG = re.compile(r"<(/?)(plan|evidence|answer)\s*>", re.IGNORECASE)
_CITATION = re.compile(r"\[\s*Doc\s*([^\[\]]{1,200}?)\s*\]", re.IGNORECASE)
_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.\-]{0,63}$")
_PLAN_ITEM = re.compile(r"^\s*(?:\d+[.)]|[-*+])\s+(.*\S)\s*$")
_NONE_WORDS = {"", "none", "n/a", "-"}
_ID_SEPARATOR = re.compile(r"[,;，]")
_DOC_PREFIX = re.compile(r"^Doc\s*", re.IGNORECASE)
_STRIP_CITATION = re.compile(r"\s*" + _CITATION.pattern, re.IGNORECASE)
_DECIMAL = re.compile(r"\d\.$")
_ABBREVIATION = re.compile(r"(?:e\.g|i\.e|vs|etc|approx|Dr|Mr|Ms|No)\.$")


class Citation(NamedTuple):
    """One `[Doc ...]` marker in the answer."""

    ids: tuple[str, ...]
    """Evidence ids it cites, in order."""
    start: int
    """Character offset of the marker in the answer."""
    end: int
    """Offset just past the marker."""
    raw: str
    """The marker as written."""
    malformed: bool = False
    """True when a part of the marker is not a valid id (e.g. `[Doc two]`)."""


class Facet(NamedTuple):
    """One line of the intent plan."""

    text: str
    """The facet of the information need, citations stripped."""
    evidence: tuple[str, ...]
    """Evidence ids the plan says this facet needs."""


@dataclass
class ParsedResponse:
    """A response split into its three parts, with what the parser noticed."""

    plan: list[Facet] = field(default_factory=list)
    plan_text: str | None = None
    """Raw text of the plan block, `None` when absent."""
    selected: list[str] = field(default_factory=list)
    """Evidence ids of the evidence block, in order."""
    evidence_text: str | None = None
    """Raw text of the evidence block, `None` when absent."""
    answer: str | None = None
    """The answer's Markdown, `None` when absent."""
    citations: list[Citation] = field(default_factory=list)
    """Citation markers of the answer, in order."""
    problems: list[str] = field(default_factory=list)
    """Structural problems: missing, repeated or out-of-order parts, text outside the parts, bad ids."""

    @property
    def complete(self) -> bool:
        return self.plan_text is not None and self.evidence_text is not None and self.answer is not None

    @property
    def cited_ids(self) -> list[str]:
        """Distinct ids cited in the answer, in first-citation order."""
        seen: dict[str, None] = {}
        for citation in self.citations:
            for doc_id in citation.ids:
                seen.setdefault(doc_id, None)
        return list(seen)

    @cached_property
    def answer_text(self) -> str:
        """The answer with citation markers removed, for judges and similarity checks."""
        answer = self.answer or ""
        if not self.citations:
            return answer
        # Cut the known marker spans (and the whitespace before each) instead of re-scanning the text.
        pieces, position = [], 0
        for citation in self.citations:
            pieces.append(answer[position : citation.start].rstrip())
            position = citation.end
        pieces.append(answer[position:])
        return "".join(pieces)


def parse_citations(text: str) -> list[Citation]:
    """Find `[Doc 2]` / `[Doc 1,6]` markers.

    >>> [c.ids for c in parse_citations("A [Doc 2] and B [Doc 1, 6].")]
    [('2',), ('1', '6')]
    >>> parse_citations("see [Doc 1 2]")[0].malformed
    True
    """
    citations = []
    for match in _CITATION.finditer(text):
        inner = match.group(1)
        if inner.isdigit():  # the common case, "[Doc 2]"
            citations.append(Citation(ids=(inner,), start=match.start(), end=match.end(), raw=match.group(0)))
            continue
        parts = [_DOC_PREFIX.sub("", p.strip()) for p in _ID_SEPARATOR.split(inner)]
        ids = tuple(p for p in parts if _ID.match(p))
        malformed = len(ids) != len(parts) or not ids
        citations.append(Citation(ids=ids, start=match.start(), end=match.end(), raw=match.group(0), malformed=malformed))
    return citations


@by_content
def strip_citations(text: str) -> str:
    """Remove citation markers and the space before them.

    >>> strip_citations("Free on Spotify [Doc 1,6].")
    'Free on Spotify.'
    """
    return _STRIP_CITATION.sub("", text)


def parse_id_list(text: str) -> tuple[list[str], list[str]]:
    """Parse an evidence block (`1, 2, 6`, `Doc 1, Doc 2`, `[Doc 1,2]` or `none`) into (ids, bad tokens)."""
    cleaned = re.sub(r"[\[\]]", " ", text)
    tokens = [t.strip() for t in re.split(r"[,;\n，]", cleaned)]
    ids, bad = [], []
    for token in tokens:
        token = _DOC_PREFIX.sub("", token).strip()
        if token.lower() in _NONE_WORDS:
            continue
        (ids if _ID.match(token) else bad).append(token)
    return ids, bad


def _parse_plan(text: str, problems: list[str]) -> list[Facet]:
    facets = []
    for line in text.splitlines():
        if not line.strip():
            continue
        match = _PLAN_ITEM.match(line)
        body = match.group(1) if match else line.strip()
        if not match:
            problems.append(f"plan line is not a list item: {line.strip()[:60]!r}")
        ids: list[str] = []
        for citation in parse_citations(body):
            ids.extend(i for i in citation.ids if i not in ids)
        facets.append(Facet(text=strip_citations(body).strip(), evidence=tuple(ids)))
    if not facets:
        problems.append("plan is empty")
    return facets


_LEADING_REASONING = re.compile(r"\A\s*<think>.*?</think>", re.DOTALL | re.IGNORECASE)


def strip_reasoning(response: str) -> str:
    r"""The response without one leading `<think>...</think>` block (a reasoning policy's chain of thought) and the
    whitespace around what is left.

    Only a block that opens the response is removed, up to its first `</think>`: text before it, a second block or
    a `<think>` anywhere else stays where it is, so the format check still sees it (nothing can be hidden from the
    rules that way). An unclosed block is left whole.

    >>> strip_reasoning("<think>Doc 2 is older.</think>\n\n<plan>...</plan>")
    '<plan>...</plan>'
    >>> strip_reasoning("Sure! <think>x</think><plan>...</plan>")
    'Sure! <think>x</think><plan>...</plan>'
    >>> strip_reasoning("<think>a</think><think>b</think><plan>")
    '<think>b</think><plan>'
    """
    match = _LEADING_REASONING.match(response)
    return response[match.end():].strip() if match else response


def parse_response(response: str) -> ParsedResponse:
    """Split a response into plan, selected evidence and answer; never raises.

    >>> p = parse_response(render_response([Facet("When?", ("1",))], ["1"], "In May [Doc 1]."))
    >>> (p.complete, p.selected, p.cited_ids, p.problems)
    (True, ['1'], ['1'], [])
    """
    parsed = ParsedResponse()
    problems = parsed.problems
    order: list[str] = []
    blocks: dict[str, str] = {}
    pos = 0
    outside: list[str] = []
    open_tag: tuple[str, int] | None = None
    for match in _TAG.finditer(response):
        closing, name = match.group(1) == "/", match.group(2).lower()
        if open_tag is None:
            if closing:
                problems.append(f"closing </{name}> without an opening tag")
                continue
            outside.append(response[pos : match.start()])
            open_tag = (name, match.end())
        else:
            open_name, start = open_tag
            if not closing:
                problems.append(f"<{name}> opened inside <{open_name}>")
                continue
            if name != open_name:
                problems.append(f"</{name}> closes <{open_name}>")
                continue
            order.append(name)
            if name in blocks:
                problems.append(f"<{name}> appears more than once")
            else:
                blocks[name] = response[start : match.start()]
            open_tag = None
            pos = match.end()
    if open_tag is not None:
        problems.append(f"<{open_tag[0]}> is never closed")
        order.append(open_tag[0])
        blocks.setdefault(open_tag[0], response[open_tag[1] :])
    else:
        outside.append(response[pos:])
    if any(chunk.strip() for chunk in outside):
        problems.append("text outside the plan, evidence and answer parts")
    for name in PARTS:
        if name not in blocks:
            problems.append(f"<{name}> is missing")
    first_seen = list(dict.fromkeys(order))
    expected = [p for p in PARTS if p in first_seen]
    if first_seen != expected:
        problems.append(f"parts out of order: {', '.join(first_seen)} (expected plan, evidence, answer)")

    if "plan" in blocks:
        parsed.plan_text = blocks["plan"].strip()
        parsed.plan = _parse_plan(parsed.plan_text, problems)
    if "evidence" in blocks:
        parsed.evidence_text = blocks["evidence"].strip()
        parsed.selected, bad = parse_id_list(parsed.evidence_text)
        for token in bad:
            problems.append(f"evidence block has an invalid id {token[:40]!r}")
        if len(set(parsed.selected)) != len(parsed.selected):
            problems.append("evidence block lists an id twice")
            parsed.selected = list(dict.fromkeys(parsed.selected))
    if "answer" in blocks:
        parsed.answer = blocks["answer"].strip()
        parsed.citations = parse_citations(parsed.answer)
        if not parsed.answer:
            problems.append("answer is empty")
        for citation in parsed.citations:
            if citation.malformed:
                problems.append(f"malformed citation {citation.raw!r}")
    return parsed


def render_response(plan: list[Facet], selected: list[str], answer: str) -> str:
    """Write a response in the policy format (the inverse of `parse_response`)."""
    lines = []
    for number, facet in enumerate(plan, start=1):
        cite = f" [Doc {','.join(facet.evidence)}]" if facet.evidence else ""
        lines.append(f"{number}. {facet.text}{cite}")
    evidence = ", ".join(selected) if selected else "none"
    return "<plan>\n" + "\n".join(lines) + f"\n</plan>\n<evidence>{evidence}</evidence>\n<answer>\n{answer.strip()}\n</answer>"


_BLOCK_BREAK = re.compile(r"\n\s*\n|\n(?=\s*(?:[-*+]|\d+[.)]|#)\s)|\n(?=\s*\|)|\n(?=\s*(?:\*\*)?[A-Za-z][\w '’-]{0,30}(?:\*\*)?:\s)")
"""Where a block ends whatever its punctuation: a blank line, a list item, a heading, a table row, or a labelled line
("Answer: ...", "**Source:** ...")."""


def split_sentences(text: str) -> list[str]:
    """Split prose into sentences (Latin and CJK punctuation), keeping citation markers with their sentence.

    >>> split_sentences("It is fungal [Doc 2]. Use fungicide! Done")
    ['It is fungal [Doc 2].', 'Use fungicide!', 'Done']
    >>> split_sentences("Answer: 1944 [Doc 1]\\nSource: Warsaw")
    ['Answer: 1944 [Doc 1]', 'Source: Warsaw']
    >>> split_sentences("It is in Conservation mode. (Lenovo) [Doc 3] Switch it off.")
    ['It is in Conservation mode. (Lenovo) [Doc 3]', 'Switch it off.']
    >>> split_sentences("The sources do not answer this. [Doc 1] covers Warsaw, but not this.")
    ['The sources do not answer this.', '[Doc 1] covers Warsaw, but not this.']
    """
    return list(_sentences(text))


@lru_cache(maxsize=8192)
def _sentences(text: str) -> tuple[str, ...]:
    """`split_sentences`, cached by text: the judges split each evidence text once per claim they check."""
    sentences = []
    for block in _BLOCK_BREAK.split(text):
        block = block.strip()
        if not block:
            continue
        parts = _split_keep_citations(block)
        sentences.extend(p.strip() for p in parts if p.strip())
    return tuple(sentences)


_SENTENCE_END = re.compile(r"[.!?。！？]+(?:\s*\([^()\[\]]{1,80}\)(?=\s*\[\s*Doc))?(?:\s*\[\s*Doc[^\]]*\](?!\s+[a-z]))*"
                           r"(?=\s|$)")
"""A sentence ends at its punctuation and the citations after it, with a bracketed aside between the two ("... mode.
(Lenovo) [Doc 3]"): the citation is still the sentence's, not an aside's of its own. A citation that a lowercase word
follows is the next sentence's subject ("... this. [Doc 1] covers Warsaw, but not this.")."""


def _split_keep_citations(block: str) -> list[str]:
    parts, start = [], 0
    for match in _SENTENCE_END.finditer(block):
        end = match.end()
        before = block[max(0, match.start() - 3) : match.start() + 1]
        # Do not split decimals or common abbreviations such as "e.g." / "approx.".
        if _DECIMAL.search(before) and end < len(block) and block[end : end + 1].isdigit():
            continue
        if block[match.start()] == "." and _ABBREVIATION.search(block[max(0, match.start() - 6) : match.start() + 1]):
            continue
        parts.append(block[start:end])
        start = end
    parts.append(block[start:])
    return parts


_TABLE_ROW = re.compile(r"^\s*\|(.*)\|\s*$")
_TABLE_RULE = re.compile(r"^\s*\|?\s*:?-{3,}:?\s*(?:\|\s*:?-{3,}:?\s*)*\|?\s*$")
_CELL_MARKUP = re.compile(r"[*_`]+")
_PLAIN_HEADERS = frozenset({"", "answer", "answers", "value", "values", "result", "detail", "details", "what", "question",
                            "item", "name", "fact", "facts", "source", "sources", "response", "notes", "note"})


_RATE_HEADER = re.compile(r"(?:\bper\s+|/\s*)([^\W\d_]+)", re.IGNORECASE)
"""A header that says its figures are rates ("Price per GB", "Dose (mg/kg)"): the unit they are per."""
_YES_NO = re.compile(r"^\W*(?:yes|no|not)\b", re.IGNORECASE)
_WORD = re.compile(r"[^\W\d_]{3,}")


def _cells(row: str) -> list[str]:
    return [_CELL_MARKUP.sub("", cell).strip() for cell in _TABLE_ROW.match(row).group(1).split("|")]


def _row_sentence(headers: list[str], cells: list[str]) -> str:
    """One row as the sentence it stands for: its first cell, then each other cell, the row's citations at its end.
    A cell that says little alone ("yes", "not needed", "free") is said under its header's name ("permit not
    needed"), unless the header is a plain one such as "Answer"; a cell that says what it is ("212 m", "lead
    everywhere") is said as it stands."""
    joined = " ".join(cells)
    cites = " ".join(m.group(0) for m in _CITATION.finditer(joined))
    cells = [strip_citations(cell).strip(" .;") for cell in cells]
    first = cells[0].rstrip(" ?:")
    rest = []
    for header, cell in zip([*headers[1:], *[""] * len(cells)], cells[1:]):
        if cell:
            named = header.strip().lower()
            said = not _YES_NO.match(cell) and (len(_WORD.findall(cell)) >= 2 or any(c.isdigit() for c in cell))
            rate = _RATE_HEADER.search(header)
            if rate and any(c.isdigit() for c in cell) and not _RATE_HEADER.search(cell):
                cell = f"{cell} per {rate.group(1)}"  # "Price per GB" over "€0.40": "€0.40 per GB"
            rest.append(cell if said or named in _PLAIN_HEADERS or named in cell.lower() else f"{named} {cell}")
    sentence = f"{first}: {'; '.join(rest)}" if first and rest else (first or "; ".join(rest))
    return f"{sentence}{' ' + cites if cites else ''}." if sentence else ""


def tables_as_lines(text: str) -> str:
    """`text` with every Markdown table (a header row, a rule row, data rows) written as one line per data row, as
    the row would be said in a sentence: a claim in a table is read as the same claim in prose.

    >>> print(tables_as_lines("| Tower | Height |\\n|---|---|\\n| North Tower | 212 m [Doc 1] |\\n\\nBoth are tall."))
    North Tower: 212 m [Doc 1].
    <BLANKLINE>
    Both are tall.
    >>> tables_as_lines("| Question | Answer |\\n|---|---|\\n| Who founded it? | **Larry Roberts** [Doc 2] |")
    'Who founded it: Larry Roberts [Doc 2].'
    >>> tables_as_lines("| Shed | Permit | Fee |\\n|---|---|---|\\n| 25 m² | yes [Doc 1] | 40 euros |")
    '25 m²: permit yes; 40 euros [Doc 1].'

    A header that makes its figures rates is read with each of them:

    >>> tables_as_lines("| Plan | Price | Price per GB |\\n|---|---|---|\\n| Zapp | €16 for 40 GB [Doc 1] | €0.40 |")
    'Zapp: €16 for 40 GB; €0.40 per GB [Doc 1].'
    """
    if "|" not in text:
        return text
    lines, out, index = text.split("\n"), [], 0
    while index < len(lines):
        if _TABLE_ROW.match(lines[index]) and index + 1 < len(lines) and _TABLE_RULE.match(lines[index + 1]):
            headers = _cells(lines[index])
            index += 2
            while index < len(lines) and _TABLE_ROW.match(lines[index]):
                out.append(_row_sentence(headers, _cells(lines[index])))
                index += 1
            continue
        out.append(lines[index])
        index += 1
    return "\n".join(out)
