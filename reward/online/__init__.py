"""Online evaluation: interaction logs, bucketing and the SRM check, the A/B report (VCR, skip rate, re-search rate
with delta-method intervals over users, Holm-adjusted p-values, MDE, cumulative lift by day), the daily bad-case
audit, and the offline-online link from reward dimensions to users (both clustered by response).

    reward online report --logs logs/ --experiment reward-v2 --html online.html
"""

from reward.online.audit import ArmBCR, AuditManifest, AuditMismatch, bad_case_rates, check_manifest, draw_sample, write_sheet
from reward.online.experiments import Experiment, SampleRatioCheck, load_experiments, sample_ratio_check
from reward.online.link import LinkResult, LinkRow, dimension_link
from reward.online.log import Interaction, RowError, hash_user, read_interactions
from reward.online.reformulation import RESEARCH_SIMILARITY, RESEARCH_WINDOW_S, QuerySimilarity
from reward.online.report import CumulativeLift, LiftRow, OnlineReport, build_report, print_report
from reward.online.store import OnlineStore

__all__ = [
    "ArmBCR", "AuditManifest", "AuditMismatch", "CumulativeLift", "Experiment", "Interaction", "LiftRow", "LinkResult",
    "LinkRow", "OnlineReport", "OnlineStore", "QuerySimilarity", "RESEARCH_SIMILARITY", "RESEARCH_WINDOW_S", "RowError",
    "SampleRatioCheck", "bad_case_rates", "build_report", "check_manifest", "dimension_link", "draw_sample", "hash_user",
    "load_experiments", "print_report", "read_interactions", "sample_ratio_check", "write_sheet",
]
