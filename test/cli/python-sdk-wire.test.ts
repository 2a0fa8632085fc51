/**
 * The Python Claude Agent SDK's exact wire, played by hand (CI cannot install the SDK from PyPI): the
 * argv `subprocess_cli.py` builds (no `-p`, `--system-prompt ""`, `--permission-prompt-tool stdio`,
 * `--mcp-config` with a `{"type":"sdk"}` entry, `--input-format stream-json` last), and the stdin lines
 * and answers the SDK 0.2.143 wrote when it drove goat through its basic flows (recorded with a tee
 * wrapper as `cli_path`): `initialize` with `"hooks": null` or callback ids, user lines with
 * `"session_id": "default"`, hook and permission answers, the in-process server's handshake answered
 * over `mcp_message` (no manifests), `interrupt`, `set_model`, `set_permission_mode`,
 * `get_context_usage`, `mcp_status`. The manual run of the real SDK is in the README.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { reply } from "../support/mock-provider.js";
import { type Host, isResult, responseTo, startHost } from "./control-host.js";
import { runCli, useCliFixture } from "./helpers.js";

const fx = useCliFixture("goat-pywire");
const sessions: Host[] = [];
afterEach(() => {
  for (const s of sessions.splice(0)) s.child.kill("SIGKILL");
});

/** The argv the Python SDK builds for `ClaudeAgentOptions(model=…, …)`, `--input-format` last. */
function pythonArgv(extra: string[] = []): string[] {
  return [
    "--output-format",
    "stream-json",
    "--verbose",
    "--system-prompt",
    "",
    ...extra,
    "--model",
    "anthropic/claude-sonnet-4-5",
    "--input-format",
    "stream-json",
  ];
}

const initialize = (hooks: object | null = null) => ({
  type: "control_request",
  request_id: "req_1_7585b7ac",
  request: { subtype: "initialize", hooks },
});
const userLine = (content: string) => ({
  type: "user",
  message: { role: "user", content },
  parent_tool_use_id: null,
  session_id: "default",
});
const request = (id: string, body: object) => ({ type: "control_request", request_id: id, request: body });
const success = (requestId: string, response: object) => ({
  type: "control_response",
  response: { subtype: "success", request_id: requestId, response },
});
const goatAsks = (subtype: string) => (m: any) =>
  m.type === "control_request" && m.request.subtype === subtype;
const isMcp = (method: string) => (m: any) =>
  m.type === "control_request" && m.request.subtype === "mcp_message" && m.request.message.method === method;

