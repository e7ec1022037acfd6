"""Training pairs for the claim-consistency model: (evidence window, claim) -> supported / contradicted / unsupported.

Two kinds of source, both reproducible offline:

- synthetic FactCC-style transformations of sentences of public passages (and of the project's example evidence):
  faithful claims (the sentence as is, compressed, with a hedge or "Note that" in front, with citation markers
  that are stripped as the local tier strips them, two supported sentences merged) against contradicted claims
  (negation inserted or removed, numbers / years / months / entities swapped with values from the same passage,
  subject and object swapped, an antonym swapped in) and unsupported ones (entities the passage never mentions,
  specific additions such as "in 1998" or "by 40%", a sentence of another passage, a merge of a supported sentence
  with an altered one);
- public labeled entailment pairs (RTE): entailment is `supported`; not-entailment is "not supported", a label that
  does not say which of the two other classes applies (the loss sums their probabilities);
- SICK (`sick_pairs`): short sentence pairs with three-way labels (entailment / contradiction / neutral map to
  supported / contradicted / unsupported), rich in negation and role changes; kept apart from `build`'s list so
  the synthetic + RTE order (and a continued run's `--skip`) does not move when it is added;
- negation paraphrases (`negation_paraphrase_pairs`): an evidence sentence's negation said another way ("without an
  account" / "with no account needed") as supported, and the sentence with the negation dropped as contradicted.

The evidence window given to the model is built the way the local tier builds it at run time: the passage
sentences closest to the claim (`evidence_window`), so training and inference see the same shape of input.
"""

from __future__ import annotations

import csv
import hashlib
import json
import random
import re
from collections.abc import Iterator, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

from reward.format import split_sentences, strip_citations

LABELS = ("supported", "contradicted", "unsupported")
NOT_SUPPORTED = -1
"""Label of a public pair that is only known not to be supported (RTE's not-entailment)."""

ROOT = Path(__file__).resolve().parents[2]
PUBLIC = ROOT / "data" / "public"


@dataclass(frozen=True)
class Source:
    """A public file the training data is built from: where to get it and the checksum it must have."""

    name: str
    path: str
    repo: str
    commit: str
    file: str
    sha256: str
    license_note: str

    def fetch_command(self) -> str:
        return (f"git clone https://github.com/{self.repo} /tmp/src && git -C /tmp/src show {self.commit}:{self.file} "
                f"> {self.path}")


SOURCES = (
    Source("squad-dev-wikipedia", "data/public/san_mrc-squad-dev-v1.1.json", "VinACE/san_mrc",
           "74f10c582d3fb1249ef9559967dc9cb6c989acbe", "dev-v1.1.json",
           "db71d0a19c3f656b1ebefafce642b828cfab269f0d906312dfb0efdc7173b31a",
           "SQuAD 2.0 dev slice (5 Wikipedia articles, 173 paragraphs), CC BY-SA 4.0; passages only, questions unused"),
    Source("rte-train", "data/public/rte-train.tsv", "Ji-Yishan/MIEC-FYP",
           "250635701007f7f2dc00b63ce2cbc3dfe104b4e0", "RTE/train.tsv",
           "0222fd1ea26f263d325d28f5bf5cee4c58dd91cf15f1efa87f79eb714a991dc4",
           "GLUE RTE train split (2490 pairs); labeled pairs and premises as passages"),
    Source("rte-dev", "data/public/rte-dev.tsv", "Ji-Yishan/MIEC-FYP",
           "250635701007f7f2dc00b63ce2cbc3dfe104b4e0", "RTE/dev.tsv",
           "e7e42b7ee79c36ebd780ebbdba525b939017da4ef9624c9e78b9ac2e69e36c28",
           "GLUE RTE dev split (277 pairs); held out for evaluation only"),
)
SICK = Source("sick", "data/public/sick.txt", "praguna/sick_dataset", "a35d440f028175a4c774a19e9d6ef02c3a6f9e06",
              "SICK.txt", "3de6211d6cee83b1b444c1205da36bd18e6cabf5b4debfc24995b1510b796878",
              "SICK (Marelli et al. 2014, 9840 sentence pairs, entailment / contradiction / neutral), CC BY-NC-SA 3.0; "
              "1 in 10 pairs (by pair id) held out")
