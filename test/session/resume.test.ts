import { readFileSync } from "node:fs";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type ContentBlock, type Message, textOf } from "../../src/llm/types.js";
import { getSessionMessages, loadResumeState } from "../../src/session/api.js";
import { createJsonlSessionStore, type JsonlSessionStore } from "../../src/session/jsonl-store.js";
import { sessionFilePath } from "../../src/session/paths.js";
import {
  INTERRUPTED_TOOL_RESULT,
  repairDanglingToolUses,
  repairToolPairs,
} from "../../src/session/repair.js";
import { buildResumeState, transcriptMessages } from "../../src/session/resume.js";
import type { SessionEntry } from "../../src/session/types.js";
import { callTool, exchange, prompt, reply, startSession, tempDir, toolResult } from "./fixtures.js";

let home: string;
let cleanup: () => void;
let store: JsonlSessionStore;

beforeEach(() => {
  ({ dir: home, cleanup } = tempDir());
  store = createJsonlSessionStore({ home, onWarning: (w) => expect.fail(w.message) });
});
afterEach(async () => {
  await store.close();
  cleanup();
});

/** Records a compaction the way the compactor does: boundary, then the kept tail re-written. */
async function compact(
  recorder: Awaited<ReturnType<typeof startSession>>,
  summary: string,
  kept: SessionEntry[],
): Promise<void> {
  await recorder.record({
    type: "compact_boundary",
    trigger: "auto",
    pre_tokens: 1000,
    post_tokens: 100,
    summary,
    kept_uuids: kept.map((e) => e.uuid),
  });
  for (const e of kept) {
    if (e.type === "user" || e.type === "assistant") {
      await recorder.record({ type: e.type, message: e.message, copy_of: e.uuid } as never);
    }
  }
}

const texts = (messages: Message[]) => messages.map(textOf);

