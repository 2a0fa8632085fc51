import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { runTool } from "../../src/tools/define-tool.js";
import { createGrepTool, grepTool } from "../../src/tools/grep.js";
import { findRipgrep } from "../../src/tools/ripgrep.js";
import { createToolSessionState, type ToolContext } from "../../src/tools/types.js";

const hasRg = findRipgrep() !== undefined;
const backends = [
  { name: "builtin" as const, skip: false },
  { name: "rg" as const, skip: !hasRg },
];

let dir: string;
const abs = (rel: string): string => path.join(dir, rel);

function ctx(signal = new AbortController().signal): ToolContext {
  return {
    signal,
    cwd: dir,
    sessionId: "s",
    toolUseId: "t",
    state: createToolSessionState(),
    onUpdate: () => {},
  };
}

/** Writes files with increasing mtimes in list order (the last one is newest). */
function write(files: Record<string, string | Buffer>): void {
  let t = Date.now() / 1000 - 1000;
  for (const [rel, content] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(abs(rel)), { recursive: true });
    fs.writeFileSync(abs(rel), content);
    fs.utimesSync(abs(rel), t, t);
    t += 10;
  }
}

beforeEach(() => {
  dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "goat-grep-")));
  write({
    ".gitignore": "ignored/\n*.log\n",
    "src/app.ts": "import x from 'y';\nfunction hello() {\n  return 'Hello World';\n}\nexport { hello };\n",
    "src/util.js": "const a = 1;\n// TODO: fix\nconst b = 2;\nconst c = 3;\nconst d = 4;\n// todo later\n",
    "docs/readme.md": "# Title\nhello there\n",
    "ignored/skip.ts": "hello from ignored\n",
    "debug.log": "hello log\n",
    "bin.dat": Buffer.from([104, 101, 108, 108, 111, 0, 1, 2]),
    ".hidden/h.ts": "function hidden() {}\n",
  });
});
afterEach(() => {
  fs.rmSync(dir, { recursive: true, force: true });
});

