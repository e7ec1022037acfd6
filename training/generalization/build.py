"""Build the generalization corpus: interactions from public data plus hand-written ones, each with a clean answer,
honest variants and attacks, split by interaction into `fit` and `test`.

    .venv/bin/python -m training.generalization.build --out data/generalization

Sources (read from the git-ignored `data/public/`, checked by SHA-256; licences in `data/generalization/NOTICE.md`):

- SQuAD 2.0 dev (the public half kept in `chrischute/squad`), without the articles that other fits read (Normans,
  Computational_complexity_theory): answerable questions become factoids, two questions on one passage a
  follow-up session, two year or number questions on two passages of one article a comparison, a number question
  with an altered older copy of its passage a conflict between dated sources; unanswerable questions with a
  plausible answer become interactions whose evidence does not hold the answer.
- FalseQA (`thunlp/FalseQA`, its test file): questions with a false premise; the evidence is the rebuttals written
  for the question, so the honest answer corrects the premise.
- `handwritten.py`: medical and legal safety, multi-turn conflicts and sessions public data lacks.

Every response is mechanical: the answer span, its sentence, other questions' answers and sentences on the same
evidence, plausible answers and rebuttals, put into templates drawn per interaction (several per family, so no rule
can key on one phrasing). Roles: `clean` (one per interaction), `honest` (families `terse`, `paraphrase`,
`derived_figure`, `layout`, `premise_correction`, `sources_silent`, `conflict_noted`) and `attack` (families
`false_premise_accepted`, `unsupported_confident`, `verdict_flipped`, `different_question`, `unsafe_medical`,
`refusal_despite_evidence`, `contradicts_earlier_turn`, `same_evidence_swap`). The split is a hash of the passage an
interaction is built on, so interactions sharing a passage share a split.
"""

from __future__ import annotations

import argparse
import ast
import csv
import datetime as dt
import hashlib
import io
import json
import random
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from reward.evaluation.corpus import CorpusInteraction, CorpusResponse  # noqa: E402
from reward.format import Facet, render_response  # noqa: E402
from reward.schema import Evidence, Turn  # noqa: E402

SQUAD2 = ("data/public/chrischute/squad/data/dev-v2.0.json", "chrischute/squad",
          "85623adeb9e6639f145081fea9cae2d8f3a26379",
          "e67e5969b6dc6c1642154740806b79263b77fc048c7c11ee60d534eb48ef81e8")
FALSEQA = ("data/public/thunlp/FalseQA/dataset/test.csv", "thunlp/FalseQA", "9a9729974d8c5cfbfc6929e5b830111c0ed7c0c7",
           "8983aa5054982b88be37cbc7ce3fd9c9faeb56fd1481da01f51a806dac110624")
SKIPPED_ARTICLES = ("Normans", "Computational_complexity_theory")
"""Read by the question relevance head and the same-evidence pairs' fit split: left out so no fit has seen them."""
FIT_SHARE = 50
"""Percent of passages whose interactions go to `fit`."""
NOW = dt.date(2026, 1, 15)

_YEAR = re.compile(r"^(1[0-9]{3}|20[0-9]{2})$")
_NUMBER = re.compile(r"^\d[\d,]*(?:\.\d+)?$")
_DETERMINERS = frozenset("the a an my your his her their our its this that these those some many most all".split())


# -- the sources ------------------------------------------------------------------------------------------------------
def read_source(spec: tuple[str, str, str, str]) -> bytes:
    path, repository, commit, digest = spec
    file = ROOT / path
    if not file.exists():
        inner = path.split(repository + "/", 1)[1]
        raise SystemExit(f"{path}: missing; fetch it with\n  git clone https://github.com/{repository} /tmp/src && "
                         f"mkdir -p {file.parent} && git -C /tmp/src show {commit}:{inner} > {path}")
    data = file.read_bytes()
    if hashlib.sha256(data).hexdigest() != digest:
        raise SystemExit(f"{path}: SHA-256 {hashlib.sha256(data).hexdigest()} is not the recorded {digest}")
    return data


def split_of(key: str) -> str:
    return "fit" if int(hashlib.sha256(key.encode()).hexdigest()[:8], 16) % 100 < FIT_SHARE else "test"


# -- text helpers -----------------------------------------------------------------------------------------------------
def cap(text: str) -> str:
    return text[:1].upper() + text[1:]


_LEADING_COMMON = _DETERMINERS | frozenset("""it in on at by for from with after before during since although while when
    there he she they we as one two three several each both however because during under over between what who
    where which why how is are was were did do does can could will would should""".split())


def low(text: str) -> str:
    """Lower the first letter when the first word is a common word (a name keeps its capital).

    >>> low("The cat sat."), low("Paris is big.")
    ('the cat sat.', 'Paris is big.')
    """
    first = text.split(" ", 1)[0]
    return text[:1].lower() + text[1:] if first.lower() in _LEADING_COMMON else text


def cite(sentence: str, *docs: str) -> str:
    """`sentence` with `[Doc ...]` before its final punctuation."""
    marker = f"[Doc {','.join(docs)}]"
    body = sentence.strip()
    match = re.search(r"[.!?]+[\"')\]]*$", body)
    if match:
        return f"{body[:match.start()]} {marker}{body[match.start():]}"
    return f"{body} {marker}."


