/**
 * Shared set-up for loop tests: a mock provider, options that point a query at it for either wire
 * format, and small tools whose timing the tests can observe.
 */
import { afterAll, beforeAll, beforeEach } from "vitest";
import { z } from "zod";
import type { QueryOptions } from "../../src/sdk/options.js";
import type { Query } from "../../src/sdk/query.js";
import type { SDKMessage } from "../../src/sdk/sdk-messages.js";
import type { ScriptedModel } from "../../src/testing/scripted-model.js";
import { defineTool } from "../../src/tools/define-tool.js";
import { type MockProvider, startMockProvider } from "../support/mock-provider.js";

/** The two wire formats every end-to-end test runs against. */
export const FORMATS = ["anthropic", "openai"] as const;
export type Format = (typeof FORMATS)[number];

/**
 * One mock provider for a test file: started before its first test, closed after its last, its
 * request log cleared before each test. The returned object stands for the running mock (it only
 * exists once the file's tests start), so files write `const mock = useMockProvider()` at the top.
 */
export function useMockProvider(): MockProvider {
  let live: MockProvider | undefined;
  beforeAll(async () => {
    live = await startMockProvider();
  });
  afterAll(() => live?.close());
  beforeEach(() => {
    // A test that failed before its model calls leaves its replies queued: they must not answer the next.
    running().clear();
  });
  const running = (): MockProvider => {
    if (!live) throw new Error("useMockProvider: the mock is used outside the file's tests");
    return live;
  };
  return {
    get anthropicBaseURL() {
      return running().anthropicBaseURL;
    },
    get openaiBaseURL() {
      return running().openaiBaseURL;
    },
    get bedrockBaseURL() {
      return running().bedrockBaseURL;
    },
    get vertexBaseURL() {
      return running().vertexBaseURL;
    },
    get geminiBaseURL() {
      return running().geminiBaseURL;
    },
    get requests() {
      return running().requests;
    },
    enqueue: (...replies) => running().enqueue(...replies),
    setWhenEmpty: (reply) => running().setWhenEmpty(reply),
    pending: () => running().pending(),
    clear: () => running().clear(),
    close: () => running().close(),
  };
}

/** Options that send a query's model calls to the mock in `format`. */
export function mockOptions(mock: MockProvider, format: Format, extra: QueryOptions = {}): QueryOptions {
  const provider =
    format === "anthropic"
      ? { type: "anthropic" as const, baseURL: mock.anthropicBaseURL, apiKey: "test-key" }
      : { type: "openai" as const, baseURL: mock.openaiBaseURL, apiKey: "test-key" };
  return {
    model: format === "anthropic" ? "anthropic/claude-sonnet-4-5" : "openai/gpt-4.1",
    provider,
    retry: { baseDelayMs: 5, maxDelayMs: 50 },
    persistSession: false,
    permissionMode: "bypassPermissions",
    tools: [],
    ...extra,
  };
}

/**
 * Options that send a query's model calls to a scripted model in memory (`scriptedModel()` of
 * goat-agent/testing): no HTTP, for tests whose subject is not the wire.
 */
export function scriptedOptions(model: ScriptedModel, extra: QueryOptions = {}): QueryOptions {
  return {
    model: model.id,
    provider: model,
    retry: { baseDelayMs: 1, maxDelayMs: 1 },
    persistSession: false,
    permissionMode: "bypassPermissions",
    tools: [],
    ...extra,
  };
}

/** Reads every message of a query. */
export async function collect(q: Query): Promise<SDKMessage[]> {
  const out: SDKMessage[] = [];
  for await (const m of q) out.push(m);
  return out;
}

/** The result message of a list (asserting there is exactly one). */
export function resultOf(messages: SDKMessage[]) {
  const results = messages.filter((m) => m.type === "result");
  if (results.length !== 1) throw new Error(`expected one result, got ${results.length}`);
  return results[0] as Extract<SDKMessage, { type: "result" }>;
}

/** A tool that records when it ran, for concurrency tests. */
export function timedTool(
  name: string,
  sideEffect: "none" | "mutating",
  ms: number,
  log: Array<[string, string, number]>,
) {
  return defineTool({
    name,
    description: `Waits ${ms} ms`,
    inputSchema: z.object({ tag: z.string() }),
    sideEffect,
    execute: async ({ tag }, ctx) => {
      log.push([tag, "start", Date.now()]);
      const aborted = await new Promise<boolean>((resolve) => {
        const t = setTimeout(() => resolve(false), ms);
        ctx.signal.addEventListener("abort", () => {
          clearTimeout(t);
          resolve(true);
        });
      });
      log.push([tag, "end", Date.now()]);
      return aborted ? { content: `interrupted ${tag}`, isError: true } : { content: `done ${tag}` };
    },
  });
}

/** A pure tool that echoes its input. */
export const echoTool = defineTool({
  name: "echo",
  description: "Echoes text",
  inputSchema: z.object({ text: z.string() }),
  sideEffect: "none",
  execute: async ({ text }) => ({ content: `echo: ${text}`, details: { length: text.length } }),
});

/** The tool_result blocks of the request body the mock received (either format). */
export function toolResultsSent(body: any): Array<{ id: string; content: string; isError: boolean }> {
  if (Array.isArray(body.messages) && body.messages.some((m: any) => m.role === "tool")) {
    return body.messages
      .filter((m: any) => m.role === "tool")
      .map((m: any) => ({
        id: m.tool_call_id,
        content: String(m.content),
        isError: /error/i.test(String(m.content)),
      }));
  }
  const out: Array<{ id: string; content: string; isError: boolean }> = [];
  for (const m of body.messages ?? []) {
    if (m.role !== "user" || typeof m.content === "string") continue;
    for (const b of m.content) {
      if (b.type === "tool_result") {
        const text =
          typeof b.content === "string" ? b.content : b.content.map((c: any) => c.text ?? "").join("");
        // A wire body (Anthropic's is_error) or a scripted model's request (Goat's isError).
        out.push({ id: b.tool_use_id, content: text, isError: b.is_error === true || b.isError === true });
      }
    }
  }
  return out;
}

export { tempDir } from "../support/temp-dirs.js";
