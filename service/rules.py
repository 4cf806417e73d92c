"""The rules in short, for players: `/rr rules` and the console's `rules`, from one text.

Messages cite rule ids, "(R11.1)", so a refusal or a story line can say which rule decided;
an id only means something when the player can open it. So the rules reference
(`docs/rules.md`, Japanese `docs/rules.ja.md`, the project's own words, never the rulebook's)
names in each section's heading the rule ids it explains, and both interfaces open a section
by its topic key, its title or any id it explains ("R11", "R11.1", "r11"). The files are read
once, on first use of each language; `tests/test_rules_reference.py` checks that every id a
player can read in the catalogue opens a section.

RULES.md (the engine's specification) is never read at run time.
"""

from __future__ import annotations

import re
import unicodedata
from functools import cache
from pathlib import Path
from typing import NamedTuple

DOCS = Path(__file__).resolve().parent.parent / "docs"
# one file per language (`rules.md` English, `rules.<lang>.md`); a language without one reads English
FILES = {"en": DOCS / "rules.md", **{p.name.split(".")[1]: p for p in DOCS.glob("rules.*.md")}}

RULE_ID = re.compile(r"\bR(\d{1,2})(?:\.(\d{1,2}))?\b")
"""A rule id as messages cite it: R11, R11.1 (RULES.md's numbering)."""


INTERFACES = ("Discord", "Console")
"""A body line that starts "Discord: " or "Console: " is for that interface only: the rules
are one, how a player types an answer is not (`/rr pick` in Discord, `pick advance` at the
console)."""


class Section(NamedTuple):
    key: str  # the topic's key: "end"
    title: str  # in the file's language: "⑦ End phase"
    rules: tuple[str, ...]  # the ids it explains: ("R11",), ("R8.2",)
    body: str  # Discord markdown, every interface's lines (`INTERFACES`) marked

    def read(self, where: str) -> str:
        """The body as `where` ("Discord" or "Console") shows it: its own lines unmarked,
        the other interface's left out."""
        out = []
        for line in self.body.splitlines():
            mark, _, rest = line.partition(": ")
            if mark not in INTERFACES:
                out.append(line)
            elif mark == where:
                out.append(rest)
        return "\n".join(out)


@cache
def sections(lang: str) -> dict[str, Section]:
    """key → section, in file order (`## key | Title | R11 R11.1` headings)."""
    text = FILES.get(lang, FILES["en"]).read_text(encoding="utf-8")
    out: dict[str, Section] = {}
    head: list[str] | None = None
    body: list[str] = []

    def close() -> None:
        if head:
            key, title, ids = (head + ["", ""])[:3]
            out[key] = Section(key, title or key, tuple(ids.split()), "\n".join(body).strip())

    for line in text.splitlines():
        if line.startswith("## "):
            close()
            head = [part.strip() for part in line[3:].split("|")]
            body = []
        elif head is not None:
            body.append(line)
    close()
    return out


def rule_id(words: str) -> str | None:
    """"R11" / "r11.1" / "（Ｒ１１）" as the canonical id ("R11", "R11.1"), or None."""
    m = RULE_ID.fullmatch(unicodedata.normalize("NFKC", words).strip().strip("()（）").upper())
    return None if m is None else "R" + m.group(1) + (f".{m.group(2)}" if m.group(2) else "")


def find(words: str, lang: str) -> Section | None:
    """The section a player asked for: a rule id (its own section, else its chapter's), a
    topic key or a title (either language's, any case), else the section that uses the
    word most (`mentioning`); None when nothing matches."""
    secs = sections(lang)
    rid = rule_id(words)
    if rid is not None:
        chapter = rid.split(".")[0]
        for want in (rid, chapter):
            for sec in secs.values():
                if want in sec.rules:
                    return sec
        return None
    asked = _plain(words)
    asked = SPOKEN.get(asked, asked)
    for k, sec in secs.items():
        titles = {_plain(sec.title)} | {_plain(o[k].title) if k in o else k
                                         for o in map(sections, FILES)}
        if asked == k or asked in titles or asked in {t.lstrip("0123456789 ") for t in titles}:
            return sec
    for other in (lang, *FILES):  # the reader's words first, then a word typed in another
        hit = mentioning(asked, sections(other))
        if hit is not None:
            return secs.get(hit.key)
    return None


def mentioning(asked: str, secs: dict[str, Section]) -> Section | None:
    """The section that explains a word it is not named after ("threat", "medal",
    "Willpower", 脅威): the one whose title or text uses it most, the title counting for
    more; None when none uses it. A player types the word a message used, not our topic
    keys (`/rr rules threat` found nothing while the winning section defines threat)."""
    if not _searchable(asked):
        return None
    best, most = None, 0
    for sec in secs.values():
        n = 5 * len(_uses(asked, sec.title)) + len(_uses(asked, sec.body))
        if n > most:
            best, most = sec, n
    return best


# The rulebook's Latin-letter terms (LEADER, FOLLOWER, AUTO), which the Japanese texts
# keep, as a Japanese player says them: searched for as written.
SPOKEN = {"リーダー": "leader", "フォロワー": "follower", "オート": "auto",
          # how a newcomer asks where to begin: the overview, where `start` opened the
          # daily challenge (its text "starts" it; the Discord new-player audit)
          **dict.fromkeys(("start", "begin", "help", "how to play", "basics", "はじめ",
                           "始め方", "遊び方", "ヘルプ", "基本"), "overview")}

# Words every section uses: a search by them opened whichever used them most (the
# verification audit: "the" opened the daily, "is" the overview).
COMMON = frozenset("""a an and are as at be by can do for from has have in is it its no not
of on or so that the their then there they this to was what when who will with you your
する です ます こと ある いる ない""".split())


def _searchable(word: str) -> bool:
    """A word worth searching the sections for: no common word, square ("2B") or number; a
    Latin word of three letters or more (a Japanese one may be one kanji: 城, 金)."""
    if word in COMMON or re.fullmatch(r"[1-6][a-c]|\d+", word):
        return False
    return len(word) >= 3 or not word.isascii()


def _uses(word: str, text: str) -> list[str]:
    """Where `text` uses `word`: as a whole word, plurals too ("threat" in "Threat =",
    "medals"), or anywhere for a word in a script without spaces (脅威 in 脅威ポイント)."""
    plain = _plain(text)
    if word.isascii():
        stems = {word, re.sub(r"(?<=...)e?s$", "", word), re.sub(r"(?<=...)s$", "", word)}
        either = "|".join(map(re.escape, sorted(stems, key=len, reverse=True)))
        return re.findall(rf"(?<![a-z])(?:{either})(?:s|es)?(?![a-z])", plain)
    return re.findall(re.escape(word), plain)


def _plain(words: str) -> str:
    """How a typed topic compares: full-width and circled digits folded, any case."""
    return unicodedata.normalize("NFKC", words).strip().casefold()


def cited(text: str) -> list[str]:
    """The rule ids a text cites ("…(R7, R11.2)" → ["R7", "R11.2"])."""
    return ["R" + m.group(1) + (f".{m.group(2)}" if m.group(2) else "")
            for m in RULE_ID.finditer(text)]
