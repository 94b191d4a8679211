"""Language-model endpoints for the agent runner and the answer judge: OpenAI Chat
Completions, OpenAI Responses and Anthropic Messages through the official SDKs (the
``llm`` extra), imported only when a client is made."""

from rserini.agent.llm.conversation import Conversation, Turn, Usage
from rserini.agent.llm.model import ModelSpec
from rserini.agent.llm.providers import PROVIDERS, make_conversation

__all__ = ["PROVIDERS", "Conversation", "ModelSpec", "Turn", "Usage", "make_conversation"]
