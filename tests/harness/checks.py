"""Checks of what the bot sends: message payloads are validated as Discord would
(lengths, counts, component rules) and refused with the API's own error shape.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from .model import (
    COMPONENTS_V2,
    HTTPError,
    RecordedFile,
    _walk_components,
)

# --------------------------------------------------------------------------- payload validation


def _validate_message_payload(
    body: Mapping[str, Any], files: Sequence[RecordedFile], *, creating: bool
) -> dict[str, Any]:
    """Discord's server-side limits; returns an ``errors`` dict (empty when valid).

    Real Discord answers 400 / 50035 for these, so a bug like a 120-char custom_id or
    a 2001-char content shows up in tests instead of in production.
    """
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
                if (
                    not 1 <= len(str(opt.get("label", ""))) <= 100
                    or not 1 <= len(str(opt.get("value", ""))) <= 100
                ):
                    err("components.options", "Select option label/value must be 1-100 characters.")
        if ctype in (3, 5, 6, 7, 8):
            lo, hi = int(comp.get("min_values", 1)), int(comp.get("max_values", 1))
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


def _raise_for_payload(errors: dict[str, Any]) -> None:
    if not errors:
        return
    if errors.pop("_empty", None) and not errors:
        raise HTTPError(400, "Cannot send an empty message", code=50006)
    raise HTTPError(400, "Invalid Form Body", code=50035, errors=errors)
