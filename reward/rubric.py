"""Load and validate rubric YAML: one file per dimension, one file per suite.

A broken rubric fails loudly at start-up with messages that name the file and the key. Files may pull shared
text in with `include:` (a path or list of paths relative to the including file); included mappings are merged
depth-first, keys of the including file win, and include cycles are an error. `lint` reports every problem of a
rubric tree at once; `json_schema` exports the schemas for editors.
"""

from __future__ import annotations

import difflib
import hashlib
import json
import typing
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, Literal

import yaml
from pydantic import AfterValidator, BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from reward.format import strip_reasoning
from reward.schema import Layer
from reward.shipped import shipped

DEFAULT_RUBRIC_DIR = shipped("rubrics")

Input = Literal["query", "history", "evidence", "response", "plan", "selected_evidence", "answer", "now"]
"""Parts of (x, y) a dimension may read. `response` is the whole output; `plan`, `selected_evidence` and
`answer` are its parsed parts (see `reward.format`)."""


class RubricError(Exception):
    """A rubric file is broken. `problems` holds one message per problem, each naming file and key."""

    def __init__(self, problems: list[str]):
        self.problems = problems
        super().__init__("\n".join(problems))


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", use_attribute_docstrings=True)


def _not_blank(value: str) -> str:
    if value and not value.strip():
        raise ValueError("must not be blank (it holds only whitespace)")
    return value


Text = Annotated[str, AfterValidator(_not_blank)]
"""Prose a judge or an author reads: whitespace alone is refused, as an empty string is."""


class ScaleLabel(_Strict):
    """One label the judge may answer with."""

    label: str = Field(min_length=1, max_length=32)
    """What the judge writes, e.g. `0`, `1`, `2`."""
    score: float = Field(ge=0.0, le=1.0)
    """The score this label maps to, in [0, 1]."""
    anchor: Text = Field(min_length=1)
    """What a response earning this label looks like (shown to the judge)."""


class JudgeSpec(_Strict):
    """How an LLM judge scores the dimension."""

    system: Text = Field(min_length=1)
    """System text shared by all judge dimensions (usually from `rubrics/common/judge.yaml`)."""
    criterion: Text = Field(min_length=1)
    """What to check: the dimension's definition, what counts as a violation, and edge cases."""
    scale: list[ScaleLabel] = Field(min_length=2)
    """Labels the judge may give, with anchors and the score each maps to."""
    output: Literal["tags", "json"] = "tags"
    """Output contract: `tags` is `<think>...</think><score>LABEL</score>`; `json` is
    `{"reasoning": ..., "label": ..., "quotes": [...]}`."""
    contract: dict[str, str] = Field(default_factory=dict)
    """Instruction text per output contract; `{labels}` is replaced by the label list."""
    quotes: Literal["none", "optional", "required"] = "none"
    """Whether the judge must quote evidence verbatim; quotes are verified and a failed quote invalidates the
    judgment."""
    prechecks: list[str] = Field(default_factory=list)
    """Rules whose findings are given to the judge (e.g. `citations.valid`)."""

    @field_validator("scale")
    @classmethod
    def _distinct_labels(cls, scale: list[ScaleLabel]) -> list[ScaleLabel]:
        labels = [s.label for s in scale]
        if len(set(labels)) != len(labels):
            raise ValueError(f"labels must be distinct, got {labels}")
        return scale

    def score_of(self, label: str) -> float | None:
        for entry in self.scale:
            if entry.label == label.strip():
                return entry.score
        return None


class RuleSpec(_Strict):
    """A deterministic check that scores the dimension."""

    check: str
    """Registered rule name, e.g. `format.structure`."""
    params: dict[str, Any] = Field(default_factory=dict)
    """Keyword parameters of the rule."""


def criterion_digest(criterion: str) -> str:
    """The digest a hand-written local method's `covers` list records of the criterion it was checked against.

    >>> criterion_digest("Is the answer neutral?")
    '5c3ef0f182f7'
    """
    return hashlib.sha256(criterion.strip().encode()).hexdigest()[:12]


