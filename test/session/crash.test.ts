import { spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, expect, it } from "vitest";
import { createJsonlSessionStore } from "../../src/session/jsonl-store.js";
import { makeEntry } from "../../src/session/recorder.js";
import type { SessionWarning } from "../../src/session/types.js";
import { compileSessionModule, prompt, tempDir } from "./fixtures.js";

const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

const CHILD = `
import { createJsonlSessionStore } from "./session/jsonl-store.js";
import { createSessionRecorder } from "./session/recorder.js";
const store = createJsonlSessionStore({ home: process.argv[2] });
const recorder = createSessionRecorder({ store, sessionId: "crash" });
await recorder.record({ type: "header", cwd: "/w", version: "t", createdAt: new Date().toISOString() });
const big = "x".repeat(256 * 1024);
for (let i = 0; ; i++) {
  await recorder.record({ type: "user", message: { role: "user", content: i + ":" + big } });
  process.stdout.write(i + "\\n");
}
`;

it("loses no acknowledged entry when the writer is SIGKILLed mid-append, and resumes appending", async () => {
  const { dir, cleanup } = tempDir();
  cleanups.push(cleanup);
  compileSessionModule(dir);
  writeFileSync(join(dir, "child.mjs"), CHILD);
  const home = join(dir, "home");
  const child = spawn(process.execPath, [join(dir, "child.mjs"), home], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  let acknowledged = -1;
  await new Promise<void>((resolve, reject) => {
    child.on("error", reject);
    child.on("exit", () => resolve());
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      for (const n of chunk.split("\n").filter(Boolean)) acknowledged = Math.max(acknowledged, Number(n));
      if (acknowledged >= 30) child.kill("SIGKILL");
    });
  });
  expect(child.signalCode).toBe("SIGKILL");

  const warnings: SessionWarning[] = [];
  const store = createJsonlSessionStore({ home, onWarning: (w) => warnings.push(w) });
  const entries = (await store.load("crash"))!;
  // Every entry the child saw written is there, in order, each chained to the one before.
  expect(entries.length).toBeGreaterThanOrEqual(acknowledged + 2);
  entries.slice(1).forEach((e, i) => {
    expect(e.parentUuid).toBe(entries[i].uuid);
    expect(
      e.type === "user" && typeof e.message.content === "string" && e.message.content.startsWith(`${i}:`),
    ).toBe(true);
  });
  expect(warnings.length).toBeLessThanOrEqual(1);
  expect(warnings.every((w) => /torn last line/.test(w.message))).toBe(true);

  const next = makeEntry({ type: "user", message: prompt("resumed") }, "crash", entries.at(-1)!.uuid);
  await store.append("crash", [next]);
  const reloaded = (await store.load("crash"))!;
  expect(reloaded.at(-1)).toEqual(next);
  expect(reloaded).toHaveLength(entries.length + 1);
  await store.close();
});
