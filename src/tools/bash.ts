/**
 * The Bash tool (Claude Code's name and input fields): runs a shell command in the session's working
 * directory, in the foreground with a timeout, or in the background for BashOutput and KillShell.
 */
import { randomUUID } from "node:crypto";
import * as fs from "node:fs";
import * as path from "node:path";
import type { BashSandbox, ShellWrapper } from "../sandbox/bash-sandbox.js";
import type { Confinement, ConfinementLevel } from "../sandbox/confinement.js";
import { SandboxUnavailableError } from "../sandbox/errors.js";
import { missingProtectedPaths, removeCreatedProtectedPaths, sweepNote } from "../sandbox/protected-sweep.js";
import { adoptBackgroundShell, getBackgroundShell, startBackgroundShell } from "./background-shells.js";
import { describeSpill, MAX_OUTPUT_CHARS, maxOutputBytesFrom, sessionTempDir } from "./command-output.js";
import { defineTool } from "./define-tool.js";
import { registerForegroundTask } from "./foreground-tasks.js";
import { type CommandOutcome, runCommand } from "./run-command.js";
import { jsonSchema } from "./tool-schema.js";
import type { Tool, ToolContext, ToolResult } from "./types.js";

/** Foreground timeout when the call gives none (Claude Code's `BASH_DEFAULT_TIMEOUT_MS`). */
const BASH_DEFAULT_TIMEOUT_MS = 120_000;
/** Largest timeout a call may ask for (Claude Code's `BASH_MAX_TIMEOUT_MS`). */
const BASH_MAX_TIMEOUT_MS = 600_000;

/** Structured result details for programs; the model never sees them. */
export interface BashDetails {
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  timedOut: boolean;
  interrupted: boolean;
  /** True when the output passed the byte cap (`GOAT_BASH_MAX_OUTPUT_BYTES`) and the command was stopped. */
  outputCapped?: boolean;
  /** File with the whole output, when it was too long to show inline. */
  outputFile?: string;
  truncated: boolean;
  totalBytes: number;
  durationMs: number;
  /** Set when the command was started with `run_in_background`, or moved to the background. */
  backgroundShellId?: string;
  /** True when the host moved the running command to the background (`backgroundTasks`). */
  backgroundedByUser?: boolean;
  /** With `ctx.fullDetails`: the output as collected (stderr merged in), without Goat's notes. */
  stdout?: string;
}

/** Input of the Bash tool. `dangerouslyDisableSandbox` exists only when a sandbox lets commands leave it. */
export interface BashInput {
  command: string;
  /** Milliseconds, at most `BASH_MAX_TIMEOUT_MS`. */
  timeout?: number;
  description?: string;
  run_in_background?: boolean;
  dangerouslyDisableSandbox?: boolean;
}

const inputProperties = {
  command: { type: "string", minLength: 1, description: "The command to execute" },
  timeout: {
    description: `Optional timeout in milliseconds (max ${BASH_MAX_TIMEOUT_MS})`,
    type: "number",
    exclusiveMinimum: 0,
    maximum: BASH_MAX_TIMEOUT_MS,
  },
  description: {
    description:
      "Clear, concise description of what this command does in 5-10 words, in active voice. Examples:\n" +
      "Input: ls\nOutput: List files in current directory\n\n" +
      "Input: git status\nOutput: Show working tree status\n\n" +
      "Input: npm install\nOutput: Install package dependencies",
    type: "string",
  },
  run_in_background: {
    description:
      "Set to true to run this command in the background. Use BashOutput to read the output later.",
    type: "boolean",
  },
};

// Unknown fields are dropped before hooks and the tool see the input (zod's z.object did the same).
const inputSchema = jsonSchema<BashInput>(
  { type: "object", properties: inputProperties, required: ["command"] },
  { removeAdditional: true },
);

/** The input of the sandboxed Bash when commands may ask to run outside the sandbox. */
const sandboxedInputSchema = jsonSchema<BashInput>(
  {
    type: "object",
    properties: {
      ...inputProperties,
      dangerouslyDisableSandbox: {
        description:
          "Set to true to run this command outside the sandbox. Only when it failed because of the sandbox (no network, a write outside the allowed directories); the user is asked first.",
        type: "boolean",
      },
    },
    required: ["command"],
  },
  { removeAdditional: true },
);

