/**
 * Print mode (`goat -p`): one session, its output in `text` (the final answer), `json` (the result
 * message) or `stream-json` (every SDK message, one JSON object per line, as Claude Code writes them).
 * Exit status: 0 on success, 1 on an error result, 130 / 143 / 129 after SIGINT / SIGTERM / SIGHUP (the
 * run interrupted, every tool process group killed, the transcript flushed), 141 when stdout's reader
 * went away (`goat -p … | head -1`), silently.
 * With `--input-format stream-json`, stdin also carries control requests (`control-session.ts`).
 *
 * What reaches a terminal is escaped as in the interactive mode (`terminal/safe-text.ts`): the text
 * answer when stdout is a terminal (written as is to a pipe or file, where it is data: `goat -p …
 * > script.sh` must get the model's bytes), and every diagnostic on stderr. JSON output carries C1
 * and bidi controls as `\u` escapes, which JSON.stringify leaves raw: the same JSON, and nothing a
 * terminal would obey when a user runs `--output-format json` in one.
 */
import type { Readable, Writable } from "node:stream";
import type { SDKResultMessage } from "../index.js";
import { type Query, query, type SDKUserMessageInput } from "../index.js";
import { killTrackedGroups, killTrackedGroupsNow } from "../tools/index.js";
import { type CliArgs, UsageError } from "./args.js";
import { type CliConfig, withMainAgent, withMcpServers } from "./config.js";
import type { ControlSession } from "./control/control-session.js";
import { retryLine } from "./render/renderer.js";
import { SIGNAL_KILL_GRACE_MS } from "./stop-grace.js";
import { jsonText, terminalSafe } from "./terminal/safe-text.js";

/** The streams and process hooks print mode uses (the real ones in the program). */
export interface PrintIO {
  stdin: Readable & { isTTY?: boolean };
  stdout: Writable & { isTTY?: boolean };
  stderr: Writable;
  /** Registers the handler of SIGINT, SIGTERM and SIGHUP; returns a function that removes it. */
  onSignal: (handler: (signal: StopSignal) => void) => () => void;
}

/** The signals print mode answers: Ctrl-C, a process manager's stop, the terminal going away. */
type StopSignal = "SIGINT" | "SIGTERM" | "SIGHUP";

/** The conventional exit status after each signal (128 + its number). */
const SIGNAL_EXIT: Record<StopSignal, number> = { SIGINT: 130, SIGTERM: 143, SIGHUP: 129 };
/** The exit status when stdout's reader went away (128 + SIGPIPE), as a Unix tool killed by SIGPIPE. */
const BROKEN_PIPE_EXIT = 141;

