/**
 * Permissions and hooks through query(): the order hooks → rules → mode → canUseTool, each hook
 * event fired once where it should be with its fields, and each hook output's effect on the run.
 */
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { HookCallback } from "../../src/hooks/types.js";
import type { QueryOptions } from "../../src/sdk/options.js";
import { query } from "../../src/sdk/query.js";
import { type MockProvider, reply, startMockProvider } from "../support/mock-provider.js";
import { collect, echoTool, mockOptions, resultOf, tempDir, toolResultsSent } from "./helpers.js";

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
  cwd = tempDir("goat-perm-");
});

/** Options with the real core tools and the default permission mode. */
const guarded = (extra: QueryOptions = {}) =>
  mockOptions(mock, "anthropic", {
    cwd,
    tools: ["Bash", "Read", "Write"],
    permissionMode: "default",
    ...extra,
  });

describe("permissions", () => {
  it("denies a mutating tool in default mode without a callback, tells the model and lists the denial", async () => {
    mock.enqueue(
      reply.toolCalls([{ name: "Bash", input: { command: "touch made.txt" }, id: "b1" }]),
      reply.text("ok"),
    );
    const messages = await collect(query({ prompt: "x", options: guarded() }));
    expect(fs.existsSync(path.join(cwd, "made.txt"))).toBe(false);
    const sent = toolResultsSent(mock.requests[1].body)[0];
    expect(sent.isError).toBe(true);
    expect(sent.content).toMatch(/allowedTools/);
    expect(resultOf(messages).permission_denials).toEqual([
      { tool_name: "Bash", tool_use_id: "b1", tool_input: { command: "touch made.txt" } },
    ]);
    expect(messages.some((m) => m.type === "system" && (m as any).subtype === "permission_denied")).toBe(
      true,
    );
  });

  it("runs a read-only command and an allowed rule without asking", async () => {
    let asked = 0;
    mock.enqueue(
      reply.toolCalls([
        { name: "Bash", input: { command: "ls" }, id: "b1" },
        { name: "Bash", input: { command: "touch ok.txt" }, id: "b2" },
      ]),
      reply.text("ok"),
    );
    await collect(
      query({
        prompt: "x",
        options: guarded({
          allowedTools: ["Bash(touch:*)"],
          canUseTool: async () => {
            asked++;
            return { behavior: "deny", message: "no" };
          },
        }),
      }),
    );
    expect(asked).toBe(0);
    expect(fs.existsSync(path.join(cwd, "ok.txt"))).toBe(true);
  });

  it("asks canUseTool with the call, runs the updated input, and remembers an always-allow", async () => {
    const asks: Array<{ tool: string; input: unknown; id: string }> = [];
    mock.enqueue(
      reply.toolCalls([{ name: "Bash", input: { command: "echo one > a.txt" }, id: "c1" }]),
      reply.toolCalls([{ name: "Bash", input: { command: "echo one > a.txt" }, id: "c2" }]),
      reply.text("done"),
    );
    await collect(
      query({
        prompt: "x",
        options: guarded({
          canUseTool: async (toolName, input, opts) => {
            asks.push({ tool: toolName, input, id: opts.toolUseID });
            return {
              behavior: "allow",
              updatedInput: { command: "echo two > a.txt" },
              updatedPermissions: [
                {
                  type: "addRules",
                  rules: [{ toolName: "Bash" }],
                  behavior: "allow",
                  destination: "session",
                },
              ],
            };
          },
        }),
      }),
    );
    expect(asks).toEqual([{ tool: "Bash", input: { command: "echo one > a.txt" }, id: "c1" }]);
    // The second call was allowed by the remembered rule and ran its own input.
    expect(fs.readFileSync(path.join(cwd, "a.txt"), "utf8")).toBe("one\n");
  });

  it("ends the run as interrupted when canUseTool denies with interrupt", async () => {
    mock.enqueue(reply.toolCalls([{ name: "Bash", input: { command: "rm -rf build" }, id: "r1" }]));
    const messages = await collect(
      query({
        prompt: "x",
        options: guarded({
          canUseTool: async () => ({ behavior: "deny", message: "never", interrupt: true }),
        }),
      }),
    );
    expect(resultOf(messages).exit_reason).toBe("interrupted");
    expect(mock.requests).toHaveLength(1);
  });

  it("plan mode refuses mutating tools with a message about plan mode, and setPermissionMode changes it mid-session", async () => {
    mock.enqueue(
      reply.toolCalls([
        { name: "Write", input: { file_path: path.join(cwd, "p.txt"), content: "x" }, id: "w1" },
      ]),
      reply.text("planned"),
    );
    const q = query({ prompt: "x", options: guarded({ permissionMode: "plan" }) });
    const messages = await collect(q);
    expect(JSON.stringify(mock.requests[1].body.messages)).toMatch(/plan mode/i);
    expect(fs.existsSync(path.join(cwd, "p.txt"))).toBe(false);
    expect((messages[0] as any).permissionMode).toBe("plan");
  });

  it("keeps file tools inside the working directory whatever the spelling of the path", async () => {
    const outside = tempDir("goat-outside-");
    fs.symlinkSync(outside, path.join(cwd, "link"));
    mock.enqueue(
      reply.toolCalls([
        { name: "Write", input: { file_path: path.join(cwd, "link", "escape.txt"), content: "x" }, id: "s1" },
        { name: "Write", input: { file_path: `${cwd}/../escape2.txt`, content: "x" }, id: "s2" },
      ]),
      reply.text("ok"),
    );
    await collect(query({ prompt: "x", options: guarded({ permissionMode: "acceptEdits" }) }));
    expect(fs.existsSync(path.join(outside, "escape.txt"))).toBe(false);
    expect(fs.existsSync(path.join(cwd, "..", "escape2.txt"))).toBe(false);
    expect(toolResultsSent(mock.requests[1].body).every((r) => r.isError)).toBe(true);
  });
});

