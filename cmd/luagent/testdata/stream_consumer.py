#!/usr/bin/env python3
"""A wrapper of `claude -p`, written from Claude Code's documentation (the
headless mode's --output-format json / stream-json and the Agent SDK's
message types: SDKSystemMessage, SDKAssistantMessage, SDKUserMessage,
SDKResultMessage), not from luagent's code. It reads a run's stdout on
stdin and checks what such a wrapper relies on:

  stream-json: one JSON object per line; the first is
    {"type":"system","subtype":"init","session_id","cwd","model","tools":[...],
     "mcp_servers":[{"name","status"}],"permissionMode",...};
  then "assistant" messages ({"message":{"role":"assistant","model",
    "content":[text | tool_use{id,name,input}]},"session_id",
    "parent_tool_use_id"}) and "user" messages carrying tool_result blocks
    ({"tool_use_id","content","is_error"}) for tool_use ids seen before;
  and a "result" ({"subtype","is_error","result","session_id","num_turns",
    "duration_ms","duration_api_ms","usage":{input_tokens,output_tokens,...},
    "total_cost_usd"}) after each user message, last of all.
  json: stdout is the one result object.

Usage: stream_consumer.py [--format stream-json|json] [--results N]
It prints a summary as JSON and exits 0, or says what is wrong on stderr
and exits 1.
"""
import json
import sys

PERMISSION_MODES = {"default", "acceptEdits", "bypassPermissions", "plan", "dontAsk"}
RESULT_SUBTYPES = {"success", "error_max_turns", "error_during_execution",
                   "error_max_budget_usd", "error_max_structured_output_retries"}


def fail(msg):
    sys.stderr.write("stream_consumer: " + msg + "\n")
    sys.exit(1)


def need(obj, key, kind, where):
    if key not in obj:
        fail("%s: no %r in %s" % (where, key, json.dumps(obj)[:300]))
    v = obj[key]
    if kind is int and isinstance(v, bool):
        fail("%s: %r is a bool, not a number" % (where, key))
    if not isinstance(v, kind):
        fail("%s: %r is %r, not %s" % (where, key, v, kind))
    return v


def block_text(content):
    """A tool_result's content: a string or a list of text/image blocks."""
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        fail("tool_result content is neither a string nor a list: %r" % (content,))
    out = []
    for b in content:
        if not isinstance(b, dict) or "type" not in b:
            fail("tool_result content block without a type: %r" % (b,))
        if b["type"] == "text":
            out.append(need(b, "text", str, "tool_result text block"))
    return "".join(out)


def check_result(r, where):
    subtype = need(r, "subtype", str, where)
    if subtype not in RESULT_SUBTYPES:
        fail("%s: subtype %r" % (where, subtype))
    is_error = need(r, "is_error", bool, where)
    if subtype != "success" and not is_error:
        fail("%s: subtype %s but is_error false" % (where, subtype))
    for k in ("duration_ms", "duration_api_ms", "total_cost_usd"):
        need(r, k, (int, float), where)
    need(r, "num_turns", int, where)
    need(r, "session_id", str, where)
    usage = need(r, "usage", dict, where)
    need(usage, "input_tokens", int, where + " usage")
    need(usage, "output_tokens", int, where + " usage")
    if subtype == "success":
        need(r, "result", str, where)
    return {"subtype": subtype, "is_error": is_error, "result": r.get("result"),
            "num_turns": r["num_turns"], "usage": usage, "session_id": r["session_id"],
            "permission_denials": r.get("permission_denials", []),
            "total_cost_usd": r["total_cost_usd"]}


def read_json(raw):
    try:
        obj = json.loads(raw)
    except ValueError as e:
        fail("stdout is not one JSON object (%s): %r" % (e, raw[:300]))
    if not isinstance(obj, dict):
        fail("stdout is not a JSON object: %r" % (raw[:300],))
    return obj


