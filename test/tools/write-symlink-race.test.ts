/**
 * Write, Edit and NotebookEdit write where the permission check looked. The check resolves symbolic
 * links; a link changed between the check and the write (a background shell running `ln -sfn`) must
 * not carry the write outside the allowed directories or onto a protected file. Real files, real
 * links, the real permission engine: each case asks the engine, then changes a link, then runs the
 * tool, and looks at what landed where. A last case flips links from another process while writes run.
 */
import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createPermissionEngine, type PermissionEngine } from "../../src/permissions/engine.js";
import { protectedPathReason } from "../../src/permissions/protected-paths.js";
import { editTool } from "../../src/tools/edit.js";
import { notebookEditTool } from "../../src/tools/notebook-edit.js";
import { readTool } from "../../src/tools/read.js";
import type { Tool, ToolContext } from "../../src/tools/types.js";
import { writeTool } from "../../src/tools/write.js";
import { tempDir } from "../support/temp-dirs.js";
import { call, makeContext, textOf } from "./file-tools-support.js";

let root: string;
let project: string;
let outside: string;
let engine: PermissionEngine;

beforeEach(() => {
  root = tempDir("goat-write-race-");
  project = path.join(root, "project");
  outside = path.join(root, "outside");
  fs.mkdirSync(path.join(project, "real"), { recursive: true });
  fs.mkdirSync(outside);
  // acceptEdits: in-scope edits are allowed without asking, so the check is all that stands in the way.
  engine = createPermissionEngine({ cwd: project, mode: "acceptEdits" });
});

/** A tool context whose write scope is the engine's, as the runtime wires it. */
function sessionContext(): ToolContext {
  return {
    ...makeContext(project),
    fileScope: () => ({
      directories: engine.directories,
      protectedReason: (real) => protectedPathReason({ lexical: real, real }),
    }),
  };
}

/** Asks the engine about a call; the tests only go on with calls it allows. */
async function expectAllowed(toolName: string, input: Record<string, unknown>): Promise<void> {
  const decision = await engine.decide({
    toolName,
    input,
    sideEffect: "mutating",
    toolUseID: "t",
    signal: new AbortController().signal,
  });
  expect(decision.behavior, `${toolName} ${JSON.stringify(input)}`).toBe("allow");
}

/** Points `link` at `target` in one rename, as `ln -sfn` followed by `mv -T` would. */
function repoint(link: string, target: string): void {
  const temp = `${link}.new`;
  fs.symlinkSync(target, temp);
  fs.renameSync(temp, link);
}

function filesIn(dir: string): string[] {
  return fs.readdirSync(dir, { recursive: true }).map(String).sort();
}

async function run(tool: Tool, input: Record<string, unknown>, ctx: ToolContext) {
  const result = await call(tool, input, ctx);
  return { isError: result.isError === true, text: textOf(result) };
}

