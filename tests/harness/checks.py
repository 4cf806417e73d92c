"""Checks of what the bot sends: message payloads are validated as Discord would
(lengths, counts, component rules), and so is every snowflake the bot names (path ids,
allowed mentions, message references, DM recipients); each is refused with the API's own
error shape.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from .model import (
    COMPONENTS_V2,
    HarnessError,
    HTTPError,
    RecordedFile,
    Request,
    _walk_components,
)

# --------------------------------------------------------------------------- payload validation

# A catalogue's marks (i18n/README.md: `<b>…</b>`, `<cmd>…</cmd>`) are the interfaces' to
# render; one that reaches Discord is shown to a player as it is. Not an API error: a bug.
# A server without boosts takes uploads of 10 MiB in all (Discord's "Uploading Files").
MAX_UPLOAD = 10 * 1024 * 1024
_MARK = re.compile(r"</?(cmd|code)>")


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, Mapping):
        return [s for v in value.values() for s in _strings(v)]
    if isinstance(value, (list, tuple)):
        return [s for v in value for s in _strings(v)]
    return []


def _raise_for_marks(body: Mapping[str, Any]) -> None:
    for part in ("content", "embeds", "components"):
        for text in _strings(body.get(part)):
            if _MARK.search(text):
                raise HarnessError(f"an unrendered catalogue mark in the message's {part}: "
                                   f"{text[:200]!r}")



def _validate_message_payload(
    body: Mapping[str, Any], files: Sequence[RecordedFile], *, creating: bool
) -> dict[str, Any]:
    """Discord's server-side limits; returns an ``errors`` dict (empty when valid).

    Real Discord answers 400 / 50035 for these, so a bug like a 120-char custom_id or
    a 2001-char content shows up in tests instead of in production.
    """
    _raise_for_marks(body)
    errors: dict[str, Any] = {}

    def err(key: str, message: str) -> None:
        errors[key] = {"_errors": [{"code": "BASE_TYPE_INVALID", "message": message}]}

    flags = int(body.get("flags") or 0)
    v2 = bool(flags & COMPONENTS_V2)
    content = body.get("content")
    embeds = body.get("embeds") or []
    components = body.get("components") or []
    if content is not None and len(str(content)) > 2000:
        err("content", "Must be 2000 or fewer in length.")
    if v2 and (content or embeds):
        err("content", "Cannot send content or embeds with components v2.")
    if len(embeds) > 10:
        err("embeds", "Must be 10 or fewer in length.")
    total = 0
    for i, embed in enumerate(embeds):
        limits = {"title": 256, "description": 4096}
        for key, limit in limits.items():
            value = embed.get(key) or ""
            total += len(value)
            if len(value) > limit:
                err(f"embeds.{i}.{key}", f"Must be {limit} or fewer in length.")
        fields_ = embed.get("fields") or []
        if len(fields_) > 25:
            err(f"embeds.{i}.fields", "Must be 25 or fewer in length.")
        for j, fld in enumerate(fields_):
            name, value = str(fld.get("name", "")), str(fld.get("value", ""))
            total += len(name) + len(value)
            if not name or len(name) > 256:
                err(f"embeds.{i}.fields.{j}.name", "Must be between 1 and 256 in length.")
            if not value or len(value) > 1024:
                err(f"embeds.{i}.fields.{j}.value", "Must be between 1 and 1024 in length.")
        footer = (embed.get("footer") or {}).get("text") or ""
        author = (embed.get("author") or {}).get("name") or ""
        total += len(footer) + len(author)
        if len(footer) > 2048:
            err(f"embeds.{i}.footer.text", "Must be 2048 or fewer in length.")
        if len(author) > 256:
            err(f"embeds.{i}.author.name", "Must be 256 or fewer in length.")
    if total > 6000:
        err("embeds", "Embed size exceeds maximum size of 6000")
    if len(files) > 10:
        err("files", "Must be 10 or fewer in length.")
    for k, f in enumerate(files):
        if f.description is not None and len(f.description) > 1024:
            err(f"attachments.{k}.description", "Must be 1024 or fewer in length.")
    if sum(len(f.data) for f in files) > MAX_UPLOAD:
        raise HTTPError(413, "Request entity too large", code=40005)

    if not v2:
        if len(components) > 5:
            err("components", "Must be 5 or fewer in length.")
        for i, row in enumerate(components):
            children = row.get("components") or []
            if row.get("type") != 1:
                err(f"components.{i}", "Top-level components must be action rows.")
                continue
            if not children or len(children) > 5:
                err(f"components.{i}.components", "Must be between 1 and 5 in length.")
            if any(c.get("type") != 2 for c in children) and len(children) > 1:
                err(f"components.{i}.components", "A select menu must be alone in its row.")
    elif sum(1 for _ in _walk_components(components)) > 40:
        err("components", "Must be 40 or fewer in total.")

    seen: set[str] = set()
    for comp in _walk_components(components):
        ctype = comp.get("type")
        custom_id = comp.get("custom_id")
        if ctype == 2 and comp.get("style") == 5:
            if not comp.get("url") or custom_id:
                err("components", "Link buttons need a url and no custom_id.")
        elif ctype in (2, 3, 4, 5, 6, 7, 8):
            if ctype == 2 and comp.get("style") == 6:
                continue  # premium buttons use sku_id
            if not custom_id or len(custom_id) > 100:
                err("components.custom_id", f"custom_id must be 1-100 characters: {custom_id!r}")
            elif custom_id in seen:
                err(
                    "components.custom_id",
                    f"Component custom id cannot be duplicated: {custom_id!r}",
                )
            else:
                seen.add(custom_id)
        if ctype == 2 and len(comp.get("label") or "") > 80:
            err("components.label", "Button label must be 80 or fewer in length.")
        if ctype == 3:
            options = comp.get("options") or []
            if not 1 <= len(options) <= 25:
                err("components.options", "Select menus need 1-25 options.")
            for opt in options:
                if len(str(opt.get("description") or "")) > 100:
                    err("components.options", "Select option description must be 100 or fewer.")
                if (
                    not 1 <= len(str(opt.get("label", ""))) <= 100
                    or not 1 <= len(str(opt.get("value", ""))) <= 100
                ):
                    err("components.options", "Select option label/value must be 1-100 characters.")
        if ctype in (3, 5, 6, 7, 8) and len(comp.get("placeholder") or "") > 150:
            err("components.placeholder", "Placeholder must be 150 or fewer in length.")
        if ctype in (3, 5, 6, 7, 8):
            lo, hi = int(comp.get("min_values", 1)), int(comp.get("max_values", 1))
            if ctype == 3 and hi > len(comp.get("options") or []):
                err("components.max_values", "max_values must be at most the options' count.")
            if not (0 <= lo <= hi <= 25):
                err(
                    "components.min_values",
                    "min_values/max_values must satisfy 0 <= min <= max <= 25.",
                )

    if creating and not errors:
        has_body = (
            bool(content)
            or embeds
            or components
            or files
            or body.get("poll")
            or body.get("sticker_ids")
        )
        if not has_body:
            errors["_empty"] = True
    return errors


def modal_problems(data: Mapping[str, Any]) -> list[str]:
    """Discord's limits on a modal (interaction response type 9): a title of at most 45
    characters, 1-5 rows, custom ids of at most 100, text input labels of at most 45 and
    placeholders of at most 100."""
    problems = []
    if len(str(data.get("title") or "")) > 45:
        problems.append("title: Must be 45 or fewer in length.")
    if len(str(data.get("custom_id") or "")) > 100:
        problems.append("custom_id: Must be 100 or fewer in length.")
    if not 1 <= len(data.get("components") or []) <= 5:
        problems.append("components: Must be between 1 and 5 in length.")
    for comp in _walk_components(data.get("components") or []):
        if len(str(comp.get("custom_id") or "")) > 100:
            problems.append(f"custom_id {comp.get('custom_id')!r}: over 100 characters")
        if comp.get("type") == 4 and len(str(comp.get("label") or "")) > 45:
            problems.append(f"text input label {comp.get('label')!r}: over 45 characters")
        if comp.get("type") == 4 and len(str(comp.get("placeholder") or "")) > 100:
            problems.append("text input placeholder: over 100 characters")
    return problems


class LimitRefusal(HTTPError):
    """Discord's 400 / 50035 for a message over a documented limit (the HTTP edge also
    records it as an `OverLimit` failure: the bot usually only logs it)."""


def _raise_for_payload(errors: dict[str, Any]) -> None:
    if not errors:
        return
    if errors.pop("_empty", None) and not errors:
        raise HTTPError(400, "Cannot send an empty message", code=50006)
    raise LimitRefusal(400, "Invalid Form Body", code=50035, errors=errors)


# --------------------------------------------------------------------------- pings
#
# Discord's "Allowed Mentions Object": without `allowed_mentions` a message's content pings
# everything it names; with it, @everyone/@here only when `parse` holds "everyone", a role
# only when `parse` holds "roles" or `roles` lists its id. Embeds never ping.

_PING_EVERYONE = re.compile(r"@(everyone|here)\b")
_PING_ROLE = re.compile(r"<@&(\d+)>")


def ping_problem(body: Mapping[str, Any]) -> str | None:
    """What a message body would ping that no game message may (@everyone, @here, a role),
    or None. `body` is a message create/edit/followup body or a callback's `data`."""
    content = body.get("content")
    if not isinstance(content, str) or not content:
        return None
    mentions = body.get("allowed_mentions")
    parse = None if mentions is None else list(mentions.get("parse") or [])
    roles = set() if mentions is None else {str(r) for r in mentions.get("roles") or []}
    if (parse is None or "everyone" in parse) and (hit := _PING_EVERYONE.search(content)):
        return f"pings {hit.group(0)}: {content[:200]!r}"
    for role in _PING_ROLE.findall(content):
        if parse is None or "roles" in parse or role in roles:
            return f"pings the role {role}: {content[:200]!r}"
    return None


