"""The offline console: an interface beside `cogs/`, playing through the same `service/`.

Started by `bot.py --console`. Like the cogs it only adapts input and output: the rules
stay in the engine and the hosting rules in the service, which never import this package.

Module map (imports run one way, down this list; each file reads in one sitting):

- run.py: the process — the command line, the database, the terminal's lines, signals.
- app.py: the line reader — a typed line read into a command or a move (`Console`).
- games.py: the game at the table — start, resume, `new`, a move, the tutorial, farewell.
- commands.py: the other commands — status, image, board, rules, legal/hint/hand/undo.
- telling.py: what is told — each outcome's story and boards, the status, refusals.
- history.py: finished games — settled for `history`, listed, reopened by number.
- files.py: the files written — table images, recaps, reviews (Pillow optional).
- seats.py: the table — its state, its seats, who is at the keyboard.
- tutorial.py, options.py, board.py, misread.py, text.py: the lessons, the options of
  `new` and the command line, the board as text, misread first words, the wording helpers.

`Console` is one object built in layers, app → games, commands → telling → history →
files → seats, one class per file above, so run.py and the tests drive it as before.
"""

from .run import main

__all__ = ["main"]