describe("hooks", () => {
  it("fires each event once, in order, with its fields", async () => {
    const fired: Array<{ event: string; input: any }> = [];
    const record: HookCallback = async (input) => {
      fired.push({ event: input.hook_event_name, input });
      return {};
    };
    const all = { hooks: [record] };
    mock.enqueue(reply.toolCalls([{ name: "echo", input: { text: "hi" }, id: "e1" }]), reply.text("bye"));
    await collect(
      query({
        prompt: "hello hooks",
        options: mockOptions(mock, "anthropic", {
          cwd,
          tools: [echoTool],
          hooks: {
            SessionStart: [all],
            UserPromptSubmit: [all],
            PreToolUse: [{ matcher: "echo", hooks: [record] }],
            PostToolUse: [all],
            Stop: [all],
            SessionEnd: [all],
          },
        }),
      }),
    );
    expect(fired.map((f) => f.event)).toEqual([
      "SessionStart",
      "UserPromptSubmit",
      "PreToolUse",
      "PostToolUse",
      "Stop",
      "SessionEnd",
    ]);
    for (const f of fired) {
      expect(f.input.session_id).toBeTruthy();
      expect(f.input.cwd).toBe(cwd);
      expect(f.input.permission_mode).toBe("bypassPermissions");
    }
    expect(fired[0].input.source).toBe("startup");
    expect(fired[1].input.prompt).toBe("hello hooks");
    expect(fired[2].input).toMatchObject({
      tool_name: "echo",
      tool_input: { text: "hi" },
      tool_use_id: "e1",
    });
    expect(fired[3].input.tool_response).toEqual({ length: 2 });
    expect(fired[4].input.stop_hook_active).toBe(false);
  });

  it("applies PreToolUse updatedInput and deny, and PostToolUse context reaches the next call", async () => {
    mock.enqueue(
      reply.toolCalls([
        { name: "echo", input: { text: "original" }, id: "e1" },
        { name: "echo", input: { text: "forbidden" }, id: "e2" },
      ]),
      reply.text("done"),
    );
    await collect(
      query({
        prompt: "x",
        options: mockOptions(mock, "anthropic", {
          tools: [echoTool],
          hooks: {
            PreToolUse: [
              {
                hooks: [
                  async (input: any) =>
                    input.tool_input.text === "forbidden"
                      ? {
                          hookSpecificOutput: {
                            hookEventName: "PreToolUse",
                            permissionDecision: "deny",
                            permissionDecisionReason: "not that word",
                          },
                        }
                      : {
                          hookSpecificOutput: {
                            hookEventName: "PreToolUse",
                            updatedInput: { text: "rewritten" },
                            additionalContext: "pre-hook context",
                          },
                        },
                ],
              },
            ],
            PostToolUse: [
              {
                hooks: [
                  async () => ({
                    hookSpecificOutput: {
                      hookEventName: "PostToolUse",
                      additionalContext: "remember the lint rules",
                    },
                  }),
                ],
              },
            ],
          },
        }),
      }),
    );
    const sent = toolResultsSent(mock.requests[1].body);
    expect(sent[0].content).toBe("echo: rewritten");
    expect(sent[1].isError).toBe(true);
    expect(sent[1].content).toContain("not that word");
    expect(JSON.stringify(mock.requests[1].body.messages)).toContain("remember the lint rules");
    expect(JSON.stringify(mock.requests[1].body.messages)).toContain("pre-hook context");
  });

  it("a Stop hook that blocks keeps the loop going with its reason, once", async () => {
    let stops = 0;
    mock.enqueue(reply.text("first try"), reply.text("second try"));
    const messages = await collect(
      query({
        prompt: "x",
        options: mockOptions(mock, "anthropic", {
          hooks: {
            Stop: [
              {
                hooks: [
                  async (input: any) => {
                    stops++;
                    return input.stop_hook_active ? {} : { decision: "block", reason: "run the tests first" };
                  },
                ],
              },
            ],
          },
        }),
      }),
    );
    expect(stops).toBe(2);
    expect(resultOf(messages).result).toBe("second try");
    expect(JSON.stringify(mock.requests[1].body.messages)).toContain("run the tests first");
  });

  it("UserPromptSubmit context reaches the model with the prompt; continue:false stops after the tool", async () => {
    mock.enqueue(reply.toolCalls([{ name: "echo", input: { text: "x" } }]), reply.text("never sent"));
    const messages = await collect(
      query({
        prompt: "do it",
        options: mockOptions(mock, "anthropic", {
          tools: [echoTool],
          hooks: {
            UserPromptSubmit: [
              {
                hooks: [
                  async () => ({
                    hookSpecificOutput: {
                      hookEventName: "UserPromptSubmit",
                      additionalContext: "today is a holiday",
                    },
                  }),
                ],
              },
            ],
            PostToolUse: [{ hooks: [async () => ({ continue: false, stopReason: "budget review" })] }],
          },
        }),
      }),
    );
    expect(JSON.stringify(mock.requests[0].body.messages)).toContain("today is a holiday");
    expect(mock.requests).toHaveLength(1);
    expect(resultOf(messages).exit_reason).toBe("hook");
    expect(mock.pending()).toBe(1);
    mock.requests.length = 0;
    await collect(query({ prompt: "drain", options: mockOptions(mock, "anthropic") }));
  });

  it("a command hook that exits 2 blocks the tool with its stderr; a throwing callback does not stop the run", async () => {
    mock.enqueue(reply.toolCalls([{ name: "echo", input: { text: "x" }, id: "c1" }]), reply.text("after"));
    const messages = await collect(
      query({
        prompt: "x",
        options: mockOptions(mock, "anthropic", {
          cwd,
          tools: [echoTool],
          hooks: {
            PreToolUse: [
              {
                matcher: "echo",
                hooks: [{ type: "command", command: "echo 'blocked by policy' >&2; exit 2" }],
              },
            ],
            PostToolUseFailure: [
              {
                hooks: [
                  async () => {
                    throw new Error("hook bug");
                  },
                ],
              },
            ],
          },
        }),
      }),
    );
    const sent = toolResultsSent(mock.requests[1].body)[0];
    expect(sent.isError).toBe(true);
    expect(sent.content).toContain("blocked by policy");
    expect(resultOf(messages).result).toBe("after");
  });
});
