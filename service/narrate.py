"""Words for what happened and what to do now, in English or Japanese.

Events come from the engine already filtered for the reader (`engine.visible`), so a line
written here can never carry someone else's secret. Messages are short: a Discord post after
each phase shows a handful of them under the board image.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from engine import Game
from engine.cards import CardSet

Event = Mapping[str, Any]
"""Read loosely on purpose: stories are also told from stored logs whose events may predate
today's shapes (engine.types.Event), e.g. a `damaged` event without `hp`."""

_T: dict[str, dict[str, str]] = {
    "phase_main": {"en": "**Round {round}** begins. Start player: {start}.",
                   "ja": "**ラウンド{round}** 開始。スタートプレイヤー: {start}"},
    "phase_invasion": {"en": "⑤ **Invasion**: the monsters advance.",
                       "ja": "⑤ **侵略**: モンスターが進軍します。"},
    "phase_summon": {"en": "⑥ **Summon**.", "ja": "⑥ **召喚**"},
    "phase_end": {"en": "⑦ **End phase**.", "ja": "⑦ **終了処理**"},
    "phase_setup": {"en": "Setup: two monsters are summoned (round 0).",
                    "ja": "準備: モンスターを2体召喚します（ラウンド0）。"},
    "picked": {"en": "{p} chose **{card}** and leads it.", "ja": "{p} が **{card}** を選択（リーダー）。"},
    "card_auto": {"en": "**{card}** is executed AUTO (everyone: small effect).",
                  "ja": "**{card}** をAUTOで実行（全員が小効果）。"},
    "passed": {"en": "{p} ran out of time and chose no card.",
               "ja": "{p} は時間切れのためカードを選びませんでした。"},
    "gold": {"en": "{p} +{amount} gold ({total}).", "ja": "{p} ゴールド+{amount}（{total}）"},
    "honor": {"en": "{p} +1 honor token.", "ja": "{p} 栄誉トークン+1"},
    "moved": {"en": "{p}: {card} moved {path}.", "ja": "{p}: {card} が {path} へ移動。"},
    "rolled": {"en": "{p}: {attacker} on {from} attacks {card} on {target}{again}: "
                     "{d1}+{d2}{mod} = {total} vs DEF {def}: {result}.",
               "ja": "{p}: {from}の{attacker}が{target}の{card}を攻撃{again}: "
                     "{d1}+{d2}{mod} = {total}（防御力{def}）: {result}"},
    "rerolled": {"en": " (reroll)", "ja": "（振り直し）"},
    "damage": {"en": "{card} on {square}: {amount} damage (HP {left}/{hp})",
               "ja": "{square}の{card}に{amount}ダメージ（HP {left}/{hp}）"},
    "damaged": {"en": "{p}: {hit}.", "ja": "{p}: {hit}。"},
    "defeated": {"en": "{p} defeated the {card} on {square} (+1 honor mark).",
                 "ja": "{p} が {square} の {card} を撃破（栄誉マーク+1）。"},
    "healed": {"en": "{p}: {card} on {square} heals 1{hp}.",
               "ja": "{p}: {square}の{card}のHPを1回復{hp}。"},
    "healed_support": {"en": "{p}: support heals 1 on {card} on {square}{hp} (R11.1).",
                       "ja": "{p}: 援護で{square}の{card}のHPを1回復{hp}。"},
    "monster_moves": {"en": "{p}: {moves}.", "ja": "{p}: {moves}"},
    "monster_move": {"en": "{card} {from} → {to}", "ja": "{card} {from} → {to}"},
    "bonus": {"en": " (bonus move)", "ja": "（ボーナス移動）"},
    "fainted": {"en": "{p}: {card} on {square} fainted and returns to hand.",
                "ja": "{p}: {square} の {card} が気絶し手札に戻りました。"},
    "monster_attacked": {"en": "{p}: {card} on {from} attacks {targets}.",
                         "ja": "{p}: {from}の{card}が攻撃 → {targets}"},
    "summoned": {"en": "{card} summoned on {square} ({p})", "ja": "{card} を {square} に召喚 ({p})"},
    "queued": {"en": "{p}: {card} waits in lane {lane}'s queue.",
               "ja": "{p}: {card} はレーン{lane}の待機列へ。"},
    "invaded": {"en": "⚠ {p}: a {card} invaded the castle!", "ja": "⚠ {p}: {card} が城に侵入！"},
    "eliminated": {"en": "☠ {p} is eliminated.", "ja": "☠ {p} は脱落しました。"},
    "recruited": {"en": "{p} recruited {card} on {square}.", "ja": "{p} が {card} を {square} に雇用。"},
    "placed": {"en": "{p} placed {card} on {square}.", "ja": "{p} が {card} を {square} に配置。"},
    "readied": {"en": "{p} readied {squares}.",
                "ja": "{p} が {squares} のユニットを未行動に戻しました。"},
    "levelup": {"en": "{p} levelled up {square}: {card} (−{price} honor).",
                "ja": "{p} が {square} をレベルアップ: {card}（栄誉−{price}）"},
    "medal": {"en": "{p} gains a medal token (value hidden).", "ja": "{p} がメダルを獲得（値は非公開）。"},
    "medal_value": {"en": "Your new medal is worth {value}.", "ja": "獲得したメダルの値は {value} です。"},
    "merc_taken": {"en": "{p}: that mercenary was taken first; choose again.",
                   "ja": "{p}: その傭兵は先に取られました。選び直してください。"},
    "mercenaries": {"en": "Mercenaries: {cards}.", "ja": "傭兵: {cards}"},
    "final_round": {"en": "The unit deck ran out: round {round} is the final round (R13.2).",
                    "ja": "山札が尽きました: ラウンド{round}が最終ラウンドです。"},
    "willpower": {"en": "{p} uses Willpower (reroll).", "ja": "{p} が意思の力で振り直し。"},
    "command": {"en": "{p}: the Bard on {from} commands {target} (1 damage, then its skill).",
                "ja": "{p}: {from} のバードが {target} に命令（1ダメージ、続けてスキル）。"},
    "area": {"en": "{p}: area attack from {from} hits {squares}.",
             "ja": "{p}: {from} から範囲攻撃 → {squares}"},
    "fullmove": {"en": "{p} pays 1 honor mark for Full Move ({square}).",
                 "ja": "{p} が全力移動（栄誉マーク1、{square}）。"},
    "declared": {"en": "Victory declared by {players} (threat 8 or less).",
                 "ja": "{players} が勝利宣言（脅威8以下）。"},
    "timeout": {"en": "{p} ran out of time (default answer).", "ja": "{p} は時間切れ（既定の回答）。"},
    "undo": {"en": "{p} took back their last action.", "ja": "{p} が直前の行動を取り消しました。"},
    "game_over_win": {"en": "🏆 Game over: {winners} won — {reason}.",
                      "ja": "🏆 ゲーム終了: {winners} の勝利 — {reason}"},
    "game_over_draw": {"en": "Game over: draw between {winners} — {reason}.",
                       "ja": "ゲーム終了: {winners} の引き分け — {reason}"},
    "game_over_loss": {"en": "Game over: the monsters won — {reason}.",
                       "ja": "ゲーム終了: モンスターの勝利 — {reason}"},
}

