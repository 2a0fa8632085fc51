/**
 * `goat acp` over stdio, driven by the Agent Client Protocol's official client (`client()` of
 * `@agentclientprotocol/sdk`) as an editor drives it, against the built CLI and a mock provider at
 * the HTTP level: a tool turn with a permission question, cancel mid-tool, an image prompt, the load
 * of an earlier session, edits through the client's file system, and malformed JSON-RPC.
 */
import { type ChildProcess, type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { existsSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Readable, Writable } from "node:stream";
import {
  type ClientApp,
  type ClientCapabilities,
  type ClientConnection,
  client,
  ndJsonStream,
  type RequestPermissionRequest,
  type SessionUpdate,
} from "@agentclientprotocol/sdk";
import { afterEach, describe, expect, it } from "vitest";
import { writeStdioServer } from "../mcp/helpers.js";
import { reply } from "../support/mock-provider.js";
import { CLI, useCliFixture } from "./helpers.js";

const fx = useCliFixture("goat-acp");

/** A `goat acp` process and the official client connected to it. */
interface Editor {
  child: ChildProcessWithoutNullStreams;
  connection: ClientConnection;
  updates: SessionUpdate[];
  questions: RequestPermissionRequest[];
  /** The files written through `fs/write_text_file`, by path (the "buffers"). */
  buffers: Map<string, string>;
  /** The paths read through `fs/read_text_file`, in order. */
  reads: string[];
  /** The commands run in the editor's terminal (`terminal/create`), and the terminals killed. */
  terminals: { commands: string[]; killed: string[] };
  stderr(): string;
}

const started: ChildProcessWithoutNullStreams[] = [];
afterEach(() => {
  for (const child of started.splice(0)) if (child.exitCode === null) child.kill("SIGKILL");
});

/** Starts `goat acp`; `answer` picks the option kind for each permission question. */
async function startEditor(
  answer: (q: RequestPermissionRequest) => string,
  capabilities: ClientCapabilities = {},
  buffers = new Map<string, string>(),
): Promise<Editor> {
  const child = spawn(process.execPath, [CLI, "acp"], {
    cwd: fx.work.path,
    env: fx.env,
    stdio: ["pipe", "pipe", "pipe"],
  });
  started.push(child);
  let stderr = "";
  child.stderr.on("data", (b: Buffer) => {
    stderr += b.toString();
  });
  const updates: SessionUpdate[] = [];
  const questions: RequestPermissionRequest[] = [];
  const reads: string[] = [];
  const app = client({ name: "test-editor" })
    .onNotification("session/update", ({ params }) => {
      updates.push(params.update);
    })
    .onRequest("session/request_permission", ({ params, signal }) => {
      questions.push(params);
      const kind = answer(params);
      // "hold": the user has not answered yet; the agent withdraws the question when the turn is cancelled.
      if (kind === "hold") {
        return new Promise((resolve) =>
          signal.addEventListener("abort", () => resolve({ outcome: { outcome: "cancelled" } })),
        );
      }
      const option = params.options.find((o) => o.kind === kind);
      if (!option) throw new Error(`no ${kind} option among ${JSON.stringify(params.options)}`);
      return { outcome: { outcome: "selected", optionId: option.optionId } };
    })
    .onRequest("fs/read_text_file", ({ params }) => {
      reads.push(params.path);
      const whole = buffers.get(params.path) ?? readFileSync(params.path, "utf8");
      if (params.line == null && params.limit == null) return { content: whole };
      // As Zed answers a range: `line` is 1-based, `limit` counts lines.
      const lines = whole.split(/(?<=\n)/);
      const from = (params.line ?? 1) - 1;
      return { content: lines.slice(from, params.limit == null ? undefined : from + params.limit).join("") };
    })
    .onRequest("fs/write_text_file", ({ params }) => {
      buffers.set(params.path, params.content);
      return {};
    });
  const terminals = serveTerminals(app);
  const connection = app.connect(
    ndJsonStream(
      Writable.toWeb(child.stdin) as WritableStream<Uint8Array>,
      Readable.toWeb(child.stdout) as ReadableStream<Uint8Array>,
    ),
  );
  await connection.agent.request("initialize", { protocolVersion: 1, clientCapabilities: capabilities });
  return { child, connection, updates, questions, buffers, reads, terminals, stderr: () => stderr };
}

/** Sends one text prompt in `sessionId`; resolves with the agent's answer. */
function sendPrompt(editor: Editor, sessionId: string, text: string) {
  return editor.connection.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text }] });
}

