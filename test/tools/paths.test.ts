import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { isAbsoluteToolPath, relativePathError, resolveToolPath } from "../../src/tools/paths.js";
import { makeTempDir } from "./file-tools-support.js";

let dir: string;
let cleanup: () => void;

beforeEach(() => {
  ({ dir, cleanup } = makeTempDir());
});
afterEach(() => cleanup());

describe("resolveToolPath", () => {
  it("expands ~ to the home directory", () => {
    expect(resolveToolPath("~", "/")).toBe(fs.realpathSync(os.homedir()));
    expect(isAbsoluteToolPath("~/x")).toBe(true);
  });

  it("resolves .. and relative paths against cwd", () => {
    fs.mkdirSync(path.join(dir, "a"));
    expect(resolveToolPath("a/../b.txt", dir)).toBe(path.join(dir, "b.txt"));
  });

  it("follows a symlinked directory for a file that does not exist yet", () => {
    const outside = path.join(dir, "outside");
    fs.mkdirSync(outside);
    fs.symlinkSync(outside, path.join(dir, "inside"));
    expect(resolveToolPath(path.join(dir, "inside", "new", "f.txt"), "/")).toBe(
      path.join(outside, "new", "f.txt"),
    );
  });

  it("follows a dangling symlink to where a write would land", () => {
    fs.symlinkSync(path.join(dir, "elsewhere", "target.txt"), path.join(dir, "link.txt"));
    expect(resolveToolPath(path.join(dir, "link.txt"), "/")).toBe(path.join(dir, "elsewhere", "target.txt"));
  });

  it("returns a path (not a hang or a throw) for a symlink loop", () => {
    fs.symlinkSync(path.join(dir, "b"), path.join(dir, "a"));
    fs.symlinkSync(path.join(dir, "a"), path.join(dir, "b"));
    expect(resolveToolPath(path.join(dir, "a"), "/")).toEqual(expect.any(String));
  });
});

describe("relativePathError", () => {
  it("accepts absolute paths and names the absolute form of a relative one", () => {
    expect(relativePathError("/etc/hosts", dir)).toBeUndefined();
    expect(relativePathError("src/x.ts", dir)).toContain(path.join(dir, "src", "x.ts"));
  });
});
