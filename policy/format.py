"""The response-format contract, for the policy side: it lives in `reward.format` (the reward reads it, and
`reward` depends on nothing under `policy/`); this module re-exports it so policy code and existing imports keep
working."""

from reward.format import (PARTS, Citation, Facet, ParsedResponse, parse_citations, parse_id_list, parse_response,
                           render_response, split_sentences, strip_citations, strip_reasoning)

__all__ = ["PARTS", "Citation", "Facet", "ParsedResponse", "parse_citations", "parse_id_list", "parse_response",
           "render_response", "split_sentences", "strip_citations", "strip_reasoning"]
