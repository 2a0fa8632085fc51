/**
 * Custom and MCP tools cannot hang a run: a call that outlives its time limit (the tool's own
 * `timeoutMs`, its MCP server's `toolTimeoutMs`, or the session's `toolTimeoutMs`) is answered with a
 * clear error and the tool's signal is aborted, so its work stops. Built-in tools keep their own rules.
 *
 * The limits of in-process tools run on fake timers against the scripted model (no HTTP): the clock
 * moves once the tool has started, so the abort is seen at exactly the limit. The session limit's test
 * runs a real Bash process beside a hanging tool, on real time.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { createSdkMcpServer, tool } from "../../src/mcp/sdk-server.js";
import type { QueryOptions } from "../../src/sdk/options.js";
import { query } from "../../src/sdk/query.js";
import type { SDKMessage } from "../../src/sdk/sdk-messages.js";
import { type ScriptedModel, scriptedModel } from "../../src/testing/scripted-model.js";
import { defineTool } from "../../src/tools/define-tool.js";
import { reply } from "../support/mock-provider.js";
import { collect, mockOptions, resultOf, useMockProvider } from "./helpers.js";

const mock = useMockProvider();

afterEach(() => {
  vi.useRealTimers();
});

/** Options of a query answered by the scripted model in memory. */
function scriptedOptions(model: ScriptedModel): QueryOptions {
  return { model: model.id, provider: model, persistSession: false, permissionMode: "bypassPermissions" };
}

function toolResults(messages: SDKMessage[]) {
  return messages.flatMap((m) =>
    m.type === "user" && Array.isArray(m.message.content)
      ? m.message.content.filter((b) => b.type === "tool_result")
      : [],
  );
}

/** A tool that waits until its signal aborts, and records when it started and when it was aborted. */
function hangingTool(
  name: string,
  seen: { abortedAfterMs?: number; started?: () => void },
  timeoutMs?: number,
) {
  return defineTool({
    name,
    description: "never finishes on its own",
    inputSchema: z.object({}),
    sideEffect: "none",
    timeoutMs,
    execute: (_input, ctx) => {
      const started = performance.now();
      seen.started?.();
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
    vi.useFakeTimers({
      toFake: ["setTimeout", "clearTimeout", "setInterval", "clearInterval", "performance"],
    });
    const model = scriptedModel();
    const seen: { abortedAfterMs?: number; started?: () => void } = {};
    const toolStarted = new Promise<void>((resolve) => {
      seen.started = resolve;
    });
    model.enqueue(reply.toolCalls([{ name: "hang", input: {} }]), reply.text("moved on"));
    const run = collect(
      query({ prompt: "x", options: { ...scriptedOptions(model), tools: [hangingTool("hang", seen, 200)] } }),
    );
    await toolStarted;
    await vi.advanceTimersByTimeAsync(200);
    const messages = await run;
    const [result] = toolResults(messages);
    expect(result).toMatchObject({ is_error: true });
    expect(String(result.content)).toMatch(
      /^hang did not finish within its time limit of 200 ms and was stopped/,
    );
    expect(seen.abortedAfterMs).toBe(200);
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
    vi.useFakeTimers({
      toFake: ["setTimeout", "clearTimeout", "setInterval", "clearInterval", "performance"],
    });
    let handlerAborted = false;
    let handlerStarted!: () => void;
    const started = new Promise<void>((resolve) => {
      handlerStarted = resolve;
    });
    const server = createSdkMcpServer({
      name: "slow",
      tools: [
        tool("wait", "waits for its signal", {}, (_args, extra) => {
          const signal = (extra as { signal: AbortSignal }).signal;
          handlerStarted();
          return new Promise((resolve) => {
            signal.addEventListener("abort", () => {
              handlerAborted = true;
              resolve({ content: [{ type: "text", text: "late" }] });
            });
          });
        }),
      ],
    });
    const model = scriptedModel();
    model.enqueue(reply.toolCalls([{ name: "mcp__slow__wait", input: {} }]), reply.text("done"));
    const startedAt = performance.now();
    const run = collect(
      query({
        prompt: "x",
        options: {
          ...scriptedOptions(model),
          mcpServers: { slow: { ...server, toolTimeoutMs: 250 } },
          toolTimeoutMs: 60_000,
        },
      }),
    );
    await started;
    await vi.advanceTimersByTimeAsync(250);
    const messages = await run;
    // The server's limit, not the session's minute: the clock moved 250 ms in all.
    expect(performance.now() - startedAt).toBe(250);
    vi.useRealTimers();
    const [result] = toolResults(messages);
    expect(String(result.content)).toMatch(/^mcp__slow__wait did not finish within its time limit of 250 ms/);
    await expect.poll(() => handlerAborted).toBe(true);
  });
});
