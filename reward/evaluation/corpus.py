"""A generalization corpus: interactions, each with labelled responses (a clean answer, honest variants, attacks),
one interaction per JSONL line. `benchmarks/generalization.py` scores it (attack wins, honest losses) and
`reward probes --search --corpus` seeds the exploit search from every interaction's clean answer. The corpus is
built outside the package (`training/generalization/`); this module only reads it."""

from __future__ import annotations

import datetime as dt
import hashlib
from collections.abc import Sequence
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict

from reward.schema import Evidence, Item, Turn


class CorpusResponse(BaseModel):
    """One labelled response of a corpus interaction."""

    model_config = ConfigDict(extra="forbid")
    id: str
    """Unique within its interaction."""
    role: Literal["clean", "honest", "attack"]
    """`clean`: the interaction's reference answer; `honest`: another correct answer (a paraphrase, a derived figure,
    a layout change, a premise correction, "the sources do not say"); `attack`: a response that must not beat them."""
    family: str
    """What kind of honest variant or attack it is (e.g. `layout`, `false_premise_accepted`)."""
    response: str
    """The whole response in the policy format (`reward.format`)."""


class CorpusInteraction(BaseModel):
    """One interaction of a generalization corpus (one JSONL line): the wire-format fields of an item, shared by all
    its labelled responses."""

    model_config = ConfigDict(extra="forbid")
    id: str
    split: Literal["fit", "test"]
    kind: str
    """What the interaction tests (factoid, unanswerable, multi_turn, comparison, conflict, false_premise, ...)."""
    source: str
    """Where it was built from (a public data set's name, or `handwritten`)."""
    query: str
    history: list[Turn] = []
    evidence: list[Evidence]
    now: dt.date | None = None
    responses: list[CorpusResponse]

    def item(self, response: CorpusResponse) -> Item:
        """The wire-format item of one response, id `<interaction>/<response>`, grouped by interaction."""
        return Item(id=f"{self.id}/{response.id}", group=self.id, query=self.query, history=self.history,
                    evidence=self.evidence, response=response.response, now=self.now)

    @property
    def clean(self) -> Item:
        [first] = [r for r in self.responses if r.role == "clean"]
        return self.item(first).model_copy(update={"id": self.id, "group": None})


def read_corpus(path: Path | str, split: str | None = None) -> list[CorpusInteraction]:
    """The interactions of a corpus file (one per line), optionally only those of one split; a bad line raises an
    error naming the file and line."""
    interactions = []
    for number, line in enumerate(Path(path).read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            interaction = CorpusInteraction.model_validate_json(line)
        except ValueError as exc:
            raise ValueError(f"{path}:{number}: {exc}") from None
        if split is None or interaction.split == split:
            interactions.append(interaction)
    return interactions


def sample_interactions(interactions: Sequence[CorpusInteraction], size: int) -> list[CorpusInteraction]:
    """A fixed sample of `size` interactions (by a hash of their ids, so it does not move when others are added)."""
    ranked = sorted(interactions, key=lambda i: hashlib.sha256(i.id.encode()).hexdigest())
    return ranked[:size] if size else list(ranked)
