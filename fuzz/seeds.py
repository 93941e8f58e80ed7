#!/usr/bin/env python3
"""Writes the seed corpora under fuzz/corpus/<target>/: the two recorded fixtures of
agentry/tests/fixtures/ (pause and checkpoint, format 1), and bodies shaped like the recorded
answers and streams of agentry/tests/conformance/ (one file each, a few dozen per target).
Run from anywhere: python3 fuzz/seeds.py"""
import json, os, shutil

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
OUT = os.path.join(HERE, "corpus")


def put(target, name, data):
    d = os.path.join(OUT, target)
    os.makedirs(d, exist_ok=True)
    if not isinstance(data, (str, bytes)):
        data = json.dumps(data)
    if isinstance(data, str):
        data = data.encode()
    with open(os.path.join(d, name), "wb") as f:
        f.write(data)


def sse(events, named=True, nl="\n"):
    out = ""
    for name, data in events:
        if named and name:
            out += f"event: {name}{nl}"
        out += f"data: {data if isinstance(data, str) else json.dumps(data)}{nl}{nl}"
    return out


ARGS = '{"city":"Paris","days":3}'

# --- OpenAI Chat Completions -------------------------------------------------------------
def chat_answer(content="Hello!", calls=None, finish="stop", reasoning=None, usage=True):
    msg = {"role": "assistant", "content": content}
    if calls:
        msg["tool_calls"] = [{"id": f"call_{i}", "type": "function",
                              "function": {"name": n, "arguments": a}} for i, (n, a) in enumerate(calls)]
    if reasoning:
        msg["reasoning_content"] = reasoning
    body = {"id": "chatcmpl-1", "object": "chat.completion", "created": 1, "model": "gpt-4o",
            "choices": [{"index": 0, "message": msg, "finish_reason": finish}]}
    if usage:
        body["usage"] = {"prompt_tokens": 12, "completion_tokens": 5, "total_tokens": 17,
                         "prompt_tokens_details": {"cached_tokens": 2},
                         "completion_tokens_details": {"reasoning_tokens": 1}}
    return body

chat_answers = {
    "text": chat_answer(),
    "tool": chat_answer(None, [("get_weather", ARGS)], "tool_calls"),
    "two_tools": chat_answer("", [("a", "{}"), ("b", '{"x":[1,2,{"y":null}]}')], "tool_calls"),
    "length": chat_answer("Hel", finish="length"),
    "filter": chat_answer(None, finish="content_filter"),
    "reasoning": chat_answer("42", reasoning="think", usage=False),
    "refusal": {"id": "c", "model": "m", "choices": [{"index": 0, "message": {"role": "assistant", "content": None, "refusal": "no"}, "finish_reason": "stop"}]},
    "error": {"error": {"message": "bad", "type": "invalid_request_error", "code": "x"}},
    "empty_choices": {"id": "c", "model": "m", "choices": []},
    "unicode": chat_answer("h\u00e9llo \u2603 \U0001F600 \\u0000"),
}

def chat_chunk(delta, finish=None, usage=None, idx=0):
    c = {"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1, "model": "gpt-4o",
         "choices": [{"index": idx, "delta": delta, "finish_reason": finish}]}
    if usage:
        c["usage"] = usage
    return c

U = {"prompt_tokens": 12, "completion_tokens": 5, "total_tokens": 17}
chat_streams = {
    "text": [chat_chunk({"role": "assistant", "content": ""}), chat_chunk({"content": "Hel"}),
             chat_chunk({"content": "lo"}), chat_chunk({}, "stop"),
             {"id": "chatcmpl-1", "model": "gpt-4o", "choices": [], "usage": U}, "[DONE]"],
    "tool": [chat_chunk({"role": "assistant", "tool_calls": [{"index": 0, "id": "call_1", "type": "function", "function": {"name": "get_weather", "arguments": ""}}]}),
             chat_chunk({"tool_calls": [{"index": 0, "function": {"arguments": '{"city":'}}]}),
             chat_chunk({"tool_calls": [{"index": 0, "function": {"arguments": '"Paris"}'}}]}),
             chat_chunk({"tool_calls": [{"index": 1, "id": "call_2", "function": {"name": "b", "arguments": "{}"}}]}),
             chat_chunk({}, "tool_calls"), "[DONE]"],
    "reasoning": [chat_chunk({"reasoning_content": "hm"}), chat_chunk({"content": "4"}), chat_chunk({}, "length"), "[DONE]"],
    "no_done": [chat_chunk({"content": "a"}), chat_chunk({}, "stop")],
    "error": [{"error": {"message": "overloaded", "type": "server_error"}}],
    "cut": [chat_chunk({"content": "a"})],
}