SICK_LABELS = {"ENTAILMENT": 0, "CONTRADICTION": 1, "NEUTRAL": 2}


class SourceError(RuntimeError):
    """A training source is missing or does not match its recorded checksum."""


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def verified(source: Source, root: Path = ROOT) -> Path:
    path = root / source.path
    if not path.exists():
        raise SourceError(f"{source.path}: missing; get it with: {source.fetch_command()}")
    digest = sha256(path)
    if digest != source.sha256:
        raise SourceError(f"{source.path}: sha256 {digest} != recorded {source.sha256}; fetch it again with: "
                          f"{source.fetch_command()}")
    return path


@dataclass
class Pair:
    evidence: str
    claim: str
    label: int  # index into LABELS, or NOT_SUPPORTED
    kind: str
    passage: str  # id of the passage it came from (for the held-out split)


# -- passages --------------------------------------------------------------------------------------------------
def squad_passages(path: Path) -> list[tuple[str, str]]:
    data = json.loads(path.read_text())
    return [(f"squad:{a['title']}:{i}", p["context"]) for a in data["data"] for i, p in enumerate(a["paragraphs"])]


def rte_rows(path: Path) -> list[dict]:
    with path.open(newline="") as handle:
        return list(csv.DictReader(handle, delimiter="\t", quoting=csv.QUOTE_NONE))


def example_passages(root: Path = ROOT) -> list[tuple[str, str]]:
    out = []
    for line in (root / "examples" / "items.jsonl").read_text().splitlines():
        if line.strip():
            item = json.loads(line)
            for doc in item.get("evidence", []):
                out.append((f"example:{item['group'] if 'group' in item else item['id']}:{doc['id']}", doc["text"]))
    return list(dict(out).items())


# -- transformations -------------------------------------------------------------------------------------------
_WORD = re.compile(r"[A-Za-z]+")
_NUMBER = re.compile(r"(?<![\w.])\d+(?:[.,]\d+)*(?![\w])")
_YEAR = re.compile(r"\b(1[5-9]\d\d|20\d\d)\b")
_MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
           "November", "December"]
_MONTH = re.compile(r"\b(" + "|".join(_MONTHS) + r")\b")
_ENTITY = re.compile(r"(?<!^)(?<![.!?]\s)\b[A-Z][a-zA-Z\-]+(?:\s+(?:of\s+|de\s+|the\s+)?[A-Z][a-zA-Z\-]+)*")
_AUX_NEG = [
    (r"\b(is|are|was|were|has been|have been|had been|can|could|will|would|should|must|may|might)\b(?! not)", r"\1 not"),
    (r"\bhas\b(?! not| been)", "does not have"), (r"\bhave\b(?! not| been)", "do not have"),
]
_NEG_REMOVE = [(r"\b(is|are|was|were|can|could|will|would|do|does|did|has|have|had) not\b", r"\1"),
               (r"\b(is|are|was|were|do|does|did|has|have|had|could|would|should)n't\b", r"\1"),
               (r"\bcannot\b", "can"), (r"\bnever\b", "always"), (r"\bno longer\b", "still")]