/** Runs print mode to the end and returns the exit status. */
export async function runPrint(args: CliArgs, cliConfig: CliConfig, io: PrintIO): Promise<number> {
  const config = await withMcpServers(cliConfig, args);
  let prompt: string | AsyncIterable<SDKUserMessageInput>;
  let options = config.options;
  let control: ControlSession | undefined;
  if (args.inputFormat === "stream-json") {
    // User messages and control requests on stdin (Claude Code's protocol with the Agent SDK).
    const { openControlSession } = await import("./control/control-session.js");
    control = await openControlSession(args, options, { ...io, hostMcpServers: config.hostMcpServers });
    prompt = control.prompt;
    options = control.options;
  } else prompt = await printPrompt(args, io);
  if (args.sessionMirror && args.outputFormat === "stream-json") {
    const { withSessionMirror } = await import("./control/session-mirror.js");
    options = withSessionMirror(
      options,
      (line) => io.stdout.write(line),
      (message) => io.stderr.write(`goat: ${message}\n`),
    );
  } else if (args.inputFormat === "stream-json") {
    // An Agent SDK host reads past sessions from Claude Code's folder (claude-transcript.ts).
    const { withClaudeTranscript } = await import("./control/claude-transcript.js");
    options = withClaudeTranscript(options, (message) => io.stderr.write(`goat: ${message}\n`));
  }
  // --agent: known once the host's initialize (which may define the agents) has been applied.
  let q: Query;
  try {
    q = query({ prompt, options: withMainAgent(options, args.agent) });
  } catch (error) {
    control?.close();
    throw error;
  }
  control?.attach(q);

  // The last resort if the program exits some other way: nothing of ours outlives it.
  process.once("exit", killTrackedGroupsNow);
  let interrupted = false;
  let stoppedBy: StopSignal | undefined;
  const removeSignals = io.onSignal((signal) => {
    if (signal !== "SIGINT") {
      // A process manager or the closing terminal ends the program: interrupt the run (every tool
      // call answered, tools' process groups killed), end the session, flush the transcript.
      stoppedBy = signal;
      interrupted = true;
      void q.interrupt();
      q.close();
      return;
    }
    if (interrupted) {
      // A second Ctrl-C: the user does not want to wait for the run to wind down.
      q.close();
      return;
    }
    stoppedBy = signal;
    interrupted = true;
    void q.interrupt();
  });
  // `goat -p … | head -1`: once the reader is gone, stop quietly instead of dying on EPIPE.
  let stdoutGone = false;
  const onStdoutError = (): void => {
    if (stdoutGone) return;
    stdoutGone = true;
    q.close();
  };
  // Stays attached: a write racing the close may still report its error after the session ended.
  io.stdout.on("error", onStdoutError);
  const write = (text: string): void => {
    if (!stdoutGone) io.stdout.write(text);
  };
  const shownWrite = (text: string): void => write(terminalSafe(text));

  let last: SDKResultMessage | undefined;
  const reportedMcp = new Set<string>();
  try {
    for await (const message of q) {
      control?.observe(message);
      if (args.outputFormat === "stream-json") {
        write(`${jsonText(message)}\n`);
        control?.written(message);
      } else if (message.type === "result")
        writeResult(message, args.outputFormat, io.stdout.isTTY === true ? shownWrite : write, io.stderr);
      else if (message.type === "system" && message.subtype === "init") {
        await reportFailedMcpServers(q, message.mcp_servers, reportedMcp, io.stderr);
      } else if (message.type === "system" && message.subtype === "informational") {
        io.stderr.write(`goat: ${terminalSafe(message.content)}\n`);
      } else if (message.type === "system" && message.subtype === "permission_denied") {
        // The run goes on (exit 0, as Claude Code's), but the user learns what was refused and which
        // flag would allow it: the message the model got, on one line.
        io.stderr.write(
          `goat: denied ${terminalSafe(`${message.tool_name}: ${message.message.replace(/\s*\n\s*/g, " ")}`)}\n`,
        );
      } else if (message.type === "system" && message.subtype === "api_retry") {
        // A stalled or overloaded provider: say why the answer is late instead of sitting silent.
        io.stderr.write(`goat: ${terminalSafe(retryLine(message))}\n`);
      }
      if (message.type === "result") {
        last = message;
        // Stdin may still be open in stream-json input: an interrupt ends the session here.
        if (interrupted) q.close();
      }
    }
  } finally {
    control?.close();
    // The session killed its tools' groups as it ended; this waits for any still dying (a
    // SIGTERM-deaf child gets SIGKILL), so the program never exits with a tool process left behind.
    await killTrackedGroups(stoppedBy ? SIGNAL_KILL_GRACE_MS : undefined);
    removeSignals();
  }
  if (stoppedBy) return SIGNAL_EXIT[stoppedBy];
  // What was written last may still be in flight: its failure, if the reader left, decides the status.
  if (!stdoutGone) await new Promise<void>((resolve) => io.stdout.write("", () => resolve()));
  if (stdoutGone) return BROKEN_PIPE_EXIT;
  // A host that closed stdin without sending a message (it only asked control questions) is no error.
  if (!last && control !== undefined && !control.hadInput()) return 0;
  if (!last) {
    io.stderr.write("goat: the session ended without a result\n");
    return 1;
  }
  return last.is_error ? 1 : 0;
}

