/**
 * End to end with the real core tools over both wire formats, the Agent class, subagent hooks and
 * transcripts, PermissionRequest hooks and the debug trace.
 */
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { Agent } from "../../src/sdk/agent.js";
import { query } from "../../src/sdk/query.js";
import { createJsonlSessionStore } from "../../src/session/jsonl-store.js";
import { defineTool } from "../../src/tools/define-tool.js";
import { type MockProvider, reply, startMockProvider } from "../support/mock-provider.js";
import { collect, FORMATS, mockOptions, resultOf, tempDir, toolResultsSent } from "./helpers.js";

let mock: MockProvider;
let cwd: string;
beforeAll(async () => {
  mock = await startMockProvider();
});
afterAll(async () => {
  await mock.close();
});
beforeEach(() => {
  mock.requests.length = 0;
  cwd = tempDir("goat-e2e-");
});

describe.each(FORMATS)("the core tools over %s", (format) => {
  it("finds, reads, edits and checks a file with Glob, Read, Edit and Bash", async () => {
    const file = path.join(cwd, "src", "greeting.txt");
    fs.mkdirSync(path.dirname(file));
    fs.writeFileSync(file, "hello world\n");
    mock.enqueue(
      reply.toolCalls([
        { name: "Glob", input: { pattern: "**/*.txt" }, id: "g1" },
        { name: "Read", input: { file_path: file }, id: "r1" },
      ]),
      reply.toolCalls([
        { name: "Edit", input: { file_path: file, old_string: "world", new_string: "goat" }, id: "e1" },
      ]),
      reply.toolCalls([{ name: "Bash", input: { command: "cat src/greeting.txt" }, id: "b1" }]),
      reply.text("The greeting now says hello goat."),
    );
    const messages = await collect(
      query({ prompt: "change the greeting", options: mockOptions(mock, format, { cwd, tools: undefined }) }),
    );
    expect(resultOf(messages).result).toBe("The greeting now says hello goat.");
    const first = toolResultsSent(mock.requests[1].body);
    expect(first[0].content).toContain(file);
    expect(first[1].content).toMatch(/1\thello world/);
    const byId = (body: any, id: string) => toolResultsSent(body).find((r) => r.id === id)!;
    expect(byId(mock.requests[2].body, "e1").isError).toBe(false);
    expect(byId(mock.requests[3].body, "b1").content).toContain("hello goat");
    expect(fs.readFileSync(file, "utf8")).toBe("hello goat\n");
    // All six core tools, plus Bash's companions and Task, are offered when `tools` is omitted.
    const offered = mock.requests[0].body.tools.map((t: any) => t.name ?? t.function.name);
    expect(offered).toEqual(
      expect.arrayContaining(["Bash", "Read", "Write", "Edit", "Glob", "Grep", "Task"]),
    );
  });
});

describe("a provider's public API without a key", () => {
  it("fails at once with a message naming the variable, without sending or retrying", async () => {
    const saved = process.env.ANTHROPIC_API_KEY;
    const savedUrl = process.env.ANTHROPIC_BASE_URL;
    delete process.env.ANTHROPIC_API_KEY;
    delete process.env.ANTHROPIC_BASE_URL;
    try {
      const started = Date.now();
      const messages = await collect(
        query({
          prompt: "x",
          options: { model: "anthropic/claude-sonnet-4-5", persistSession: false, tools: [] },
        }),
      );
      const result = resultOf(messages) as any;
      expect(result.is_error).toBe(true);
      expect(result.errors.join(" ")).toContain("ANTHROPIC_API_KEY");
      expect(messages.some((m) => m.type === "system" && (m as any).subtype === "api_retry")).toBe(false);
      expect(Date.now() - started).toBeLessThan(2_000);
    } finally {
      if (saved !== undefined) process.env.ANTHROPIC_API_KEY = saved;
      if (savedUrl !== undefined) process.env.ANTHROPIC_BASE_URL = savedUrl;
    }
  });
});