ANTONYMS = [("increase", "decrease"), ("increased", "decreased"), ("larger", "smaller"), ("largest", "smallest"),
            ("before", "after"), ("first", "last"), ("north", "south"), ("east", "west"), ("won", "lost"),
            ("higher", "lower"), ("more", "fewer"), ("early", "late"), ("earlier", "later"), ("open", "closed"),
            ("free", "paid"), ("public", "private"), ("rise", "fall"), ("rose", "fell"), ("allowed", "banned"),
            ("required", "optional"), ("older", "younger"), ("oldest", "youngest"), ("upper", "lower"),
            ("major", "minor"), ("success", "failure"), ("supported", "opposed"), ("accepted", "rejected"),
            ("western", "eastern"), ("northern", "southern"), ("inside", "outside"), ("maximum", "minimum"),
            ("fungal", "bacterial"), ("long", "short"), ("always", "never"), ("many", "few")]
_ANTONYM_OF = {a: b for a, b in ANTONYMS} | {b: a for a, b in ANTONYMS}
FOREIGN_ENTITIES = ["Portugal", "Nigeria", "Toyota", "Samsung", "Oxford University", "Lake Geneva", "Marie Curie",
                    "the Ottoman Empire", "Buenos Aires", "Microsoft", "the Red Cross", "Napoleon", "Osaka",
                    "the European Union", "Harvard", "Canberra", "Siemens", "Queen Victoria", "the Nile",
                    "Barcelona", "NASA", "Vienna", "Greenpeace", "Abraham Lincoln", "Sony", "Kenya", "Bavaria"]
ADDITIONS = [" in {year}", " by {pct}%", ", according to a {year} study", " for the first time", " in {month} {year}",
             ", making it the largest in the world", " after a {n}-year delay", " at a cost of ${n} million",
             " with the support of {entity}", ", mainly because of {entity}", " every {n} years",
             " for more than {n} years", ", which was later banned"]
HEDGES = ["Note that ", "Remember that ", "Keep in mind that ", "According to the sources, ", "It is reported that ",
          "Importantly, ", "In short, ", "Yes, ", "Notably, "]
DODGES = [", though I could not confirm this", " (I could not verify this in the sources)", ", but check before relying on it"]


def _sub_once(pattern: str, repl: str, text: str, rng: random.Random) -> str | None:
    matches = list(re.finditer(pattern, text))
    if not matches:
        return None
    m = rng.choice(matches)
    return text[: m.start()] + m.expand(repl) + text[m.end():]


def negate(sentence: str, rng: random.Random) -> str | None:
    for pattern, repl in _NEG_REMOVE:
        if re.search(pattern, sentence):
            return _sub_once(pattern, repl, sentence, rng)
    for pattern, repl in rng.sample(_AUX_NEG, len(_AUX_NEG)):
        out = _sub_once(pattern, repl, sentence, rng)
        if out:
            return out
    return None


def swap_number(sentence: str, passage: str, rng: random.Random) -> str | None:
    numbers = list(_NUMBER.finditer(sentence))
    if not numbers:
        return None
    m = rng.choice(numbers)
    value = m.group(0)
    others = [n for n in set(_NUMBER.findall(passage)) if n != value]
    if _YEAR.fullmatch(value):
        new = str(int(value) + rng.choice([-30, -11, -5, -3, -2, -1, 1, 2, 3, 7, 12]))
    elif others and rng.random() < 0.5:
        new = rng.choice(others)
    else:
        digits = value.replace(",", "")
        try:
            number = float(digits)
        except ValueError:
            return None
        factor = rng.choice([0.5, 0.7, 1.3, 2, 3, 10])
        new_value = number * factor + (1 if number * factor == number else 0)
        new = str(int(new_value)) if "." not in digits else f"{new_value:.1f}"
    if new == value:
        return None
    return sentence[: m.start()] + new + sentence[m.end():]


def swap_month(sentence: str, rng: random.Random) -> str | None:
    m = _MONTH.search(sentence)
    if not m:
        return None
    new = rng.choice([x for x in _MONTHS if x != m.group(0)])
    return sentence[: m.start()] + new + sentence[m.end():]


def entities(text: str) -> list[str]:
    return [e for e in dict.fromkeys(m.group(0) for m in _ENTITY.finditer(text)) if e not in _MONTHS and len(e) > 2]


