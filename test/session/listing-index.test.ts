/**
 * Listing sessions from the index the store keeps as it writes, and from transcripts read with only
 * the lines that matter parsed: the listing must say exactly what parsing every entry says, whatever
 * wrote the file, and stay right after crashes of the transcript writer or of an index append.
 * Real files, and a real child process killed with SIGKILL.
 */
import { spawn } from "node:child_process";
import { appendFileSync, readFileSync, statSync, unlinkSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { parseEntryLine } from "../../src/session/jsonl-read.js";
import { createJsonlSessionStore, type JsonlSessionStore } from "../../src/session/jsonl-store.js";
import { INDEX_FILE, readIndex } from "../../src/session/listing-index.js";
import { makeEntry } from "../../src/session/recorder.js";
import { summarizeEntries } from "../../src/session/session-info.js";
import type { EntryPayload, SessionEntry, SessionInfo } from "../../src/session/types.js";
import {
  callTool,
  compileSessionModule,
  exchange,
  prompt,
  reply,
  startSession,
  tempDir,
  toolResult,
} from "./fixtures.js";

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
const fileOf = (id: string) => join(projectDir(), `${id}.jsonl`);
const usage = {
  input_tokens: 1,
  output_tokens: 1,
  cache_read_input_tokens: 0,
  cache_creation_input_tokens: 0,
};
const result = (cost: number): EntryPayload => ({
  type: "result",
  subtype: "success",
  num_turns: 1,
  total_cost_usd: cost,
  usage,
  duration_ms: 1,
});

/**
 * What parsing every whole line of the transcript says (lines that do not parse skipped, a last line
 * without its line break left out), with the listing's own lastModified.
 */
function truth(id: string, listed: SessionInfo): SessionInfo {
  const text = readFileSync(fileOf(id), "utf8");
  const entries = text
    .slice(0, text.lastIndexOf("\n") + 1)
    .split("\n")
    .map((line) => parseEntryLine(line))
    .filter((e): e is SessionEntry => typeof e !== "string");
  return summarizeEntries(id, entries, listed.lastModified);
}

/** A listing by a fresh store (nothing in memory), by session id. */
async function listFresh(): Promise<Map<string, SessionInfo>> {
  const fresh = createJsonlSessionStore({ home, onWarning: () => {} });
  return new Map((await fresh.list()).map((i) => [i.sessionId, i]));
}

/** Overwrites a transcript with same-size bytes under the same times: only a listing that opens it sees the change. */
function scramble(id: string): void {
  const path = fileOf(id);
  const { atime, mtime, size } = statSync(path);
  writeFileSync(path, `${"x".repeat(size - 1)}\n`);
  utimesSync(path, atime, mtime);
}

describe("the index the store keeps as it writes", () => {
  it("lists finished sessions without opening a transcript", async () => {
    for (const id of ["a", "b"]) {
      const recorder = await exchange(await startSession(store, id, "/w"), `first of ${id}`, "second");
      await recorder.record(result(0.5));
      await recorder.flush();
    }
    await store.close();
    scramble("a");
    scramble("b");
    const listed = await listFresh();
    expect(listed.get("a")).toMatchObject({ firstPrompt: "first of a", messageCount: 4, totalCostUsd: 0.5 });
    expect(listed.get("b")).toMatchObject({ firstPrompt: "first of b", messageCount: 4, totalCostUsd: 0.5 });
  });

  it("records a session after each run while it stays open, and a resumed session's runs", async () => {
    const recorder = await exchange(await startSession(store, "s", "/w"), "one");
    await recorder.record(result(0.25));
    await recorder.flush(); // the store stays open, as an idle session's does
    const atRunEnd = readIndex(projectDir()).records.get("s.jsonl");
    expect(atRunEnd).toMatchObject({ offset: statSync(fileOf("s")).size, info: { messageCount: 2 } });
    await store.close();

    // Another process resumes it: load, then append a run.
    const resumed = createJsonlSessionStore({ home, onWarning: () => {} });
    const entries = (await resumed.load("s"))!;
    let parent = entries.at(-1)!.uuid;
    const append = async (payload: EntryPayload) => {
      const entry = makeEntry(payload, "s", parent);
      parent = entry.uuid;
      await resumed.append("s", [entry]);
    };
    await append({ type: "user", message: prompt("two") });
    await append({ type: "assistant", message: reply("answer") });
    await append(result(0.5));
    scramble("s");
    expect((await listFresh()).get("s")).toMatchObject({
      firstPrompt: "one",
      messageCount: 4,
      totalCostUsd: 0.75,
    });
    await resumed.close();
  });

  it("reads on from the last record what was written after it (a run cut short)", async () => {
    const recorder = await exchange(await startSession(store, "s", "/w"), "one");
    await recorder.record(result(0.1));
    await exchange(recorder, "two", "three"); // a run in progress: no record yet
    await recorder.flush();
    const listed = (await listFresh()).get("s")!;
    expect(listed).toEqual(truth("s", listed));
    expect(listed.messageCount).toBe(6);
  });
});

describe("reading a transcript the index does not cover", () => {
  /** Writes raw lines as a transcript, as another writer or an older version might have. */
  function writeRaw(id: string, lines: string[]): void {
    writeFileSync(fileOf(id), lines.map((l) => `${l}\n`).join(""));
  }
  const entry = (payload: EntryPayload, id: string, parent: string | null = null): SessionEntry =>
    makeEntry(payload, id, parent);

  it("counts and prompts exactly as parsing everything does, whatever the lines look like", async () => {
    await (await startSession(store, "mixed", "/w")).flush(); // creates the folder and a header
    const header = readFileSync(fileOf("mixed"), "utf8").trim();
    const copy = entry({ type: "user", message: prompt("kept"), copy_of: "u-0" }, "mixed");
    const toolInputNamedCopyOf: SessionEntry = entry(
      {
        type: "assistant",
        message: {
          role: "assistant",
          content: [
            { type: "tool_use", id: "t1", name: "X", input: { copy_of: "not a copy", text: '"copy_of":"' } },
          ],
        },
      },
      "mixed",
    );
    const other = entry({ type: "assistant", message: reply("other writer") }, "mixed");
    const { uuid, sessionId, ...rest } = other;
    const otherOrder = JSON.stringify({ uuid, sessionId, ...rest }); // the envelope first
    const spaced = JSON.stringify(
      entry({ type: "user", message: prompt("spaced") }, "mixed"),
      null,
      1,
    ).replace(/\n/g, "");
    const foreignSession = JSON.stringify(entry({ type: "user", message: prompt("wrong id") }, "other"));
    writeRaw("mixed", [
      header,
      JSON.stringify(entry({ type: "user", message: toolResult("t0", "a result only") }, "mixed")), // no prompt yet
      JSON.stringify(entry({ type: "user", message: prompt("  the   first\nprompt ✓ ünïcödé  ") }, "mixed")),
      JSON.stringify(entry({ type: "assistant", message: callTool("t1") }, "mixed")),
      JSON.stringify(toolInputNamedCopyOf),
      JSON.stringify(entry({ type: "model_change", model: "openai/gpt-x" }, "mixed")),
      JSON.stringify(entry({ type: "custom", name: "note", data: { type: "user" } }, "mixed")),
      JSON.stringify(
        entry(
          {
            type: "compact_boundary",
            trigger: "auto",
            pre_tokens: 9,
            post_tokens: 1,
            summary: "s",
            kept_uuids: ["u-0"],
          },
          "mixed",
        ),
      ),
      JSON.stringify(copy),
      otherOrder,
      spaced,
      foreignSession,
      '{"type":"user","message":{"role":"user","content":"torn by a cra', // a crash, then the writer went on
      JSON.stringify(entry(result(0.3), "mixed")),
      JSON.stringify(entry(result(0.2), "mixed")),
    ]);
    const listed = (await listFresh()).get("mixed")!;
    expect(listed).toEqual(truth("mixed", listed));
    expect(listed).toMatchObject({
      firstPrompt: "the first prompt ✓ ünïcödé",
      messageCount: 7, // the copy and the torn line are not counted
      totalCostUsd: 0.5,
      model: "openai/gpt-x",
    });
  });

  it("reads a transcript the index lost once, then lists it from the record it wrote", async () => {
    const recorder = await exchange(await startSession(store, "s", "/w"), "one", "two");
    await recorder.record(result(1));
    await store.close();
    unlinkSync(join(projectDir(), INDEX_FILE));
    const listed = (await listFresh()).get("s")!;
    expect(listed).toEqual(truth("s", listed));
    scramble("s");
    const { lastModified: _, ...again } = (await listFresh()).get("s")!;
    expect(listed).toMatchObject(again);
  });
});

describe("the index after crashes", () => {
  it("a record torn by a crash mid-append is skipped, and the next append is not lost with it", async () => {
    const recorder = await exchange(await startSession(store, "a", "/w"), "one");
    await recorder.record(result(0.1));
    await recorder.flush();
    const index = join(projectDir(), INDEX_FILE);
    const good = readFileSync(index, "utf8").trim().split("\n").at(-1)!;
    appendFileSync(index, good.slice(0, good.length >> 1)); // the crash
    const b = await exchange(await startSession(store, "b", "/w"), "two");
    await b.record(result(0.2));
    await b.flush();
    await store.close();
    scramble("a");
    scramble("b");
    const listed = await listFresh();
    expect(listed.get("a")).toMatchObject({ firstPrompt: "one", totalCostUsd: 0.1 });
    expect(listed.get("b")).toMatchObject({ firstPrompt: "two", totalCostUsd: 0.2 });
  });

  it("a file rewritten shorter is read afresh, and its stale record leaves the index", async () => {
    const recorder = await exchange(await startSession(store, "s", "/w"), "one", "two", "three");
    await recorder.flush();
    await store.close();
    const lines = readFileSync(fileOf("s"), "utf8").split("\n");
    writeFileSync(fileOf("s"), `${lines.slice(0, 3).join("\n")}\n`);
    expect((await listFresh()).get("s")?.messageCount).toBe(2);
    expect(readIndex(projectDir()).records.get("s.jsonl")?.info.messageCount).toBe(2);
  });

  it("stays small while sessions keep growing between listings", async () => {
    const recorders = await Promise.all(["a", "b", "c"].map((id) => startSession(store, id, "/w")));
    for (let round = 0; round < 60; round++) {
      for (const r of recorders) {
        await exchange(r, `round ${round}`);
        await r.record(result(0.01));
      }
      await store.list();
    }
    const { lines } = readIndex(projectDir());
    expect(lines).toBeLessThanOrEqual(2 * 3 + 64 + 3);
    const listed = await listFresh();
    for (const id of ["a", "b", "c"]) expect(listed.get(id)).toEqual(truth(id, listed.get(id)!));
  });

  it("stays small in a process that runs many sessions and never lists", async () => {
    const long = `a first prompt long enough to fill its preview ${"x".repeat(200)}`;
    const recorders = await Promise.all(["a", "b"].map((id) => startSession(store, id, "/w")));
    for (const r of recorders) await exchange(r, long);
    for (let run = 0; run < 1500; run++) for (const r of recorders) await r.record(result(0.001));
    await Promise.all(recorders.map((r) => r.flush()));
    // 3,000 records of ~450 bytes were appended; the index was rewritten as it passed 1 MiB.
    expect(statSync(join(projectDir(), INDEX_FILE)).size).toBeLessThan(1024 * 1024);
    scramble("a");
    expect((await listFresh()).get("a")).toMatchObject({
      messageCount: 2,
      totalCostUsd: expect.closeTo(1.5, 6),
    });
  });

  it("lists exactly what a writer SIGKILLed at any point left on disk", async () => {
    const { dir, cleanup: done } = tempDir();
    try {
      compileSessionModule(dir);
      writeFileSync(
        join(dir, "child.mjs"),
        `
import { createJsonlSessionStore } from "./session/jsonl-store.js";
import { createSessionRecorder } from "./session/recorder.js";
const store = createJsonlSessionStore({ home: process.argv[2] });
const usage = { input_tokens: 1, output_tokens: 1, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 };
const recorders = [];
for (let s = 0; s < 4; s++) {
  const r = createSessionRecorder({ store, sessionId: "k-" + s });
  r.record({ type: "header", cwd: "/w", version: "t", createdAt: new Date().toISOString() });
  recorders.push(r);
}
const filler = "y".repeat(20000);
for (let i = 0; ; i++) {
  for (const r of recorders) {
    r.record({ type: "user", message: { role: "user", content: "prompt " + i + filler } });
    r.record({ type: "assistant", message: { role: "assistant", content: [{ type: "text", text: filler }] } });
    if (i % 3 === 2) r.record({ type: "result", subtype: "success", num_turns: 1, total_cost_usd: 0.01, usage, duration_ms: 1 });
    await r.flush();
  }
  if (i === 5) process.stdout.write("going\\n");
}
`,
      );
      const child = spawn(process.execPath, [join(dir, "child.mjs"), home], {
        stdio: ["ignore", "pipe", "inherit"],
      });
      await new Promise<void>((resolve, reject) => {
        child.on("error", reject);
        child.on("exit", () => resolve());
        child.stdout.once("data", () => setTimeout(() => child.kill("SIGKILL"), 20));
      });
      expect(child.signalCode).toBe("SIGKILL");
      const listed = await listFresh();
      expect([...listed.keys()].sort()).toEqual(["k-0", "k-1", "k-2", "k-3"]);
      for (const [id, info] of listed) expect(info).toEqual(truth(id, info));
      // A torn last line is left for later; once the writer goes on (a line break first), all is counted.
      for (const id of listed.keys()) {
        const text = readFileSync(fileOf(id), "utf8");
        if (!text.endsWith("\n")) writeFileSync(fileOf(id), `${text}\n`);
      }
      const again = await listFresh();
      for (const [id, info] of again) expect(info).toEqual(truth(id, info));
    } finally {
      done();
    }
  });
});
