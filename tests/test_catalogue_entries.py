"""The catalogue (i18n/en.po, i18n/ja.po) holds every text a person reads: each id has its
Japanese, both languages fill the same placeholders and mark the same commands (in the order each language's sentence takes), and every id
the code names literally exists — so a new message can never reach a Japanese player as a
raw id or as English."""

from __future__ import annotations

import ast
import io
import re
import string
from pathlib import Path

import pytest
from babel.messages.pofile import read_po

import i18n
from service import rules as rules_ref
from service.lines import parse

ROOT = Path(__file__).resolve().parent.parent
_TAG = re.compile(r"</?(\w+)>")


def _fields(text: str) -> set[str]:
    return {f for _lit, f, _spec, _conv in string.Formatter().parse(text) if f}


def _entries(po: bytes) -> dict[str, tuple[str, ...]]:
    """id → its texts (one, or every plural form)."""
    out: dict[str, tuple[str, ...]] = {}
    for m in read_po(io.BytesIO(po)):
        if m.id:
            key = m.id[0] if isinstance(m.id, tuple) else m.id
            out[key] = tuple(m.string) if isinstance(m.string, tuple) else (m.string,)
    return out


def _topic_key(command: str) -> str:
    """A command as compared across languages: a rules topic it opens is named in the
    reader's words (`rules topic:commands`, ja `rules topic:コマンドカード`: the new-player
    audit), so it compares as the section it opens."""
    head, sep, value = command.partition("rules topic:")
    found = rules_ref.find(value, "ja") if sep and value and not value.startswith("{") else None
    return head + sep + (found.key if found else value)


def problems(en_po: bytes, ja_po: bytes) -> list[str]:
    """What is wrong between the two catalogues (empty: nothing)."""
    en, ja = _entries(en_po), _entries(ja_po)
    out = [f"{mid}: no Japanese" for mid in en if not all(ja.get(mid, ("",)))]
    out += [f"{mid}: only in Japanese" for mid in ja.keys() - en.keys()]
    for mid in sorted(en.keys() & ja.keys()):
        fields = {frozenset(_fields(x)) for x in en[mid] + ja[mid] if x}
        if len(fields) > 1:
            out.append(f"{mid}: placeholders differ {sorted(map(sorted, fields))}")
        cmds = {tuple(sorted(_topic_key(p.text)
                             for p in parse(x.replace("{", "{{").replace("}", "}}"))
                             if p.mark == "cmd")) for x in en[mid] + ja[mid] if x}
        if len(cmds) > 1:
            out.append(f"{mid}: commands differ {sorted(cmds)}")
    return out


def test_every_message_has_japanese_with_the_same_placeholders_and_commands():
    en = (ROOT / "i18n" / "en.po").read_bytes()
    ja = (ROOT / "i18n" / "ja.po").read_bytes()
    assert problems(en, ja) == []
    assert len(_entries(en)) > 400  # the whole catalogue was read


def test_the_check_fails_on_a_missing_or_mismatched_japanese_entry():
    en = b'msgid "a"\nmsgstr "A {x}"\n\nmsgid "b"\nmsgstr "B <cmd>act</cmd>"\n'
    ja = 'msgid "a"\nmsgstr "あ {y}"\n\nmsgid "b"\nmsgstr "い <cmd>done</cmd>"\n'.encode()
    assert problems(en, ja) == ["a: placeholders differ [['x'], ['y']]",
                                "b: commands differ [('act',), ('done',)]"]
    assert problems(en, b'msgid "a"\nmsgstr ""\n') == ["a: no Japanese", "b: no Japanese"]


def test_marks_are_balanced_in_every_message():
    """Only <b>, <cmd> and <code>, each closed: a stray tag would be shown to players as text."""
    for lang in i18n.LANGS:
        cat = i18n.CATALOGUES[lang]
        texts = list(cat.singular.items()) + [(k, f) for k, fs in cat.plural.items() for f in fs]
        for mid, text in texts:
            stripped = re.sub(r"<(b|cmd|code)>.*?</\1>", "", text, flags=re.S)
            assert not _TAG.search(stripped.replace("<t:", "")), (lang, mid, text)


# ---- every id the code names exists ---------------------------------------------------------