def swap_entity(sentence: str, pool: Sequence[str], rng: random.Random) -> str | None:
    own = entities(sentence)
    candidates = [e for e in pool if e not in own and e not in sentence]
    if not own or not candidates:
        return None
    target = rng.choice(own)
    return sentence.replace(target, rng.choice(candidates), 1)


def swap_roles(sentence: str, rng: random.Random) -> str | None:
    own = [e for e in entities(sentence) if sentence.count(e) == 1]
    if len(own) < 2:
        return None
    a, b = rng.sample(own, 2)
    if a in b or b in a:
        return None
    return sentence.replace(a, "\0").replace(b, a).replace("\0", b)


def swap_antonym(sentence: str, rng: random.Random) -> str | None:
    words = [m for m in _WORD.finditer(sentence) if m.group(0).lower() in _ANTONYM_OF]
    if not words:
        return None
    m = rng.choice(words)
    new = _ANTONYM_OF[m.group(0).lower()]
    if m.group(0)[0].isupper():
        new = new.capitalize()
    return sentence[: m.start()] + new + sentence[m.end():]


def add_specific(sentence: str, rng: random.Random) -> str:
    addition = rng.choice(ADDITIONS).format(year=rng.randint(1950, 2024), pct=rng.choice([12, 25, 40, 60, 75]),
                                            month=rng.choice(_MONTHS), n=rng.choice([2, 3, 5, 10, 15, 40, 120]),
                                            entity=rng.choice(FOREIGN_ENTITIES))
    body = sentence.rstrip()
    end = body[-1] if body and body[-1] in ".!?" else ""
    return (body[:-1] if end else body) + addition + (end or ".")


def compress(sentence: str, rng: random.Random) -> str | None:
    """Drop a parenthetical or a trailing clause: a shorter claim the sentence still supports."""
    out = re.sub(r"\s*\([^)]*\)", "", sentence)
    if out != sentence:
        return out
    parts = sentence.split(", ")
    if len(parts) >= 3:
        # ", which ..., " style insertions in the middle
        middle = rng.randrange(1, len(parts) - 1)
        candidate = ", ".join(parts[:middle] + parts[middle + 1:])
        if re.match(r"(which|who|where|when|a |an |the )", parts[middle]):
            return candidate
    if len(parts) == 2 and len(parts[0].split()) >= 6 and not re.match(r"(?i)(in|on|at|after|before|during|when|while|although|though|because|as|since|if)\b", parts[0]):
        return parts[0].rstrip(".") + "."
    return None


def with_citation(claim: str, rng: random.Random) -> str:
    """Add then strip a citation marker, exactly as the local tier strips them before the model sees a claim."""
    body = claim.rstrip(".")
    return strip_citations(f"{body} [Doc {rng.randint(1, 6)}].")


def lowered_first(sentence: str) -> str:
    return sentence[:1].lower() + sentence[1:] if sentence[:2] != sentence[:2].upper() else sentence


# -- the evidence window ---------------------------------------------------------------------------------------
def _overlap(a: str, b: str) -> float:
    left, right = set(_WORD.findall(a.lower())), set(_WORD.findall(b.lower()))
    return len(left & right) / (len(left) ** 0.5 * len(right) ** 0.5 + 1e-6)


def evidence_window(claim: str, sentences: Sequence[str], size: int = 2) -> str:
    """The `size` passage sentences closest to the claim, in passage order (the run-time shape, where MiniLM
    similarity picks them; word overlap stands in for it here)."""
    ranked = sorted(range(len(sentences)), key=lambda i: -_overlap(claim, sentences[i]))[:size]
    return " ".join(sentences[i] for i in sorted(ranked))


