"""The service layer shared by the Discord cogs and the console mode: no rules, no Discord."""

from .games import GameOver, GameService, Outcome, Reminder, ServiceError

__all__ = ["GameOver", "GameService", "Outcome", "Reminder", "ServiceError"]