/** Options of `createBashTool`. */
export interface BashToolOptions {
  /** Run commands in this OS sandbox (see `createBashSandbox`); none by default. */
  sandbox?: BashSandbox;
  /**
   * Run the commands the permission engine allowed on its own analysis (`ctx.confinement`) confined
   * (see `createConfinement`); without it, or where no sandbox can start, they run like the others.
   */
  confinement?: Confinement;
}

const description = `Executes a bash command in the session's working directory and returns its output (stdout and stderr together, in the order they were written) and, when it is not zero, its exit code.

Usage notes:
- Each call runs in a fresh shell: \`cd\`, exported variables and shell functions do not carry over to the next call. Use absolute paths, or \`cd dir && command\` in one call.
- The timeout is given in milliseconds, up to ${BASH_MAX_TIMEOUT_MS} (10 minutes); the default is ${BASH_DEFAULT_TIMEOUT_MS} (2 minutes). A command that times out is stopped together with every process it started.
- Output longer than ${MAX_OUTPUT_CHARS} characters is cut to its beginning and end; the whole output is saved to a file whose path the result gives.
- stdin is closed: interactive commands (editors, pagers, prompts) cannot be answered. Pass flags such as \`-y\` or \`--no-pager\`.
- Background processes a foreground command leaves holding its output (\`server &\`) are stopped when it exits. For servers, watchers and other long-running commands, set run_in_background to true: the call returns a shell id at once; read new output with BashOutput and stop it with KillShell.
- Prefer the dedicated tools over shell equivalents: Read rather than cat/head/tail, Edit or Write rather than sed/awk/echo redirection, Glob rather than find or ls for finding files, Grep rather than grep or rg.
- Quote paths that contain spaces with double quotes. Chain dependent commands with \`&&\`; run independent ones as separate tool calls.`;

/** The Bash tool, unsandboxed. */
export const bashTool = createBashTool();

/**
 * Makes a Bash tool; with `sandbox`, commands run inside it (except those it excludes), and a sandbox
 * that cannot start fails the call instead of running the command unsandboxed.
 */
export function createBashTool(options: BashToolOptions = {}): Tool<BashInput, BashDetails> {
  const { sandbox, confinement } = options;
  // A call the engine allowed on its own judgement runs confined when it can; the rest as before.
  const confined = async (input: BashInput, ctx: ToolContext) => {
    if (!ctx.confinement || !confinement) return undefined;
    const wrap = await confinement.prepare(ctx.confinement, ctx.cwd);
    if (!wrap) return undefined;
    const writable = ctx.confinement === "workspace" ? confinement.writableDirs(ctx.cwd) : [];
    const result = await runSweeping(input, ctx, wrap, writable);
    if (result.isError && result.details && !result.details.timedOut && !result.details.interrupted) {
      result.content = `${result.content}\n\n${confinedFailureNote(ctx.confinement)}`;
    }
    return result;
  };
  // With a confinement, the calls the engine marks run confined: the engine may then let them through.
  const marked = (tool: Tool<BashInput, BashDetails>) => (confinement ? { ...tool, confines: true } : tool);
  if (!sandbox) {
    return marked(
      defineTool<BashInput, BashDetails>({
        name: "Bash",
        description,
        inputSchema,
        sideEffect: "mutating",
        execute: async (input, ctx) => (await confined(input, ctx)) ?? runBash(input, ctx, undefined),
      }),
    );
  }
  const leaving = sandbox.settings.allowUnsandboxedCommands;
  return marked(
    defineTool<BashInput, BashDetails>({
      name: "Bash",
      description: `${description}\n${sandboxDescription(leaving)}`,
      inputSchema: leaving ? sandboxedInputSchema : inputSchema,
      sideEffect: "mutating",
      execute: async (input, ctx) => {
        const early = await confined(input, ctx);
        if (early) return early;
        if (!sandbox.runsSandboxed(input as unknown as Record<string, unknown>))
          return runBash(input, ctx, undefined);
        let wrap: ShellWrapper;
        try {
          wrap = await sandbox.prepare(ctx.cwd);
        } catch (err) {
          if (err instanceof SandboxUnavailableError) return { content: err.message, isError: true };
          throw err;
        }
        const result = await runSweeping(input, ctx, wrap, sandbox.writableDirs(ctx.cwd));
        if (result.isError && result.details && !result.details.timedOut && !result.details.interrupted) {
          result.content = `${result.content}\n\n${sandboxFailureNote(sandbox, ctx.cwd)}`;
        }
        return result;
      },
    }),
  );
}