describe("a link changed after the permission check", () => {
  it("Write through a file link repointed outside: refused, nothing written outside", async () => {
    const link = path.join(project, "notes.txt");
    fs.symlinkSync(path.join(project, "real", "notes.txt"), link);
    const input = { file_path: link, content: "hello\n" };
    await expectAllowed("Write", input);
    repoint(link, path.join(outside, "notes.txt"));

    const result = await run(writeTool, input, sessionContext());
    expect(result.isError).toBe(true);
    expect(result.text).toContain("outside the allowed directories");
    expect(result.text).toContain("Nothing was written");
    expect(filesIn(outside)).toEqual([]);
  });

  it("Write under a directory link repointed outside: refused, no file and no directory outside", async () => {
    const dirLink = path.join(project, "dir");
    fs.symlinkSync(path.join(project, "real"), dirLink);
    const input = { file_path: path.join(dirLink, "sub", "new.txt"), content: "x" };
    await expectAllowed("Write", input);
    repoint(dirLink, outside);

    const result = await run(writeTool, input, sessionContext());
    expect(result.isError).toBe(true);
    expect(result.text).toContain(`leads through a symbolic link to ${path.join(outside, "sub", "new.txt")}`);
    expect(filesIn(outside)).toEqual([]);
  });

  it("Write under a directory link repointed at .git/hooks: refused as a protected file", async () => {
    const hooks = path.join(project, ".git", "hooks");
    fs.mkdirSync(hooks, { recursive: true });
    const dirLink = path.join(project, "scripts");
    fs.symlinkSync(path.join(project, "real"), dirLink);
    const input = { file_path: path.join(dirLink, "pre-commit"), content: "#!/bin/sh\necho pwned\n" };
    await expectAllowed("Write", input);
    repoint(dirLink, hooks);

    const result = await run(writeTool, input, sessionContext());
    expect(result.isError).toBe(true);
    expect(result.text).toContain("a protected file (it is inside .git)");
    expect(filesIn(hooks)).toEqual([]);
  });

  it("Edit creating a file under a directory link repointed outside: refused", async () => {
    const dirLink = path.join(project, "dir");
    fs.symlinkSync(path.join(project, "real"), dirLink);
    const input = { file_path: path.join(dirLink, "made.txt"), old_string: "", new_string: "x" };
    await expectAllowed("Edit", input);
    repoint(dirLink, outside);

    const result = await run(editTool, input, sessionContext());
    expect(result.isError).toBe(true);
    expect(result.text).toContain("outside the allowed directories");
    expect(filesIn(outside)).toEqual([]);
  });

  it("Edit of a file read in both places, its directory link repointed outside: the outside copy is untouched", async () => {
    const dirLink = path.join(project, "dir");
    fs.symlinkSync(path.join(project, "real"), dirLink);
    fs.writeFileSync(path.join(project, "real", "a.txt"), "old\n");
    fs.writeFileSync(path.join(outside, "a.txt"), "old\n");
    const ctx = sessionContext();
    // The model has seen both files (a read outside the project is allowed once approved).
    for (const file of [path.join(dirLink, "a.txt"), path.join(outside, "a.txt")])
      expect((await run(readTool, { file_path: file }, ctx)).isError).toBe(false);
    const input = { file_path: path.join(dirLink, "a.txt"), old_string: "old", new_string: "new" };
    await expectAllowed("Edit", input);
    repoint(dirLink, outside);

    const result = await run(editTool, input, ctx);
    expect(result.isError).toBe(true);
    expect(fs.readFileSync(path.join(outside, "a.txt"), "utf8")).toBe("old\n");
  });

  it("NotebookEdit of a notebook read in both places, its directory link repointed outside: refused", async () => {
    const notebook = `${JSON.stringify({ cells: [{ cell_type: "code", id: "c1", metadata: {}, source: "1", outputs: [], execution_count: null }], metadata: {}, nbformat: 4, nbformat_minor: 5 })}\n`;
    const dirLink = path.join(project, "nb");
    fs.symlinkSync(path.join(project, "real"), dirLink);
    fs.writeFileSync(path.join(project, "real", "n.ipynb"), notebook);
    fs.writeFileSync(path.join(outside, "n.ipynb"), notebook);
    const ctx = sessionContext();
    for (const file of [path.join(dirLink, "n.ipynb"), path.join(outside, "n.ipynb")])
      expect((await run(readTool, { file_path: file }, ctx)).isError).toBe(false);
    const input = { notebook_path: path.join(dirLink, "n.ipynb"), cell_id: "c1", new_source: "2" };
    await expectAllowed("NotebookEdit", input);
    repoint(dirLink, outside);

    const result = await run(notebookEditTool, input, ctx);
    expect(result.isError).toBe(true);
    expect(result.text).toContain("outside the allowed directories");
    expect(fs.readFileSync(path.join(outside, "n.ipynb"), "utf8")).toBe(notebook);
  });

  for (const depth of ["parent", "grandparent"] as const) {
    it(`a real ${depth} directory swapped for a link after the tool resolved the path: refused`, async () => {
      // The tool reads its write scope between resolving the path and opening the directory; this
      // scope swaps project/real for a link to outside at that moment, a rename any shell could do.
      const real = path.join(project, "real");
      fs.mkdirSync(path.join(real, "sub"));
      fs.mkdirSync(path.join(outside, "sub"));
      const ctx: ToolContext = {
        ...makeContext(project),
        fileScope: () => {
          fs.renameSync(real, path.join(project, "real.away"));
          fs.symlinkSync(outside, real);
          return { directories: engine.directories };
        },
      };
      const dir = depth === "parent" ? real : path.join(real, "sub");
      const input = { file_path: path.join(dir, "new.txt"), content: "x" };
      await expectAllowed("Write", input);

      const result = await run(writeTool, input, ctx);
      expect(result.isError).toBe(true);
      expect(result.text).toContain(
        depth === "parent"
          ? `its directory ${real} is now a symbolic link`
          : `its directory ${dir} is now reached at ${path.join(outside, "sub")}`,
      );
      expect(filesIn(outside)).toEqual(["sub"]);
    });
  }
});

describe("Read of a link changed after the permission check", () => {
  it("a file link repointed outside: refused, the outside file's text never shown", async () => {
    fs.writeFileSync(path.join(project, "real", "notes.txt"), "in the project\n");
    fs.writeFileSync(path.join(outside, "secret.txt"), "TOPSECRET\n");
    const link = path.join(project, "notes.txt");
    fs.symlinkSync(path.join(project, "real", "notes.txt"), link);
    const input = { file_path: link };
    const decision = await engine.decide({
      toolName: "Read",
      input,
      sideEffect: "none",
      toolUseID: "t",
      signal: new AbortController().signal,
    });
    expect(decision.behavior).toBe("allow");
    repoint(link, path.join(outside, "secret.txt"));

    const result = await run(readTool, input, sessionContext());
    expect(result.isError).toBe(true);
    expect(result.text).toContain("Refused to read");
    expect(result.text).not.toContain("TOPSECRET");
  });

  it("a real directory swapped for a link after Read resolved the path: refused", async () => {
    const real = path.join(project, "real");
    fs.writeFileSync(path.join(real, "a.txt"), "in the project\n");
    fs.writeFileSync(path.join(outside, "a.txt"), "TOPSECRET\n");
    const ctx: ToolContext = {
      ...makeContext(project),
      fileScope: () => {
        fs.renameSync(real, path.join(project, "real.away"));
        fs.symlinkSync(outside, real);
        return { directories: engine.directories };
      },
    };
    const result = await run(readTool, { file_path: path.join(real, "a.txt") }, ctx);
    expect(result.isError).toBe(true);
    expect(result.text).toContain(
      `the file ${path.join(real, "a.txt")} is now reached at ${path.join(outside, "a.txt")}`,
    );
    expect(result.text).not.toContain("TOPSECRET");
  });
});

