"""The console's own words (English and Japanese) and its plain-text hygiene.

The story and the questions come from the service as marked lines (`service/lines.py`);
`plain` formats them for a terminal: emphasis is dropped, a command verb becomes the console
command to type ('place CARD SQUARE'). Refusals quoting a slash command are told the same
way (`refusal_text`).
Everything a user typed and the console quotes back goes through `excerpt`, so a 5,000-emoji
token or an escape code can never flood or garble the terminal. Input is folded with NFKC
(`normalise`) so full-width text typed with a Japanese IME (`Ａｎｎ：ａｃｔ　２Ｂ`) means the
same as ASCII.
"""

from __future__ import annotations

import re
import unicodedata
from typing import Any

from service.lines import COMMAND, Line

MAX_LINE = 300  # the longest real action (a Bard chain) is ~60 characters
EXCERPT = 20  # characters of a bad token quoted back

T: dict[str, tuple[str, str]] = {
    "new_game": ("New game: {names}{extra}. Images go to {out}/. Type help for the commands.",
                 "新しいゲーム: {names}{extra}。画像は {out}/ に保存します。コマンド一覧は help。"),
    "solo": (" (solo, {difficulty})", "（ソロ、難易度 {difficulty}）"),
    "with_ai": (" and {n} AI player(s) ({levels})", "とAIプレイヤー{n}人（{levels}）"),
    "damaged": ("! {msg} Play a new game with another --db file (or run with --new), or "
                "restore this one from a backup.",
                "! {msg} 別の --db ファイルで新しいゲームを遊ぶ（または --new を付けて起動）か、"
                "バックアップから復元してください。"),
    "resuming": ("Resuming the unfinished game in {db}: {names}{extra}, round {round}.",
                 "{db} の途中のゲームを再開します: {names}{extra}、ラウンド{round}。"),
    "ignored": ("Your options ({opts}) were not used: the saved game comes first. To play "
                "yours instead, type new (or run again with --new).",
                "指定したオプション（{opts}）は使っていません: 保存されたゲームが優先です。"
                "指定どおりに始めるには new と入力（または --new を付けて起動）。"),
    "how_new": ("To abandon it and start anew, type new (or run with --new).",
                "破棄して新しく始めるには new と入力（または --new を付けて起動）。"),
    "abandoned": ("Abandoned the unfinished game ({names}, round {round}).",
                  "途中のゲーム（{names}、ラウンド{round}）を破棄しました。"),
    "confirm_new": ("This abandons the game in progress ({names}, round {round}). Type new "
                    "again to confirm.",
                    "進行中のゲーム（{names}、ラウンド{round}）を破棄します。よければもう一度 new "
                    "と入力してください。"),
    "saved": ("Saved in {db}. Run the console again{same} to resume.",
              "{db} に保存しました。もう一度{same}起動すると続きから再開します。"),
    "same_db": (" with --db {db}", " --db {db} を付けて"),
    "eof": ("End of input. ", "入力が終わりました。"),
    "interrupted": ("Interrupted. ", "中断しました。"),
    "bye_over": ("Bye. The finished game stays in {db}; next time a new game starts.",
                 "終了します。終わったゲームは {db} に残り、次回は新しいゲームが始まります。"),
    "several": ("Several players are deciding ({names}): write NAME: ACTION, e.g. {example}.",
                "複数のプレイヤーが決定中です（{names}）: 「名前: 行動」の形で入力してください。"
                "例: {example}"),
    "also_waiting": ("  (also deciding: {names})", "  （ほかに決定中: {names}）"),
    "nobody": ("Nobody has anything to decide now.", "今は誰も決定することがありません。"),
    "may": ("{p} may:", "{p} ができること:"),
    "nothing_now": ("nothing now", "今はありません"),
    "more": ("… and {n} more lines: narrow the list, e.g. {example}",
             "… ほか{n}行: 絞り込むには例えば {example}"),
    "game_over": ("Game over. Type new for another game, or quit.",
                  "ゲーム終了。もう一度遊ぶには new、終わるには quit と入力してください。"),
    "to_only": ("(to {p} only) ", "（{p} にだけ）"),
    "boards_on": ("A board after each phase: on.", "フェイズごとの盤面表示: オン"),
    "boards_off": ("A board after each phase: off (board shows it when you ask).",
                   "フェイズごとの盤面表示: オフ（board でいつでも表示できます）"),
    "unchanged": ("(board unchanged)", "（盤面の変化なし）"),
    "image": ("[image] {path}", "[画像] {path}"),
    "image_failed": ("(no image written: {err})", "（画像を書けませんでした: {err}）"),
    "no_player": ("No player called {name}. Players: {names}.",
                  "{name} というプレイヤーはいません。プレイヤー: {names}"),
    "unknown": ("{word} is neither a console command nor an action. Type help.",
                "{word} はコンソールのコマンドでも行動でもありません。help で一覧を表示します。"),
    "too_long": ("That line is too long ({n} characters, at most {max}); nothing was done.",
                 "行が長すぎます（{n}文字、最大{max}文字）。何もしていません。"),
    "control": ("That line holds control characters (arrow keys? escape codes?); nothing was "
                "done, type it again.",
                "制御文字（矢印キーやエスケープコード?）が含まれています。何もしていません。"
                "もう一度入力してください。"),
    "name_first": ("Write a player's name before the colon, e.g. {example}.",
                   "コロンの前にプレイヤー名を書いてください。例: {example}"),
    "empty_action": ("Write an action after {name}:, e.g. {example}.",
                     "{name}: の後に行動を書いてください。例: {example}"),
    "not_command_card": ("{card} is not a command card. Choose one of: {options}.",
                         "{card} はコマンドカードではありません。選べるカード: {options}"),
    "recorded": ("{p}: answer recorded. Still deciding: {names}.",
                 "{p}: 回答を受け付けました。まだ決定していない人: {names}"),
    "accepted": ("{p}: {action} — done.", "{p}: {action} — 受け付けました。"),
    "autosave_on": ("{p}: autosave is on — in the Enemy phase a ★ unit about to faint is "
                    "levelled up when you can pay (R12.1).",
                    "{p}: オートセーブ オン — エネミーフェイズで気絶しそうな★ユニットを、"
                    "払えるならレベルアップします（R12.1）。"),
    "autosave_off": ("{p}: autosave is off.", "{p}: オートセーブ オフ。"),
    "internal": ("! Something went wrong inside the game ({err}); the game is as it was before "
                 "this line. Details: {log}",
                 "! ゲーム内部でエラーが起きました（{err}）。ゲームはこの入力の前の状態のままです。"
                 "詳細: {log}"),
    "no_game": ("There is no game: type new to start one.",
                "ゲームがありません。new で始めてください。"),
    "hand": ("{p}'s hand: {cards} · gold {gold}{medals}",
             "{p} の手札: {cards} ・ゴールド{gold}{medals}"),
    "hand_empty": ("(empty)", "（なし）"),
    "medals": (" · medals {values} (threat {threat})", " ・メダル {values}（脅威{threat}）"),
    "undo_who": ("Whose action? Write undo NAME ({names}).",
                 "誰の行動を取り消しますか? undo 名前 と入力してください（{names}）。"),
}

