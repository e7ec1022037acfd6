"""The answerability reader's training pairs (`training.answerability`, an experiment the supply check does not
ship): each question's answer window answers it, its plausible-answer window does not, and a question with one
detail changed is not answered by the window that answered the original."""

from __future__ import annotations

import random

from training.answerability import altered_question, pairs_of, paragraph_rows, window

CONTEXT = ("The Normans were a people of France. Rollo was their first ruler in 911. "
           "His son William Longsword ruled after him. The duchy grew under Richard I in 942.")
DATA = {"data": [{"title": "Normans", "paragraphs": [{"context": CONTEXT, "qas": [
    {"id": "a", "question": "Who was the first ruler of the Normans?", "is_impossible": False,
     "answers": [{"text": "Rollo", "answer_start": CONTEXT.index("Rollo")}]},
    {"id": "b", "question": "Who was the last ruler of the Normans?", "is_impossible": True, "answers": [],
     "plausible_answers": [{"text": "Rollo", "answer_start": CONTEXT.index("Rollo")}]},
]}]}]}


def test_pairs_label_the_answer_window_answered_and_the_plausible_one_not():
    rows = paragraph_rows(DATA, lambda title: True)
    assert len(rows) == 1 and [q["sentence"] for q in rows[0]["questions"]] == [1, 1]
    assert window(rows[0]["sentences"], 1) == "The Normans were a people of France. Rollo was their first ruler in 911."
    pairs = pairs_of(rows, random.Random(0), follow_share=0.0)
    by_kind = {p.kind: p for p in pairs}
    assert by_kind["answer_sentence"].label == 0 and by_kind["answer_sentence"].claim.startswith("Who was the first")
    assert by_kind["plausible_sentence"].label == 2 and "last ruler" in by_kind["plausible_sentence"].claim


def test_an_altered_question_names_what_the_window_lacks_or_flips_a_word():
    answer_window = "The Normans were a people of France. Rollo was their first ruler in 911."
    changed, kind = altered_question("In what year did Rollo become the ruler?", answer_window, CONTEXT,
                                     random.Random(1))
    assert kind == "swapped_name" and "Rollo" not in changed and ("William" in changed or "Richard" in changed)
    flipped, kind = altered_question("Who was the first ruler?", answer_window, CONTEXT, random.Random(1))
    assert (flipped, kind) == ("Who was the last ruler?", "antonym")
    assert altered_question("Who ruled?", answer_window, CONTEXT, random.Random(1)) is None
