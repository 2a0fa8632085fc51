/**
 * OpenTelemetry spans as an existing OpenTelemetry set-up sees them: the host registers a tracer
 * provider (the SDK's in-memory exporter here) and changes nothing else; a run with a retried model
 * call, two tool calls (one failing) and a subagent yields the GenAI conventions' span tree.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { trace } from "@opentelemetry/api";
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
} from "@opentelemetry/sdk-trace-base";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { query } from "../../src/sdk/query.js";
import { collect, mockOptions, resultOf } from "../runtime/helpers.js";
import { type MockProvider, reply, startMockProvider } from "../support/mock-provider.js";

let mock: MockProvider;
let cwd: string;
const exporter = new InMemorySpanExporter();

beforeAll(async () => {
  mock = await startMockProvider();
  trace.setGlobalTracerProvider(
    new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }),
  );
});
afterAll(async () => {
  trace.disable();
  await mock.close();
});
beforeEach(() => {
  exporter.reset();
  mock.requests.length = 0;
  cwd = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "goat-otel-")));
  fs.writeFileSync(path.join(cwd, "notes.txt"), "secret notes\n");
  return () => fs.rmSync(cwd, { recursive: true, force: true });
});

/** The finished spans as an indented tree of names, children in start order. */
function tree(spans: ReadableSpan[]): string[] {
  const byParent = new Map<string | undefined, ReadableSpan[]>();
  const ids = new Set(spans.map((s) => s.spanContext().spanId));
  for (const span of spans) {
    const parent = span.parentSpanContext?.spanId;
    const key = parent && ids.has(parent) ? parent : undefined;
    byParent.set(key, [...(byParent.get(key) ?? []), span]);
  }
  const lines: string[] = [];
  const walk = (parent: string | undefined, depth: number) => {
    const children = inBatchOrder(byParent.get(parent) ?? []);
    for (const span of children) {
      const failed = span.status.code === 2 ? " !" : "";
      lines.push(`${"  ".repeat(depth)}${span.name}${failed}`);
      walk(span.spanContext().spanId, depth + 1);
    }
  };
  walk(undefined, 0);
  return lines;
}

/**
 * Siblings in start order, except that the tool calls of one batch (consecutive execute_tool spans,
 * which start concurrently) are ordered by call id, so the tree does not depend on the scheduler.
 */
function inBatchOrder(spans: ReadableSpan[]): ReadableSpan[] {
  const byStart = [...spans].sort(
    (a, b) => a.startTime[0] - b.startTime[0] || a.startTime[1] - b.startTime[1],
  );
  const out: ReadableSpan[] = [];
  let batch: ReadableSpan[] = [];
  const flush = () => {
    const id = (span: ReadableSpan) => String(span.attributes["gen_ai.tool.call.id"]);
    out.push(...batch.sort((a, b) => id(a).localeCompare(id(b))));
    batch = [];
  };
  for (const span of byStart) {
    if (span.name.startsWith("execute_tool ")) batch.push(span);
    else {
      flush();
      out.push(span);
    }
  }
  flush();
  return out;
}

function runWithToolsRetryAndSubagent(extra: Record<string, unknown> = {}) {
  mock.enqueue(
    reply.error(529),
    reply.toolCalls([
      { name: "Read", input: { file_path: path.join(cwd, "notes.txt") }, id: "read-ok" },
      { name: "Read", input: { file_path: path.join(cwd, "missing.txt") }, id: "read-missing" },
    ]),
    reply.toolCalls([
      {
        name: "Task",
        input: { description: "look", prompt: "child job", subagent_type: "general-purpose" },
        id: "task-1",
      },
    ]),
    reply.text("child report"),
    reply.text("all done"),
  );
  return collect(
    query({
      prompt: "go",
      options: mockOptions(mock, "anthropic", { cwd, tools: ["Read", "Task"], ...extra }),
    }),
  );
}