# -- generation ------------------------------------------------------------------------------------------------
def synthetic_pairs(passages: Sequence[tuple[str, str]], rng: random.Random, per_sentence: int = 2) -> Iterator[Pair]:
    entity_pool = [e for _, text in passages for e in entities(text)]
    for passage_id, text in passages:
        sentences = [s for s in split_sentences(text) if 5 <= len(s.split()) <= 60]
        if not sentences:
            continue
        passage_entities = entities(text)
        for index, sentence in enumerate(sentences):
            for _ in range(per_sentence):
                made = _one_pair(sentence, index, sentences, text, passage_entities, entity_pool, passages, rng)
                if made:
                    claim, label, kind, window = made
                    yield Pair(window or evidence_window(claim, sentences), claim, label, kind, passage_id)


def _one_pair(sentence, index, sentences, text, passage_entities, entity_pool, passages, rng):
    roll = rng.random()
    if roll < 0.42:  # supported
        kind = rng.choice(["as_is", "compress", "hedge", "merge", "citation", "dodge", "compress"])
        claim = sentence
        if kind == "compress":
            claim = compress(sentence, rng) or sentence
        elif kind == "hedge":
            claim = rng.choice(HEDGES) + lowered_first(sentence)
        elif kind == "merge" and len(sentences) > 1:
            other = sentences[(index + 1) % len(sentences)]
            claim = sentence.rstrip(".") + ", and " + lowered_first(other)
        elif kind == "citation":
            claim = with_citation(sentence, rng)
        elif kind == "dodge":
            claim = sentence.rstrip(".") + rng.choice(DODGES) + "."
        return claim, 0, "supported:" + kind, None
    if roll < 0.75:  # contradicted
        transforms = [("negation", lambda: negate(sentence, rng)), ("number", lambda: swap_number(sentence, text, rng)),
                      ("month", lambda: swap_month(sentence, rng)),
                      ("entity_in_passage", lambda: swap_entity(sentence, passage_entities, rng)),
                      ("roles", lambda: swap_roles(sentence, rng)), ("antonym", lambda: swap_antonym(sentence, rng))]
        rng.shuffle(transforms)
        for kind, transform in transforms:
            claim = transform()
            if claim and claim != sentence:
                if rng.random() < 0.2:
                    claim = rng.choice(HEDGES) + lowered_first(claim)
                elif rng.random() < 0.2:
                    claim = with_citation(claim, rng)
                elif rng.random() < 0.15 and len(sentences) > 1:  # one altered half of a merged claim
                    claim = sentences[index - 1].rstrip(".") + ", and " + lowered_first(claim)
                    kind = "merge_" + kind
                # The window always holds the source sentence: what the claim alters is in view.
                others = [s for s in sentences if s != sentence]
                window = sentence if not others else evidence_window(claim, [sentence, *others], 2)
                if sentence not in window:
                    window = " ".join([sentence, evidence_window(claim, others, 1)])
                return claim, 1, "contradicted:" + kind, window
    # unsupported
    kind = rng.choice(["entity_foreign", "addition", "addition", "other_passage", "dodge_addition", "merge_addition"])
    claim = None
    if kind == "entity_foreign":
        claim = swap_entity(sentence, [e for e in rng.sample(entity_pool, min(50, len(entity_pool))) if e not in text]
                            + FOREIGN_ENTITIES, rng)
    elif kind == "other_passage":
        other_text = rng.choice(passages)[1]
        other = [s for s in split_sentences(other_text) if 5 <= len(s.split()) <= 60 and s not in text]
        claim = rng.choice(other) if other else None
    elif kind == "dodge_addition":
        claim = add_specific(sentence, rng).rstrip(".") + rng.choice(DODGES) + "."
    elif kind == "merge_addition" and len(sentences) > 1:
        claim = sentences[index - 1].rstrip(".") + ", and " + lowered_first(add_specific(sentence, rng))
    if claim is None:
        kind, claim = "addition", add_specific(sentence, rng)
    if rng.random() < 0.2:
        claim = with_citation(claim, rng)
    return claim, 2, "unsupported:" + kind, None


