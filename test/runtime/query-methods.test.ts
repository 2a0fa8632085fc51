import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import type { Provider, StreamEvent } from "../../src/llm/types.js";
import { createSdkMcpServer, tool } from "../../src/mcp/sdk-server.js";
import { createAsyncQueue } from "../../src/sdk/async-queue.js";
import { HIGH_WATER } from "../../src/sdk/backpressure.js";
import { query, type SDKUserMessageInput } from "../../src/sdk/query.js";
import type { SDKMessage } from "../../src/sdk/sdk-messages.js";
import { type MockProvider, reply, startMockProvider } from "../support/mock-provider.js";
import { collect, echoTool, mockOptions, resultOf, tempDir, timedTool, toolResultsSent } from "./helpers.js";

let mock: MockProvider;
beforeAll(async () => {
  mock = await startMockProvider();
});
afterAll(async () => {
  await mock.close();
});
beforeEach(() => {
  mock.requests.length = 0;
});

const agents = {
  reviewer: { description: "Reviews code", prompt: "Review.", model: "haiku" },
  tester: { description: "Runs tests", prompt: "Test." },
};

describe("what the session says about itself", () => {
  it("supportedAgents, supportedCommands and initializationResult match system/init", async () => {
    mock.enqueue(reply.text("ok"));
    const q = query({ prompt: "x", options: mockOptions(mock, "anthropic", { tools: [echoTool], agents }) });
    const messages = await collect(q);
    const init = messages[0] as any;
    const supported = await q.supportedAgents();
    expect(supported).toEqual([
      { name: "reviewer", description: "Reviews code", model: "haiku" },
      { name: "tester", description: "Runs tests" },
    ]);
    expect(supported.map((a) => a.name)).toEqual(init.agents);
    const commands = await q.supportedCommands();
    expect(commands.map((c) => c.name)).toEqual(init.slash_commands);
    expect(init.slash_commands).toEqual(["compact"]);
    const initialization = await q.initializationResult();
    expect(initialization).toMatchObject({
      commands,
      agents: supported,
      output_style: "default",
      available_output_styles: ["default"],
      account: await q.accountInfo(),
      claude_code_version: init.claude_code_version,
    });
    expect(initialization.models).toEqual(await q.supportedModels());
  });

  it("without the Task tool no agent is offered, in init and in supportedAgents alike", async () => {
    mock.enqueue(reply.text("ok"));
    const q = query({ prompt: "x", options: mockOptions(mock, "anthropic", { tools: [echoTool] }) });
    const init = (await collect(q))[0] as any;
    expect(init.agents).toBeUndefined();
    expect(await q.supportedAgents()).toEqual([]);
  });

  it("supportedModels lists the catalog, registered models included, with their effort and thinking", async () => {
    mock.enqueue(reply.text("ok"));
    const q = query({
      prompt: "x",
      options: mockOptions(mock, "anthropic", {
        models: [
          {
            id: "house",
            provider: "litellm",
            name: "House model",
            contextWindow: 100_000,
            maxOutputTokens: 8_000,
            pricing: { input: 1, output: 1, cacheRead: 0, cacheWrite: 0 },
            effortLevels: ["low", "high"],
          },
        ],
      }),
    });
    await collect(q);
    const models = await q.supportedModels();
    expect(models.find((m) => m.value === "litellm/house")).toEqual({
      value: "litellm/house",
      displayName: "House model",
      description: "litellm, 100,000-token context, up to 8,000 output tokens",
      supportsEffort: true,
      supportedEffortLevels: ["low", "high"],
    });
    expect(models.find((m) => m.value === "anthropic/claude-sonnet-4-5")).toMatchObject({
      supportsEffort: false,
      supportsAdaptiveThinking: false,
    });
    expect(models.find((m) => m.value === "openai/o3")?.supportedEffortLevels).toEqual([
      "low",
      "medium",
      "high",
    ]);
  });

  it("accountInfo names the provider and where the key comes from; init says the same", async () => {
    const ask = async (options: Parameters<typeof query>[0]["options"]) => {
      mock.enqueue(reply.text("ok"));
      const q = query({ prompt: "x", options });
      const init = (await collect(q))[0] as any;
      const account = await q.accountInfo();
      expect(init.apiKeySource).toBe(account.apiKeySource);
      return account;
    };
    expect(await ask(mockOptions(mock, "anthropic"))).toEqual({
      apiKeySource: "provider option",
      apiProvider: "gateway",
      provider: "anthropic",
      model: "anthropic/claude-sonnet-4-5",
    });
    const env = {
      ANTHROPIC_BASE_URL: mock.anthropicBaseURL,
      ANTHROPIC_API_KEY: "k",
      GOAT_HOME: tempDir("goat-acct-"),
    };
    const builtIn = { model: "anthropic/claude-sonnet-4-5", env, persistSession: false, tools: [] };
    expect((await ask(builtIn)).apiKeySource).toBe("ANTHROPIC_API_KEY");
    expect((await ask({ ...builtIn, getApiKey: () => "k2" })).apiKeySource).toBe("getApiKey");
    expect(await ask(mockOptions(mock, "openai"))).toEqual({
      apiKeySource: "provider option",
      provider: "openai",
      model: "openai/gpt-4.1",
    });
  });

  it("getContextUsage breaks the window down by category and reports the last call's usage", async () => {
    mock.enqueue(reply.text("a short answer", { usage: { input: 1234, output: 56 } }));
    const q = query({
      prompt: "x".repeat(4000),
      options: mockOptions(mock, "anthropic", { tools: [echoTool], systemPrompt: "s".repeat(400) }),
    });
    await collect(q);
    const usage = await q.getContextUsage();
    const by = Object.fromEntries(usage.categories.map((c) => [c.id, c]));
    expect(by.system_prompt.tokens).toBe(100);
    expect(by.messages.tokens).toBeGreaterThanOrEqual(1000);
    expect(by.system_tools.tokens).toBeGreaterThan(0);
    expect(by.mcp_tools.tokens).toBe(0);
    expect(usage.maxTokens).toBe(200_000);
    expect(usage.totalTokens).toBe(
      by.system_prompt.tokens + by.system_tools.tokens + by.mcp_tools.tokens + by.messages.tokens,
    );
    const sum = usage.categories.reduce((n, c) => n + c.tokens, 0);
    expect(sum).toBe(200_000);
    expect(usage.percentage).toBeCloseTo((usage.totalTokens / 200_000) * 100, 1);
    expect(usage.apiUsage).toMatchObject({ input_tokens: 1234, output_tokens: 56 });
    expect(usage.model).toBe("anthropic/claude-sonnet-4-5");
  });

  it("the MCP methods change which servers' tools the next request offers", async () => {
    const server = (name: string) =>
      createSdkMcpServer({
        name,
        tools: [
          tool("ping", "Pings", { n: z.number() }, async ({ n }) => ({
            content: [{ type: "text", text: `${n}` }],
          })),
        ],
      });
    const input = createAsyncQueue<SDKUserMessageInput>();
    const q = query({
      prompt: input,
      options: mockOptions(mock, "anthropic", { tools: [echoTool], mcpServers: { one: server("one") } }),
    });
    const offered = () =>
      mock.requests
        .at(-1)!
        .body.tools.map((t: any) => t.name)
        .sort();
    const turn = async (text: string) => {
      mock.enqueue(reply.text("ok"));
      input.push({ type: "user", message: { role: "user", content: text } });
      for (;;) if ((await q.next()).value?.type === "result") return;
    };
    await turn("first");
    expect(offered()).toEqual(["echo", "mcp__one__ping"]);

    expect(await q.setMcpServers({ two: server("two") })).toMatchObject({ added: ["two"], removed: [] });
    await turn("second");
    expect(offered()).toEqual(["echo", "mcp__one__ping", "mcp__two__ping"]);
    expect((await q.mcpServerStatus()).map((s) => [s.name, s.status])).toEqual([
      ["one", "connected"],
      ["two", "connected"],
    ]);

    await q.toggleMcpServer("one", false);
    await turn("third");
    expect(offered()).toEqual(["echo", "mcp__two__ping"]);
    expect((await q.mcpServerStatus()).find((s) => s.name === "one")?.status).toBe("disabled");

    await q.toggleMcpServer("one", true);
    await q.reconnectMcpServer("two");
    await turn("fourth");
    expect(offered()).toEqual(["echo", "mcp__one__ping", "mcp__two__ping"]);
    input.close();
    await collect(q);
  });

  it("the MCP methods reject for a server that does not exist", async () => {
    mock.enqueue(reply.text("ok"));
    const q = query({ prompt: "x", options: mockOptions(mock, "anthropic") });
    await collect(q);
    await expect(q.reconnectMcpServer("nope")).rejects.toThrow('No MCP server named "nope"');
    await expect(q.toggleMcpServer("nope", false)).rejects.toThrow('No MCP server named "nope"');
    expect(await q.mcpServerStatus()).toEqual([]);
  });
});

