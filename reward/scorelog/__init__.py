"""The durable score log and its aggregates.

`segments` (what a line of a segment is, and the readers both other modules share), `log` (the append-only writer,
retention) and `store` (the SQLite aggregate store the dashboard reads: per-step sketches, samples, cascade counts).
The writer's and the readers' names are re-exported here; the store is `reward.scorelog.store`.
"""

from reward.scorelog.log import Retention, ScoreLog, ScoreLogUnavailable, prune
from reward.scorelog.segments import (CONTEXT_PREFIX, ContextRecord, RequestConflict, ScoreRecord, batch_digest,
                                      context_line, parse_segment, read_lines, read_log, segments)

__all__ = ["CONTEXT_PREFIX", "ContextRecord", "RequestConflict", "Retention", "ScoreLog", "ScoreLogUnavailable",
           "ScoreRecord", "batch_digest", "context_line", "parse_segment", "prune", "read_lines", "read_log", "segments"]