def request_ping_problem(request: Request) -> str | None:
    """`ping_problem` for whatever message a request carries (a callback's `data` too)."""
    body = request.json
    if not isinstance(body, Mapping):
        return None
    if request.route.endswith("/callback"):
        data = body.get("data")
        return ping_problem(data) if isinstance(data, Mapping) else None
    return ping_problem(body)


# --------------------------------------------------------------------------- snowflakes
#
# Discord's OpenAPI description (github.com/discord/discord-api-spec, specs/openapi.json)
# defines `SnowflakeType` as a string matching ^(0|[1-9][0-9]*)$ (a 64-bit unsigned id;
# JSON numbers are coerced), `MessageAllowedMentionsRequest.users`/`roles` as arrays of
# them with maxItems 100 and uniqueItems, and the path ids of every route as snowflakes.
# The message resource documentation (docs/resources/message, "Allowed Mentions Object")
# adds that `parse` is mutually exclusive with `users`/`roles`: `parse: ["users"]` with a
# non-empty `users` is a validation error (an empty or null list is not). The codes and
# messages are those of the API's 50035 "Invalid Form Body" answers.

_SNOWFLAKE = re.compile(r"(0|[1-9][0-9]*)\Z")
_MAX_SNOWFLAKE = 2**64 - 1
_MENTION_TYPES = ("roles", "users", "everyone")
_MAX_MENTIONS = 100
# Literal ids some routes accept in place of a snowflake.
_PATH_ALIASES = {"user_id": {"@me"}, "message_id": {"@original"}}
_QUERY_SNOWFLAKES = ("before", "after", "around")