# --- OpenAI Responses --------------------------------------------------------------------
def resp(output, status="completed", incomplete=None):
    r = {"id": "resp_1", "object": "response", "status": status, "model": "gpt-4.1", "output": output,
         "usage": {"input_tokens": 10, "output_tokens": 4, "total_tokens": 14,
                   "input_tokens_details": {"cached_tokens": 1}, "output_tokens_details": {"reasoning_tokens": 2}}}
    if incomplete:
        r["incomplete_details"] = {"reason": incomplete}
    return r

MSG = {"type": "message", "id": "msg_1", "role": "assistant", "status": "completed",
       "content": [{"type": "output_text", "text": "Hello!", "annotations": []}]}
FC = {"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": "get_weather", "arguments": ARGS, "status": "completed"}
RS = {"type": "reasoning", "id": "rs_1", "summary": [{"type": "summary_text", "text": "thinking"}], "encrypted_content": "abc"}
resp_answers = {
    "text": resp([MSG]),
    "tool": resp([RS, FC]),
    "incomplete": resp([MSG], "incomplete", "max_output_tokens"),
    "refusal": resp([{"type": "message", "id": "m", "role": "assistant", "content": [{"type": "refusal", "refusal": "no"}]}]),
    "failed": resp([], "failed") | {"error": {"code": "server_error", "message": "boom"}},
    "error": {"error": {"message": "bad", "type": "invalid_request_error"}},
    "other_item": resp([{"type": "web_search_call", "id": "ws", "status": "completed"}, MSG]),
}
def rev(t, **kw):
    return (t, {"type": t, **kw})
resp_streams = {
    "text": [rev("response.created", response=resp([], "in_progress")),
             rev("response.output_item.added", output_index=0, item={"type": "message", "id": "msg_1", "role": "assistant", "content": []}),
             rev("response.output_text.delta", output_index=0, content_index=0, delta="Hel"),
             rev("response.output_text.delta", output_index=0, content_index=0, delta="lo"),
             rev("response.output_item.done", output_index=0, item=MSG),
             rev("response.completed", response=resp([MSG]))],
    "tool": [rev("response.output_item.added", output_index=0, item={**FC, "arguments": ""}),
             rev("response.function_call_arguments.delta", output_index=0, item_id="fc_1", delta='{"city":'),
             rev("response.function_call_arguments.delta", output_index=0, item_id="fc_1", delta='"Paris"}'),
             rev("response.output_item.done", output_index=0, item=FC),
             rev("response.completed", response=resp([FC]))],
    "reasoning": [rev("response.reasoning_summary_text.delta", output_index=0, delta="hm"),
                  rev("response.reasoning_text.delta", output_index=0, delta="hm"),
                  rev("response.refusal.delta", output_index=1, delta="no"),
                  rev("response.incomplete", response=resp([], "incomplete", "max_output_tokens"))],
    "failed": [rev("response.failed", response=resp([], "failed") | {"error": {"code": "server_error", "message": "x"}})],
    "error": [("error", {"type": "error", "code": "rate_limit", "message": "slow down"})],
    "cut": [rev("response.output_text.delta", output_index=0, delta="a")],
}

# --- Anthropic ---------------------------------------------------------------------------
AU = {"input_tokens": 10, "output_tokens": 5, "cache_read_input_tokens": 2, "cache_creation_input_tokens": 0}
def anth(content, stop="end_turn"):
    return {"id": "msg_01", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5",
            "content": content, "stop_reason": stop, "stop_sequence": None, "usage": AU}