describe("resume", () => {
  it("keeps only the last boundary's summary and the tail after it, loading only that from disk", async () => {
    const recorder = await exchange(await startSession(store, "s", "/w"), "q1", "q2");
    await compact(recorder, "first summary", []);
    await exchange(recorder, "q3", "q4");
    const all = (await store.load("s"))!;
    const keptQ4 = all.filter((e) => e.type === "user" || e.type === "assistant").slice(-2);
    await compact(recorder, "second summary", keptQ4);
    await exchange(recorder, "q5");

    const tail = (await store.load("s", { fromLastBoundary: true }))!;
    expect(tail.map((e) => e.type)).toEqual([
      "header",
      "compact_boundary",
      "user",
      "assistant",
      "user",
      "assistant",
    ]);

    const state = buildResumeState(tail);
    expect(state.summary).toBe("second summary");
    expect(texts(state.messages)).toEqual([
      expect.stringContaining("Summary:\nsecond summary"),
      "answer to q4",
      "q5",
      "answer to q5",
    ]);
    // The summary merged into the kept user message keeps roles alternating.
    expect(state.messages.map((m) => m.role)).toEqual(["user", "assistant", "user", "assistant"]);
    expect(texts(state.messages)[0]).toContain("q4");
    expect(state.lastUuid).toBe(tail.at(-1)!.uuid);
    expect(buildResumeState((await store.load("s"))!).messages).toEqual(state.messages);

    // The transcript shows every message once, across both compactions.
    expect(texts(transcriptMessages((await store.load("s"))!)).filter((t) => t.startsWith("q"))).toEqual([
      "q1",
      "q2",
      "q3",
      "q4",
      "q5",
    ]);
  });

  it("resumes at an earlier uuid, dropping the later branch, and continues as a new branch", async () => {
    const recorder = await exchange(await startSession(store, "s", "/w"), "q1");
    const pivot = recorder.lastUuid!;
    await exchange(recorder, "q2");
    const state = await loadResumeState("s", { store, resumeAt: pivot });
    expect(texts(state.messages)).toEqual(["q1", "answer to q1"]);
    expect(state.lastUuid).toBe(pivot);

    const branch = (await import("../../src/session/recorder.js")).createSessionRecorder({
      store,
      sessionId: "s",
      parentUuid: state.lastUuid,
    });
    await exchange(branch, "q2-bis");
    const latest = await loadResumeState("s", { store });
    expect(texts(latest.messages)).toEqual(["q1", "answer to q1", "q2-bis", "answer to q2-bis"]);
    await expect(loadResumeState("s", { store, resumeAt: "nope" })).rejects.toThrow(/no entry nope/);
  });

  it("finds a resumeAt uuid from before the last compaction by reading the whole file", async () => {
    const recorder = await exchange(await startSession(store, "s", "/w"), "q1");
    const early = recorder.lastUuid!;
    await compact(recorder, "sum", []);
    await exchange(recorder, "q2");
    const state = await loadResumeState("s", { store, resumeAt: early });
    expect(texts(state.messages)).toEqual(["q1", "answer to q1"]);
  });

  it("answers a tool call killed mid-run with an interrupted error instead of re-running it", async () => {
    const recorder = await exchange(await startSession(store, "s", "/w"), "q1");
    await recorder.record({ type: "user", message: prompt("run the long thing") });
    await recorder.record({ type: "assistant", message: callTool("call_1") });
    const state = await loadResumeState("s", { store });
    expect(state.interruptedToolUseIds).toEqual(["call_1"]);
    expect(state.messages.at(-1)).toEqual({
      role: "user",
      content: [
        { type: "tool_result", tool_use_id: "call_1", content: INTERRUPTED_TOOL_RESULT, isError: true },
      ],
    });
  });

  it("reads a transcript written with the old is_error spelling as isError, on resume and in the viewer's list", async () => {
    // What Goat wrote before the neutral model settled on isError: the flag in Anthropic's spelling.
    const recorder = await exchange(await startSession(store, "old", "/w"), "q1");
    await recorder.record({ type: "assistant", message: callTool("call_1") });
    const oldResult = { type: "tool_result", tool_use_id: "call_1", content: "boom", is_error: true };
    await recorder.record({ type: "user", message: { role: "user", content: [oldResult as ContentBlock] } });
    await recorder.record({ type: "assistant", message: reply("it failed") });
    const onDisk = readFileSync(sessionFilePath(home, "/w", "old"), "utf8");
    expect(onDisk).toContain('"is_error":true');

    const expected = { type: "tool_result", tool_use_id: "call_1", content: "boom", isError: true };
    const resumed = await loadResumeState("old", { store });
    expect(resumed.messages[3]).toEqual({ role: "user", content: [expected] });
    const listed = await getSessionMessages("old", { store });
    expect(listed[3]).toEqual({ role: "user", content: [expected] });
  });

  it("sums cost and turns over all runs and takes the latest model", async () => {
    const recorder = await exchange(await startSession(store, "s", "/w", "anthropic/a"), "q1");
    const usage = {
      input_tokens: 1,
      output_tokens: 1,
      cache_read_input_tokens: 0,
      cache_creation_input_tokens: 0,
    };
    await recorder.record({
      type: "result",
      subtype: "success",
      num_turns: 2,
      total_cost_usd: 0.25,
      usage,
      duration_ms: 5,
    });
    await recorder.record({ type: "model_change", model: "openai/b" });
    await compact(recorder, "s", []);
    await exchange(recorder, "q2");
    await recorder.record({
      type: "result",
      subtype: "success",
      num_turns: 1,
      total_cost_usd: 0.5,
      usage,
      duration_ms: 5,
    });
    const state = await loadResumeState("s", { store });
    expect(state).toMatchObject({ totalCostUsd: 0.75, numTurns: 3, model: "openai/b" });
    expect(state.header?.cwd).toBe("/w");
  });
});

