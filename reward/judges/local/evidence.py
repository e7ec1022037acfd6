"""The evidence methods: `reference_beneficiality`, `reference_conflict`, `reference_irrelevant`,
`reference_satisfaction`, `reference_diversity` (what the response selected and cited, against the query and each
other) and `claim_diversity` (distinct relevant claims of the answer).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np

from reward.format import parse_citations, split_sentences, strip_citations
from reward.judges.consistency import is_english
from reward.judges.local.context import Context, _answer_parts, _answer_sentences, clip
from reward.judges.local.relevance import _copy_weights, _relevance, _substantive
from reward.judges.local.supply import _supply
from reward.judges.local.support import SUPPORT_WINDOW
from reward.judges.local.figures import _quantities
from reward.judges.local.dates import _MONTHS
from reward.judges.local.text import STOPWORDS, content_words, doc_text, numbers, salient_terms, stem, stems
from reward.schema import Evidence


async def reference_beneficiality(ctx: Context) -> tuple[float, str]:
    """Mean relevance of the selected evidence to the need, lowered when a clearly more relevant item was left out."""
    if not ctx.item.evidence:
        return 1.0, "no evidence offered"
    relevance = await _relevance(ctx, ctx.item.evidence)
    chosen = [i for i, d in enumerate(ctx.item.evidence) if d.id in set(ctx.parsed.selected)]
    if not chosen:
        supplied, why = await _supply(ctx)
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


MOST_CONFLICT_PAIRS = 16 * 15
"""The most ordered pairs of selected items read for a conflict (every pair of 16 items; past that, the most similar)."""


async def _contradicting_items(ctx: Context, docs: Sequence[Evidence], pairwise: np.ndarray) -> str | None:
    """A specific sentence (a number or a name) of one selected item that the consistency model reads as
    contradicted by the closest sentences of another selected item on the same topic (similarity > 0.5)."""
    pairs, where = [], []
    # (the most similar ordered pairs only, past 16 items' worth: selecting hundreds of items must not cost the
    # model the square of them, and two items that conflict are the ones on the same topic)
    near = sorted(((-float(pairwise[i, j]), i, j) for i in range(len(docs)) for j in range(len(docs))
                   if i != j and pairwise[i, j] > 0.5))[:MOST_CONFLICT_PAIRS]
    read = {(i, j) for _, i, j in near}
    for i, first in enumerate(docs):
        for j, second in enumerate(docs):
            if (i, j) not in read or not is_english(doc_text(first) + doc_text(second)):
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


_CLOCK = re.compile(r"\b\d{1,2}:\d{2}\b")
_MONTH_STEMS = frozenset(stem(m) for m in _MONTHS)


def _values(text: str) -> dict[str, set]:
    """The text's figures by unit ("euro", "metre", what it counts, "time of day"); no years, dates or bare numbers."""
    out: dict[str, set] = {}
    for value, _, unit in _quantities(text):
        if unit and unit not in _MONTH_STEMS:
            out.setdefault(unit, set()).add(value)
    if _CLOCK.search(text):
        out["time of day"] = set(_CLOCK.findall(text))
    return out


def _superseded(old: Evidence, new: Evidence) -> bool:
    """Whether the newer item gives another figure in a unit the older one gives (a price, an opening time, a rate):
    what changes over time, unlike the year an event took place.

    >>> _superseded(Evidence(id="1", text="The wage will be €11.20 per hour."), Evidence(id="2", text="It rises to €12.40."))
    True
    >>> _superseded(Evidence(id="1", text="It was founded in 1844."), Evidence(id="2", text="It moved in 1901."))
    False
    """
    before, after = _values(old.text), _values(new.text)
    return any(before[unit] - after[unit] for unit in before.keys() & after.keys())


async def reference_conflict(ctx: Context) -> tuple[float, str]:
    """Conflicts between selected items: for time-sensitive needs, an item dated more than a year before a newer
    item on the same topic (similarity > 0.5) is outdated next to current information (0); a newer item the
    response leaves out counts where it gives another figure in a unit the older one gives (`_superseded`: a price,
    an opening time, not the year an event took place); a specific
    sentence of one item that the consistency model reads as contradicted by another item on the same topic
    scores 0.3 (the model is not certain enough for a hard 0)."""
    docs = ctx.selected
    if _TIME_SENSITIVE.search(ctx.need) and any(d.published for d in docs):
        # Against every evidence item: leaving the newer item out does not make the older one current.
        everything = list(ctx.item.evidence)
        cross = await ctx.similarity([doc_text(d) for d in docs], [doc_text(d) for d in everything])
        for i, old in enumerate(docs):
            for j, new in enumerate(everything):
                if old.published and new.published and (new.published - old.published).days > 365 \
                        and cross[i, j] > 0.5 and (new in docs or _superseded(old, new)):
                    left_out = "" if new in docs else ", which the response leaves out"
                    return 0.0, (f"[Doc {old.id}] ({old.published}) is outdated next to [Doc {new.id}] "
                                 f"({new.published}){left_out}")
    if len(docs) < 2:
        return 1.0, "fewer than two items"
    pairwise = await ctx.similarity([doc_text(d) for d in docs], [doc_text(d) for d in docs])
    conflict = await _contradicting_items(ctx, docs, pairwise)
    if conflict:
        return 0.3, conflict
    return 1.0, "no outdated or contradicting item among the selected"


