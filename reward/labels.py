"""The old path of `reward.evaluation.labels`, kept while `reward/online/audit.py` imports it by this name. It is the same
module object, so attributes and patches are shared."""

import sys

from reward.evaluation import labels as _module

sys.modules[__name__] = _module
