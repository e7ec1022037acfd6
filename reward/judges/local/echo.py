"""What an answer repeats of the user's query: a sentence that restates it (`restates_query`), a bracketed aside of
nothing but its words (`query_asides_removed`), runs of its words stuffed in (`strip_query_echo`). Pure functions of
strings, cached by text: every rollout of a group is read against the same query."""

from __future__ import annotations

import re

from reward.judges.local.text import STOPWORDS, content_words, numbers, stem, stems
from reward.memo import by_content
from reward.textnorm import MIXED_IN

_ASKING = frozenset("asked ask asking question questions wondering wonder regarding want wants wanted know whether "
                    "answer here sure great happy help let look".split())


@by_content
def restates_query(sentence: str, query: str) -> bool:
    """A sentence that mostly repeats the query's words, in a restating frame or not, adds nothing (and games
    query-similarity checks).

    >>> restates_query("You asked: and for my 6-year-old daughter?", "And for my 6-year-old daughter?")
    True
    >>> restates_query("The sources do not answer: what park est close to Vistula street?", "What park is close to Vistula street?")
    True
    >>> restates_query("Keywords: individual, school, named, after.", "What individual is the school named after?")
    True
    """
    # another language's function words put in ("What park est close ...") are no words of the sentence's own, nor is
    # the label of a list of the question's words ("Keywords: individual, school, named")
    asked = set(content_words(query)) | _ASKING
    unlabelled = _LEADING_LABEL.sub("", sentence, count=1)
    listed = unlabelled != sentence and "," in unlabelled and len(content_words(unlabelled)) <= 6
    for text in (sentence, unlabelled) if listed else (sentence,):
        words = set(content_words(text)) - MIXED_IN
        if words and len(words & asked) / len(words) >= 0.8:
            return True
    return False


_LEADING_LABEL = re.compile(r"^\W*[A-Za-z][A-Za-z ]{0,24}:\s*")


_WORD = re.compile(r"[^\W_]+(?:['’-][^\W_]+)*")


_ASIDE = re.compile(r"\s*[(\[]([^()\[\]]{1,120})[)\]]")


@by_content
def query_asides_removed(text: str, query: str) -> str:
    """`text` without a bracketed aside of nothing but the query's words ("(Peach Egg, Graptopetalum)"): names
    dropped in, not content.

    >>> query_asides_removed("It is in Conservation mode (Lenovo).", "Why does my Lenovo stop at 80%?")
    'It is in Conservation mode.'
    >>> query_asides_removed("It costs €74 (about $80).", "Which pass is cheaper?")
    'It costs €74 (about $80).'
    >>> query_asides_removed("Give ibuprofen (not paracetamol).", "Ibuprofen or paracetamol?")
    'Give ibuprofen (not paracetamol).'

    An aside with a figure the query does not give is working of its own ("(10 ml at 120 mg per 5 ml)"):

    >>> query_asides_removed("That is 240 mg (10 ml at 120 mg per 5 ml).", "How much suspension (120 mg/5 ml)?")
    'That is 240 mg (10 ml at 120 mg per 5 ml).'
    """
    if not _ASIDE.search(text):  # (the common case: nothing to remove, and a long session's query is not read)
        return text
    return _asides_removed(text, stems(query), numbers(query))


_ASIDE_DENIAL = re.compile(r"\b(?:not|no|never|without|except|nor|cannot)\b|n't\b", re.IGNORECASE)


def _asides_removed(text: str, asked: frozenset[str], asked_numbers: set[str]) -> str:
    """An aside that denies ("(not Lenovo)") or gives a figure the query does not says something of its own and
    stays."""
    if not asked:
        return text
    return _ASIDE.sub(lambda m: "" if content_words(m.group(1)) and not _ASIDE_DENIAL.search(m.group(1)) and all(
        stem(w) in asked for w in content_words(m.group(1))) and numbers(m.group(1)) <= asked_numbers
        else m.group(0), text)


@by_content
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
    sentence = _asides_removed(sentence, asked, numbers(query))
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
