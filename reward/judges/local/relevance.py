"""The query methods: `query_satisfaction` (does the answer answer the user's need: a sentence stating what the
question asks for, held by the evidence it cites) and `planning_quality` (a plan of distinct, on-topic
facets with evidence mapped to them), and the per-sentence answer checks the usability and evidence methods
build on.
"""

from __future__ import annotations

import dataclasses
import functools
import re
import threading
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from reward.format import parse_citations, split_sentences, strip_citations
from reward.judges.local.claims import _THOUSANDS, _YEAR, answer_worked
from reward.judges.local.dates import worked_weekdays
from reward.judges.local.numbercheck import dated_text, figures_read
from reward.judges.local.kinds import asked_kinds, missing_kind
from reward.judges.local.context import Context, _answer_parts, _answer_sentences, chosen_alternative, clip, copy_reading
from reward.judges.local.echo import restates_query, strip_query_echo
from reward.judges.local.text import (
    _HEADER_LINE,
    _LEAD,
    _MARKUP,
    content_words,
    copies_evidence,
    days_named,
    doc_text,
    lexical_coverage,
    list_marker_removed,
    names_in,
    numbers,
    salient_terms,
    stems,
    tokens,
)
from reward.rules.declining import declines
from reward.rules.keywords import keyword_list_share
from reward.rules.verdicts import scope_topic
from reward.schema import Evidence
from reward.textnorm import reading_form

"""Words of the frames a restatement comes in ("You asked whether ...", "Here is the answer to ...")."""


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


_ASKS = re.compile(r"\b(?:what|which|why|how)\b|^\W*(?:\w+\W+){0,3}?(?:is|are|was|were|do|"
                   r"does|did|can|could|should|will|would|may|has|have)\b", re.IGNORECASE)


def asked_kind_of(ctx: Context) -> str:
    """The question whose kind of answer is asked (`kinds.missing_kind`): the query itself when it asks a question
    of its own ("Where did he die?" asks for a place, "What disagreement did they have?" for no kind, whatever the
    earlier turn asked), or, for a follow-up that asks nothing on its own ("And on Sundays?", "And if it's the
    landlord who wants to end it?"), the need it continues."""
    query = ctx.item.query
    return query if _ASKS.search(query) or asked_kinds(query) else ctx.need


_DIMENSIONS = {
    "height": ("taller", "tallest", "higher", "highest", "shorter", "shortest", "lower", "lowest"),
    "age": ("older", "oldest", "younger", "youngest", "earlier", "earliest", "later", "latest", "newer", "newest"),
    "size": ("bigger", "biggest", "larger", "largest", "smaller", "smallest", "more populous"),
    "price": ("cheaper", "cheapest", "dearer", "pricier", "costlier", "expensive", "higher", "lower"),
    "length": ("longer", "longest", "shorter", "shortest", "farther", "further", "nearer", "closer"),
    "speed": ("faster", "fastest", "slower", "slowest", "quicker", "quickest"),
    "weight": ("heavier", "heaviest", "lighter", "lightest"),
}
_COMPARED = re.compile(r"\b(?:" + "|".join(sorted({w for ws in _DIMENSIONS.values() for w in ws}, key=len, reverse=True))
                       + r")\b", re.IGNORECASE)
"""Words of a comparison, by what they compare. "Bigger" and "smaller" compare any extent (a tower's height too);
"higher", "lower", "shorter" more than one thing."""


_VERDICT = re.compile(r"\b(?:is|was|are|were|be|been|'s|’s)\s+(?:much\s+|far\s+|slightly\s+|the\s+)?(" + _COMPARED.pattern[5:-3]
                      + r")\b(?=\s*(?:[,:;.!?)\[]|by\b|$))|\b(" + _COMPARED.pattern[5:-3] + r")\s+than\b", re.IGNORECASE)
"""A comparison word said of something ("is older:", "older than"), not one that describes ("earlier theories") or
an adverb ("were later reformulated")."""


