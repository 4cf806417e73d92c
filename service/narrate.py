"""Words for what happened and what to do now, in English or Japanese.

Both interfaces tell a game with these words, so they are written once in plain terms: a
`Line` of pieces with marks (`service/lines.py`), which Discord formats as markdown and the
console as plain text.

Events come from the engine already filtered for the reader (`engine.visible`), so a line
written here can never carry someone else's secret. Messages are short: a Discord post after
each phase shows a handful of them under the board image.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

import i18n
from engine import Game
from engine.cards import CardSet
from engine.messages import Items, Name, Phrase

from . import refusals
from .lines import Line, parse, text

Event = Mapping[str, Any]
"""Read loosely on purpose: stories are also told from stored logs whose events may predate
today's shapes (engine.types.Event), e.g. a `damaged` event without `hp`."""

# How a list of names reads: Japanese separates with the ideographic comma (、).
def sep(lang: str) -> str:
    """How a list of names reads: Japanese separates with the ideographic comma (、)."""
    return i18n.t(lang, "story.list_sep")


def reason(result: Event, lang: str) -> str:
    """Why a game ended, in `lang`: from its code (older logs: its English)."""
    return refusals.reason(result, lang)


def t(key: str, lang: str, **kw: Any) -> Line:
    """The story line `story.<key>` (i18n/*.po), its marks kept."""
    return parse(i18n.template(lang, f"story.{key}"), **kw)


def result(res: str, lang: str) -> str:
    """A roll's result as it is told, with the damage it deals: "below DEF, 1 damage"
    (R8.2: a roll under DEF is not a miss to the monster; it still takes 1)."""
    return i18n.t(lang, f"roll.{res}")


def s(key: str, lang: str, **kw: Any) -> str:
    """A piece of a line (no marks of its own) as words, to go into another line."""
    return str(t(key, lang, **kw))


def s_hp(e: Event, lang: str) -> str:
    """" (HP 4/6)" after a healed unit, when the event reports its HP (newer logs do)."""
    return i18n.t(lang, "story.hp_suffix", left=e["hp_left"], hp=e["hp"]) if "hp" in e else ""


def _mod(mod: int) -> str:
    """A roll's modifier as it is added: "+1", "+0", "−1" (R8.2)."""
    return f"+{mod}" if mod >= 0 else f"−{-mod}"


def _hp(e: Event, cs: CardSet, lang: str) -> str:
    """"Knight on 3A: 1 damage (HP 3/6)" for a `damaged` event."""
    card = e["card"]
    name = cs.name(card, lang) if card else "?"
    hp = e.get("hp")
    if hp is None:  # an event recorded before the engine reported HP (old logs)
        return s("damage", lang, card=name, square=e["square"], amount=e["amount"],
                 left="?", hp="?")
    return s("damage", lang, card=name, square=e["square"], amount=e["amount"],
             left=e["hp_left"], hp=hp)


def narrate(events: Sequence[Event], names: list[str], cs: CardSet, lang: str = "en",
            limit: int | None = None) -> list[Line]:
    """Readable lines for already-filtered events; every line, unless `limit` asks for a
    cut (a story longer ends with a count). A channel's posts are its record and are told
    whole, in as many messages as they take (cogs/pages.py `pages`).

    A monster's attack is told with the damage it did and the HP left ("Lich on 6A attacks
    Knight on 3A: 1 damage (HP 3/6)"), so the `damaged` events it caused are folded into
    its line; consecutive monster moves on one board share a line ("Goblin 5B → 3B, …").
    """
    story = _Story(events, names, cs, lang)
    for k, e in enumerate(events):
        story.tell(k, e)
    story.flush_moves()
    lines = story.lines
    if limit is not None and len(lines) > limit:
        lines = lines[:limit - 1] + [text(f"… (+{len(lines) - limit + 1})")]
    return lines


_SILENT = ("chip", "done", "autosave", "merc_claimed", "resolved")
"""Events told by no line; a pending moves line may go on after them."""