describe("buildResumeState on hand-made entry lists", () => {
  const entry = (uuid: string, parentUuid: string | null, text: string): SessionEntry => ({
    type: "user",
    message: prompt(text),
    uuid,
    parentUuid,
    timestamp: "2026-01-01T00:00:00.000Z",
    sessionId: "s",
  });
  const header: SessionEntry = {
    type: "header",
    cwd: "/w",
    version: "t",
    createdAt: "2026-01-01T00:00:00.000Z",
    uuid: "h",
    parentUuid: null,
    timestamp: "2026-01-01T00:00:00.000Z",
    sessionId: "s",
  };

  it("follows parents, not write order: a missing parent ends the chain, an entry off the chain is left out", () => {
    const gap = [header, entry("1", "h", "one"), entry("2", "missing", "two"), entry("3", "2", "three")];
    expect(texts(buildResumeState(gap).messages)).toEqual(["two", "three"]);
    const offChain = [
      header,
      entry("1", "h", "one"),
      entry("2", "h", "other branch"),
      entry("3", "1", "three"),
    ];
    expect(texts(buildResumeState(offChain).messages)).toEqual(["one", "three"]);
    const inOrder = [header, entry("1", "h", "one"), entry("2", "1", "two")];
    const state = buildResumeState(inOrder);
    expect(texts(state.messages)).toEqual(["one", "two"]);
    expect(state).toMatchObject({ lastUuid: "2", header: { cwd: "/w" } });
  });
});

describe("repairDanglingToolUses", () => {
  it("adds results only for the calls left unanswered, results first", () => {
    const assistant = {
      role: "assistant" as const,
      content: [
        { type: "tool_use" as const, id: "a", name: "Read", input: {} },
        { type: "tool_use" as const, id: "b", name: "Read", input: {} },
      ],
    };
    const partial = {
      role: "user" as const,
      content: [{ type: "text" as const, text: "note" }, ...toolResult("b", "ok").content],
    };
    const repaired = repairToolPairs([prompt("go"), assistant, partial as never]);
    expect(repaired.interruptedToolUseIds).toEqual(["a"]);
    expect(repaired.messages[2].content).toEqual([
      { type: "tool_result", tool_use_id: "a", content: INTERRUPTED_TOOL_RESULT, isError: true },
      { type: "tool_result", tool_use_id: "b", content: "ok" },
      { type: "text", text: "note" },
    ]);
  });

  it("turns a tool result whose call is gone into text and drops empty assistant messages", () => {
    const messages: Message[] = [
      toolResult("gone", "42 files"),
      { role: "assistant", content: [] },
      reply("hi"),
    ];
    const repaired = repairDanglingToolUses(messages);
    expect(repaired).toHaveLength(2);
    expect(repaired[0].content).toEqual([{ type: "text", text: expect.stringContaining("42 files") }]);
    expect(repaired[1]).toBe(messages[2]);
  });

  it("puts results answered out of order back in the calls' order, and keeps a second result for one call as text", () => {
    const assistant: Message = {
      role: "assistant",
      content: [
        { type: "tool_use", id: "a", name: "Read", input: {} },
        { type: "tool_use", id: "b", name: "Read", input: {} },
      ],
    };
    const result = (id: string, text: string): ContentBlock => ({
      type: "tool_result",
      tool_use_id: id,
      content: text,
    });
    const swapped: Message = { role: "user", content: [result("b", "B"), result("a", "A")] };
    expect(repairToolPairs([prompt("go"), assistant, swapped]).messages[2].content).toEqual([
      { type: "tool_result", tool_use_id: "a", content: "A" },
      { type: "tool_result", tool_use_id: "b", content: "B" },
    ]);
    const doubled: Message = {
      role: "user",
      content: [result("a", "A"), result("b", "B"), result("b", "again")],
    };
    const repaired = repairToolPairs([prompt("go"), assistant, doubled]).messages[2];
    expect(repaired).not.toBe(doubled);
    expect(repaired.content).toEqual([
      { type: "tool_result", tool_use_id: "a", content: "A" },
      { type: "tool_result", tool_use_id: "b", content: "B" },
      { type: "text", text: expect.stringContaining("again") },
    ]);
  });

  it("returns well-formed histories unchanged, message for message", () => {
    const messages: Message[] = [prompt("go"), callTool("x"), toolResult("x", "done"), reply("ok")];
    const repaired = repairDanglingToolUses(messages);
    expect(repaired).toHaveLength(4);
    for (const [i, m] of repaired.entries()) expect(m).toBe(messages[i]);
  });
});
