/**
 * Zed's Claude adapter (`@zed-industries/claude-agent-acp`, the ACP agent editors start for Claude
 * Code) running `goat` as its Claude Code: `CLAUDE_CODE_EXECUTABLE` names the built CLI, and a client
 * speaks ACP (JSON-RPC lines on stdio) to the adapter as an editor does. The adapter's SDK passes
 * `--replay-user-messages ""` and waits for its prompt's echo before it takes a result as its prompt's;
 * without the echo `session/prompt` never answered.
 */
import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { CLI, useCliFixture } from "../cli/helpers.js";
import { reply } from "../support/mock-provider.js";
import { ACP_ADAPTER_ENTRY, ensureClaudeSdkInstalled } from "./install.mjs";

const fx = useCliFixture("goat-acp-zed");
beforeAll(() => ensureClaudeSdkInstalled(), 300_000);

/** An ACP client on the adapter's stdio: requests, the agent's notifications and its requests. */
interface AcpClient {
  child: ChildProcessWithoutNullStreams;
  /** The update of every `session/update` notification, in order. */
  updates: any[];
  /** The options of every `session/request_permission` the adapter sent. */
  questions: any[][];
  request(method: string, params: object): Promise<any>;
  stderr(): string;
}

const clients: AcpClient[] = [];
afterEach(() => {
  for (const c of clients.splice(0)) c.child.kill("SIGKILL");
});

/**
 * Starts the adapter on goat. `answerPermission` picks the option for each
 * `session/request_permission` (by its kind, as an editor's buttons are).
 */
function startAdapter(answerPermission: (options: any[]) => string): AcpClient {
  const child = spawn(process.execPath, [ACP_ADAPTER_ENTRY], {
    cwd: fx.work.path,
    env: { ...fx.env, HOME: fx.home.path, CLAUDE_CODE_EXECUTABLE: CLI },
    stdio: ["pipe", "pipe", "pipe"],
  });
  const pending = new Map<number, { resolve: (v: any) => void; reject: (e: Error) => void }>();
  const updates: AcpClient["updates"] = [];
  const questions: any[][] = [];
  let nextId = 1;
  let buffer = "";
  let stderr = "";
  const send = (message: object) => child.stdin.write(`${JSON.stringify(message)}\n`);
  child.stderr.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  child.stdout.on("data", (chunk: Buffer) => {
    buffer += chunk.toString();
    for (let nl = buffer.indexOf("\n"); nl >= 0; nl = buffer.indexOf("\n")) {
      const line = buffer.slice(0, nl);
      buffer = buffer.slice(nl + 1);
      if (line.trim() === "") continue;
      const message = JSON.parse(line);
      if (message.method === "session/update") updates.push(message.params.update);
      else if (message.method === "session/request_permission") {
        questions.push(message.params.options);
        const optionId = answerPermission(message.params.options);
        send({ jsonrpc: "2.0", id: message.id, result: { outcome: { outcome: "selected", optionId } } });
      } else if (message.method !== undefined && message.id !== undefined) {
        send({
          jsonrpc: "2.0",
          id: message.id,
          error: { code: -32601, message: "not offered by this client" },
        });
      } else if (message.id !== undefined && pending.has(message.id)) {
        const waiter = pending.get(message.id);
        pending.delete(message.id);
        if (message.error) waiter?.reject(new Error(`${JSON.stringify(message.error)}; stderr: ${stderr}`));
        else waiter?.resolve(message.result);
      }
    }
  });
  const client: AcpClient = {
    child,
    updates,
    questions,
    stderr: () => stderr,
    request(method, params) {
      const id = nextId++;
      send({ jsonrpc: "2.0", id, method, params });
      return new Promise((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`no answer to ${method} in time; stderr: ${stderr}`)),
          30_000,
        );
        pending.set(id, {
          resolve: (v) => {
            clearTimeout(timer);
            resolve(v);
          },
          reject: (e) => {
            clearTimeout(timer);
            reject(e);
          },
        });
      });
    },
  };
  clients.push(client);
  return client;
}

const allowOnce = (options: any[]) => options.find((o) => o.kind === "allow_once").optionId;