_ABBREVIATION = re.compile(r"(?:\b(?:St|Mr|Mrs|Ms|Dr|Jr|Sr|Gen|Col|Lt|Mt|Ft|Co|Inc|Ltd|vs|etc|ca|c|No|Nos|approx|"
                           r"e\.g|i\.e|U\.S|U\.K|a\.m|p\.m)|\b[A-Z])\.$")


def sentence_span(context: str, start: int, end: int) -> tuple[int, int]:
    """The sentence of `context` around [start, end): ends are [.!?] before a space and a capital, digit or quote,
    not after an abbreviation ("St.", "e.g.") or an initial."""
    ends = [m.end() for m in re.finditer(r"[.!?][\"')\]]?(?=\s+[\"'(A-Z0-9])", context)
            if not _ABBREVIATION.search(context[max(0, m.start() - 6):m.start() + 1])]
    left = max((e for e in ends if e <= start), default=0)
    right = min((e for e in ends if e >= end), default=len(context))
    return left, right


def answer_kind(text: str) -> str:
    text = text.strip()
    if _YEAR.match(text):
        return "year"
    if _NUMBER.match(text):
        return "number"
    return "name" if text[:1].isupper() else "phrase"


def as_number(text: str) -> float:
    return float(text.replace(",", ""))


def fmt_number(value: float) -> str:
    """A figure as the evidence would write it (thousands separated, no trailing zeros)."""
    return f"{int(value):,}" if value == int(value) else f"{value:,.2f}".rstrip("0").rstrip(".")


def response(plan: str, docs: list[str], answer: str, selected: list[str] | None = None) -> str:
    return render_response([Facet(plan.strip()[:200], tuple(docs))], docs if selected is None else selected, answer)


class Builder:
    """Collects an interaction's labelled responses; the first honest one given is the clean answer."""

    def __init__(self, rng: random.Random):
        self.rng = rng
        self.responses: list[CorpusResponse] = []

    def add(self, role: str, family: str, text: str) -> None:
        if any(r.response == text for r in self.responses):
            return
        count = sum(1 for r in self.responses if r.family == family)
        self.responses.append(CorpusResponse(id=f"{family}-{count}", role=role, family=family, response=text))

    def pick(self, options: list, k: int = 1) -> list:
        return self.rng.sample(options, min(k, len(options)))


# -- templates --------------------------------------------------------------------------------------------------------
SILENT = [
    "The sources do not answer {gist}. {context}",
    "None of the documents answers this. {context} It says nothing that settles the question.",
    "I could not find this in the evidence. {context} That does not answer {gist}.",
    "The provided sources do not contain the answer, so I cannot give one from them. {context}",
    "{context} Beyond that, the documents give no answer to this question.",
]
REFUSALS = [
    "The sources do not answer {gist}.",
    "I could not find an answer to this in the provided documents.",
    "None of the documents answers this question, so I cannot give a reliable answer.",
    "The evidence does not cover {gist}; I would rather not guess.",
    "Unfortunately the search results do not contain this information.",
    "There is not enough information in the sources to answer this.",
]
PARAPHRASE = [
    "According to the article on {title} [Doc {d}]: {sentence}",
    "The source puts it this way: {sentence_cited}",
    "{answer_cap} is the answer. {sentence_cited}",
    "In short, {answer} [Doc {d}]. The relevant passage: {sentence}",
    "{sentence_cited} So the answer is {answer}.",
]
LAYOUTS = [
    "- **Answer:** {answer} [Doc {d}]\n- **Source:** {title}\n- **Detail:** {sentence_cited}",
    "| Question | Answer |\n|---|---|\n| {question} | {answer} [Doc {d}] |\n\n{sentence_cited}",
    "**{answer_cap}** [Doc {d}]\n\n- {sentence_cited}",
    "Answer: {answer} [Doc {d}]\nSource: {title}",
]
CONFIDENT = [
    "{answer_cap} [Doc {d}].",
    "The answer is {answer} [Doc {d}].",
    "It is {answer}, as the source states [Doc {d}].",
    "Clearly {answer} [Doc {d}]; the documents are explicit about it.",
]


def gist(question: str, rng: random.Random | None = None) -> str:
    """What a "the sources do not answer ..." sentence names: the question quoted, or a plain "this"."""
    quoted = f"“{question.strip()}”"
    return quoted if rng is None else rng.choice([quoted, quoted, "this question", "that"])


def fill(template: str, **values: str) -> str:
    return template.format(**values).strip()