class SnowflakeRefusal(HTTPError):
    """Discord's 400 / 50035 for a request naming an id that is not a snowflake (the HTTP
    edge also records it as a `BadSnowflake` test failure)."""


def is_snowflake(value: object) -> bool:
    """What Discord accepts as an id: 0 … 2**64-1, as a JSON number or a decimal string."""
    if isinstance(value, bool):
        return False
    if isinstance(value, int):
        return 0 <= value <= _MAX_SNOWFLAKE
    if isinstance(value, str):
        return _SNOWFLAKE.match(value) is not None and int(value) <= _MAX_SNOWFLAKE
    return False


def _error(code: str, message: str) -> dict[str, Any]:
    return {"_errors": [{"code": code, "message": message}]}


def _not_snowflake(value: object) -> dict[str, Any]:
    return _error("NUMBER_TYPE_COERCE", f'Value "{value}" is not snowflake.')


def _snowflake_list(values: object, errors: dict[str, Any], key: str, *,
                    limit: int | None = None, unique: bool = False) -> None:
    if values is None:
        return
    if not isinstance(values, list):
        errors[key] = _error("LIST_TYPE_CONVERT", "Must be an array.")
        return
    if limit is not None and len(values) > limit:
        errors[key] = _error("BASE_TYPE_MAX_LENGTH", f"Must be {limit} or fewer in length.")
        return
    found: dict[str, Any] = {}
    seen: set[int] = set()
    for k, value in enumerate(values):
        if not is_snowflake(value):
            found[str(k)] = _not_snowflake(value)
        elif unique and int(value) in seen:
            found[str(k)] = _error("SET_TYPE_ALREADY_CONTAINS_VALUE",
                                   "The set already contains this value.")
        else:
            seen.add(int(value))
    if found:
        errors[key] = found