def _compared(text: str, said: bool = False) -> frozenset[str] | None:
    """What the first comparison word of `text` compares (one or more of `_DIMENSIONS`); None without one. With
    `said`, only a word the text says of something (`_VERDICT`)."""
    match = (_VERDICT if said else _COMPARED).search(text)
    if not match:
        return None
    word = next(g for g in match.groups() if g).lower() if said else match.group(0).lower()
    found = {d for d, words in _DIMENSIONS.items() if word in words}
    return frozenset(found | ({"height", "length"} if "size" in found else set()))


def other_comparison(question: str, part: str) -> str | None:
    """The comparison a part makes when the question asks for another ("Which is taller?" answered "The Spire is
    older"): the part's word, or None when the question compares nothing, the part says of nothing that it compares,
    or one of the comparisons it says ("the train is quicker, but the ferry is cheaper") can be what is asked.

    >>> other_comparison("Which is taller, the Kessler Tower or the Aldine Spire?", "The Aldine Spire is older.")
    'older'
    >>> other_comparison("Which is taller, the Kessler Tower or the Aldine Spire?", "The Kessler Tower is bigger.") is None
    True
    >>> other_comparison("Which number is larger?", "Maxwell unified earlier theories, which were later reformulated.") is None
    True
    >>> other_comparison("Which is cheaper, the ferry or the train?", "The train is quicker, but the ferry is cheaper.") is None
    True
    """
    asked = _compared(question)
    said = [next(g for g in m.groups() if g).lower() for m in _VERDICT.finditer(part)]
    if asked is None or not said or any(asked & _compared(word) for word in said):
        return None
    return said[0]


def _name_in(name: str, haystack: str) -> bool:
    """Whether a (lower-cased) name or number occurs in the lower-cased haystack, accents dropped on both sides: as
    written, or, for a name of several words, its words in order with at most one other word between two of them
    ("Lenovo Vantage > Device > Power" names the menu path "In Lenovo Vantage, open Device > Power"). Without that,
    punctuating a name ("Lenovo, Vantage, Device, Power") would turn one unmatched name into four matched words; with
    more slack, words of a sentence that says otherwise would make a name ("Apple Music Free" out of "Apple Music has
    no free tier").

    >>> _name_in("lenovo vantage device power", "in lenovo vantage, open device > power and scroll")
    True
    >>> _name_in("apple music free", "apple music has no free tier; spotify free plays it with ads")
    False
    >>> _name_in("music apple", "apple music has a free trial")
    False
    >>> _name_in("lenovo vantage power", "open lenovo vantage > power.")
    True
    >>> _name_in("20", "it rose to 1200 in 2020."), _name_in("20", "it rose 20.5%."), _name_in("20", "20 km, 12.")
    (False, False, True)
    """
    # accents dropped on both sides: "Ogedei Khan" is the evidence's "Ögedei Khan"
    name, haystack = reading_form(name), reading_form(haystack)
    if name.removesuffix("s") in days_named(haystack):  # "Monday" where the evidence says "weekdays"
        return True
    if name[:1].isdigit():  # a number is one only as a whole: "20" is not in "1200" nor in "20.5"
        return re.search(rf"(?<![\d.]){re.escape(name)}(?![\d]|[.,]\d)", haystack) is not None
    if name in haystack:
        return True
    words = name.split()
    if len(words) < 2:
        return False
    words_of = tokens(haystack)

    def follows(start: int, rest: list[str]) -> bool:
        if not rest:
            return True
        return any(words_of[j] == rest[0] and follows(j, rest[1:])
                   for j in range(start + 1, min(start + 3, len(words_of))))

    return any(t == words[0] and follows(i, words[1:]) for i, t in enumerate(words_of))


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


_CHECKS: OrderedDict[tuple, tuple[AnswerCheck, ...]] = OrderedDict()
_CHECKS_LOCK = threading.Lock()
"""`_answer_checks` by (need, query, earlier turns, answer, evidence): query satisfaction, usefulness and firstness
read the same checks of one response (each dimension gets a context of its own)."""


async def _answer_checks(ctx: Context) -> list[AnswerCheck]:
    key = (ctx.need, ctx.item.query, tuple((t.role, t.content) for t in ctx.item.history), ctx.parsed.answer or "",
           tuple((d.id, d.title, d.text, d.published) for d in ctx.item.evidence))
    with _CHECKS_LOCK:
        cached = _CHECKS.get(key)
        if cached is not None:
            _CHECKS.move_to_end(key)
            return [dataclasses.replace(c) for c in cached]
    checks = await _checked_answer(ctx)
    with _CHECKS_LOCK:
        _CHECKS[key] = tuple(dataclasses.replace(c) for c in checks)
        while len(_CHECKS) > 4096:
            _CHECKS.popitem(last=False)
    return checks


