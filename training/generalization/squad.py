"""SQuAD 2.0 interactions of the generalization corpus: factoids, unanswerable questions with a plausible answer,
follow-up sessions on one passage, comparisons across two passages and conflicts between a passage and an older
altered copy, each with its clean answer, honest variants and attacks built from the answer spans."""

from __future__ import annotations

import datetime as dt
import random
import re

from reward.evaluation.corpus import CorpusInteraction
from reward.schema import Evidence, Turn
from training.generalization.render import (CONFIDENT, LAYOUTS, PARAPHRASE, REFUSALS, SILENT, _LEADING_COMMON,
                                            Builder, answer_kind, as_number, cap, cite, fill, fmt_number, gist,
                                            interaction, low, published, sentence_span)

SKIPPED_ARTICLES = ("Normans", "Computational_complexity_theory")
"""Read by the question relevance head and the same-evidence pairs' fit split: left out so no fit has seen them."""
NOW = dt.date(2026, 1, 15)
_DETERMINERS = frozenset("the a an my your his her their our its this that these those some many most all".split())


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


def _evidence(paragraph: dict, rng: random.Random) -> tuple[list[Evidence], str, str]:
    """The passage and a sibling passage of the same article, in a drawn order: (evidence, passage id, sibling text)."""
    siblings = [p["context"] for p in paragraph["siblings"] if p["context"] != paragraph["context"]]
    other = rng.choice(siblings)
    own, sib = ("1", "2") if rng.random() < 0.5 else ("2", "1")
    texts = {own: paragraph["context"], sib: other}
    evidence = [Evidence(id=i, title=paragraph["title"], text=texts[i], source="wikipedia", published=published(rng))
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
    evidence = [Evidence(id="1", title=p1["title"], text=p1["context"], source="wikipedia", published=published(rng)),
                Evidence(id="2", title=p2["title"], text=p2["context"], source="wikipedia", published=published(rng))]
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
