"""The service layer shared by the Discord cogs and the console mode: no rules, no Discord."""

from .errors import ServiceError
from .games import GameService
from .outcomes import Abandoned, Outcome, Reminder, SetAside
from .tables import GameOver, Quarantined

__all__ = ["Abandoned", "GameOver", "GameService", "Outcome", "Quarantined", "Reminder", "ServiceError", "SetAside"]
