/**
 * MCP servers living in the SDK host's process, reached over the control channel (`mcp_message`), with
 * the host side played by hand: the Python SDK's `{"type":"sdk"}` entries in `--mcp-config`, a host that
 * answers with an error or garbage, and a server that speaks first (a tool list change).
 */
import { afterEach, describe, expect, it } from "vitest";
import { reply } from "../support/mock-provider.js";
import { control, type Host, isResult, responseTo, startHost as startHostIn, user } from "./control-host.js";
import { runCli, useCliFixture } from "./helpers.js";

const fx = useCliFixture("goat-ctl-mcp");
const sessions: Host[] = [];
afterEach(() => {
  for (const s of sessions.splice(0)) s.child.kill("SIGKILL");
});
const PY_CONFIG = JSON.stringify({ mcpServers: { py: { type: "sdk", name: "py" } } });

const isMcp = (method: string) => (m: any) =>
  m.type === "control_request" && m.request.subtype === "mcp_message" && m.request.message.method === method;

/** Answers one `mcp_message` request with `mcp_response`. */
function answer(host: Host, request: any, mcpResponse: object): void {
  host.send({
    type: "control_response",
    response: { subtype: "success", request_id: request.request_id, response: { mcp_response: mcpResponse } },
  });
}

/** Plays the host's server through the MCP handshake: initialize, initialized, tools/list. */
async function handshake(host: Host, tools: object[]): Promise<void> {
  const init = await host.waitFor(isMcp("initialize"));
  expect(init.request.server_name).toBe("py");
  answer(host, init, {
    jsonrpc: "2.0",
    id: init.request.message.id,
    result: {
      protocolVersion: init.request.message.params.protocolVersion,
      capabilities: { tools: { listChanged: true } },
      serverInfo: { name: "py", version: "0.0.1" },
    },
  });
  const initialized = await host.waitFor(isMcp("notifications/initialized"));
  answer(host, initialized, { jsonrpc: "2.0", result: {}, id: 0 });
  const list = await host.waitFor(isMcp("tools/list"));
  answer(host, list, { jsonrpc: "2.0", id: list.request.message.id, result: { tools } });
}

const ECHO_TOOL = {
  name: "echo",
  description: "Echoes its text",
  inputSchema: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
};

describe("--mcp-config entries of type sdk (the Python SDK's in-process servers)", () => {
  it("are connected over mcp_message and their tools called through the host", async () => {
    fx.mock.enqueue(
      reply.toolCalls([{ name: "mcp__py__echo", id: "toolu_py", input: { text: "ping" } }]),
      reply.text("echoed"),
    );
    const host = startHostIn(fx, sessions, ["--mcp-config", PY_CONFIG, "--allowedTools", "mcp__py"]);
    host.send(user("echo ping"));
    await handshake(host, [ECHO_TOOL]);
    const call = await host.waitFor(isMcp("tools/call"));
    expect(call.request.message.params).toMatchObject({ name: "echo", arguments: { text: "ping" } });
    answer(host, call, {
      jsonrpc: "2.0",
      id: call.request.message.id,
      result: { content: [{ type: "text", text: "pong from the host" }] },
    });
    expect((await host.waitFor(isResult)).result).toBe("echoed");
    const init = host.lines.find((m) => m.type === "system" && m.subtype === "init");
    expect(init.mcp_servers).toEqual([{ name: "py", status: "connected" }]);
    const sent = JSON.stringify(fx.mock.requests[1].body.messages);
    expect(sent).toContain("pong from the host");
    expect((await host.end()).code).toBe(0);
  });

  it("a host that answers a tool call with an error or a non-JSON-RPC value gives an error result, not a hang", async () => {
    fx.mock.enqueue(
      reply.toolCalls([{ name: "mcp__py__echo", id: "toolu_1", input: { text: "a" } }]),
      reply.toolCalls([{ name: "mcp__py__echo", id: "toolu_2", input: { text: "b" } }]),
      reply.text("both failed"),
    );
    const host = startHostIn(fx, sessions, ["--mcp-config", PY_CONFIG, "--allowedTools", "mcp__py"]);
    host.send(user("echo twice"));
    await handshake(host, [ECHO_TOOL]);
    const first = await host.waitFor(isMcp("tools/call"));
    host.send({
      type: "control_response",
      response: { subtype: "error", request_id: first.request_id, error: "the host's server crashed" },
    });
    const second = await host.waitFor(isMcp("tools/call"), 2);
    answer(host, second, { not: "json-rpc" });
    expect((await host.waitFor(isResult)).result).toBe("both failed");
    const results = fx.mock.requests[2].body.messages
      .flatMap((m: any) => (Array.isArray(m.content) ? m.content : []))
      .filter((b: any) => b.type === "tool_result");
    expect(results.map((r: any) => r.is_error)).toEqual([true, true]);
    expect(JSON.stringify(results[0].content)).toContain("the host's server crashed");
    expect(JSON.stringify(results[1].content)).toContain("not a JSON-RPC answer");
    expect((await host.end()).code).toBe(0);
  });

  it("a tool list change sent by the host's server reaches the model's next call", async () => {
    fx.mock.enqueue(reply.text("first"), reply.text("second"));
    const host = startHostIn(fx, sessions, ["--mcp-config", PY_CONFIG]);
    host.send(user("one"));
    await handshake(host, [ECHO_TOOL]);
    await host.waitFor(isResult);
    host.send({
      type: "control_request",
      request_id: "srv-1",
      request: {
        subtype: "mcp_message",
        server_name: "py",
        message: { jsonrpc: "2.0", method: "notifications/tools/list_changed" },
      },
    });
    const relist = await host.waitFor(isMcp("tools/list"), 2);
    answer(host, relist, {
      jsonrpc: "2.0",
      id: relist.request.message.id,
      result: { tools: [ECHO_TOOL, { ...ECHO_TOOL, name: "shout" }] },
    });
    const ack = await host.waitFor((m) => m.type === "control_response" && m.response.request_id === "srv-1");
    expect(ack.response.subtype).toBe("success");
    await untilToolListed(host, "py", "shout");
    host.send(user("two"));
    await host.waitFor(isResult, 2);
    const names = fx.mock.requests[1].body.tools.map((t: any) => t.name);
    expect(names).toContain("mcp__py__shout");
    expect((await host.end()).code).toBe(0);
  });

  it("without stream-json input it is a clear error naming the server", async () => {
    const run = await runCli(["-p", "hi", "--mcp-config", PY_CONFIG], { env: fx.env, cwd: fx.work.path });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/MCP server "py" has type "sdk".*--input-format stream-json/);
  });
});

/**
 * Asks the session for its MCP status (`mcp_status`) until `server` lists `tool`: the new list applies
 * once Goat has read the host's answer, a moment after the notification's own acknowledgement.
 */
async function untilToolListed(host: Host, server: string, tool: string): Promise<void> {
  for (let attempt = 1; attempt <= 500; attempt++) {
    const id = `status-${attempt}`;
    host.send(control(id, { subtype: "mcp_status" }));
    const status = await host.waitFor(responseTo(id));
    const entry = status.response.response.mcpServers.find((s: any) => s.name === server);
    if (entry?.tools?.some((t: any) => t.name === tool)) return;
  }
  throw new Error(`${server} never listed ${tool}`);
}
