/** The output collector behind Bash: inline limit, head and tail, spill file, decoding across chunks. */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { createOutputCollector, describeSpill, limitText } from "../../src/tools/command-output.js";
import { isGroupAlive, killProcessGroup, resolveShell, spawnShell } from "../../src/tools/process-tree.js";

const dirs: string[] = [];
function tempDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "goat-collector-test-"));
  dirs.push(dir);
  return dir;
}
afterEach(() => {
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

describe("output collector", () => {
  it("keeps output under the limit whole and never creates a file", () => {
    const dir = tempDir();
    const collector = createOutputCollector(() => path.join(dir, "out.log"), 100);
    collector.push(Buffer.from("short output\n"));
    expect(collector.finish()).toMatchObject({ text: "short output\n", truncated: false, totalBytes: 13 });
    expect(fs.existsSync(path.join(dir, "out.log"))).toBe(false);
  });

  it("decodes a multi-byte character split across chunks", () => {
    const collector = createOutputCollector(() => "/unused", 100);
    const bytes = Buffer.from("héllo €", "utf8");
    for (const byte of bytes) collector.push(Buffer.from([byte]));
    expect(collector.finish().text).toBe("héllo €");
  });

  it("past the limit keeps head and tail inline and writes every byte to the file", () => {
    const dir = tempDir();
    const file = path.join(dir, "nested", "out.log");
    const collector = createOutputCollector(() => file, 100);
    const lines = Array.from({ length: 500 }, (_, i) => `line ${i}\n`);
    for (const line of lines) collector.push(Buffer.from(line));
    const out = collector.finish();
    expect(out.truncated).toBe(true);
    expect(out.text.startsWith("line 0\nline 1\n")).toBe(true);
    expect(out.text.endsWith("line 499\n")).toBe(true);
    expect(out.text).toMatch(/\.\.\. \[[\d,]+ characters truncated\] \.\.\./);
    expect(fs.readFileSync(file, "utf8")).toBe(lines.join(""));
    expect(describeSpill(out)).toContain(file);
  });

  it("never splits a surrogate pair at the head or tail cut", () => {
    const out = limitText("😀".repeat(200), () => path.join(tempDir(), "e.log"), 102);
    expect(out.text).not.toMatch(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/);
  });

  it("still truncates, and says why, when the spill file cannot be written", () => {
    const dir = tempDir();
    fs.writeFileSync(path.join(dir, "a-file"), "");
    const out = limitText("x".repeat(1000), () => path.join(dir, "a-file", "out.log"), 100);
    expect(out.truncated).toBe(true);
    expect(out.text.length).toBeLessThan(200);
    expect(out.outputFile).toBeUndefined();
    expect(describeSpill(out)).toMatch(/could not be saved to a file: .*(ENOTDIR|EEXIST)/);
  });
});

describe("process tree", () => {
  it("finds bash on this machine", () => {
    expect(path.basename(resolveShell())).toBe("bash");
  });

  it("killProcessGroup returns at once for a group that is already gone", async () => {
    const child = spawnShell("exit 0", os.tmpdir());
    await new Promise((resolve) => child.on("close", resolve));
    // With setTimeout frozen, a call that waited on any timer (the grace period, a poll for the
    // group's exit) could not finish before the next turn of the event loop; no clock is read.
    vi.useFakeTimers({ toFake: ["setTimeout"] });
    try {
      const outcome = await Promise.race([
        killProcessGroup(child.pid!).then(() => "returned"),
        new Promise((resolve) => setImmediate(() => resolve("still waiting"))),
      ]);
      expect(outcome).toBe("returned");
    } finally {
      vi.useRealTimers();
    }
    expect(isGroupAlive(child.pid!)).toBe(false);
  });
});