class LabelledExample(_Strict):
    """A response with the score a judge should give it, for the local tier's example-fitted scorer."""

    response: Text = Field(min_length=1)
    """The response text (or just its answer part)."""
    score: float = Field(ge=0.0, le=1.0)
    """Its score on this dimension, in [0, 1]."""
    query: str = ""
    """The query it answers, when the dimension reads the query."""
    evidence: list[str] = Field(default_factory=list)
    """Evidence passages the response was written from, when the dimension is about support: the head then also
    reads the consistency model's verdict on the answer against them."""


class ExamplePair(_Strict):
    """Two responses to the same query, the first better on this dimension than the second."""

    better: Text = Field(min_length=1)
    worse: Text = Field(min_length=1)
    query: str = ""
    evidence: list[str] = Field(default_factory=list)
    """Evidence passages both responses were written from (see `LabelledExample.evidence`)."""


class LocalSpec(_Strict):
    """How the embedded local tier scores a judge dimension: a hand-written method, or a small scorer fitted on the
    labelled examples given here (a dimension with neither is unscored under the local tier)."""

    method: str | None = None
    """A registered local method (`reward.judges.local.LOCAL_METHODS`); default: the one named like the dimension."""
    covers: list[str] = Field(default_factory=list)
    """Which checks of the criterion the hand-written method implements, in the criterion's words."""
    criterion_digest: str | None = None
    """`criterion_digest(judge.criterion)` when `covers` was last checked; lint warns when the criterion changes."""
    examples: list[LabelledExample] = Field(default_factory=list)
    """Responses with scores: the local tier fits a scorer on them (at least 4, with at least 2 distinct scores)."""
    pairs: list[ExamplePair] = Field(default_factory=list)
    """Better/worse pairs: the local tier fits a ranking scorer on them (at least 4) when there are no `examples`."""

    @model_validator(mode="after")
    def _one_source(self) -> LocalSpec:
        if self.method is not None and (self.examples or self.pairs):
            raise ValueError("give either 'method' (a hand-written local method) or 'examples'/'pairs', not both")
        if (self.examples or self.pairs) and self.covers:
            raise ValueError("'covers' describes a hand-written method; an example-fitted scorer covers what its "
                             "examples show")
        if self.examples and (len(self.examples) < 4 or len({e.score for e in self.examples}) < 2):
            raise ValueError("'examples' needs at least 4 responses with at least 2 distinct scores")
        if self.pairs and not self.examples and len(self.pairs) < 4:
            raise ValueError("'pairs' needs at least 4 pairs")
        return self

    @property
    def fitted(self) -> bool:
        """Whether the local tier scores the dimension from its examples."""
        return bool(self.examples or self.pairs)


class Dimension(_Strict):
    """One reward dimension."""

    name: str = Field(pattern=r"^[a-z][a-z0-9_]*$")
    """Identifier; equals the file name without `.yaml`."""
    title: Text = Field(min_length=1)
    """Human-readable name."""
    layer: Layer
    """`bottom_line` (gated) or `behavioral` (weighted)."""
    requirement: Literal["R1", "R2", "R3"]
    """R1 robustness, R2 reliability and safety, R3 alignment with user needs."""
    subset: str
    """Group within the layer, e.g. `hallucination`, `evidence`, `usability`."""
    description: Text = Field(min_length=1)
    """One-paragraph definition (SearchLLM Table 5)."""
    inputs: list[Input] = Field(min_length=1)
    """What the dimension reads; dimensions that do not read the response are computed once per distinct input."""
    judge: JudgeSpec | None = None
    rule: RuleSpec | None = None
    local: LocalSpec | None = None
    """How the embedded local tier scores this judge dimension (hand-written method or labelled examples)."""

    @model_validator(mode="after")
    def _exactly_one_scorer(self) -> Dimension:
        if (self.judge is None) == (self.rule is None):
            raise ValueError("a dimension needs exactly one of 'judge' or 'rule'")
        if self.local is not None and self.rule is not None:
            raise ValueError("'local' applies to judge dimensions; a rule dimension is scored by its rule everywhere")
        return self

    @property
    def kind(self) -> str:
        return "judge" if self.judge is not None else "rule"


