/**
 * A durable session's SDK messages as the viewer's entries (`cli/serve/durable-entries.ts`), and a
 * durable session as `goat sessions --database` prints it (`cli/sessions/durable-session-list.ts`): in memory.
 */
import { describe, expect, it } from "vitest";
import { entryOfMessage, openingEntries } from "../../src/cli/serve/durable-entries.js";
import { durableSessionLines } from "../../src/cli/sessions/durable-session-list.js";
import type { SDKMessage } from "../../src/index.js";

const assistant = (text: string, parent: string | null = null) =>
  ({
    type: "assistant",
    uuid: "u",
    session_id: "s",
    parent_tool_use_id: parent,
    message: {
      id: "m",
      type: "message",
      role: "assistant",
      model: "claude-test",
      content: [{ type: "text", text }],
      stop_reason: "end_turn",
      stop_sequence: null,
      usage: { input_tokens: 1, output_tokens: 2 },
    },
  }) as unknown as SDKMessage;

describe("durable messages as viewer entries", () => {
  it("opens with the request: when, where, and the whole prompt", () => {
    const [header, prompt] = openingEntries("wf", {
      createdAt: Date.UTC(2026, 0, 2),
      cwd: "/w",
      prompt: "do it",
    });
    expect(header).toEqual({
      type: "header",
      uuid: "wf:header",
      createdAt: "2026-01-02T00:00:00.000Z",
      cwd: "/w",
    });
    expect(prompt).toEqual({ type: "user", uuid: "wf:prompt", message: { role: "user", content: "do it" } });
  });

  it("keeps an assistant message's shape, adds its markdown tree, and names it by its position", () => {
    const placed = entryOfMessage("wf", 7, assistant("**bold**"));
    expect(placed?.agentId).toBeUndefined();
    expect(placed?.entry.uuid).toBe("wf:7");
    const message = placed?.entry.message as { content: Array<{ text: string; md: unknown }> };
    const block = message.content[0];
    expect(block.text).toBe("**bold**");
    expect(JSON.stringify(block.md)).toContain('"strong"');
  });

  it("files a subagent's message under its Task call's id", () => {
    expect(entryOfMessage("wf", 3, assistant("helper", "toolu_task"))?.agentId).toBe("toolu_task");
  });

  it("turns the run's start and a refused call into notes, keeps a result's errors, drops the rest", () => {
    const init = {
      type: "system",
      subtype: "init",
      cwd: "/w",
      model: "claude-test",
    } as unknown as SDKMessage;
    expect(entryOfMessage("wf", 0, init)?.entry).toEqual({
      type: "note",
      uuid: "wf:0",
      text: "Run started in /w · claude-test",
    });
    const denied = {
      type: "system",
      subtype: "permission_denied",
      tool_name: "Bash",
      message: "not allowed",
    } as unknown as SDKMessage;
    expect(entryOfMessage("wf", 1, denied)?.entry.text).toBe("Bash refused: not allowed");
    const result = {
      type: "result",
      subtype: "error_during_execution",
      num_turns: 1,
      total_cost_usd: 0.5,
      duration_ms: 10,
      errors: ["boom"],
    } as unknown as SDKMessage;
    expect(entryOfMessage("wf", 2, result)?.entry).toMatchObject({
      type: "result",
      errors: ["boom"],
      total_cost_usd: 0.5,
    });
    const progress = { type: "tool_progress", tool_use_id: "t" } as unknown as SDKMessage;
    expect(entryOfMessage("wf", 3, progress)).toBeUndefined();
    const hook = { type: "system", subtype: "hook_started" } as unknown as SDKMessage;
    expect(entryOfMessage("wf", 4, hook)).toBeUndefined();
  });
});

describe("goat sessions --database lines", () => {
  it("prints id, status, age, step, worker, version, cost and prompt on one line, the error's first line under it", () => {
    const text = durableSessionLines({
      workflowId: "wf-1",
      sessionId: "s-1",
      status: "ERROR",
      prompt: "line one\nline two \u001b]0;title\u0007",
      applicationVersion: "goat-1-abc",
      executorId: "w1",
      createdAt: Date.now() - 90_000,
      costUsd: 0.01234,
      error: "it broke\nstack line",
      priority: 0,
      lastStep: { number: 4, name: "model:anthropic" },
      steps: 5,
    });
    const [line, error, end] = text.split("\n");
    expect(line.split(/ {2,}/)).toEqual([
      "wf-1",
      "ERROR",
      "90s",
      "step 4 model:anthropic",
      "w1",
      "goat-1-abc",
      "$0.0123",
      expect.stringMatching(/^line one line two .*title/),
    ]);
    expect(line).not.toContain("\u001b");
    expect(error).toBe("    error: it broke");
    expect(end).toBe("");
  });

  it("says when a session has no step yet and no cost", () => {
    const line = durableSessionLines({
      workflowId: "wf-2",
      sessionId: "wf-2",
      status: "ENQUEUED",
      prompt: "",
      createdAt: Date.now(),
      priority: 0,
    });
    expect(line.split(/ {2,}/).slice(3)).toEqual(["no step yet", "-", "-", "-", "(no prompt)\n"]);
  });
});