def rte_pairs(rows: Sequence[dict], prefix: str) -> Iterator[Pair]:
    for i, row in enumerate(rows):
        premise, hypothesis = row["sentence1"], row["sentence2"]
        sentences = split_sentences(premise) or [premise]
        window = evidence_window(hypothesis, sentences, 2) if len(sentences) > 2 else premise
        yield Pair(window, hypothesis, 0 if row["label"] == "0" else NOT_SUPPORTED, "rte", f"{prefix}:{i}")


# Same meaning, one side negated: "without an account" is "no account needed". Each entry: a pattern, its
# negated-form paraphrase, and the opposite (a contradiction). Both directions are used.
NEGATION_PARAPHRASES = [
    (r"\bwithout (?:an? |any )?(\w+)", [r"with no \1", r"with no \1 needed"], [r"with \1", r"only with \1"]),
    (r"\bunavailable\b", ["not available"], ["available"]), (r"\bnot available\b", ["unavailable"], ["available"]),
    (r"\bimpossible\b", ["not possible"], ["possible"]), (r"\bnot possible\b", ["impossible"], ["possible"]),
    (r"\bunable to\b", ["not able to"], ["able to"]), (r"\bnot able to\b", ["unable to"], ["able to"]),
    (r"\bunknown\b", ["not known"], ["known"]), (r"\bunlikely\b", ["not likely"], ["likely"]),
    (r"\bunclear\b", ["not clear"], ["clear"]), (r"\bincomplete\b", ["not complete"], ["complete"]),
    (r"\billegal\b", ["not legal"], ["legal"]), (r"\bunusual\b", ["not usual"], ["usual"]),
    (r"\binaccurate\b", ["not accurate"], ["accurate"]), (r"\bunsuccessful\b", ["not successful"], ["successful"]),
    (r"\bprohibited\b", ["not allowed", "not permitted"], ["allowed", "permitted"]),
    (r"\bbanned\b", ["not allowed"], ["allowed"]), (r"\bnot allowed\b", ["prohibited"], ["allowed"]),
    (r"\boptional\b", ["not required"], ["required", "mandatory"]),
    (r"\bnot required\b", ["optional"], ["required"]), (r"\bfree of charge\b", ["at no cost"], ["for a fee"]),
    (r"\bfailed to\b", ["did not"], ["managed to"]), (r"\bdid not\b", ["failed to"], ["did"]),
    (r"\bnever\b", ["not once"], ["often"]), (r"\blacks\b", ["does not have"], ["has"]),
    (r"\bdoes not have\b", ["lacks"], ["has"]), (r"\bno longer\b", ["not anymore"], ["still"]),
    (r"\babsent\b", ["not present"], ["present"]), (r"\bclosed\b", ["not open"], ["open"]),
    (r"\bis not\b", ["isn't"], ["is"]), (r"\bwas not\b", ["wasn't"], ["was"]),
    (r"\bcannot\b", ["can't", "is not able to"], ["can"]),
]


def negation_paraphrase_pairs(passages: Sequence[tuple[str, str]], seed: int) -> Iterator[Pair]:
    """Supported claims that say an evidence sentence's negation another way (and contradicted ones that drop it):
    without them a model learns that a negation word the evidence lacks means a contradiction."""
    rng = random.Random(f"negation-paraphrase-{seed}")
    for passage_id, text in passages:
        sentences = [s for s in split_sentences(strip_citations(text)) if 5 <= len(s.split()) <= 60]
        for sentence in sentences:
            for pattern, same, opposite in NEGATION_PARAPHRASES:
                match = re.search(pattern, sentence, re.IGNORECASE)
                if not match or match.start() == 0:
                    continue
                window = evidence_window(sentence, sentences, 2)
                if sentence not in window:
                    window = sentence
                paraphrase = sentence[:match.start()] + match.expand(rng.choice(same)) + sentence[match.end():]
                flipped = sentence[:match.start()] + match.expand(rng.choice(opposite)) + sentence[match.end():]
                yield Pair(window, paraphrase, 0, "supported:negation_paraphrase", passage_id)
                yield Pair(window, flipped, 1, "contradicted:negation_dropped", passage_id)
                break


