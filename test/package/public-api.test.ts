/**
 * The package as an outside user sees it: only what `src/index.ts` exports, driven the way code written
 * for the Claude Agent SDK drives `query()` (switch on `message.type`, read `message.message.content`,
 * check `result.subtype` / `is_error` / `total_cost_usd`), plus the README's five sections: custom
 * tools, an OpenAI-compatible gateway through `provider`, permissions and hooks, sessions resumed from a
 * fresh store, steering, `Agent.prompt` and interrupt. Real files, real Bash, real HTTP to the mock.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import {
  Agent,
  defineTool,
  type QueryOptions,
  query,
  type SDKMessage,
  type SDKResultMessage,
} from "../../src/index.js";
import { type MockProvider, reply, startMockProvider } from "../support/mock-provider.js";
import { findDescendant } from "../support/processes.js";

let mock: MockProvider;
let cwd: string;
let home: string;
beforeAll(async () => {
  mock = await startMockProvider();
});
afterAll(async () => {
  await mock.close();
});
beforeEach(() => {
  mock.requests.length = 0;
  cwd = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "goat-public-")));
  home = path.join(cwd, ".goat-home");
  return () => fs.rmSync(cwd, { recursive: true, force: true });
});

/** Options pointing at the mock through the Anthropic wire, transcripts in a temp GOAT_HOME. */
function options(extra: QueryOptions = {}): QueryOptions {
  return {
    model: "anthropic/claude-sonnet-4-5",
    provider: { type: "anthropic", baseURL: mock.anthropicBaseURL, apiKey: "test-key" },
    retry: { baseDelayMs: 5, maxDelayMs: 50 },
    cwd,
    env: { ...process.env, GOAT_HOME: home },
    ...extra,
  };
}

async function collect(iterable: AsyncIterable<SDKMessage>): Promise<SDKMessage[]> {
  const out: SDKMessage[] = [];
  for await (const m of iterable) out.push(m);
  return out;
}

function resultOf(messages: SDKMessage[]): SDKResultMessage {
  const results = messages.filter((m): m is SDKResultMessage => m.type === "result");
  expect(results).toHaveLength(1);
  return results[0];
}

/** The tool_result blocks of the user messages, in order. */
function toolResults(messages: SDKMessage[]): Array<{ content: unknown; is_error?: boolean }> {
  return messages.flatMap((m) =>
    m.type === "user" && Array.isArray(m.message.content)
      ? (m.message.content as any[]).filter((b) => b.type === "tool_result")
      : [],
  );
}

const lastUserContent = (body: any): string => JSON.stringify(body.messages.at(-1).content);

describe("query() read the Claude Agent SDK way", () => {
  it("streams init, assistant with tool_use, user with tool_result and one final result", async () => {
    fs.writeFileSync(path.join(cwd, "a.txt"), "hello\n");
    mock.enqueue(
      reply.toolCalls([{ name: "Read", input: { file_path: path.join(cwd, "a.txt") }, id: "r1" }]),
      reply.text("It says hello."),
    );
    const messages = await collect(query({ prompt: "What does a.txt say?", options: options() }));
    const init = messages[0];
    expect(init.type === "system" && init.subtype === "init").toBe(true);
    if (init.type !== "system" || init.subtype !== "init") return;
    expect(init.cwd).toBe(cwd);
    expect(init.tools).toEqual(expect.arrayContaining(["Read", "Write", "Edit", "Bash", "Glob", "Grep"]));
    const assistant = messages.find((m) => m.type === "assistant");
    expect(assistant?.type === "assistant" && assistant.message.content[0]).toMatchObject({
      type: "tool_use",
      name: "Read",
    });
    expect(toolResults(messages)[0].content).toMatch(/1\thello/);
    const result = messages.at(-1) as SDKResultMessage;
    expect(result.type).toBe("result");
    expect(result).toMatchObject({
      subtype: "success",
      is_error: false,
      result: "It says hello.",
      num_turns: 2,
    });
    expect(result.total_cost_usd).toBeGreaterThan(0);
    for (const m of messages) {
      expect(m.session_id).toBe(init.session_id);
      expect(typeof m.uuid).toBe("string");
    }
  });

  it("reports maxTurns as error_max_turns with is_error and an errors list", async () => {
    mock.enqueue(reply.toolCalls([{ name: "Glob", input: { pattern: "*" } }]));
    const result = resultOf(await collect(query({ prompt: "list", options: options({ maxTurns: 1 }) })));
    expect(result.subtype).toBe("error_max_turns");
    expect(result.is_error).toBe(true);
    expect(result.subtype !== "success" && result.errors.join(" ")).toMatch(/maximum number of turns/);
  });
});