describe("OpenTelemetry GenAI spans", () => {
  it("gives a run, its model calls, its tool calls and a subagent as one span tree", async () => {
    const messages = await runWithToolsRetryAndSubagent();
    expect(resultOf(messages).subtype).toBe("success");
    const spans = exporter.getFinishedSpans();
    expect(tree(spans)).toEqual([
      "invoke_agent goat",
      "  chat claude-sonnet-4-5",
      "  execute_tool Read !",
      "  execute_tool Read",
      "  chat claude-sonnet-4-5",
      "  execute_tool Task",
      "    invoke_agent general-purpose",
      "      chat claude-sonnet-4-5",
      "  chat claude-sonnet-4-5",
    ]);

    const agent = spans.find((s) => s.name === "invoke_agent goat")!;
    expect(agent.attributes).toMatchObject({
      "gen_ai.operation.name": "invoke_agent",
      "gen_ai.agent.name": "goat",
      "gen_ai.conversation.id": resultOf(messages).session_id,
      "gen_ai.provider.name": "anthropic",
      "goat.exit_reason": "end_turn",
    });
    const chats = spans.filter((s) => s.name.startsWith("chat "));
    expect(chats[0].attributes).toMatchObject({
      "gen_ai.operation.name": "chat",
      "gen_ai.provider.name": "anthropic",
      "gen_ai.request.model": "claude-sonnet-4-5",
      "gen_ai.response.finish_reasons": ["tool_use"],
    });
    expect(typeof chats[0].attributes["gen_ai.usage.input_tokens"]).toBe("number");
    expect(typeof chats[0].attributes["goat.cost_usd"]).toBe("number");
    // The retried call carries the retry as an event, with the provider's error kind.
    expect(chats[0].events.map((e) => [e.name, e.attributes?.["error.type"]])).toEqual([
      ["gen_ai.retry", "overloaded"],
    ]);
    const costs = chats.map((s) => s.attributes["goat.cost_usd"] as number);
    expect(agent.attributes["goat.cost_usd"]).toBeCloseTo(
      costs.filter((_, i) => i !== 2).reduce((a, b) => a + b, 0),
      10,
    );

    // The two reads run concurrently and may finish in either order.
    const readSpan = (id: string) => spans.find((s) => s.attributes["gen_ai.tool.call.id"] === id)!;
    expect(readSpan("read-ok").attributes["error.type"]).toBeUndefined();
    expect(readSpan("read-missing").attributes["error.type"]).toBe("tool_error");
    // Content is opt-in: without it, no arguments, results or answers are on the spans.
    expect(JSON.stringify(spans.map((s) => s.attributes))).not.toContain("secret notes");
    expect(readSpan("read-ok").attributes["gen_ai.tool.call.arguments"]).toBeUndefined();
  });

  it("records prompts, answers and tool input/output only when asked", async () => {
    await runWithToolsRetryAndSubagent({ telemetry: { recordContent: true } });
    const spans = exporter.getFinishedSpans();
    const read = spans.find((s) => s.attributes["gen_ai.tool.call.id"] === "read-ok")!;
    expect(String(read.attributes["gen_ai.tool.call.arguments"])).toContain("notes.txt");
    expect(String(read.attributes["gen_ai.tool.call.result"])).toContain("secret notes");
    const last = spans.filter((s) => s.name.startsWith("chat ")).at(-1)!;
    expect(JSON.parse(String(last.attributes["gen_ai.output.messages"]))).toEqual([
      { role: "assistant", finish_reason: "end_turn", parts: [{ type: "text", content: "all done" }] },
    ]);
  });

  it("marks a run that ends on a provider error, and its failed call", async () => {
    mock.enqueue(reply.error(401));
    const messages = await collect(query({ prompt: "go", options: mockOptions(mock, "anthropic", { cwd }) }));
    expect(resultOf(messages).is_error).toBe(true);
    const spans = exporter.getFinishedSpans();
    expect(tree(spans)).toEqual(["invoke_agent goat !", "  chat claude-sonnet-4-5 !"]);
    expect(spans.find((s) => s.name.startsWith("chat"))!.attributes["error.type"]).toBe("authentication");
  });

  it("produces nothing when turned off, even with a provider registered", async () => {
    mock.enqueue(reply.text("quiet"));
    await collect(
      query({ prompt: "go", options: mockOptions(mock, "anthropic", { cwd, telemetry: false }) }),
    );
    expect(exporter.getFinishedSpans()).toEqual([]);
  });
});
