/**
 * Search tools stay in scope: a symlink inside the working directory never carries Grep (either
 * backend), Glob or Read to files outside the allowed directories. Real symlinks of every kind: to a
 * file, to a directory, to a parent of the working directory, dangling, and chains of links.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPermissionEngine, type PermissionRequest } from "../../src/permissions/index.js";
import { runTool } from "../../src/tools/define-tool.js";
import { globTool } from "../../src/tools/glob.js";
import { createGrepTool } from "../../src/tools/grep.js";
import { findRipgrep } from "../../src/tools/ripgrep.js";
import { createToolSessionState, type Tool, type ToolContext } from "../../src/tools/types.js";

const hasRg = findRipgrep() !== undefined;
const SECRET = "TOPSECRET_d41d8cd9";

let root: string;
let project: string;
let outside: string;

beforeAll(() => {
  root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "goat-scope-")));
  project = path.join(root, "project");
  outside = path.join(root, "outside");
  fs.mkdirSync(path.join(project, "src", "deep"), { recursive: true });
  fs.mkdirSync(path.join(outside, "nested"), { recursive: true });
  fs.writeFileSync(path.join(outside, "secret.txt"), `${SECRET}\n`);
  fs.writeFileSync(path.join(outside, "nested", "more.txt"), `${SECRET} nested\n`);
  fs.writeFileSync(path.join(root, "beside.txt"), `${SECRET} beside the project\n`);
  fs.writeFileSync(path.join(project, "src", "app.ts"), "const visible = 'in scope';\n");
  fs.writeFileSync(path.join(project, "src", "deep", "d.ts"), "const visible = 'deep';\n");
  const link = (target: string, at: string) => fs.symlinkSync(target, path.join(project, at));
  link(path.join(outside, "secret.txt"), "file-link.txt"); // a file outside
  link(outside, "dir-link"); // a directory outside
  link(root, "parent-link"); // the project's own parent (holds outside/ and beside.txt)
  link("..", "src/up"); // a relative link climbing to the project root (in scope, a loop)
  link(path.join(outside, "gone.txt"), "dangling.txt"); // a link to nothing
  link(path.join(project, "chain-2"), "chain-1"); // chain-1 → chain-2 → outside dir
  link(outside, "chain-2");
  link(path.join(project, "src"), "src-alias"); // in scope: files are listed once, at their real path
});

afterAll(() => {
  fs.rmSync(root, { recursive: true, force: true });
});

function ctx(): ToolContext {
  return {
    signal: new AbortController().signal,
    cwd: project,
    sessionId: "s",
    toolUseId: "t",
    state: createToolSessionState(),
    onUpdate: () => {},
  };
}

async function run(tool: Tool, input: Record<string, unknown>): Promise<string> {
  const result = await runTool(tool, input, ctx());
  return String(result.content);
}

const backends = [
  { name: "builtin" as const, skip: false },
  { name: "rg" as const, skip: !hasRg },
];

for (const backend of backends) {
  describe.skipIf(backend.skip)(`Grep (${backend.name}) does not follow symlinks out of scope`, () => {
    const grep = createGrepTool({ backend: backend.name });

    it("finds nothing outside through file, directory, parent, dangling or chained links", async () => {
      for (const mode of ["files_with_matches", "content", "count"]) {
        const text = await run(grep, { pattern: SECRET, output_mode: mode });
        expect(text, `output_mode ${mode}`).not.toContain(SECRET);
        expect(text).toMatch(/^No (files|matches) found/);
      }
    });

    it("lists each in-scope file once, at its real path, and nothing through links", async () => {
      const text = await run(grep, { pattern: "visible" });
      expect(text.split("\n").slice(1).sort()).toEqual([
        path.join(project, "src", "app.ts"),
        path.join(project, "src", "deep", "d.ts"),
      ]);
    });

    it("a glob naming a linked directory does not open it", async () => {
      for (const glob of ["dir-link/**", "parent-link/**/*.txt", "chain-1/*", "**/secret.txt"]) {
        const text = await run(grep, { pattern: SECRET, glob });
        expect(text, glob).toBe("No files found");
      }
    });

    it("searches a subdirectory without climbing through a relative link to its parent", async () => {
      const text = await run(grep, { pattern: "visible", path: path.join(project, "src") });
      expect(text.split("\n").slice(1).sort()).toEqual([
        path.join(project, "src", "app.ts"),
        path.join(project, "src", "deep", "d.ts"),
      ]);
    });
  });
}

describe.skipIf(!hasRg)("Grep backends agree on symlinks", () => {
  it("gives identical output from ripgrep and the built-in search", async () => {
    for (const input of [
      { pattern: "." },
      { pattern: "visible", output_mode: "content" },
      { pattern: SECRET, glob: "*.txt" },
      { pattern: "e", output_mode: "count" },
    ]) {
      const rg = await run(createGrepTool({ backend: "rg" }), input);
      const builtin = await run(createGrepTool({ backend: "builtin" }), input);
      expect(builtin, JSON.stringify(input)).toBe(rg);
    }
  });
});

describe("Glob does not follow symlinks out of scope", () => {
  it("lists no file through any kind of link", async () => {
    const text = await run(globTool, { pattern: "**/*" });
    const listed = text.split("\n");
    for (const file of listed) expect(file.startsWith(path.join(project, "src") + path.sep), file).toBe(true);
    expect(listed.sort()).toEqual([
      path.join(project, "src", "app.ts"),
      path.join(project, "src", "deep", "d.ts"),
    ]);
  });

  it("a pattern whose prefix is a linked directory finds nothing", async () => {
    for (const pattern of [
      "dir-link/**",
      "dir-link/secret.txt",
      "parent-link/outside/*.txt",
      "chain-1/**/*.txt",
      "src/up/dir-link/*",
      "file-link.txt",
      "dangling.txt",
    ]) {
      expect(await run(globTool, { pattern }), pattern).toBe("No files found");
    }
  });
});

describe("an explicit path through a symlink is judged by where it leads", () => {
  const engine = () => createPermissionEngine({ cwd: project });
  const ask = (toolName: string, input: Record<string, unknown>): PermissionRequest => ({
    toolName,
    input,
    sideEffect: "none",
    toolUseID: "tu",
    signal: new AbortController().signal,
  });

  it("Read, Grep and Glob through a link to outside are not allowed without asking", async () => {
    const calls: Array<[string, Record<string, unknown>]> = [
      ["Read", { file_path: path.join(project, "file-link.txt") }],
      ["Read", { file_path: path.join(project, "chain-1", "secret.txt") }],
      ["Read", { file_path: path.join(project, "parent-link", "beside.txt") }],
      ["Read", { file_path: path.join(project, "dangling.txt") }],
      ["Grep", { pattern: SECRET, path: path.join(project, "dir-link") }],
      ["Grep", { pattern: SECRET, path: path.join(project, "src", "up", "chain-1") }],
      ["Glob", { pattern: "**/*", path: path.join(project, "parent-link") }],
      ["Glob", { pattern: `${path.join(project, "dir-link")}/**` }],
    ];
    for (const [tool, input] of calls) {
      const decision = await engine().decide(ask(tool, input));
      expect(decision.behavior, `${tool} ${JSON.stringify(input)}`).toBe("deny");
    }
  });

  it("the same tools through an in-scope link are allowed", async () => {
    const decision = await engine().decide(
      ask("Read", { file_path: path.join(project, "src-alias", "app.ts") }),
    );
    expect(decision.behavior).toBe("allow");
  });
});