describe("custom tools and other providers", () => {
  const weather = defineTool({
    name: "weather",
    description: "Current weather for a city",
    inputSchema: z.object({ city: z.string() }),
    sideEffect: "none",
    execute: async ({ city }) => ({ content: `Sunny in ${city}` }),
  });

  it("mixes built-in names with defineTool tools; bad input and unknown tools come back as is_error", async () => {
    mock.enqueue(
      reply.toolCalls([
        { name: "weather", input: { city: "Oslo" } },
        { name: "weather", input: { town: "Oslo" } },
        { name: "nosuch", input: {} },
      ]),
      reply.text("done"),
    );
    const messages = await collect(
      query({ prompt: "Weather in Oslo?", options: options({ tools: ["Read", "Grep", weather] }) }),
    );
    expect(mock.requests[0].body.tools.map((t: any) => t.name)).toEqual(["Read", "Grep", "weather"]);
    const [ok, invalid, unknown] = toolResults(messages);
    expect(ok).toMatchObject({ content: "Sunny in Oslo" });
    expect(ok.is_error ?? false).toBe(false);
    expect(invalid.is_error).toBe(true);
    expect(String(invalid.content)).toMatch(/city/);
    expect(unknown.is_error).toBe(true);
    expect(String(unknown.content)).toMatch(/Available tools: Read, Grep, weather/);
    expect(resultOf(messages).subtype).toBe("success");
  });

  it("talks to an OpenAI-compatible gateway given as provider, with the gateway's own model name", async () => {
    mock.enqueue(reply.text("from the gateway"));
    const result = resultOf(
      await collect(
        query({
          prompt: "hi",
          options: options({
            model: "litellm/claude-sonnet-4-5",
            provider: { type: "openai", name: "litellm", baseURL: mock.openaiBaseURL, apiKey: "sk-gw" },
          }),
        }),
      ),
    );
    expect(result.result).toBe("from the gateway");
    expect(mock.requests[0].path).toBe("/v1/chat/completions");
    expect(mock.requests[0].headers.authorization).toBe("Bearer sk-gw");
    expect(mock.requests[0].body.model).toBe("claude-sonnet-4-5");
  });
});

describe("permissions and hooks", () => {
  const touch = (name: string) => ({ name: "Bash", input: { command: `touch ${name}` } });

  it("canUseTool decides each call; a denial is an is_error result and a permission_denials entry", async () => {
    mock.enqueue(reply.toolCalls([touch("yes.txt"), touch("no.txt")]), reply.text("ok"));
    const asked: string[] = [];
    const messages = await collect(
      query({
        prompt: "touch both",
        options: options({
          canUseTool: async (_tool, input: any) => {
            asked.push(input.command);
            return input.command.includes("yes")
              ? { behavior: "allow", updatedInput: input }
              : { behavior: "deny", message: "No" };
          },
        }),
      }),
    );
    expect(asked).toEqual(["touch yes.txt", "touch no.txt"]);
    expect(fs.existsSync(path.join(cwd, "yes.txt"))).toBe(true);
    expect(fs.existsSync(path.join(cwd, "no.txt"))).toBe(false);
    expect(toolResults(messages)[1]).toMatchObject({ content: "No", is_error: true });
    expect(resultOf(messages).permission_denials).toEqual([
      expect.objectContaining({ tool_name: "Bash", tool_input: { command: "touch no.txt" } }),
    ]);
  });

  it("allowedTools rules allow without asking and disallowedTools rules deny", async () => {
    mock.enqueue(reply.toolCalls([touch("allowed.txt"), { name: "Bash", input: { command: "rm a" } }]));
    mock.enqueue(reply.text("ok"));
    const messages = await collect(
      query({
        prompt: "go",
        options: options({ allowedTools: ["Bash(touch:*)"], disallowedTools: ["Bash(rm:*)"] }),
      }),
    );
    expect(fs.existsSync(path.join(cwd, "allowed.txt"))).toBe(true);
    const [, denied] = toolResults(messages);
    expect(denied.is_error).toBe(true);
    expect(String(denied.content)).toMatch(/Bash\(rm:\*\)/);
  });

  it("a PreToolUse hook rewrites one call's input and denies another", async () => {
    mock.enqueue(
      reply.toolCalls([{ name: "Bash", input: { command: "echo original" } }, touch("blocked.txt")]),
      reply.text("ok"),
    );
    const messages = await collect(
      query({
        prompt: "go",
        options: options({
          permissionMode: "bypassPermissions",
          hooks: {
            PreToolUse: [
              {
                matcher: "Bash",
                hooks: [
                  async (input: any) =>
                    input.tool_input.command.startsWith("touch")
                      ? {
                          hookSpecificOutput: {
                            hookEventName: "PreToolUse",
                            permissionDecision: "deny",
                            permissionDecisionReason: "hook says no",
                          },
                        }
                      : {
                          hookSpecificOutput: {
                            hookEventName: "PreToolUse",
                            updatedInput: { command: "echo rewritten" },
                          },
                        },
                ],
              },
            ],
          },
        }),
      }),
    );
    const [rewritten, denied] = toolResults(messages);
    expect(String(rewritten.content)).toContain("rewritten");
    expect(denied).toMatchObject({ content: "hook says no", is_error: true });
    expect(fs.existsSync(path.join(cwd, "blocked.txt"))).toBe(false);
  });
});