describe("Zed's claude-agent-acp on goat", () => {
  it("a prompt with a tool call that asks permission ends with end_turn; so does the next prompt", async () => {
    fx.mock.enqueue(
      reply.toolCalls([{ name: "Bash", id: "toolu_acp1", input: { command: "echo made > made.txt" } }]),
      reply.text("made it"),
      reply.text("second answer"),
    );
    const acp = startAdapter(allowOnce);
    await acp.request("initialize", { protocolVersion: 1, clientCapabilities: {} });
    const { sessionId } = await acp.request("session/new", { cwd: fx.work.path, mcpServers: [] });
    expect(sessionId).toEqual(expect.any(String));

    const before = acp.updates.length;
    const first = await acp.request("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text: "make the file" }],
    });
    expect(first.stopReason).toBe("end_turn");
    expect(acp.questions).toHaveLength(1);
    expect(readFileSync(join(fx.work.path, "made.txt"), "utf8")).toBe("made\n");
    const turn = acp.updates.slice(before);
    expect(turn.some((u) => u.sessionUpdate === "tool_call" && u.toolCallId === "toolu_acp1")).toBe(true);
    const text = turn
      .filter((u) => u.sessionUpdate === "agent_message_chunk")
      .map((u) => u.content.text)
      .join("");
    expect(text).toContain("made it");

    const second = await acp.request("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text: "again" }],
    });
    expect(second.stopReason).toBe("end_turn");
    expect(fx.mock.pending()).toBe(0);
  }, 60_000);

  it("a prompt sent while another runs is queued: the first ends with end_turn when the second's echo comes", async () => {
    fx.mock.enqueue(
      reply.toolCalls([{ name: "Bash", id: "toolu_q", input: { command: "sleep 1; echo slow" } }]),
      reply.text("first answer"),
      reply.text("queued answer"),
    );
    const acp = startAdapter(allowOnce);
    await acp.request("initialize", { protocolVersion: 1, clientCapabilities: {} });
    const { sessionId } = await acp.request("session/new", { cwd: fx.work.path, mcpServers: [] });
    const first = acp.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "slow one" }] });
    await waitUntil(() => acp.updates.some((u) => u.sessionUpdate === "tool_call"));
    const second = acp.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "queued" }] });
    expect((await first).stopReason).toBe("end_turn");
    expect((await second).stopReason).toBe("end_turn");
    const text = acp.updates
      .filter((u) => u.sessionUpdate === "agent_message_chunk")
      .map((u) => u.content.text)
      .join("");
    expect(text).toContain("first answer");
    expect(text).toContain("queued answer");
    // The queued prompt went to the model after the first turn, with that turn in its history.
    expect(JSON.stringify(fx.mock.requests.at(-1)?.body.messages)).toContain("first answer");
  }, 60_000);

  it("mode and model switches, cancel mid-tool, and the session loaded by a new adapter", async () => {
    const acp = startAdapter(allowOnce);
    await acp.request("initialize", { protocolVersion: 1, clientCapabilities: {} });
    const session = await acp.request("session/new", { cwd: fx.work.path, mcpServers: [] });
    const { sessionId } = session;

    // acceptEdits: a Write runs without asking (a question here would pick allow and pass unseen).
    await acp.request("session/set_mode", { sessionId, modeId: "acceptEdits" });
    const other = session.models.availableModels.find(
      (m: any) => m.modelId !== session.models.currentModelId,
    );
    await acp.request("session/set_model", { sessionId, modelId: other.modelId });
    fx.mock.enqueue(
      reply.toolCalls([
        {
          name: "Write",
          id: "toolu_w",
          input: { file_path: join(fx.work.path, "notes.txt"), content: "kiwi" },
        },
      ]),
      reply.text("written"),
    );
    const written = await acp.request("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text: "write" }],
    });
    expect(written.stopReason).toBe("end_turn");
    expect(readFileSync(join(fx.work.path, "notes.txt"), "utf8")).toBe("kiwi");
    expect(acp.questions).toEqual([]);
    expect(fx.mock.requests.at(-1)?.body.model).toBe(other.modelId.split("/").at(-1));

    // Cancel while a tool runs: the prompt answers cancelled, the tool's process is gone.
    fx.mock.enqueue(
      reply.toolCalls([
        { name: "Bash", id: "toolu_slow", input: { command: "echo $$ > pid.txt; exec sleep 30" } },
      ]),
    );
    const cancelled = acp.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "wait" }] });
    await waitUntil(() => existsSync(join(fx.work.path, "pid.txt")));
    acp.child.stdin.write(
      `${JSON.stringify({ jsonrpc: "2.0", method: "session/cancel", params: { sessionId } })}\n`,
    );
    expect((await cancelled).stopReason).toBe("cancelled");
    const pid = Number(readFileSync(join(fx.work.path, "pid.txt"), "utf8"));
    await waitUntil(() => !alive(pid));
    acp.child.kill("SIGKILL");

    // A new adapter loads the session: it replays the history from Claude Code's transcript folder
    // (the SDK's getSessionMessages), where goat writes a copy, and goat resumes the session, so the
    // model sees the earlier turns.
    const again = startAdapter(allowOnce);
    await again.request("initialize", { protocolVersion: 1, clientCapabilities: {} });
    await again.request("session/load", { sessionId, cwd: fx.work.path, mcpServers: [] });
    const replayed = (kind: string) =>
      again.updates
        .filter((u) => u.sessionUpdate === kind)
        .map((u) => u.content.text ?? "")
        .join("");
    expect(replayed("user_message_chunk")).toContain("write");
    expect(replayed("agent_message_chunk")).toContain("written");
    expect(again.updates).toContainEqual(
      expect.objectContaining({ sessionUpdate: "tool_call", toolCallId: "toolu_w" }),
    );
    const listed = await again.request("session/list", { cwd: fx.work.path });
    expect(listed.sessions.map((s: any) => s.sessionId)).toContain(sessionId);
    fx.mock.enqueue(reply.text("I remember"));
    const resumed = await again.request("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text: "recall" }],
    });
    expect(resumed.stopReason).toBe("end_turn");
    expect(JSON.stringify(fx.mock.requests.at(-1)?.body.messages)).toContain("kiwi");
  }, 90_000);
});

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function waitUntil(done: () => boolean, timeoutMs = 20_000): Promise<void> {
  const start = Date.now();
  while (!done()) {
    if (Date.now() - start > timeoutMs) throw new Error("condition not met in time");
    await new Promise((r) => setTimeout(r, 20));
  }
}
