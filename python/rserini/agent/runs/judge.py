"""Answer judging as Pi-Serini does it: an LLM judge with the paper's prompts, its verdict
parsed leniently, judgments cached on disk.

Only completed runs with a final answer are judged; the others are wrong without a call
(``correct`` is ``None``), as the paper counts them. A verdict is cached under the judge
model and the prompt's hash, so re-evaluating costs nothing.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rserini.agent.llm.conversation import EndpointError
from rserini.agent.llm.model import ModelSpec
from rserini.agent.llm.providers import PROVIDERS, make_conversation
from rserini.agent.llm.retry import DeadlineError, call_with_retries

__all__ = ["Judge", "Verdict", "judge_prompt", "parse_verdict"]

_HEADER = ["You are an evaluation judge.", ""]
_JSON_RULES = [
    "Return exactly one JSON object and nothing else.",
    "Do not wrap the JSON in markdown or code fences.",
    "Use this exact schema:",
    "{",
    '  "extracted_final_answer": string | null,',
]
_SCHEMA_TAIL = [
    '  "reasoning": string,',
    '  "correct": boolean,',
    '  "confidence": number',
    "}",
    "",
    "Requirements:",
    "- confidence must be a number between 0 and 100",
    "- correct must be true or false",
]


def judge_prompt(question: str, response: str, correct_answer: str | None) -> str:
    """Pi-Serini's judge prompt: gold-answer mode with ``correct_answer``, else
    reference-free mode."""
    if correct_answer is None:
        return "\n".join(
            [
                *_HEADER,
                "Your job is to determine whether the response's final answer appears "
                "correct for the question.",
                "You are operating in reference-free mode: no benchmark gold answer is provided.",
                "Use your own reasoning to judge whether the response's final answer is "
                "correct, responsive, and not materially contradicted by the question.",
                "If the response does not contain a final answer you can extract, set "
                "extracted_final_answer to null and correct to false.",
                "",
                *_JSON_RULES,
                *_SCHEMA_TAIL,
                "- reasoning must explain only why the extracted final answer does or does "
                "not appear correct for the question",
                "",
                f"Question: {question}",
                "",
                "Response:",
                response,
            ]
        )
    return "\n".join(
        [
            *_HEADER,
            "Your job is to determine whether the response's final answer is semantically "
            "equivalent to the known correct answer.",
            "Do not solve the question yourself.",
            "Do not use outside knowledge.",
            "Focus only on whether the response's final answer matches the correct answer.",
            "Allow harmless wording differences, equivalent formatting, and added correct detail.",
            "For numerical answers, allow small formatting differences and obvious equivalent "
            "forms.",
            "If the response does not contain a final answer you can extract, set "
            "extracted_final_answer to null and correct to false.",
            "",
            *_JSON_RULES,
            '  "correct_answer": string,',
            *_SCHEMA_TAIL,
            "- repeat the provided correct answer exactly in correct_answer",
            "- reasoning must explain only whether the extracted final answer matches the "
            "correct answer",
            "",
            f"Question: {question}",
            "",
            "Response:",
            response,
            "",
            f"Correct answer: {correct_answer}",
        ]
    )


@dataclass(frozen=True)
class Verdict:
    """A parsed judgment; ``parse_error`` when a required field is missing or invalid
    (such a verdict counts as wrong and is left out of the calibration)."""

    correct: bool | None
    confidence: float | None
    extracted_final_answer: str | None = None
    reasoning: str = ""
    parse_error: bool = True
    error: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "correct": self.correct,
            "confidence": self.confidence,
            "extracted_final_answer": self.extracted_final_answer,
            "reasoning": self.reasoning,
            "parse_error": self.parse_error,
            "error": self.error,
        }


_FENCE = re.compile(r"^```(?:json)?\s*([\s\S]*?)\s*```$", re.I)


def _scalar_text(value: object) -> str:
    if isinstance(value, str):
        return value.strip()
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return str(value).strip()
    return ""


def _confidence(value: object) -> float | None:
    number: float | None = None
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        number = float(value)
    elif isinstance(value, str):
        found = re.match(r"\s*[+-]?(\d+\.?\d*|\.\d+)", value.replace("%", ""))
        number = float(found.group(0)) if found else None
    if number is None or not math.isfinite(number):
        return None
    return max(0.0, min(100.0, number))


def parse_verdict(text: str, *, gold: bool = True) -> Verdict:
    """The judge's answer: a code fence stripped, the text from the first ``{`` to the
    last ``}`` read as JSON; ``correct`` as a boolean or true/yes/false/no; ``confidence``
    a number or ``"NN%"`` clamped to 0-100."""
    if not text.strip():
        return Verdict(None, None, error="Judge returned empty text.")
    stripped = text.strip()
    fenced = _FENCE.match(stripped)
    stripped = fenced.group(1).strip() if fenced else stripped
    first, last = stripped.find("{"), stripped.rfind("}")
    if not (stripped.startswith("{") and stripped.endswith("}")) and 0 <= first < last:
        stripped = stripped[first : last + 1]
    try:
        data = json.loads(stripped)
    except ValueError as e:
        return Verdict(None, None, error=f"Failed to parse judge JSON: {e}")
    if not isinstance(data, dict):
        return Verdict(None, None, error="Judge output was not a JSON object.")
    raw = data.get("correct")
    correct: bool | None = None
    if isinstance(raw, bool):
        correct = raw
    elif isinstance(raw, str):
        correct = {"true": True, "yes": True, "false": False, "no": False}.get(raw.strip().lower())
    confidence = _confidence(data.get("confidence"))
    reasoning = _scalar_text(data.get("reasoning"))
    extracted = data.get("extracted_final_answer")
    bad = (
        correct is None
        or confidence is None
        or not reasoning
        or (gold and not _scalar_text(data.get("correct_answer")))
    )
    return Verdict(
        correct,
        confidence,
        None if extracted is None else (_scalar_text(extracted) or None),
        reasoning,
        parse_error=bad,
        error="Judge JSON was missing required fields or had invalid field types." if bad else None,
    )


class Judge:
    """An LLM judge with an on-disk cache.

    Parameters
    ----------
    model
        The judge's endpoint and model.
    cache_dir
        Where judgments are kept (``<sha256 of model and prompt>.json``); ``None``: none.
    timeout_seconds
        Time for one judgment, retries included (Pi-Serini: 180 s); past it the verdict is a
        parse error (the judgment is not cached, so a rerun asks again).
    max_retries
        Retries on rate limits, overload and dropped connections.
    client
        An SDK client to use (default: one from ``model``).
    """

    def __init__(
        self,
        model: ModelSpec,
        *,
        cache_dir: Path | None = None,
        timeout_seconds: float = 180.0,
        max_retries: int = 4,
        backoff: float = 1.0,
        client: Any = None,
    ) -> None:
        self.model = model
        self.cache_dir = cache_dir
        self.timeout_seconds = timeout_seconds
        self.max_retries = max_retries
        self.backoff = backoff
        self.client = client if client is not None else model.client()
        PROVIDERS[model.provider][0].warm(self.client)  # not inside the first verdict's time

    def judge(
        self, question: str, response: str, correct_answer: str | None
    ) -> tuple[Verdict, dict[str, Any]]:
        """Judges one response; returns the verdict and the judgment record (prompt, the
        judge's text, usage, whether it came from the cache)."""
        prompt = judge_prompt(question, response, correct_answer)
        key = hashlib.sha256(f"{self.model.name}\n{prompt}".encode()).hexdigest()
        path = None if self.cache_dir is None else self.cache_dir / f"{key}.json"
        if path is not None and path.is_file():
            cached = json.loads(path.read_text(encoding="utf-8"))
            text = str(cached.get("judge_response", ""))
            return parse_verdict(text, gold=correct_answer is not None), {**cached, "cached": True}
        conversation = make_conversation(self.model, "", prompt, tools=False, client=self.client)
        try:
            turn = call_with_retries(
                conversation.turn,
                conversation.sdk,
                deadline=time.monotonic() + self.timeout_seconds,
                max_retries=self.max_retries,
                backoff=self.backoff,
            )
        except DeadlineError:
            error = f"Judge timed out after {self.timeout_seconds}s."
            return Verdict(None, None, error=error), {"judge_prompt": prompt, "error": error}
        except (EndpointError, conversation.sdk.APIError, ValueError, TypeError) as e:
            error = f"Judge failed: {type(e).__name__}: {e}"
            return Verdict(None, None, error=error), {"judge_prompt": prompt, "error": error}
        record = {
            "judge_model": self.model.name,
            "judge_prompt": prompt,
            "judge_response": turn.text,
            "judge_usage": turn.usage.to_dict(),
        }
        if path is not None:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(json.dumps(record, indent=1, ensure_ascii=False) + "\n", "utf-8")
        return parse_verdict(turn.text, gold=correct_answer is not None), {
            **record,
            "cached": False,
        }
