"""The service layer shared by the Discord cogs and the console mode: no rules, no Discord."""

from .games import GameOver, GameService, Outcome, Quarantined, Reminder, ServiceError

__all__ = ["GameOver", "GameService", "Outcome", "Quarantined", "Reminder", "ServiceError"]
