"""When a batch's failures are the judge's, not the responses': the ingress answers 503 instead of results.

An item is invalid for the infrastructure when a dimension went unscored for a reason of the call (judge down,
timeout, rate limit: `reward.schema.reason_kind` says `call`). A few such items in a batch are masked by the
trainer (or carry their group's mean); when their share of the batch passes `limits.max_failed_share`, the batch
holds too little signal to train on, so it is refused as a whole with `Retry-After` and the trainer retries it
instead of taking a step on masks and means. Nothing of a refused batch is logged as scored.
"""

from collections import Counter
from collections.abc import Sequence

from reward.schema import ItemResult, reason_kind


def infrastructure_reasons(result: ItemResult) -> list[str]:
    """The call-failure reasons that made an invalid item invalid (empty for a valid item).

    >>> from reward.schema import DimensionScore
    >>> down = DimensionScore.unscored("bottom_line", "openai", "connection_error")
    >>> infrastructure_reasons(ItemResult(id="a", reward=0.0, valid=False, dimensions={"claim": down}))
    ['connection_error']
    """
    if result.valid:
        return []
    return sorted({s.reason for s in result.dimensions.values()
                   if s.status == "unscored" and reason_kind(s.reason) == "call"})


def judge_outage(results: Sequence[ItemResult], max_failed_share: float) -> str | None:
    """Why the batch is refused (the share and the commonest reasons), or None when it may be answered.

    >>> from reward.schema import DimensionScore
    >>> down = DimensionScore.unscored("bottom_line", "openai", "connection_error")
    >>> ok = DimensionScore(score=1.0, layer="bottom_line", backend="openai")
    >>> failed = ItemResult(id="a", reward=0.0, valid=False, dimensions={"claim": down})
    >>> fine = ItemResult(id="b", reward=0.5, valid=True, dimensions={"claim": ok})
    >>> judge_outage([failed, fine], 0.5) is None
    True
    >>> judge_outage([failed, failed, fine], 0.5)
    '2 of 3 items unscored for a judge failure (connection_error: 2), over the limit of 50% (limit max_failed_share)'
    """
    if not results:
        return None
    reasons = Counter()
    failed = 0
    for result in results:
        found = infrastructure_reasons(result)
        failed += bool(found)
        reasons.update(found)
    if failed / len(results) <= max_failed_share:
        return None
    common = ", ".join(f"{reason}: {count}" for reason, count in reasons.most_common(3))
    return (f"{failed} of {len(results)} items unscored for a judge failure ({common}), over the limit of "
            f"{max_failed_share:.0%} (limit max_failed_share)")
