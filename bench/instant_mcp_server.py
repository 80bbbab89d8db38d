"""An MCP server over stdio that answers at once: hand-written JSON-RPC, no SDK to import,
one tool. For ``bench/mcp_startup.py``, where a server's own start must cost nothing."""

import json
import sys

TOOL = {"name": "ping", "description": "Answers pong.", "inputSchema": {"type": "object"}}


def answer(request: dict) -> dict | None:
    method = request.get("method")
    if "id" not in request:
        return None  # a notification
    if method == "initialize":
        version = request["params"]["protocolVersion"]
        result = {
            "protocolVersion": version,
            "capabilities": {"tools": {}},
            "serverInfo": {"name": "instant", "version": "1"},
        }
    elif method == "tools/list":
        result = {"tools": [TOOL]}
    elif method == "tools/call":
        result = {"content": [{"type": "text", "text": "pong"}]}
    else:
        return {"jsonrpc": "2.0", "id": request["id"], "error": {"code": -32601, "message": method}}
    return {"jsonrpc": "2.0", "id": request["id"], "result": result}


for line in sys.stdin:
    reply = answer(json.loads(line))
    if reply is not None:
        sys.stdout.write(json.dumps(reply) + "\n")
        sys.stdout.flush()