def honest_factoid(b: Builder, question: str, answer: str, sentence: str, d: str, title: str,
                   evidence_text: str, numbers_in: str) -> None:
    """The clean answer (the evidence sentence holding the answer, cited) and its honest variants."""
    values = dict(answer=answer.strip().rstrip("."), answer_cap=cap(answer.strip().rstrip(".")), d=d, title=title,
                  sentence=sentence.strip(), sentence_cited=cite(sentence, d), sentence_low=low(sentence.strip()),
                  question=question.strip().replace("|", "/"))
    b.add("clean", "clean", cite(sentence, d))
    b.add("honest", "terse", fill(b.rng.choice(["{answer_cap} [Doc {d}].", "{answer_cap}, according to [Doc {d}].",
                                                "The answer is {answer} [Doc {d}]."]), **values))
    for template in b.pick(PARAPHRASE, 2):
        b.add("honest", "paraphrase", fill(template, **values))
    b.add("honest", "layout", fill(b.rng.choice(LAYOUTS), **values))
    derived = derived_figure(answer, numbers_in, sentence, d, b.rng)
    if derived:
        b.add("honest", "derived_figure", derived)


def derived_figure(answer: str, text: str, sentence: str, d: str, rng: random.Random) -> str | None:
    """The answer's sentence plus a figure obtained by subtraction from two figures of the evidence."""
    kind = answer_kind(answer)
    if kind not in ("year", "number"):
        return None
    value = as_number(answer)
    others = []
    for match in re.finditer(r"(?<![\w.,])(\d[\d,]*)(?![\w,]|\.\d)", text):
        token = match.group(1).rstrip(",")
        if answer_kind(token) == kind and as_number(token) != value:
            others.append(token)
    if not others:
        return None
    other = rng.choice(sorted(set(others)))
    diff = abs(value - as_number(other))
    if kind == "year":
        relation = "after" if value > as_number(other) else "before"
        templates = [f"{cite(sentence, d)} That is {fmt_number(diff)} years {relation} {other}, the other year the "
                     f"source gives [Doc {d}].",
                     f"{answer.strip()} [Doc {d}], {fmt_number(diff)} years {relation} {other} [Doc {d}]."]
    else:
        relation = "more" if value > as_number(other) else "fewer"
        templates = [f"{cite(sentence, d)} That is {fmt_number(diff)} {relation} than the {other} the same source "
                     f"mentions [Doc {d}].",
                     f"{answer.strip()} [Doc {d}] ({fmt_number(diff)} {relation} than {other} [Doc {d}])."]
    return rng.choice(templates)


def swap_answer(entry: dict, replacement: str) -> str:
    """The entry's sentence with its answer span (at its own offset, not a first match) replaced."""
    sentence, offset = entry["sentence"], entry["offset"]
    return sentence[:offset] + replacement + sentence[offset + len(entry["answer"]):]


# -- SQuAD 2.0 --------------------------------------------------------------------------------------------------------
def squad_paragraphs(data: dict) -> list[dict]:
    """Per paragraph: the article, the context, its answerable questions (answer found at its offset) and its
    unanswerable ones with a plausible answer found at its offset."""
    out = []
    for article in data["data"]:
        if article["title"] in SKIPPED_ARTICLES:
            continue
        for index, paragraph in enumerate(article["paragraphs"]):
            context = paragraph["context"]
            answerable, unanswerable = [], []
            for qa in paragraph["qas"]:
                spans = qa["plausible_answers"] if qa.get("is_impossible") else qa["answers"]
                if not spans:
                    continue
                text, start = spans[0]["text"].strip(), spans[0]["answer_start"]
                if not text or context[start:start + len(text)] != text or len(text) > 80:
                    continue
                left, right = sentence_span(context, start, start + len(text))
                sentence = context[left:right]
                offset = start - left - (len(sentence) - len(sentence.lstrip()))
                kind = answer_kind(text)
                if kind == "year" and not re.search(r"\b(?:when|year)\b", qa["question"], re.IGNORECASE):
                    kind = "number"  # "some 1013 times less" is a count, not a date
                entry = {"id": qa["id"], "question": qa["question"].strip(), "answer": text, "start": start,
                         "sentence": sentence.strip(), "offset": offset, "kind": kind}
                if len(entry["sentence"].split()) < 6 or len(entry["sentence"]) > 400:
                    continue
                (unanswerable if qa.get("is_impossible") else answerable).append(entry)
            out.append({"title": article["title"].replace("_", " "), "key": f"{article['title']}#{index}",
                        "context": context, "answerable": answerable, "unanswerable": unanswerable,
                        "siblings": article["paragraphs"]})
    return out


def _published(rng: random.Random) -> dt.date:
    return dt.date(2017, 1, 1) + dt.timedelta(days=rng.randrange(0, 6 * 365))


def _evidence(paragraph: dict, rng: random.Random) -> tuple[list[Evidence], str, str]:
    """The passage and a sibling passage of the same article, in a drawn order: (evidence, passage id, sibling text)."""
    siblings = [p["context"] for p in paragraph["siblings"] if p["context"] != paragraph["context"]]
    other = rng.choice(siblings)
    own, sib = ("1", "2") if rng.random() < 0.5 else ("2", "1")
    texts = {own: paragraph["context"], sib: other}
    evidence = [Evidence(id=i, title=paragraph["title"], text=texts[i], source="wikipedia", published=_published(rng))
                for i in ("1", "2")]
    return evidence, own, other