class ResponsePreprocess(_Strict):
    """What is done to a response before it is parsed into its parts and scored by the rules."""

    strip_reasoning: bool = False
    """Remove one leading `<think>...</think>` block and the whitespace around the rest (a reasoning policy's chain of
    thought); any other text outside the three parts, a `<think>` elsewhere included, still fails the format."""

    def apply(self, response: str) -> str:
        return strip_reasoning(response) if self.strip_reasoning else response


class Suite(_Strict):
    """A named set of dimensions and how they aggregate into one reward."""

    name: str = Field(pattern=r"^[a-z][a-z0-9_\-]*$")
    """Identifier; equals the file name without `.yaml`."""
    description: str = ""
    aggregation: Literal["gated", "linear", "sum"] = "gated"
    """`gated`: R = B x U; `linear`: weighted mean of all dimensions; `sum`: plain sum (ablations)."""
    delta: float = Field(default=0.01, gt=0.0, le=1.0)
    """Smoothing of the bottom-line geometric mean."""
    gate_exponents: dict[str, float] = Field(default_factory=dict)
    """Bottom-line dimension name -> its exponent in the gate (gated aggregation only; 1 for any not named, so the
    default is the paper's unweighted geometric mean). B is then a weighted geometric mean: a dimension with exponent
    3 counts as three. Each must be > 0: an exponent cannot switch a hard constraint off."""
    gate_deltas: dict[str, float] = Field(default_factory=dict)
    """Bottom-line dimension name -> its own smoothing in the gate, in place of `delta` (gated aggregation only; `delta`
    for any not named). The gate's sensitivity to a dimension is bounded by 1 / (m x its delta): a larger one moves
    the reward less for the same change of score (a judgment that reads with noise), a small one keeps a rule's
    verdict a sharp constraint. Each must lie in (0, 1]."""
    dimensions: dict[str, Annotated[float, Field(ge=0.0)]] = Field(min_length=1)
    """Dimension name -> weight (>= 0). Gated aggregation uses the weights of behavioral dimensions only."""
    monitor: list[str] = Field(default_factory=list)
    """Monitor-only dimensions: scored and logged with the rest (the score log, the dashboard, `/metrics` and the
    trainer's metrics carry them) but no part of the reward: never in the gate or the utility, and an unscored one
    never makes an item invalid. A name listed here must not be in `dimensions` too. For watching what the reward
    does not pay for (does claim_hallucination fall while the reward rises?) without changing what it pays for."""
    behavioral_tolerance: int = Field(default=0, ge=0)
    """How many behavioral dimensions of an item may fail to be scored (judge timeout, unparseable reply) before the
    item is invalid. Each tolerated one is scored as the mean of its GRPO group's scored values for that dimension,
    never dropped: a dropped dimension would let a policy that provokes parse failures on its weak dimensions have
    them removed from the utility. 0 (the default): any unscored behavioral dimension invalidates the item."""
    response_preprocess: ResponsePreprocess = Field(default_factory=ResponsePreprocess)
    """Applied to each response before it is parsed (e.g. `strip_reasoning: true` for reasoning policies)."""


@dataclass(frozen=True)
class LoadedSuite:
    """A suite with its dimensions resolved and a version hash over all of them."""

    suite: Suite
    dimensions: dict[str, Dimension]
    version: str
    files: tuple[Path, ...]

    @property
    def name(self) -> str:
        return self.suite.name

    def weight(self, name: str) -> float:
        """The dimension's weight in the suite; 0.0 for a monitor-only dimension."""
        return self.suite.dimensions.get(name, 0.0)

    @property
    def monitor(self) -> frozenset[str]:
        """The monitor-only dimensions (`Suite.monitor`): scored, never aggregated."""
        return frozenset(self.suite.monitor)

    def layer_of(self, name: str) -> Layer:
        return self.dimensions[name].layer


def _display(path: Path) -> str:
    try:
        return str(path.resolve().relative_to(Path.cwd()))
    except ValueError:
        return str(path)


