"""An endpoint and a model: ``PROVIDER:MODEL``, base URL, API key and SDK client.

Providers: ``openai`` (Chat Completions: OpenAI, vLLM, Ollama, llama.cpp server and any
other compatible ``--base-url``), ``openai-responses`` (the Responses API) and ``anthropic``
(the Messages API). The key is ``--api-key`` or the provider's variable; the base URL is
``--base-url`` or the SDK's own variable (``OPENAI_BASE_URL``, ``ANTHROPIC_BASE_URL``).
"""

from __future__ import annotations

import importlib
import os
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any

from rserini.exceptions import RseriniError

__all__ = ["ENDPOINTS", "ModelSpec", "sdk_module"]

ENDPOINTS = {
    "openai": ("openai", "OPENAI_API_KEY"),
    "openai-responses": ("openai", "OPENAI_API_KEY"),
    "anthropic": ("anthropic", "ANTHROPIC_API_KEY"),
}
"""Provider name: (SDK module, API key variable)."""


@dataclass(frozen=True)
class ModelSpec:
    """An endpoint and a model.

    Attributes
    ----------
    provider
        One of :data:`ENDPOINTS`.
    model
        The model name the endpoint knows.
    base_url
        The endpoint (default: the SDK's variable, else the provider's own service).
    api_key
        The key (default: the provider's variable).
    max_output_tokens
        Output cap of each turn (default: the endpoint's; Anthropic requires one: 8192).
    temperature
        Sampling temperature (default: the endpoint's).
    """

    provider: str
    model: str
    base_url: str | None = None
    api_key: str | None = field(default=None, repr=False)
    max_output_tokens: int | None = None
    temperature: float | None = None

    @classmethod
    def parse(cls, name: str, **settings: Any) -> ModelSpec:
        """``"openai:gpt-4.1"`` -> ``ModelSpec("openai", "gpt-4.1", ...)``.

        Raises
        ------
        RseriniError
            For a name without ``PROVIDER:`` or an unknown provider.
        """
        provider, sep, model = name.partition(":")
        if not sep or not model:
            raise RseriniError(f"model {name!r}: expected PROVIDER:MODEL, e.g. openai:gpt-4.1")
        if provider not in ENDPOINTS:
            known = ", ".join(ENDPOINTS)
            raise RseriniError(f"model {name!r}: unknown provider {provider!r} (known: {known})")
        return cls(provider, model, **settings)

    @property
    def name(self) -> str:
        """``PROVIDER:MODEL``."""
        return f"{self.provider}:{self.model}"

    def client(self) -> Any:
        """A synchronous SDK client (retries are the caller's: ``max_retries=0``).

        Raises
        ------
        RseriniError
            If the SDK is not installed or no API key is given.
        """
        module_name, key_variable = ENDPOINTS[self.provider]
        sdk = sdk_module(module_name)
        key = self.api_key or os.environ.get(key_variable)
        if not key:
            raise RseriniError(
                f"{self.name}: no API key: set {key_variable} (or pass --api-key; a local "
                "endpoint accepts any value)"
            )
        client_class = sdk.Anthropic if module_name == "anthropic" else sdk.OpenAI
        return client_class(api_key=key, base_url=self.base_url, max_retries=0)


def _sdk(module_name: str) -> ModuleType:
    try:
        return importlib.import_module(module_name)
    except ImportError:
        raise RseriniError(
            f'the {module_name} package is needed for this provider: pip install "rserini[llm]"'
        ) from None


def sdk_module(module_name: str) -> ModuleType:
    """The SDK, imported now.

    Raises
    ------
    RseriniError
        If it is not installed.
    """
    try:
        return importlib.import_module(module_name)
    except ImportError:
        raise RseriniError(
            f'the {module_name} package is needed for this provider: pip install "rserini[llm]"'
        ) from None