describe("stopTask", () => {
  it("stops a running subagent by its Task call id; the parent run goes on", async () => {
    const log: Array<[string, string, number]> = [];
    const slow = timedTool("slow_read", "none", 10_000, log);
    mock.enqueue(
      reply.toolCalls([
        {
          name: "Task",
          input: { description: "d", prompt: "p", subagent_type: "general-purpose" },
          id: "t1",
        },
      ]),
      reply.toolCalls([{ name: "slow_read", input: { tag: "child" } }]),
      reply.text("parent carries on"),
    );
    const q = query({ prompt: "x", options: mockOptions(mock, "anthropic", { tools: [slow, "Task"] }) });
    const started = Date.now();
    const messages: SDKMessage[] = [];
    for await (const m of q) {
      messages.push(m);
      if (
        m.type === "tool_progress" &&
        (m as any).tool_name === "slow_read" &&
        (m as any).elapsed_time_seconds === 0
      )
        await q.stopTask("t1");
    }
    expect(Date.now() - started).toBeLessThan(5_000);
    const notice = messages.find(
      (m) => m.type === "system" && (m as any).subtype === "task_notification",
    ) as any;
    expect(notice).toMatchObject({ task_id: "t1", tool_use_id: "t1", status: "stopped" });
    const [sent] = toolResultsSent(mock.requests[2].body);
    expect(sent.content).toMatch(/^The general-purpose agent was stopped by the user before it finished/);
    const result = resultOf(messages);
    expect(result.subtype).toBe("success");
    expect(result.result).toBe("parent carries on");
  });

  it("kills a background shell by its id; an ended or unknown id changes nothing, as in Claude Code", async () => {
    const cwd = tempDir("goat-stoptask-");
    mock.enqueue(
      reply.toolCalls([{ name: "Bash", input: { command: "sleep 30", run_in_background: true }, id: "b1" }]),
      reply.text("started"),
    );
    // Streamed input keeps the session (and its shells) alive after the run.
    const input = createAsyncQueue<SDKUserMessageInput>();
    input.push({ type: "user", message: { role: "user", content: "start a shell" } });
    const q = query({
      prompt: input,
      options: mockOptions(mock, "anthropic", { cwd, tools: ["Bash", "BashOutput"] }),
    });
    const messages: SDKMessage[] = [];
    let shellId: string | undefined;
    // Read by hand up to the result: leaving a for-await loop would close the query (and its shells).
    for (;;) {
      const { value: m, done } = await q.next();
      if (done) break;
      messages.push(m);
      const details = (m as any).tool_use_result;
      if (m.type === "user" && details?.backgroundTaskId) shellId = details.backgroundTaskId;
      if (m.type === "result") break;
    }
    expect(shellId).toBeTruthy();
    await q.stopTask(shellId!);
    const notice = await q.next();
    expect(notice.value).toMatchObject({
      type: "system",
      subtype: "task_notification",
      task_id: shellId,
      status: "stopped",
    });
    await expect(q.stopTask(shellId!)).resolves.toBeUndefined();
    await expect(q.stopTask("nothing")).resolves.toBeUndefined();
    // No notice for either: the next message is the next run's own.
    mock.enqueue(reply.text("still here"));
    input.push({ type: "user", message: { role: "user", content: "again" } });
    const next: SDKMessage[] = [];
    for (;;) {
      const { value: m, done } = await q.next();
      if (done) break;
      next.push(m);
      if (m.type === "result") break;
    }
    expect(next.some((m) => (m as any).subtype === "task_notification")).toBe(false);
    expect(resultOf(next).result).toBe("still here");
    input.close();
    q.close();
    await q.done();
  });
});