function writeResult(
  result: SDKResultMessage,
  format: "text" | "json",
  write: (text: string) => void,
  stderr: Writable,
): void {
  if (format === "json") {
    write(`${jsonText(result)}\n`);
    return;
  }
  if (result.is_error) {
    stderr.write(`goat: ${terminalSafe(resultErrorText(result))}\n`);
    return;
  }
  // With --json-schema the answer is the structured output (the run ends on the tool call, often with
  // no text at all): print it as JSON.
  const text =
    result.subtype === "success" && result.structured_output !== undefined
      ? JSON.stringify(result.structured_output)
      : (result.result ?? "");
  write(text.endsWith("\n") ? text : `${text}\n`);
}

/** The text to show for an error result: its errors, else its final text, else its subtype. */
function resultErrorText(result: SDKResultMessage): string {
  if ("errors" in result && result.errors.length > 0) return result.errors.join("; ");
  return result.result || `the run ended with ${result.subtype}`;
}

/**
 * The prompt of a text-input run: the argument, stdin, or both. `echo DATA | goat -p "summarise"`
 * appends what was piped to the prompt, as Claude Code does.
 */
async function printPrompt(args: CliArgs, io: PrintIO): Promise<string> {
  if (args.prompt !== undefined) {
    if (io.stdin.isTTY) return args.prompt;
    const piped = await readPiped(io.stdin, io.stderr);
    return piped.trim() === "" ? args.prompt : `${args.prompt}\n\n${piped}`;
  }
  if (io.stdin.isTTY) throw new UsageError('no prompt: give one (goat -p "…") or pipe it on stdin');
  const text = await readAll(io.stdin);
  if (text.trim() === "") throw new UsageError('the prompt on stdin is empty: give one (goat -p "…")');
  return text;
}

/**
 * Says on stderr, once per server, which MCP servers failed to start and why: only `system/init`
 * carries their status, so with text or json output the model silently lacked their tools.
 */
async function reportFailedMcpServers(
  q: Query,
  servers: ReadonlyArray<{ name: string; status: string }>,
  reported: Set<string>,
  stderr: Writable,
): Promise<void> {
  const failed = servers.filter((s) => s.status === "failed" && !reported.has(s.name));
  if (failed.length === 0) return;
  const errors = new Map((await q.mcpServerStatus()).map((s) => [s.name, s.error]));
  for (const { name } of failed) {
    reported.add(name);
    const why = errors.get(name);
    stderr.write(`goat: ${terminalSafe(`MCP server "${name}" failed to start${why ? `: ${why}` : ""}`)}\n`);
  }
}

/** How long stdin may stay open and silent beside a prompt argument before goat stops waiting for it. */
const SILENT_STDIN_MS = 3000;

/**
 * Reads stdin to its end, unless it sends nothing at all for a while: a host that spawns
 * `goat -p "…"` with a pipe it never writes or closes must not hang the run (said on stderr).
 */
function readPiped(stream: Readable, stderr: Writable): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const done = (text: string) => {
      clearTimeout(timer);
      stream.off("data", onData);
      stream.off("end", onEnd);
      stream.off("error", onError);
      resolve(text);
    };
    const onData = (chunk: Buffer | string) => {
      clearTimeout(timer);
      chunks.push(typeof chunk === "string" ? Buffer.from(chunk) : chunk);
    };
    const onEnd = () => done(Buffer.concat(chunks).toString("utf8"));
    const onError = (error: Error) => {
      clearTimeout(timer);
      reject(error);
    };
    const timer = setTimeout(() => {
      stderr.write(
        `goat: stdin is open but sent nothing in ${SILENT_STDIN_MS / 1000} s; running with the prompt alone\n`,
      );
      stream.pause();
      done("");
    }, SILENT_STDIN_MS);
    stream.on("data", onData);
    stream.once("end", onEnd);
    stream.once("error", onError);
  });
}

async function readAll(stream: Readable): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(typeof chunk === "string" ? Buffer.from(chunk) : chunk);
  return Buffer.concat(chunks).toString("utf8");
}