describe("custom tools that return the wrong shape", () => {
  it("turns a string, nothing or a stray object into a valid result instead of breaking the run", async () => {
    const odd = (name: string, value: unknown) =>
      defineTool({
        name,
        description: name,
        inputSchema: z.object({}),
        sideEffect: "none",
        execute: async () => value as never,
      });
    mock.enqueue(
      reply.toolCalls([
        { name: "str", input: {}, id: "a" },
        { name: "none", input: {}, id: "b" },
        { name: "obj", input: {}, id: "c" },
        { name: "snake", input: {}, id: "d" },
      ]),
      reply.text("fine"),
    );
    const tools = [
      odd("str", "plain text"),
      odd("none", undefined),
      odd("obj", { ok: 1 }),
      odd("snake", { content: "bad", is_error: true }),
    ];
    const messages = await collect(
      query({ prompt: "x", options: mockOptions(mock, "anthropic", { tools }) }),
    );
    expect(resultOf(messages).result).toBe("fine");
    const sent = toolResultsSent(mock.requests[1].body);
    expect(sent.map((r) => r.content)).toEqual([
      "plain text",
      "(none returned no result)",
      '{"ok":1}',
      "bad",
    ]);
    expect(sent.map((r) => r.isError)).toEqual([false, false, false, true]);
  });
});

describe("tool sets", () => {
  it("takes the Claude Agent SDK's claude_code preset as the default set, and [] as none", async () => {
    mock.enqueue(reply.text("a"), reply.text("b"));
    await collect(
      query({
        prompt: "x",
        options: mockOptions(mock, "anthropic", { tools: { type: "preset", preset: "claude_code" } }),
      }),
    );
    await collect(query({ prompt: "x", options: mockOptions(mock, "anthropic", { tools: [] }) }));
    const names = mock.requests[0].body.tools.map((t: any) => t.name);
    expect(names).toEqual(expect.arrayContaining(["Bash", "Read", "Write", "Edit", "Glob", "Grep", "Task"]));
    expect(mock.requests[1].body.tools ?? []).toEqual([]);
  });
});

describe("the Agent class", () => {
  it("answers prompt after prompt in one session and reports events", async () => {
    mock.enqueue(reply.text("one"), reply.text("two"));
    const agent = new Agent(mockOptions(mock, "anthropic"));
    const events: string[] = [];
    agent.subscribe((e) => events.push(e.type));
    const first = await agent.prompt("first");
    const second = await agent.prompt("second");
    expect([first.result, second.result]).toEqual(["one", "two"]);
    expect(JSON.stringify(mock.requests[1].body.messages)).toContain("first");
    expect(events.filter((t) => t === "agent_start")).toHaveLength(2);
    expect(agent.state.observe().phase).toBe("idle");
    await agent.close();
    expect(agent.state.observe().phase).toBe("done");
    await expect(agent.prompt("late")).rejects.toThrow(/closed/);
  });
});

describe("subagent hooks and transcripts", () => {
  it("fires SubagentStart and SubagentStop and stores the child's transcript beside the parent's", async () => {
    const home = tempDir("goat-sub-home-");
    const fired: any[] = [];
    const hook = async (input: any) => {
      fired.push(input);
      return {};
    };
    mock.enqueue(
      reply.toolCalls([
        { name: "Task", input: { description: "d", prompt: "child job", subagent_type: "general-purpose" } },
      ]),
      reply.text("child report"),
      reply.text("parent done"),
    );
    const messages = await collect(
      query({
        prompt: "x",
        options: mockOptions(mock, "anthropic", {
          cwd,
          persistSession: true,
          env: { GOAT_HOME: home },
          tools: ["Task"],
          hooks: { SubagentStart: [{ hooks: [hook] }], SubagentStop: [{ hooks: [hook] }] },
        }),
      }),
    );
    expect(fired.map((f) => f.hook_event_name)).toEqual(["SubagentStart", "SubagentStop"]);
    expect(fired[0].agent_type).toBe("general-purpose");
    expect(fired[1].agent_id).toBe(fired[0].agent_id);
    expect(fired[1].last_assistant_message).toBe("child report");
    const parentId = resultOf(messages).session_id;
    const dir = path.join(home, "projects", cwd.replace(/[^a-zA-Z0-9]/g, "-"));
    const files = fs
      .readdirSync(dir)
      .filter((f) => f.endsWith(".jsonl")) // beside them, the store's listing index
      .sort();
    expect(files).toEqual([`${parentId}.agent-${fired[0].agent_id}.jsonl`, `${parentId}.jsonl`].sort());
    const store = createJsonlSessionStore({ home });
    const child = (await store.load(`${parentId}.agent-${fired[0].agent_id}`))!;
    store.close();
    expect(child.some((e: any) => e.type === "user" && e.message.content === "child job")).toBe(true);
  });
});