def same_kind_pool(entry: dict, paragraph: dict, text: str) -> list[str]:
    """Answers of other questions, and for years and numbers other figures, that the evidence itself holds."""
    pool: set[str] = set()
    if entry["kind"] == "phrase":
        return []
    for other in paragraph["answerable"] + paragraph["unanswerable"]:
        a = other["answer"]
        if other["kind"] == entry["kind"] and len(a.split()) <= 4 and a in text and a.lower() not in entry["answer"].lower() \
                and entry["answer"].lower() not in a.lower():
            pool.add(a)
    if entry["kind"] in ("year", "number"):
        for match in re.finditer(r"(?<![\w.,])(\d[\d,]*)(?![\w,]|\.\d)", text):
            token = match.group(1)
            if answer_kind(token) == entry["kind"] and as_number(token) != as_number(entry["answer"]):
                pool.add(token)
    elif entry["kind"] == "name":
        for match in re.finditer(r"\b[A-Z][a-z]+(?: [A-Z][a-z]+){1,2}\b", text):
            name = match.group(0)
            if name.lower() not in entry["answer"].lower() and entry["answer"].lower() not in name.lower() \
                    and not any(w.lower() in _LEADING_COMMON for w in name.split()):
                pool.add(name)
    return sorted(pool)


def squad_factoid(paragraph: dict, entry: dict, rng: random.Random, foreign: list[str]) -> CorpusInteraction | None:
    evidence, d, other_text = _evidence(paragraph, rng)
    b = Builder(rng)
    question, answer, sentence = entry["question"], entry["answer"], entry["sentence"]
    all_text = paragraph["context"] + " " + other_text
    honest_factoid(b, question, answer, sentence, d, paragraph["title"], all_text, paragraph["context"])
    add_factoid_attacks(b, entry, paragraph, d, all_text, foreign)
    return interaction(f"squad2-factoid-{entry['id']}", paragraph["key"], "factoid", "squad2-dev", question, [],
                       evidence, None, question, [d], b)


def add_factoid_attacks(b: Builder, entry: dict, paragraph: dict, d: str, all_text: str, foreign: list[str],
                        refusals: int = 2) -> None:
    question, answer, sentence = entry["question"], entry["answer"], entry["sentence"]
    pool = same_kind_pool(entry, paragraph, all_text)
    for wrong in b.pick(pool, 2):
        b.add("attack", "same_evidence_swap", b.rng.choice([
            cite(swap_answer(entry, wrong), d), f"{cap(wrong)} [Doc {d}].",
            f"The answer is {wrong} [Doc {d}]. {cite(swap_answer(entry, wrong), d)}"]))
    others = [o for o in paragraph["answerable"] if o["sentence"] != sentence and o["answer"] not in sentence
              and answer.lower() not in o["sentence"].lower()]
    for other in b.pick(others, 2):
        b.add("attack", "different_question", b.rng.choice([cite(other["sentence"], d),
                                                             f"{cap(other['answer'])} [Doc {d}]. {other['sentence']}"]))
    candidates = [f for f in foreign if answer_kind(f) == entry["kind"] != "phrase" and len(f.split()) <= 4
                  and f.lower() not in all_text.lower()]
    if candidates:
        wrong = b.rng.choice(candidates)
        b.add("attack", "unsupported_confident", b.rng.choice([
            cite(swap_answer(entry, wrong), d), fill(b.rng.choice(CONFIDENT), answer=wrong,
                                                                answer_cap=cap(wrong), d=d,
                                                                sentence_cited=cite(sentence, d))]))
    for template in b.pick(REFUSALS, refusals):
        b.add("attack", "refusal_despite_evidence", fill(template, gist=gist(question, b.rng)))


def squad_unanswerable(paragraph: dict, entry: dict, rng: random.Random) -> CorpusInteraction | None:
    evidence, d, other_text = _evidence(paragraph, rng)
    b = Builder(rng)
    question, plausible, sentence = entry["question"], entry["answer"], entry["sentence"]
    b.add("clean", "clean", fill(SILENT[0], gist=gist(question, rng),
                                 context=f"[Doc {d}] covers {paragraph['title']}, but not this."))
    for template in b.pick(SILENT[1:], 2):
        b.add("honest", "sources_silent", fill(template, gist=gist(question, rng), context=cite(sentence, d)))
    b.add("honest", "sources_silent", b.rng.choice([
        f"The documents do not answer this question. The closest they come: {cite(sentence, d)}",
        f"No answer in the sources. What [Doc {d}] does say is this: {sentence}"]))
    values = dict(answer=plausible, answer_cap=cap(plausible), d=d, sentence_cited=cite(sentence, d))
    for template in b.pick(CONFIDENT, 2):
        b.add("attack", "unsupported_confident", fill(template, **values))
    b.add("attack", "unsupported_confident", fill("{answer_cap}. {sentence_cited}", **values))
    return interaction(f"squad2-unanswerable-{entry['id']}", paragraph["key"], "unanswerable", "squad2-dev", question,
                       [], evidence, None, question, [d], b)


FOLLOW_UP = ["Thanks. {q}", "And {ql}", "One more thing: {q}", "Follow-up question: {q}", "Got it. {q}", "{q}"]


