"""English and Japanese for the bot's own words.

Two mechanisms, because Discord has two: command names, descriptions and choice names are
localized *by Discord's client* from what `RookTranslator` uploads at sync time, while
everything the bot writes is picked per message from the reader's locale (`lang_of`).
Engine and service messages stay in English (they are precise rule citations); in Japanese
they are shown under a Japanese heading so the reader knows what happened.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import discord
from discord import app_commands

from service.seats import LEVEL_NAMES

# ---- command names, descriptions, choice names (uploaded to Discord) --------------------------

JA: dict[str, str] = {
    # group
    "rr": "rr",
    "Rook & Raiders: play the board game in this channel":
        "ルーク&レイダース: このチャンネルでボードゲームを遊ぶ",
    # lobby
    "new": "新規", "Open a game lobby in this channel (one game per channel or thread)":
        "このチャンネルでゲームの募集を始める（チャンネル・スレッドごとに1ゲーム）",
    "players": "人数",
    "Number of players (1–4, default 4; start early to play with fewer)":
        "プレイ人数（1〜4、既定4。早めに開始すれば少人数で遊べます）",
    "difficulty": "難易度", "Solo only: easy, normal or hard (R13.2)":
        "ソロ専用: やさしい・ふつう・むずかしい（R13.2）",
    "easy": "やさしい", "normal": "ふつう", "hard": "むずかしい",
    "hours": "制限時間", "Turn time limit in hours (default 24)": "手番の制限時間（時間、既定24）",
    "Join or leave the lobby in this channel": "このチャンネルの募集に参加する・抜ける",
    "join": "参加", "Join the lobby in this channel": "このチャンネルの募集に参加する",
    "leave": "退出", "Leave the lobby in this channel": "このチャンネルの募集から抜ける",
    "start": "開始", "Start the game (host only)": "ゲームを開始する（ホストのみ）",
    "abandon": "中止", "Abandon this channel's game (host or Manage Channels)":
        "このチャンネルのゲームを中止する（ホストまたはチャンネル管理権限）",
    # play
    "pick": "選択", "Choose a command card on your turn": "手番でコマンドカードを選ぶ",
    "card": "カード", "The command card": "コマンドカード",
    "Advance": "進撃", "Raid": "奇襲", "Rest": "休息", "Reward": "報酬", "Recruit": "募兵",
    "place": "配置", "Initial placement: put a unit from your hand on your home area":
        "初期配置: 手札のユニットを自軍エリアに置く",
    "A unit card in your hand": "手札のユニットカード",
    "square": "マス", "An empty square of your home area (1A–2C)": "自軍エリアの空きマス（1A〜2C）",
    "act": "行動", "Unit action: move and/or use a skill": "ユニット行動: 移動とスキル",
    "unit": "ユニット", "Your un-acted unit (its square)": "未行動のユニット（マス）",
    "to": "移動先", "Where it moves (leave empty to stay)": "移動先（空欄なら移動しない）",
    "target": "対象", "Its skill and target (leave empty to only move)":
        "スキルと対象（空欄なら移動のみ）",
    "fullmove": "全力移動", "Full Move: +1 MOV for 1 honor mark (R12.4)":
        "全力移動: 栄誉マーク1で移動+1（R12.4）",
    "recruit": "募兵", "Recruit a unit from your hand or the mercenaries":
        "手札または傭兵からユニットを雇う",
    "A unit card from your hand or a mercenary": "手札のユニットカードまたは傭兵",
    "ready": "準備", "Ready acted units (Rest, fatigue recovery)":
        "行動済みユニットを未行動に戻す（休息・疲労回復）",
    "units": "ユニット", "The acted units to ready, e.g. 1A 2C": "未行動に戻すユニット（例: 1A 2C）",
    "support": "援護", "End phase support: heal 1 damage on one of your units":
        "終了処理の援護: ユニット1体のHPを1回復",
    "A damaged unit of yours": "ダメージを受けた自分のユニット",
    "levelup": "レベルアップ", "Level up a ★ unit (costs honor marks)":
        "★ユニットをレベルアップする（栄誉マークを消費）",
    "Your ★ unit": "自分の★ユニット",
    "roll": "ダイス", "After a roll: keep it or reroll it (the same as its buttons)":
        "ダイスの後: 結果をそのままにするか振り直す（ボタンと同じ）",
    "choice": "選択",
    "Keep the result, or pay 1 honor mark to roll again (R12.3)":
        "結果をそのままにするか、名誉マーク1で振り直す（R12.3）",
    "Keep the result": "このまま", "Reroll (1 honor mark)": "振り直し（名誉マーク1）",
    "done": "終了", "End your actions or pass on this decision": "行動を終える／この決定をパスする",
    "undo": "取消", "Take back your last action (when nothing random was revealed)":
        "直前の行動を取り消す（ランダムな情報が出ていない場合）",
    "remove": "除外", "Vote to remove a player who keeps running out of time":
        "時間切れを繰り返すプレイヤーの除外に投票する",
    "player": "プレイヤー", "A seated player": "着席しているプレイヤー",
    # info
    "board": "ボード", "Show a board (only you see it)": "ボードを表示する（自分だけに表示）",
    "Whose board (default: yours)": "誰のボードか（既定: 自分）",
    "status": "状況", "Round, phase, and who we are waiting for":
        "ラウンド・フェイズと、誰を待っているか",
    "log": "記録", "Recent events in words": "最近の出来事",
    "reach": "範囲", "Show where a unit can move and what its skill reaches":
        "ユニットの移動範囲とスキル範囲を表示する",
    "Your unit (its square)": "自分のユニット（マス）",
    "Show a card": "カードを表示する",
    "name": "名前", "Card name (English or Japanese)": "カード名（英語または日本語）",
    "rules": "ルール", "Short rules help": "ルールの簡単な説明",
    "topic": "項目", "Which part of the rules": "ルールのどの部分か",
    "settings": "設定", "Your standing order and the game's time limit":
        "自分の常時指示とゲームの制限時間",
    "autosave": "自動レベルアップ",
    "rolls": "ダイスの確認",
    "When to ask 'reroll, level up or keep?' after a dice roll (R12.1)":
        "ダイスを振った後「振り直し・レベルアップ・そのまま」を聞くタイミング（R12.1）",
    "after a miss only": "ミスのときだけ",
    "after any roll that could improve": "良くなる可能性があるときは毎回",
    "Level up a ★ unit automatically when that saves it in the Enemy phase (R12.1)":
        "エネミーフェイズで気絶を防げるとき★ユニットを自動でレベルアップ（R12.1）",
    "New turn time limit in hours (host only)": "新しい手番の制限時間（時間、ホストのみ）",
    # AI seats
    "bots": "ai人数", "AI players to seat with you (0–3); the game then has you + them":
        "一緒に座るAIプレイヤーの数（0〜3）。人数は自分＋AI",
    "bot_level": "aiレベル", "How the AI players play (default: random)":
        "AIプレイヤーの強さ（既定: ランダム）",
    "Seat AI players in the lobby or take them out (host only)":
        "募集中のゲームにAIプレイヤーを座らせる・外す（ホストのみ）",
    "Seat an AI player in the lobby (host only)":
        "募集中のゲームにAIプレイヤーを座らせる（ホストのみ）",
    "level": "レベル", "How the AI plays": "AIの強さ",
    "count": "人数", "How many AI players (default 1)": "AIプレイヤーの数（既定1）",
    "Take the last AI player out of the lobby (host only)":
        "最後に加えたAIプレイヤーを募集から外す（ホストのみ）",
    "back": "復帰", "Play your seat again after an AI took it over":
        "AIが代わりに遊んでいた自分の席に戻る",
    "zombie": "代打ai",
    "When a player runs out of time, an AI of this level takes their seat (host or manager)":
        "時間切れのプレイヤーの席をこのレベルのAIが引き継ぐ（ホストまたは管理者）",
    # the daily challenge (cogs/daily.py)
    "The daily solo challenge: one ranked try a day, ends 00:00 UTC":
        "デイリーソロチャレンジ: ランク挑戦は1日1回、00:00 UTCに締切",
    "Start or resume today's challenge (in your DMs with the bot)":
        "今日のチャレンジを開始・再開する（ボットとのDMで）",
    "Replay a past day unranked (today's once your ranked try is over)":
        "過去の日をランク外で遊ぶ（今日の分はランク挑戦の後）",
    "The day, YYYY-MM-DD (default: yesterday)": "日付 YYYY-MM-DD（既定: 昨日）",
    "The day's best results (this server or everyone)": "その日の上位（このサーバーまたは全員）",
    "This server or everyone": "このサーバーか全員か",
    "channel": "チャンネル", "date": "日付", "scope": "範囲", "announcements": "お知らせ", "reminder": "リマインダー",
    "The day, YYYY-MM-DD (default: today)": "日付 YYYY-MM-DD（既定: 今日）",
    "Your daily challenge stats: played, win %, streaks": "デイリーの成績: 回数・勝率・連続記録",
    "Daily announcements channel (Manage Server) and your DM streak reminder":
        "デイリーのお知らせチャンネル（サーバー管理）と連続記録のDMリマインダー",
    "Where this server's daily news is posted (Manage Server)":
        "このサーバーのデイリーのお知らせ先（サーバー管理）",
    "Post the daily news in this server (Manage Server)":
        "このサーバーにデイリーのお知らせを投稿する（サーバー管理）",
    "DM me before 00:00 UTC when my streak is about to break":
        "連続記録が途切れそうなとき00:00 UTC前にDMで知らせる",
}


class RookTranslator(app_commands.Translator):
    """Japanese command names/descriptions for Discord's client (other locales: English)."""

    async def translate(self, string: app_commands.locale_str, locale: discord.Locale,
                        context: app_commands.TranslationContextTypes) -> str | None:
        if locale is not discord.Locale.japanese:
            return None
        extra = string.extras.get("ja")
        return extra if isinstance(extra, str) else JA.get(string.message)


