/**
 * The PostgreSQL session store against a real throwaway cluster: the session helpers' contract (the
 * same tests the JSONL and in-memory stores pass), the same transcript content as the JSONL store
 * for one conversation recorded into both, and idempotent appends (what durable replays rely on).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPostgresSessionStore, type PostgresSessionStore } from "../../src/dbos/postgres-store.js";
import { replaySafeStore } from "../../src/dbos/replay-store.js";
import type { ContentBlock } from "../../src/llm/types.js";
import { getSessionMessages, listSessions, loadResumeState } from "../../src/session/api.js";
import { createJsonlSessionStore } from "../../src/session/jsonl-store.js";
import { buildResumeState, transcriptMessages } from "../../src/session/resume.js";
import type { SessionEntry, SessionStore } from "../../src/session/types.js";
import { callTool, exchange, prompt, startSession, tempDir } from "../session/fixtures.js";
import { describeSessionHelpers } from "../session/store-contract.js";
import { findPostgres } from "../support/postgres.js";
import { sharedPostgres } from "../support/shared-postgres.js";

const found = findPostgres();
const missing = "missing" in found ? found.missing : undefined;
if (missing) describe("PostgreSQL session store", () => it.skip(missing, () => {}));

describe.skipIf(missing !== undefined)("PostgreSQL session store", () => {
  /** This file's database on the shared cluster. */
  let databaseUrl: string;
  const stores: PostgresSessionStore[] = [];
  let schemas = 0;
  /** A store in a schema of its own, so tests never see each other's sessions. */
  const freshStore = () => {
    const store = createPostgresSessionStore({ connectionString: databaseUrl, schema: `t${++schemas}` });
    stores.push(store);
    return store;
  };

  beforeAll(async () => {
    databaseUrl = await (await sharedPostgres()).createDatabase("store");
  }, 90_000);
  afterAll(async () => {
    for (const store of stores) await store.close();
  });

  describeSessionHelpers("PostgreSQL", () => freshStore());

  /** A store that writes every append into both stores. */
  const tee = (a: SessionStore, b: SessionStore): SessionStore => ({
    append: async (id, entries) => {
      await a.append(id, entries);
      await b.append(id, entries);
    },
    load: (id, options) => a.load(id, options),
    list: (options) => a.list(options),
    delete: (id) => a.delete(id),
  });

  it("holds the same transcript as the JSONL store, whole and from the last compaction", async () => {
    const pgStore = freshStore();
    const { dir, cleanup } = tempDir();
    const jsonl = createJsonlSessionStore({ home: dir });
    try {
      const both = tee(pgStore, jsonl);
      const recorder = await exchange(await startSession(both, "same", "/w"), "q1", "q2 with \u0000 a NUL");
      const early = recorder.lastUuid!;
      const all = (await jsonl.load("same"))!;
      const kept = all.filter((e) => e.type === "user" || e.type === "assistant").slice(-2);
      await recorder.record({
        type: "compact_boundary",
        trigger: "auto",
        pre_tokens: 10,
        post_tokens: 2,
        summary: "so far",
        kept_uuids: kept.map((e) => e.uuid),
      });
      for (const e of kept as Array<Extract<SessionEntry, { type: "user" | "assistant" }>>) {
        await recorder.record({ type: e.type, message: e.message, copy_of: e.uuid } as never);
      }
      await recorder.record({ type: "model_change", model: "openai/other" });
      await recorder.record({ type: "user", message: prompt("run it") });
      await recorder.record({ type: "assistant", message: callTool("call_9") });

      expect(await pgStore.load("same")).toEqual(await jsonl.load("same"));
      const tailPg = await pgStore.load("same", { fromLastBoundary: true });
      expect(tailPg).toEqual(await jsonl.load("same", { fromLastBoundary: true }));
      expect(tailPg!.map((e) => e.type)).toEqual([
        "header",
        "compact_boundary",
        "user",
        "assistant",
        "model_change",
        "user",
        "assistant",
      ]);
      expect(buildResumeState(tailPg!)).toEqual(buildResumeState((await jsonl.load("same"))!));
      expect((await loadResumeState("same", { store: pgStore })).interruptedToolUseIds).toEqual(["call_9"]);
      expect(transcriptMessages((await pgStore.load("same"))!)).toEqual(
        transcriptMessages((await jsonl.load("same"))!),
      );
      expect((await loadResumeState("same", { store: pgStore, resumeAt: early })).messages).toEqual(
        (await loadResumeState("same", { store: jsonl, resumeAt: early })).messages,
      );
      const [pgInfo] = await listSessions({ store: pgStore });
      const [fileInfo] = await listSessions({ store: jsonl });
      expect({ ...pgInfo, lastModified: 0 }).toEqual({ ...fileInfo, lastModified: 0 });
      expect(pgInfo).toMatchObject({ messageCount: 6, model: "openai/other", firstPrompt: "q1" });
    } finally {
      await jsonl.close();
      cleanup();
    }
  });

  it("reads a durable transcript written with the old is_error spelling as isError", async () => {
    const store = freshStore();
    // What Goat wrote before the neutral model settled on isError: the flag in Anthropic's spelling.
    const recorder = await exchange(await startSession(store, "old", "/w"), "q1");
    await recorder.record({ type: "assistant", message: callTool("call_1") });
    const oldResult = { type: "tool_result", tool_use_id: "call_1", content: "boom", is_error: true };
    await recorder.record({ type: "user", message: { role: "user", content: [oldResult as ContentBlock] } });
    const stored = (await store.load("old"))!.at(-1) as Extract<SessionEntry, { type: "user" }>;
    expect(stored.message.content).toEqual([oldResult]);

    const expected = { type: "tool_result", tool_use_id: "call_1", content: "boom", isError: true };
    const resumed = await loadResumeState("old", { store });
    expect(resumed.messages.at(-1)).toEqual({ role: "user", content: [expected] });
    expect((await getSessionMessages("old", { store })).at(-1)).toEqual({
      role: "user",
      content: [expected],
    });
  });

  it("skips entries it already has, counting them once, and refuses a session without a header", async () => {
    const store = freshStore();
    const recorder = await exchange(await startSession(store, "twice", "/w"), "a");
    const entries = (await store.load("twice"))!;
    await store.append("twice", entries);
    await store.append("twice", entries.slice(1));
    expect(await store.load("twice")).toEqual(entries);
    expect((await store.list())[0]).toMatchObject({ sessionId: "twice", messageCount: 2, firstPrompt: "a" });
    const mark = await store.highWater("twice");
    await exchange(recorder, "b");
    expect(await store.load("twice", { upTo: mark })).toEqual(entries);
    expect((await store.load("twice"))!.length).toBe(entries.length + 2);

    const orphan = { ...entries[1], sessionId: "orphan" };
    await expect(store.append("orphan", [orphan])).rejects.toThrow(/first append must start with a header/);
    expect(await store.load("orphan")).toBeUndefined();
    await store.delete("twice");
    expect(await store.load("twice")).toBeUndefined();
    expect(await store.list()).toEqual([]);
  });

  it("stores a replayed execution's appends once, its subagent transcripts included", async () => {
    const store = freshStore();
    /** One execution of workflow wf-1: a session and one subagent transcript, with fresh random ids. */
    const execution = async () => {
      const view = replaySafeStore(store, "wf-1");
      const recorder = await exchange(await startSession(view, "replayed", "/w"), "q1", "q2");
      const child = await startSession(view, `replayed.agent-${crypto.randomUUID()}`, "/w");
      await exchange(child, "sub");
      await exchange(recorder, "q3");
    };
    await execution();
    const once = (await store.load("replayed"))!;
    const sessions = (await store.list()).map((i) => i.sessionId).sort();
    await execution();
    expect(await store.load("replayed")).toEqual(once);
    expect((await store.list()).map((i) => i.sessionId).sort()).toEqual(sessions);
    expect(sessions).toHaveLength(2);
    expect(once.map((e) => e.type)).toEqual([
      "header",
      "user",
      "assistant",
      "user",
      "assistant",
      "user",
      "assistant",
    ]);
    // Parents point at the stored (renamed) uuids.
    for (let i = 1; i < once.length; i++) expect(once[i].parentUuid).toBe(once[i - 1].uuid);
    expect((await store.list()).find((i) => i.sessionId === "replayed")?.messageCount).toBe(6);
  });
});