def sick_pairs(seed: int, root: Path = ROOT) -> tuple[list[Pair], list[Pair], dict]:
    """(train, held-out) SICK pairs, shuffled with `seed`, and the source's recipe entry. Held out: pairs whose id
    is 0 mod 10 (SICK pairs share sentences across ids, so this held-out set is in-domain, not unseen text)."""
    rows = rte_rows(verified(SICK, root))
    train, held = [], []
    for row in rows:
        label = SICK_LABELS.get(row["entailment_judgment"])
        if label is None:
            continue
        pair = Pair(row["sentence_A"], row["sentence_B"], label, "sick", f"sick:{row['pair_ID']}")
        (held if int(row["pair_ID"]) % 10 == 0 else train).append(pair)
    random.Random(f"sick-{seed}").shuffle(train)
    return train, held, asdict(SICK) | {"train_pairs_available": len(train), "held_out_pairs": len(held)}


def paraphrase_pairs(seed: int, held_passages: set[str], root: Path = ROOT) -> tuple[list[Pair], list[Pair]]:
    """(train, held-out) negation paraphrases of the passages `build` reads, held out by the same passages."""
    squad = squad_passages(verified(SOURCES[0], root))
    rte_train = rte_rows(verified(SOURCES[1], root))
    passages = squad + [(f"rte-premise:{i}", r["sentence1"]) for i, r in enumerate(rte_train)] + example_passages(root)
    pairs = list(negation_paraphrase_pairs(passages, seed))
    train = [p for p in pairs if p.passage not in held_passages]
    random.Random(f"paraphrase-{seed}").shuffle(train)
    return train, [p for p in pairs if p.passage in held_passages]


def build(seed: int, per_sentence: int = 2, root: Path = ROOT) -> tuple[list[Pair], list[Pair], dict]:
    """(train, held-out) pairs and the data recipe. Held out: synthetic pairs of 10% of the passages (whole
    passages, so no sentence of a held-out passage is trained on) and the RTE dev split."""
    rng = random.Random(seed)
    squad = squad_passages(verified(SOURCES[0], root))
    rte_train, rte_dev = rte_rows(verified(SOURCES[1], root)), rte_rows(verified(SOURCES[2], root))
    rte_premises = [(f"rte-premise:{i}", r["sentence1"]) for i, r in enumerate(rte_train)]
    examples = example_passages(root)
    passages = squad + rte_premises + examples
    synthetic = list(synthetic_pairs(passages, rng, per_sentence))
    held_passages = {p for p, _ in passages if rng.random() < 0.1}
    train = [p for p in synthetic if p.passage not in held_passages] + list(rte_pairs(rte_train, "rte-train"))
    held = [p for p in synthetic if p.passage in held_passages] + list(rte_pairs(rte_dev, "rte-dev"))
    rng.shuffle(train)
    counts: dict[str, int] = {}
    for pair in train:
        counts[pair.kind] = counts.get(pair.kind, 0) + 1
    recipe = {
        "sources": [asdict(s) for s in SOURCES] + [{"name": "project-examples", "path": "examples/items.jsonl",
                                                     "sha256": sha256(root / "examples" / "items.jsonl"),
                                                     "license_note": "constructed by this project; mechanics only"}],
        "passages": {"squad": len(squad), "rte_premises": len(rte_premises), "examples": len(examples),
                     "held_out": len(held_passages)},
        "seed": seed, "per_sentence": per_sentence,
        "train_pairs_available": len(train), "held_out_pairs": len(held), "train_kinds_available": dict(sorted(counts.items())),
    }
    return train, held, recipe