async def _checked_answer(ctx: Context) -> list[AnswerCheck]:
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
    kind_asked = asked_kind_of(ctx)
    said_before = [Evidence(id=f"turn-{i}", text=t.content) for i, t in enumerate(ctx.item.history)
                   if t.role == "assistant"]
    said_earlier = " ".join(t.content for t in ctx.item.history)
    # The answer's figures are read as the claim check reads them (`numbercheck.figures_read`): with the user's words and
    # what the answer works out elsewhere ("£60 + 5 × £40 = £260", then "Kestrel is cheaper at £260").
    asked = " ".join([ctx.item.query, *(t.content for t in ctx.item.history if t.role == "user")])
    worked = answer_worked(_answer_sentences(ctx), ctx.item.evidence, asked)
    asked_stems = stems(question)
    asked_names = salient_terms(question)
    weekdays = worked_weekdays(asked, " ".join(doc_text(d) for d in ctx.item.evidence))
    docs_by_id = ctx.item.evidence_by_id()
    parts = []
    for sentence in split_sentences(ctx.parsed.answer or ""):
        body = list_marker_removed(sentence)
        text = _plain(body)
        if not text or sentence.lstrip().startswith(">") or _HEADER_LINE.search(sentence):
            continue
        parts.append((body, text))
    checks: list[AnswerCheck] = []
    pending: list[tuple[int, list[str], set[str], float, set[str]]] = []
    # A comparison the answer says of the kind asked ("is cheaper") anywhere makes its other comparisons ("the train
    # is quicker") additions, not an answer to another question.
    compared = {text: other_comparison(ctx.item.query, text) for _, text in parts}
    answers_comparison = any(other is None and _VERDICT.search(text) for text, other in compared.items())
    for body, text in parts:
        # A sentence that cites nothing is checked against the evidence the answer selected, as the claim check
        # reads it (`sentence_evidence`): "Cholecalciferol is the answer." before the cited sentence it comes from.
        cited = [docs_by_id[i] for c in parse_citations(body) for i in c.ids if i in docs_by_id] or (
            [] if re.search(r"\[\s*Doc", body, re.IGNORECASE) else ctx.selected)
        chosen = chosen_alternative(question, text)
        added = numbers(text) - numbers(question)
        new = (set(stems(text)) - asked_stems) | added | chosen
        restated = restates_query(text, question) and not chosen
        # "It was founded in 1844." restates the question's words around the number it asks for: that is an answer,
        # but only where one cited sentence holds the number with those words ("1844 vendors sell there" is not).
        if restated and added:
            new = set(stems(text)) | added
        if keyword_list_share(text) == 1.0 or (restated and not added) or not new:
            checks.append(AnswerCheck(text, 0.0, "states nothing the question does not"))
            continue
        # "[Doc 1] covers Warsaw, but not this." says what the question is not answered by: whatever it names, it
        # names as what the sources cover instead.
        if scope_topic(text):
            checks.append(AnswerCheck(text, 0.0, "says what the sources cover instead of an answer"))
            continue
        # What the assistant already said in the session answered the earlier question, not this one ("As before:
        # Kusala died four days after the banquet" to "Where did Yesun Temur die?").
        if said_before and copies_evidence(copy_reading(text), said_before):
            checks.append(AnswerCheck(text, 0.0, "repeats what an earlier answer said"))
            continue
        if not cited:
            checks.append(AnswerCheck(text, 0.0, "cites no evidence"))
            continue
        cited_text = " ".join(dated_text(d) for d in cited)
        # Numbers as `salient_terms` gives them, without thousands separators ("3,390" is the answer's 3390).
        haystack = _THOUSANDS.sub("", cited_text.lower())
        # (a day of the week a span the evidence counts from the user's day ends on is worked out, not named:
        # `dates.worked_weekdays`)
        novel = sorted(t for t in salient_terms(text) - asked_names if not _name_in(t, haystack)
                       and t.removesuffix("s") not in weekdays)
        # A figure worked out of the cited evidence's is found where its operands are (below), not invented.
        unread = figures_read(text, cited, asked, worked).missing if any(t[:1].isdigit() for t in novel) else set()
        figured = {t for t in novel if t[:1].isdigit() and t not in unread}
        novel = [t for t in novel if t not in figured]
        if novel:
            checks.append(AnswerCheck(text, 0.0, f"names {', '.join(novel[:3])}, which its cited evidence does not"))
            continue
        missing = missing_kind(kind_asked, text, cited_text, said_earlier)
        if missing:
            checks.append(AnswerCheck(text, 0.0, f"the question asks for {missing}; the sentence gives none"))
            continue
        if compared[text] and not answers_comparison:
            checks.append(AnswerCheck(text, 0.0, f"compares what is {compared[text]}, which the question does not ask"))
            continue
        weight = COPY_CREDIT if copies_evidence(copy_reading(text), cited) else 1.0
        sentences = list(dict.fromkeys(s for d in cited for s in (d.title, *_evidence_sentences(d.text)) if s))
        checks.append(AnswerCheck(text, 0.0, ""))
        pending.append((len(checks) - 1, sentences, new, weight, figured))
    if pending:
        every = list(dict.fromkeys(s for _, sentences, _, _, _ in pending for s in sentences))
        vectors = await ctx.embedder.embed([question, *every])
        row = {s: i for i, s in enumerate(every, start=1)}
        for index, sentences, new, weight, figured in pending:
            overlap = np.array([lexical_coverage(question, s) for s in sentences], dtype=np.float32)
            probability = relevance.probability(vectors[0], vectors[[row[s] for s in sentences]], overlap)
            # A figure the sentence gives in a clause about something else than what the question asks ("1961" to
            # "When did the canal open?", where "opened in 1816 and was closed ... in 1961") is not found there.
            # ... a figure worked out of the evidence's is found in a sentence that gives one of the part's figures
            # (an operand: "£40 follow-ups" for "5 × £40 = £260")
            found = np.array([0.0 if _figure_of_another_clause(new, s, question) else
                              len(new & (stems(s) | numbers(s) | (figured if numbers(text) & numbers(s) else set())))
                              / min(len(new), 3) for s in sentences], dtype=np.float32)
            value = probability * np.minimum(found, 1.0)
            best = int(np.argmax(value))
            checks[index].answers = float(value[best]) * weight
            checks[index].reason = (f"found in a cited sentence answering the question (relevance "
                                    f"{probability[best]:.2f}, {min(found[best], 1.0):.0%} of its new words)")
    return checks


