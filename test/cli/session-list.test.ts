/**
 * The session listing of `goat sessions` and the resume picker reads each transcript's head and tail,
 * never a whole large file: a result written in the middle of a big transcript is not counted, and
 * the line says its figures are lower bounds. A small transcript is read whole and its figures are exact.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { describeSession, summarizeSessions } from "../../src/cli/sessions/session-list.js";
import { projectKey } from "../../src/session/index.js";

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const CWD = "/work/some-project";
const line = (entry: object) => `${JSON.stringify(entry)}\n`;
const result = (cost: number) =>
  line({ type: "result", subtype: "success", num_turns: 1, total_cost_usd: cost, duration_ms: 1 });
/** About 1 KB that the listing has no use for. */
const filler = line({ type: "custom", name: "note", data: "x".repeat(1000) });

function writeTranscript(home: string, sessionId: string, body: string): void {
  const dir = join(home, "projects", projectKey(CWD));
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, `${sessionId}.jsonl`),
    line({ type: "header", cwd: CWD, version: "0.1.0", createdAt: "2026-01-01T00:00:00Z" }) + body,
  );
}

describe("summarizeSessions", () => {
  it("reads a large transcript's head and tail only: a result in the middle is not counted, and says so", async () => {
    const home = mkdtempSync(join(tmpdir(), "goat-list-"));
    dirs.push(home);
    const prompt = line({ type: "user", message: { role: "user", content: "first question" } });
    // 100 KB before and after the middle result: beyond the 64 KB read from each end.
    const body = prompt + result(0.01) + filler.repeat(100) + result(1) + filler.repeat(100) + result(0.02);
    writeTranscript(home, "big-session", body);

    const [summary] = await summarizeSessions(CWD, { GOAT_HOME: home });
    expect(summary).toMatchObject({
      sessionId: "big-session",
      firstPrompt: "first question",
      turns: 2,
      complete: false,
    });
    expect(summary.costUsd).toBeCloseTo(0.03, 6);
    expect(describeSession(summary)).toMatch(/ 2\+ turns +\$0\.0300\+ .* first question$/);
  });

  it("reads a small transcript whole: exact turns and cost", async () => {
    const home = mkdtempSync(join(tmpdir(), "goat-list-"));
    dirs.push(home);
    const prompt = line({ type: "user", message: { role: "user", content: "small one" } });
    writeTranscript(home, "small-session", prompt + result(0.01) + filler.repeat(10) + result(0.02));

    const [summary] = await summarizeSessions(CWD, { GOAT_HOME: home });
    expect(summary).toMatchObject({ firstPrompt: "small one", turns: 2, complete: true });
    expect(describeSession(summary)).toMatch(/ 2 turns +\$0\.0300 .* small one$/);
  });
});