/** An editor that reads and writes files itself (its buffers). */
const EDITOR_FS: ClientCapabilities = { fs: { readTextFile: true, writeTextFile: true } };

async function newSession(editor: Editor): Promise<string> {
  const { sessionId } = await editor.connection.agent.request("session/new", {
    cwd: fx.work.path,
    mcpServers: [],
  });
  return sessionId;
}

const text = (updates: SessionUpdate[], kind: string) =>
  updates
    .filter((u) => u.sessionUpdate === kind)
    .map((u) => ((u as any).content.type === "text" ? (u as any).content.text : ""))
    .join("");

describe("goat acp", () => {
  it("a tool turn asks permission; allow always adds the engine's rule, so the same call runs unasked", async () => {
    fx.mock.enqueue(
      reply.toolCalls([{ name: "Bash", id: "toolu_1", input: { command: "touch made.txt" } }]),
      reply.text("made it"),
      reply.toolCalls([{ name: "Bash", id: "toolu_2", input: { command: "touch made.txt" } }]),
      reply.text("again"),
    );
    const editor = await startEditor(() => "allow_always");
    const sessionId = await newSession(editor);
    const first = await sendPrompt(editor, sessionId, "make the file");
    expect(first.stopReason).toBe("end_turn");
    expect(existsSync(join(fx.work.path, "made.txt"))).toBe(true);
    expect(editor.questions).toHaveLength(1);
    const question = editor.questions[0];
    expect(question.toolCall).toMatchObject({
      toolCallId: "toolu_1",
      kind: "execute",
      title: "touch made.txt",
    });
    expect(question.options.map((o) => o.kind)).toEqual(["allow_once", "allow_always", "reject_once"]);
    expect(question.options[1].name).toContain("Bash(");

    const call = editor.updates.find((u) => u.sessionUpdate === "tool_call");
    expect(call).toMatchObject({ toolCallId: "toolu_1", kind: "execute", status: "pending" });
    const done = editor.updates.find(
      (u) => u.sessionUpdate === "tool_call_update" && u.status === "completed",
    );
    expect(done).toMatchObject({ toolCallId: "toolu_1" });
    expect(text(editor.updates, "agent_message_chunk")).toBe("made it");
    const usage = editor.updates.find((u) => u.sessionUpdate === "usage_update") as any;
    expect(usage.size).toBeGreaterThan(0);
    expect(usage.cost.currency).toBe("USD");

    const second = await sendPrompt(editor, sessionId, "again");
    expect(second.stopReason).toBe("end_turn");
    expect(editor.questions).toHaveLength(1);
    expect(fx.mock.pending()).toBe(0);
  }, 60_000);

  it("reject answers the model with a refusal and runs nothing", async () => {
    fx.mock.enqueue(
      reply.toolCalls([{ name: "Bash", id: "toolu_r", input: { command: "touch nope.txt" } }]),
      reply.text("ok, not doing it"),
    );
    const editor = await startEditor(() => "reject_once");
    const sessionId = await newSession(editor);
    const answer = await sendPrompt(editor, sessionId, "try");
    expect(answer.stopReason).toBe("end_turn");
    expect(existsSync(join(fx.work.path, "nope.txt"))).toBe(false);
    expect(JSON.stringify(fx.mock.requests.at(-1)?.body.messages)).toContain("rejected");
    expect(editor.updates).toContainEqual(
      expect.objectContaining({ sessionUpdate: "tool_call_update", toolCallId: "toolu_r", status: "failed" }),
    );
  }, 60_000);

  it("cancel mid-tool: the prompt answers cancelled, the tool's process is gone, the transcript stays paired", async () => {
    fx.mock.enqueue(
      reply.toolCalls([
        { name: "Bash", id: "toolu_slow", input: { command: "echo $$ > pid.txt; exec sleep 30" } },
      ]),
    );
    const editor = await startEditor(() => "allow_once");
    const sessionId = await newSession(editor);
    const prompt = editor.connection.agent.request("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text: "wait" }],
    });
    const pidFile = join(fx.work.path, "pid.txt");
    await waitUntil(() => existsSync(pidFile) && readFileSync(pidFile, "utf8").trim() !== "");
    const pid = Number(readFileSync(pidFile, "utf8"));
    expect(alive(pid)).toBe(true);
    await editor.connection.agent.notify("session/cancel", { sessionId });
    expect((await prompt).stopReason).toBe("cancelled");
    await waitUntil(() => !alive(pid));

    // The next prompt's request carries the cut call with its result: the history stays paired.
    fx.mock.enqueue(reply.text("after"));
    const next = await sendPrompt(editor, sessionId, "go on");
    expect(next.stopReason).toBe("end_turn");
    const sent = JSON.stringify(fx.mock.requests.at(-1)?.body.messages);
    expect(sent).toContain('"tool_use_id":"toolu_slow"');
    const transcript = readFileSync(findTranscript(sessionId), "utf8");
    expect(transcript).toContain('"tool_use_id":"toolu_slow"');
  }, 60_000);

  it("cancel while a permission question is open: the question is withdrawn, nothing runs, the prompt answers cancelled", async () => {
    fx.mock.enqueue(
      reply.toolCalls([{ name: "Bash", id: "toolu_q", input: { command: "touch asked.txt" } }]),
    );
    const editor = await startEditor(() => "hold");
    const sessionId = await newSession(editor);
    const prompt = editor.connection.agent.request("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text: "ask me" }],
    });
    await waitUntil(() => editor.questions.length === 1);
    await editor.connection.agent.notify("session/cancel", { sessionId });
    expect((await prompt).stopReason).toBe("cancelled");
    expect(existsSync(join(fx.work.path, "asked.txt"))).toBe(false);
  }, 60_000);

  it("an image and an embedded file reach the provider's request", async () => {
    fx.mock.enqueue(reply.text("a red dot"));
    const editor = await startEditor(() => "allow_once");
    const sessionId = await newSession(editor);
    const png = Buffer.from("89504e470d0a1a0a0000000d4948445200000001000000010802000000907753de", "hex");
    const answer = await editor.connection.agent.request("session/prompt", {
      sessionId,
      prompt: [
        { type: "text", text: "what is this?" },
        { type: "image", mimeType: "image/png", data: png.toString("base64") },
        { type: "resource", resource: { uri: "file:///src/a.ts", text: "export const kiwi = 1;" } },
      ],
    });
    expect(answer.stopReason).toBe("end_turn");
    const user = fx.mock.requests.at(-1)?.body.messages.at(-1);
    expect(user.content).toContainEqual(
      expect.objectContaining({
        type: "image",
        source: expect.objectContaining({ media_type: "image/png", data: png.toString("base64") }),
      }),
    );
    expect(JSON.stringify(user.content)).toContain(
      '<context ref=\\"file:///src/a.ts\\">\\nexport const kiwi = 1;',
    );

    // Audio was not advertised: a well-formed error, and the session goes on.
    await expect(
      editor.connection.agent.request("session/prompt", {
        sessionId,
        prompt: [{ type: "audio", mimeType: "audio/wav", data: "AAAA" }],
      }),
    ).rejects.toMatchObject({ code: -32602 });
  }, 60_000);

  it("an earlier session is listed, and loading it replays its history and continues it", async () => {
    fx.mock.enqueue(
      reply.toolCalls([{ name: "Bash", id: "toolu_h", input: { command: "echo kiwi" } }]),
      reply.text("the fruit is kiwi"),
    );
    const first = await startEditor(() => "allow_once");
    const sessionId = await newSession(first);
    await first.connection.agent.request("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text: "name a fruit" }],
    });
    first.connection.close();
    first.child.stdin.end();

    const second = await startEditor(() => "allow_once");
    const listed = await second.connection.agent.request("session/list", { cwd: fx.work.path });
    expect(listed.sessions).toContainEqual(expect.objectContaining({ sessionId, title: "name a fruit" }));
    await second.connection.agent.request("session/load", { sessionId, cwd: fx.work.path, mcpServers: [] });
    expect(text(second.updates, "user_message_chunk")).toBe("name a fruit");
    expect(text(second.updates, "agent_message_chunk")).toBe("the fruit is kiwi");
    expect(second.updates).toContainEqual(
      expect.objectContaining({ sessionUpdate: "tool_call", toolCallId: "toolu_h", kind: "execute" }),
    );
    expect(second.updates).toContainEqual(
      expect.objectContaining({
        sessionUpdate: "tool_call_update",
        toolCallId: "toolu_h",
        status: "completed",
      }),
    );

    fx.mock.enqueue(reply.text("I remember"));
    const again = await second.connection.agent.request("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text: "which fruit?" }],
    });
    expect(again.stopReason).toBe("end_turn");
    expect(JSON.stringify(fx.mock.requests.at(-1)?.body.messages)).toContain("the fruit is kiwi");
  }, 60_000);

  it("modes map to permission modes, and the model menu switches models", async () => {
    const editor = await startEditor(() => "reject_once");
    const created = await editor.connection.agent.request("session/new", {
      cwd: fx.work.path,
      mcpServers: [],
    });
    expect(created.modes?.availableModes.map((m) => m.id)).toEqual([
      "default",
      "acceptEdits",
      "plan",
      "bypassPermissions",
    ]);
    const menu = created.configOptions?.find((o) => o.category === "model") as any;
    const other = menu.options.find((o: any) => o.value !== menu.currentValue);
    await editor.connection.agent.request("session/set_config_option", {
      sessionId: created.sessionId,
      configId: menu.id,
      value: other.value,
    });
    await editor.connection.agent.request("session/set_mode", {
      sessionId: created.sessionId,
      modeId: "acceptEdits",
    });
    const path = join(fx.work.path, "notes.txt");
    fx.mock.enqueue(
      reply.toolCalls([{ name: "Write", id: "toolu_w", input: { file_path: path, content: "kiwi" } }]),
      reply.text("written"),
    );
    await editor.connection.agent.request("session/prompt", {
      sessionId: created.sessionId,
      prompt: [{ type: "text", text: "write" }],
    });
    expect(editor.questions).toEqual([]);
    expect(readFileSync(path, "utf8")).toBe("kiwi");
    expect(fx.mock.requests.at(-1)?.body.model).toBe(other.value.split("/").at(-1));
    const call = editor.updates.find((u) => u.sessionUpdate === "tool_call") as any;
    expect(call.kind).toBe("edit");
    expect(call.locations).toEqual([{ path }]);
    expect(call.content).toEqual([{ type: "diff", path, oldText: null, newText: "kiwi" }]);
  }, 60_000);

  it("leaving plan mode asks for the plan's approval; 'accept edits' moves the editor's mode menu and edits run unasked", async () => {
    const path = join(fx.work.path, "plan.txt");
    fx.mock.enqueue(
      reply.toolCalls([{ name: "ExitPlanMode", id: "toolu_plan", input: { plan: "write plan.txt" } }]),
      reply.toolCalls([{ name: "Write", id: "toolu_pw", input: { file_path: path, content: "planned" } }]),
      reply.text("done"),
    );
    const editor = await startEditor(() => "allow_always");
    const sessionId = await newSession(editor);
    await editor.connection.agent.request("session/set_mode", { sessionId, modeId: "plan" });
    const answer = await sendPrompt(editor, sessionId, "plan, then do it");
    expect(answer.stopReason).toBe("end_turn");
    expect(editor.questions.map((q) => q.toolCall.toolCallId)).toEqual(["toolu_plan"]);
    expect(editor.questions[0].toolCall.kind).toBe("switch_mode");
    expect(editor.updates).toContainEqual({
      sessionUpdate: "current_mode_update",
      currentModeId: "acceptEdits",
    });
    expect(readFileSync(path, "utf8")).toBe("planned");
  }, 60_000);

  it("with the client's file system, Read shows the editor's buffer and Edit changes it, not the file on disk", async () => {
    const path = join(fx.work.path, "a.txt");
    writeFileSync(path, "on disk\n");
    const buffers = new Map([[path, "unsaved apple\n"]]);
    const editor = await startEditor(() => "allow_once", EDITOR_FS, buffers);
    const sessionId = await newSession(editor);
    fx.mock.enqueue(
      reply.toolCalls([{ name: "Read", id: "toolu_r", input: { file_path: path } }]),
      reply.toolCalls([
        { name: "Edit", id: "toolu_e", input: { file_path: path, old_string: "apple", new_string: "pear" } },
      ]),
      reply.text("edited"),
    );
    const answer = await sendPrompt(editor, sessionId, "edit");
    expect(answer.stopReason).toBe("end_turn");
    // The model read what the editor shows (unsaved), numbered as Goat's Read numbers lines.
    expect(JSON.stringify(fx.mock.requests[1].body.messages)).toContain("     1\\tunsaved apple");
    expect(JSON.stringify(fx.mock.requests[1].body.messages)).not.toContain("on disk");
    expect(editor.questions).toHaveLength(1);
    expect(editor.questions[0].toolCall.content).toEqual([
      { type: "diff", path, oldText: "apple", newText: "pear" },
    ]);
    expect(buffers.get(path)).toBe("unsaved pear\n");
    expect(readFileSync(path, "utf8")).toBe("on disk\n");
  }, 60_000);

  it("with the client's file system, a Write through a link to outside the project is refused, as Goat's Write refuses it", async () => {
    const outside = join(fx.home.path, "outside.txt");
    writeFileSync(outside, "keep me\n");
    const link = join(fx.work.path, "link.txt");
    symlinkSync(outside, link);
    const inside = join(fx.work.path, "real.txt");
    const buffers = new Map<string, string>();
    // The editor approves everything: the refusal must come from the write's own check.
    const editor = await startEditor(() => "allow_once", EDITOR_FS, buffers);
    const sessionId = await newSession(editor);
    fx.mock.enqueue(
      reply.toolCalls([{ name: "Write", id: "toolu_link", input: { file_path: link, content: "owned\n" } }]),
      reply.toolCalls([{ name: "Write", id: "toolu_in", input: { file_path: inside, content: "fine\n" } }]),
      reply.text("done"),
    );
    const answer = await sendPrompt(editor, sessionId, "write");
    expect(answer.stopReason).toBe("end_turn");
    expect([...buffers.keys()]).toEqual([inside]);
    expect(readFileSync(outside, "utf8")).toBe("keep me\n");
    expect(JSON.stringify(fx.mock.requests[1].body.messages)).toMatch(/refused|outside/i);
  }, 60_000);

  it("with the client's file system, Edit matches as Goat's own Edit does: a CRLF buffer, and the same advice when a string is not unique", async () => {
    const path = join(fx.work.path, "crlf.txt");
    writeFileSync(path, "on disk\n");
    const buffers = new Map([[path, "one\r\ntwo\r\ntwo\r\n"]]);
    const editor = await startEditor(() => "allow_once", EDITOR_FS, buffers);
    const sessionId = await newSession(editor);
    fx.mock.enqueue(
      reply.toolCalls([{ name: "Read", id: "toolu_r", input: { file_path: path } }]),
      reply.toolCalls([
        { name: "Edit", id: "toolu_twice", input: { file_path: path, old_string: "two", new_string: "2" } },
      ]),
      reply.toolCalls([
        {
          name: "Edit",
          id: "toolu_crlf",
          input: { file_path: path, old_string: "one\ntwo", new_string: "1\n2" },
        },
      ]),
      reply.text("edited"),
    );
    const answer = await sendPrompt(editor, sessionId, "edit");
    expect(answer.stopReason).toBe("end_turn");
    // The same advice as Goat's own Edit for a string found twice.
    expect(JSON.stringify(fx.mock.requests[2].body.messages)).toContain(
      "Found 2 matches of the string to replace",
    );
    // The model's LF text matched the CRLF buffer, and the buffer kept its line endings.
    expect(buffers.get(path)).toBe("1\r\n2\r\ntwo\r\n");
    expect(readFileSync(path, "utf8")).toBe("on disk\n");
  }, 60_000);

  it("with the client's file system, Write and Edit of an existing file it has not read are refused, as Goat's own are; a range is read from the buffer", async () => {
    const path = join(fx.work.path, "unread.txt");
    writeFileSync(path, "on disk\n");
    const lines = Array.from({ length: 30 }, (_, i) => `buffer line ${i + 1}`).join("\n");
    const buffers = new Map([[path, `${lines}\n`]]);
    const editor = await startEditor(() => "allow_once", EDITOR_FS, buffers);
    const sessionId = await newSession(editor);
    fx.mock.enqueue(
      reply.toolCalls([
        { name: "Edit", id: "toolu_e", input: { file_path: path, old_string: "line 1", new_string: "x" } },
        { name: "Write", id: "toolu_w", input: { file_path: path, content: "overwritten\n" } },
      ]),
      reply.toolCalls([{ name: "Read", id: "toolu_r", input: { file_path: path, offset: 10, limit: 3 } }]),
      reply.toolCalls([{ name: "Write", id: "toolu_w2", input: { file_path: path, content: "now fine\n" } }]),
      reply.text("done"),
    );
    const answer = await sendPrompt(editor, sessionId, "write");
    expect(answer.stopReason).toBe("end_turn");
    const afterRefusals = JSON.stringify(fx.mock.requests[1].body.messages);
    expect(afterRefusals.match(/File has not been read yet/g)).toHaveLength(2);
    const afterRead = JSON.stringify(fx.mock.requests[2].body.messages);
    expect(afterRead).toContain("    10\\tbuffer line 10");
    expect(afterRead).toContain("    12\\tbuffer line 12");
    expect(afterRead).not.toContain("buffer line 13\\n");
    expect(afterRead).toContain("call Read with offset=13");
    // Read, then Write: the buffer is written; the disk is untouched.
    expect(buffers.get(path)).toBe("now fine\n");
    expect(readFileSync(path, "utf8")).toBe("on disk\n");
  }, 60_000);

  it("the editor's MCP server serves the model; thinking streams as thought chunks, TodoWrite as the plan; closing stdin ends goat acp", async () => {
    const server = writeStdioServer(fx.home.path);
    fx.mock.enqueue(
      reply.message([
        { type: "thinking", thinking: "let me plan", signature: "sig" },
        {
          type: "tool_use",
          id: "toolu_todo",
          name: "TodoWrite",
          input: {
            todos: [
              { content: "echo it", status: "in_progress", activeForm: "Echoing" },
              { content: "report", status: "pending", activeForm: "Reporting" },
            ],
          },
        },
        { type: "tool_use", id: "toolu_mcp", name: "mcp__fx__echo", input: { msg: "from the editor" } },
      ]),
      reply.text("done"),
    );
    const editor = await startEditor(() => "allow_once");
    const { sessionId } = await editor.connection.agent.request("session/new", {
      cwd: fx.work.path,
      mcpServers: [{ name: "fx", command: process.execPath, args: [server], env: [] }],
    });
    const answer = await sendPrompt(editor, sessionId, "plan and echo");
    expect(answer.stopReason).toBe("end_turn");
    expect(fx.mock.requests[0].body.tools.map((t: any) => t.name)).toContain("mcp__fx__echo");
    expect(editor.questions.map((q) => q.toolCall.toolCallId)).toEqual(["toolu_mcp"]);
    expect(JSON.stringify(fx.mock.requests[1].body.messages)).toContain("echo: from the editor");
    expect(text(editor.updates, "agent_thought_chunk")).toBe("let me plan");
    expect(editor.updates).toContainEqual({
      sessionUpdate: "plan",
      entries: [
        { content: "echo it", status: "in_progress", priority: "medium" },
        { content: "report", status: "pending", priority: "medium" },
      ],
    });

    editor.child.stdin.end();
    const code = await new Promise((resolve) => editor.child.once("exit", resolve));
    expect(code).toBe(0);
  }, 60_000);

  it("with the client's terminal, a command the user allowed runs there; one allowed on Goat's analysis stays in Goat's jail", async () => {
    fx.mock.enqueue(
      reply.toolCalls([
        { name: "Bash", id: "toolu_ls", input: { command: "ls" } },
        { name: "Bash", id: "toolu_t", input: { command: "echo from-terminal; touch t.txt" } },
      ]),
      reply.text("ran"),
    );
    const editor = await startEditor(() => "allow_once", { terminal: true });
    const sessionId = await newSession(editor);
    const answer = await sendPrompt(editor, sessionId, "run");
    expect(answer.stopReason).toBe("end_turn");
    expect(editor.questions.map((q) => q.toolCall.toolCallId)).toEqual(["toolu_t"]);
    expect(editor.terminals.commands).toEqual(["echo from-terminal; touch t.txt"]);
    expect(existsSync(join(fx.work.path, "t.txt"))).toBe(true);
    expect(editor.updates).toContainEqual(
      expect.objectContaining({
        sessionUpdate: "tool_call_update",
        toolCallId: "toolu_t",
        content: [{ type: "terminal", terminalId: "term-1" }],
      }),
    );
    expect(JSON.stringify(fx.mock.requests[1].body.messages)).toContain("from-terminal");

    // Cancel while the terminal's command runs: the terminal is killed, the prompt answers cancelled.
    fx.mock.enqueue(
      reply.toolCalls([
        { name: "Bash", id: "toolu_long", input: { command: "echo $$ > tpid.txt; exec sleep 30" } },
      ]),
    );
    const prompt = editor.connection.agent.request("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text: "wait" }],
    });
    const pidFile = join(fx.work.path, "tpid.txt");
    await waitUntil(() => existsSync(pidFile) && readFileSync(pidFile, "utf8").trim() !== "");
    await editor.connection.agent.notify("session/cancel", { sessionId });
    expect((await prompt).stopReason).toBe("cancelled");
    expect(editor.terminals.killed).toEqual(["term-2"]);
    const pid = Number(readFileSync(pidFile, "utf8"));
    await waitUntil(() => !alive(pid));
  }, 60_000);

  it("malformed JSON-RPC gets a well-formed error, and the stream stays in step", async () => {
    const child = spawn(process.execPath, [CLI, "acp"], { cwd: fx.work.path, env: fx.env });
    started.push(child);
    const lines: any[] = [];
    let buffer = "";
    child.stdout.on("data", (b: Buffer) => {
      buffer += b.toString();
      for (let nl = buffer.indexOf("\n"); nl >= 0; nl = buffer.indexOf("\n")) {
        lines.push(JSON.parse(buffer.slice(0, nl)));
        buffer = buffer.slice(nl + 1);
      }
    });
    const send = (message: object) =>
      child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", ...message })}\n`);
    send({ id: 0, method: "initialize", params: { protocolVersion: 1 } });
    await waitUntil(() => lines.some((l) => l.id === 0));
    child.stdin.write("{this is not json\n");
    send({ id: 1, method: "no/such_method", params: {} });
    send({ id: 2, method: "session/prompt", params: { x: 1 } });
    send({ id: 3, method: "session/list", params: { cwd: fx.work.path } });
    await waitUntil(() => lines.some((l) => l.id === 3));
    expect(lines.find((l) => l.id === 0)?.result.protocolVersion).toBe(1);
    expect(lines.find((l) => l.id === null)?.error.code).toBe(-32700);
    expect(lines.find((l) => l.id === 1)?.error.code).toBe(-32601);
    expect(lines.find((l) => l.id === 2)?.error.code).toBe(-32602);
    expect(lines.find((l) => l.id === 3)?.result.sessions).toEqual([]);
    expect(child.exitCode).toBeNull();
  }, 30_000);
});