HELP = {
    "en": """Console commands (English or Japanese words):
  NAME: ACTION    act as a player: Ann: pick advance, Bob: act 2B to 3B attack 5B
  ACTION          when only one player is being waited for (pick advance, done, …)
  status          who must decide what (an empty line does the same)
  board           the table as text; board off / board on: a board after each phase or not
  hand [NAME]     a player's hand, gold and medals
  legal [NAME] [BEGINNING]  the actions a player may type now (legal act 2B: that unit's)
  undo NAME       take back NAME's last action (while nothing random was revealed)
  image           write the table image again
  new [OPTIONS]   a new game: new, new --names Ann Bob, new --players 1 --difficulty hard
  help, quit      this list; save and leave (Ctrl-D and Ctrl-C save too)
Actions are written as in docs/notation.md; full-width input (Ａｎｎ：ｐｉｃｋ　進撃) is fine.
Lines starting with # are comments (for scripts).""",
    "ja": """コンソールのコマンド（英語・日本語どちらでも）:
  名前: 行動          プレイヤーとして行動: Ann: pick 進撃、Bob: act 2B to 3B attack 5B
  行動                決定待ちが1人のときは名前を省略できます（pick 進撃、done など）
  status / 状況       誰が何を決めるか（空行でも同じ）
  board / 盤面        盤面をテキストで表示。board off / board on: フェイズごとの盤面表示を切替
  hand / 手札 [名前]  手札・ゴールド・メダル
  legal / 合法手 [名前] [先頭]  今入力できる行動の一覧（legal act 2B: 2Bのユニットだけ）
  undo / 取消 名前    直前の行動を取り消す（ランダムな結果が出ていない場合）
  image / 画像        盤面画像をもう一度書き出す
  new / 新規 [オプション]  新しいゲーム: new、new --names Ann Bob、new --players 1 --difficulty hard
  help / ヘルプ、quit / 終了  この一覧／保存して終了（Ctrl-D・Ctrl-C でも保存されます）
行動の書き方は docs/notation.md のとおり。全角入力（Ａｎｎ：ｐｉｃｋ　進撃）も使えます。
# で始まる行はコメントです（スクリプト用）。""",
}