async def query_satisfaction(ctx: Context) -> tuple[float, str]:
    """Whether the answer answers the user's question, read with the session's earlier turn: the best answer
    sentence's `_answer_checks` score (it states something the question asks for, and the evidence it cites holds it
    in a sentence that answers the question). Topic alone earns nothing: repeating the question's words, or answering
    a neighbouring question from evidence on the same topic (taxis when asked about the tram), does not answer it.
    An answer that says the evidence cannot answer addresses the question when it is about it: half its topic (its
    opening's similarity to the need, the query's names present), or what it does answer where that is more. A
    decline never adds to what the answer beside it answers: a disclaimer in front of an answer ("The sources do not
    state this directly, but ...") scores no more than that answer would alone, or than a bare decline. Whether
    declining was right is `no_supply_reject`'s to judge, not this dimension's."""
    checks = await _answer_checks(ctx)
    best = max(checks, key=lambda c: c.answers, default=None)
    answered = best.answers if best else 0.0
    answer_note = f"answers the question {answered:.2f}" + (f" ({best.reason})" if best and best.reason else "")
    if not ctx.rule("refusal.detect").findings["refusal"]:
        return answered, answer_note
    # (What it says the sources cover instead, "[Doc 1] covers Warsaw, but not this.", is about its topic too.)
    sentences = [cleaned or (text if kind == "scope" else None)
                 for (text, cleaned), (_, kind) in zip(_substantive(ctx), _answer_parts(ctx), strict=True)]
    sentences = [s for s in sentences if s]
    if not sentences:
        return answered, f"declines, restating nothing of the question; {answer_note}"
    similarity = float((await ctx.similarity([ctx.need], [" ".join(sentences[:3])]))[0, 0])
    names = {t for t in salient_terms(ctx.item.query) if not t.isdigit()}
    lowered = " ".join(sentences).lower()
    coverage = names_in(names, lowered) / len(names) if names else 1.0
    topical = clip((similarity - 0.2) / 0.4) * 0.6 + coverage * 0.4
    return max(0.5 * topical, answered), \
        f"declines: similarity {similarity:.2f}, query names covered {coverage:.0%}; {answer_note}"


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
    # A declining answer's sentence saying the sources do not answer is about the whole question, whatever its words.
    parts = _substantive(ctx)
    said = [c for (_, c), d in zip(parts, _declining(ctx, [t for t, _ in parts]), strict=True) if c and not d]
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