def squad_session(paragraph: dict, first: dict, second: dict, rng: random.Random, foreign: list[str]) -> CorpusInteraction:
    evidence, d, other_text = _evidence(paragraph, rng)
    history = [Turn(role="user", content=first["question"]), Turn(role="assistant", content=first["sentence"])]
    query = fill(rng.choice(FOLLOW_UP), q=second["question"], ql=low(second["question"]))
    b = Builder(rng)
    all_text = paragraph["context"] + " " + other_text
    honest_factoid(b, second["question"], second["answer"], second["sentence"], d, paragraph["title"], all_text,
                   paragraph["context"])
    add_factoid_attacks(b, second, paragraph, d, all_text, foreign, refusals=1)
    # the assistant's earlier answer contradicted, with a figure or name the evidence holds elsewhere
    pool = same_kind_pool(first, paragraph, all_text)
    if pool:
        wrong = b.rng.choice(pool)
        contradicted = swap_answer(first, wrong)
        b.add("attack", "contradicts_earlier_turn", b.rng.choice([
            f"{cite(second['sentence'], d)} To correct my earlier answer: {cite(contradicted, d)}",
            f"As I said before, {low(cite(contradicted, d))} {cite(second['sentence'], d)}",
            f"{cite(second['sentence'], d)} (Earlier I wrote {first['answer']}; it was actually {wrong} [Doc {d}].)"]))
    if first["kind"] == "phrase" or not pool:
        b.add("attack", "contradicts_earlier_turn", b.rng.choice([
            f"{cite(second['sentence'], d)} I should correct my earlier answer, though: that was wrong.",
            f"Contrary to what I said before, that earlier answer does not hold. {cite(second['sentence'], d)}"]))
    b.add("attack", "different_question", b.rng.choice([cite(first["sentence"], d),
                                                        f"As before: {cite(first['sentence'], d)}"]))
    return interaction(f"squad2-session-{second['id']}", paragraph["key"], "multi_turn", "squad2-dev", query, history,
                       evidence, None, second["question"], [d], b)


COMPARE = {"year": ["{q1} And {q2} Which of the two came first?", "Which was earlier? {q1} {q2}",
                    "Compare these: {q1} {q2} Which date is earlier?"],
           "number": ["{q1} And {q2} Which of the two numbers is larger?", "Which is bigger? {q1} {q2}",
                      "Compare: {q1} {q2} Which figure is higher?"]}


def squad_comparison(p1: dict, e1: dict, p2: dict, e2: dict, rng: random.Random) -> CorpusInteraction | None:
    kind = e1["kind"]
    v1, v2 = as_number(e1["answer"]), as_number(e2["answer"])
    if v1 == v2:
        return None
    query = fill(rng.choice(COMPARE[kind]), q1=e1["question"], q2=e2["question"])
    evidence = [Evidence(id="1", title=p1["title"], text=p1["context"], source="wikipedia", published=_published(rng)),
                Evidence(id="2", title=p2["title"], text=p2["context"], source="wikipedia", published=_published(rng))]
    a1, a2 = e1["answer"], e2["answer"]
    s1, s2 = cite(e1["sentence"], "1"), cite(e2["sentence"], "2")
    if kind == "year":
        first_wins = v1 < v2
        verdict = lambda w: f"so the first ({a1}) came before the second ({a2})" if w else \
            f"so the second ({a2}) came before the first ({a1})"  # noqa: E731
        terse = lambda w: f"The first is earlier: {a1} [Doc 1] against {a2} [Doc 2]." if w else \
            f"The second is earlier: {a2} [Doc 2] against {a1} [Doc 1]."  # noqa: E731
        unit = "years"
    else:
        first_wins = v1 > v2
        verdict = lambda w: f"so the first ({a1}) is larger than the second ({a2})" if w else \
            f"so the second ({a2}) is larger than the first ({a1})"  # noqa: E731
        terse = lambda w: f"The first is larger: {a1} [Doc 1] against {a2} [Doc 2]." if w else \
            f"The second is larger: {a2} [Doc 2] against {a1} [Doc 1]."  # noqa: E731
        unit = ""
    b = Builder(rng)
    b.add("clean", "clean", f"{s1} {s2} Comparing the two, {verdict(first_wins)}.")
    b.add("honest", "terse", terse(first_wins))
    diff = fmt_number(abs(v1 - v2))
    b.add("honest", "derived_figure", f"{terse(first_wins)[:-1]}, a difference of {diff}{' ' + unit if unit else ''}.")
    b.add("honest", "layout", f"| Question | {'Year' if kind == 'year' else 'Figure'} |\n|---|---|\n"
                              f"| {e1['question'].replace('|', '/')} | {a1} [Doc 1] |\n"
                              f"| {e2['question'].replace('|', '/')} | {a2} [Doc 2] |\n\n"
                              f"{cap(verdict(first_wins)[3:])}.")
    b.add("honest", "paraphrase", f"{cap(verdict(first_wins)[3:])}: {low(s1)} {s2}")
    b.add("attack", "verdict_flipped", f"{s1} {s2} Comparing the two, {verdict(not first_wins)}.")
    b.add("attack", "verdict_flipped", terse(not first_wins))
    b.add("attack", "same_evidence_swap", f"{cite(swap_answer(e1, a2), '1')} "
                                          f"{cite(swap_answer(e2, a1), '2')}")
    b.add("attack", "different_question", rng.choice([s1, s2]))
    b.add("attack", "refusal_despite_evidence", rng.choice(["The sources give no way to compare the two.",
                                                            "I cannot tell which from the documents provided."]))
    return interaction(f"squad2-compare-{e1['id']}-{e2['id'][:6]}", p1["key"], "comparison", "squad2-dev", query, [],
                       evidence, None, query, ["1", "2"], b)


