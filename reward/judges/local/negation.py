"""Negation readings of the local tier: what a sentence denies (`_negated_scope`), whether a claim denies what its
evidence sentence asserts (`negation_flip`) or denies what no evidence denies (`unfounded_denial`). Pure functions of
strings, cached by text where the same evidence is read for every rollout of a group.
"""

from __future__ import annotations

import functools
import re

from reward.format import strip_citations
from reward.judges.local.text import _CACHED_TEXT_CHARS, _CONTRAST_OF, STOPWORDS, stem, stems
from reward.memo import by_content

_NEGATION = re.compile(r"\b(?:not|never|cannot|no longer)\b|n't\b", re.IGNORECASE)
_PROHIBITION = frozenset({"avoid", "avoids", "avoided", "avoiding", "refrain"})
"""Verbs that forbid what follows them as a "do not" does: "Avoid hot water" says what "Do not use hot water" says."""


def _is_negation(word: str) -> bool:
    """A word that negates what follows it: not, never, cannot, a contraction in n't, or a prohibition ("avoid")."""
    return bool(_NEGATION.fullmatch(word)) or word.endswith("n't") or word in _PROHIBITION


_SCOPE_END = re.compile(r"[,;:.!?()]|\s-\s|\bbut\b|\bso\b", re.IGNORECASE)


def _negations(text: str):
    """(clause words, index of a negation) for every negation of the text, clause by clause (`_SCOPE_END`)."""
    for clause in _SCOPE_END.split(text.lower()):
        words = re.findall(r"[a-z']+", clause)
        for i, word in enumerate(words):
            if _is_negation(word) or word == "no":
                yield words, i


_FRAMES = (("true", "that"), ("the", "case", "that"), ("correct", "that"), ("accurate", "that"))
"""What a negation may wrap a whole statement in ("it is not true that X"): the negation applies to X."""
_FALSE_THAT = {"false", "untrue", "incorrect", "wrong"}


