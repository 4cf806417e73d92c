"""Card definitions, loaded from a data file so a group can type in its printed values.

The engine never hard-codes a card statistic: everything comes from `data/cards.json`
(CARDS.md's default set) or from a set passed at setup. Lookups are by card key
(`goblin`, `thief_star`, `warrior`, …); names in English or Japanese resolve to keys,
case- and ★-insensitively, for every interface's input.
"""

from __future__ import annotations

import json
import unicodedata
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

DATA_FILE = Path(__file__).with_name("data") / "cards.json"

Offset = tuple[int, int]


@dataclass(frozen=True, slots=True)
class Skill:
    """A unit skill (R8.2). `range_any` stands for the whole board (p.14)."""

    kind: str  # dice | heal | area | allocated | command
    range: tuple[Offset, ...]
    range_any: bool = False
    gaps: tuple[Offset, ...] = ()
    mod: int = 0
    n: int = 0
    long: bool = False


@dataclass(frozen=True, slots=True)
class UnitCard:
    key: str
    en: str
    ja: str
    cost: int
    hp: int
    mov: int
    skill: Skill
    job: str | None  # basic job for ★ and level-up cards, else None
    levelled: bool  # a black-frame level-up card (R12.2)
    copies: int

    @property
    def star(self) -> bool:
        """A ★ basic-job card: the only kind that can level up."""
        return self.job is not None and not self.levelled


@dataclass(frozen=True, slots=True)
class MonsterCard:
    key: str
    en: str
    ja: str
    level: int
    copies: int
    threat: int
    red: bool  # boss: invading eliminates, defeating grants a medal (R9.2, R14.1)
    hp: int
    defense: int
    mov: int
    atk: int
    area: bool  # ★ range hits every unit in it; numbered range hits one (R9.1)
    range: tuple[Offset, ...]


@dataclass(frozen=True, slots=True)
class CardSet:
    units: dict[str, UnitCard]
    monsters: dict[str, MonsterCard]
    starting_hand: tuple[str, ...]
    commands: dict[str, tuple[str, str]]
    medals: tuple[int, ...]
    # The name index lives on the set itself: a cache keyed by id() handed a new set the index
    # of a freed one whose id it reused, so names resolved to another set's cards.
    _names: dict[str, str] = field(default_factory=dict, init=False, repr=False,
                                   compare=False)

    def unit(self, key: str) -> UnitCard:
        return self.units[key]

    def levelup_of(self, job: str) -> str:
        """The level-up card key for a basic job (R12.2)."""
        for c in self.units.values():
            if c.levelled and c.job == job:
                return c.key
        raise KeyError(job)

    def name(self, key: str, lang: str = "en") -> str:
        """Display name of a unit, monster or command card in a language (en/ja)."""
        if key in self.units:
            c: UnitCard | MonsterCard = self.units[key]
        elif key in self.monsters:
            c = self.monsters[key]
        elif key in self.commands:
            en, ja = self.commands[key]
            return ja if lang == "ja" else en
        else:
            return key
        return c.ja if lang == "ja" else c.en

    def resolve(self, text: str) -> str | None:
        """Map a typed name (English, Japanese or key; any case, ★ optional) to a card key."""
        if not self._names:
            self._names.update(_name_index(self))
        return self._names.get(normalize_name(text))


def normalize_name(text: str) -> str:
    """Fold case, width, spaces and the ★ mark so `thief`, `Thief★`, `ｼｰﾌ★` compare equal."""
    t = unicodedata.normalize("NFKC", text).casefold()
    for ch in ("★", "☆", "*", " ", "_", "-", "・"):
        t = t.replace(ch, "")
    return t


def _offsets(raw: Any) -> tuple[Offset, ...]:
    return tuple((int(f), int(s)) for f, s in raw)


def _skill(raw: dict[str, Any]) -> Skill:
    rng = raw.get("range", [])
    return Skill(
        kind=raw["kind"],
        range=() if rng == "any" else _offsets(rng),
        range_any=rng == "any",
        gaps=_offsets(raw.get("gaps", [])),
        mod=int(raw.get("mod", 0)),
        n=int(raw.get("n", 0)),
        long=bool(raw.get("long", False)),
    )


def parse_cardset(data: dict[str, Any]) -> CardSet:
    """Build a CardSet from the JSON structure of `data/cards.json`."""
    units: dict[str, UnitCard] = {}
    for group, levelled in (("units", False), ("levelups", True)):
        for key, u in data[group].items():
            units[key] = UnitCard(
                key=key, en=u["en"], ja=u["ja"], cost=int(u["cost"]), hp=int(u["hp"]),
                mov=int(u["mov"]), skill=_skill(u["skill"]), job=u.get("job"),
                levelled=levelled, copies=int(u["copies"]),
            )
    monsters = {
        key: MonsterCard(
            key=key, en=m["en"], ja=m["ja"], level=int(m["level"]), copies=int(m["copies"]),
            threat=int(m["threat"]), red=m["color"] == "red", hp=int(m["hp"]),
            defense=int(m["def"]), mov=int(m["mov"]), atk=int(m["atk"]),
            area=m["range"]["kind"] == "area", range=_offsets(m["range"]["squares"]),
        )
        for key, m in data["monsters"].items()
    }
    commands = {k: (v["en"], v["ja"]) for k, v in data["commands"].items()}
    return CardSet(units, monsters, tuple(data["starting_hand"]), commands,
                   tuple(int(v) for v in data["medals"]))


@lru_cache(maxsize=1)
def default_cards() -> CardSet:
    """The default set, read once per process (it is immutable)."""
    return parse_cardset(json.loads(DATA_FILE.read_text(encoding="utf-8")))


def _name_index(cs: CardSet) -> dict[str, str]:
    """Every name of every card of `cs`, folded: the first card to claim a name keeps it."""
    idx: dict[str, str] = {}
    for key, c in list(cs.units.items()) + list(cs.monsters.items()):
        for n in (key, c.en, c.ja):
            idx.setdefault(normalize_name(n), key)
    for key, (en, ja) in cs.commands.items():
        for n in (key, en, ja):
            idx.setdefault(normalize_name(n), key)
    return idx