# ---- the bot's messages ----------------------------------------------------------------------

def lang_of(interaction: discord.Interaction) -> str:
    """The reader's language: Japanese clients get Japanese, everyone else English."""
    return "ja" if str(interaction.locale).startswith("ja") else "en"


def guild_lang(interaction: discord.Interaction) -> str:
    """The language of public posts in a server (its community locale)."""
    loc = interaction.guild_locale or interaction.locale
    return "ja" if str(loc).startswith("ja") else "en"


M: dict[str, tuple[str, str]] = {
    # refusals
    "refused": ("⛔ {msg}", "⛔ できません: {msg}"),
    "stale": ("⏳ This prompt is out of date: the game has moved on. Use `/rr status` to see "
              "what is asked now.",
              "⏳ このボタンは古くなっています（ゲームが進みました）。`/rr status` で現在の状況を確認してください。"),
    "not_player": ("👀 You are not playing in this game; you can watch it with `/rr board` and "
                   "`/rr status`.",
                   "👀 あなたはこのゲームの参加者ではありません。`/rr board` と `/rr status` で観戦できます。"),
    "not_yours": ("✋ This button is for {name}.", "✋ このボタンは {name} さん用です。"),
    "wrong_game": ("⏳ This button belongs to a game that is no longer running here.",
                   "⏳ このボタンは、ここで終了したゲームのものです。"),
    "internal": ("Something went wrong on my side; nothing was changed. Please try again.",
                 "内部エラーが起きました。何も変更されていません。もう一度お試しください。"),
    # a damaged game, set aside (cogs/quarantine.py)
    "quarantine_notice": (
        "🚧 **Game #{id} in this channel is damaged and has been set aside**: {damage}. "
        "Nothing can be played in it, so it cannot go on from a wrong position; no other game "
        "is affected.\nWhat can be done: the host (or a member with Manage Channels) can end "
        "it with `/rr abandon` and then open a new game with `/rr new`; or the bot's operator "
        "can restore the database from a backup (or repair game #{id}'s rows) and restart the "
        "bot, which checks the game again and resumes it.",
        "🚧 **このチャンネルのゲーム #{id} は保存データが壊れているため保留にしました**: {damage}。"
        "誤った局面から続けないよう、このゲームは進められません。他のゲームには影響しません。\n"
        "対処: ホスト（またはチャンネル管理権限を持つメンバー）が `/rr abandon` で中止し、"
        "`/rr new` で新しいゲームを始められます。または、ボットの管理者がバックアップから"
        "データベースを復元（またはゲーム #{id} の行を修復）してボットを再起動すれば、"
        "ゲームを再確認して再開します。"),
    "quarantined": (
        "🚧 This channel's game (#{id}) is damaged and set aside: {damage}. Nothing can be "
        "played in it. The host or a member with Manage Channels can `/rr abandon` it (then "
        "`/rr new`); the bot's operator can restore the database from a backup and restart "
        "the bot to resume it.",
        "🚧 このチャンネルのゲーム（#{id}）は保存データが壊れているため保留中です: {damage}。"
        "このゲームは進められません。ホストまたはチャンネル管理権限を持つメンバーが "
        "`/rr abandon` で中止できます（その後 `/rr new`）。ボットの管理者がバックアップから"
        "データベースを復元してボットを再起動すれば再開できます。"),
    "quarantine_lifted": (
        "✅ Game #{id} was checked again after a repair and is whole: it continues where it "
        "stopped.",
        "✅ ゲーム #{id} を修復後に再確認し、問題がなかったため中断したところから再開します。"),
    "damage_unreadable": ("its saved {what} could not be read",
                          "保存された {what} が読み取れません"),
    "damage_log_gap": ("action {seq} of its action log is missing",
                       "行動記録の {seq} 番目が失われています"),
    "damage_log_mismatch": ("its action log has {rows} actions but its saved state records "
                            "{recorded}",
                            "行動記録は {rows} 件ですが、保存された状態には {recorded} 件が"
                            "記録されています"),
    "damage_replay": ("its action log no longer replays", "行動記録を再生できません"),
    "damage_other": ("it could not be loaded", "読み込めません"),
    "ack_failed": ("⚠️ Discord did not confirm this in time, so nothing was done. Please try "
                   "again.",
                   "⚠️ Discord からの確認が間に合わなかったため、何も実行していません。"
                   "もう一度お試しください。"),
    "unknown_card": ("No card called '{name}'. Pick one of the suggestions.",
                     "'{name}' というカードはありません。候補から選んでください。"),
    "no_unit": ("You have no unit on {square}.", "{square} に自分のユニットはいません。"),
    "no_game": ("There is no game in progress in this channel. Start one with `/rr new`.",
                "このチャンネルには進行中のゲームがありません。`/rr new` で始めましょう。"),
    "bad_square": ("'{square}' is not a square: squares are 1A … 6C.",
                   "'{square}' はマスではありません（1A〜6C）。"),
    "not_seated": ("{name} is not playing in this game.", "{name} さんはこのゲームの参加者ではありません。"),
    # accepted
    "accepted": ("✅ `{text}`", "✅ `{text}`"),
    "your_turn_next": ("Now: {prompt}", "次: {prompt}"),
    "private": ("🔒 Only for you: {lines}", "🔒 あなただけに: {lines}"),
    # lobby
    "lobby": ("🎲 **Rook & Raiders** — new game by {host}\nPlayers ({n}/{max}): {names}\n"
              "{mode} · turn time limit {hours} h\nPress **Join**; the host presses **Start**.",
              "🎲 **ルーク&レイダース** — {host} さんが募集中\n参加者（{n}/{max}）: {names}\n"
              "{mode}・手番の制限時間 {hours} 時間\n**参加** を押してください。ホストが **開始** を押します。"),
    "mode_solo": ("Solo ({difficulty})", "ソロ（{difficulty}）"),
    "mode_multi": ("{n} players", "{n}人戦"),
    "standard": ("standard", "標準"),
    "btn_join": ("Join", "参加"), "btn_leave": ("Leave", "退出"), "btn_start": ("Start", "開始"),
    "joined": ("You joined the game.", "参加しました。"),
    "left": ("You left the game.", "退出しました。"),
    "started": ("The game has started.", "ゲームを開始しました。"),
    "lobby_closed": ("🎲 This lobby is closed.", "🎲 この募集は締め切られました。"),
    "abandoned": ("🏳️ The game in this channel was abandoned by {name}.",
                  "🏳️ {name} さんがこのチャンネルのゲームを中止しました。"),
    "abandon_ok": ("The game was abandoned.", "ゲームを中止しました。"),
    "game_start": ("🎲 **The game begins!** Seats: {seats}.", "🎲 **ゲーム開始！** 席順: {seats}"),
    # prompts and pings
    "ping": ("{mention} {prompt}", "{mention} {prompt}"),
    "until": ("(time limit <t:{ts}:R>)", "（期限 <t:{ts}:R>）"),
    "reminder": ("⏰ {mention} reminder — {prompt} Time runs out <t:{ts}:R>.",
                 "⏰ {mention} リマインダー — {prompt} 期限は <t:{ts}:R> です。"),
    "btn_done": ("Done", "終了"), "btn_reroll": ("Reroll (1 honor)", "振り直し（栄誉1）"),
    "btn_keep": ("Keep", "このまま"), "btn_levelup": ("Level up {square}", "{square} をレベルアップ"),
    "kick_hint": ("{name} has run out of time {n} times: the other players may vote to remove "
                  "them with `/rr remove`.",
                  "{name} さんが{n}回時間切れになりました。他のプレイヤーは `/rr remove` で除外に投票できます。"),
    "dm_header": ("🔒 Private information from your game in <#{channel}>:",
                  "🔒 <#{channel}> のゲームの非公開情報:"),
    "dm_fallback": ("🔒 {mention}, I could not send you a direct message: use `/rr board` to see "
                    "your private information.",
                    "🔒 {mention} さん、DMを送れませんでした。`/rr board` で非公開情報を確認してください。"),
    "table_alt": ("The table after {what}, round {round}: the boards of {names} and the "
                  "central row of command cards", "ラウンド{round}、{what} の後の盤面: "
                  "{names} のボードと中央のコマンドカード列"),
    "board_alt": ("{name}'s board, round {round}: gold {gold}, honor marks {marks}, "
                  "threat {threat}", "{name} のボード（ラウンド{round}）: ゴールド {gold}、"
                  "栄誉マーク {marks}、脅威 {threat}"),
    "reach_alt": ("Where the {card} on {square} can move ({move}) and what its skill reaches "
                  "({skill})", "{square} の{card}の移動先（{move}）とスキルの範囲（{skill}）"),
    "card_alt": ("The card {card}: {stats}", "カード「{card}」: {stats}"),
    # info
    "status": ("**Round {round}** · {phase}{current}\n{waiting}",
               "**ラウンド{round}** · {phase}{current}\n{waiting}"),
    "waiting": ("Waiting for {who}.", "待機中: {who}"),
    "waiting_none": ("Nobody is being asked anything right now.", "現在、誰の回答も待っていません。"),
    "who_until": ("{name} ({kind}, until <t:{ts}:f>, <t:{ts}:R>)",
                  "{name}（{kind}、期限 <t:{ts}:f>、<t:{ts}:R>）"),
    "over": ("🏁 The game is over: {result}.", "🏁 ゲームは終了しました: {result}。"),
    "over_refusal": ("🏁 The game is over: {result}.\nIt can still be viewed with `/rr board`, "
                     "`/rr status` and `/rr log` until a new game is opened here with `/rr new`.",
                     "🏁 ゲームは終了しました: {result}。\n新しいゲームが `/rr new` で作られるまで、"
                     "`/rr board`・`/rr status`・`/rr log` で見られます。"),
    "result_win": ("{winners} won — {reason}", "{winners} の勝利 — {reason}"),
    "result_draw": ("a draw between {winners} — {reason}", "{winners} の引き分け — {reason}"),
    "result_loss": ("the monsters won — {reason}", "モンスターの勝利 — {reason}"),
    "board_caption": ("**{name}** — gold {gold}, honor marks {marks}, threat {threat}; hand: {hand}",
                      "**{name}** — ゴールド {gold}、栄誉マーク {marks}、脅威 {threat}、手札: {hand}"),
    "board_medals": ("Your medals: {medals} (threat with medals: {threat}).",
                     "あなたのメダル: {medals}（メダル込みの脅威: {threat}）"),
    "log_empty": ("Nothing has happened yet.", "まだ何も起きていません。"),
    "reach_caption": ("{card} on {square}: moves to {move}; skill reaches {skill}.",
                      "{square} の {card}: 移動 {move}、スキル範囲 {skill}"),
    "nothing": ("nothing", "なし"),
    "settings_show": ("Standing order (level up to save a ★ unit in the Enemy phase): **{auto}**.\n"
                      "Ask 'reroll, level up or keep?' after a roll: **{rolls}**.\n"
                      "Turn time limit: **{hours} h**.",
                      "常時指示（エネミーフェイズで★ユニットを救うレベルアップ）: **{auto}**\n"
                      "ダイスの後「振り直し・レベルアップ・そのまま」の確認: **{rolls}**\n"
                      "手番の制限時間: **{hours} 時間**"),
    "rolls_miss": ("after a miss only", "ミスのときだけ"),
    "rolls_always": ("after any roll that could improve", "良くなる可能性があるときは毎回"),
    "on": ("on", "オン"), "off": ("off", "オフ"),
    "limit_set": ("The turn time limit is now {hours} h (for new prompts).",
                  "手番の制限時間を {hours} 時間にしました（新しい手番から）。"),
    "limit_host": ("Only the host or a member with Manage Channels can change the time limit.",
                   "制限時間を変更できるのはホストかチャンネル管理権限を持つメンバーだけです。"),
    "no_rules": ("No such topic.", "その項目はありません。"),
    # AI seats
    "lobby_bots": ("The host can seat AI players with `/rr bot add`.",
                   "ホストは `/rr bot add` でAIプレイヤーを座らせられます。"),
    "zombie_took": ("⏰ {name} ran out of time: 🤖 an AI ({level}) plays their seat now. "
                    "{mention}, type `/rr back` to play it yourself again.",
                    "⏰ {name} さんが時間切れになりました: 🤖 AI（{level}）が代わりに席を受け持ちます。"
                    "{mention} さん、`/rr back` で自分の番に戻れます。"),
    "seat_back": ("🙋 {name} is back and plays their own seat again.",
                  "🙋 {name} さんが戻り、自分の席で遊んでいます。"),
    "back_ok": ("You play your seat again: your next decisions are yours.",
                "自分の席に戻りました。次の決定からはあなたが選びます。"),
    "zombie_set": ("When a player runs out of time, {what} (this channel's next games too).",
                   "時間切れのプレイヤーがいると: {what}（このチャンネルの次のゲームも同じ）。"),
    "zombie_on": ("an AI ({level}) takes their seat until they type `/rr back`",
                  "AI（{level}）が `/rr back` まで代わりに遊びます"),
    "zombie_off": ("the game gives the default answer (after 2 time-outs the others may vote "
                   "to remove them)",
                   "既定の回答になります（2回の時間切れで他のプレイヤーは除外に投票できます）"),
    "settings_zombie": ("When a player runs out of time: {what}.", "時間切れのとき: {what}。"),
    # outside a server channel (DMs, user installs) and the daily challenge (cogs/daily.py)
    "channel_only": ("⛔ `/rr {command}` plays a game in a server channel where the bot is "
                     "installed; it cannot be used here. In DMs you can play the daily "
                     "challenge: `/rr daily play`.",
                     "⛔ `/rr {command}` はボットが導入されたサーバーのチャンネル専用で、ここでは"
                     "使えません。DMではデイリーチャレンジが遊べます: `/rr daily play`。"),
    "no_daily_game": ("⛔ There is no game here. Outside a server channel the play commands "
                      "act on your daily challenge: start it with `/rr daily play`.",
                      "⛔ ここにはゲームがありません。サーバーのチャンネル以外では、操作コマンドは"
                      "あなたのデイリーチャレンジに働きます: `/rr daily play` で開始。"),
    "daily_card": ("**Daily challenge #{n}** ({day}) — difficulty {difficulty}\n{mods}\n"
                   "Par: {par}\nThe day ends at 00:00 UTC: <t:{ts}:R>.",
                   "**デイリーチャレンジ #{n}**（{day}）— 難易度 {difficulty}\n{mods}\n"
                   "目標: {par}\n00:00 UTCに締切: <t:{ts}:R>。"),
    "daily_par_won": ("the bot won in {n} rounds", "ボットは{n}ラウンドで勝利"),
    "daily_par_lost": ("the bot fell in round {n}", "ボットは{n}ラウンド目に落城"),
    "daily_par_unknown": ("the bot is still playing it", "ボットが挑戦中"),
    "daily_started": ("🗓️ Your challenge has started.", "🗓️ チャレンジを開始しました。"),
    "daily_resumed": ("🗓️ Your challenge goes on: the table and your next question are posted "
                      "again.", "🗓️ チャレンジの続きです。盤面と次の質問を再投稿しました。"),
    "daily_practice_note": ("(practice: unranked)", "（練習: ランク外）"),
    "daily_in_dm": ("It is played in your DMs with the bot (private, and the same on every "
                    "device).", "ボットとのDMで遊びます（非公開・どの端末でも同じ）。"),
    "daily_no_dm": ("⛔ I cannot send you DMs (your privacy settings?). Allow DMs from this "
                    "server's members or open a DM with the bot and run `/rr daily play` there.",
                    "⛔ DMを送れません（プライバシー設定？）。DMを許可するか、ボットとのDMで "
                    "`/rr daily play` を実行してください。"),
    "daily_bad_date": ("⛔ `{text}` is not a date: write it as YYYY-MM-DD, e.g. 2026-11-20.",
                       "⛔ `{text}` は日付ではありません。YYYY-MM-DD（例: 2026-11-20）で指定して"
                       "ください。"),
    "daily_result_ranked": ("🏁 Your daily result{versus}:\n```\n{share}\n```",
                            "🏁 デイリーの結果{versus}:\n```\n{share}\n```"),
    "daily_result_practice": ("🏁 Practice over (unranked){versus}:\n```\n{share}\n```",
                              "🏁 練習終了（ランク外）{versus}:\n```\n{share}\n```"),
    "daily_board_head": ("**Daily #{n}** ({day}) — {scope}", "**デイリー #{n}**（{day}）— {scope}"),
    "daily_scope_server": ("this server", "このサーバー"),
    "daily_scope_all": ("everyone", "全員"),
    "daily_board_you": ("… you: #{rank} — {score}", "… あなた: {rank}位 — {score}"),
    "daily_board_empty": ("Nobody has finished this day's challenge yet.",
                          "この日のチャレンジを終えた人はまだいません。"),
    "daily_score_won": ("won in {rounds} rounds, {fainted} fainted, {marks} honor marks left",
                        "{rounds}ラウンドで勝利・気絶{fainted}・名誉マーク残り{marks}"),
    "daily_score_lost": ("fell in round {rounds}", "{rounds}ラウンド目に落城"),
    "daily_stats_alt": ("Daily stats: {played} played, {pct}% won, streak {cur} (best {best}).",
                        "デイリー成績: {played}回・勝率{pct}%・連続{cur}（最長{best}）。"),
    "daily_server_only": ("⛔ The announcement channel is a server setting: use it in a server "
                          "channel.", "⛔ お知らせチャンネルはサーバーの設定です。サーバーで使って"
                          "ください。"),
    "daily_need_manage": ("⛔ Only members with Manage Server choose the announcement channel.",
                          "⛔ お知らせチャンネルはサーバー管理権限のあるメンバーだけが設定できます。"),
    "daily_news_on": ("📣 The daily news is posted in {channel}.", "📣 デイリーのお知らせは {channel} に投稿します。"),
    "daily_news_off": ("📣 No more daily news in this server.", "📣 このサーバーへのデイリーのお知らせを止めました。"),
    "daily_remind_on": ("⏰ I will DM you a few hours before 00:00 UTC if your streak is about "
                        "to break.", "⏰ 連続記録が途切れそうなとき、00:00 UTCの数時間前にDMします。"),
    "daily_remind_off": ("⏰ No streak reminders.", "⏰ リマインダーを止めました。"),
    "daily_settings_none": ("Nothing changed: give a channel, announcements or reminder.",
                            "変更なし: channel・announcements・reminder のいずれかを指定してください。"),
    "daily_reminder": ("⏰ Your daily streak breaks tonight: today's challenge ends <t:{ts}:R> "
                       "(00:00 UTC). `/rr daily play`",
                       "⏰ 今夜で連続記録が途切れます: 今日のチャレンジは <t:{ts}:R>（00:00 UTC）に締切。"),
    "daily_podium": ("Yesterday's podium (#{n}):", "昨日の表彰台（#{n}）:"),
    "daily_seed": ("Challenge #{n}'s seed, now published: `{seed}`",
                   "チャレンジ #{n} のシード（公開）: `{seed}`"),
}