def _deep_merge(base: dict[str, Any], override: dict[str, Any]) -> dict[str, Any]:
    merged = dict(base)
    for key, value in override.items():
        if isinstance(value, dict) and isinstance(merged.get(key), dict):
            merged[key] = _deep_merge(merged[key], value)
        else:
            merged[key] = value
    return merged


class _UniqueKeyLoader(yaml.SafeLoader):
    """PyYAML's safe loader, recording duplicate mapping keys (where PyYAML lets the last value win silently)."""

    def __init__(self, stream: str):
        super().__init__(stream)
        self.duplicates: list[str] = []

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
        seen: dict[Any, int] = {}
        for key_node, _ in node.value:
            if key_node.tag == "tag:yaml.org,2002:merge" or not isinstance(key_node, yaml.ScalarNode):
                continue
            key, line = self.construct_scalar(key_node), key_node.start_mark.line + 1
            if key in seen:
                self.duplicates.append(f"key '{key}': duplicate key (lines {seen[key]} and {line}); the last value "
                                       "would win silently")
            else:
                seen[key] = line
        return super().construct_mapping(node, deep)


def _parse(path: Path, problems: list[str]) -> dict[str, Any] | None:
    """One file's own mapping (includes not resolved); None when it cannot be read. Problems are appended."""
    try:
        loader = _UniqueKeyLoader(path.read_text(encoding="utf-8"))
        try:
            data = loader.get_single_data()
        finally:
            loader.dispose()
    except FileNotFoundError:
        problems.append(f"{_display(path)}: file not found")
        return None
    except (OSError, UnicodeDecodeError) as exc:
        problems.append(f"{_display(path)}: cannot read ({type(exc).__name__}: {exc})")
        return None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" (line {mark.line + 1}, column {mark.column + 1})" if mark else ""
        problems.append(f"{_display(path)}: invalid YAML{where}: {getattr(exc, 'problem', exc)}")
        return None
    problems.extend(f"{_display(path)}: {message}" for message in loader.duplicates)
    if data is None:
        data = {}
    if not isinstance(data, dict):
        problems.append(f"{_display(path)}: top level must be a mapping, got {type(data).__name__}")
        return None
    return data


def _read_yaml(path: Path, problems: list[str], _stack: tuple[Path, ...] = ()) -> dict[str, Any] | None:
    """A file's mapping with its includes merged. Every problem is appended, and a broken include does not stop
    the rest of the file from being read (so lint reports the file's other problems too)."""
    path = path.resolve()
    if path in _stack:
        cycle = " -> ".join(_display(p) for p in (*_stack, path))
        problems.append(f"{_display(_stack[0])}: key 'include': include cycle {cycle}")
        return None
    data = _parse(path, problems)
    if data is None:
        return None
    includes = data.pop("include", [])
    if isinstance(includes, str):
        includes = [includes]
    if not isinstance(includes, list) or not all(isinstance(i, str) for i in includes):
        problems.append(f"{_display(path)}: key 'include': must be a path or a list of paths")
        includes = []
    merged: dict[str, Any] = {}
    for include in includes:
        target = path.parent / include
        if not target.is_file():
            problems.append(f"{_display(path)}: key 'include': {include!r} is not a file (relative to this file)"
                            f"{did_you_mean(include, _include_candidates(path))}")
            continue
        included = _read_yaml(target, problems, (*_stack, path))
        if included is not None:
            merged = _deep_merge(merged, included)
    return _deep_merge(merged, data)


def _include_candidates(path: Path) -> list[str]:
    """YAML files an include of `path` could mean, as paths relative to it: those of its rubric folder (its folder's
    parent) and of its own folder."""
    import os

    root = path.parent.parent
    found = {*root.glob("*/*.yaml"), *path.parent.glob("*.yaml")} - {path}
    return sorted(os.path.relpath(p, path.parent) for p in found)


def load_yaml(path: Path) -> dict[str, Any]:
    """Read one YAML mapping with its includes resolved; raises `RubricError` naming the file."""
    problems: list[str] = []
    data = _read_yaml(path, problems)
    if problems or data is None:
        raise RubricError(problems)
    return data