describe("the Python SDK's wire", () => {
  it("checks the version first: `goat -v` leads with a semver at least 2.0.0", async () => {
    const run = await runCli(["-v"], { env: fx.env });
    expect(run.code).toBe(0);
    const [major] = run.stdout.trim().split(".").map(Number);
    expect(major).toBeGreaterThanOrEqual(2);
  });

  it("query(): initialize with hooks null, one user line, one result", async () => {
    fx.mock.enqueue(reply.text("Hi from goat"));
    const host = startHost(fx, sessions, [], { argv: pythonArgv() });
    host.send(initialize());
    const init = await host.waitFor(responseTo("req_1_7585b7ac"));
    expect(init.response.subtype).toBe("success");
    host.send({ ...userLine("hello"), session_id: "" });
    expect(await host.waitFor(isResult)).toMatchObject({ subtype: "success", result: "Hi from goat" });
    // Goat's own prompt stays: "" is the Python SDK's "no system prompt chosen".
    expect(JSON.stringify(fx.mock.requests[0].body.system)).toContain("Goat");
    expect((await host.end()).code).toBe(0);
  });

  it("hooks: PreToolUse registered by callback id, answered with {}", async () => {
    fx.mock.enqueue(
      reply.toolCalls([{ name: "Bash", id: "toolu_h", input: { command: "echo python-flow" } }]),
      reply.text("done"),
    );
    const host = startHost(fx, sessions, [], { argv: pythonArgv(["--allowedTools", "Bash"]) });
    host.send(initialize({ PreToolUse: [{ matcher: "Bash", hookCallbackIds: ["hook_0"] }] }));
    await host.waitFor(responseTo("req_1_7585b7ac"));
    host.send(userLine("bash with hook"));
    const hook = await host.waitFor(goatAsks("hook_callback"));
    expect(hook.request).toMatchObject({
      callback_id: "hook_0",
      tool_use_id: "toolu_h",
      input: {
        hook_event_name: "PreToolUse",
        tool_name: "Bash",
        tool_input: { command: "echo python-flow" },
      },
    });
    host.send(success(hook.request_id, {}));
    expect((await host.waitFor(isResult)).subtype).toBe("success");
    expect(JSON.stringify(fx.mock.requests[1].body.messages)).toContain("python-flow");
    expect((await host.end()).code).toBe(0);
  });

  it("can_use_tool: --permission-prompt-tool stdio, a deny answer's message reaches the model", async () => {
    fx.mock.enqueue(
      reply.toolCalls([{ name: "Bash", id: "toolu_p", input: { command: "touch perm.txt" } }]),
      reply.text("denied"),
    );
    const host = startHost(fx, sessions, [], { argv: pythonArgv(["--permission-prompt-tool", "stdio"]) });
    host.send(initialize());
    await host.waitFor(responseTo("req_1_7585b7ac"));
    host.send(userLine("perm please"));
    const ask = await host.waitFor(goatAsks("can_use_tool"));
    expect(ask.request).toMatchObject({ tool_name: "Bash", input: { command: "touch perm.txt" } });
    host.send(success(ask.request_id, { behavior: "deny", message: "python says no" }));
    await host.waitFor(isResult);
    expect(JSON.stringify(fx.mock.requests[1].body.messages)).toContain("python says no");
    expect(existsSync(join(fx.work.path, "perm.txt"))).toBe(false);
    expect((await host.end()).code).toBe(0);
  });

  it("an in-process server from --mcp-config: handshake and call over mcp_message, then mcp_status", async () => {
    fx.mock.enqueue(
      reply.toolCalls([{ name: "mcp__pytools__add", id: "toolu_m", input: { a: 2, b: 3 } }]),
      reply.text("five"),
    );
    const config = JSON.stringify({ mcpServers: { pytools: { type: "sdk", name: "pytools" } } });
    const host = startHost(fx, sessions, [], {
      argv: pythonArgv(["--allowedTools", "mcp__pytools__add", "--mcp-config", config]),
    });
    host.send(initialize());
    await host.waitFor(responseTo("req_1_7585b7ac"));
    host.send(userLine("use mcp add"));
    // The answers the Python SDK gave, id for id.
    const init = await host.waitFor(isMcp("initialize"));
    host.send(
      success(init.request_id, {
        mcp_response: {
          jsonrpc: "2.0",
          id: init.request.message.id,
          result: {
            protocolVersion: "2025-11-25",
            capabilities: { experimental: {}, tools: { listChanged: false } },
            serverInfo: { name: "pytools", version: "1.0.0" },
          },
        },
      }),
    );
    const initialized = await host.waitFor(isMcp("notifications/initialized"));
    host.send(success(initialized.request_id, { mcp_response: { jsonrpc: "2.0", result: {} } }));
    const list = await host.waitFor(isMcp("tools/list"));
    const add = {
      name: "add",
      description: "Adds two numbers",
      inputSchema: {
        type: "object",
        properties: { a: { type: "integer" }, b: { type: "integer" } },
        required: ["a", "b"],
      },
    };
    host.send(
      success(list.request_id, {
        mcp_response: { jsonrpc: "2.0", id: list.request.message.id, result: { tools: [add] } },
      }),
    );
    const call = await host.waitFor(isMcp("tools/call"));
    expect(call.request.message.params).toMatchObject({ name: "add", arguments: { a: 2, b: 3 } });
    host.send(
      success(call.request_id, {
        mcp_response: {
          jsonrpc: "2.0",
          id: call.request.message.id,
          result: { content: [{ type: "text", text: "sum=5" }], isError: false },
        },
      }),
    );
    expect((await host.waitFor(isResult)).result).toBe("five");
    expect(JSON.stringify(fx.mock.requests[1].body.messages)).toContain("sum=5");
    host.send(request("req_2_56413803", { subtype: "mcp_status" }));
    const status = await host.waitFor(responseTo("req_2_56413803"));
    expect(status.response.response.mcpServers).toEqual([
      expect.objectContaining({
        name: "pytools",
        status: "connected",
        serverInfo: { name: "pytools", version: "1.0.0" },
      }),
    ]);
    expect((await host.end()).code).toBe(0);
  });

  it("interrupt stops a running command: the turn ends with error_during_execution", async () => {
    fx.mock.enqueue(reply.toolCalls([{ name: "Bash", id: "toolu_s", input: { command: "sleep 30" } }]));
    const host = startHost(fx, sessions, [], { argv: pythonArgv(["--allowedTools", "Bash"]) });
    host.send(initialize());
    await host.waitFor(responseTo("req_1_7585b7ac"));
    host.send(userLine("slow bash"));
    await host.waitFor((m) => m.type === "tool_progress" && m.tool_use_id === "toolu_s");
    host.send(request("req_2_6007e5bb", { subtype: "interrupt" }));
    expect((await host.waitFor(responseTo("req_2_6007e5bb"))).response.subtype).toBe("success");
    expect(await host.waitFor(isResult)).toMatchObject({ subtype: "error_during_execution", is_error: true });
    // The last result was an error, so the exit status is 1 (the SDKs report that result's text).
    expect((await host.end()).code).toBe(1);
  });

  it("set_model and set_permission_mode before the prompt, get_context_usage after it", async () => {
    fx.mock.enqueue(reply.text("again"));
    const host = startHost(fx, sessions, [], { argv: pythonArgv() });
    host.send(initialize());
    host.send(request("req_2_ec519019", { subtype: "set_model", model: "anthropic/claude-haiku-4-5" }));
    host.send(request("req_3_eab0dab9", { subtype: "set_permission_mode", mode: "acceptEdits" }));
    host.send(userLine("hello again"));
    const init = await host.waitFor((m) => m.type === "system" && m.subtype === "init");
    expect(init).toMatchObject({ model: "anthropic/claude-haiku-4-5", permissionMode: "acceptEdits" });
    await host.waitFor(isResult);
    expect(fx.mock.requests[0].body.model).toBe("claude-haiku-4-5");
    host.send(request("req_4_9e55251f", { subtype: "get_context_usage" }));
    const usage = (await host.waitFor(responseTo("req_4_9e55251f"))).response.response;
    expect(usage.totalTokens).toBeGreaterThan(0);
    expect(usage.model).toBe("anthropic/claude-haiku-4-5");
    expect((await host.end()).code).toBe(0);
  });
});
