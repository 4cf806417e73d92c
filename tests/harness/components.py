"""Views and components: clicking buttons, picking in select menus, submitting modals,
only on messages the user can see and components that are enabled.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from .core import (
    ErrorSpec,
)
from .model import (
    ComponentInfo,
    FakeChannel,
    FakeUser,
    InteractionResult,
    RecordedMessage,
    SchemaViolation,
    _walk_components,
)


class ComponentsMixin:
    """Part of :class:`harness.Harness`; its state lives in HarnessCore."""

    # ----- components

    def _message_for(self, message: RecordedMessage | int) -> RecordedMessage:
        if isinstance(message, int):
            found = self.server.messages.get(message)
            if found is None:
                raise SchemaViolation(f"unknown message id {message}")
            return found
        return self.server.adopt_message(message)

    def _component_on(
        self, user: FakeUser, message: RecordedMessage, custom_id: str | None, label: str | None
    ) -> ComponentInfo:
        if not message.visible_for(user.id):
            raise SchemaViolation(f"{user.name} cannot see message {message.id}")
        component = message.component(custom_id, label=label)
        if component.disabled:
            raise SchemaViolation(f"component {component.custom_id!r} is disabled")
        if component.url:
            raise SchemaViolation(
                f"component {component.label!r} is a link button; clicking opens a URL"
            )
        return component

    def click_payload(
        self,
        user: FakeUser,
        custom_id: str | None = None,
        *,
        message: RecordedMessage | int,
        label: str | None = None,
    ) -> dict[str, Any]:
        """The INTERACTION_CREATE payload of ``click`` without delivering it (for
        ``deliver``); the button must be one the user can see and press."""
        msg = self._message_for(message)
        component = self._component_on(user, msg, custom_id, label)
        if not component.is_button:
            raise SchemaViolation(f"{component.custom_id!r} is not a button; use select()")
        data = {"custom_id": component.custom_id, "component_type": 2}
        return self._interaction_payload(3, user, self.server.channels[msg.channel_id], data, msg)

    async def click(
        self,
        user: FakeUser,
        custom_id: str | None = None,
        *,
        message: RecordedMessage | int,
        label: str | None = None,
        expect_error: ErrorSpec = None,
        expect_response: bool = True,
    ) -> InteractionResult:
        """Click a button (by custom_id or label) on a message the user can see."""
        msg = self._message_for(message)
        payload = self.click_payload(user, custom_id, message=msg, label=label)
        channel = self.server.channels[msg.channel_id]
        return await self.interact(
            payload,
            user,
            channel,
            component_message=msg,
            expect_error=expect_error,
            expect_response=expect_response,
        )

    async def select(
        self,
        user: FakeUser,
        custom_id: str,
        values: Sequence[Any],
        *,
        message: RecordedMessage | int,
        expect_error: ErrorSpec = None,
        expect_response: bool = True,
    ) -> InteractionResult:
        """Pick ``values`` in a select menu (option values, or users/roles/channels)."""
        msg = self._message_for(message)
        component = self._component_on(user, msg, custom_id, None)
        if not component.is_select:
            raise SchemaViolation(f"{custom_id!r} is not a select menu")
        if not component.min_values <= len(values) <= component.max_values:
            raise SchemaViolation(
                f"{custom_id!r} takes {component.min_values}-{component.max_values} values, got {len(values)}"
            )
        resolved: dict[str, dict[str, Any]] = {}
        channel = self.server.channels[msg.channel_id]
        if component.type == 3:
            offered = component.option_values
            bad = [v for v in values if v not in offered]
            if bad:
                raise SchemaViolation(f"{custom_id!r} does not offer {bad}; options are {offered}")
            wire = list(values)
        else:
            type_for = {5: 6, 6: 8, 7: 9, 8: 7}[component.type]
            schema = {"name": custom_id, "type": type_for}
            if component.raw.get("channel_types"):
                schema["channel_types"] = component.raw["channel_types"]
            wire = [self._convert_option("select", schema, v, resolved, channel) for v in values]
        data: dict[str, Any] = {
            "custom_id": custom_id,
            "component_type": component.type,
            "values": wire,
        }
        if resolved:
            data["resolved"] = resolved
        payload = self._interaction_payload(3, user, channel, data, msg)
        return await self.interact(
            payload,
            user,
            channel,
            component_message=msg,
            expect_error=expect_error,
            expect_response=expect_response,
        )

    async def submit_modal(
        self,
        user: FakeUser,
        values: Mapping[str, str | Sequence[str]],
        *,
        modal: InteractionResult | Mapping[str, Any] | None = None,
        channel: FakeChannel | None = None,
        expect_error: ErrorSpec = None,
        expect_response: bool = True,
    ) -> InteractionResult:
        """Submit the modal the bot showed (default: the most recent one).

        ``values`` maps component custom_ids to text (text inputs) or lists (selects);
        required/length limits are enforced like Discord's client does.
        """
        spec = modal.modal if isinstance(modal, InteractionResult) else modal
        spec = spec or self.server.last_modal
        if not spec:
            raise SchemaViolation("no modal was shown")

        def answer(comp: Mapping[str, Any]) -> dict[str, Any]:
            cid = comp.get("custom_id")
            if comp.get("type") == 4:
                text = values.get(cid, comp.get("value") or "") if cid else ""
                text = text if isinstance(text, str) else "".join(text)
                if comp.get("required", True) and not text:
                    raise SchemaViolation(f"modal field {cid!r} is required")
                if len(text) < int(comp.get("min_length", 0)) or len(text) > int(
                    comp.get("max_length", 4000)
                ):
                    raise SchemaViolation(f"modal field {cid!r} length {len(text)} outside limits")
                return {"type": 4, "custom_id": cid, "value": text}
            picked = values.get(cid, []) if cid else []
            return {
                "type": comp.get("type"),
                "custom_id": cid,
                "values": [picked] if isinstance(picked, str) else list(picked),
            }

        unknown = set(values) - {
            c.get("custom_id") for c in _walk_components(spec.get("components") or [])
        }
        if unknown:
            raise SchemaViolation(f"modal has no fields {sorted(unknown)}")
        submitted: list[dict[str, Any]] = []
        for top in spec.get("components") or []:
            if top.get("type") == 1:
                submitted.append(
                    {"type": 1, "components": [answer(c) for c in top.get("components") or []]}
                )
            elif top.get("type") == 18 and top.get("component"):
                submitted.append({"type": 18, "component": answer(top["component"])})
        channel = channel or (
            modal.channel if isinstance(modal, InteractionResult) else self.channel
        )
        data = {"custom_id": spec["custom_id"], "components": submitted}
        origin = modal.message if isinstance(modal, InteractionResult) and modal.type == 3 else None
        payload = self._interaction_payload(5, user, channel, data, origin)
        return await self.interact(
            payload,
            user,
            channel,
            component_message=origin,
            expect_error=expect_error,
            expect_response=expect_response,
        )