async def reference_irrelevant(ctx: Context) -> tuple[float, str]:
    """A selected item with similarity to the need below 0.2 and none of the need's content words is irrelevant, and so
    is one the response never cites whose similarity is below 0.35. An item's similarity is its closest part's (its
    title, its text, or one of its sentences): a passage that holds the answer in one sentence among others is
    relevant."""
    docs = ctx.selected
    if not docs:
        return 1.0, "nothing selected"
    relevance = await _part_relevance(ctx, docs)
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


async def _part_relevance(ctx: Context, docs: Sequence[Evidence]) -> np.ndarray:
    """Per item, the need's similarity to its closest part: the whole item, its title or one of its sentences."""
    parts = [list(dict.fromkeys(p for p in (doc_text(d), d.title, *split_sentences(d.text)) if p and p.strip()))
             for d in docs]
    # The need read with the session's earlier turn, or the query alone, whichever the item is closer to: the
    # earlier turn gives a follow-up its topic, and must not make an item about the query itself look off-topic.
    similarity = (await ctx.similarity(list(dict.fromkeys([ctx.need, ctx.item.query])), [p for ps in parts for p in ps])).max(axis=0)
    out, k = np.zeros(len(docs), dtype=np.float32), 0
    for i, ps in enumerate(parts):
        out[i] = float(similarity[k:k + len(ps)].max())
        k += len(ps)
    return out


async def reference_satisfaction(ctx: Context) -> tuple[float, str]:
    """The best selected item's relevance against the best available item's, times the share of the need's
    content words the selected items cover (against what the whole evidence set covers)."""
    if not ctx.item.evidence:
        return 1.0, "no evidence offered"
    relevance = await _relevance(ctx, ctx.item.evidence)
    selected_ids = set(ctx.parsed.selected)
    chosen = [i for i, d in enumerate(ctx.item.evidence) if d.id in selected_ids]
    if not chosen:
        supplied, why = await _supply(ctx)
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


async def reference_diversity(ctx: Context) -> tuple[float, str]:
    """Distinct sources among the selected items the response cites and low pairwise similarity; one item scores at
    most 0.5 (items selected and never cited add no diversity)."""
    used = ctx.used
    docs = [d for d in ctx.selected if d.id in used] or ctx.selected
    if not docs:
        supplied, why = await _supply(ctx)
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


_JOINED_CLAUSE = re.compile(r";\s+|\s+[—–]\s+")
"""Where a sentence joins claims of its own: a semicolon or a dash between words ("50 minutes; every two hours")."""


def _clauses(sentence: str) -> list[str]:
    """The claims a sentence joins (`_JOINED_CLAUSE`), where each states a figure or a name ("50 minutes; every two
    hours, 08:00-18:00"); else the sentence, one claim. A lead-in ("Not stated directly -", "In short;") states
    neither, so it makes no claim of its own.

    >>> _clauses("50 minutes; every two hours, 08:00-18:00"), _clauses("Not stated directly - it costs £44.")
    (['50 minutes', 'every two hours, 08:00-18:00'], ['Not stated directly - it costs £44.'])
    """
    parts = _JOINED_CLAUSE.split(sentence)
    stating = [p for p in parts if numbers(p) or any(w not in STOPWORDS for w in _names_after_first(p))]
    return parts if len(parts) > 1 and len(stating) == len(parts) else [sentence]


def _names_after_first(text: str) -> list[str]:
    """The capitalised words of a text after its first word, lower-cased: names, not a clause's opening capital."""
    return [w.lower() for w in re.findall(r"[A-Z][\w'’-]*", text)[1 if text[:1].isupper() else 0:]]


async def claim_diversity(ctx: Context) -> tuple[float, str]:
    """Distinct relevant claims: the clauses of answer sentences related to the need (similarity >= 0.15; a clause is
    what a semicolon or a dash sets apart, each stating a figure or a name: `_clauses`), merging paraphrases
    (similarity > 0.8); four or more distinct claims score 1. Facts joined in one sentence count as they would in
    several, so a terse answer is not poorer for its punctuation. Restating the query is not a claim."""
    sentences, cleaned, relevance = await _substantive_relevance(ctx, credit_copies=True)
    weights = _copy_weights(ctx)
    units = [(i, part) for i, c in enumerate(cleaned) if c and relevance[i] >= 0.15 for part in _clauses(c)]
    texts = [part for _, part in units]
    pairwise = await ctx.similarity(texts, texts) if texts else np.zeros((0, 0))
    kept: list[int] = []
    for position in range(len(units)):
        if all(pairwise[position, j] <= 0.8 for j in kept):
            kept.append(position)
    count = sum(weights[units[p][0]] for p in kept)
    return min(1.0, count / 4), f"{count:g} distinct relevant claims of {len(sentences)} sentences (a copied one counts half)"
