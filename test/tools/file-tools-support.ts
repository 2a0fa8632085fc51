/**
 * Helpers for the Read/Write/Edit tests: a real temp directory, a tool context with its own session
 * state, and calling a tool the way the loop does (input validated by `runTool`).
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { runTool } from "../../src/tools/define-tool.js";
import {
  createToolSessionState,
  type Tool,
  type ToolContext,
  type ToolResult,
} from "../../src/tools/types.js";

/** A fresh temp directory (real path, so it matches what the tools resolve) and its cleanup. */
export function makeTempDir(): { dir: string; cleanup: () => void } {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "goat-file-tools-")));
  return { dir, cleanup: () => fs.rmSync(dir, { recursive: true, force: true }) };
}

/** A tool context for one session rooted at `cwd`. */
export function makeContext(cwd: string, signal: AbortSignal = new AbortController().signal): ToolContext {
  return {
    signal,
    cwd,
    sessionId: "test-session",
    toolUseId: "toolu_test",
    state: createToolSessionState(),
    onUpdate: () => {},
  };
}

/** Calls a tool through `runTool`, as the loop would. */
export function call(tool: Tool, input: unknown, ctx: ToolContext): Promise<ToolResult> {
  return runTool(tool, input, ctx);
}

/** The text of a result (text blocks joined). */
export function textOf(result: ToolResult): string {
  if (typeof result.content === "string") return result.content;
  return result.content.map((b) => (b.type === "text" ? b.text : `[${b.type}]`)).join("\n");
}

/** True when running as root, which ignores file permission bits. */
export const isRoot = process.getuid?.() === 0;