def main():
    args = sys.argv[1:]
    fmt, want_results = "stream-json", None
    while args:
        a = args.pop(0)
        if a == "--format":
            fmt = args.pop(0)
        elif a == "--results":
            want_results = int(args.pop(0))
        else:
            fail("unknown argument " + a)
    raw = sys.stdin.read()

    if fmt == "json":
        obj = read_json(raw)
        if obj.get("type") != "result":
            fail("json: type %r, not result" % (obj.get("type"),))
        print(json.dumps({"results": [check_result(obj, "json result")]}))
        return

    if raw and not raw.endswith("\n"):
        fail("the last line does not end with a newline")
    lines = raw.split("\n")[:-1] if raw else []
    if not lines:
        fail("no lines on stdout")
    session = None
    tool_uses, open_uses, tool_results, texts, results = [], {}, [], [], []
    init = None
    for n, line in enumerate(lines, 1):
        where = "line %d" % n
        msg = read_json(line)
        typ = need(msg, "type", str, where)
        if n == 1:
            if typ != "system" or msg.get("subtype") != "init":
                fail("line 1 is not the system init message: %s" % line[:300])
            session = need(msg, "session_id", str, where)
            need(msg, "cwd", str, where)
            need(msg, "model", str, where)
            tools = need(msg, "tools", list, where)
            if not all(isinstance(t, str) for t in tools):
                fail("init tools are not names: %r" % (tools,))
            servers = need(msg, "mcp_servers", list, where)
            for s in servers:
                if not isinstance(s, dict):
                    fail("an mcp_servers entry is not an object: %r" % (s,))
                need(s, "name", str, "mcp_servers entry")
                need(s, "status", str, "mcp_servers entry")
            mode = need(msg, "permissionMode", str, where)
            if mode not in PERMISSION_MODES:
                fail("permissionMode %r" % mode)
            init = {"model": msg["model"], "tools": tools, "mcp_servers": servers,
                    "permissionMode": mode, "cwd": msg["cwd"]}
            continue
        if typ == "system":
            if msg.get("subtype") == "init":
                fail("%s: a second init" % where)
            continue
        if need(msg, "session_id", str, where) != session:
            fail("%s: session_id %r, not the init's %r" % (where, msg["session_id"], session))
        if typ == "assistant":
            if "parent_tool_use_id" not in msg:
                fail("%s: no parent_tool_use_id" % where)
            m = need(msg, "message", dict, where)
            if m.get("role") != "assistant":
                fail("%s: message role %r" % (where, m.get("role")))
            need(m, "model", str, where + " message")
            for b in need(m, "content", list, where + " message"):
                bt = need(b, "type", str, where + " block")
                if bt == "text":
                    texts.append(need(b, "text", str, where + " text block"))
                elif bt == "tool_use":
                    use = {"id": need(b, "id", str, where), "name": need(b, "name", str, where),
                           "input": need(b, "input", dict, where)}
                    if use["id"] in open_uses:
                        fail("%s: tool_use id %s twice" % (where, use["id"]))
                    open_uses[use["id"]] = use
                    tool_uses.append(use)
        elif typ == "user":
            m = need(msg, "message", dict, where)
            if m.get("role") != "user":
                fail("%s: message role %r" % (where, m.get("role")))
            content = m.get("content")
            if isinstance(content, list):
                for b in content:
                    if b.get("type") != "tool_result":
                        continue
                    uid = need(b, "tool_use_id", str, where)
                    if uid not in open_uses:
                        fail("%s: a tool_result for %s, which no tool_use asked for (or was answered)" % (where, uid))
                    del open_uses[uid]
                    tool_results.append({"tool_use_id": uid, "is_error": need(b, "is_error", bool, where),
                                         "text": block_text(b.get("content", ""))})
        elif typ == "result":
            if open_uses:
                fail("%s: result with tool_use %s unanswered" % (where, sorted(open_uses)))
            results.append(check_result(msg, where))
        elif typ == "stream_event":
            continue
        else:
            fail("%s: unknown type %r" % (where, typ))
    last = read_json(lines[-1])
    if last.get("type") != "result":
        fail("the last line is not a result: %s" % lines[-1][:300])
    if want_results is not None and len(results) != want_results:
        fail("%d results, want %d" % (len(results), want_results))
    print(json.dumps({"session_id": session, "init": init, "tool_uses": tool_uses,
                      "tool_results": tool_results, "texts": texts, "results": results}))


if __name__ == "__main__":
    main()