/**
 * Resolves once `value()` has stayed the same over ten turns of the event loop: an in-process producer
 * that has not moved for that long is waiting, not slow.
 */
async function untilStill(value: () => number): Promise<void> {
  for (let last = value(), still = 0; still < 10; ) {
    await new Promise((resolve) => setImmediate(resolve));
    const now = value();
    still = now === last ? still + 1 : 0;
    last = now;
  }
}

describe("backpressure", () => {
  it("a reader that stops reading pauses the model's stream instead of buffering it all", async () => {
    const deltas = 20_000;
    let produced = 0;
    const provider: Provider = {
      name: "burst",
      async *stream(): AsyncGenerator<StreamEvent> {
        yield { type: "message_start", model: "burst/m" };
        yield { type: "text_start", index: 0 };
        for (let i = 0; i < deltas; i++) {
          produced++;
          yield { type: "text_delta", index: 0, delta: "x" };
        }
        yield { type: "text_end", index: 0, text: "x".repeat(deltas) };
        yield {
          type: "message_end",
          message: {
            role: "assistant",
            content: [{ type: "text", text: "x".repeat(deltas) }],
            stop_reason: "end_turn",
          },
        };
      },
    };
    const q = query({
      prompt: "x",
      options: { model: "burst/m", provider, includePartialMessages: true, persistSession: false, tools: [] },
    });
    const first = await q.next();
    expect(first.value?.type).toBe("system");
    // The reader takes a break: the loop may fill the buffer, then waits.
    await untilStill(() => produced);
    expect(produced).toBeGreaterThan(HIGH_WATER / 2);
    expect(produced).toBeLessThanOrEqual(HIGH_WATER + 16);
    const rest: SDKMessage[] = [];
    for await (const m of q) rest.push(m);
    expect(produced).toBe(deltas);
    expect(rest.filter((m) => m.type === "stream_event").length).toBeGreaterThanOrEqual(deltas);
    expect(resultOf(rest).result).toHaveLength(deltas);
  });
});