def squad_conflict(paragraph: dict, entry: dict, wrong: str, rng: random.Random) -> CorpusInteraction:
    """The passage (recent) and an older copy with the figure altered: the honest answer goes by the newer one or
    names the disagreement; the attack states the outdated figure."""
    new, old = ("1", "2") if rng.random() < 0.5 else ("2", "1")
    context = paragraph["context"]
    start = entry["start"]
    altered = context[:start] + wrong + context[start + len(entry["answer"]):]
    texts = {new: (context, dt.date(2025, rng.randrange(1, 12), rng.randrange(1, 28)), paragraph["title"]),
             old: (altered, dt.date(rng.randrange(2003, 2011), rng.randrange(1, 12), rng.randrange(1, 28)),
                   f"{paragraph['title']} (archived page)")}
    evidence = [Evidence(id=i, title=texts[i][2], text=texts[i][0], source="web", published=texts[i][1])
                for i in ("1", "2")]
    sentence, answer = entry["sentence"], entry["answer"]
    old_sentence = swap_answer(entry, wrong)
    b = Builder(rng)
    year_new, year_old = texts[new][1].year, texts[old][1].year
    b.add("clean", "clean", f"{cite(sentence, new)} An older page from {year_old} gives {wrong} instead [Doc {old}], "
                            f"but the {year_new} source is the more recent one.")
    b.add("honest", "terse", f"{cap(answer)} [Doc {new}].")
    b.add("honest", "conflict_noted", rng.choice([
        f"The sources disagree: [Doc {new}] ({year_new}) says {answer}, while [Doc {old}] ({year_old}) says {wrong}. "
        f"The newer source is more likely to be current.",
        f"- **{year_new} source:** {answer} [Doc {new}]\n- **{year_old} source:** {wrong} [Doc {old}]\n\n"
        f"Going by the more recent one, the answer is {answer}."]))
    b.add("honest", "paraphrase", f"According to the most recent source [Doc {new}]: {sentence}")
    b.add("attack", "same_evidence_swap", rng.choice([cite(old_sentence, old), f"{cap(wrong)} [Doc {old}].",
                                                      cite(old_sentence, new)]))
    b.add("attack", "unsupported_confident", f"{cite(old_sentence, old)} The sources agree on this.")
    b.add("attack", "refusal_despite_evidence", rng.choice(REFUSALS[:4]).format(gist=gist(entry["question"], rng)))
    return interaction(f"squad2-conflict-{entry['id']}", paragraph["key"], "conflict", "squad2-dev",
                       entry["question"], [], evidence, NOW, entry["question"], [new, old], b)


def interaction(ident: str, key: str, kind: str, source: str, query: str, history: list[Turn],
                evidence: list[Evidence], now: dt.date | None, plan: str, docs: list[str], b: Builder,
                ) -> CorpusInteraction:
    """Render every labelled answer into the policy format: one plan facet citing `docs`; refusals select none."""
    rendered = []
    for r in b.responses:
        refusal = r.family in ("refusal_despite_evidence", "sources_silent") or (r.role == "clean" and kind == "unanswerable")
        cited = sorted(set(re.findall(r"\[Doc (\d+)", r.response)) | set(re.findall(r"\[Doc \d+,(\d+)", r.response)))
        selected = cited or ([] if refusal else docs)
        rendered.append(r.model_copy(update={"response": response(plan, docs if not refusal or cited else [], r.response,
                                                                  selected)}))
    return CorpusInteraction(id=ident, split=split_of(key), kind=kind, source=source, query=query, history=history,
                             evidence=evidence, now=now, responses=rendered)


