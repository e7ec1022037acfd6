"""The reward server: a Ray Serve application (`reward.serve:build_app`) and the runner that starts it locally."""

from reward.serve.app import *  # noqa: F401,F403
from reward.serve.app import Metrics, api  # noqa: F401