def _negated_phrases(words: list[str], users_figures: frozenset[str] = frozenset()) -> list[list[str]]:
    """The (up to 2) content words after each negation: the phrase the negation applies to. A negated frame ("not
    true that", "not the case that") or "false that" negates the statement that follows it.

    >>> _negated_phrases("it is not true that the free tier carries the full track".split())
    [['free', 'tier']]
    >>> _negated_phrases("it is false that the free tier carries ads".split())
    [['free', 'tier']]
    >>> _negated_phrases("the penalty is 50 not the 70 charged for double yellows".split())
    []
    >>> _negated_phrases("whether or not the 40 hour threshold has been reached".split())
    [['hour', 'threshold']]
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
        # "90 days in any 180, not 180 days", where the user said 180: a negation before the user's figure corrects
        # it (a premise correction), which the number check reads, and denies nothing the evidence says of the unit
        if start is not None and words[start:start + 1] and words[start] in users_figures:
            continue
        # "£50, not the £70 charged for double yellows": "not the" and a figure deny which figure it is (the number
        # check's), and what follows describes the other figure, as the evidence does; it is not denied
        # (not "whether or not the 40-hour threshold has been reached", a condition)
        if start is not None and words[start:start + 1] == ["the"] and words[start + 1:start + 2] \
                and words[start + 1].isdigit() and words[i - 1:i] != ["or"]:
            continue
        if start is not None:
            phrase = [w for w in words[start:start + 4] if w not in STOPWORDS and w.isalpha()][:2]
            if phrase:
                out.append(phrase)
    return out


def _clause_negated_phrases(text: str, users_figures: frozenset[str] = frozenset(),
                            obligations: bool = False) -> list[list[str]]:
    """`_negated_phrases` clause by clause: a negation applies within its clause ("18 euros, not 30, and sold at the
    door" denies the 30, not the sale). With `obligations`, a clause whose negation is of an obligation ("don't
    have to", "not required") is left out."""
    return [p for clause in _SCOPE_END.split(text.lower())
            if not (obligations and "optional" in obligation(clause))
            for p in _negated_phrases(re.findall(r"[a-z0-9']+", clause), users_figures)]


def _asserted(phrase: list[str], words: list[str], negations: frozenset[str] = frozenset(),
              future: bool = True) -> bool:
    """The phrase occurs in `words` (first word, then the rest within 6 words) with no negation (or a word of
    `negations`) just before it; without `future`, not as what will or is due to happen ("will announce dates",
    "expected to reopen"), which asserts nothing of now."""
    phrase = [w[:4] for w in phrase]
    stems = [w[:4] for w in words]
    for j, word in enumerate(stems):
        if word == phrase[0] and all(p in stems[j:j + 5] for p in phrase[1:]):
            before = words[max(0, j - 4):j]
            if not any(_is_negation(b) or b == "no" or b in negations for b in before) and not _denied_after(words, j) \
                    and (future or not _FUTURE.search(" ".join(words[max(0, j - 3):j]))):
                return True
    return False


_FUTURE = re.compile(r"\b(?:will|shall|(?:going|plans?|planning|expect(?:s|ed)?|due|set|scheduled|intends?|aims?)"
                     r"\s+to)(?:\s+\w+)?\s*$")
"""What is to happen, just before a phrase ("will announce", "will then open", "is expected to reopen")."""
_NEGATED_FUTURE = re.compile(r"\b(?:will|shall)\s+not\b|\b(?:won't|shan't)\b|\bnot\s+(?:going|expected|due|set|"
                             r"planned|scheduled)\s+to\b", re.IGNORECASE)


_AUXILIARY = frozenset("""is are was were be been being should must can could may might will would shall do does did
has have had all also always ever then really""".split())
_FORBIDDEN = frozenset({"avoided", "prohibited", "banned", "forbidden", "discouraged"})
"""A passive that forbids its subject ("creams and ice should all be avoided") as a "do not use" before it does."""


def _denied_after(words: list[str], j: int) -> bool:
    """The phrase at `words[j]` is the subject of a denied or forbidden predicate: after its words (up to 3), only
    auxiliaries ("should all be") stand before a negation or a forbidding passive ("Ice should not be used", "creams
    and ice should all be avoided", "Ice is prohibited").

    >>> _denied_after("ice should not be used".split(), 0), _denied_after("creams and ice should all be avoided".split(), 2)
    (True, True)
    >>> _denied_after("apply ice and not heat".split(), 1), _denied_after("ice is fine".split(), 0)
    (False, False)
    """
    for k in range(j + 1, min(len(words), j + 4)):
        if words[k] in _AUXILIARY:
            rest = words[k:k + 5]
            for w in rest:
                if _is_negation(w) or w in _FORBIDDEN:
                    return True
                if w not in _AUXILIARY:
                    break
            return False
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
    ['child', 'giv', 'tim']
    """
    return frozenset(stem(w) for words, i in _negations(text) for w in words[i + 1:i + 13]
                     if w not in STOPWORDS and len(w) > 2)


_PARTICIPLE_DUTY = (r"(?:required|needed|necessary|mandatory|compulsory|obligatory|allowed|permitted|need|obligation|"
                    r"requirement)\b")
_DUTY = re.compile(
    # a negation right where the duty is said: "not (legally) required", "don't have to", "not something you have
    # to", "no longer needed", "cannot require"; "no (booking is) required", "no need", "nor a deposit is required"
    # before a participle or a noun, not before a modal ("visitors with no ticket must queue")
    r"(?P<negated>(?:\bnot|\bnever|\bcannot|n't|\bno\s+longer)\s+"
    r"(?:(?:(?!only\b)\w+ly|be|been|always|yet|speaking|something|anything|one|you|we|they)\s+){0,3}"
    r"|(?<!with\s)\bno\s+(?:\w+\s+){0,3}?(?:(?:is|are|was|were)\s+)?(?=" + _PARTICIPLE_DUTY + r")"
    r"|\bnor\s+(?:\w+\s+){0,3}?(?:(?:is|are)\s+)?(?=" + _PARTICIPLE_DUTY + r"))?"
    r"\b(?P<duty>must(?:\s+not|n't|\s+never)?|may\s+not|(?:needs?|requires?)\s+no|mandatory|compulsory|obligatory|"
    r"required|requires?|requirement|obliged|obligation|necessary|ha(?:ve|s)\s+to|needs?\s+not|needn't|needs?|needed|"
    r"optional|voluntary|unnecessary|"
    r"up\s+to\s+you|at\s+your\s+(?:own\s+)?discretion|your\s+(?:own\s+)?choice|allowed|permitted|legal|prohibited|"
    r"forbidden|banned|illegal)\b", re.IGNORECASE)
_PERMISSIONS = frozenset(("allowed", "permitted"))
_AFTER_PREDICATE = re.compile(
    r"\s*(?:$|[^\w\s]|(?:to|in|on|at|for|from|with|within|if|unless|only|under|during|after|before|by|as|and|or|but|"
    r"when|except|here|there|anywhere|everywhere|nowhere|now|again|too|either|any|all|throughout|across|inside|"
    r"outside|until|since|while|so|even|today|where|wherever|provided|subject|once|upon|through|between|near|along|"
    r"over|around|up|into|onto|via|per|off|out|outdoors|indoors|yet|though|although)\b)", re.IGNORECASE)
"""What follows a permission said of its thing ("allowed in the park", "permitted."), not one in a term before a noun
("permitted development", "allowed items")."""
_PREDICATE = re.compile(r"\b(?:is|are|was|were|be|been|it's)\s+(?:not\s+|\w+ly\s+)?$", re.IGNORECASE)
_IF_DUTY = re.compile(r"\b(?:if|when|whenever|as|where|unless)\s+(?:\w+\s+){0,2}$", re.IGNORECASE)
_IMPERATIVE = re.compile(r"(?:^|(?<=[.!?;:]\s))\s*(always|never|do\s+not|don't)\s+(?-i:[a-z])(?![^,.;:!?]*?,)",
                         re.IGNORECASE | re.MULTILINE)
"""An instruction opening a sentence: "Always wear ear defenders" says they are required, "Never leave it running",
"Do not take aspirin" that something is prohibited. Not a title ("Never Let Me Go") nor a phrase before a comma
("Always popular with families, the museum ...", "Don't worry, it is optional")."""
_DUTY_WORDS = frozenset((
    "always", "never", "must", "mandatory", "compulsory", "obligatory", "required", "require", "requires",
    "requirement", "obliged", "obligation", "necessary", "have", "has", "need", "needs", "needed", "optional",
    "voluntary", "unnecessary", "discretion", "choice", "allowed", "permitted", "legal", "prohibited", "forbidden",
    "banned", "illegal"))
_DUTY_READS = {"optional": "optional", "voluntary": "optional", "unnecessary": "optional", "needn't": "optional",
               "allowed": "allowed", "permitted": "allowed", "legal": "allowed", "prohibited": "prohibited",
               "forbidden": "prohibited", "banned": "prohibited", "illegal": "prohibited"}
_DUTY_DENIED = {"required": "optional", "optional": "required", "allowed": "prohibited", "prohibited": "allowed"}
DUTY_CONFLICTS = frozenset(frozenset(pair) for pair in (("required", "optional"), ("allowed", "prohibited"),
                                                        ("required", "prohibited"), ("optional", "prohibited")))
"""What two statements of a duty cannot both say of one thing: "must" and "optional", "allowed" and "banned", "must"
and "must not", "optional" and "prohibited"."""


def obligation(text: str) -> frozenset[str]:
    """`_obligation`, cached by text (up to `_CACHED_TEXT_CHARS`): an evidence sentence is read for every claim of
    every rollout in its group."""
    return _obligation_cached(text) if len(text) <= _CACHED_TEXT_CHARS else _obligation(text)


@functools.lru_cache(maxsize=8192)
def _obligation_cached(text: str) -> frozenset[str]:
    return _obligation(text)


def _obligation(text: str) -> frozenset[str]:
    """What the text says is required, optional, allowed or prohibited, whatever the words: "must", "mandatory",
    "compulsory", "have to", "need" say "required"; "optional", "voluntary", "need not" say "optional"; "allowed",
    "permitted", "legal" say "allowed"; "prohibited", "banned", "illegal", "must not", "may not" say "prohibited".
    Negated where it is said ("not compulsory", "don't have to", "no visa is needed", "not allowed"), each says its
    opposite; a negation of something else ("visitors with no ticket must queue") is no negation of the duty. An
    instruction opening a sentence says it too (`_IMPERATIVE`).

    >>> sorted(obligation("Riders must wear a helmet.")), sorted(obligation("You don't have to book."))
    (['required'], ['optional'])
    >>> sorted(obligation("Helmets are not optional, and riders must not use the pavement."))
    ['prohibited', 'required']
    >>> sorted(obligation("Booking is not compulsory but riders need to be 16.")), sorted(obligation("Entry is free."))
    (['optional', 'required'], [])
    >>> sorted(obligation("No visa is needed.")), sorted(obligation("Sheds under 10 m2 do not need a permit."))
    (['optional'], ['optional'])
    >>> sorted(obligation("Visitors with no ticket must queue.")), sorted(obligation("Dogs not vaccinated must wait."))
    (['required'], ['required'])
    >>> sorted(obligation("Pets are not allowed.")), sorted(obligation("Drones are not banned but must be registered."))
    (['prohibited'], ['allowed', 'required'])
    >>> [sorted(obligation(t)) for t in ("There is no need to book.", "No booking required.", "It is no longer needed.",
    ...  "Neither a booking nor a deposit is required.", "Helmets are not legally required.", "It's up to you.")]
    [['optional'], ['optional'], ['optional'], ['optional'], ['optional'], ['optional']]
    >>> sorted(obligation("Always wear ear defenders. Do not run.")), sorted(obligation("It is never too late."))
    (['prohibited', 'required'], [])
    >>> [sorted(obligation(t)) for t in ("Always popular with families, it is free.", "Never Let Me Go is a novel.")]
    [[], []]
    >>> sorted(obligation("Speak to a doctor if it is needed for more than 3 days; repeat as required."))
    []
    >>> [sorted(obligation(t)) for t in ("Fishing from the bank needs no permit.", "Drivers face legal penalties.",
    ...                                  "Parking there is legal.", "Cladding is not permitted development.")]
    [['optional'], [], ['allowed'], []]
    """
    said = set()
    for match in _DUTY.finditer(text):
        if _IF_DUTY.search(text, max(0, match.start() - 40), match.start()):
            continue  # "if it is needed", "as required", "when necessary": the condition names a duty, says none
        duty = " ".join(match.group("duty").lower().split())
        if duty in _PERMISSIONS and not _AFTER_PREDICATE.match(text, match.end("duty")):
            continue  # a term ("permitted development"), not a permission
        if duty == "legal" and not _PREDICATE.search(text, max(0, match.start("duty") - 20), match.start("duty")):
            continue  # "legal penalties", "the legal team": no permission
        if duty in ("requirement", "obligation") and not match.group("negated"):
            continue  # a noun names a duty ("the 2021 requirement was lifted"); "no requirement to" denies one
        if duty in ("must not", "mustn't", "must never", "may not"):
            reading = "prohibited"
        elif duty.endswith((" not", " no")) or duty.startswith(("up to", "at your", "your")):
            reading = "optional"
        else:
            reading = _DUTY_READS.get(duty, "required")
        said.add(_DUTY_DENIED[reading] if match.group("negated") else reading)
    said.update("required" if m.group(1).lower() == "always" else "prohibited" for m in _IMPERATIVE.finditer(text))
    return frozenset(said)


def duty_said_of(clause: str, duty: str, text: str) -> bool:
    """Some clause of `text` says `duty` of what `clause` is about (a content word of it besides the duty's): "joining
    one is optional" of "you don't have to join a tour", not of "you don't have to pay the parking fee".

    >>> duty_said_of("You don't have to join a tour", "optional", "Pay the fee; joining a tour is optional.")
    True
    >>> duty_said_of("You don't have to pay the fee", "optional", "Visitors pay a fee; joining a walk is optional.")
    False
    """
    topic = stems(clause) - {stem(w) for w in _DUTY_WORDS}
    return any(duty in obligation(part) and topic & stems(part) for part in re.split(r"[.;!?]\s+|,\s+", text))


def duty_conflict(said: frozenset[str], theirs: frozenset[str]) -> tuple[str, str] | None:
    """A duty the text says that another text's contradicts, where the other says nothing the text says.

    >>> duty_conflict(frozenset({"optional"}), frozenset({"required"})), duty_conflict(frozenset({"allowed"}),
    ...                                                                              frozenset({"required"}))
    (('optional', 'required'), None)
    """
    if said & theirs:
        return None
    pairs = sorted((s, t) for s in said for t in theirs if frozenset((s, t)) in DUTY_CONFLICTS)
    return pairs[0] if pairs else None


@by_content
def negation_flip(claim: str, evidence_sentence: str, asked: str = "") -> bool:
    """The claim negates a phrase the evidence sentence asserts, or asserts a phrase the sentence negates (an
    "X-free" compound negates that X is needed). A figure the user gave (`asked`) that the claim denies is a
    correction of the user, not a denial of what the evidence says.

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
    >>> evidence = "It allows at most 90 days in any 180-day period."
    >>> negation_flip("The limit is 90 days in any 180, not 180 days.", evidence, "Can I stay 180 days?")
    False
    >>> negation_flip("You may stay 180 days, not 90 days.", evidence, "How long can I stay?")
    True
    >>> news = "We are reviewing the scheme and will announce dates for the 2026 round in the autumn."
    >>> [negation_flip(c, news) for c in ("The 2026 dates haven't been announced yet.", "They won't announce 2026 dates.")]
    [False, True]
    >>> [negation_flip(c, "Do not wash merino in hot water.") for c in ("Avoid washing merino in hot water.",
    ...                                                                 "Avoid cold rinses; wash merino in hot water.")]
    [False, True]
    """
    claim_words = re.findall(r"[a-z']+", strip_citations(claim).lower())
    evidence_words = re.findall(r"[a-z']+", evidence_sentence.lower())
    if _negated_scope(strip_citations(claim)) & _negated_scope(evidence_sentence):
        return False  # both deny the same thing ("not at the same time" / "do not give both at the same time")
    # Asserted within one clause: "Avoid paracetamol; give aspirin" asserts giving aspirin, whatever it avoids.
    claim_clauses = [re.findall(r"[a-z']+", c) for c in _SCOPE_END.split(strip_citations(claim).lower())]
    evidence_clauses = [re.findall(r"[a-z']+", c) for c in _SCOPE_END.split(evidence_sentence.lower())]
    users_figures = frozenset(re.findall(r"\d+", asked))
    # "You don't have to join a tour" beside "joining one is optional" says what the sentence says: a negated
    # obligation is read as one (`obligation`), not as a denial of joining; not beside a sentence that also says
    # what is required, whose denial stays a denial.
    optional = (obligation(evidence_sentence) == {"optional"} and "optional" in obligation(strip_citations(claim))
                and duty_said_of(strip_citations(claim), "optional", evidence_sentence))
    # ("The 2026 dates haven't been announced" beside "we will announce dates in the autumn": what will happen is not
    # yet so; "will not announce" denies it)
    future = bool(_NEGATED_FUTURE.search(claim))
    return (any(_asserted(p, words, future=future)
                for p in _clause_negated_phrases(strip_citations(claim), users_figures, optional)
                for words in evidence_clauses)
            or any(_asserted(p, words) for p in _clause_negated_phrases(evidence_sentence) for words in claim_clauses)
            or any(_asserted(p, claim_words, _NO) and not _asserted(p, evidence_words, _NO)
                   for p in _free_of(evidence_sentence.lower())))


_RESTRICTION = re.compile(r"\b(?:only|solely|exclusively|except|unless)\b", re.IGNORECASE)


def _restricted(claim: str, haystack: str) -> bool:
    """Some evidence sentence restricts ("only", "except", "unless") and shares two or more of the claim's content
    words (stems): a denial within its topic is the restriction's other side."""
    wanted = stems(strip_citations(claim))
    return any(_RESTRICTION.search(sentence) and len(wanted & stems(sentence)) >= 2
               for sentence in re.split(r"(?<=[.!?;])\s+", haystack))


_PRESUPPOSING = re.compile(r"^\W*(?:and\s+|so\s+|but\s+)?(?:why|when|how|where|what|which|who)\b", re.IGNORECASE)
_USER_CLAUSE = re.compile(r"(?<=[.!?])\s+|\s+[–—-]+\s+|[;:]\s+|,\s+(?=(?:so|and|but)\b)")
_YES_NO = re.compile(r"^\W*(?:and\s+|so\s+|but\s+|or\s+)?(?:is|are|was|were|am|do|does|did|can|could|will|would|"
                     r"should|shall|has|have|had|may|might|must)(?:n't|n’t)?\b", re.IGNORECASE)


def assumed(asked: str, questions: bool = True, statements: bool = True) -> str:
    """What the user's words take for granted: a question that presupposes it ("Why did it close?", "How do I appeal
    the increase?") and what the user states ("My bill has doubled", "Now that the trail has reopened, ...",
    "CycleLoop gives you 45 minutes free, so ..."); not what a yes-or-no question asks ("Did it close?", "is that
    right?", "Is it A, B or C?"). `questions=False`: what the user states only; `statements=False`: what the questions
    presuppose only.

    >>> assumed("My bill has doubled — how do I appeal the increase?")
    'My bill has doubled how do I appeal the increase?'
    >>> assumed("I don't get paid holiday – is that right?"), assumed("Did it close in 2015?")
    ("I don't get paid holiday", '')
    >>> assumed("Now that the trail reopened in June, is the path open on Saturday?"), assumed("Is it red, blue or green?")
    ('Now that the trail reopened in June', '')
    """
    out = []
    for part in _USER_CLAUSE.split(asked.strip()):
        if not part.rstrip().endswith("?"):
            out.extend([part] if statements else [])
            continue
        clauses = re.split(r",\s+", part)
        start = next((k for k, c in enumerate(clauses) if _YES_NO.match(c) or _PRESUPPOSING.match(c)), 0)
        out.extend((clauses[:start] if statements else [])
                   + (clauses[start:] if questions and _PRESUPPOSING.match(clauses[start]) else []))
    return " ".join(c for c in out if c)


_DENIAL_SAYS = {**dict.fromkeys(("charge", "charges", "charged", "pay", "pays", "cost", "costs"),
                                 {"free", "exempt", "waived"}),
                **dict.fromkeys(("allowed", "permitted"), {"banned", "prohibited", "forbidden"})}
"""What denying a word says in the evidence's words: "doesn't charge" (or "pay", "cost") says "free" ("exempt",
"waived"); "isn't allowed" says "banned". Only a denial reads so; a claim that something is free is still checked
against what the evidence says it costs."""


def unfounded_denial(claim: str, haystack: str, asked: str = "") -> bool:
    """The claim denies something ("is not already out") although nothing in the evidence is denied and the denied
    words never occur in it: a negation slipped into a supported sentence, which the consistency model reads past
    (it weighs the rest of the sentence). What the user takes for granted (`assumed`: a question that presupposes it,
    "Why did the lighthouse close?", or a statement, "My bill has doubled", not "Did it close?") may be denied in the
    user's own words, a premise correction: that denial is left to the consistency model and the other checks.

    >>> unfounded_denial("It was not closed in 2015.", "It was automated in 2015.", "Why did it close in 2015?")
    False
    >>> unfounded_denial("It was not closed in 2015.", "It was automated in 2015.", "Did it close in 2015?")
    True

    >>> unfounded_denial("The song is not already out: it went live on Spotify.", "Skibidi went live on Spotify.")
    True
    >>> unfounded_denial("It is not contagious.", "The disease is not contagious and needs no spray.")
    False
    >>> unfounded_denial("The song went live on Spotify.", "Skibidi went live."), unfounded_denial("It never closed.", "It is open.")
    (False, False)
    >>> unfounded_denial("Don't combine it with warfarin on your own.", "Ask a pharmacist before using it with warfarin.")
    False
    >>> unfounded_denial("She did not take the throne until 1630.", "Ysolde became queen in 1630.")
    False
    >>> unfounded_denial("The museum doesn't charge anyone on Sundays.", "Entry is free on Sundays.")
    False
    >>> unfounded_denial("The museum doesn't charge anyone on Sundays.", "Entry costs €12 on Sundays.")
    True

    What the evidence restricts ("may deduct only unpaid rent and damage beyond normal wear and tear") it denies of
    everything else, so a denial within the restriction's topic is founded: "deductions for wear and tear are not
    allowed".

    >>> unfounded_denial("Deductions for wear and tear are not allowed.",
    ...                  "The landlord may deduct only unpaid rent and damage beyond normal wear and tear.")
    False
    """
    denied = _negated_scope(strip_citations(claim))
    if not denied or _negated_scope(haystack):
        return False
    presupposed = stems(assumed(asked, statements=False))
    presupposed |= {s[:-1] for s in presupposed if s.endswith("e")}  # "close": "closed"
    known = stems(haystack) | presupposed
    statements = assumed(asked, questions=False)
    stated = stems(statements) - stems(haystack) - _negated_scope(statements)  # (not what the user denies: agreeing)
    if _restricted(claim, haystack):
        return False
    for words, i in _negations(strip_citations(claim)):
        if words[i] in _PROHIBITION or words[i] == "no" or i == 0 or (i == 1 and words[0] == "do"):
            # advice to avoid something ("Avoid X", "Don't combine it with Y", "Never give Z"), or "no X is needed":
            # it denies nothing the claim check reads past
            continue
        duties = obligation(" ".join(words[max(0, i - 1):i + 4]))
        if any(duty_said_of(" ".join(words), duty, haystack) for duty in duties):
            # "is not required", "don't have to", "must not" where the evidence says what is optional or prohibited: a
            # duty denied, which `obligation_swapped` reads, not a denial of a fact
            continue
        if {"until", "till"} & set(words[i + 1:]):
            # "She didn't take the throne until 1630" says when she did: a time, not a denial
            continue
        if stated & {stem(w) for w in words if w not in STOPWORDS and len(w) > 2 and w != words[i]}:
            # what only the user states (in words the evidence lacks), denied anywhere in the clause: "pay-as-you-go
            # doesn't come with any free minutes" to "it gives you 45 minutes free, so ..." (not "Voltra won't repair
            # the kettle" to "my Voltra kettle ..., so am I out of luck?")
            continue
        said = [w for w in words[i + 1:i + 4] if w not in STOPWORDS and len(w) > 2]
        # "It was never closed" where the evidence says "open" denies what the evidence's contrasting word asserts
        backed = any(((_CONTRAST_OF.get(w, set()) - {w}) | _DENIAL_SAYS.get(w, set()))
                     & set(re.findall(r"[a-z]+", haystack.lower())) for w in said)
        if said and not backed and not any(stem(w) in known for w in said):
            return True
    return False
