import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { runTool } from "../../src/tools/define-tool.js";
import { globSearch, globTool } from "../../src/tools/glob.js";
import { createToolSessionState, type ToolContext } from "../../src/tools/types.js";

let dir: string;

function ctx(cwd = dir, signal = new AbortController().signal): ToolContext {
  return { signal, cwd, sessionId: "s", toolUseId: "t", state: createToolSessionState(), onUpdate: () => {} };
}

/** Writes files (relative path → content) under the temp dir, with increasing mtimes in list order. */
function write(files: Record<string, string>, baseTime = Date.now() / 1000 - 1000): void {
  let t = baseTime;
  for (const [rel, content] of Object.entries(files)) {
    const abs = path.join(dir, rel);
    fs.mkdirSync(path.dirname(abs), { recursive: true });
    fs.writeFileSync(abs, content);
    fs.utimesSync(abs, t, t);
    t += 10;
  }
}

async function glob(input: Record<string, unknown>, cwd = dir): Promise<{ text: string; isError: boolean }> {
  const r = await runTool(globTool, input, ctx(cwd));
  return { text: String(r.content), isError: r.isError ?? false };
}

const abs = (rel: string): string => path.join(dir, rel);

beforeEach(() => {
  dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "goat-glob-")));
});
afterEach(() => {
  fs.rmSync(dir, { recursive: true, force: true });
});

describe("Glob", () => {
  it("matches ** patterns at any depth and returns absolute paths, newest first", async () => {
    write({ "a.ts": "", "src/b.ts": "", "src/deep/c.ts": "", "src/d.js": "" });
    const { text } = await glob({ pattern: "**/*.ts" });
    expect(text.split("\n")).toEqual([abs("src/deep/c.ts"), abs("src/b.ts"), abs("a.ts")]);
  });

  it("treats a pattern without ** as anchored to the search directory", async () => {
    write({ "a.ts": "", "src/b.ts": "" });
    expect((await glob({ pattern: "*.ts" })).text).toBe(abs("a.ts"));
    expect((await glob({ pattern: "src/*.ts" })).text).toBe(abs("src/b.ts"));
  });

  it("sorts by modification time even when names sort the other way", async () => {
    write({ "z.md": "", "a.md": "" });
    const old = Date.now() / 1000 - 5000;
    fs.utimesSync(abs("a.md"), old, old);
    expect((await glob({ pattern: "*.md" })).text.split("\n")).toEqual([abs("z.md"), abs("a.md")]);
  });

  it("searches the given absolute path and rejects a relative one", async () => {
    write({ "sub/x.txt": "", "y.txt": "" });
    expect((await glob({ pattern: "*.txt", path: abs("sub") })).text).toBe(abs("sub/x.txt"));
    const rel = await glob({ pattern: "*.txt", path: "sub" });
    expect(rel.isError).toBe(true);
    expect(rel.text).toMatch(/absolute/);
  });

  it("says clearly when the directory does not exist or is a file", async () => {
    write({ "f.txt": "" });
    const missing = await glob({ pattern: "*", path: abs("nope") });
    expect(missing.isError).toBe(true);
    expect(missing.text).toContain("Directory does not exist");
    const file = await glob({ pattern: "*", path: abs("f.txt") });
    expect(file.isError).toBe(true);
    expect(file.text).toContain("not a directory");
  });

  it("says No files found when nothing matches", async () => {
    write({ "a.ts": "" });
    expect(await glob({ pattern: "**/*.py" })).toEqual({ text: "No files found", isError: false });
  });

  it("caps at 100 newest files and says how many matched in total", async () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < 130; i++) files[`f${String(i).padStart(3, "0")}.txt`] = "";
    write(files);
    const lines = (await glob({ pattern: "*.txt" })).text.split("\n");
    expect(lines).toHaveLength(101);
    expect(lines[0]).toBe(abs("f129.txt"));
    expect(lines[99]).toBe(abs("f030.txt"));
    expect(lines[100]).toMatch(/truncated.*100.*of 130/);
  });

  it("respects root and nested .gitignore files, skips .git, includes hidden files", async () => {
    write({
      ".gitignore": "*.log\nbuild/\n",
      "keep.ts": "",
      "debug.log": "",
      "build/out.ts": "",
      "pkg/.gitignore": "generated.ts\n!important.log\n",
      "pkg/generated.ts": "",
      "pkg/ok.ts": "",
      "pkg/important.log": "",
      ".git/HEAD": "",
      ".config/tool.ts": "",
    });
    const found = (await glob({ pattern: "**/*" })).text.split("\n").sort();
    expect(found).toEqual(
      [".config/tool.ts", ".gitignore", "keep.ts", "pkg/.gitignore", "pkg/important.log", "pkg/ok.ts"]
        .map(abs)
        .sort(),
    );
  });

  it("honours the repository's .gitignore when searching a subdirectory", async () => {
    write({ ".gitignore": "*.gen.ts\n", "src/a.ts": "", "src/a.gen.ts": "" });
    fs.mkdirSync(abs(".git"));
    expect((await glob({ pattern: "**/*.ts", path: abs("src") })).text).toBe(abs("src/a.ts"));
  });

  it("terminates on symlink loops and does not follow links, even to outside the directory", async () => {
    write({ "a/file.txt": "", "outside-target/x.txt": "" });
    fs.symlinkSync(dir, abs("a/loop-to-root"));
    fs.symlinkSync(abs("a"), abs("a/loop-to-parent"));
    const outside = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "goat-glob-out-")));
    try {
      fs.writeFileSync(path.join(outside, "o.txt"), "");
      fs.symlinkSync(outside, abs("linked"));
      fs.symlinkSync(abs("linked"), path.join(outside, "back"));
      const found = (await glob({ pattern: "**/*.txt" })).text.split("\n").sort();
      expect(found).toEqual([abs("a/file.txt"), abs("outside-target/x.txt")].sort());
    } finally {
      fs.rmSync(outside, { recursive: true, force: true });
    }
  });

  it.skipIf(process.getuid?.() === 0)("skips unreadable directories", async () => {
    write({ "ok/a.txt": "", "locked/b.txt": "" });
    fs.chmodSync(abs("locked"), 0o000);
    try {
      expect((await glob({ pattern: "**/*.txt" })).text).toBe(abs("ok/a.txt"));
    } finally {
      fs.chmodSync(abs("locked"), 0o755);
    }
  });

  it("accepts an absolute pattern and brace patterns", async () => {
    write({ "src/a.ts": "", "src/b.tsx": "", "src/c.js": "" });
    const found = (await glob({ pattern: `${abs("src")}/**/*.{ts,tsx}` })).text.split("\n").sort();
    expect(found).toEqual([abs("src/a.ts"), abs("src/b.tsx")]);
  });

  it("stops when aborted", async () => {
    write({ "a.txt": "" });
    const ac = new AbortController();
    ac.abort(new Error("stop"));
    await expect(globSearch("**/*", dir, { signal: ac.signal })).rejects.toThrow("stop");
  });

  it("is declared side-effect free with Claude Code's input names", () => {
    expect(globTool.name).toBe("Glob");
    expect(globTool.sideEffect).toBe("none");
    expect(Object.keys((globTool.jsonSchema as { properties: object }).properties)).toEqual([
      "pattern",
      "path",
    ]);
  });
});
