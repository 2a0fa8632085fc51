/** Shared helpers for hook tests: a runner with fixed base fields and a never-aborted signal. */
import { createHookRunner, type HookRunnerConfig } from "../../src/hooks/index.js";

/** A runner for tests: session "s1" in `cwd`, permission mode "default". */
export function testRunner(extra: Partial<HookRunnerConfig> & { cwd?: string } = {}) {
  return createHookRunner({
    sessionId: "s1",
    cwd: extra.cwd ?? process.cwd(),
    transcriptPath: "/tmp/t.jsonl",
    getPermissionMode: () => "default",
    ...extra,
  });
}

/** Options for a firing that is never aborted. */
export function opts(toolUseID?: string): { signal: AbortSignal; toolUseID?: string } {
  return { signal: new AbortController().signal, toolUseID };
}

/** PreToolUse fields for a Bash call. */
export const bashCall = { tool_name: "Bash", tool_input: { command: "ls" }, tool_use_id: "tu_1" };

/** Resolves after `ms`, or rejects when `signal` aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const t = setTimeout(resolve, ms);
    signal?.addEventListener("abort", () => {
      clearTimeout(t);
      reject(new Error("aborted"));
    });
  });
}
