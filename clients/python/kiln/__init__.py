"""Kiln's Python client: ``from kiln import Kiln``."""

from .client import ENDED, STATUSES, Campaign, Kiln
from .errors import *  # noqa: F401,F403  (one exception class per error code)
from .errors import ERRORS_BY_CODE, CampaignFailed, ConnectionFailed, KilnError, RedirectRefused

__version__ = "0.1.0"
__all__ = ["Kiln", "Campaign", "ENDED", "STATUSES", "KilnError", "ConnectionFailed", "RedirectRefused", "CampaignFailed", "ERRORS_BY_CODE"] + [c.__name__ for c in ERRORS_BY_CODE.values()]
