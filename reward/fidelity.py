"""The old path of `reward.evaluation.fidelity`, kept while `reward/judges/consistency_public.py` and
`consistency_combine.py` import it by this name. It is the same
module object, so attributes and patches are shared."""

import sys

from reward.evaluation import fidelity as _module

sys.modules[__name__] = _module
