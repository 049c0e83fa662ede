"""A real MCP client for `dcplugin mcp`'s tests (crates/dcplugin/tests/mcp_cli.rs).

Built on the official Python SDK (the `mcp` package), which scripts/lib/mcp-client.sh
installs. It starts the server as an AI app does (a command on standard input and
output), initializes, then runs the steps given as JSON on the command line and
prints one JSON line per step, flushed at once, so the Rust test reads each one as
it comes:

    python3 mcp_client.py STEPS_JSON [--elicit accept|decline] [--name NAME] -- COMMAND ARG...

The first line is the session: the server's name, the protocol version, its
capabilities. Steps:
    {"do": "list"}                         -> {"tools": [tool as the client read it]}
    {"do": "call", "name": N, "args": {}}  -> {"is_error", "text", "asked": [questions]}
                                              or {"error": {"code", "message"}} for a protocol error
    {"do": "wait_changed"}                 -> {"waiting": true}, then {"changed": true}
                                              once notifications/tools/list_changed came
    {"do": "cancel_asked", "name": N, "args": {}}
                                           -> {"cancelled": true, "asked": [questions]}: the call
                                              is given up from its own question (the SDK sends
                                              notifications/cancelled for it), then the question
                                              is answered as --elicit says
With --elicit, the client announces elicitation and answers every question so,
recording it; without, it announces none. --name is the name the client gives
itself in `initialize` (clientInfo.name; default dcplugin-test-client).
"""

import json
import os
import sys

import anyio
import mcp.types as types
from mcp import ClientSession, MCPError, StdioServerParameters, stdio_client

# Long enough for a slow test machine, short enough that a server that never
# sends what is awaited fails the test instead of hanging it.
WAIT_SECONDS = 60


def say(value):
    print(json.dumps(value), flush=True)


async def main(steps, elicit, name, command):
    asked = []
    changed = {"count": 0, "event": anyio.Event()}
    # The call a question gives up before it is answered (cancel_asked).
    giving_up = {}

    async def on_message(message):
        if isinstance(message, types.ToolListChangedNotification):
            changed["count"] += 1
            changed["event"].set()

    async def on_elicit(context, params):
        asked.append(params.message)
        if "call" in giving_up:
            # The cancel goes out (the SDK writes it as the call unwinds) before the answer.
            giving_up["call"].cancel()
            await giving_up["ended"].wait()
        return types.ElicitResult(action=elicit)

    server = StdioServerParameters(command=command[0], args=command[1:], env=dict(os.environ))
    async with stdio_client(server) as (read, write):
        async with ClientSession(
            read,
            write,
            read_timeout_seconds=WAIT_SECONDS,
            message_handler=on_message,
            elicitation_callback=on_elicit if elicit else None,
            client_info=types.Implementation(name=name, version="1.0.0"),
        ) as session:
            started = await session.initialize()
            say(
                {
                    "server": started.server_info.name,
                    "protocol": started.protocol_version,
                    "capabilities": started.capabilities.model_dump(by_alias=True, exclude_none=True),
                }
            )
            for step in steps:
                await run(session, step, asked, changed, giving_up)


async def run(session, step, asked, changed, giving_up):
    if step["do"] == "list":
        listed = await session.list_tools()
        say({"tools": [tool.model_dump(by_alias=True, exclude_none=True) for tool in listed.tools]})
    elif step["do"] == "call":
        asked.clear()
        try:
            result = await session.call_tool(step["name"], step.get("args"))
        except MCPError as e:
            say({"error": {"code": e.error.code, "message": e.error.message}})
            return
        text = "".join(block.text for block in result.content if block.type == "text")
        say({"is_error": bool(result.is_error), "text": text, "asked": list(asked)})
    elif step["do"] == "cancel_asked":
        asked.clear()
        giving_up["ended"] = anyio.Event()
        with anyio.fail_after(WAIT_SECONDS):
            with anyio.CancelScope() as call:
                giving_up["call"] = call
                try:
                    await session.call_tool(step["name"], step.get("args"))
                finally:
                    giving_up["ended"].set()
        del giving_up["call"]
        say({"cancelled": call.cancelled_caught, "asked": list(asked)})
    elif step["do"] == "wait_changed":
        changed["event"] = anyio.Event()
        seen = changed["count"]
        say({"waiting": True})
        with anyio.fail_after(WAIT_SECONDS):
            while changed["count"] == seen:
                await changed["event"].wait()
        say({"changed": True})
    else:
        raise ValueError(f"unknown step {step}")


if __name__ == "__main__":
    separator = sys.argv.index("--")
    options, command = sys.argv[1:separator], sys.argv[separator + 1 :]
    elicit = options[options.index("--elicit") + 1] if "--elicit" in options else None
    name = options[options.index("--name") + 1] if "--name" in options else "dcplugin-test-client"
    anyio.run(main, json.loads(options[0]), elicit, name, command)
