"""The old path of `reward.evaluation.calibrate`, kept while `reward/judges/consistency_combine.py` imports it by this name. It is the same
module object, so attributes and patches are shared."""

import sys

from reward.evaluation import calibrate as _module

sys.modules[__name__] = _module