for (const backend of backends) {
  describe.skipIf(backend.skip)(`Grep (${backend.name} backend)`, () => {
    const tool = createGrepTool({ backend: backend.name });
    const grep = async (input: Record<string, unknown>) => {
      const r = await runTool(tool, input, ctx());
      return { text: String(r.content), isError: r.isError ?? false };
    };

    it("lists matching files newest first by default, skipping ignored, binary and .git files", async () => {
      fs.mkdirSync(abs(".git"));
      fs.writeFileSync(abs(".git/config"), "hello git\n");
      const { text } = await grep({ pattern: "hello" });
      expect(text).toBe(`Found 2 files\n${abs("docs/readme.md")}\n${abs("src/app.ts")}`);
    });

    it("searches case-insensitively with -i", async () => {
      const { text } = await grep({ pattern: "todo", "-i": true, output_mode: "content" });
      expect(text).toBe(`${abs("src/util.js")}:2:// TODO: fix\n${abs("src/util.js")}:6:// todo later`);
    });

    it("shows content with line numbers, or without when -n is false", async () => {
      expect((await grep({ pattern: "World", output_mode: "content" })).text).toBe(
        `${abs("src/app.ts")}:3:  return 'Hello World';`,
      );
      expect((await grep({ pattern: "World", output_mode: "content", "-n": false })).text).toBe(
        `${abs("src/app.ts")}:  return 'Hello World';`,
      );
    });

    it("shows context lines with -A/-B/-C, separating groups with --", async () => {
      const f = abs("src/util.js");
      expect((await grep({ pattern: "TODO", output_mode: "content", "-A": 1 })).text).toBe(
        `${f}:2:// TODO: fix\n${f}-3-const b = 2;`,
      );
      expect((await grep({ pattern: "TODO", output_mode: "content", "-B": 1 })).text).toBe(
        `${f}-1-const a = 1;\n${f}:2:// TODO: fix`,
      );
      expect((await grep({ pattern: "todo", "-i": true, output_mode: "content", "-C": 1 })).text).toBe(
        [
          `${f}-1-const a = 1;`,
          `${f}:2:// TODO: fix`,
          `${f}-3-const b = 2;`,
          "--",
          `${f}-5-const d = 4;`,
          `${f}:6:// todo later`,
        ].join("\n"),
      );
    });

    it("counts matching lines per file with a total", async () => {
      const { text } = await grep({ pattern: "const", output_mode: "count" });
      expect(text).toBe(`${abs("src/util.js")}:4\n\nFound 4 total occurrences across 1 file.`);
    });

    it("filters by glob (name at any depth, braces, negation) and by type", async () => {
      expect((await grep({ pattern: "hello", glob: "*.md" })).text).toBe(
        `Found 1 file\n${abs("docs/readme.md")}`,
      );
      expect((await grep({ pattern: "hello", glob: "*.{ts,js}" })).text).toBe(
        `Found 1 file\n${abs("src/app.ts")}`,
      );
      expect((await grep({ pattern: "hello", glob: "!docs/**" })).text).toBe(
        `Found 1 file\n${abs("src/app.ts")}`,
      );
      expect((await grep({ pattern: "function", type: "ts" })).text).toBe(
        `Found 2 files\n${abs(".hidden/h.ts")}\n${abs("src/app.ts")}`,
      );
      expect((await grep({ pattern: "hello", type: "md" })).text).toBe(
        `Found 1 file\n${abs("docs/readme.md")}`,
      );
    });

    it("paginates with head_limit and offset and says so", async () => {
      const lines = Array.from({ length: 300 }, (_, i) => `match ${i + 1}`).join("\n");
      write({ "many.txt": `${lines}\n` });
      const def = (
        await grep({ pattern: "match", output_mode: "content", path: abs("many.txt") })
      ).text.split("\n");
      expect(def).toHaveLength(252);
      expect(def[249]).toBe(`${abs("many.txt")}:250:match 250`);
      expect(def[251]).toBe("[Showing results with pagination = limit: 250]");
      const page = await grep({
        pattern: "match",
        output_mode: "content",
        path: abs("many.txt"),
        head_limit: 2,
        offset: 10,
      });
      expect(page.text).toBe(
        `${abs("many.txt")}:11:match 11\n${abs("many.txt")}:12:match 12\n\n[Showing results with pagination = limit: 2, offset: 10]`,
      );
      const all = (
        await grep({ pattern: "match", output_mode: "content", path: abs("many.txt"), head_limit: 0 })
      ).text;
      expect(all.split("\n")).toHaveLength(300);
      const files = await grep({ pattern: "hello|function", head_limit: 1, offset: 1 });
      expect(files.text).toBe(`Found 1 file limit: 1, offset: 1\n${abs("docs/readme.md")}`);
    });

    it("matches across lines only with multiline", async () => {
      const f = abs("src/app.ts");
      expect(
        (await grep({ pattern: "hello\\(\\).*return", multiline: true, output_mode: "content" })).text,
      ).toBe(`${f}:2:function hello() {\n${f}:3:  return 'Hello World';`);
      expect((await grep({ pattern: "hello\\(\\).*return", output_mode: "content" })).text).toBe(
        "No matches found",
      );
      const nl = await grep({ pattern: "\\{\\n  return" });
      expect(nl.isError).toBe(true);
      expect(nl.text).toContain("multiline: true");
    });

    it("reports no matches plainly in each mode", async () => {
      expect((await grep({ pattern: "zzz_nothing" })).text).toBe("No files found");
      expect((await grep({ pattern: "zzz_nothing", output_mode: "content" })).text).toBe("No matches found");
      expect((await grep({ pattern: "zzz_nothing", output_mode: "count" })).text).toBe(
        "No matches found\n\nFound 0 total occurrences across 0 files.",
      );
    });

    it("turns an invalid regex into a clear error", async () => {
      const r = await grep({ pattern: "foo(bar" });
      expect(r.isError).toBe(true);
      expect(r.text).toMatch(/^Invalid regular expression \/foo\(bar\//);
    });

    it("cuts very long lines in content mode", async () => {
      write({ "min.js": `${"x".repeat(3000)}needle\n` });
      const { text } = await grep({ pattern: "x+needle", output_mode: "content", path: abs("min.js") });
      expect(text).toBe(`${abs("min.js")}:1:${"x".repeat(500)} [... 2506 more characters]`);
    });

    it("searches a single file and a pattern starting with a dash", async () => {
      write({ "flags.txt": "-v verbose\nquiet\n" });
      expect((await grep({ pattern: "-v", path: abs("flags.txt"), output_mode: "content" })).text).toBe(
        `${abs("flags.txt")}:1:-v verbose`,
      );
    });

    it("terminates on a symlink loop", async () => {
      fs.symlinkSync(dir, abs("src/loop"));
      const { text } = await grep({ pattern: "Hello World", glob: "app.ts" });
      expect(text.split("\n")[1]).toBe(abs("src/app.ts"));
    });

    it("errors for a missing path or a relative one", async () => {
      expect((await grep({ pattern: "x", path: abs("nope") })).text).toContain("does not exist");
      expect((await grep({ pattern: "x", path: "src" })).text).toContain("absolute");
    });
  });
}

describe.skipIf(!hasRg)("Grep backends agree", () => {
  it("gives identical output from ripgrep and the built-in search", async () => {
    write({
      "deep/a/b/c.py": "def f():\n    pass\n\ndef g():\n    return f()\n",
      "deep/x.go": "package main\nfunc main() {}\n",
      "crlf.txt": "one\r\ntwo hello\r\nthree\r\n",
      "utf.txt": "héllo wörld\nnaïve\n",
      "nested/.gitignore": "secret.txt\n",
      "nested/secret.txt": "hello secret\n",
      "nested/public.txt": "hello public\n",
    });
    const queries: Array<Record<string, unknown>> = [
      { pattern: "hello" },
      { pattern: "hello", output_mode: "content" },
      { pattern: "hello", output_mode: "count" },
      { pattern: "HELLO", "-i": true, output_mode: "content", "-C": 2 },
      { pattern: "def \\w+", output_mode: "content", "-A": 1, type: "py" },
      { pattern: "f\\(\\)", output_mode: "content", "-B": 2 },
      { pattern: "func|package", type: "go", output_mode: "count" },
      { pattern: "w.rld|na.ve", output_mode: "content" },
      { pattern: "two.*\\n.*three", multiline: true, output_mode: "content" },
      { pattern: "pass.*?return", multiline: true, output_mode: "count" },
      { pattern: "const|hello", glob: "*.js,*.txt", output_mode: "content", head_limit: 3, offset: 1 },
      { pattern: "hello", glob: "!nested", output_mode: "files_with_matches" },
      { pattern: "^hello", output_mode: "content" },
      { pattern: "three$", output_mode: "content" },
    ];
    for (const q of queries) {
      const [a, b] = await Promise.all(
        (["rg", "builtin"] as const).map((name) => runTool(createGrepTool({ backend: name }), q, ctx())),
      );
      expect({ q, text: b.content }).toEqual({ q, text: a.content });
    }
  });
});

describe("grepTool", () => {
  it("is side-effect free and uses Claude Code's input names", () => {
    expect(grepTool.name).toBe("Grep");
    expect(grepTool.sideEffect).toBe("none");
    const props = Object.keys((grepTool.jsonSchema as { properties: object }).properties);
    for (const k of [
      "pattern",
      "path",
      "glob",
      "output_mode",
      "-A",
      "-B",
      "-C",
      "-n",
      "-i",
      "type",
      "head_limit",
      "offset",
      "multiline",
    ]) {
      expect(props).toContain(k);
    }
  });

  it("stops the search when aborted", async () => {
    const ac = new AbortController();
    ac.abort(new Error("user stop"));
    const r = await runTool(createGrepTool({ backend: "builtin" }), { pattern: "hello" }, ctx(ac.signal));
    expect(r.isError).toBe(true);
    expect(String(r.content)).toContain("interrupted");
  });
});

// A FIFO or a device given as the path would block the search for ever (no writer ever comes, or
// /dev/zero never ends): Grep answers at once with an error, as Read does, on both backends.
describe("Grep on a path that is not a regular file or a folder", () => {
  for (const backend of backends) {
    it.skipIf(backend.skip || process.platform === "win32")(
      `answers with an error at once (${backend.name} backend)`,
      async () => {
        const tool = createGrepTool({ backend: backend.name });
        const fifo = abs("pipe");
        execFileSync("mkfifo", [fifo]);
        for (const target of [fifo, "/dev/zero"]) {
          const r = await runTool(tool, { pattern: "x", path: target }, ctx(AbortSignal.timeout(5_000)));
          expect(r.isError).toBe(true);
          expect(String(r.content)).toContain("is not a regular file or a directory");
        }
      },
      10_000,
    );
  }
});