describe("sessions, steering, Agent and interrupt", () => {
  it("resumes a persisted session by id from a fresh query with the earlier history", async () => {
    mock.enqueue(reply.text("noted"), reply.text("it was BANANA"));
    const first = resultOf(await collect(query({ prompt: "remember BANANA", options: options() })));
    const files = fs.readdirSync(path.join(home, "projects"), { recursive: true }).map(String);
    expect(files.some((f) => f.endsWith(`${first.session_id}.jsonl`))).toBe(true);
    const second = resultOf(
      await collect(query({ prompt: "what was it?", options: options({ resume: first.session_id }) })),
    );
    expect(second.session_id).toBe(first.session_id);
    const sent = mock.requests[1].body.messages;
    expect(sent.map((m: any) => m.role)).toEqual(["user", "assistant", "user"]);
    expect(JSON.stringify(sent[0].content)).toContain("remember BANANA");
  });

  it("delivers steer() with the tool results of the running turn and ends in the done phase", async () => {
    mock.enqueue(
      reply.toolCalls([{ name: "Bash", input: { command: "sleep 0.4; echo slept" } }]),
      reply.text("ok"),
    );
    const q = query({ prompt: "go", options: options({ permissionMode: "bypassPermissions" }) });
    const phases: string[] = [];
    q.state.subscribe(({ phase }) => phases.push(phase));
    const messages: SDKMessage[] = [];
    for await (const m of q) {
      messages.push(m);
      if (m.type === "tool_progress") q.steer("Keep the public API unchanged");
    }
    expect(resultOf(messages).subtype).toBe("success");
    const next = lastUserContent(mock.requests[1].body);
    expect(next).toContain("slept");
    expect(next).toContain("Keep the public API unchanged");
    expect(phases).toContain("tool_executing");
    expect(q.state.observe().phase).toBe("done");
  });

  it("Agent.prompt keeps history; interrupt() stops a long Bash fast and the next prompt carries its result", async () => {
    const agent = new Agent(options({ permissionMode: "bypassPermissions" }));
    try {
      mock.enqueue(reply.text("one"));
      expect((await agent.prompt("first")).result).toBe("one");
      mock.enqueue(reply.toolCalls([{ name: "Bash", input: { command: "sleep 20" }, id: "long" }]));
      const running = agent.prompt("run it");
      await waitFor(() => findDescendant(process.pid, "sleep 20") !== undefined); // the command runs
      const started = Date.now();
      await agent.interrupt();
      const interrupted = await running;
      expect(Date.now() - started).toBeLessThan(3_000);
      expect(interrupted).toMatchObject({ subtype: "error_during_execution", is_error: true });
      mock.enqueue(reply.text("after"));
      expect((await agent.prompt("again")).result).toBe("after");
      const body = mock.requests[2].body;
      expect(JSON.stringify(body.messages[0].content)).toContain("first");
      expect(lastUserContent(body)).toMatch(/interrupted/);
      expect(lastUserContent(body)).toContain('"tool_use_id":"long"');
    } finally {
      await agent.close();
    }
  });
});

async function waitFor(condition: () => boolean): Promise<void> {
  const deadline = Date.now() + 5_000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error("timed out waiting");
    await new Promise((r) => setTimeout(r, 10));
  }
}