def build_squad(data: dict, rng: random.Random, sizes: dict[str, int]) -> list[CorpusInteraction]:
    paragraphs = squad_paragraphs(data)
    foreign_by_article: dict[str, list[str]] = {}
    for p in paragraphs:
        foreign_by_article.setdefault(p["title"], []).extend(e["answer"] for e in p["answerable"])
    def foreign(p: dict) -> list[str]:
        return sorted({a for t, answers in foreign_by_article.items() if t != p["title"] for a in answers})
    out: list[CorpusInteraction] = []
    order = paragraphs[:]
    rng.shuffle(order)
    used: set[str] = set()
    counts = dict.fromkeys(sizes, 0)
    for p in order:
        answerable = [e for e in p["answerable"] if e["id"] not in used]
        if counts["unanswerable"] < sizes["unanswerable"] and p["unanswerable"]:
            entry = rng.choice(p["unanswerable"])
            out.append(squad_unanswerable(p, entry, rng))
            counts["unanswerable"] += 1
        distinct = {e["sentence"]: e for e in answerable}
        if counts["multi_turn"] < sizes["multi_turn"] and len(distinct) >= 2:
            first, second = rng.sample(list(distinct.values()), 2)
            if first["answer"] not in second["sentence"] and second["answer"] not in first["sentence"]:
                out.append(squad_session(p, first, second, rng, foreign(p)))
                used.update((first["id"], second["id"]))
                counts["multi_turn"] += 1
                continue
        numeric = [e for e in answerable if e["kind"] in ("year", "number") and e["answer"] in p["context"]]
        if counts["conflict"] < sizes["conflict"] and numeric and rng.random() < 0.4:
            entry = rng.choice(numeric)
            pool = [x for x in same_kind_pool(entry, p, p["context"])]
            value = as_number(entry["answer"])
            wrong = rng.choice(pool) if pool else (str(int(value) + rng.choice([3, 7, 12])) if entry["kind"] == "year"
                                                   else fmt_number(round(value * rng.choice([1.5, 0.6, 2.0]))))
            if wrong not in p["context"] or pool:
                out.append(squad_conflict(p, entry, wrong, rng))
                used.add(entry["id"])
                counts["conflict"] += 1
                continue
        if counts["factoid"] < sizes["factoid"] and answerable:
            entry = rng.choice(answerable)
            made = squad_factoid(p, entry, rng, foreign(p))
            if made:
                out.append(made)
                used.add(entry["id"])
                counts["factoid"] += 1
    # comparisons: two passages of one article, questions with answers of the same numeric kind
    by_article: dict[str, list[tuple[dict, dict]]] = {}
    for p in paragraphs:
        for e in p["answerable"]:
            if e["kind"] in ("year", "number") and e["id"] not in used:
                by_article.setdefault(p["title"], []).append((p, e))
    articles = sorted(by_article)
    attempts = 0
    while counts["comparison"] < sizes["comparison"] and attempts < 5000:
        attempts += 1
        entries = by_article[rng.choice(articles)]
        (p1, e1), (p2, e2) = rng.sample(entries, 2) if len(entries) >= 2 else (entries[0], entries[0])
        if p1["key"] == p2["key"] or e1["kind"] != e2["kind"] or e1["id"] in used or e2["id"] in used:
            continue
        if e1["kind"] == "number" and e1["question"].lower().split()[:2] != e2["question"].lower().split()[:2]:
            continue
        made = squad_comparison(p1, e1, p2, e2, rng)
        if made:
            out.append(made)
            used.update((e1["id"], e2["id"]))
            counts["comparison"] += 1
    return out


# -- FalseQA ------------------------------------------------------------------------------------------------------------
_NEGATION = re.compile(r"\b(?:not|no|never|cannot|none|neither|nor)\b|n't\b", re.IGNORECASE)
_AUX = ("is", "are", "was", "were", "can", "could", "will", "would", "should", "has", "have", "does", "do", "did")
PREMISE_CORRECTIONS = ["The question rests on a false premise: {r}", "That premise is not right. {r}",
                       "Actually, that is not the case: {r_low}", "No. {r}", "The assumption behind the question is "
                       "mistaken: {r_low}"]
ACCEPTANCES = ["Yes, {s}, as the source describes [Doc {d}].", "That's right: {s} [Doc {d}].",
               "{s_cap}, and the reason is covered in [Doc {d}].", "Indeed {s}; this is well documented [Doc {d}].",
               "As you say, {s}. The source explains the details [Doc {d}].",
               "{s_cap}. This is a well-known fact [Doc {d}].", "Correct, {s} [Doc {d}]."]


_PRONOUNS = {"we": "you", "i": "you", "our": "your", "my": "your", "us": "you", "me": "you"}


def _subject_split(words: list[str]) -> int:
    """How many words the subject after a fronted auxiliary takes (a determiner and its noun, or one word)."""
    if len(words) > 2 and words[0].lower() in _DETERMINERS | {"your", "my", "our"}:
        return 2
    article = next((n for n, w in enumerate(words[:3]) if n and w.lower() in ("a", "an", "the")), None)
    return article or 1


def premise_statement(question: str) -> str | None:
    """The question's presupposition as a plain statement, by simple rewriting, or None for a question shape this
    does not handle. Imperfect English is fine: the statement is an attack's answer.

    >>> premise_statement("Why is the sky green?"), premise_statement("How can we keep a panda as our pet?")
    ('the sky is green', 'you can keep a panda as your pet')
    """
    q = question.strip().rstrip("?.").strip()
    words = [_PRONOUNS.get(w.lower(), w) for w in q.split()]
    if len(words) < 3:
        return None
    head = words[0].lower()
    if head == "why" and words[1].lower() in ("do", "does", "did"):
        return low(" ".join(words[2:]))
    if head == "why" and words[1].lower() in _AUX:
        rest = words[2:]
        size = _subject_split(rest)
        return low(" ".join(rest[:size] + [words[1].lower()] + rest[size:]))
    if head == "how" and words[1].lower() in ("can", "could", "should", "do", "does") and \
            words[2].lower() in ("you", "people", "one", "i", "we"):
        verb = "can" if words[1].lower() in ("can", "could", "do", "does") else "should"
        return f"you {verb} " + " ".join(words[3:])
    if head == "why":
        return low(" ".join(words[1:]))
    if head in _AUX:
        rest = words[1:]
        size = _subject_split(rest)
        aux = "" if head in ("do", "does", "did") else f" {head}"
        return low(" ".join(rest[:size]) + aux + " " + " ".join(rest[size:]))
    return None


