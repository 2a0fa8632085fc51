/**
 * What every `SessionStore` must do for the session helpers (list, transcript, fork), written once
 * and run against each store: JSONL and in-memory here, PostgreSQL in test/dbos.
 */
import { describe, expect, it } from "vitest";
import { textOf } from "../../src/llm/types.js";
import {
  forkSession,
  getSessionMessages,
  listSessions,
  loadResumeState,
  mostRecentSession,
} from "../../src/session/api.js";
import type { SessionStore } from "../../src/session/types.js";
import { exchange, startSession } from "./fixtures.js";

const usage = {
  input_tokens: 1,
  output_tokens: 1,
  cache_read_input_tokens: 0,
  cache_creation_input_tokens: 0,
};

/** Declares the helper tests for one store; `makeStore` is called in each test (after its setup). */
export function describeSessionHelpers(name: string, makeStore: () => SessionStore): void {
  describe(`session helpers on the ${name} store`, () => {
    it("lists sessions newest first with first prompt, message count and cost", async () => {
      const store = makeStore();
      const old = await exchange(await startSession(store, "old", "/w"), "first question", "second");
      await old.record({
        type: "result",
        subtype: "success",
        num_turns: 2,
        total_cost_usd: 0.125,
        usage,
        duration_ms: 1,
      });
      await new Promise((r) => setTimeout(r, 20)); // distinct mtimes on coarse file systems
      await exchange(await startSession(store, "new", "/w"), "newest question");
      await exchange(await startSession(store, "elsewhere", "/other"), "x");

      const sessions = await listSessions({ store, cwd: "/w" });
      expect(sessions.map((s) => s.sessionId)).toEqual(["new", "old"]);
      expect(sessions[1]).toMatchObject({
        cwd: "/w",
        firstPrompt: "first question",
        messageCount: 4,
        totalCostUsd: 0.125,
        model: "anthropic/claude-test",
      });
      expect(sessions[0].lastModified).toBeGreaterThan(sessions[1].lastModified);
      expect((await mostRecentSession("/w", store))?.sessionId).toBe("new");
      expect(await mostRecentSession("/nowhere", store)).toBeUndefined();
      expect(await listSessions({ store })).toHaveLength(3);
    });

    it("lists no subagent transcript as a session, and does not continue one", async () => {
      const store = makeStore();
      await exchange(await startSession(store, "parent", "/w"), "use a subagent");
      await new Promise((r) => setTimeout(r, 20)); // the subagent's transcript is the newest write
      await exchange(await startSession(store, "parent.agent-1234", "/w"), "the subagent's task");
      expect((await listSessions({ store, cwd: "/w" })).map((s) => s.sessionId)).toEqual(["parent"]);
      expect((await mostRecentSession("/w", store))?.sessionId).toBe("parent");
    });

    it("returns the transcript and throws for an unknown session", async () => {
      const store = makeStore();
      await exchange(await startSession(store, "s", "/w"), "a", "b");
      expect((await getSessionMessages("s", { store })).map(textOf)).toEqual([
        "a",
        "answer to a",
        "b",
        "answer to b",
      ]);
      await expect(getSessionMessages("nope", { store })).rejects.toThrow(/No session nope/);
    });

    it("forks into a new session with the same messages and new uuids, leaving the original alone", async () => {
      const store = makeStore();
      await exchange(await startSession(store, "orig", "/w"), "a", "b");
      const before = (await store.load("orig"))!;
      const fork = await forkSession("orig", { store, newSessionId: "forked" });
      expect(fork.sessionId).toBe("forked");
      expect((await getSessionMessages("forked", { store })).map(textOf)).toEqual(
        (await getSessionMessages("orig", { store })).map(textOf),
      );
      const copied = (await store.load("forked"))!;
      expect(copied[0]).toMatchObject({ type: "header", cwd: "/w", forkedFrom: { sessionId: "orig" } });
      const originalIds = new Set(before.map((e) => e.uuid));
      expect(copied.every((e) => !originalIds.has(e.uuid) && e.sessionId === "forked")).toBe(true);
      expect(await store.load("orig")).toEqual(before);
      expect((await loadResumeState("forked", { store })).messages).toHaveLength(4);
    });
  });
}