anth_answers = {
    "text": anth([{"type": "text", "text": "Hello!"}]),
    "tool": anth([{"type": "text", "text": "Checking"}, {"type": "tool_use", "id": "toolu_1", "name": "get_weather", "input": {"city": "Paris"}}], "tool_use"),
    "thinking": anth([{"type": "thinking", "thinking": "hm", "signature": "sig"}, {"type": "redacted_thinking", "data": "xx"}, {"type": "text", "text": "4"}]),
    "max_tokens": anth([{"type": "text", "text": "Hel"}], "max_tokens"),
    "refusal": anth([], "refusal"),
    "error": {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}},
    "server_tool": anth([{"type": "server_tool_use", "id": "s", "name": "web_search", "input": {}}, {"type": "web_search_tool_result", "tool_use_id": "s", "content": []}]),
}
def aev(t, **kw):
    return (t, {"type": t, **kw})
START = aev("message_start", message=anth([], None) | {"usage": {"input_tokens": 10, "output_tokens": 1}})
anth_streams = {
    "text": [START, aev("content_block_start", index=0, content_block={"type": "text", "text": ""}),
             ("ping", {"type": "ping"}),
             aev("content_block_delta", index=0, delta={"type": "text_delta", "text": "Hel"}),
             aev("content_block_delta", index=0, delta={"type": "text_delta", "text": "lo"}),
             aev("content_block_stop", index=0),
             aev("message_delta", delta={"stop_reason": "end_turn", "stop_sequence": None}, usage={"output_tokens": 5}),
             aev("message_stop")],
    "tool": [START, aev("content_block_start", index=0, content_block={"type": "tool_use", "id": "toolu_1", "name": "get_weather", "input": {}}),
             aev("content_block_delta", index=0, delta={"type": "input_json_delta", "partial_json": '{"city":'}),
             aev("content_block_delta", index=0, delta={"type": "input_json_delta", "partial_json": '"Paris"}'}),
             aev("content_block_stop", index=0),
             aev("message_delta", delta={"stop_reason": "tool_use"}, usage={"output_tokens": 9}),
             aev("message_stop")],
    "thinking": [START, aev("content_block_start", index=0, content_block={"type": "thinking", "thinking": ""}),
                 aev("content_block_delta", index=0, delta={"type": "thinking_delta", "thinking": "hm"}),
                 aev("content_block_delta", index=0, delta={"type": "signature_delta", "signature": "sig"}),
                 aev("content_block_stop", index=0),
                 aev("message_delta", delta={"stop_reason": "max_tokens"}, usage={"output_tokens": 9}),
                 aev("message_stop")],
    "error": [START, ("error", {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}})],
    "cut": [START, aev("content_block_start", index=0, content_block={"type": "text", "text": ""})],
}

# --- Gemini ------------------------------------------------------------------------------
GU = {"promptTokenCount": 10, "candidatesTokenCount": 5, "totalTokenCount": 15, "cachedContentTokenCount": 2, "thoughtsTokenCount": 1}
def gem(parts, finish="STOP", usage=True):
    g = {"candidates": [{"content": {"role": "model", "parts": parts}, "finishReason": finish, "index": 0}],
         "modelVersion": "gemini-2.5-flash", "responseId": "r1"}
    if usage:
        g["usageMetadata"] = GU
    return g
gem_answers = {
    "text": gem([{"text": "Hello!"}]),
    "tool": gem([{"functionCall": {"name": "get_weather", "args": {"city": "Paris"}, "id": "c1"}, "thoughtSignature": "sig"}]),
    "tool_no_id": gem([{"functionCall": {"name": "a", "args": {}}}, {"functionCall": {"name": "b"}}]),
    "thought": gem([{"text": "hm", "thought": True}, {"text": "4"}], "MAX_TOKENS"),
    "safety": gem([], "SAFETY"),
    "blocked": {"promptFeedback": {"blockReason": "BLOCKLIST"}, "usageMetadata": GU},
    "grounding": gem([{"text": "Rome"}]) | {"candidates": [{"content": {"parts": [{"text": "Rome"}]}, "finishReason": "STOP", "groundingMetadata": {"webSearchQueries": ["q"]}}]},
    "error": {"error": {"code": 400, "message": "bad", "status": "INVALID_ARGUMENT"}},
}
gem_streams = {
    "text": [("", gem([{"text": "Hel"}], None, False)), ("", gem([{"text": "lo"}], "STOP"))],
    "tool": [("", gem([{"functionCall": {"name": "get_weather", "args": {"city": "Paris"}}}], "STOP"))],
    "thought": [("", gem([{"text": "hm", "thought": True}], None, False)), ("", gem([{"text": "4"}], "MAX_TOKENS"))],
    "blocked": [("", {"promptFeedback": {"blockReason": "SAFETY"}})],
    "error": [("", {"error": {"code": 503, "message": "overloaded", "status": "UNAVAILABLE"}})],
    "cut": [("", gem([{"text": "Hel"}], None, False))],
}


