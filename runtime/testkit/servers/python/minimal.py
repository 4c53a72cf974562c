#!/usr/bin/env python3
"""The seed's minimal MCP server: stdio, newline-delimited JSON-RPC, plain stdlib.

It declares no capabilities ("capabilities": {}) in its initialize result,
yet answers tools/list (one tool, echo) and tools/call, as many small
hand-written servers do. Clients are expected to be lenient: list tools
anyway, and treat "method not found" as no tools.

    luagent mcp add example -- python3 minimal.py
    luagent mcp call example echo text=hi
"""

import json
import sys

LATEST = "2025-11-25"
KNOWN = {"2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"}

ECHO = {
    "name": "echo",
    "description": "Echo the text back.",
    "inputSchema": {
        "type": "object",
        "properties": {"text": {"type": "string", "description": "what to echo"}},
        "required": ["text"],
    },
}


def answer(msg):
    method = msg.get("method")
    params = msg.get("params") or {}
    if method == "initialize":
        asked = params.get("protocolVersion")
        return {"result": {
            "protocolVersion": asked if asked in KNOWN else LATEST,
            "capabilities": {},
            "serverInfo": {"name": "example", "version": "0.1.0"},
        }}
    if method == "ping":
        return {"result": {}}
    if method == "tools/list":
        return {"result": {"tools": [ECHO]}}
    if method == "tools/call":
        if params.get("name") != "echo":
            return {"error": {"code": -32602, "message": "Unknown tool: %s" % params.get("name")}}
        text = (params.get("arguments") or {}).get("text")
        if not isinstance(text, str):
            return {"result": {"content": [{"type": "text", "text": "text must be a string"}], "isError": True}}
        return {"result": {"content": [{"type": "text", "text": text}]}}
    return {"error": {"code": -32601, "message": "Method not found: %s" % method}}


def main():
    for line in sys.stdin:
        line = line.strip()
        if not line:
            continue
        try:
            msg = json.loads(line)
        except ValueError:
            out = {"jsonrpc": "2.0", "id": None, "error": {"code": -32700, "message": "Parse error"}}
            sys.stdout.write(json.dumps(out) + "\n")
            sys.stdout.flush()
            continue
        if not isinstance(msg, dict) or "method" not in msg or "id" not in msg:
            continue  # notifications (and answers to requests we never send)
        out = {"jsonrpc": "2.0", "id": msg["id"]}
        out.update(answer(msg))
        sys.stdout.write(json.dumps(out) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