def _declining(ctx: Context, sentences: list[str]) -> list[bool]:
    """Which of the answer's sentences say the sources do not answer, in an answer the refusal rule reads as
    declining (in any other answer, none)."""
    if not ctx.rule("refusal.detect").findings["refusal"]:
        return [False] * len(sentences)
    return [declines(s) for s in sentences]


_FIGURE_CLAUSE = re.compile(r"\s*[;,]\s*|\s+(?:and|but|while|whereas|then|before|after|until)\s+", re.IGNORECASE)


def _figure_of_another_clause(new: set[str], sentence: str, question: str) -> bool:
    """Whether the one figure an answer adds sits, in this evidence sentence, only in clauses that share fewer of the
    question's words than a clause holding another figure of its kind: the sentence gives it for something else than
    what is asked. Words every figure's clause shares (the sentence's subject) decide nothing.

    >>> s = "The Aldmoor Canal opened in 1816 and was closed to commercial traffic in 1961."
    >>> q = "In what year did the Aldmoor Canal open?"
    >>> _figure_of_another_clause({"1961"}, s, q), _figure_of_another_clause({"1816"}, s, q)
    (True, False)
    >>> _figure_of_another_clause({"1961"}, "It closed in 1961.", q)
    False
    >>> _figure_of_another_clause({"1945"}, "The Report, published in 1945, shaped education in the 20th century.",
    ...                           "In what year did Harvard release a document about education?")
    False
    >>> _figure_of_another_clause({"7000"}, "In 2000 the town had 5,000 people, and by 2010 it had 7,000.",
    ...                           "How many people lived there in 2010?")
    False
    >>> _figure_of_another_clause({"100"}, "Laptops cap charging at 80% to extend battery life; turning the limit off "
    ...                           "lets it charge to 100%.", "My laptop stops charging at 80%, how do I fix it?")
    False
    """
    figures = {n for n in new if any(ch.isdigit() for ch in n)}
    if len(figures) != 1:
        return False  # one figure, as a terse answer or a one-fact claim gives it; several bind to nothing alone
    # Only figures of the answer's kind compete: years with years ("the 20th century" is no rival of 1945).
    years = all(_YEAR.fullmatch(n) for n in figures)
    # (a clause is matched by its words and by figures the question names: "by 2010 it had 7,000" to "How many lived
    # there in 2010?")
    # (a figure the question itself names is its premise, no rival answer: "stops charging at 80%")
    named = numbers(question)
    clauses = [({n for n in numbers(c) - (named - figures) if bool(_YEAR.fullmatch(n)) == years}, stems(c) | numbers(c))
               for c in _FIGURE_CLAUSE.split(sentence) if c]
    ours = [words for found, words in clauses if found & figures]
    others = [words for found, words in clauses if found and not found & figures]
    if not ours or not others:
        return False
    asked = (stems(question) | named) - figures
    shared = frozenset.intersection(*ours, *others)
    return max(len((words - shared) & asked) for words in others) > max(len((words - shared) & asked) for words in ours)


def _copy_weights(ctx: Context) -> list[float]:
    """Per answer sentence (as `_substantive` lists them): 0.5 for a sentence copied from the evidence, which is
    content a user can use but not the answer's own work, else 1."""
    return [COPY_CREDIT if kind == "copy" else 1.0 for _, kind in _answer_parts(ctx)]


COPY_CREDIT = 0.5