LEVELS = LEVEL_NAMES  # AI levels' names (service/seats.py names the bot seats with them)

PHASES: dict[str, tuple[str, str]] = {
    "placement": ("initial placement", "初期配置"), "main": ("Main phase", "メインフェイズ"),
    "auto": ("Main phase (AUTO)", "メインフェイズ（AUTO）"), "invasion": ("⑤ Invasion", "⑤ 侵略"),
    "summon": ("⑥ Summon", "⑥ 召喚"), "end": ("⑦ End phase", "⑦ 終了処理"),
    "over": ("game over", "ゲーム終了"), "setup": ("setup", "準備"),
}

KINDS: dict[str, tuple[str, str]] = {
    "place": ("placing a unit", "初期配置"), "pick": ("choosing a card", "カード選択"),
    "actions": ("unit actions", "ユニット行動"), "ready": ("readying units", "未行動に戻す"),
    "recruit": ("recruiting", "募兵"), "support": ("support", "援護"),
    "roll": ("a missed roll", "ダイスの判断"),
}


def t(key: str, lang: str, **kw: Any) -> str:
    en, ja = M[key]
    return (ja if lang == "ja" else en).format(**kw)


def result_text(result: Mapping[str, Any], names: list[str], lang: str) -> str:
    """A finished game's result: who won (or a draw, or the monsters) and why."""
    from .mentions import safe

    winners = ", ".join(safe(names[s]) for s in result.get("winners", []))
    key = "result_loss" if not winners else "result_draw" if result.get("draw") else "result_win"
    return t(key, lang, winners=winners, reason=result.get("reason", ""))


def pair(table: dict[str, tuple[str, str]], key: str, lang: str) -> str:
    en, ja = table.get(key, (key, key))
    return ja if lang == "ja" else en