function sandboxDescription(canLeave: boolean): string {
  return `
Sandbox:
- Commands run in an OS sandbox: they can write only in the working directory, the additional directories and a private /tmp (emptied after each call), and have no network access. Settings such as .git/config, .git/hooks and .goat/ stay read-only. Processes do not outlive the call unless run_in_background is set.
${canLeave ? "- If a command fails only because of the sandbox (a write elsewhere, the network), call it again with dangerouslyDisableSandbox: true; the user is asked before it runs outside the sandbox." : "- Commands cannot run outside the sandbox; if one needs the network or to write elsewhere, tell the user."}`;
}

function sandboxFailureNote(sandbox: BashSandbox, cwd: string): string {
  const dirs = sandbox.writableDirs(cwd).join(", ");
  const retry = sandbox.settings.allowUnsandboxedCommands
    ? "If it failed for that reason, run it again with dangerouslyDisableSandbox: true (the user will be asked)."
    : "Commands cannot leave the sandbox in this session.";
  return `(The command ran in the sandbox: it can write only in ${dirs} and a private /tmp, and has no network access. ${retry})`;
}

/**
 * Runs a sandboxed command and then removes the protected paths it created in the writable
 * directories (a mount can only guard what exists; ../sandbox/protected-sweep.ts). For a background
 * command the sweep waits until its sandbox is gone.
 */
async function runSweeping(
  input: BashInput,
  ctx: ToolContext,
  wrap: ShellWrapper,
  writableDirs: readonly string[],
): Promise<ToolResult<BashDetails>> {
  const before = missingProtectedPaths(writableDirs);
  const result = await runBash(input, ctx, wrap);
  const shellId = result.details?.backgroundShellId;
  if (shellId !== undefined) {
    void getBackgroundShell(ctx.state, shellId)?.done.then(() => removeCreatedProtectedPaths(before));
    return result;
  }
  const removed = removeCreatedProtectedPaths(before);
  if (removed.length > 0) result.content = `${result.content}\n\n${sweepNote(removed)}`;
  return result;
}

/** Why a command that ran without asking may have failed: what its confinement withheld. */
function confinedFailureNote(level: ConfinementLevel): string {
  const could =
    level === "read-only"
      ? "a read-only filesystem"
      : "writes only in the working directory and the additional directories (not .git/ or settings)";
  return `(This command ran without asking because Goat judged it ${level === "read-only" ? "read-only" : "a file edit"}, so it ran confined: ${could}, a private /tmp, no network, credential files and secret environment variables hidden. If it failed for that reason, the user can allow it with a permission rule, which runs it unconfined.)`;
}

async function runBash(
  input: BashInput,
  ctx: ToolContext,
  wrap: ShellWrapper | undefined,
): Promise<ToolResult<BashDetails>> {
  const cwdProblem = checkWorkingDirectory(ctx.cwd);
  if (cwdProblem) return { content: cwdProblem, isError: true };
  if (input.run_in_background) return startInBackground(input, ctx, wrap);

  // While it runs, the host may move the command to the background (backgroundTasks).
  const toBackground = new AbortController();
  let movedTo: string | undefined;
  const unregister = registerForegroundTask(ctx.state, ctx.toolUseId, () => {
    toBackground.abort();
    return movedTo;
  });
  let outcome: Awaited<ReturnType<typeof runCommand>>;
  try {
    outcome = await runCommand({
      wrap,
      command: input.command,
      cwd: ctx.cwd,
      env: ctx.env,
      timeoutMs: input.timeout ?? BASH_DEFAULT_TIMEOUT_MS,
      maxOutputBytes: maxOutputBytesFrom(ctx.env ?? process.env),
      signal: ctx.signal,
      spillPath: () =>
        path.join(
          sessionTempDir(ctx.state, ctx.sessionId),
          `bash-${safeName(ctx.toolUseId)}-${randomUUID().slice(0, 8)}.log`,
        ),
      onOutput: ctx.onUpdate,
      moveToBackground: toBackground.signal,
      adopt: (child, outputSoFar, exited) => {
        movedTo = adoptBackgroundShell(ctx.state, child, {
          command: input.command,
          cwd: ctx.cwd,
          description: input.description,
          outputSoFar,
          exited,
        }).id;
        return movedTo;
      },
    });
  } finally {
    unregister();
  }
  if (outcome.backgroundShellId) return movedToBackground(outcome.backgroundShellId);
  const result = formatOutcome(outcome, input.timeout ?? BASH_DEFAULT_TIMEOUT_MS);
  if (ctx.fullDetails && result.details) result.details.stdout = outcome.output.text;
  return result;
}