# helpers that add a prefix to the key they are given: (file, function) → prefix
PREFIXED = {
    ("cogs", "t"): "bot.", ("console", "t"): "console.", ("console", "w"): "board.",
    ("service/narrate.py", "t"): "story.", ("service/narrate.py", "s"): "story.",
    ("render", "word"): "image.",
}
DIRECT = {"t", "tn", "template", "plural_template"}  # i18n.t(lang, "id", …)


def _literal_ids() -> list[tuple[str, str]]:
    found: list[tuple[str, str]] = []
    for path in ROOT.glob("*/*.py"):
        rel = path.relative_to(ROOT).as_posix()
        if rel.startswith(("tests/", ".venv/", "bench/", "i18n/")):
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.Call) or not node.args:
                continue
            f = node.func
            if (isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name)
                    and f.value.id == "i18n" and f.attr in DIRECT and len(node.args) > 1):
                arg = node.args[1]
                if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
                    found.append((rel, arg.value))
                continue
            name = f.id if isinstance(f, ast.Name) else (
                f.attr if isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name)
                and f.value.id in ("self", "th") else None)
            prefix = next((p for (where, fn), p in PREFIXED.items()
                           if fn == name and rel.startswith(where)), None)
            arg = node.args[0]
            if prefix and isinstance(arg, ast.Constant) and isinstance(arg.value, str):
                found.append((rel, prefix + arg.value))
    return found


def test_every_id_the_code_names_is_in_the_catalogue():
    ids = _literal_ids()
    assert len(ids) > 200  # the walk finds the code's messages
    known = set(i18n.CATALOGUES["en"].singular) | set(i18n.CATALOGUES["en"].plural)
    assert [(where, mid) for where, mid in ids if mid not in known] == []


@pytest.mark.parametrize("table, keys", [
    ("phase", ("placement", "main", "auto", "invasion", "summon", "end", "over", "setup")),
    ("decision", ("place", "pick", "actions", "ready", "recruit", "support", "roll")),
    ("prompt", ("place", "pick", "actions", "ready", "recruit", "support", "roll")),
    ("level", ("random", "greedy", "expert")),
    ("roll", ("hit", "miss", "critical", "fumble")),
])
def test_every_name_table_covers_the_engines_keys(table, keys):
    """R5's phases, every decision kind, every AI level and every roll result (R8.2) have a
    name in both languages (they are looked up by key, not by a literal id)."""
    for key in keys:
        for lang in i18n.LANGS:
            mid = f"{table}.{key}"
            text = (i18n.plural_template(lang, mid, 2) if i18n.is_plural(mid)
                    else i18n.template(lang, mid))
            assert text != mid, (lang, mid)


def test_one_phase_table_for_images_status_and_console():
    """The images and the bot's status name a phase the same way (they disagreed once)."""
    from cogs.i18n import PHASES, pair
    from render.theme import phase_name

    for lang in i18n.LANGS:
        assert pair(PHASES, "main", lang) == phase_name("main", lang)
        assert pair(PHASES, "invasion", lang) == "⑤ " + phase_name("invasion", lang)
    assert phase_name("invasion", "ja") == "侵略" and phase_name("over", "en") == "Game over"


def test_no_tutorial_line_calls_a_roll_under_def_a_miss():
    """R8.2: an attack under the monster's DEF still deals 1 damage. The dice and boons
    lessons said "below DEF 7, a miss" (外れです) beside a log line saying "1 damage" (the
    Discord audit): a newcomer reads "miss" as nothing."""
    for lang, word in (("en", re.compile(r"\bmiss\b")), ("ja", re.compile("外れ"))):
        entries = _entries((ROOT / "i18n" / f"{lang}.po").read_bytes())
        said = [key for key, texts in entries.items() if key.startswith("tutorial.")
                and any(word.search(x) for x in texts)]
        assert not said, (lang, said)


def test_a_rules_topic_may_be_named_in_the_readers_words_but_must_be_the_same():
    """`rules topic:` may name its topic in Japanese (コマンドカード for `commands`), but
    the same topic: a Japanese text pointing to another section is still caught."""
    en = b'msgid "a"\nmsgstr "<cmd>rules topic:commands</cmd>"\n'
    same = 'msgid "a"\nmsgstr "<cmd>rules topic:コマンドカード</cmd>"\n'.encode()
    other = 'msgid "a"\nmsgstr "<cmd>rules topic:スキル</cmd>"\n'.encode()
    assert problems(en, same) == []
    assert problems(en, other) != []
