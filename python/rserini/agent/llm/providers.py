"""The conversation class and tool shape of each provider."""

from __future__ import annotations

from typing import Any

from rserini.agent.llm.conversation import (
    AnthropicConversation,
    ChatCompletionsConversation,
    Conversation,
    ResponsesConversation,
)
from rserini.agent.llm.model import ENDPOINTS, ModelSpec, sdk_module
from rserini.agent.tools.options import ToolOptions
from rserini.agent.tools.schemas import anthropic_tools, openai_responses_tools, openai_tools

__all__ = ["PROVIDERS", "make_conversation"]

PROVIDERS = {
    "openai": (ChatCompletionsConversation, openai_tools),
    "openai-responses": (ResponsesConversation, openai_responses_tools),
    "anthropic": (AnthropicConversation, anthropic_tools),
}
"""Provider name: (conversation class, tools in its shape); see :data:`ENDPOINTS`."""


def make_conversation(
    spec: ModelSpec,
    system: str,
    user: str,
    options: ToolOptions | None = None,
    *,
    tools: bool = True,
    client: Any = None,
) -> Conversation:
    """A new conversation: ``system`` and the first ``user`` message, offering the tools of
    a session with ``options`` in the provider's shape (none with ``tools=False``).

    Raises
    ------
    RseriniError
        If the SDK is missing or there is no API key (when no ``client`` is given).
    """
    conversation_class, shaped = PROVIDERS[spec.provider]
    return conversation_class(
        client if client is not None else spec.client(),
        sdk_module(ENDPOINTS[spec.provider][0]),
        spec,
        system,
        user,
        shaped(options) if tools else [],
    )