class _Story:
    """One telling: the lines so far, and what a later event may still fold into them (a
    summon on every board, damage an attack did, a board's monster moves)."""

    def __init__(self, events: Sequence[Event], names: list[str], cs: CardSet,
                 lang: str) -> None:
        self.events, self.names, self.cs, self.lang = events, names, cs, lang
        self.lines: list[Line] = []
        self.summons: tuple[int, str, str, list[str]] | None = None  # last line: a summon
        self.used: set[int] = set()  # damaged events already told inside an attack's line
        self.moves: tuple[int, list[str]] | None = None  # the board whose moves are pending

    def n(self, key: str | None) -> str:
        """A card's name in the reader's language ("?" when the event names none)."""
        return self.cs.name(key, self.lang) if key else "?"

    def add(self, key: str, **kw: Any) -> None:
        self.lines.append(t(key, self.lang, **kw))

    def join(self, items: Iterable[str]) -> str:
        return sep(self.lang).join(items)

    def flush_moves(self) -> None:
        if self.moves is not None:
            self.add("monster_moves", p=self.names[self.moves[0]], moves=self.join(self.moves[1]))
            self.moves = None

    def tell(self, k: int, e: Event) -> None:
        kind = e["type"]
        if kind == "monster_moved":
            self.monster_moved(e)
            return
        if kind in _SILENT:
            return
        self.flush_moves()
        teller = _TELLERS.get(kind)
        if k in self.used or teller is None:
            return
        p = self.names[e["player"]] if e.get("player") is not None else ""
        teller(self, k, e, p)

    def monster_moved(self, e: Event) -> None:
        seat = e["player"]
        if self.moves is not None and self.moves[0] != seat:
            self.flush_moves()
        step = s("monster_move", self.lang, card=self.n(e["card"]), to=e["to"],
                 **{"from": e["from"]})
        step += s("bonus", self.lang) if e.get("bonus") else ""
        self.moves = self.moves or (seat, [])
        self.moves[1].append(step)


_Teller = Callable[[_Story, int, Event, str], None]


def _phase(st: _Story, k: int, e: Event, p: str) -> None:
    if e["phase"] == "main":
        st.add("phase_main", round=e["round"], start=st.names[e["start_player"]])
    else:
        st.add(f"phase_{e['phase']}")


def _card(st: _Story, k: int, e: Event, p: str) -> None:
    if e["auto"]:
        st.add("card_auto", card=st.n(e["card"]))


def _rolled(st: _Story, k: int, e: Event, p: str) -> None:
    mod = e.get("mod", e["total"] - sum(e["dice"]))
    st.add("rolled", p=p, d1=e["dice"][0], d2=e["dice"][1], mod=_mod(mod), total=e["total"],
           result=result(e["result"], st.lang), target=e["target"],
           attacker=st.n(e.get("attacker")), card=st.n(e.get("card")),
           again=s("rerolled", st.lang) if e.get("rerolled") else "",
           **{"from": e["from"], "def": e.get("def", "?")})


def _damaged(st: _Story, k: int, e: Event, p: str) -> None:
    hit = _hp(e, st.cs, st.lang)
    if e.get("by"):  # an allocated attack: its line names the attacker
        st.add("damaged_by", p=p, attacker=st.n(e["by"]), hit=hit, **{"from": e.get("from", "?")})
    else:
        st.add("damaged", p=p, hit=hit)


def _monster_attacked(st: _Story, k: int, e: Event, p: str) -> None:
    """The damage the attack did is told in its line (and not again)."""
    hits = []
    for j in range(k + 1, len(st.events)):
        d = st.events[j]
        if d["type"] in ("monster_attacked", "monster_moved", "phase", "resolved"):
            break
        if (d["type"] == "damaged" and d.get("player") == e["player"]
                and d["square"] in e["targets"] and j not in st.used):
            st.used.add(j)
            hits.append(_hp(d, st.cs, st.lang))
    targets = i18n.t(st.lang, "story.hits_sep").join(hits) or st.join(e["targets"])
    st.add("monster_attacked", p=p, card=st.n(e["card"]), targets=targets,
           **{"from": e["from"]})


