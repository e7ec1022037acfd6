from policy.format import Facet, parse_citations, parse_response, render_response, split_sentences


def test_render_then_parse_round_trips():
    plan = [Facet("Is the premiere over?", ("3",)), Facet("Where to stream for free?", ("1", "6"))]
    text = render_response(plan, ["1", "6"], "It is on Spotify's free tier [Doc 1,6].\n\n- Also on YouTube [Doc 1].")
    parsed = parse_response(text)
    assert parsed.problems == []
    assert parsed.plan == plan
    assert parsed.selected == ["1", "6"]
    assert parsed.cited_ids == ["1", "6"]
    assert parsed.answer_text.startswith("It is on Spotify's free tier.")


def test_missing_and_out_of_order_parts_are_reported():
    parsed = parse_response("<answer>Hi [Doc 1]</answer><plan>1. x</plan>")
    assert "<evidence> is missing" in parsed.problems
    assert any("out of order" in p for p in parsed.problems)
    assert parsed.answer == "Hi [Doc 1]"


def test_repeated_parts_unclosed_tags_and_stray_text():
    parsed = parse_response("intro\n<plan>1. a</plan><evidence>1</evidence><answer>x</answer><answer>y</answer>")
    assert "<answer> appears more than once" in parsed.problems
    assert "text outside the plan, evidence and answer parts" in parsed.problems
    unclosed = parse_response("<plan>1. a</plan><evidence>1</evidence><answer>never closed")
    assert "<answer> is never closed" in unclosed.problems
    assert unclosed.answer == "never closed"


def test_evidence_block_forms_and_bad_ids():
    for block in ("1, 2, 6", "Doc 1, Doc 2, Doc 6", "[Doc 1,2,6]"):
        assert parse_response(f"<plan>1. a [Doc 1]</plan><evidence>{block}</evidence><answer>x</answer>").selected == ["1", "2", "6"]
    none = parse_response("<plan>1. a</plan><evidence>none</evidence><answer>No evidence covers this.</answer>")
    assert none.selected == [] and none.problems == []
    bad = parse_response("<plan>1. a</plan><evidence>1, two words</evidence><answer>x</answer>")
    assert any("invalid id" in p for p in bad.problems)


def test_citation_markers():
    cites = parse_citations("A [Doc 2]. B [Doc 1, Doc 6]; C [doc 3,4]")
    assert [c.ids for c in cites] == [("2",), ("1", "6"), ("3", "4")]
    assert not any(c.malformed for c in cites)


def test_sentence_split_keeps_citations_and_decimals():
    assert split_sentences("It costs 2.5 dollars [Doc 1]. Then stop.\n- item one\n- item two") == [
        "It costs 2.5 dollars [Doc 1].", "Then stop.", "- item one", "- item two"]
