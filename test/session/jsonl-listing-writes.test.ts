/**
 * The JSONL store's listing index (each byte read at most once across listings) and its writer (a
 * process-wide cap on open files, fsync on request), tested on real files.
 */
import { readdirSync, readFileSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createJsonlSessionStore, type JsonlSessionStore } from "../../src/session/jsonl-store.js";
import { MAX_OPEN_FILES } from "../../src/session/jsonl-writer.js";
import { INDEX_FILE, readIndex } from "../../src/session/listing-index.js";
import { makeEntry } from "../../src/session/recorder.js";
import { exchange, startSession, tempDir } from "./fixtures.js";

let home: string;
let cleanup: () => void;
let store: JsonlSessionStore;

beforeEach(() => {
  ({ dir: home, cleanup } = tempDir());
  store = createJsonlSessionStore({ home, onWarning: () => {} });
});
afterEach(async () => {
  await store.close();
  cleanup();
});

const projectDir = () => join(home, "projects", "-w");
const recordOf = (name: string) => readIndex(projectDir()).records.get(name);
const openFds = () => readdirSync("/proc/self/fd").length;

describe("listing index", () => {
  it("keeps counts exact as sessions grow, reading only what was appended since the last listing", async () => {
    const recorder = await exchange(await startSession(store, "s-1", "/w"), "first");
    await recorder.flush();
    expect((await store.list())[0]).toMatchObject({ messageCount: 2, firstPrompt: "first" });
    const offsetBefore = recordOf("s-1.jsonl")?.offset ?? 0;

    await exchange(recorder, "second", "third");
    await recorder.record({
      type: "result",
      subtype: "success",
      num_turns: 3,
      total_cost_usd: 0.25,
      usage: {
        input_tokens: 1,
        output_tokens: 1,
        cache_read_input_tokens: 0,
        cache_creation_input_tokens: 0,
      },
      duration_ms: 5,
    });
    await recorder.flush();
    const [info] = await store.list({ cwd: "/w" });
    expect(info).toMatchObject({ messageCount: 6, firstPrompt: "first", totalCostUsd: 0.25 });
    const cached = recordOf("s-1.jsonl")!;
    expect(cached.offset).toBe(statSync(join(projectDir(), "s-1.jsonl")).size);
    expect(cached.offset).toBeGreaterThan(offsetBefore);
  });

  it("does not open a file whose size and time match its record", async () => {
    await (await exchange(await startSession(store, "s-1", "/w"), "real prompt")).flush();
    await store.list();
    // Same size, same mtime, different bytes: a listing that read the file would see "XXXX".
    const path = join(projectDir(), "s-1.jsonl");
    const { atime, mtime } = statSync(path);
    const text = readFileSync(path, "utf8");
    writeFileSync(path, text.replace("real prompt", "XXXX prompt"));
    utimesSync(path, atime, mtime);
    expect((await store.list())[0].firstPrompt).toBe("real prompt");
  });

  it("reads a file afresh when it shrank, and ignores a corrupt index", async () => {
    await (await exchange(await startSession(store, "s-1", "/w"), "one", "two")).flush();
    await store.list();
    const path = join(projectDir(), "s-1.jsonl");
    const lines = readFileSync(path, "utf8").split("\n");
    writeFileSync(path, `${lines.slice(0, 3).join("\n")}\n`); // header + first exchange
    expect((await store.list())[0].messageCount).toBe(2);

    writeFileSync(join(projectDir(), INDEX_FILE), "{not json");
    expect((await store.list())[0].messageCount).toBe(2);
    expect(recordOf("s-1.jsonl")?.info.messageCount).toBe(2);
  });

  it("leaves a line still being written for the next listing instead of counting it twice", async () => {
    await (await exchange(await startSession(store, "s-1", "/w"), "one")).flush();
    const path = join(projectDir(), "s-1.jsonl");
    const entry = makeEntry({ type: "user", message: { role: "user", content: "late" } }, "s-1", null);
    const line = `${JSON.stringify(entry)}\n`;
    writeFileSync(path, readFileSync(path, "utf8") + line.slice(0, 20));
    expect((await store.list())[0].messageCount).toBe(2);
    writeFileSync(path, readFileSync(path, "utf8") + line.slice(20));
    expect((await store.list())[0].messageCount).toBe(3);
    expect((await store.list())[0].messageCount).toBe(3);
  });

  it("forgets deleted sessions", async () => {
    await (await exchange(await startSession(store, "a", "/w"), "x")).flush();
    await (await exchange(await startSession(store, "b", "/w"), "y")).flush();
    await store.list();
    await store.delete("a");
    expect((await store.list()).map((s) => s.sessionId)).toEqual(["b"]);
  });
});

describe("session file writes", () => {
  it(`keeps at most ${MAX_OPEN_FILES} files open while more sessions write, losing nothing`, async () => {
    const sessions = MAX_OPEN_FILES + 50;
    const fdsBefore = openFds();
    const recorders = await Promise.all(
      Array.from({ length: sessions }, (_, i) => startSession(store, `s-${i}`, "/w")),
    );
    for (let round = 0; round < 3; round++) {
      await Promise.all(recorders.map((r, i) => exchange(r, `round ${round} of ${i}`)));
    }
    expect(openFds() - fdsBefore).toBeLessThanOrEqual(MAX_OPEN_FILES);
    const infos = await store.list();
    expect(infos).toHaveLength(sessions);
    for (const info of infos) expect(info.messageCount).toBe(6);
    await store.close();
    expect(openFds()).toBeLessThanOrEqual(fdsBefore);
  });

  it("with fsync on, appends still round-trip whole", async () => {
    const durable = createJsonlSessionStore({ home, fsync: true });
    const recorder = await exchange(await startSession(durable, "d-1", "/w"), "keep me");
    await recorder.flush();
    expect(readFileSync(join(projectDir(), "d-1.jsonl"), "utf8")).toContain("keep me");
    expect((await durable.load("d-1"))?.map((e) => e.type)).toEqual(["header", "user", "assistant"]);
    await durable.close();
  });
});