def _summoned(st: _Story, k: int, e: Event, p: str) -> None:
    """The same summon on every board is one line naming every board."""
    card, square = st.n(e["card"]), e["square"]
    last = st.summons
    if last is not None and last[0] == len(st.lines) - 1 and last[1:3] == (card, square):
        last[3].append(p)
        st.lines[-1] = t("summoned", st.lang, p=i18n.join(st.lang, last[3]), card=card, square=square)
    else:
        st.summons = (len(st.lines), card, square, [p])
        # solo: one board, so naming its player ("(P1)") only puzzled (new-player audit)
        st.add("summoned" if len(st.names) > 1 else "summoned_solo", p=p, card=card,
               square=square)


def _on_square(st: _Story, k: int, e: Event, p: str) -> None:
    st.add(e["type"], p=p, card=st.n(e["card"]), square=e["square"])


def _declared(st: _Story, k: int, e: Event, p: str) -> None:
    """R14.3: who declared, with the medals each reveals and the threat it makes; several:
    what decides between them (R14.4), so the table can check the winner."""
    d: Mapping[str, Any] = e
    players = [int(w) for w in d["players"]]
    st.add("declared", players=st.join(st.names[w] for w in players))
    facts: list[list[Any]] = [f for f in (d.get(key) for key in ("threat", "medals", "marks", "gold"))
                              if isinstance(f, list) and len(f) == len(players)]
    if len(facts) < 4:
        return  # told as it was before the event carried them
    for w, threat, medals, marks, gold in zip(players, *facts, strict=True):
        st.add("declared_by", p=st.names[w], threat=threat, medals=medals, marks=marks,
               gold=gold)
    if len(players) > 1:
        st.add("declared_several")


def _invaded(st: _Story, k: int, e: Event, p: str) -> None:
    st.add("invaded", p=p, card=st.n(e["card"]))
    if e.get("first"):  # a new player must learn the cost before the second one
        st.add("invaded_first", p=p)


def _eliminated(st: _Story, k: int, e: Event, p: str) -> None:
    """Why a player is out, told with it (the new-player audit: "☠ Ann is eliminated." did
    not say why): the invasion just before it was a boss's or a second monster's (R9.2);
    a resignation or a removal for absence says so itself."""
    if e.get("resigned"):
        st.add("resigned", p=p)
        return
    inv = next((x for x in reversed(st.events[:k])
                if x["type"] == "invaded" and x.get("player") == e.get("player")), None)
    if inv is None:
        st.add("eliminated", p=p)
        return
    boss = st.cs.monsters[inv["card"]].red
    st.add("eliminated_boss" if boss else "eliminated_second", p=p, card=st.n(inv["card"]))


_ONE_HEAL = ("type", "player", "square", "by", "from", "support")


def _same_heal(a: Event, b: Event) -> bool:
    """Two points of one heal ×N on the same unit (R8.2: the engine logs each point)."""
    return all(a.get(f) == b.get(f) for f in _ONE_HEAL)


def _healed(st: _Story, k: int, e: Event, p: str) -> None:
    """One line per unit healed: a heal ×2 on one unit reads "heals … 2 (HP 4/4)", told by
    the last of its points, which carries the HP it ends with (the new-player audit read
    two lines and thought it two heals)."""
    if k + 1 < len(st.events) and _same_heal(st.events[k + 1], e):
        return
    n = 1
    while k - n >= 0 and _same_heal(st.events[k - n], e):
        n += 1
    key = ("healed_support" if e.get("support") else
           # a healer healing itself reads "itself" / 自分の, not its own square and name twice
           "healed_self" if e.get("by") and e.get("from") == e["square"] else
           "healed_by" if e.get("by") else "healed")  # older logs do not name the healer
    st.add(key, p=p, square=e["square"], card=st.n(e.get("card")), hp=s_hp(e, st.lang),
           healer=st.n(e.get("by")), n=n, **{"from": e.get("from", "?")})


def _game_over(st: _Story, k: int, e: Event, p: str) -> None:
    key = ("game_over_loss" if not e["winners"] else
           "game_over_draw" if e["draw"] else "game_over_win")
    st.add(key, winners=st.join(st.names[w] for w in e["winners"]), reason=reason(e, st.lang))


def _gold(st: _Story, k: int, e: Event, p: str) -> None:
    if e["amount"]:
        st.add("gold", p=p, amount=e["amount"], total=e["total"])


