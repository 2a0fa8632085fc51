/** Shared helpers for the Bash tool family tests: a real ToolContext on a temp dir, and pid checks. */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { isGroupAlive, isProcessAlive } from "../../src/tools/process-tree.js";
import { createToolSessionState, disposeToolSessionState, type ToolContext } from "../../src/tools/types.js";

/** A test session: a temp working dir, a fresh tool state, an abort controller and the updates seen. */
export interface TestSession {
  dir: string;
  ctx: ToolContext;
  controller: AbortController;
  updates: string[];
  dispose(): Promise<void>;
}

let counter = 0;

/** Creates a session whose cwd is a new temp dir; `dispose` runs the cleanups and removes the dir. */
export function createTestSession(): TestSession {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "goat-bash-test-")));
  const controller = new AbortController();
  const updates: string[] = [];
  const state = createToolSessionState();
  const sessionId = `test-${process.pid}-${++counter}-${Date.now()}`;
  const ctx: ToolContext = {
    signal: controller.signal,
    cwd: dir,
    sessionId,
    toolUseId: `toolu_${counter}`,
    state,
    onUpdate: (partial) => updates.push(partial),
  };
  return {
    dir,
    ctx,
    controller,
    updates,
    async dispose() {
      await disposeToolSessionState(state);
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The text of a tool result's content. */
export function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  return (content as Array<{ type: string; text?: string }>).map((b) => b.text ?? "").join("");
}

/** Waits until `check` holds, polling; throws with `what` after `ms`. */
export async function waitFor(check: () => boolean, what: string, ms = 5000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** Reads a pid a test command wrote to `file`, waiting for it to appear. */
export async function readPid(file: string): Promise<number> {
  await waitFor(() => fs.existsSync(file) && fs.readFileSync(file, "utf8").trim() !== "", `pid in ${file}`);
  return Number(fs.readFileSync(file, "utf8").trim());
}

/** Whether `pid` is dead, allowing a moment for the signal to land. Zombies count as dead. */
export async function becomesDead(pid: number, ms = 3000): Promise<boolean> {
  return becomesTrue(() => !isProcessAlive(pid), ms);
}

/** Whether process group `pgid` has no live member within `ms` (its members die at their own pace). */
export async function groupBecomesDead(pgid: number, ms = 3000): Promise<boolean> {
  return becomesTrue(() => !isGroupAlive(pgid), ms);
}

async function becomesTrue(check: () => boolean, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) return false;
    await new Promise((r) => setTimeout(r, 25));
  }
  return true;
}