# What the console types where Discord has a slash command (`/rr place` in a prompt).
_HINTS = {
    "place": ("place CARD SQUARE", "place カード マス"),
    "act": ("act SQUARE [to SQUARE] [attack/area/heal …]",
            "act マス [to マス] [attack/area/heal …]"),
    "recruit": ("recruit CARD SQUARE", "recruit カード マス"),
    "ready": ("ready SQUARE [SQUARE]", "ready マス [マス]"),
    "support": ("support SQUARE", "support マス"),
    "abandon": ("new", "new"),
}


def t(key: str, lang: str, **kw: Any) -> str:
    en, ja = T[key]
    return (ja if lang == "ja" else en).format(**kw)


def quote(text: str, lang: str) -> str:
    return f"「{text}」" if lang == "ja" else f"'{text}'"


def command(verb: str, lang: str) -> str:
    """What the console types where Discord has `/rr VERB`, quoted."""
    hint = _HINTS.get(verb)
    return quote(hint[1 if lang == "ja" else 0] if hint else verb, lang)


def plain(line: Line | None, lang: str) -> str:
    """A marked line as a terminal shows it: words only, console commands for commands.
    Japanese brackets need no spaces around them, so those are dropped."""
    out = ""
    glue = False  # the last piece was a Japanese-quoted command
    for piece in line or ():
        if piece.mark == COMMAND:
            text = command(piece.text, lang)
            if lang == "ja" and out.rstrip(" "):
                out = out.rstrip(" ")
            glue = lang == "ja"
        else:
            text = piece.text.lstrip(" ") if glue and piece.text.strip() else piece.text
            glue = False
        out += text
    return out


def refusal_text(message: str, lang: str) -> str:
    """A refusal that names a slash command (`` `/rr new` ``) with the console's command
    instead; the rest of the sentence is plain already."""
    text = re.sub(r"`/rr (\w+)[^`\n]*`", lambda m: command(m.group(1), lang), message)
    if lang == "ja":
        text = re.sub(r"(?<=\S) +「", "「", re.sub(r"」 +(?=\S)", "」", text))
    return text


def excerpt(text: str, limit: int = EXCERPT) -> str:
    """A typed token quoted back safely: at most `limit` printable characters."""
    shown = "".join(c if c.isprintable() else "?" for c in text[:limit])
    if len(text) > limit:
        return f"'{shown}…' ({len(text)} characters)"
    return f"'{shown}'"


def tidy_message(message: str) -> str:
    """A refusal from the service or the engine, with any long quoted token cut short."""
    out = re.sub("'([^'\n]{" + str(EXCERPT + 1) + ",})'", lambda m: excerpt(m.group(1)),
                 message)
    out = "".join(c if c.isprintable() else "?" for c in out)
    return out if len(out) <= 2 * MAX_LINE else out[: 2 * MAX_LINE] + "…"


def whole_tokens(message: str, typed: str) -> str:
    """The engine quotes at most 24 characters of a bad token (`'abc…'`, engine/errors.py);
    put the typed token back whole, so `tidy_message` can say how long it really was."""
    tokens = typed.split()

    def whole(m: re.Match[str]) -> str:
        start = m.group(1)
        tok = next((x for x in tokens if len(x) > len(start) and x.startswith(start)), None)
        return f"'{tok}'" if tok else m.group(0)

    return re.sub("'([^'\n]+)…'", whole, message)


def has_control(line: str) -> bool:
    """Control characters other than tab (escape codes, NUL, DEL) — never part of input."""
    return any(unicodedata.category(c) == "Cc" and c != "\t" for c in line)


def normalise(line: str) -> str:
    """NFKC (full-width letters, digits, colon and space become ASCII), one space between
    words, no space at the ends."""
    return " ".join(unicodedata.normalize("NFKC", line).split())


def name_key(name: str) -> str:
    """How player names compare: `Ａｎｎ`, `ann` and `Ann` are one name."""
    return normalise(name).casefold()
