import fs from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { readTool } from "../../src/tools/read.js";
import type { ToolContext } from "../../src/tools/types.js";
import { writeTool } from "../../src/tools/write.js";
import { call, isRoot, makeContext, makeTempDir, textOf } from "./file-tools-support.js";

let dir: string;
let cleanup: () => void;
let ctx: ToolContext;

beforeEach(() => {
  ({ dir, cleanup } = makeTempDir());
  ctx = makeContext(dir);
});
afterEach(() => cleanup());

/** Moves a file's mtime so a change is visible even on file systems with coarse timestamps. */
function bumpMtime(p: string): void {
  const later = new Date(fs.statSync(p).mtimeMs + 5000);
  fs.utimesSync(p, later, later);
}

describe("Write", () => {
  it("creates a new file and its parent directories without a prior Read", async () => {
    const p = path.join(dir, "a", "b", "new.txt");
    const result = await call(writeTool, { file_path: p, content: "one\ntwo\n" }, ctx);
    expect(result.isError).toBeFalsy();
    expect(fs.readFileSync(p, "utf8")).toBe("one\ntwo\n");
    expect(textOf(result)).toContain("File created successfully");
    expect(textOf(result)).toContain("2 lines");
    expect(result.details).toMatchObject({ type: "create", lines: 2 });
  });

  it("writes empty content as an empty file", async () => {
    const p = path.join(dir, "empty.txt");
    expect((await call(writeTool, { file_path: p, content: "" }, ctx)).isError).toBeFalsy();
    expect(fs.readFileSync(p, "utf8")).toBe("");
  });

  it("rejects a relative path and shows the absolute form", async () => {
    const result = await call(writeTool, { file_path: "x.txt", content: "x" }, ctx);
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain(path.join(dir, "x.txt"));
    expect(fs.existsSync(path.join(dir, "x.txt"))).toBe(false);
  });

  it("refuses to overwrite a file that was not read in this session", async () => {
    const p = path.join(dir, "existing.txt");
    fs.writeFileSync(p, "original");
    const result = await call(writeTool, { file_path: p, content: "clobbered" }, ctx);
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain("Read it first");
    expect(fs.readFileSync(p, "utf8")).toBe("original");
  });

  it("overwrites a file after Read and says it was updated", async () => {
    const p = path.join(dir, "existing.txt");
    fs.writeFileSync(p, "original");
    await call(readTool, { file_path: p }, ctx);
    const result = await call(writeTool, { file_path: p, content: "replaced\n" }, ctx);
    expect(result.isError).toBeFalsy();
    expect(textOf(result)).toContain("has been updated");
    expect(fs.readFileSync(p, "utf8")).toBe("replaced\n");
  });

  it("refuses when the file changed on disk since the Read", async () => {
    const p = path.join(dir, "changing.txt");
    fs.writeFileSync(p, "v1");
    await call(readTool, { file_path: p }, ctx);
    fs.writeFileSync(p, "v2 by someone else");
    bumpMtime(p);
    const result = await call(writeTool, { file_path: p, content: "mine" }, ctx);
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain("modified since read");
    expect(fs.readFileSync(p, "utf8")).toBe("v2 by someone else");
  });

  it("may write twice in a row: its own write updates the snapshot", async () => {
    const p = path.join(dir, "twice.txt");
    await call(writeTool, { file_path: p, content: "first" }, ctx);
    const second = await call(writeTool, { file_path: p, content: "second" }, ctx);
    expect(second.isError).toBeFalsy();
    expect(fs.readFileSync(p, "utf8")).toBe("second");
  });

  it("keeps read state per session: another session's Read does not count", async () => {
    const p = path.join(dir, "shared.txt");
    fs.writeFileSync(p, "x");
    await call(readTool, { file_path: p }, makeContext(dir));
    expect((await call(writeTool, { file_path: p, content: "y" }, ctx)).isError).toBe(true);
  });

  it("keeps the file's mode and leaves no temp file behind", async () => {
    const p = path.join(dir, "script.sh");
    fs.writeFileSync(p, "#!/bin/sh\n");
    fs.chmodSync(p, 0o751);
    await call(readTool, { file_path: p }, ctx);
    await call(writeTool, { file_path: p, content: "#!/bin/sh\necho hi\n" }, ctx);
    expect(fs.statSync(p).mode & 0o777).toBe(0o751);
    expect(fs.readdirSync(dir)).toEqual(["script.sh"]);
  });

  it("writes through a symlink to its target and keeps the link", async () => {
    const target = path.join(dir, "target.txt");
    const link = path.join(dir, "link.txt");
    fs.writeFileSync(target, "old");
    fs.symlinkSync(target, link);
    await call(readTool, { file_path: link }, ctx);
    expect((await call(writeTool, { file_path: link, content: "new" }, ctx)).isError).toBeFalsy();
    expect(fs.lstatSync(link).isSymbolicLink()).toBe(true);
    expect(fs.readFileSync(target, "utf8")).toBe("new");
  });

  it("refuses to write over a directory", async () => {
    const result = await call(writeTool, { file_path: dir, content: "x" }, ctx);
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain("is a directory");
  });

  it.skipIf(isRoot)("reports a directory it may not write to, leaving nothing behind", async () => {
    const locked = path.join(dir, "locked");
    fs.mkdirSync(locked, { mode: 0o555 });
    const result = await call(writeTool, { file_path: path.join(locked, "f.txt"), content: "x" }, ctx);
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain("permission denied");
    expect(fs.readdirSync(locked)).toEqual([]);
  });

  it("leaves the target untouched and no temp file when aborted", async () => {
    const p = path.join(dir, "aborted.txt");
    const controller = new AbortController();
    controller.abort();
    const result = await call(writeTool, { file_path: p, content: "x" }, makeContext(dir, controller.signal));
    expect(result.isError).toBe(true);
    expect(fs.readdirSync(dir)).toEqual([]);
  });

  it("uses the resolved real path as its resource key", () => {
    const sub = path.join(dir, "sub");
    fs.mkdirSync(sub);
    fs.symlinkSync(sub, path.join(dir, "alias"));
    expect(
      writeTool.resourceKey?.(
        { file_path: path.join(dir, "alias", "..", "alias", "f.txt"), content: "" },
        { cwd: dir },
      ),
    ).toBe(path.join(sub, "f.txt"));
  });
});
