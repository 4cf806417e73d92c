"""Japanese for the engine's and the service's refusal messages.

The engine speaks English (its messages are part of its tested behaviour); players whose
Discord locale is Japanese should still read why an answer was refused. Each entry matches
one English message shape and rebuilds it in Japanese; card names and the small phrases
embedded in messages are translated too. A message no entry matches stays English: better a
correct English reason than a wrong Japanese one.
"""

from __future__ import annotations

import re
from functools import lru_cache

from engine import default_cards

from .narrate import REASONS_JA

SQ = r"(?P<sq>[1-6][A-C])"


@lru_cache(maxsize=1)
def _names() -> dict[str, str]:
    cs = default_cards()
    out = {c.en: c.ja for c in list(cs.units.values()) + list(cs.monsters.values())}
    out.update({en: ja for en, ja in cs.commands.values()})
    out.update({"warrior": "ウォーリア", "cleric": "クレリック", "sorcerer": "ソーサラー",
                "thief": "シーフ"})
    return out


def _card(text: str) -> str:
    t = text.strip()
    for art in ("a ", "an ", "the ", "The "):
        if t.startswith(art):
            t = t[len(art):]
    return _names().get(t, t)


def _cards(text: str) -> str:
    return "、".join(_card(x) for x in re.split(r",\s*| or ", text))


_PHRASES: list[tuple[str, str]] = [
    (r"an? (?P<card>.+) stands on " + SQ, "{sq}に{card}がいます"),
    (SQ + r" is empty", "{sq}は空きマスです"),
]

_PROMPTS = {
    "choose a command card": "コマンドカードを選ぶ",
    "place a unit from your hand on your home area": "手札のユニットを自軍エリアに配置する",
    "take unit actions": "ユニット行動をする", "ready acted units": "行動済みユニットを未行動に戻す",
    "may recruit a unit": "ユニットを雇用できる", "may heal 1 damage (support)": "援護でHPを1回復できる",
    "decide about a missed roll": "外れたダイスへの対応を決める",
}

_UNREACH = [
    (r"units never enter a magic circle \(R2\)", "ユニットは魔法陣に入れません（R2）"),
    (r"it is already there", "すでにそこにいます"),
    (r"a (?P<card>.+) stands on " + SQ, "{sq}に{card}がいます"),
    (r"monsters block the way", "モンスターに道をふさがれています"),
    (r"it moves at most (?P<n>\d+) squares? \(MOV \d+\)", "移動力は{n}マスまでです（MOV {n}）"),
    (SQ + r" is empty", "{sq}は空きマスです"),
]

_WHAT = {"where to place": "配置先", "where to recruit": "雇用先", "attack target": "攻撃対象",
         "heal target": "回復対象", "command target": "命令対象", "the unit that acts": "行動するユニット",
         "destination": "移動先", "unit to ready": "未行動に戻すユニット", "unit": "ユニット"}

_WHERE = {"in your hand": "手札", "among your hand or the mercenaries": "手札と傭兵"}

