import { appendFileSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { textOf } from "../../src/llm/types.js";
import { createJsonlSessionStore, type JsonlSessionStore } from "../../src/session/jsonl-store.js";
import { makeEntry } from "../../src/session/recorder.js";
import { buildResumeState } from "../../src/session/resume.js";
import type { SessionWarning } from "../../src/session/types.js";
import { exchange, prompt, startSession, tempDir } from "./fixtures.js";

let home: string;
let cleanup: () => void;
let warnings: SessionWarning[];
let store: JsonlSessionStore;

beforeEach(() => {
  ({ dir: home, cleanup } = tempDir());
  warnings = [];
  store = createJsonlSessionStore({ home, onWarning: (w) => warnings.push(w) });
});
afterEach(async () => {
  await store.close();
  cleanup();
});

describe("JSONL session store", () => {
  it("writes one file per session under projects/<cwd with non-alphanumerics as dashes>", async () => {
    await startSession(store, "s-1", "/tmp/my proj.v2/work");
    const path = join(home, "projects", "-tmp-my-proj-v2-work", "s-1.jsonl");
    expect(existsSync(path)).toBe(true);
    expect(await store.pathOf("s-1")).toBe(path);
  });

  it("round-trips appended entries, one JSON object per line", async () => {
    const recorder = await exchange(await startSession(store, "s-1", "/w"), "hello", "again");
    await recorder.flush();
    const lines = readFileSync((await store.pathOf("s-1"))!, "utf8").split("\n");
    expect(lines.at(-1)).toBe("");
    expect(lines.slice(0, -1).map((l) => JSON.parse(l).type)).toEqual([
      "header",
      "user",
      "assistant",
      "user",
      "assistant",
    ]);
    const loaded = await store.load("s-1");
    expect(loaded).toHaveLength(5);
    expect(loaded![0]).toMatchObject({ type: "header", cwd: "/w", parentUuid: null, version: "0.1.0" });
    for (let i = 1; i < loaded!.length; i++) expect(loaded![i].parentUuid).toBe(loaded![i - 1].uuid);
    expect(warnings).toEqual([]);
  });

  it("finds a session by id alone from a fresh store (no cwd needed)", async () => {
    await exchange(await startSession(store, "s-1", "/some/where"), "hi");
    const fresh = createJsonlSessionStore({ home });
    const loaded = await fresh.load("s-1");
    expect(loaded?.map((e) => e.type)).toEqual(["header", "user", "assistant"]);
    expect(await fresh.load("missing")).toBeUndefined();
  });

  it("appends to an existing session from a fresh store without a new header", async () => {
    const first = await exchange(await startSession(store, "s-1", "/w"), "one");
    await store.close();
    const fresh = createJsonlSessionStore({ home });
    const entry = makeEntry({ type: "user", message: prompt("two") }, "s-1", first.lastUuid);
    await fresh.append("s-1", [entry]);
    expect((await fresh.load("s-1"))?.map((e) => e.uuid).at(-1)).toBe(entry.uuid);
    await fresh.close();
  });

  it("refuses a first append without a header, and unsafe session ids", async () => {
    const entry = makeEntry({ type: "user", message: prompt("x") }, "nohead", null);
    await expect(store.append("nohead", [entry])).rejects.toThrow(/must start with a header/);
    await expect(store.append("../escape", [])).rejects.toThrow(/Invalid session id/);
    await expect(store.load("../../etc/passwd")).rejects.toThrow(/Invalid session id/);
  });

  it("skips a torn last line with a warning, and later appends start on a fresh line", async () => {
    const recorder = await exchange(await startSession(store, "s-1", "/w"), "before crash");
    await store.close();
    const path = (await store.pathOf("s-1"))!;
    // What a process killed mid-write leaves: half a line, no newline.
    appendFileSync(path, '{"uuid":"torn","parentUuid":"x","type":"assistant","message":{"role":"assis');
    const fresh = createJsonlSessionStore({ home, onWarning: (w) => warnings.push(w) });
    expect((await fresh.load("s-1"))!.map((e) => e.type)).toEqual(["header", "user", "assistant"]);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatchObject({ sessionId: "s-1", path, line: 4 });
    expect(warnings[0].message).toMatch(/torn last line/);

    const after = makeEntry({ type: "user", message: prompt("after crash") }, "s-1", recorder.lastUuid);
    await fresh.append("s-1", [after]);
    warnings.length = 0;
    const loaded = (await fresh.load("s-1"))!;
    expect(loaded.at(-1)?.uuid).toBe(after.uuid);
    expect(loaded).toHaveLength(4);
    expect(warnings.map((w) => w.line)).toEqual([4]); // the torn line, now mid-file, still skipped
    expect(buildResumeState(loaded).messages.map(textOf)).toEqual([
      "before crash",
      "answer to before crash",
      "after crash",
    ]);
    await fresh.close();
  });

  it("skips an unreadable line in the middle with a warning and keeps the rest", async () => {
    await exchange(await startSession(store, "s-1", "/w"), "a", "b");
    await store.close();
    const path = (await store.pathOf("s-1"))!;
    const lines = readFileSync(path, "utf8").split("\n");
    lines[2] = lines[2].slice(0, 20);
    writeFileSync(path, lines.join("\n"));
    const loaded = (await store.load("s-1"))!;
    expect(loaded.map((e) => e.type)).toEqual(["header", "user", "user", "assistant"]);
    expect(warnings).toEqual([
      expect.objectContaining({ line: 3, message: expect.stringMatching(/unreadable/) }),
    ]);
  });

  it("keeps call order for appends fired concurrently on one session", async () => {
    const recorder = await startSession(store, "s-1", "/w");
    const entries = Array.from({ length: 300 }, (_, i) =>
      makeEntry({ type: "custom", name: "n", data: i }, "s-1", recorder.lastUuid),
    );
    await Promise.all(entries.map((e) => store.append("s-1", [e])));
    const loaded = (await store.load("s-1"))!;
    expect(loaded.slice(1).map((e) => (e.type === "custom" ? e.data : -1))).toEqual(entries.map((_, i) => i));
  });

  it("never mixes two sessions appended at the same time", async () => {
    const a = await startSession(store, "a", "/w");
    const b = await startSession(store, "b", "/w");
    const writes: Promise<unknown>[] = [];
    for (let i = 0; i < 100; i++) {
      writes.push(a.record({ type: "user", message: prompt(`a${i}`) }));
      writes.push(b.record({ type: "user", message: prompt(`b${i}`) }));
    }
    await Promise.all(writes);
    for (const id of ["a", "b"]) {
      const loaded = (await store.load(id))!;
      expect(loaded.every((e) => e.sessionId === id)).toBe(true);
      const texts = loaded.flatMap((e) => (e.type === "user" ? [textOf(e.message)] : []));
      expect(texts).toEqual(Array.from({ length: 100 }, (_, i) => `${id}${i}`));
    }
    await expect(store.append("a", [(await store.load("b"))![1]])).rejects.toThrow(/belongs to session b/);
  });

  it("deletes a session's file", async () => {
    await exchange(await startSession(store, "s-1", "/w"), "x");
    const path = (await store.pathOf("s-1"))!;
    await store.delete("s-1");
    expect(existsSync(path)).toBe(false);
    expect(await store.load("s-1")).toBeUndefined();
    await store.delete("s-1");
  });

  it("lists only sessions whose header cwd matches, even when project keys collide", async () => {
    await exchange(await startSession(store, "one", "/a/b"), "in a/b");
    await exchange(await startSession(store, "two", "/a-b"), "in a-b");
    expect((await store.list({ cwd: "/a/b" })).map((s) => s.sessionId)).toEqual(["one"]);
    expect((await store.list()).map((s) => s.sessionId).sort()).toEqual(["one", "two"]);
  });
});