function startInBackground(
  input: BashInput,
  ctx: ToolContext,
  wrap: ShellWrapper | undefined,
): ToolResult<BashDetails> {
  const shell = startBackgroundShell(ctx.state, {
    wrap,
    command: input.command,
    cwd: ctx.cwd,
    env: ctx.env,
    description: input.description,
    timeoutMs: input.timeout,
    maxOutputBytes: maxOutputBytesFrom(ctx.env ?? process.env),
  });
  return {
    content: `Command running in background with ID: ${shell.id}. Read its output with BashOutput (bash_id "${shell.id}"); stop it with KillShell (shell_id "${shell.id}").`,
    details: {
      exitCode: null,
      signal: null,
      timedOut: false,
      interrupted: false,
      truncated: false,
      totalBytes: 0,
      durationMs: 0,
      backgroundShellId: shell.id,
    },
  };
}

/** The answer to a call whose command the host moved to the background while it ran. */
function movedToBackground(shellId: string): ToolResult<BashDetails> {
  return {
    content: `The user moved this command to the background; it keeps running with ID: ${shellId}. Read its output with BashOutput (bash_id "${shellId}"); stop it with KillShell (shell_id "${shellId}").`,
    details: {
      exitCode: null,
      signal: null,
      timedOut: false,
      interrupted: false,
      truncated: false,
      totalBytes: 0,
      durationMs: 0,
      backgroundShellId: shellId,
      backgroundedByUser: true,
    },
  };
}

/** Turns how the command ended into the text the model reads. */
function formatOutcome(outcome: CommandOutcome, timeoutMs: number): ToolResult<BashDetails> {
  const { output } = outcome;
  const details: BashDetails = {
    exitCode: outcome.exitCode,
    signal: outcome.signal,
    timedOut: outcome.timedOut,
    interrupted: outcome.interrupted,
    outputCapped: outcome.outputCapped || undefined,
    outputFile: output.outputFile,
    truncated: output.truncated,
    totalBytes: output.totalBytes,
    durationMs: outcome.durationMs,
  };
  if (outcome.spawnError) {
    return { content: `Could not start the shell: ${outcome.spawnError}`, isError: true, details };
  }
  const notes: string[] = [];
  if (outcome.timedOut) {
    notes.push(
      `Command timed out after ${formatMs(timeoutMs)}; it and every process it started were stopped.`,
    );
  } else if (outcome.interrupted) {
    notes.push("Command was interrupted by the user; it and every process it started were stopped.");
  } else if (outcome.outputCapped) {
    // describeSpill below says so, and where the saved part is.
  } else if (outcome.signal) {
    notes.push(`Command was killed by signal ${outcome.signal}.`);
  } else if (outcome.exitCode !== 0 && outcome.exitCode !== null) {
    notes.push(`Exit code ${outcome.exitCode}`);
  }
  if (outcome.strayProcessesKilled) {
    notes.push(
      "Processes the command left running in the background were stopped when it exited; use run_in_background for long-running processes.",
    );
  }
  const spill = describeSpill(output);
  if (spill) notes.push(spill);

  const body = output.text.replace(/\n+$/, "");
  const failed =
    outcome.timedOut ||
    outcome.interrupted ||
    outcome.outputCapped ||
    outcome.signal !== null ||
    outcome.exitCode !== 0;
  let text: string;
  if (body === "") {
    const ran = outcome.timedOut || outcome.interrupted ? "" : "(no output)";
    text = [ran, ...notes].filter(Boolean).join("\n");
  } else {
    const sofar = outcome.timedOut || outcome.interrupted ? "Output so far:\n" : "";
    text = notes.length > 0 ? `${sofar}${body}\n\n${notes.join("\n")}` : body;
  }
  return { content: text, isError: failed, details };
}

/** A clear message when the working directory is missing, instead of spawn's misleading ENOENT. */
function checkWorkingDirectory(cwd: string): string | undefined {
  try {
    if (fs.statSync(cwd).isDirectory()) return undefined;
    return `The working directory ${cwd} is not a directory.`;
  } catch {
    return `The working directory ${cwd} does not exist.`;
  }
}

function formatMs(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`;
}

function safeName(id: string): string {
  return id.replace(/[^A-Za-z0-9._-]/g, "_").slice(0, 100) || "call";
}
