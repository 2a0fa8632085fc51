/**
 * The status column of `goat serve`'s session list, from transcripts on disk: the last run's result,
 * an interruption, and a transcript with no result (running while it is being written, interrupted
 * once it has been silent for long).
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { sessionStatus } from "../../src/cli/serve/session-status.js";

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "goat-serve-status-"));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const header = { type: "header", cwd: "/", createdAt: "2026-01-01T00:00:00Z" };
const user = (content: unknown) => ({ type: "user", message: { role: "user", content } });
const assistant = {
  type: "assistant",
  message: { role: "assistant", content: [{ type: "text", text: "hi" }] },
};
const result = (subtype: string) => ({ type: "result", subtype, num_turns: 1 });

function transcript(name: string, entries: object[], tornTail = ""): string {
  const file = path.join(dir, `${name}.jsonl`);
  fs.writeFileSync(file, entries.map((e) => `${JSON.stringify(e)}\n`).join("") + tornTail);
  return file;
}

describe("sessionStatus", () => {
  const now = Date.parse("2026-06-01T12:00:00Z");
  const fresh = now - 1000;
  const old = now - 3_600_000;

  it("is the last run's result: success or error, whatever came before", async () => {
    const ok = transcript("ok", [
      header,
      user("a"),
      assistant,
      result("error_max_turns"),
      user("b"),
      assistant,
      result("success"),
    ]);
    const failed = transcript("failed", [
      header,
      user("a"),
      assistant,
      result("success"),
      user("b"),
      result("error_during_execution"),
    ]);
    expect(await sessionStatus(ok, old, now)).toBe("success");
    expect(await sessionStatus(failed, old, now)).toBe("error");
  });

  it("is interrupted when the user interrupted the last run", async () => {
    const file = transcript("interrupted", [
      header,
      user("a"),
      assistant,
      user([
        {
          type: "tool_result",
          tool_use_id: "x",
          content: "[Request interrupted by user for tool use]",
          is_error: true,
        },
      ]),
      result("error_during_execution"),
    ]);
    expect(await sessionStatus(file, old, now)).toBe("interrupted");
  });

  it("without a result after the last message: running while fresh, interrupted once silent", async () => {
    const file = transcript(
      "open",
      [header, user("a"), assistant, result("success"), user("b"), assistant],
      '{"type":"assis',
    );
    expect(await sessionStatus(file, fresh, now)).toBe("running");
    expect(await sessionStatus(file, old, now)).toBe("interrupted");
  });

  it("reads only the end of a long transcript", async () => {
    const long = Array.from({ length: 2000 }, () => ({ ...assistant, pad: "x".repeat(100) }));
    const file = transcript("long", [header, user("a"), ...long, result("success")]);
    expect(fs.statSync(file).size).toBeGreaterThan(64 * 1024);
    expect(await sessionStatus(file, old, now)).toBe("success");
  });
});
