"""A local stand-in for OpenAI Chat Completions, OpenAI Responses and Anthropic Messages
endpoints: a tiny HTTP server on 127.0.0.1 whose replies come from a script.

The script is called with a :class:`Seen` (what the request carried: the API, the question,
the tool outputs and user messages so far, the raw body) and returns a :class:`Reply`
(text and tool calls, written in the API's wire format), or a :class:`Status` (an error
status with headers), :class:`Garbage` (a non-JSON body) or :class:`Stall` (a delay, then
another answer).
"""

from __future__ import annotations

import itertools
import json
import re
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

PATHS = {"/v1/chat/completions": "chat", "/v1/responses": "responses", "/v1/messages": "anthropic"}


@dataclass
class Seen:
    api: str
    body: dict[str, Any]
    question: str
    tool_outputs: list[str]
    user_texts: list[str]


@dataclass
class Reply:
    text: str = ""
    # (name, arguments): a dict is sent as JSON, a str as it is (malformed arguments).
    calls: list[tuple[str, Any]] = field(default_factory=list)
    usage: tuple[int, int] = (10, 5)


@dataclass
class Status:
    code: int
    headers: dict[str, str] = field(default_factory=dict)
    body: str = '{"error": {"message": "scripted failure", "type": "scripted"}}'


@dataclass
class Garbage:
    text: str = "<html>not json</html>"


@dataclass
class Stall:
    seconds: float
    then: Any = None


Script = Callable[[Seen], Any]


def _text_of(content: Any) -> list[str]:
    if isinstance(content, str):
        return [content]
    texts = []
    for part in content or []:
        if isinstance(part, dict) and part.get("type") in ("text", "input_text"):
            texts.append(part["text"])
    return texts


def seen(api: str, body: dict[str, Any]) -> Seen:
    outputs: list[str] = []
    users: list[str] = []
    if api == "chat":
        for m in body["messages"]:
            if m["role"] == "tool":
                outputs.append(m["content"])
            elif m["role"] == "user":
                users.extend(_text_of(m["content"]))
    elif api == "responses":
        for item in body["input"]:
            if item.get("type") == "function_call_output":
                outputs.append(item["output"])
            elif item.get("role") == "user":
                users.extend(_text_of(item["content"]))
    else:
        for m in body["messages"]:
            if m["role"] != "user":
                continue
            if isinstance(m["content"], str):
                users.append(m["content"])
                continue
            for block in m["content"]:
                if block["type"] == "tool_result":
                    outputs.append("\n".join(_text_of(block["content"])))
                elif block["type"] == "text":
                    users.append(block["text"])
    question = ""
    if users:
        found = re.search(r"\nQuestion: (.*)\Z", users[0], re.S)
        question = found.group(1) if found else users[0]
    return Seen(api, body, question, outputs, users)


def wire(api: str, reply: Reply, ids: Any) -> dict[str, Any]:
    n_in, n_out = reply.usage

    def arguments(a: Any) -> str:
        return a if isinstance(a, str) else json.dumps(a)

    if api == "chat":
        message: dict[str, Any] = {"role": "assistant", "content": reply.text or None}
        if reply.calls:
            message["tool_calls"] = [
                {
                    "id": f"call_{next(ids)}",
                    "type": "function",
                    "function": {"name": name, "arguments": arguments(a)},
                }
                for name, a in reply.calls
            ]
        return {
            "id": "chatcmpl-1",
            "object": "chat.completion",
            "created": 0,
            "model": "mock",
            "choices": [
                {
                    "index": 0,
                    "message": message,
                    "finish_reason": "tool_calls" if reply.calls else "stop",
                }
            ],
            "usage": {
                "prompt_tokens": n_in,
                "completion_tokens": n_out,
                "total_tokens": n_in + n_out,
            },
        }
    if api == "responses":
        output: list[dict[str, Any]] = []
        if reply.text:
            output.append(
                {
                    "type": "message",
                    "id": f"msg_{next(ids)}",
                    "role": "assistant",
                    "status": "completed",
                    "content": [{"type": "output_text", "text": reply.text, "annotations": []}],
                }
            )
        for name, a in reply.calls:
            k = next(ids)
            output.append(
                {
                    "type": "function_call",
                    "id": f"fc_{k}",
                    "call_id": f"call_{k}",
                    "name": name,
                    "arguments": arguments(a),
                    "status": "completed",
                }
            )
        return {
            "id": "resp_1",
            "object": "response",
            "created_at": 0,
            "model": "mock",
            "status": "completed",
            "output": output,
            "parallel_tool_calls": True,
            "tool_choice": "auto",
            "tools": [],
            "usage": {
                "input_tokens": n_in,
                "output_tokens": n_out,
                "total_tokens": n_in + n_out,
                "input_tokens_details": {"cached_tokens": 0},
                "output_tokens_details": {"reasoning_tokens": 0},
            },
        }
    content: list[dict[str, Any]] = []
    if reply.text:
        content.append({"type": "text", "text": reply.text})
    for name, a in reply.calls:
        content.append({"type": "tool_use", "id": f"toolu_{next(ids)}", "name": name, "input": a})
    return {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "model": "mock",
        "content": content,
        "stop_reason": "tool_use" if reply.calls else "end_turn",
        "stop_sequence": None,
        "usage": {"input_tokens": n_in, "output_tokens": n_out},
    }


class MockEndpoint:
    """``with MockEndpoint(script) as m:`` serves until the block ends; ``m.requests``
    lists every ``(api, body)`` received; ``m.openai_url`` / ``m.anthropic_url``."""

    def __init__(self, script: Script) -> None:
        self.script = script
        self.requests: list[tuple[str, dict[str, Any]]] = []
        self._lock = threading.Lock()
        self._ids = itertools.count(1)
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                api = PATHS.get(self.path.split("?")[0])
                length = int(self.headers.get("content-length", 0))
                body = json.loads(self.rfile.read(length) or b"{}")
                if api is None:
                    self._send(404, {}, "{}")
                    return
                with outer._lock:
                    outer.requests.append((api, body))
                answer = outer.script(seen(api, body))
                while isinstance(answer, Stall):
                    time.sleep(answer.seconds)
                    answer = answer.then
                if isinstance(answer, Status):
                    self._send(answer.code, answer.headers, answer.body)
                elif isinstance(answer, Garbage):
                    self._send(200, {}, answer.text)
                elif answer is None:
                    return  # the client gave up (a stall past its timeout)
                else:
                    with outer._lock:
                        payload = wire(api, answer, outer._ids)
                    self._send(200, {}, json.dumps(payload))

            def _send(self, code: int, headers: dict[str, str], text: str) -> None:
                data = text.encode()
                try:
                    self.send_response(code)
                    self.send_header("content-type", "application/json")
                    self.send_header("content-length", str(len(data)))
                    for k, v in headers.items():
                        self.send_header(k, v)
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self._thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def openai_url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/v1"

    @property
    def anthropic_url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def url(self, provider: str) -> str:
        return self.anthropic_url if provider == "anthropic" else self.openai_url

    def __enter__(self) -> MockEndpoint:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()
