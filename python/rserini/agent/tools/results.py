"""What a tool call returns: the text the model sees, details for the harness, an error flag."""

from __future__ import annotations

from dataclasses import dataclass, field

__all__ = ["ToolResult"]


@dataclass(frozen=True)
class ToolResult:
    """One tool result. ``text`` is all the model sees; ``details`` (pi-search's
    ``details`` object, camelCase keys, ``{}`` for an error) goes to the trajectory."""

    text: str
    details: dict[str, object] = field(default_factory=dict)
    is_error: bool = False

    @property
    def content(self) -> list[dict[str, str]]:
        """The result as content blocks: ``[{"type": "text", "text": ...}]``."""
        return [{"type": "text", "text": self.text}]

    def as_pi(self) -> dict[str, object]:
        """pi's tool-result object: ``{"content": [...], "details": {...}}``."""
        return {"content": self.content, "details": self.details}