# (English message pattern, Japanese template). Groups named `card` are card names,
# `rest` an embedded phrase, `names` a list of card names.
_RAW: list[tuple[str, str]] = [
    (r"(?P<card>.+?) on " + SQ + r" uses '(?P<hint>.+)', not '(?P<used>.+)'\.",
     "{sq}の{card}のスキルは '{hint}' で指定します（'{used}' ではありません）。"),
    (r"No monster is in range of (?P<card>.+?) on " + SQ + r"\.",
     "{sq}の{card}の射程内にモンスターがいません。"),
    (r"(?P<card>.+?) attacks exactly one monster\.", "{card}が攻撃できるモンスターは1体です。"),
    (r"Too many nested commands: at most (?P<n>\d+) 'command' in one action\.",
     "命令の連鎖が長すぎます: 1つの行動に 'command' は{n}回までです。"),
    (r"Use 'rolls miss' \(.+\) or 'rolls always' \(.+\)\.",
     "'rolls miss'（ミスのときだけ確認する）か 'rolls always'（ダメージが増える可能性があれば毎回確認する）"
     "を使ってください。"),
    (r"(?P<t>[1-6][A-C]) is not in range of (?P<card>.+?) on " + SQ
     + r"(?P<gap> \(a gap square: it cannot be targeted\))?\.",
     "{t}は{sq}の{card}の射程外です{gap}。"),
    (r"There is no monster to attack: (?P<rest>.+)\.", "攻撃できるモンスターがいません: {rest}。"),
    (r"(?P<card>.+?) on " + SQ + r" cannot reach past the piece in front of it: only long-range "
     r"attacks can \(R8\.2\)\.",
     "{sq}の{card}は手前の駒を越えて攻撃できません（越えられるのは長射程攻撃だけです、R8.2）。"),
    (r"(?P<t>[1-6][A-C]) holds no monster in range of (?P<card>.+?) on " + SQ + r"\.",
     "{t}には{sq}の{card}の射程内のモンスターがいません。"),
    (r"The (?P<card>.+?) on " + SQ + r" is defeated before that point: give the point to "
     r"another monster\.", "{sq}の{card}はその前に倒れています: 別のモンスターに割り振ってください。"),
    (r"(?P<card>.+?) deals (?P<n>\d+) points of damage: name (?P<need>\d+) target squares, "
     r"e\.g\. '(?P<ex>.+)'\.", "{card}は{n}点のダメージを与えます: 対象マスを{need}個指定してください（例: '{ex}'）。"),
    (r"(?P<card>.+?) heals up to (?P<n>\d+) damage: name 1 to \d+ squares, one per damage "
     r"removed\.", "{card}は最大{n}回復します: 回復1点ごとにマスを1つ指定してください。"),
    (r"(?P<t>[1-6][A-C]) holds no unit of yours in range of (?P<card>.+?)\.",
     "{t}には{card}の射程内の自分のユニットがいません。"),
    (r"The (?P<card>.+?) on " + SQ + r" has only (?P<n>\d+) damage to heal\.",
     "{sq}の{card}のダメージは{n}だけです。"),
    (r"The (?P<card>.+?) commands another unit of yours: (?P<rest>.+)\.",
     "{card}は自分の別のユニットに命令します: {rest}。"),
    (r"The (?P<card>.+?) on " + SQ + r" faints from the command's 1 damage and cannot use its "
     r"skill\.", "{sq}の{card}は命令の1ダメージで気絶するため、スキルを使えません。"),
    (r"Too many nested commands\.", "命令の連鎖が長すぎます。"),
    (r"There is no unit on " + SQ + r": name one of your units\.",
     "{sq}にユニットがいません: 自分のユニットを指定してください。"),
    (r"You have no unit on " + SQ + r": an? (?P<card>.+) stands there\.",
     "{sq}に自分のユニットはいません（{card}がいます）。"),
    (r"You have no unit on (?P<x>.+?)\.", "{x}に自分のユニットはいません。"),
    (r"The (?P<card>.+?) on " + SQ + r" has already acted \(it carries an action marker until "
     r"it is readied\)\.", "{sq}の{card}は行動済みです（未行動に戻すまでアクションマーカーが置かれています）。"),
    (r"Full Move costs 1 honor mark and you have none \(R12\.4\)\.",
     "全力移動には栄誉マークが1必要ですが、持っていません（R12.4）。"),
    (r"That action does nothing: move the unit, use its skill, or 'done'\.",
     "その行動では何も起きません: 移動するか、スキルを使うか、'done' で終えてください。"),
    (r"'(?P<x>.+)' is not a square\.", "'{x}' はマスではありません。"),
    (r"The game is over\.", "ゲームは終了しています。"),
    (r"The game is over: the monsters won — (?P<reason>.+)\.",
     "ゲームは終了しました: モンスターの勝利 — {reason}。"),
    (r"The game is over: a draw between (?P<who>.+?) — (?P<reason>.+)\.",
     "ゲームは終了しました: {who} の引き分け — {reason}。"),
    (r"The game is over: (?P<who>.+?) won — (?P<reason>.+)\.",
     "ゲームは終了しました: {who} の勝利 — {reason}。"),
    (r"You are not playing in this game \(or were eliminated\)\.",
     "あなたはこのゲームに参加していません（または脱落しています）。"),
    (r"This prompt is out of date: the game has moved on\.", "このプロンプトは古くなっています: ゲームが進みました。"),
    (r"This prompt is out of date: someone else answered first\.",
     "このプロンプトは古くなっています: 先に別の回答が届きました。"),
    (r"Nothing to undo: .+", "取り消せる行動はありません: 取り消せるのは、ランダムな情報を公開しておらず、"
     "その判断がまだ続いている直前の自分の行動だけです。"),
    (r"Now you (?P<prompt>.+?): use (?P<verbs>.+?)(?P<lv> \(or levelup SQUARE\))?\.",
     "今は「{prompt}」場面です: {verbs} を使ってください{lv}。"),
    (r"You cannot pick (?P<card>.+?) now \(each command card is executed at most once a round, "
     r"R6\.1\); choose one of: (?P<names>.+)\.",
     "今は{card}を選べません（コマンドカードは1ラウンドに1回まで、R6.1）。選べるカード: {names}。"),
    (r"Name each unit once\.", "各ユニットは1回ずつ指定してください。"),
    (r"You may ready at most (?P<n>\d+) units \(R7, R11\.2\)\.",
     "未行動に戻せるユニットは最大{n}体です（R7, R11.2）。"),
    (SQ + r" holds no acted unit of yours to ready\.", "{sq}に未行動に戻せる行動済みの自分のユニットがいません。"),
    (r"No mercenaries may be taken when Recruit is executed AUTO \(R7\.1\): recruit a unit from "
     r"your hand\.", "募兵がAUTOで実行されるときは傭兵を雇えません（R7.1）: 手札から雇用してください。"),
    (r"(?P<card>.+?) costs (?P<cost>\d+) gold and you have (?P<gold>\d+) \(R7\.1\)\.",
     "{card}のコストは{cost}ゴールドですが、所持は{gold}ゴールドです（R7.1）。"),
    (r"(?P<x>.+?) holds no damaged unit of yours to heal \(R11\.1\)\.",
     "{x}にダメージを受けた自分のユニットがいません（R11.1）。"),
    (r"Willpower cannot be used here: .+", "ここでは意思の力を使えません: 振り直しは1回まで、栄誉マーク1が必要です（R12.3）。"),
    (r"'(?P<x>.+)' could be (?P<names>.+): use that name\.",
     "'{x}' は {names} のどれか決められません: その名前で指定してください。"),
    (r"There is no '(?P<x>.+?)' (?P<where>in your hand|among your hand or the mercenaries)"
     r"(?:; (?P<why>.+?))? \(you have: (?P<names>.+)\)\.",
     "{where}に '{x}' はありません{why}（持っているもの: {names}）。"),
    (r"Units are placed only on your home area, columns 1–2 \(1A–2C\), not (?P<x>.+) "
     r"\(R2, R7\.1\)\.", "ユニットを置けるのは自軍エリア（1〜2列、1A–2C）だけです。{x}には置けません（R2, R7.1）。"),
    (SQ + r" is taken: an? (?P<card>.+) stands there\.", "{sq}は使用中です: {card}がいます。"),
    (r"'(?P<x>.+)' is not a square \((?P<what>.+)\): squares are 1A … 6C\.",
     "'{x}' はマスではありません（{what}）: マスは 1A … 6C です。"),
    (r"Unknown action '(?P<x>.+)'\. Actions: (?P<list>.+)\.", "'{x}' という行動はありません。行動: {list}。"),
    (r"'(?P<x>.+)' takes nothing after it\.", "'{x}' の後には何も書きません。"),
    (r"Unexpected '(?P<x>.+)': after the move comes a skill \(attack, area, heal, command\)\.",
     "'{x}' は使えません: 移動の後にはスキル（attack, area, heal, command）が続きます。"),
    (r"Unexpected '(?P<x>.+)' at the end of the action\.", "行動の最後に余分な '{x}' があります。"),
    (r"Full Move adds a step to a move: give 'to SQUARE'\.",
     "全力移動は移動に1マス加えます: 'to マス' を指定してください。"),
    (r"'to' needs a square, e\.g\. '(?P<ex>.+)'\.", "'to' の後にはマスが必要です（例: '{ex}'）。"),
    (r"'(?P<x>.+)' needs a target square, e\.g\. '(?P<ex>.+)'\.",
     "'{x}' には対象マスが必要です（例: '{ex}'）。"),
    (r"'command' names exactly one unit, e\.g\. '(?P<ex>.+)'\.",
     "'command' で指定するユニットは1体だけです（例: '{ex}'）。"),
    (r"Empty action\..*", "行動が空です。例: 'pick advance'、'act 2B to 3B attack 5B'、'done'。"),
    (r"Use (?P<u>.+?), e\.g\. (?P<ex>.+)\.", "使い方: {u}（例: {ex}）。"),
    (r"Use (?P<u>.+)\.", "使い方: {u}。"),
    (r"(?P<card>.+?) on " + SQ + r" cannot reach (?P<t>[1-6][A-C]): (?P<why>.+?)\.?",
     "{sq}の{card}は{t}に行けません: {why}。"),
    (r"Only ★ units level up; the (?P<card>.+?) on " + SQ + r" is not one \(R12\.2\)\.",
     "レベルアップできるのは★ユニットだけです。{sq}の{card}は★ではありません（R12.2）。"),
    (r"The (?P<card>\w+) level-up pile is empty \(R12\.2\)\.",
     "{card}のレベルアップカードの山が空です（R12.2）。"),
    (r"Level Up costs (?P<p>\d+) honor marks and you have (?P<m>\d+) \(R12\.2\)\.",
     "レベルアップには栄誉マークが{p}必要ですが、{m}しかありません（R12.2）。"),
    (r"You have nothing to decide right now; waiting for (?P<names>.+)\.",
     "今あなたが決めることはありません。{names} を待っています。"),
    # service
    (r"There is no game in this channel\. Start one with `/rr new`\.",
     "このチャンネルにゲームはありません。`/rr new` で始めてください。"),
    (r"There is no game in this channel\.", "このチャンネルにゲームはありません。"),
    (r"There is no game in progress in this channel\.(?P<lobby> The lobby is still open\.)?",
     "このチャンネルで進行中のゲームはありません。{lobby}"),
    (r"You are not playing in this game; .+", "あなたはこのゲームのプレイヤーではありません。`/rr board` と `/rr status` で観戦できます。"),
    (r"This channel already has a game.*", "このチャンネルにはすでにゲームがあります。終了するか `/rr abandon` するか、スレッドで始めてください。"),
    (r"The game has already started\.", "ゲームはすでに始まっています。"),
    # sharded processes (service/shards.py)
    (r"This server's games are hosted by another process of the bot \(shard (?P<s>\d+) of "
     r"(?P<n>\d+)\); nothing was changed\. Try again in a minute; if it keeps happening, tell "
     r"the bot's operator\.",
     "このサーバーのゲームはボットの別のプロセス（シャード {s}/{n}）が担当しています。何も変更されて"
     "いません。1分ほどしてからもう一度試してください。続く場合はボットの運営者に知らせてください。"),
    (r"The game's database is busy \(another program holds it\); nothing was changed\. "
     r"Try again in a moment\.",
     "ゲームのデータベースが使用中です（別のプログラムが使っています）。何も変更されていません。"
     "少し待ってからもう一度試してください。"),
    (r"Saving failed and could not be checked: look at `/rr status` before answering again\.",
     "保存に失敗し、確認もできませんでした。もう一度答える前に `/rr status` を確認してください。"),
    (r"You are already in this game\.", "すでにこのゲームに参加しています。"),
    (r"The game is full \((?P<n>\d) players\)\.", "ゲームは満員です（{n}人）。"),
    (r"You are not in this game\.", "あなたはこのゲームに参加していません。"),
    (r"The host cannot leave; .+", "ホストは退出できません。中止するには `/rr abandon` を使ってください。"),
    (r"Only the host can start the game\.", "ゲームを開始できるのはホストだけです。"),
    (r"Only the host or a member with Manage Channels can abandon the game\.",
     "ゲームを中止できるのはホストかチャンネル管理権限を持つメンバーだけです。"),
    (r"A player can be removed after (?P<n>\d+) timeouts; (?P<who>.+) has (?P<k>\d+)\.",
     "プレイヤーを外せるのは{n}回時間切れになった後です。{who} は{k}回です。"),
    (r"Vote recorded \((?P<v>\d+/\d+)\)\.", "投票しました（{v}）。"),
    (r"Choose another seated player to remove\.", "外す相手として別の参加者を選んでください。"),
    (r"That player is already out of the game\.", "そのプレイヤーはすでに脱落しています。"),
    (r"A game has 1 to 4 players \(R1\)\.", "ゲームは1〜4人で遊びます（R1）。"),
    (r"Difficulty is easy, normal or hard\.", "難易度は easy、normal、hard のいずれかです。"),
    (r"Difficulty is the solo option rule: .+", "難易度はソロ用のオプションルールです: players: 1 で使ってください（R13.2）。"),
    (r"The turn time limit is between 1 minute and 7 days\.", "手番の制限時間は1分〜7日です。"),
    (r"A game with a difficulty is solo: only the host may play\.", "難易度付きのゲームはソロです: ホストだけが遊べます。"),
    # AI seats (service/seats.py)
    (r"Unknown AI level '(?P<x>.+)': choose from (?P<list>.+)\.",
     "'{x}' というAIレベルはありません。選べるのは {list} です。"),
    (r"The game has (?P<n>\d) seats: there is room for (?P<k>\d) more player\(s\)\.",
     "このゲームの席は{n}つです: あと{k}人まで座れます。"),
    (r"A game of (?P<n>\d) players has room for at most (?P<k>\d) AI player\(s\) besides you\.",
     "{n}人戦であなたのほかに座れるAIプレイヤーは{k}人までです。"),
    (r"Difficulty is the solo option rule \(R13\.2\): a game with AI players is not solo\.",
     "難易度はソロ用のオプションルールです（R13.2）: AIプレイヤーのいるゲームはソロではありません。"),
    (r"Only the host can add or remove AI players\.", "AIプレイヤーを加えたり外したりできるのはホストだけです。"),
    (r"There is no AI player in this lobby\.", "この募集にAIプレイヤーはいません。"),
    (r"Only the host or a member with Manage Channels can change this setting\.",
     "この設定を変更できるのはホストかチャンネル管理権限を持つメンバーだけです。"),
    (r"You are already playing your own seat\.", "すでに自分の席で遊んでいます。"),
    (r"An AI plays this seat\.", "この席はAIが遊んでいます。"),
    (r"An AI is playing your seat since you ran out of time: .+",
     "時間切れのため、AIがあなたの席で遊んでいます。`/rr back` で自分の席に戻れます。"),
]
_COMPILED = [(re.compile(p + r"$"), ja) for p, ja in _RAW]