describe("writes that stay where they were checked still work", () => {
  it("through a link inside the project, and to a real path outside it (as approved)", async () => {
    fs.symlinkSync(path.join(project, "real"), path.join(project, "alias"));
    const ctx = sessionContext();
    const inside = await run(
      writeTool,
      { file_path: path.join(project, "alias", "a.txt"), content: "a" },
      ctx,
    );
    expect(inside.isError, inside.text).toBe(false);
    expect(fs.readFileSync(path.join(project, "real", "a.txt"), "utf8")).toBe("a");
    const approved = await run(writeTool, { file_path: path.join(outside, "b.txt"), content: "b" }, ctx);
    expect(approved.isError, approved.text).toBe(false);
    expect(fs.readFileSync(path.join(outside, "b.txt"), "utf8")).toBe("b");
  });

  it("an outside path through a link is refused with the real path to use instead", async () => {
    fs.symlinkSync(outside, path.join(project, "out"));
    const result = await run(
      writeTool,
      { file_path: path.join(project, "out", "c.txt"), content: "c" },
      sessionContext(),
    );
    expect(result.isError).toBe(true);
    expect(result.text).toContain(`to ${path.join(outside, "c.txt")}, outside the allowed directories`);
    expect(result.text).toContain("give the real path");
  });
});

describe("a link flipped by another process while writes run", () => {
  let flipper: ReturnType<typeof spawn> | undefined;
  // The flipper runs in a process group of its own, killed whole (an `ln` or `mv` it started could
  // otherwise still be writing in the project while the test's folder is removed), and awaited.
  const stopFlipper = async () => {
    const child = flipper;
    flipper = undefined;
    if (child?.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once("exit", resolve));
    try {
      process.kill(-child.pid, "SIGKILL");
    } catch {
      // already gone
    }
    await exited;
  };
  afterEach(stopFlipper);

  it("lands no write outside the project in a second of flipping", async () => {
    const dirLink = path.join(project, "dir");
    const fileLink = path.join(project, "file.txt");
    fs.symlinkSync(path.join(project, "real"), dirLink);
    fs.symlinkSync(path.join(project, "real", "file.txt"), fileLink);
    // Both links swing between the project and outside, each change one atomic rename.
    const script = `
      while :; do
        ln -sfn "$OUT" dir.new && mv -T dir.new dir
        ln -sfn "$OUT/file.txt" file.new && mv -T file.new file.txt
        ln -sfn "$IN" dir.new && mv -T dir.new dir
        ln -sfn "$IN/file.txt" file.new && mv -T file.new file.txt
      done`;
    flipper = spawn("bash", ["-c", script], {
      cwd: project,
      env: { PATH: process.env.PATH, OUT: outside, IN: path.join(project, "real") },
      stdio: "ignore",
      detached: true,
    });
    // On a busy machine bash may take a while to start: the second begins once a flip is seen.
    const waitUntil = Date.now() + 10_000;
    while (fs.readlinkSync(dirLink) !== outside && Date.now() < waitUntil) {
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    const ctx = sessionContext();
    const deadline = Date.now() + 1000;
    let written = 0;
    let refused = 0;
    const worker = async (w: number) => {
      for (let i = 0; Date.now() < deadline; i++) {
        const file_path = i % 2 === 0 ? path.join(dirLink, `w${w}-${i}.txt`) : fileLink;
        // The model has "read" file.txt wherever it is, so only the scope decides.
        for (const p of [path.join(project, "real", "file.txt"), path.join(outside, "file.txt")]) {
          const stats = fs.statSync(p, { throwIfNoEntry: false });
          if (stats) ctx.state.readFiles.set(p, { mtimeMs: stats.mtimeMs, size: stats.size });
        }
        const result = await run(writeTool, { file_path, content: `${w}-${i}\n` }, ctx);
        if (result.isError) refused++;
        else written++;
      }
    };
    await Promise.all([0, 1, 2, 3].map(worker));
    await stopFlipper();

    expect(filesIn(outside)).toEqual([]);
    expect(written).toBeGreaterThan(0);
    expect(refused).toBeGreaterThan(0);
  });
});
