import { existsSync } from "node:fs";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { forkSession } from "../../src/session/api.js";
import { forkEntries } from "../../src/session/fork.js";
import { createJsonlSessionStore, type JsonlSessionStore } from "../../src/session/jsonl-store.js";
import { createInMemorySessionStore } from "../../src/session/memory-store.js";
import type { SessionStore } from "../../src/session/types.js";
import { exchange, startSession, tempDir } from "./fixtures.js";
import { describeSessionHelpers } from "./store-contract.js";

let home: string;
let cleanup: () => void;
let jsonl: JsonlSessionStore;

beforeEach(() => {
  ({ dir: home, cleanup } = tempDir());
  jsonl = createJsonlSessionStore({ home });
});
afterEach(async () => {
  await jsonl.close();
  cleanup();
});

describeSessionHelpers("JSONL", () => jsonl as SessionStore);
describeSessionHelpers("in-memory", () => createInMemorySessionStore());

describe("fork on disk", () => {
  it("writes the fork to its own file in the same project folder", async () => {
    await exchange(await startSession(jsonl, "orig", "/w"), "a");
    const { sessionId } = await forkSession("orig", { store: jsonl });
    expect(sessionId).not.toBe("orig");
    const path = (await jsonl.pathOf(sessionId))!;
    expect(path).toContain("/projects/-w/");
    expect(existsSync(path)).toBe(true);
  });

  it("forks up to an earlier entry", async () => {
    const recorder = await exchange(await startSession(jsonl, "orig", "/w"), "a");
    const at = recorder.lastUuid!;
    await exchange(recorder, "b");
    const entries = forkEntries((await jsonl.load("orig"))!, "f2", { upTo: at });
    expect(entries.map((e) => e.type)).toEqual(["header", "user", "assistant"]);
    expect(entries[1].parentUuid).toBe(entries[0].uuid);
  });
});