def _phrase(text: str, table: list[tuple[str, str]]) -> str:
    for pattern, ja in table:
        m = re.fullmatch(pattern, text)
        if m:
            return ja.format(**{k: _card(v) if k == "card" else v
                                for k, v in m.groupdict().items()})
    return text


def localize(message: str, lang: str) -> str:
    """The message in `lang` (`ja` translated when its shape is known, else unchanged)."""
    if lang != "ja":
        return message
    for rx, ja in _COMPILED:
        m = rx.match(message)
        if not m:
            continue
        g = {k: (v or "") for k, v in m.groupdict().items()}
        if g.get("card"):
            g["card"] = _card(g["card"])
        if g.get("names"):
            g["names"] = _cards(g["names"])
        if g.get("rest"):
            g["rest"] = _phrase(g["rest"], _PHRASES)
        if g.get("why") and "cannot reach" in message:
            g["why"] = _phrase(g["why"], _UNREACH)
        if g.get("prompt"):
            g["prompt"] = _PROMPTS.get(g["prompt"], g["prompt"])
        if g.get("what"):
            g["what"] = _WHAT.get(g["what"], g["what"])
        if g.get("where"):
            g["where"] = _WHERE.get(g["where"], g["where"])
        if g.get("gap"):
            g["gap"] = "（白いマス: 対象にできません）"
        if g.get("lv"):
            g["lv"] = "（または levelup マス）"
        if g.get("why") and "no mercenaries" in g["why"]:
            g["why"] = "（募兵のAUTO実行中は傭兵を雇えません、R7.1）"
        elif g.get("why") and "nor among" in g["why"]:
            g["why"] = ""
        if g.get("reason"):
            g["reason"] = REASONS_JA.get(g["reason"], g["reason"])
        if g.get("lobby"):
            g["lobby"] = "ロビーはまだ開いています。"
        return ja.format(**g)
    return message