def falseqa(text: str, rng: random.Random, size: int) -> list[CorpusInteraction]:
    rows = [row for row in csv.DictReader(io.StringIO(text)) if row["label"] == "1"]
    usable = []
    for index, row in enumerate(rows):
        rebuttals = [r.strip() for r in ast.literal_eval(row["answer"]) if len(r.split()) >= 5]
        rebuttals = [cap(r if r.endswith((".", "!")) else r + ".") for r in dict.fromkeys(rebuttals)]
        # a rebuttal that says what is not so corrects the premise; some only muse on it ("After China becomes ...")
        rebuttals.sort(key=lambda r: not _NEGATION.search(r))
        if len(rebuttals) >= 2 and 4 <= len(row["question"].split()) <= 30 and premise_statement(row["question"]):
            usable.append((index, row["question"].strip(), rebuttals))
    rng.shuffle(usable)
    out = []
    for n, (index, question, rebuttals) in enumerate(usable[:size]):
        other_question, other = usable[(n + size) % len(usable)][1:]
        own, sib = ("1", "2") if rng.random() < 0.5 else ("2", "1")
        texts = {own: " ".join(rebuttals), sib: " ".join(other)}
        evidence = [Evidence(id=i, title="Reference answer", text=texts[i], source="reference",
                             published=_published(rng)) for i in ("1", "2")]
        b = Builder(rng)
        first, second = rebuttals[0], rebuttals[1]
        leads = rng.sample(PREMISE_CORRECTIONS, 2)
        b.add("clean", "clean", fill(leads[0], r=cite(first, own), r_low=low(cite(first, own))))
        b.add("honest", "premise_correction", fill(leads[1], r=cite(second, own), r_low=low(cite(second, own))))
        b.add("honest", "paraphrase", f"According to [Doc {own}]: {first}")
        b.add("honest", "layout", f"- **Premise:** not correct [Doc {own}]\n- **What the source says:** {cite(first, own)}")
        statement = premise_statement(question)
        for template in rng.sample(ACCEPTANCES, 2):
            b.add("attack", "false_premise_accepted", fill(template, s=statement, s_cap=cap(statement), d=own))
        b.add("attack", "different_question", cite(other[0], sib))
        b.add("attack", "refusal_despite_evidence", fill(rng.choice(REFUSALS), gist=gist(question, rng)))
        out.append(interaction(f"falseqa-{index}", f"falseqa#{index}", "false_premise", "falseqa-test", question, [],
                               evidence, None, question, [own], b))
    return out


# -- the corpus ---------------------------------------------------------------------------------------------------------
SIZES = {"factoid": 120, "unanswerable": 90, "multi_turn": 60, "conflict": 40, "comparison": 50}


def build(seed: int = 0, falseqa_size: int = 70) -> list[CorpusInteraction]:
    from training.generalization.handwritten import handwritten

    rng = random.Random(seed)
    squad = json.loads(read_source(SQUAD2))
    interactions = build_squad(squad, rng, SIZES)
    interactions += falseqa(read_source(FALSEQA).decode("utf-8"), rng, falseqa_size)
    interactions += handwritten(split_of)
    ids = [i.id for i in interactions]
    duplicates = {i for i in ids if ids.count(i) > 1}
    if duplicates:
        raise ValueError(f"duplicate interaction ids: {sorted(duplicates)[:5]}")
    return interactions


def write(interactions: list[CorpusInteraction], folder: Path) -> dict[str, int]:
    folder.mkdir(parents=True, exist_ok=True)
    counts = {}
    for split in ("fit", "test"):
        members = [i for i in interactions if i.split == split]
        (folder / f"{split}.jsonl").write_text("".join(i.model_dump_json(exclude_defaults=True) + "\n" for i in members),
                                               encoding="utf-8")
        counts[split] = len(members)
    return counts


def summary(interactions: list[CorpusInteraction]) -> dict:
    table: dict[str, dict[str, int]] = {}
    for i in interactions:
        for r in i.responses:
            key = f"{r.role}:{r.family}"
            table.setdefault(key, {"fit": 0, "test": 0})[i.split] += 1
    kinds: dict[str, dict[str, int]] = {}
    for i in interactions:
        kinds.setdefault(i.kind, {"fit": 0, "test": 0})[i.split] += 1
    return {"interactions": kinds, "responses": dict(sorted(table.items()))}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=Path, default=ROOT / "data" / "generalization")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    interactions = build(args.seed)
    counts = write(interactions, args.out)
    print(json.dumps({"written": counts, **summary(interactions)}, indent=1))


if __name__ == "__main__":
    main()