describe("permission requests and tracing", () => {
  it("lets a PermissionRequest hook answer before canUseTool is asked, after a Notification", async () => {
    let asked = 0;
    const notified: string[] = [];
    mock.enqueue(
      reply.toolCalls([{ name: "Bash", input: { command: "touch hooked.txt" } }]),
      reply.text("ok"),
    );
    await collect(
      query({
        prompt: "x",
        options: mockOptions(mock, "anthropic", {
          cwd,
          tools: ["Bash"],
          permissionMode: "default",
          canUseTool: async () => {
            asked++;
            return { behavior: "deny", message: "no" };
          },
          hooks: {
            Notification: [
              {
                hooks: [
                  async (input: any) => {
                    notified.push(input.notification_type);
                    return {};
                  },
                ],
              },
            ],
            PermissionRequest: [
              {
                hooks: [
                  async () => ({
                    hookSpecificOutput: {
                      hookEventName: "PermissionRequest",
                      decision: { behavior: "allow" },
                    },
                  }),
                ],
              },
            ],
          },
        }),
      }),
    );
    expect(asked).toBe(0);
    expect(notified).toEqual(["permission_prompt"]);
    expect(fs.existsSync(path.join(cwd, "hooked.txt"))).toBe(true);
  });

  it("writes a trace of the run to debugFile", async () => {
    const trace = path.join(cwd, "trace.log");
    mock.enqueue(reply.text("traced"));
    await collect(query({ prompt: "x", options: mockOptions(mock, "anthropic", { debugFile: trace }) }));
    const lines = fs.readFileSync(trace, "utf8").trim().split("\n");
    expect(lines[0]).toMatch(/^\d\d:\d\d:\d\d\.\d{3} run start · session /);
    expect(
      lines.some((l) =>
        /turn 1 · answer anthropic\/claude-sonnet-4-5 → end_turn \(in \d+, out \d+ tokens, \$/.test(l),
      ),
    ).toBe(true);
    expect(lines.at(-1)).toMatch(/run end · end_turn$/);
  });

  it("writes the readable debug log when GOAT_DEBUG is set, with tool calls and their outcome", async () => {
    const trace = path.join(cwd, "goat-debug.log");
    fs.writeFileSync(path.join(cwd, "a.txt"), "hello");
    mock.enqueue(
      reply.toolCalls([{ name: "Read", input: { file_path: path.join(cwd, "a.txt") } }]),
      reply.text("read it"),
    );
    const env = { ...process.env, GOAT_DEBUG: "1", GOAT_DEBUG_FILE: trace };
    await collect(query({ prompt: "x", options: mockOptions(mock, "anthropic", { env, tools: ["Read"] }) }));
    const text = fs.readFileSync(trace, "utf8");
    expect(text).toContain(`tool Read ← {"file_path":"${path.join(cwd, "a.txt")}"}`);
    expect(text).toMatch(/tool Read → ok in \d+ ms/);
    expect(text).toContain("turn 2 · answer");
  });
});
