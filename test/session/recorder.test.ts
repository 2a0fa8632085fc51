import { execFileSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { createInMemorySessionStore } from "../../src/session/memory-store.js";
import { createSessionRecorder, isoTimestampNow, makeEntry } from "../../src/session/recorder.js";
import type { SessionEntry, SessionStore } from "../../src/session/types.js";
import { compileSessionModule, tempDir } from "./fixtures.js";

const sessionId = "0b0c5a8e-2f8e-4f2c-9d53-6a1f3f1f7e01";
const header = {
  type: "header",
  cwd: "/work",
  model: "m",
  version: "0",
  createdAt: "2026-01-01T00:00:00Z",
} as const;
const userText = (text: string) => ({ type: "user", message: { role: "user", content: text } }) as const;

const cleanups: Array<() => void> = [];
afterEach(() => {
  vi.useRealTimers();
  for (const c of cleanups.splice(0)) c();
});

/** A store that keeps what it was given, in the order it got it. */
function keepingStore(): SessionStore & { got: SessionEntry[] } {
  const got: SessionEntry[] = [];
  return {
    got,
    append: async (_id, entries) => {
      got.push(...entries);
    },
    load: async () => got,
    list: async () => [],
    delete: async () => {},
  };
}

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

  it("add() writes on the next turn of the event loop; record() and flush() write at once, after what add() left waiting", async () => {
    const store = keepingStore();
    const recorder = createSessionRecorder({ store, sessionId });
    recorder.add(header);
    recorder.add(userText("one"));
    expect(store.got).toHaveLength(0); // the request of the turn goes out first
    await new Promise((resolve) => setImmediate(resolve));
    expect(store.got.map((e) => e.type)).toEqual(["header", "user"]);

    recorder.add(userText("two"));
    const barrier = recorder.record(userText("three"));
    // record() does not wait for the next turn, and takes the waiting entry with it, in order.
    expect(store.got.map((e) => (e.type === "user" ? e.message.content : e.type))).toEqual([
      "header",
      "one",
      "two",
      "three",
    ]);
    await barrier;
    recorder.add(userText("four"));
    const flushed = recorder.flush();
    expect(store.got).toHaveLength(5);
    await flushed;
  });

  it("entries add() left waiting are written when the process exits before the next turn", () => {
    const { dir, cleanup } = tempDir();
    cleanups.push(cleanup);
    compileSessionModule(dir);
    const home = join(dir, "home");
    writeFileSync(
      join(dir, "child.mjs"),
      `import { createJsonlSessionStore } from "./session/jsonl-store.js";
import { createSessionRecorder } from "./session/recorder.js";
const store = createJsonlSessionStore({ home: process.argv[2] });
const recorder = createSessionRecorder({ store, sessionId: "exits" });
await recorder.record({ type: "header", cwd: "/w", version: "t", createdAt: new Date().toISOString() });
recorder.add({ type: "user", message: { role: "user", content: "last words" } });
recorder.add({ type: "user", message: { role: "user", content: "really last" } });
process.exit(0);
`,
    );
    execFileSync(process.execPath, [join(dir, "child.mjs"), home]);
    const path = execFileSync("find", [home, "-name", "exits.jsonl"], { encoding: "utf8" }).trim();
    const lines = readFileSync(path, "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(lines.map((l) => l.message?.content ?? l.type)).toEqual(["header", "last words", "really last"]);
    expect(lines[2].parentUuid).toBe(lines[1].uuid);
  });

  it("isoTimestampNow is new Date().toISOString() at every millisecond and across a second", () => {
    vi.useFakeTimers();
    for (const at of [
      "2026-02-03T04:05:06.000Z",
      "2026-02-03T04:05:06.007Z",
      "2026-02-03T04:05:06.042Z",
      "2026-02-03T04:05:06.999Z",
      "2026-02-03T04:05:07.000Z",
      "2026-12-31T23:59:59.999Z",
      "2027-01-01T00:00:00.001Z",
    ]) {
      vi.setSystemTime(new Date(at));
      expect(isoTimestampNow()).toBe(at);
    }
  });

  it("makeEntry keeps the payload's fields first and adds uuid, parent, timestamp and session id after them", () => {
    const entry = makeEntry(userText("hi"), sessionId, "parent-1", new Date("2026-02-03T04:05:06Z"));
    expect(Object.keys(entry)).toEqual(["type", "message", "uuid", "parentUuid", "timestamp", "sessionId"]);
    expect(entry).toMatchObject({ parentUuid: "parent-1", timestamp: "2026-02-03T04:05:06.000Z", sessionId });
    const head: SessionEntry = makeEntry(header, sessionId, "ignored");
    expect(head.parentUuid).toBeNull();
  });
});