def _rolls(st: _Story, k: int, e: Event, p: str) -> None:
    if e.get("mode") in ("miss", "always"):
        st.add(f"rolls_{e['mode']}", p=p)  # what the setting now changes


def _fields(st: _Story, k: int, e: Event, p: str) -> None:
    """An event whose fields are the line's parameters as they are."""
    st.add(e["type"], p=p, **{k2: v for k2, v in e.items() if k2 not in ("type", "player")})


def _timeout(st: _Story, k: int, e: Event, p: str) -> None:
    """A time-out's default answer; when it is a chooser's pass, the pass line that follows
    says both ("ran out of time and chose no card"), so it is told once (the group audit
    read it twice in one post)."""
    after: Mapping[str, Any] = st.events[k + 1] if k + 1 < len(st.events) else {}
    if after.get("type") == "passed" and after.get("player") == e.get("player"):
        return
    _fields(st, k, e, p)


_TELLERS: dict[str, _Teller] = {
    "phase": _phase,
    "card": _card,
    # what LEADER means, said where it is read (the Discord new-player audit); alone, there
    # is nobody to follow
    "picked": lambda st, k, e, p: st.add("picked" if len(st.names) > 1 else "picked_solo", p=p,
                                         card=st.n(e["card"])),
    "rolled": _rolled,
    "damaged": _damaged,
    "moved": lambda st, k, e, p: st.add("moved", p=p, card=st.n(e["card"]),
                                        path="→".join(e["path"])),
    "monster_attacked": _monster_attacked,
    "summoned": _summoned,
    **dict.fromkeys(("defeated", "fainted", "recruited", "placed"), _on_square),
    "queued": lambda st, k, e, p: st.add("queued", p=p, card=st.n(e["card"]), lane=e["lane"]),
    "invaded": _invaded,
    "levelup": lambda st, k, e, p: st.add("levelup", p=p, square=e["square"],
                                          card=st.n(e["card"]), price=e["price"]),
    "command": lambda st, k, e, p: st.add("command", p=p, target=e["target"],
                                          **{"from": e["from"]}),
    "area": lambda st, k, e, p: st.add("area", p=p, squares=st.join(e["squares"]) or "—",
                                       **{"from": e["from"]}),
    "fullmove": lambda st, k, e, p: st.add("fullmove", p=p, square=e["square"]),
    "declared": _declared,
    "readied": lambda st, k, e, p: st.add("readied", p=p, squares=st.join(e["squares"])),
    "healed": _healed,
    "gold": _gold,
    "mercenaries": lambda st, k, e, p: st.add(
        "mercenaries", cards=st.join(st.n(c) if c else "—" for c in e["cards"])),
    "rolls": _rolls,
    "medal_value": lambda st, k, e, p: st.add("medal_value", value=e["value"]),
    "final_round": lambda st, k, e, p: st.add("final_round", round=e["round"]),
    "game_over": _game_over,
    "timeout": _timeout,
    "eliminated": _eliminated,
    **dict.fromkeys(("honor", "medal", "merc_taken", "willpower", "undo", "passed"), _fields),
}
"""How each kind of event is told (engine.types.Event); a kind not here is not told."""


# ---- prompts: what a player can do now ------------------------------------------------------

def _word(lang: str, value: Any) -> Any:
    """A prompt's parameter in `lang`: the engine gives card names in both languages
    (`Name`), catalogue pieces (`Phrase`) and lists (`Items`), never words of its own."""
    if isinstance(value, Name):
        return value._asdict().get(lang, value.en)
    if isinstance(value, Phrase):
        return i18n.t(lang, value.code, **{k: _word(lang, v) for k, v in value.params.items()})
    if isinstance(value, Items):
        return sep(lang).join(str(_word(lang, v)) for v in value.items)
    return value


def prompt(game: Game, seat: int, lang: str = "en") -> Line | None:
    """What `seat` is asked now, or None when nothing is asked: the decision kind declares
    its prompt (engine/decisions.py); the words are the catalogue's."""
    ask = game.prompt(seat)
    if ask is None:
        return None
    template = (i18n.template(lang, ask.key) if ask.count is None
                else i18n.plural_template(lang, ask.key, ask.count))
    return parse(template, **{k: _word(lang, v) for k, v in ask.params.items()})
