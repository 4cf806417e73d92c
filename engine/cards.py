"""Card definitions, loaded from a data file so a group can type in its printed values.

The engine never hard-codes a card statistic: everything comes from `data/cards.json`
(CARDS.md's default set) or from a set passed at setup. Lookups are by card key
(`goblin`, `thief_star`, `warrior`, …); names in English or Japanese resolve to keys,
case- and ★-insensitively, for every interface's input.

Released card sets are versioned (issue 17): a game must replay with the values it was
started with, so every default set a release shipped is kept, frozen, as
`data/cards/v<N>.json` and a game's setup names its version (`cards_version`). The working
file `data/cards.json` is what new games are dealt with; it must always be a released
version (a test guards it), so a balance change is released by adding the next version file
— a released file is never edited (docs/deploy.md).
"""

from __future__ import annotations

import difflib
import json
import unicodedata
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from functools import cache, lru_cache
from pathlib import Path
from typing import Any

DATA_FILE = Path(__file__).with_name("data") / "cards.json"
RELEASED_DIR = Path(__file__).with_name("data") / "cards"  # v1.json … vN.json, never edited

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


def local_name(names: Mapping[str, str], lang: str) -> str:
    """One of the names the card data carries per language (`en`, `ja`): a language whose
    words are only in its catalogue reads the English name, as it reads a missing entry."""
    return names.get(lang) or names["en"]


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
    def names(self) -> dict[str, str]:
        return {"en": self.en, "ja": self.ja}

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

    @property
    def names(self) -> dict[str, str]:
        return {"en": self.en, "ja": self.ja}


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
        """Display name of a unit, monster or command card in a language (`local_name`)."""
        if key in self.units:
            c: UnitCard | MonsterCard = self.units[key]
        elif key in self.monsters:
            c = self.monsters[key]
        elif key in self.commands:
            en, ja = self.commands[key]
            return local_name({"en": en, "ja": ja}, lang)
        else:
            return key
        return local_name(c.names, lang)

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


CLOSE = 0.75  # how alike a typo and its name are (difflib's ratio): `theif`/`thief` 0.8,
# `advanc`/`advance` 0.92; two other names are less alike (`archer`/`lancer` 0.67,
# `advance`/`lancer` 0.62: "did you mean Lancer?" for an Archer not on offer misled)


def closest(text: str, named: Iterable[tuple[str, str]],
            known: Iterable[str] = ()) -> str | None:
    """The key whose name `text` most likely mistypes (`theif` → Thief★, `advanc` →
    Advance, hiragana `しーふ` → シーフ★), None when no name is close, or when `text` is
    itself one of the `known` names (a card that is not on offer is no typo): a newcomer's
    typo is answered with the name meant (new-player audit). `named`: (printed name, key)
    pairs."""
    def fold(name: str) -> str:  # hiragana as katakana: the printed names are katakana
        return "".join(chr(ord(ch) + 0x60) if "ぁ" <= ch <= "ゖ" else ch
                       for ch in normalize_name(name))
    keys = {fold(name): key for name, key in named}
    want = fold(text)
    if want in keys:  # written otherwise (hiragana for katakana): the name itself
        return keys[want]
    if not want or want in {fold(name) for name in known}:
        return None
    best = difflib.get_close_matches(want, list(keys), n=1, cutoff=CLOSE)
    return keys[best[0]] if best else None


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


class UnknownCardsVersion(ValueError):
    """A setup names a card set version this release does not have: the game was started by
    a newer release. Refused rather than played with other values (issue 17)."""

    def __init__(self, version: object) -> None:
        super().__init__(f"card set version {version!r} is not known to this release "
                         f"(it knows 1 to {released_versions()[-1]}): the game was started "
                         "by a newer release")
        self.version = version


@lru_cache(maxsize=1)
def released_versions() -> tuple[int, ...]:
    """Every released card set version, oldest first (the files of `RELEASED_DIR`)."""
    return tuple(sorted(int(p.stem[1:]) for p in RELEASED_DIR.glob("v*.json")
                        if p.stem[1:].isdigit()))


@cache
def released_at(version: int) -> float:
    """When `version` reached main (POSIX seconds): no game created earlier was dealt it.
    A version missing from `released.json` counts as never released (a test keeps the index
    complete)."""
    index = json.loads((RELEASED_DIR / "released.json").read_text(encoding="utf-8"))
    at = index["versions"].get(str(version), {}).get("at")
    return datetime.fromisoformat(at).timestamp() if at else float("inf")


@cache
def unrecorded_versions() -> tuple[int, ...]:
    """The sets a game stored without a version can have been dealt: those of the releases
    before versions were recorded (`released.json` `unrecorded_up_to`), whenever the game
    was created — an old release may run on after a newer set reached main."""
    index = json.loads((RELEASED_DIR / "released.json").read_text(encoding="utf-8"))
    up_to = int(index["unrecorded_up_to"]["version"])
    return tuple(v for v in released_versions() if v <= up_to)


def released_cards(version: int) -> CardSet:
    """A released card set, exactly as that release dealt and judged with it."""
    if type(version) is not int or version not in released_versions():
        raise UnknownCardsVersion(version)
    return _released(version)


@cache
def _released(version: int) -> CardSet:
    path = RELEASED_DIR / f"v{version}.json"
    return parse_cardset(json.loads(path.read_text(encoding="utf-8")))


_default_version: tuple[CardSet, int | None] | None = None


def default_version() -> int | None:
    """The released version new games are dealt with: the one equal to `default_cards()`.
    None only while a process plays an unreleased draft as its default (the simulator's
    `--cards`, balance work): such games record no version and belong to that process."""
    global _default_version
    cs = default_cards()
    if _default_version is None or _default_version[0] is not cs:  # the default was swapped
        found = next((v for v in reversed(released_versions())
                      if _same(released_cards(v), cs)), None)
        _default_version = (cs, found)
    return _default_version[1]


def _same(a: CardSet, b: CardSet) -> bool:
    """Equal values in the same order: decks are built in the set's order, so a set with the
    same values listed otherwise would deal other games."""
    return a == b and list(a.units) == list(b.units) and list(a.monsters) == list(b.monsters) \
        and list(a.commands) == list(b.commands)


def cards_for(setup: Mapping[str, Any]) -> CardSet:
    """The card set a game plays with, from its setup: its custom set (`cards`), else the
    released version it names (`cards_version`), else — a setup from before versions, which
    store migration 4 gives one — the process's default set."""
    custom = setup.get("cards")
    if custom:
        return _custom(json.dumps(custom, sort_keys=True))
    version = setup.get("cards_version")
    if version is not None:
        return released_cards(version)
    return default_cards()


@lru_cache(maxsize=8)
def _custom(text: str) -> CardSet:
    return parse_cardset(json.loads(text))


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
