"""The offline console: an interface beside `cogs/`, playing through the same `service/`.

Started by `bot.py --console`. Like the cogs it only adapts input and output: the rules
stay in the engine and the hosting rules in the service, which never import this package.
"""

from .run import main

__all__ = ["main"]
