/**
 * Bash through the client's terminal (`terminal/create`, `wait_for_exit`, `output`, `kill`,
 * `release`) when the client offers one: the command runs in the editor's terminal, where the user
 * watches it live, and its output goes back to the model as Goat's own Bash would send it.
 *
 * Only calls Goat would run unconfined go there: those a person, a rule or a hook allowed. A call
 * the permission engine allowed on its own analysis carries a confinement mark and must run in
 * Goat's jail (`sandbox/confinement.ts`), which an editor's terminal is not, so it runs in Goat's
 * own Bash, confined; so do background commands (BashOutput and KillShell read them) and, when the
 * session's settings turn the sandbox on, every command (the caller then keeps Goat's Bash whole).
 */
import type { AgentContext, SessionUpdate } from "@agentclientprotocol/sdk";
import type { Tool, ToolContext, ToolResult } from "../../index.js";
import { createConfinement } from "../../sandbox/index.js";
import { type BashInput, bashTool, createBashTool } from "../../tools/index.js";

/** Default and largest foreground time limits, as Goat's Bash has them. */
const DEFAULT_TIMEOUT_MS = 120_000;
const MAX_TIMEOUT_MS = 600_000;
/** How much output the terminal keeps for the model (its tail), as Goat's Bash keeps about. */
const OUTPUT_LIMIT_BYTES = 30_000;

/** What the tool needs of the session. */
export interface TerminalContext {
  client: AgentContext;
  sessionId: string;
  /** The folders confined commands may write (the session's working and additional directories). */
  directories: () => readonly string[];
  env: Record<string, string | undefined>;
  /** Sends an update for the session (the call's terminal, shown in its tool call). */
  send: (update: SessionUpdate) => Promise<void>;
}

/** A Bash tool that runs unmarked foreground calls in the client's terminal. */
export function clientTerminalBash(context: TerminalContext): Tool {
  const own = createBashTool({
    confinement: createConfinement({ directories: context.directories, envPath: context.env.PATH }),
  });
  return {
    ...bashTool,
    // The calls the engine marks run in Goat's confined Bash (`own`), not in the editor's terminal.
    confines: true,
    async execute(input: BashInput, ctx: ToolContext): Promise<ToolResult> {
      if (ctx.confinement !== undefined || input.run_in_background === true) return own.execute(input, ctx);
      return runInTerminal(context, input, ctx);
    },
  };
}

async function runInTerminal(
  context: TerminalContext,
  input: BashInput,
  ctx: ToolContext,
): Promise<ToolResult> {
  const { client, sessionId } = context;
  const { terminalId } = await client.request("terminal/create", {
    sessionId,
    command: "/bin/bash",
    args: ["-c", input.command],
    cwd: ctx.cwd,
    outputByteLimit: OUTPUT_LIMIT_BYTES,
  });
  try {
    await context.send({
      sessionUpdate: "tool_call_update",
      toolCallId: ctx.toolUseId,
      status: "in_progress",
      content: [{ type: "terminal", terminalId }],
    });
    const limit = Math.min(input.timeout ?? DEFAULT_TIMEOUT_MS, MAX_TIMEOUT_MS);
    const stopped = await waitOrStop(context, terminalId, limit, ctx.signal);
    const { output, truncated, exitStatus } = await client.request("terminal/output", {
      sessionId,
      terminalId,
    });
    const shown = truncated ? `[earlier output cut]\n${output}` : output;
    if (stopped === "interrupted") {
      return { content: `${shown}\nCommand was interrupted by the user; it was stopped.`, isError: true };
    }
    if (stopped === "timeout") {
      return { content: `${shown}\nCommand timed out after ${limit} ms and was stopped.`, isError: true };
    }
    const code = exitStatus?.exitCode ?? null;
    if (code === 0) return { content: shown };
    const why = code !== null ? `Exit code ${code}` : `Killed by signal ${exitStatus?.signal ?? "unknown"}`;
    return { content: shown === "" ? why : `${shown}\n${why}`, isError: true };
  } finally {
    await client.request("terminal/release", { sessionId, terminalId }).catch(() => undefined);
  }
}

/** Waits for the command to exit; kills it on the time limit or the run's interruption. */
async function waitOrStop(
  context: TerminalContext,
  terminalId: string,
  limitMs: number,
  signal: AbortSignal,
): Promise<"exited" | "timeout" | "interrupted"> {
  const { client, sessionId } = context;
  let timer: NodeJS.Timeout | undefined;
  let onAbort: (() => void) | undefined;
  const stop = new Promise<"timeout" | "interrupted">((resolve) => {
    timer = setTimeout(() => resolve("timeout"), limitMs);
    onAbort = () => resolve("interrupted");
    if (signal.aborted) onAbort();
    else signal.addEventListener("abort", onAbort, { once: true });
  });
  const exited = client
    .request("terminal/wait_for_exit", { sessionId, terminalId })
    .then(() => "exited" as const);
  try {
    const outcome = await Promise.race([exited, stop]);
    if (outcome !== "exited") await client.request("terminal/kill", { sessionId, terminalId });
    return outcome;
  } finally {
    clearTimeout(timer);
    if (onAbort) signal.removeEventListener("abort", onAbort);
  }
}