REASONS_JA = {
    "the final round ended with monsters left (R13.2)": "最終ラウンドが終わってもモンスターが残っていた（R13.2）",
    "a monster invaded the castle (R13.1)": "モンスターが城に侵入した（R13.1）",
    "last player standing (R9.3)": "最後に残ったプレイヤー（R9.3）",
    "everyone left was eliminated at once (R9.3)": "残り全員が同時に脱落した（R9.3）",
    "every monster defeated (R13.1)": "すべてのモンスターを撃破（R13.1）",
    "threat 8 or less with the deck empty (R14.3)": "山札が尽きた時点で脅威8以下（R14.3）",
    "round cap reached (R15)": "ラウンド上限に到達（R15）",
    "the player resigned": "プレイヤーが投了した",
}


# How a list of names reads: Japanese separates with the ideographic comma (、).
LIST_SEP = {"ja": "、"}

def reason(text: str, lang: str) -> str:
    """Why a game ended, in `lang` (the engine states it in English)."""
    return REASONS_JA.get(text, text) if lang == "ja" else text


_RESULT = {"hit": ("hit (2)", "命中(2)"), "miss": ("miss (1)", "外れ(1)"),
           "critical": ("CRITICAL (3)", "クリティカル(3)"), "fumble": ("fumble (0)", "ファンブル(0)")}


def t(key: str, lang: str, **kw: Any) -> str:
    entry = _T[key]
    return entry.get(lang, entry["en"]).format(**kw)


def _mod(mod: int) -> str:
    """A roll's modifier as it is added: "+1", "+0", "−1" (R8.2)."""
    return f"+{mod}" if mod >= 0 else f"−{-mod}"


def _hp(e: Event, cs: CardSet, lang: str) -> str:
    """"Knight on 3A: 1 damage (HP 3/6)" for a `damaged` event."""
    card = e["card"]
    name = cs.name(card, lang) if card else "?"
    hp = e.get("hp")
    if hp is None:  # an event recorded before the engine reported HP (old logs)
        return t("damage", lang, card=name, square=e["square"], amount=e["amount"],
                 left="?", hp="?")
    return t("damage", lang, card=name, square=e["square"], amount=e["amount"],
             left=e["hp_left"], hp=hp)