def _model_in(annotation: Any) -> type[BaseModel] | None:
    """The pydantic model an annotation holds (directly, or inside Optional / list / dict), if any."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    for argument in typing.get_args(annotation):
        found = _model_in(argument)
        if found is not None:
            return found
    return None


def _known_keys(model: type[BaseModel], loc: tuple[Any, ...]) -> list[str]:
    """The keys the model allows at the mapping `loc` points into (for a did-you-mean on an unknown key)."""
    current: type[BaseModel] | None = model
    for part in loc:
        if current is None:
            return []
        if isinstance(part, str) and part in current.model_fields:
            current = _model_in(current.model_fields[part].annotation)
    return ["include", *current.model_fields] if current is model else list(current.model_fields) if current else []


_TAKES = {LabelledExample: "an example takes", ExamplePair: "a pair takes"}


def _validation_problems(path: Path, exc: ValidationError, model: type[BaseModel] | None = None) -> list[str]:
    """One message per validation error, the cause first: an unknown key (a misspelling, with its did-you-mean)
    before the `Field required` it causes, which then names it."""
    errors = exc.errors()
    unknown: dict[tuple[Any, ...], list[str]] = {}  # mapping -> its unknown keys
    for error in errors:
        if error["type"] == "extra_forbidden":
            unknown.setdefault(tuple(error["loc"][:-1]), []).append(str(error["loc"][-1]))
    first, rest = [], []
    for error in errors:
        key = ".".join(str(part) for part in error["loc"]) or "(top level)"
        message = error["msg"]
        if error["type"] == "extra_forbidden":
            known = _known_keys(model, tuple(error["loc"][:-1])) if model is not None else []
            message = "unknown key" + did_you_mean(str(error["loc"][-1]), known)
            inner = _model_at(model, tuple(error["loc"][:-1])) if model is not None else None
            if error["loc"][-1] == "label" and inner is LabelledExample:
                message += ("; examples take 'score', a number in [0, 1], not a scale label: write the score the "
                            "label maps to (e.g. score: 1.0)")
            if inner in _TAKES:
                message += f"; {_TAKES[inner]}: {', '.join(inner.model_fields)}"
            elif "did you mean" not in message and known:
                message += f"; allowed here: {', '.join(known)}"
            first.append(f"{_display(path)}: key '{key}': {message}")
            continue
        if error["type"] == "missing":
            near = unknown.get(tuple(error["loc"][:-1]), [])
            misspelt = difflib.get_close_matches(str(error["loc"][-1]), near, n=1) or (
                ["label"] if error["loc"][-1] == "score" and "label" in near else [])
            if misspelt:
                where = ".".join(str(p) for p in (*error["loc"][:-1], misspelt[0]))
                message += f" (probably the unknown key '{where}' above)"
        elif model is Suite and error["loc"][:1] == ("dimensions",) and error["type"] == "greater_than_equal":
            message = f"weights must be >= 0, got {error['input']!r}"
        rest.append(f"{_display(path)}: key '{key}': {message}")
    return first + rest


def _after_includes(read_problems: list[str], problems: list[str]) -> list[str]:
    """Validation problems, with a missing key tied to the failed include that may have held it."""
    if not any("key 'include'" in p for p in read_problems):
        return problems
    return [p + " (the include that failed above may hold it)" if p.endswith("Field required") else p for p in problems]


def _model_at(model: type[BaseModel], loc: tuple[Any, ...]) -> type[BaseModel] | None:
    """The pydantic model of the mapping `loc` points into (list indices skipped)."""
    current: type[BaseModel] | None = model
    for part in loc:
        if current is None:
            return None
        if isinstance(part, str):
            current = _model_in(current.model_fields[part].annotation) if part in current.model_fields else None
    return current


def load_dimension(path: Path) -> Dimension:
    problems: list[str] = []
    data = _read_yaml(path, problems)
    if data is None:
        raise RubricError(problems)
    try:
        dimension = Dimension.model_validate(data)
    except ValidationError as exc:
        raise RubricError(problems + _after_includes(problems, _validation_problems(path, exc, Dimension))) from None
    problems += _check_references(path, dimension)
    if dimension.name != path.stem:
        problems.append(f"{_display(path)}: key 'name': {dimension.name!r} must equal the file name {path.stem!r}")
    if problems:
        raise RubricError(problems)
    return dimension


def _check_references(path: Path, dimension: Dimension) -> list[str]:
    from reward.rules import RULES  # rules import the schema only; imported here to keep load order simple

    problems = []
    names = [dimension.rule.check] if dimension.rule else list(dimension.judge.prechecks)
    key = "rule.check" if dimension.rule else "judge.prechecks"
    for name in names:
        if name not in RULES:
            problems.append(f"{_display(path)}: key '{key}': unknown rule {name!r}{did_you_mean(name, RULES)}")
    if dimension.rule and dimension.rule.check in RULES:
        problems.extend(
            f"{_display(path)}: key 'rule.params': {message}"
            for message in RULES[dimension.rule.check].check_params(dimension.rule.params)
        )
    if dimension.judge and "{labels}" not in dimension.judge.contract.get(dimension.judge.output, "{labels}"):
        problems.append(f"{_display(path)}: key 'judge.contract.{dimension.judge.output}': must contain '{{labels}}'")
    return problems


def did_you_mean(name: str, known: Iterable[str]) -> str:
    close = difflib.get_close_matches(name, list(known), n=3)
    return f" (did you mean {', '.join(repr(c) for c in close)}?)" if close else ""


def suite_path(name: str, root: Path = DEFAULT_RUBRIC_DIR) -> Path:
    return root / "suites" / f"{name}.yaml"


def list_suites(root: Path = DEFAULT_RUBRIC_DIR) -> list[str]:
    return sorted(p.stem for p in (root / "suites").glob("*.yaml"))


class UnknownSuite(LookupError):
    def __init__(self, name: str, known: list[str]):
        self.name, self.known = name, known
        super().__init__(f"unknown suite {name!r}{did_you_mean(name, known)}; known suites: {', '.join(known)}")


def load_suite(name_or_path: str | Path, root: Path = DEFAULT_RUBRIC_DIR) -> LoadedSuite:
    """Load a suite by name (from `root/suites/`) or by path, with all its dimensions."""
    path = Path(name_or_path)
    if path.suffix not in (".yaml", ".yml"):
        path = suite_path(str(name_or_path), root)
        if not path.exists():
            raise UnknownSuite(str(name_or_path), list_suites(root))
    else:
        root = path.resolve().parent.parent
    problems: list[str] = []
    data = _read_yaml(path, problems)
    if data is None:
        raise RubricError(problems)
    try:
        suite = Suite.model_validate(data)
    except ValidationError as exc:
        raise RubricError(problems + _after_includes(problems, _validation_problems(path, exc, Suite))) from None
    if suite.name != path.stem:
        problems.append(f"{_display(path)}: key 'name': {suite.name!r} must equal the file name {path.stem!r}")
    dimensions: dict[str, Dimension] = {}
    files = [path]
    known = sorted(p.stem for p in (root / "dimensions").glob("*.yaml"))
    for key, name in [("dimensions", n) for n in suite.dimensions] + [("monitor", n) for n in suite.monitor]:
        dim_path = root / "dimensions" / f"{name}.yaml"
        if not dim_path.exists():
            problems.append(f"{_display(path)}: key '{key}.{name}': unknown dimension{did_you_mean(name, known)}")
            continue
        if name in dimensions:
            problems.append(f"{_display(path)}: key 'monitor.{name}': "
                            + ("listed twice" if key == "monitor" and name not in suite.dimensions else
                               "both weighted (in 'dimensions') and monitor-only; a monitor-only dimension carries no "
                               "weight, so list it in one of the two"))
            continue
        try:
            dimensions[name] = load_dimension(dim_path)
            files.append(dim_path)
        except RubricError as exc:
            problems.extend(exc.problems)
    weighted = {name: d for name, d in dimensions.items() if name in suite.dimensions}
    if not problems and suite.aggregation == "gated":
        if not any(d.layer == "bottom_line" for d in weighted.values()):
            problems.append(f"{_display(path)}: key 'dimensions': gated aggregation needs a bottom-line dimension")
        behavioral = [n for n, d in weighted.items() if d.layer == "behavioral"]
        if not behavioral or sum(suite.dimensions[n] for n in behavioral) <= 0:
            problems.append(f"{_display(path)}: key 'dimensions': gated aggregation needs behavioral weight > 0")
    # The gate's per-dimension options: each names bottom-line dimensions of a gated suite, with a value in range.
    gate_options = (
        ("gate_exponents", "gate exponent", suite.gate_exponents,
         lambda v: 0 < v < float("inf"), "exponent must be a finite number > 0"),
        ("gate_deltas", "gate delta", suite.gate_deltas, lambda v: 0 < v <= 1, "delta must be a number in (0, 1]"),
    )
    for key, noun, values, valid, requirement in gate_options:
        for name, value in values.items():
            where = f"{_display(path)}: key '{key}.{name}'"
            if name in suite.monitor:
                problems.append(f"{where}: {name} is monitor-only; it is not in the gate, so it has no {noun}")
            elif name not in dimensions:
                problems.append(f"{where}: not a dimension of this suite{did_you_mean(name, sorted(dimensions))}")
            elif dimensions[name].layer != "bottom_line":
                problems.append(f"{where}: {name} is behavioral; only bottom-line dimensions have a {noun}")
            elif not valid(value):
                problems.append(f"{where}: {requirement}, got {value}")
            elif suite.aggregation != "gated":
                problems.append(f"{where}: {noun}s need gated aggregation (this suite is {suite.aggregation})")
    if not problems and suite.aggregation == "linear" and sum(suite.dimensions.values()) <= 0:
        problems.append(f"{_display(path)}: key 'dimensions': linear aggregation needs a positive total weight")
    if problems:
        raise RubricError(problems)
    canonical = json.dumps(
        {"suite": suite.model_dump(mode="json"), "dimensions": {n: d.model_dump(mode="json") for n, d in sorted(dimensions.items())}},
        sort_keys=True,
    )
    version = hashlib.sha256(canonical.encode()).hexdigest()[:16]
    return LoadedSuite(suite=suite, dimensions=dimensions, version=version, files=tuple(files))


@dataclass(frozen=True)
class LintReport:
    """What `lint` found: errors (the rubric does not load) and warnings (it loads, but likely not as meant)."""

    errors: list[str]
    warnings: list[str]

    @property
    def exit_code(self) -> int:
        """0 clean, 1 errors, 2 warnings only (`reward rubric lint`)."""
        return 1 if self.errors else 2 if self.warnings else 0


def suite_warnings(path: Path, loaded: LoadedSuite) -> list[str]:
    """Suite settings that load but do not do what they say."""
    warnings = []
    if loaded.suite.aggregation == "gated":
        for name, weight in loaded.suite.dimensions.items():
            if loaded.dimensions[name].layer == "bottom_line" and weight != 1.0:
                warnings.append(f"{_display(path)}: key 'dimensions.{name}': weight {weight:g} has no effect: gated "
                                "aggregation ignores bottom-line weights (the gate weighs them by `gate_exponents` only)")
    own = _parse(path.resolve(), []) or {}
    if own.get("include"):
        listed = own.get("dimensions") if isinstance(own.get("dimensions"), dict) else {}
        inherited = [name for name in loaded.suite.dimensions if name not in listed]
        if inherited:
            warnings.append(f"{_display(path)}: key 'dimensions': {', '.join(inherited)} come only from the include "
                            f"{own['include']!r}; list them here, or a dimension added there joins this suite "
                            "unnoticed")
    return warnings


def dimension_warnings(path: Path, dimension: Dimension) -> list[str]:
    """A hand-written local method whose recorded criterion is not the criterion any more: the method may no longer
    check what the criterion asks (an LLM judge follows the edit, the local tier does not)."""
    local, judge = dimension.local, dimension.judge
    if local is None or judge is None or local.fitted:
        return []
    now = criterion_digest(judge.criterion)
    method = local.method or dimension.name
    covers = "; ".join(local.covers) or "(covers not listed)"
    if local.criterion_digest is None:
        return [f"{_display(path)}: key 'local.criterion_digest': not recorded, so a later edit of the criterion goes "
                f"unnoticed; after checking that the local method {method!r} covers {covers}, set it to {now!r}"]
    if local.criterion_digest != now:
        return [f"{_display(path)}: key 'judge.criterion': changed since the local method {method!r} was checked "
                f"against it (digest {local.criterion_digest!r}, now {now!r}); the local tier does not follow the "
                f"edit: it checks only {covers}. Update the method or 'local.covers', then set "
                f"'local.criterion_digest: {now}'"]
    return []


def lint_report(root: Path = DEFAULT_RUBRIC_DIR) -> LintReport:
    """Every problem of a rubric tree (dimension files, then suites) or of one file, at once."""
    root = Path(root)
    errors: list[str] = []
    warnings: list[str] = []

    def check_suite(path: Path) -> None:
        try:
            warnings.extend(suite_warnings(path, load_suite(path)))
        except RubricError as exc:
            errors.extend(p for p in exc.problems if p not in errors)

    def check_dimension(path: Path) -> None:
        try:
            warnings.extend(dimension_warnings(path, load_dimension(path)))
        except RubricError as exc:
            errors.extend(exc.problems)

    if root.is_file():
        (check_suite if root.parent.name == "suites" else check_dimension)(root)
        return LintReport(errors, warnings)
    dim_dir, suite_dir = root / "dimensions", root / "suites"
    if not dim_dir.is_dir() and not suite_dir.is_dir():
        return LintReport([f"{_display(root)}: no 'dimensions/' or 'suites/' folder"], [])
    for path in sorted(dim_dir.glob("*.yaml")):
        check_dimension(path)
    for path in sorted(suite_dir.glob("*.yaml")):
        check_suite(path)
    return LintReport(errors, warnings)


def lint(root: Path = DEFAULT_RUBRIC_DIR) -> list[str]:
    """The errors of `lint_report` (empty means the tree loads)."""
    return lint_report(root).errors


SCHEMA_KINDS = ("dimension", "suite")
_INCLUDE = {
    "description": "A path, or a list of paths, relative to this file, whose keys are merged in first (this file's "
                   "keys win). Keys may then come from the included files, so none is required here.",
    "anyOf": [{"type": "string"}, {"type": "array", "items": {"type": "string"}}],
}


def _without_required(schema: Any, suffix: str) -> Any:
    """A copy of a schema with nothing required and every `$ref` pointing at the suffixed copy of its target."""
    if isinstance(schema, dict):
        return {key: (value + suffix if key == "$ref" else _without_required(value, suffix))
                for key, value in schema.items() if key != "required"}
    if isinstance(schema, list):
        return [_without_required(value, suffix) for value in schema]
    return schema


def json_schema(kind: str) -> dict[str, Any]:
    """The JSON Schema of a dimension or suite file, for editors (yaml-language-server) and CI.

    A file with `include:` (or one with no `name:`, a fragment meant to be included) is checked for known keys and
    value types only, since its required keys may come from the included files; a file without either must be
    complete.
    """
    if kind not in SCHEMA_KINDS:
        raise ValueError(f"unknown schema kind {kind!r}: expected one of {', '.join(SCHEMA_KINDS)}")
    model = Dimension if kind == "dimension" else Suite
    full = model.model_json_schema()
    defs = full.pop("$defs", {})
    title = full["title"]
    if kind == "suite":  # negative weights are refused by the loader
        full["properties"]["dimensions"]["additionalProperties"] = {"type": "number", "minimum": 0}
    for schema in (full,):
        schema["properties"] = {"include": _INCLUDE, **schema["properties"]}
    partial_suffix = "Partial"
    partial = _without_required(full, partial_suffix)
    all_defs = {**defs, **{name + partial_suffix: _without_required(d, partial_suffix) for name, d in defs.items()},
                title: full, title + partial_suffix: partial}
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": f"search-reward {kind} file",
        "description": (model.__doc__ or "").strip(),
        "$defs": all_defs,
        "if": {"anyOf": [{"required": ["include"]}, {"not": {"required": ["name"]}}]},
        "then": {"$ref": f"#/$defs/{title}{partial_suffix}"},
        "else": {"$ref": f"#/$defs/{title}"},
    }
