import fs from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { editTool } from "../../src/tools/edit.js";
import { readTool } from "../../src/tools/read.js";
import type { ToolContext } from "../../src/tools/types.js";
import { call, makeContext, makeTempDir, textOf } from "./file-tools-support.js";

let dir: string;
let cleanup: () => void;
let ctx: ToolContext;

beforeEach(() => {
  ({ dir, cleanup } = makeTempDir());
  ctx = makeContext(dir);
});
afterEach(() => cleanup());

/** Creates a file and Reads it in the test session, as the model would before editing. */
async function readFile(name: string, content: string | Buffer): Promise<string> {
  const p = path.join(dir, name);
  fs.writeFileSync(p, content);
  await call(readTool, { file_path: p }, ctx);
  return p;
}

function edit(p: string, old_string: string, new_string: string, replace_all?: boolean) {
  return call(editTool, { file_path: p, old_string, new_string, replace_all }, ctx);
}

describe("Edit: replacing", () => {
  it("replaces a unique string and shows numbered lines around the change", async () => {
    const p = await readFile("code.ts", "a\nb\nc\nd\ne\nf\ng\nh\ni\nj\n");
    const result = await edit(p, "e\n", "E1\nE2\n");
    expect(result.isError).toBeFalsy();
    expect(fs.readFileSync(p, "utf8")).toBe("a\nb\nc\nd\nE1\nE2\nf\ng\nh\ni\nj\n");
    const text = textOf(result);
    expect(text).toContain("has been updated");
    expect(text).toContain("     1\ta\n");
    expect(text).toContain("     5\tE1\n     6\tE2\n");
    expect(text).toContain("    10\ti");
    expect(text).not.toContain("\tj");
  });

  it("treats $ patterns in new_string literally", async () => {
    const p = await readFile("dollar.txt", "price: X\n");
    await edit(p, "X", "$& $1 $$");
    expect(fs.readFileSync(p, "utf8")).toBe("price: $& $1 $$\n");
  });

  it("refuses several matches without replace_all and gives the count", async () => {
    const p = await readFile("dup.txt", "foo\nbar foo\nfoo\n");
    const result = await edit(p, "foo", "baz");
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain("Found 3 matches");
    expect(textOf(result)).toContain("lines 1, 2, 3");
    expect(fs.readFileSync(p, "utf8")).toBe("foo\nbar foo\nfoo\n");
  });

  it("replaces every match with replace_all and says how many", async () => {
    const p = await readFile("dup.txt", "foo\nbar foo\nfoo\n");
    const result = await edit(p, "foo", "baz", true);
    expect(result.isError).toBeFalsy();
    expect(textOf(result)).toContain("All 3 occurrences");
    expect(fs.readFileSync(p, "utf8")).toBe("baz\nbar baz\nbaz\n");
  });

  it("reports zero matches, with a hint when only whitespace differs", async () => {
    const p = await readFile("ws.py", "def f():\n    return 1   \n");
    const plain = await edit(p, "nothing like it", "x");
    expect(plain.isError).toBe(true);
    expect(textOf(plain)).toContain("String to replace not found");
    const loose = await edit(p, "    return 1\n", "    return 2\n");
    expect(loose.isError).toBe(true);
    expect(textOf(loose)).toContain("whitespace");
  });

  it("points out line-number prefixes copied from Read output", async () => {
    const p = await readFile("n.txt", "hello\n");
    const result = await edit(p, "     1\thello", "bye");
    expect(textOf(result)).toContain("line-number prefix");
  });

  it("refuses old_string equal to new_string", async () => {
    const p = await readFile("same.txt", "x\n");
    const result = await edit(p, "x", "x");
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain("exactly the same");
  });

  it("edits twice in a row without a new Read: its own write updates the snapshot", async () => {
    const p = await readFile("twice.txt", "one two\n");
    expect((await edit(p, "one", "1")).isError).toBeFalsy();
    expect((await edit(p, "two", "2")).isError).toBeFalsy();
    expect(fs.readFileSync(p, "utf8")).toBe("1 2\n");
  });

  it("keeps the mode and leaves no temp file behind", async () => {
    const p = await readFile("run.sh", "echo a\n");
    fs.chmodSync(p, 0o700);
    await call(readTool, { file_path: p }, ctx);
    await edit(p, "a", "b");
    expect(fs.statSync(p).mode & 0o777).toBe(0o700);
    expect(fs.readdirSync(dir)).toEqual(["run.sh"]);
  });
});

describe("Edit: line endings and encodings", () => {
  it("keeps CRLF endings and the BOM when the model sends LF text", async () => {
    const p = await readFile("win.txt", "\ufeffone\r\ntwo\r\nthree\r\n");
    const result = await edit(p, "one\ntwo", "ONE\nTWO\nextra");
    expect(result.isError).toBeFalsy();
    expect(fs.readFileSync(p).equals(Buffer.from("\ufeffONE\r\nTWO\r\nextra\r\nthree\r\n"))).toBe(true);
    expect(textOf(result)).toContain("     1\tONE\n     2\tTWO\n     3\textra");
  });

  it("refuses an old_string that spans mixed line endings, explains, and leaves the file alone", async () => {
    const original = Buffer.from("a\r\nb\nc\r\n");
    const p = await readFile("mixed.txt", original);
    const result = await edit(p, "a\nb\nc", "x");
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain("mixes CRLF and LF");
    expect(fs.readFileSync(p).equals(original)).toBe(true);
  });

  it("refuses a file that is not valid UTF-8 rather than corrupt it", async () => {
    const original = Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x0a]);
    const p = await readFile("latin1.txt", original);
    const result = await edit(p, "caf", "CAF");
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain("not valid UTF-8");
    expect(fs.readFileSync(p).equals(original)).toBe(true);
  });
});

describe("Edit: read-before-edit and missing files", () => {
  it("refuses a file that was not read first", async () => {
    const p = path.join(dir, "unread.txt");
    fs.writeFileSync(p, "x\n");
    const result = await edit(p, "x", "y");
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain("Read it first");
    expect(fs.readFileSync(p, "utf8")).toBe("x\n");
  });

  it("refuses a file modified since the Read", async () => {
    const p = await readFile("moved.txt", "x\n");
    fs.writeFileSync(p, "x\nadded by a linter\n");
    const result = await edit(p, "x", "y");
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain("modified since read");
  });

  it("says a file deleted after the Read is gone, and does not recreate it", async () => {
    const p = await readFile("gone.txt", "x\n");
    fs.rmSync(p);
    const result = await edit(p, "x", "y");
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain("deleted after you read it");
    expect(fs.existsSync(p)).toBe(false);
  });

  it("creates a missing file when old_string is empty", async () => {
    const p = path.join(dir, "deep", "new.txt");
    const result = await edit(p, "", "hello\n");
    expect(result.isError).toBeFalsy();
    expect(result.details).toMatchObject({ created: true });
    expect(fs.readFileSync(p, "utf8")).toBe("hello\n");
  });

  it("refuses an empty old_string on an existing non-empty file", async () => {
    const p = await readFile("full.txt", "content\n");
    const result = await edit(p, "", "x");
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain("already exists");
    expect(fs.readFileSync(p, "utf8")).toBe("content\n");
  });

  it("reports a missing file with a similar-name suggestion", async () => {
    fs.writeFileSync(path.join(dir, "index.ts"), "");
    const result = await edit(path.join(dir, "index.js"), "a", "b");
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain(`Did you mean ${path.join(dir, "index.ts")}?`);
  });
});