def _allowed_mentions(mentions: object) -> dict[str, Any]:
    if mentions is None:
        return {}
    if not isinstance(mentions, Mapping):
        return _error("DICT_TYPE_CONVERT", "Only dictionaries may be used in a DictType")
    errors: dict[str, Any] = {}
    parse = mentions.get("parse") or []
    bad = {str(k): _error("ENUM_TYPE_COERCE", f'Value "{p}" is not a valid enum value.')
           for k, p in enumerate(parse) if p not in _MENTION_TYPES}
    if bad:
        errors["parse"] = bad
    for kind in ("users", "roles"):
        _snowflake_list(mentions.get(kind), errors, kind, limit=_MAX_MENTIONS, unique=True)
        if kind in parse and mentions.get(kind):
            errors.setdefault("_errors", []).append({
                "code": "MESSAGE_ALLOWED_MENTIONS_PARSE_EXCLUSIVE",
                "message": f'parse:["{kind}"] and {kind}: [ids...] are mutually exclusive.'})
    return errors


def _message_snowflakes(body: Mapping[str, Any]) -> dict[str, Any]:
    """The snowflake fields of a message body (create, edit, followup, callback data)."""
    errors: dict[str, Any] = {}
    if found := _allowed_mentions(body.get("allowed_mentions")):
        errors["allowed_mentions"] = found
    reference = body.get("message_reference")
    if isinstance(reference, Mapping):
        found = {}
        for key in ("message_id", "channel_id", "guild_id"):
            value = reference.get(key)
            if (value is not None or key == "message_id") and not is_snowflake(value):
                found[key] = _not_snowflake(value)
        if found:
            errors["message_reference"] = found
    _snowflake_list(body.get("sticker_ids"), errors, "sticker_ids", limit=3)
    for k, att in enumerate(body.get("attachments") or []):
        if isinstance(att, Mapping) and not is_snowflake(att.get("id")):
            errors.setdefault("attachments", {})[str(k)] = {"id": _not_snowflake(att.get("id"))}
    return errors


def snowflake_errors(request: Request) -> dict[str, Any]:
    """Every field of `request` that must be a snowflake and is not, in Discord's nested
    error shape (empty when all are fine)."""
    errors: dict[str, Any] = {}
    for name, value in request.params.items():
        if (name.endswith("_id") or name == "target") and value not in _PATH_ALIASES.get(
                name, ()) and not is_snowflake(value):
            errors[name] = _not_snowflake(value)
    for name in _QUERY_SNOWFLAKES:
        value = request.query.get(name)
        if value is not None and not is_snowflake(value):
            errors[name] = _not_snowflake(value)
    body = request.json
    if not isinstance(body, Mapping):
        return errors
    recipient = body.get("recipient_id")
    if request.route == "/users/@me/channels" and recipient is not None \
            and not is_snowflake(recipient):
        errors["recipient_id"] = _not_snowflake(recipient)
    if request.route.endswith("/callback"):
        data = body.get("data")
        if isinstance(data, Mapping) and (found := _message_snowflakes(data)):
            errors["data"] = found
    else:
        errors.update(_message_snowflakes(body))
    return errors


def _raise_for_snowflakes(request: Request) -> None:
    if errors := snowflake_errors(request):
        raise SnowflakeRefusal(400, "Invalid Form Body", code=50035, errors=errors)