def narrate(events: Sequence[Event], names: list[str], cs: CardSet, lang: str = "en",
            limit: int = 25) -> list[str]:
    """Readable lines for already-filtered events; long stories end with a count.

    A monster's attack is told with the damage it did and the HP left ("Lich on 6A attacks
    Knight on 3A: 1 damage (HP 3/6)"), so the `damaged` events it caused are folded into
    its line; consecutive monster moves on one board share a line ("Goblin 5B → 3B, …").
    """
    def n(key: str | None) -> str:
        return cs.name(key, lang) if key else "?"

    lines: list[str] = []
    used: set[int] = set()  # damaged events already told inside an attack's line
    moves: tuple[int, list[str]] | None = None  # the board whose monster moves are pending

    def flush_moves() -> None:
        nonlocal moves
        if moves is not None:
            sep = "、" if lang == "ja" else ", "
            lines.append(t("monster_moves", lang, p=names[moves[0]], moves=sep.join(moves[1])))
            moves = None

    for k, e in enumerate(events):
        kind = e["type"]
        if kind == "monster_moved":
            seat = e["player"]
            if moves is not None and moves[0] != seat:
                flush_moves()
            step = t("monster_move", lang, card=n(e["card"]), to=e["to"], **{"from": e["from"]})
            step += t("bonus", lang) if e.get("bonus") else ""
            moves = moves or (seat, [])
            moves[1].append(step)
            continue
        if kind in ("chip", "done", "autosave", "merc_claimed", "resolved"):
            continue  # silent: no line, and a pending moves line may go on after them
        flush_moves()
        if k in used:
            continue
        p = names[e["player"]] if "player" in e and e["player"] is not None else ""
        kw: dict[str, Any] = {"p": p}
        if kind == "phase":
            ph = e["phase"]
            if ph == "main":
                lines.append(t("phase_main", lang, round=e["round"],
                               start=names[e["start_player"]]))
            else:
                lines.append(t(f"phase_{ph}", lang))
        elif kind == "card":
            if e["auto"]:
                lines.append(t("card_auto", lang, card=n(e["card"])))
        elif kind == "picked":
            lines.append(t("picked", lang, p=p, card=n(e["card"])))
        elif kind == "rolled":
            res = _RESULT[e["result"]][1 if lang == "ja" else 0]
            mod = e.get("mod", e["total"] - sum(e["dice"]))
            lines.append(t("rolled", lang, p=p, d1=e["dice"][0], d2=e["dice"][1],
                           mod=_mod(mod), total=e["total"], result=res, target=e["target"],
                           attacker=n(e.get("attacker")), card=n(e.get("card")),
                           again=t("rerolled", lang) if e.get("rerolled") else "",
                           **{"from": e["from"], "def": e.get("def", "?")}))
        elif kind == "damaged":
            lines.append(t("damaged", lang, p=p, hit=_hp(e, cs, lang)))
        elif kind == "moved":
            lines.append(t("moved", lang, p=p, card=n(e["card"]), path="→".join(e["path"])))
        elif kind == "monster_attacked":
            hits = []
            for j in range(k + 1, len(events)):
                d = events[j]
                if d["type"] in ("monster_attacked", "monster_moved", "phase", "resolved"):
                    break
                if (d["type"] == "damaged" and d.get("player") == e["player"]
                        and d["square"] in e["targets"] and j not in used):
                    used.add(j)
                    hits.append(_hp(d, cs, lang))
            sep = "、" if lang == "ja" else "; "
            lines.append(t(kind, lang, p=p, card=n(e["card"]),
                           targets=sep.join(hits) or LIST_SEP.get(lang, ", ").join(e["targets"]),
                           **{"from": e["from"]}))
        elif kind == "summoned":
            prev = lines[-1] if lines else ""
            line = t(kind, lang, p=p, card=n(e["card"]), square=e["square"])
            stem = line[: line.rfind("(")]
            if prev.startswith(stem) and prev.endswith(")"):  # same summon on every board
                lines[-1] = prev[:-1] + f", {p})"
            else:
                lines.append(line)
        elif kind in ("defeated", "fainted", "recruited", "placed"):
            lines.append(t(kind, lang, p=p, card=n(e["card"]), square=e["square"]))
        elif kind == "queued":
            lines.append(t(kind, lang, p=p, card=n(e["card"]), lane=e["lane"]))
        elif kind == "invaded":
            lines.append(t(kind, lang, p=p, card=n(e["card"])))
        elif kind == "levelup":
            lines.append(t(kind, lang, p=p, square=e["square"], card=n(e["card"]),
                           price=e["price"]))
        elif kind == "command":
            lines.append(t(kind, lang, p=p, target=e["target"], **{"from": e["from"]}))
        elif kind == "area":
            lines.append(t(kind, lang, p=p, squares=LIST_SEP.get(lang, ", ").join(e["squares"]) or "—",
                           **{"from": e["from"]}))
        elif kind == "fullmove":
            lines.append(t(kind, lang, p=p, square=e["square"]))
        elif kind == "declared":
            lines.append(t(kind, lang, players=LIST_SEP.get(lang, ", ").join(names[s] for s in e["players"])))
        elif kind == "readied":
            lines.append(t(kind, lang, p=p, squares=LIST_SEP.get(lang, ", ").join(e["squares"])))
        elif kind == "healed":
            hp = f" (HP {e['hp_left']}/{e['hp']})" if "hp" in e else ""
            lines.append(t("healed_support" if e.get("support") else kind, lang, p=p,
                           square=e["square"], card=n(e.get("card")),
                           hp=hp.replace(" (", "（").replace(")", "）") if lang == "ja" else hp))
        elif kind == "gold" and e["amount"]:
            lines.append(t(kind, lang, p=p, amount=e["amount"], total=e["total"]))
        elif kind == "mercenaries":
            lines.append(t(kind, lang, cards=LIST_SEP.get(lang, ", ").join(n(c) if c else "—" for c in e["cards"])))
        elif kind == "medal_value":
            lines.append(t(kind, lang, value=e["value"]))
        elif kind == "final_round":
            lines.append(t(kind, lang, round=e["round"]))
        elif kind == "game_over":
            who = LIST_SEP.get(lang, ", ").join(names[s] for s in e["winners"])
            key = ("game_over_loss" if not e["winners"] else
                   "game_over_draw" if e["draw"] else "game_over_win")
            lines.append(t(key, lang, winners=who, reason=reason(e["reason"], lang)))
        elif kind in ("honor", "eliminated", "medal", "merc_taken", "willpower", "timeout",
                      "undo", "passed"):
            kw.update({k2: v for k2, v in e.items() if k2 not in ("type", "player")})
            lines.append(t(kind, lang, **kw))
    flush_moves()
    if len(lines) > limit:
        lines = lines[:limit - 1] + [f"… (+{len(lines) - limit + 1})"]
    return lines


