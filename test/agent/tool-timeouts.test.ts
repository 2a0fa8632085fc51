/**
 * Custom and MCP tools cannot hang a run: a call that outlives its time limit (the tool's own
 * `timeoutMs`, its MCP server's `toolTimeoutMs`, or the session's `toolTimeoutMs`) is answered with a
 * clear error and the tool's signal is aborted, so its work stops. Built-in tools keep their own rules.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { createSdkMcpServer, tool } from "../../src/mcp/sdk-server.js";
import type { SDKMessage } from "../../src/runtime/sdk-messages.js";
import { query } from "../../src/sdk/query.js";
import { defineTool } from "../../src/tools/define-tool.js";
import { type MockProvider, reply, startMockProvider } from "../support/mock-provider.js";
import { collect, mockOptions, resultOf } from "./helpers.js";

let mock: MockProvider;
beforeAll(async () => {
  mock = await startMockProvider();
});
afterAll(() => mock.close());
beforeEach(() => {
  mock.requests.length = 0;
});

function toolResults(messages: SDKMessage[]) {
  return messages.flatMap((m) =>
    m.type === "user" && Array.isArray(m.message.content)
      ? m.message.content.filter((b) => b.type === "tool_result")
      : [],
  );
}

/** A tool that waits until its signal aborts, and records when that happened. */
function hangingTool(name: string, seen: { abortedAfterMs?: number }, timeoutMs?: number) {
  return defineTool({
    name,
    description: "never finishes on its own",
    inputSchema: z.object({}),
    sideEffect: "none",
    timeoutMs,
    execute: (_input, ctx) => {
      const started = performance.now();
      return new Promise<{ content: string }>((resolve) => {
        ctx.signal.addEventListener("abort", () => {
          seen.abortedAfterMs = performance.now() - started;
          resolve({ content: "stopped late" });
        });
      });
    },
  });
}

describe("tool time limits", () => {
  it("stops a custom tool at its own timeoutMs: error result, signal aborted, the run goes on", async () => {
    const seen: { abortedAfterMs?: number } = {};
    mock.enqueue(reply.toolCalls([{ name: "hang", input: {} }]), reply.text("moved on"));
    const messages = await collect(
      query({
        prompt: "x",
        options: mockOptions(mock, "anthropic", { tools: [hangingTool("hang", seen, 200)] }),
      }),
    );
    const [result] = toolResults(messages);
    expect(result).toMatchObject({ is_error: true });
    expect(String(result.content)).toMatch(
      /^hang did not finish within its time limit of 200 ms and was stopped/,
    );
    expect(seen.abortedAfterMs).toBeGreaterThanOrEqual(190);
    expect(seen.abortedAfterMs).toBeLessThan(2000);
    expect(resultOf(messages).result).toBe("moved on");
  });

  it("applies the session's toolTimeoutMs to custom tools but not to built-in ones", async () => {
    const seen: { abortedAfterMs?: number } = {};
    mock.enqueue(
      reply.toolCalls([
        { name: "hang", input: {} },
        { name: "Bash", input: { command: "sleep 0.4; echo slept" } },
      ]),
      reply.text("ok"),
    );
    const messages = await collect(
      query({
        prompt: "x",
        options: mockOptions(mock, "anthropic", {
          tools: [hangingTool("hang", seen), "Bash"],
          toolTimeoutMs: 150,
        }),
      }),
    );
    const [hang, bash] = toolResults(messages);
    expect(String(hang.content)).toMatch(/time limit of 150 ms/);
    expect(bash.is_error).toBeUndefined();
    expect(String(bash.content)).toContain("slept");
  });

  it("stops an MCP tool at its server's toolTimeoutMs and aborts the handler's signal", async () => {
    let handlerAborted = false;
    const server = createSdkMcpServer({
      name: "slow",
      tools: [
        tool("wait", "waits for its signal", {}, (_args, extra) => {
          const signal = (extra as { signal: AbortSignal }).signal;
          return new Promise((resolve) => {
            signal.addEventListener("abort", () => {
              handlerAborted = true;
              resolve({ content: [{ type: "text", text: "late" }] });
            });
          });
        }),
      ],
    });
    mock.enqueue(reply.toolCalls([{ name: "mcp__slow__wait", input: {} }]), reply.text("done"));
    const started = performance.now();
    const messages = await collect(
      query({
        prompt: "x",
        options: mockOptions(mock, "anthropic", {
          mcpServers: { slow: { ...server, toolTimeoutMs: 250 } },
          toolTimeoutMs: 60_000,
        }),
      }),
    );
    const [result] = toolResults(messages);
    expect(String(result.content)).toMatch(/^mcp__slow__wait did not finish within its time limit of 250 ms/);
    expect(performance.now() - started).toBeLessThan(5000);
    await expect.poll(() => handlerAborted).toBe(true);
  });
});