def main():
    if os.path.isdir(OUT):
        shutil.rmtree(OUT)
    for target, answers, streams, named in [
        ("openai_chat", chat_answers, chat_streams, False),
        ("openai_responses", resp_answers, resp_streams, True),
        ("anthropic", anth_answers, anth_streams, True),
        ("gemini", gem_answers, gem_streams, False),
    ]:
        for name, body in answers.items():
            put(f"answer_{target}", name + ".json", body)
            put(f"answer_{target}", name + "_pretty.json", json.dumps(body, indent=2))
        for name, events in streams.items():
            evs = [e if isinstance(e, tuple) else ("", e) for e in events]
            put(f"stream_{target}", name + ".sse", sse(evs, named))
            put(f"stream_{target}", name + "_crlf.sse", sse(evs, named, "\r\n"))
            # Every stream is also an SSE seed.
            put("sse", f"{target}_{name}.sse", sse(evs, named))
    put("sse", "comments.sse", ": hi\n\nretry: 10\nid: 1\nevent: x\ndata\ndata:\ndata:  two\n\n\ufeffdata: bom\n\n")
    put("sse", "cr.sse", "data: a\r\rdata: b\r\n\r\ndata: c\n\ndata: unterminated")
    put("sse", "bom.sse", "\ufeffevent: e\ndata: x\n\n")

    # Partial JSON: answers and arguments, whole and cut, plus prose around them.
    docs = [chat_answers["tool"], anth_answers["thinking"], gem_answers["grounding"], {"a": [1, -2.5e3, True, False, None, "x\"\\\u00e9\n"], "b": {}}, [], "s", 0, -0.0, 1e308, 123456789012345678901234567890]
    for i, d in enumerate(docs):
        t = json.dumps(d)
        put("partial_json", f"doc{i}.json", t)
        put("partial_json", f"doc{i}_cut.json", t[: len(t) // 2])
    put("partial_json", "escapes.json", '{"u":"\\ud83d\\ude00\\u0041\\/\\b\\f\\t","n":[1e-5,0.5,-0,10E+2]}')
    put("partial_json", "prose.txt", 'Here you go:\n```json\n{"city": "Paris"}\n```\nanything else?')
    put("partial_json", "ws.json", ' \n\t{ "a" : [ 1 , 2 ] } \n')

    # ReAct replies.
    react = {
        "action": 'Thought: I need the weather.\nAction: get_weather\nAction Input: {"city": "Paris"}\n',
        "final": "Thought: I know it.\nFinal Answer: It is sunny\nin Paris.",
        "fenced": 'Thought: x\nAction: search\nAction Input: ```json\n{"q": "rust"}\n```\nObservation: hallucinated',
        "bare": "Thought: x\nAction: echo\nAction Input: hello world\n",
        "crlf": 'Thought: a\r\nAction: t\r\nAction Input: {"a": "}"}\r\n',
        "no_thought": "Final Answer: 4",
        "both": 'Thought: x\nAction: a\nAction Input: {}\nFinal Answer: y',
        "garbage": "I think the answer is 4.",
        "nested": 'Thought: x\nAction: a\nAction Input: {"a": {"b": [1, "\\"}"]}} trailing',
        "unicode": "Thought: \u00e9\u2603\nFinal Answer: \U0001F600",
    }
    for k, v in react.items():
        put("react", k + ".txt", v)

    # Pause and checkpoint: the committed fixtures (format 1) and variants.
    fx = os.path.join(ROOT, "agentry", "tests", "fixtures")
    pause = json.load(open(os.path.join(fx, "pause_v1.json")))
    cp = json.load(open(os.path.join(fx, "checkpoint_v1.json")))
    put("pause", "pause_v1.json", open(os.path.join(fx, "pause_v1.json")).read())
    put("pause", "pause_v1_compact.json", pause)
    put("checkpoint", "checkpoint_v1.json", open(os.path.join(fx, "checkpoint_v1.json")).read())
    put("checkpoint", "checkpoint_v1_compact.json", cp)
    put("checkpoint", "pause_v1.json", pause)
    # A checkpoint holding the pause, as a thread saves it.
    put("checkpoint", "checkpoint_with_pause.json", cp | {"pending": pause})
    put("pause", "inside_checkpoint.json", cp)

    # Foreign schemas, as MCP servers send them.
    schemas = {
        "object": {"type": "object", "properties": {"city": {"type": "string", "description": "d"}, "days": {"type": ["integer", "null"], "minimum": 1}}, "required": ["city"]},
        "refs": {"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object", "$defs": {"P": {"type": "object", "properties": {"x": {"$ref": "#/$defs/P"}}}}, "properties": {"p": {"$ref": "#/$defs/P"}}},
        "definitions": {"definitions": {"A": {"type": "string", "enum": ["a", "b"]}}, "properties": {"a": {"$ref": "#/definitions/A"}}},
        "anyof": {"type": "object", "properties": {"v": {"anyOf": [{"type": "string"}, {"type": "number"}, {"type": "null"}]}, "w": {"oneOf": [{"const": 1}, {"const": "x"}]}}},
        "allof": {"allOf": [{"type": "object", "properties": {"a": {"type": "string"}}}, {"properties": {"b": {"type": "integer"}}, "required": ["b"]}]},
        "array": {"type": "object", "properties": {"xs": {"type": "array", "items": {"type": "object", "additionalProperties": {"type": "number"}}, "minItems": 1, "prefixItems": [{"type": "string"}]}}},
        "formats": {"type": "object", "properties": {"d": {"type": "string", "format": "date-time", "pattern": "^a", "maxLength": 3}, "e": {"not": {"type": "null"}}}, "additionalProperties": False},
        "bool": True,
        "empty": {},
        "zod": {"type": "object", "properties": {"q": {"type": "string"}}, "required": ["q"], "additionalProperties": False, "$schema": "http://json-schema.org/draft-07/schema#"},
        "if_then": {"if": {"properties": {"a": {"const": 1}}}, "then": {"required": ["b"]}, "dependentRequired": {"a": ["b"]}, "patternProperties": {"^x": {}}},
    }
    for k, v in schemas.items():
        put("schema", k + ".json", v)

    # MCP tool results.
    mcp = {
        "text": {"content": [{"type": "text", "text": "hello"}]},
        "error": {"content": [{"type": "text", "text": "boom"}], "isError": True},
        "error_empty": {"content": [], "isError": True},
        "structured": {"content": [], "structuredContent": {"a": 1}},
        "structured_text": {"content": [{"type": "text", "text": "{\"a\":1}"}], "structuredContent": {"a": 1}},
        "image": {"content": [{"type": "image", "data": "aGk=", "mimeType": "image/png"}]},
        "audio": {"content": [{"type": "audio", "data": "aGk=", "mimeType": "audio/wav"}]},
        "resource_text": {"content": [{"type": "resource", "resource": {"uri": "file:///a", "text": "x", "mimeType": "text/plain"}}]},
        "resource_blob": {"content": [{"type": "resource", "resource": {"uri": "file:///b", "blob": "aGk=", "mimeType": "image/png"}}, {"type": "resource", "resource": {"uri": "file:///c", "blob": "aGk="}}]},
        "link": {"content": [{"type": "resource_link", "uri": "file:///d", "name": "d", "description": "a file"}]},
        "annotated": {"content": [{"type": "text", "text": "x", "annotations": {"audience": ["user"], "priority": 0.5}}], "_meta": {"k": 1}},
    }
    for k, v in mcp.items():
        put("mcp_content", k + ".json", v)


if __name__ == "__main__":
    main()
