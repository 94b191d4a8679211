"""A language model as the agent: Pi-Serini's loop over the three tools.

The model gets the tool specs' system prompt and the ``plain_minimal`` user prompt, and
calls tools until it answers in plain text. When the time budget's steer arrives it is
sent as a user message (tools are blocked from then on); at the budget's end the run
stops wherever it is, status ``timeout``. Events are pi's: ``message_end`` for every
message, the session's ``tool_execution_end``, and ``agent_end`` when the model answered.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property
from typing import Any

from rserini.agent.llm.conversation import EndpointError, Usage
from rserini.agent.llm.model import ModelSpec
from rserini.agent.llm.providers import PROVIDERS, make_conversation
from rserini.agent.llm.retry import DeadlineError, call_with_retries
from rserini.agent.runs.citations import NUMERIC_DOCID
from rserini.agent.runs.prompt import system_prompt, user_prompt
from rserini.agent.runs.trajectory import Trajectory
from rserini.agent.servers.dispatch import dispatch
from rserini.agent.tools.session import SearchSession

__all__ = ["AgentRunError", "LLMAgent"]

DEFAULT_MAX_TURNS = 100


class AgentRunError(RuntimeError):
    """The endpoint failed (after retries) or answered garbage: the query has no record,
    so a rerun tries it again."""


@dataclass(frozen=True)
class LLMAgent:
    """A model behind an OpenAI- or Anthropic-compatible endpoint; :meth:`run` plays it
    on one session.

    Attributes
    ----------
    model
        The endpoint and model.
    citation_pattern
        Regular expression of a cited docid (digit runs by default, as pi-serini).
    max_turns
        Assistant turns after which a run without an answer stops (status ``failed``).
    max_retries
        Retries of a request on rate limits, overload and dropped connections.
    backoff
        First wait between retries, in seconds (doubled each time; ``retry-after`` wins).
    prices
        USD per million input and output tokens, for the records' cost (default 0).
    client
        An SDK client (default: one made from ``model`` now, shared by every run,
        concurrent ones included).

    Raises
    ------
    RseriniError
        If the SDK is missing or there is no API key.
    """

    model: ModelSpec
    citation_pattern: str = NUMERIC_DOCID
    max_turns: int = DEFAULT_MAX_TURNS
    max_retries: int = 4
    backoff: float = 1.0
    prices: tuple[float, float] = (0.0, 0.0)
    client: Any = None

    def run(
        self,
        session: SearchSession,
        query_id: str,
        question: str,
        *,
        clock: Callable[[], float] = time.perf_counter,
        metadata: dict[str, Any] | None = None,
    ) -> tuple[dict[str, Any], list[dict[str, object]]]:
        """Answers ``question`` with ``session``'s tools.

        Returns
        -------
        tuple
            The run record (with ``stats.usage``: tokens and cost) and the events.

        Raises
        ------
        AgentRunError
            If the endpoint fails after its retries or answers something that is not a
            message; nothing is recorded for the query.
        """
        started = clock()
        budget = session.budget
        deadline = None if budget.seconds is None else budget.started + budget.seconds
        user = user_prompt(question)
        events: list[dict[str, object]] = [_message("user", user)]
        conversation = make_conversation(
            self.model, system_prompt(session.tools), user, session.options, client=self._client
        )
        usage = Usage()
        timed_out = answered = False
        stderr = ""
        module = conversation.sdk
        for _ in range(self.max_turns):
            steer = session.take_steer()
            if steer is not None:
                conversation.add_user(steer)
                events.append(_message("user", steer))
            try:
                turn = call_with_retries(
                    conversation.turn,
                    module,
                    deadline=deadline,
                    max_retries=self.max_retries,
                    backoff=self.backoff,
                    clock=budget.clock,
                )
            except DeadlineError:
                timed_out = True
                break
            except (EndpointError, module.APIError, ValueError, TypeError) as e:
                raise AgentRunError(f"{self.model.name}: {type(e).__name__}: {e}") from e
            usage += turn.usage
            events.append({"type": "message_end", "message": turn.as_pi_message()})
            if not turn.calls:
                answered = True
                break
            first = len(session.events)
            results = [dispatch(session, call)[0] for call in turn.calls]
            events.extend(session.events[first:])
            conversation.add_results(results)
            if session.timed_out:
                timed_out = True
                break
        else:
            stderr = f"stopped after {self.max_turns} assistant turns without a final answer"
        if answered:
            events.append({"type": "agent_end"})
        trajectory = Trajectory(query_id, question, self.citation_pattern)
        trajectory.extend(events)
        record = trajectory.to_record(
            elapsed_seconds=clock() - started,
            timed_out=timed_out,
            stderr=stderr,
            metadata={"model": self.model.name, **(metadata or {})},
        )
        record["stats"]["usage"] = self._usage(usage)
        return record, events

    def __post_init__(self) -> None:
        # The SDK is imported and the client made now, not inside the first run's budget;
        # a missing SDK or key fails here.
        PROVIDERS[self.model.provider][0].warm(self._client)

    @cached_property
    def _client(self) -> Any:
        return self.client if self.client is not None else self.model.client()

    def _usage(self, usage: Usage) -> dict[str, object]:
        input_cost = usage.input_tokens * self.prices[0] / 1e6
        output_cost = usage.output_tokens * self.prices[1] / 1e6
        return {
            **usage.to_dict(),
            "cost": {
                "input": round(input_cost, 6),
                "output": round(output_cost, 6),
                "total": round(input_cost + output_cost, 6),
            },
        }


def _message(role: str, text: str) -> dict[str, object]:
    return {
        "type": "message_end",
        "message": {"role": role, "content": [{"type": "text", "text": text}]},
    }
