"""One model conversation with tools, over one of three wire APIs.

Each turn sends the whole history and returns a :class:`Turn`: the assistant's text, its
tool calls in the API's own shape (what :func:`~rserini.agent.servers.dispatch.dispatch`
takes) and token usage. The tool results and steer messages go back with
:meth:`Conversation.add_results` and :meth:`Conversation.add_user`. Each class keeps the
history in its API's format, so a stateless endpoint (vLLM, Ollama) sees everything.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any

from rserini.agent.llm.model import ModelSpec

__all__ = [
    "AnthropicConversation",
    "ChatCompletionsConversation",
    "Conversation",
    "EndpointError",
    "ResponsesConversation",
    "Turn",
    "Usage",
]

# Anthropic's Messages API needs an output cap; the others use the endpoint's.
_ANTHROPIC_MAX_TOKENS = 8192


class EndpointError(RuntimeError):
    """The endpoint answered something that is not a model turn of its API."""


@dataclass
class Usage:
    """Tokens of one turn or a whole run."""

    input_tokens: int = 0
    output_tokens: int = 0

    def __iadd__(self, other: Usage) -> Usage:
        self.input_tokens += other.input_tokens
        self.output_tokens += other.output_tokens
        return self

    def to_dict(self) -> dict[str, int]:
        return {
            "input_tokens": self.input_tokens,
            "output_tokens": self.output_tokens,
            "total_tokens": self.input_tokens + self.output_tokens,
        }


@dataclass
class Turn:
    """One assistant message: its text, tool calls (the API's shape) and usage."""

    text: str
    calls: list[dict[str, Any]] = field(default_factory=list)
    usage: Usage = field(default_factory=Usage)

    def as_pi_message(self) -> dict[str, object]:
        """The message as pi records it in ``message_end`` (text and ``toolCall`` parts)."""
        content: list[dict[str, object]] = []
        if self.text:
            content.append({"type": "text", "text": self.text})
        for call in self.calls:
            name, call_id, arguments = _call_parts(call)
            content.append(
                {"type": "toolCall", "id": call_id, "name": name, "arguments": arguments}
            )
        return {"role": "assistant", "content": content, "usage": self.usage.to_dict()}


def _call_parts(call: Mapping[str, Any]) -> tuple[str, str, object]:
    if call.get("type") == "tool_use":
        return str(call.get("name")), str(call.get("id")), call.get("input")
    if call.get("type") == "function_call":
        return str(call.get("name")), str(call.get("call_id")), call.get("arguments")
    function = call.get("function") or {}
    return str(function.get("name")), str(call.get("id")), function.get("arguments")


def _dump(item: Any) -> dict[str, Any]:
    if isinstance(item, Mapping):
        return dict(item)
    dump = getattr(item, "model_dump", None)
    if callable(dump):
        return dict(dump(exclude_none=True))
    raise EndpointError(f"unexpected item in the response: {type(item).__name__}")


def _int(value: object) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


class Conversation:
    """The history of one conversation; subclasses speak one API.

    Parameters
    ----------
    client
        The SDK client.
    sdk
        The SDK module (its error classes).
    spec
        The endpoint and model.
    system, user
        The system prompt and the first user message.
    tools
        The tools in this API's shape (empty: no tools).
    """

    def __init__(
        self,
        client: Any,
        sdk: ModuleType,
        spec: ModelSpec,
        system: str,
        user: str,
        tools: Sequence[Mapping[str, object]],
    ) -> None:
        self.client = client
        self.sdk = sdk
        self.spec = spec
        self.system = system
        self.tools = [dict(t) for t in tools]
        self.history: list[dict[str, Any]] = [{"role": "user", "content": user}]

    resource = ""
    """The client attribute path of the API (``chat.completions``, ...)."""

    @classmethod
    def warm(cls, client: Any) -> None:
        """Loads the SDK's lazily imported API module now (it takes a while)."""
        target = client
        for name in cls.resource.split("."):
            target = getattr(target, name)

    def turn(self, timeout: float) -> Turn:
        """Asks the model for its next message (one HTTP request, ``timeout`` seconds).

        Raises
        ------
        EndpointError
            If the answer is not a message of the API.
        Exception
            The SDK's errors (connection, status, timeout) as they are.
        """
        raise NotImplementedError

    def add_results(self, results: Sequence[Mapping[str, object]]) -> None:
        """The tool results of the last turn (as ``dispatch`` shaped them)."""
        self.history.extend(dict(r) for r in results)

    def add_user(self, text: str) -> None:
        """A user message (the time budget's steer)."""
        self.history.append({"role": "user", "content": text})

    def _system(self) -> list[dict[str, Any]]:
        return [{"role": "system", "content": self.system}] if self.system else []

    def _sampling(self) -> dict[str, Any]:
        return {} if self.spec.temperature is None else {"temperature": self.spec.temperature}


class ChatCompletionsConversation(Conversation):
    """OpenAI Chat Completions (``/chat/completions``)."""

    resource = "chat.completions"

    def turn(self, timeout: float) -> Turn:
        extra = self._sampling()
        if self.spec.max_output_tokens is not None:
            extra["max_tokens"] = self.spec.max_output_tokens
        if self.tools:
            extra["tools"] = self.tools
        response = self.client.chat.completions.create(
            model=self.spec.model,
            messages=[*self._system(), *self.history],
            timeout=timeout,
            **extra,
        )
        choices = getattr(response, "choices", None)
        if not choices:
            raise EndpointError("the chat completion has no choices")
        message = _dump(getattr(choices[0], "message", None) or {})
        text = message.get("content") if isinstance(message.get("content"), str) else ""
        calls = [_dump(c) for c in message.get("tool_calls") or []]
        assistant: dict[str, Any] = {"role": "assistant", "content": text or None}
        if calls:
            assistant["tool_calls"] = calls
        self.history.append(assistant)
        usage = _dump(getattr(response, "usage", None) or {})
        return Turn(
            text or "",
            calls,
            Usage(_int(usage.get("prompt_tokens")), _int(usage.get("completion_tokens"))),
        )


class ResponsesConversation(Conversation):
    """OpenAI Responses (``/responses``), stateless: every output item is sent back."""

    resource = "responses"

    def turn(self, timeout: float) -> Turn:
        extra = self._sampling()
        if self.spec.max_output_tokens is not None:
            extra["max_output_tokens"] = self.spec.max_output_tokens
        if self.system:
            extra["instructions"] = self.system
        if self.tools:
            extra["tools"] = self.tools
        response = self.client.responses.create(
            model=self.spec.model,
            input=self.history,
            timeout=timeout,
            **extra,
        )
        output = getattr(response, "output", None)
        if not isinstance(output, list):
            raise EndpointError("the response has no output list")
        items = [_dump(i) for i in output]
        texts = [
            str(part.get("text", ""))
            for item in items
            if item.get("type") == "message"
            for part in item.get("content") or []
            if isinstance(part, Mapping) and part.get("type") == "output_text"
        ]
        calls = [i for i in items if i.get("type") == "function_call"]
        self.history.extend(items)
        usage = _dump(getattr(response, "usage", None) or {})
        return Turn(
            "\n".join(texts),
            calls,
            Usage(_int(usage.get("input_tokens")), _int(usage.get("output_tokens"))),
        )


class AnthropicConversation(Conversation):
    """Anthropic Messages (``/v1/messages``); tool results and a steer share one user turn,
    as the API wants roles to alternate."""

    resource = "messages"

    def turn(self, timeout: float) -> Turn:
        extra = self._sampling()
        if self.tools:
            extra["tools"] = self.tools
        if self.system:
            extra["system"] = self.system
        response = self.client.messages.create(
            model=self.spec.model,
            messages=self.history,
            max_tokens=self.spec.max_output_tokens or _ANTHROPIC_MAX_TOKENS,
            timeout=timeout,
            **extra,
        )
        content = getattr(response, "content", None)
        if not isinstance(content, list):
            raise EndpointError("the message has no content list")
        blocks = [_dump(b) for b in content]
        text = "\n".join(str(b.get("text", "")) for b in blocks if b.get("type") == "text")
        calls = [b for b in blocks if b.get("type") == "tool_use"]
        self.history.append({"role": "assistant", "content": blocks})
        usage = _dump(getattr(response, "usage", None) or {})
        return Turn(
            text,
            calls,
            Usage(_int(usage.get("input_tokens")), _int(usage.get("output_tokens"))),
        )

    def add_results(self, results: Sequence[Mapping[str, object]]) -> None:
        self._user_blocks([dict(r) for r in results])

    def add_user(self, text: str) -> None:
        self._user_blocks([{"type": "text", "text": text}])

    def _user_blocks(self, blocks: list[dict[str, Any]]) -> None:
        last = self.history[-1] if self.history else None
        if last is not None and last.get("role") == "user":
            if isinstance(last["content"], str):
                last["content"] = [{"type": "text", "text": last["content"]}]
            last["content"].extend(blocks)
        else:
            self.history.append({"role": "user", "content": blocks})
