/**
 * The BashOutput tool (Claude Code 2.0's name and fields): returns what a background shell printed
 * since the last read, optionally only the lines matching a regex, with the shell's status.
 */
import * as path from "node:path";
import {
  describeShellStatus,
  getBackgroundShell,
  listBackgroundShells,
  readShellOutput,
  unreadShellOutput,
} from "./background-shells.js";
import { describeSpill, limitText, sessionTempDir } from "./command-output.js";
import { defineTool } from "./define-tool.js";
import { RegexTimeLimitError, regexTimeLimitFrom, runRegexTask } from "./regex-worker.js";
import { jsonSchema } from "./tool-schema.js";

/** Structured result details for programs. */
export interface BashOutputDetails {
  shellId: string;
  status: string;
  exitCode: number | null;
  /** Characters lost to the full buffer since the previous read. */
  droppedChars: number;
  outputFile?: string;
}

/** Input of the BashOutput tool. */
export interface BashOutputInput {
  bash_id: string;
  /** A regular expression; only matching lines are returned. */
  filter?: string;
}

const inputSchema = jsonSchema<BashOutputInput>(
  {
    type: "object",
    properties: {
      bash_id: {
        type: "string",
        minLength: 1,
        description: "The ID of the background shell to retrieve output from",
      },
      filter: {
        description:
          "Optional regular expression to filter the output lines. Only lines matching this regex will be included in the result. Any lines that do not match will no longer be available to read.",
        type: "string",
      },
    },
    required: ["bash_id"],
  },
  { removeAdditional: true },
);

const description = `Retrieves output from a running or completed background shell (started with Bash and run_in_background).
- Takes the bash_id the Bash call returned.
- Returns only the output produced since the previous BashOutput call for that shell, stdout and stderr together.
- Returns the shell's status: running, completed or failed (with the exit code), or killed.
- The optional filter is a regular expression applied to each line; lines that do not match are discarded.
- Use it to watch long-running commands such as servers, builds and test watchers.`;

/** The BashOutput tool. */
export const bashOutputTool = defineTool<BashOutputInput, BashOutputDetails>({
  name: "BashOutput",
  description,
  inputSchema,
  sideEffect: "none",
  execute: async (input, ctx) => {
    const shell = getBackgroundShell(ctx.state, input.bash_id);
    if (!shell) {
      const known = listBackgroundShells(ctx.state).map((s) => s.id);
      const hint =
        known.length > 0 ? `Known shells: ${known.join(", ")}.` : "No background shells have been started.";
      return { content: `No background shell with id "${input.bash_id}". ${hint}`, isError: true };
    }
    let filter: RegExp | undefined;
    if (input.filter !== undefined) {
      try {
        filter = new RegExp(input.filter);
      } catch (err) {
        const reason = err instanceof Error ? err.message : String(err);
        return { content: `Invalid filter regex: ${reason}. No output was consumed.`, isError: true };
      }
    }
    const read = readShellOutput(shell, filter !== undefined);
    if (filter) {
      try {
        read.text = await keepMatchingLines(read.text, filter, ctx.signal, ctx.env ?? process.env);
      } catch (err) {
        unreadShellOutput(shell, read);
        if (err instanceof RegexTimeLimitError)
          return { content: `${err.message} No output was consumed.`, isError: true };
        throw err;
      }
    }
    const output = limitText(read.text, () =>
      path.join(sessionTempDir(ctx.state, ctx.sessionId), `${shell.id}-read-${Date.now()}.log`),
    );
    const parts = [`<status>${describeShellStatus(shell)}</status>`];
    if (shell.exitCode !== null) parts.push(`<exit_code>${shell.exitCode}</exit_code>`);
    if (read.droppedChars > 0) {
      parts.push(
        `<note>${read.droppedChars.toLocaleString("en-US")} characters of older output were dropped because the shell's buffer was full; read more often or use filter.</note>`,
      );
    }
    const body = output.text.replace(/\n+$/, "");
    parts.push(body === "" ? "<output>(no new output)</output>" : `<output>\n${body}\n</output>`);
    const spill = describeSpill(output);
    if (spill) parts.push(spill);
    return {
      content: parts.join("\n"),
      details: {
        shellId: shell.id,
        status: shell.status,
        exitCode: shell.exitCode,
        droppedChars: read.droppedChars,
        outputFile: output.outputFile,
      },
    };
  },
});

/** The lines of `text` that `filter` matches, matched in a worker within the regex time limit. */
async function keepMatchingLines(
  text: string,
  filter: RegExp,
  signal: AbortSignal,
  env: Record<string, string | undefined>,
): Promise<string> {
  const lines = text.split("\n");
  if (lines.at(-1) === "") lines.pop();
  if (lines.length === 0) return "";
  const task = { kind: "filter" as const, lines, source: filter.source, flags: filter.flags };
  const kept = (await runRegexTask(task, { timeLimitMs: regexTimeLimitFrom(env), signal })) as string[];
  return kept.length > 0 ? `${kept.join("\n")}\n` : "";
}
