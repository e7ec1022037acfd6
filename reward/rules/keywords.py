"""Keyword lists: sentences that string words together instead of saying something (a style the copy and length
rules do not count as the answer's own, and `answer_quality` fails)."""

from __future__ import annotations

import re

from reward.format import split_sentences, strip_citations

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
    >>> keyword_list_share("The, bumps, are, most, likely, anthracnose, a, fungal, disease.")
    1.0
    """
    total = listed = 0
    for sentence in split_sentences(strip_citations(answer)):
        words = re.findall(r"[A-Za-z']+", sentence)
        total += len(words)
        if len(words) >= 6 and sentence.count(",") >= 2:
            function = sum(1 for w in words if w.lower() in _ENGLISH_FUNCTION)
            names = sum(1 for w in words[1:] if w[0].isupper())
            # ... or a comma after nearly every word: a sentence cut into keywords keeps its function words
            if (function / len(words) < 0.1 or (sentence.count(",") >= 3 and names >= 0.6 * (len(words) - 1))
                    or sentence.count(",") >= 0.6 * (len(words) - 1)):
                listed += len(words)
    return listed / total if total else 0.0
