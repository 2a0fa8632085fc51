import { describe, expect, it } from "vitest";
import { createInMemorySessionStore } from "../../src/session/memory-store.js";
import { createSessionRecorder, makeEntry } from "../../src/session/recorder.js";
import type { SessionEntry, SessionStore } from "../../src/session/types.js";

const sessionId = "0b0c5a8e-2f8e-4f2c-9d53-6a1f3f1f7e01";
const header = {
  type: "header",
  cwd: "/work",
  model: "m",
  version: "0",
  createdAt: "2026-01-01T00:00:00Z",
} as const;
const userText = (text: string) => ({ type: "user", message: { role: "user", content: text } }) as const;

describe("the session recorder", () => {
  it("add() gives each entry its uuid and parent at once, and the store receives them in order", async () => {
    const store = createInMemorySessionStore();
    const recorder = createSessionRecorder({ store, sessionId });
    const first = recorder.add(header);
    const second = recorder.add(userText("hello"));
    const third = recorder.add(userText("again"));
    expect(first.parentUuid).toBeNull();
    expect(second.parentUuid).toBe(first.uuid);
    expect(third.parentUuid).toBe(second.uuid);
    expect(recorder.lastUuid).toBe(third.uuid);
    await recorder.flush();
    const stored = (await store.load(sessionId)) ?? [];
    expect(stored.map((e) => e.uuid)).toEqual([first.uuid, second.uuid, third.uuid]);
  });

  it("add() never throws for a failed write: flush() rejects with the store's error", async () => {
    const failure = new Error("disk full");
    const store: SessionStore = {
      append: async () => {
        throw failure;
      },
      load: async () => undefined,
      list: async () => [],
      delete: async () => {},
    };
    const recorder = createSessionRecorder({ store, sessionId });
    expect(() => recorder.add(header)).not.toThrow();
    await expect(recorder.flush()).rejects.toBe(failure);
  });

  it("makeEntry keeps the payload's fields first and adds uuid, parent, timestamp and session id after them", () => {
    const entry = makeEntry(userText("hi"), sessionId, "parent-1", new Date("2026-02-03T04:05:06Z"));
    expect(Object.keys(entry)).toEqual(["type", "message", "uuid", "parentUuid", "timestamp", "sessionId"]);
    expect(entry).toMatchObject({ parentUuid: "parent-1", timestamp: "2026-02-03T04:05:06.000Z", sessionId });
    const head: SessionEntry = makeEntry(header, sessionId, "ignored");
    expect(head.parentUuid).toBeNull();
  });
});