# ---- prompts: what a player can do now ------------------------------------------------------

_PROMPTS = {
    "place": ("Place one unit from your hand on your home area (1A–2C): `/rr place`.",
              "手札のユニット1体を自軍エリア(1A–2C)に配置してください: `/rr place`"),
    "pick": ("Your turn: choose a command card.", "あなたの手番です: コマンドカードを選んでください。"),
    "actions": ("**{card}**: {left} unit action(s) left — `/rr act`, then `/rr done`.",
                "**{card}**: 残り{left}回のユニット行動 — `/rr act`、終わったら `/rr done`"),
    "ready": ("**{card}**: ready up to {n} acted unit(s) — `/rr ready`.",
              "**{card}**: 行動済みユニットを最大{n}体まで未行動に戻せます — `/rr ready`"),
    "recruit": ("**Recruit**: recruit one unit (hand{mercs}) onto an empty home square — "
                "`/rr recruit`, or `/rr done`.",
                "**募兵**: ユニットを1体雇用（手札{mercs}）— `/rr recruit` または `/rr done`"),
    "support": ("**Support**: heal 1 damage on one of your units — `/rr support`.",
                "**援護**: ユニット1体のHPを1回復できます — `/rr support`"),
    "roll": ("Your roll {d1}+{d2}{mod} = {total} vs DEF {def}: {result}. Reroll with "
             "Willpower (1 honor), level up, or keep?",
             "ダイス {d1}+{d2}{mod} = {total}（防御力{def}）: {result}。意思の力で振り直す"
             "（栄誉1）/ レベルアップ / このまま？"),
}


def prompt(game: Game, seat: int, lang: str = "en") -> str | None:
    dec = game.decision(seat)
    if dec is None:
        return None
    ja = lang == "ja"
    kind = dec["kind"]
    text = _PROMPTS[kind][1 if ja else 0]
    cs = game.cards
    if dec["kind"] == "actions" or dec["kind"] == "ready":
        card = cs.name(dec["card"], lang) if dec["card"] in cs.commands else (
            "疲労回復" if ja else "Fatigue recovery")
        return text.format(card=card, left=dec.get("left", 0), n=dec.get("n", 0))
    if dec["kind"] == "recruit":
        mercs = ("・傭兵" if ja else " or a mercenary") if dec["mercenaries"] else ""
        return text.format(mercs=mercs)
    if dec["kind"] == "roll":
        res = _RESULT[dec["result"]][1 if ja else 0]
        return text.format(d1=dec["dice"][0], d2=dec["dice"][1], total=dec["total"], result=res,
                           mod=_mod(dec["total"] - sum(dec["dice"])), **{"def": dec.get("def", "?")})
    if dec["kind"] == "pick":
        opts = LIST_SEP.get(lang, ", ").join(cs.name(c, lang) for c in dec["options"])
        return f"{text} ({opts})"
    return text