# -- public labelled claims ------------------------------------------------------------------------------------
WICE_PARTIAL = Source("wice-train-partial", "data/public/ryokamoi/wice/data/non_supported_tokens/train.jsonl",
                      "ryokamoi/wice", "ddeb6c183665e2a20c5f03c5aa07f03888b9870f",
                      "data/non_supported_tokens/train.jsonl",
                      "04591c07fdeead5a3962579084bc319b3292fdb9e8704ccd7daf842c2e026be7",
                      "WiCE train split, sub-claims annotated partially supported with their supporting sentences "
                      "(Wikipedia CC BY-SA and Common Crawl terms); the fidelity harness reads WiCE dev and test only")
PUBLIC_MODEL_SHARE = 0.6
"""Share of the fit split of the public fidelity sets (by pair / item key) that the consistency model may train on;
the rest is left to the claim combination, so the combination is fitted on claims the model never saw. WiCE's fit
split is small and all of it goes to the combination."""
COMBINATION_ONLY_SETS = frozenset({"wice", "expertqa", "attributedqa", "lfqa"})
"""Public sets whose whole fit split goes to the claim combination: WiCE's and AttributionBench's dev parts (470, 74
and 110 claims) are too small to split."""


def public_model_part(set_name: str, key: str) -> bool:
    """Whether a fit-split public case (`set_name`, `key`: its document, `case_document`) is in the model's training
    part.

    >>> public_model_part("wice", "wice-1")
    False
    >>> sum(public_model_part("begin", f"begin-0-{i}") for i in range(1000)) in range(550, 650)
    True
    """
    if set_name in COMBINATION_ONLY_SETS:
        return False
    digest = hashlib.sha256(f"{set_name}:{key}".encode()).digest()
    return int.from_bytes(digest[:4], "big") < PUBLIC_MODEL_SHARE * 2**32


def case_document(case) -> str:
    """The key of what a public case is read against (a digest of its evidence texts). Cases that share a document
    share it: SummEdits' pairs of one document (several edited summaries each), BEGIN's responses grounded in one
    knowledge passage."""
    return hashlib.sha256("\x00".join(e.text for e in case.item.evidence).encode()).hexdigest()[:16]


def case_in_model_part(case) -> bool:
    """`public_model_part` of a public fidelity case, keyed by its document: the model never trains on one edit of
    a document while the combination (or a held-back measurement) reads another edit of it. (Keyed by pair id, a
    document's edits fell on both sides, and held-back fit-split figures read documents the model had trained on.)"""
    return public_model_part(case.set, case_document(case))


def wice_partial_pairs(root: Path = ROOT, window: int = 3, source: Source = WICE_PARTIAL) -> list[Pair]:
    """WiCE train sub-claims annotated partially supported: the claim against (at most `window` of) its supporting
    sentences is not supported (NOT_SUPPORTED: part of it is missing from the evidence, not necessarily
    contradicted)."""
    pairs = []
    for number, line in enumerate(verified(source, root).read_text(encoding="utf-8").splitlines()):
        row = json.loads(line)
        sentences = row["evidence"]
        chosen = sorted({i for group in row.get("supporting_sentences") or [] for i in group if 0 <= i < len(sentences)})
        if not chosen or row.get("label") != "partially_supported":
            continue
        evidence = " ".join(sentences[i] for i in chosen[:window])
        pairs.append(Pair(evidence, row["claim"], NOT_SUPPORTED, "public:wice_partial", f"wice-train:{number}"))
    return pairs


def public_claim_pairs(path: Path) -> list[Pair]:
    """Pairs exported by `python -m training.consistency.public` (the public fit split's model part, as the
    local tier reads each claim: its evidence window and the claim)."""
    pairs = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip():
            row = json.loads(line)
            pairs.append(Pair(row["evidence"], row["claim"], 0 if row["label"] == 1 else NOT_SUPPORTED,
                              f"public:{row['set']}", f"{row['set']}:{row['key']}"))
    return pairs