/** A terminal as an editor has one: the command runs here, in its own process group. */
function serveTerminals(app: ClientApp): Editor["terminals"] {
  const log: Editor["terminals"] = { commands: [], killed: [] };
  const running = new Map<string, { child: ChildProcess; output: string; exit: Promise<any> }>();
  app
    .onRequest("terminal/create", ({ params }) => {
      const id = `term-${running.size + 1}`;
      log.commands.push(params.args?.at(-1) ?? params.command);
      const child = spawn(params.command, params.args ?? [], {
        cwd: params.cwd ?? undefined,
        detached: true,
      });
      started.push(child as ChildProcessWithoutNullStreams);
      const terminal = {
        child,
        output: "",
        exit: new Promise((resolve) =>
          child.once("exit", (exitCode, signal) => resolve({ exitCode, signal })),
        ),
      };
      const add = (b: Buffer) => {
        terminal.output += b.toString();
      };
      child.stdout?.on("data", add);
      child.stderr?.on("data", add);
      running.set(id, terminal);
      return { terminalId: id };
    })
    .onRequest("terminal/wait_for_exit", async ({ params }) => running.get(params.terminalId)?.exit)
    .onRequest("terminal/output", async ({ params }) => {
      const terminal = running.get(params.terminalId);
      const exitStatus = terminal?.child.exitCode !== null ? await terminal?.exit : null;
      return { output: terminal?.output ?? "", truncated: false, exitStatus };
    })
    .onRequest("terminal/kill", ({ params }) => {
      log.killed.push(params.terminalId);
      const pid = running.get(params.terminalId)?.child.pid;
      if (pid !== undefined) process.kill(-pid, "SIGKILL");
      return {};
    })
    .onRequest("terminal/release", () => ({}));
  return log;
}

function findTranscript(sessionId: string): string {
  const projects = join(fx.home.path, "projects");
  for (const dir of readdirSync(projects)) {
    const file = join(projects, dir, `${sessionId}.jsonl`);
    if (existsSync(file)) return file;
  }
  throw new Error(`no transcript for ${sessionId} under ${projects}`);
}

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
