/**
 * Print mode (`goat -p`): one session, its output in `text` (the final answer), `json` (the result
 * message) or `stream-json` (every SDK message, one JSON object per line, as Claude Code writes them).
 * Exit status: 0 on success, 1 on an error result, 130 when interrupted by SIGINT.
 * With `--input-format stream-json`, stdin also carries control requests (`control-session.ts`).
 */
import type { Readable, Writable } from "node:stream";
import { type Query, query, type SDKUserMessageInput } from "../agent/query.js";
import type { SDKResultMessage } from "../agent/sdk-messages.js";
import { type CliArgs, UsageError } from "./args.js";
import { type CliConfig, withMainAgent, withMcpServers } from "./config.js";
import type { ControlSession } from "./control-session.js";

/** The streams and process hooks print mode uses (the real ones in the program). */
export interface PrintIO {
  stdin: Readable & { isTTY?: boolean };
  stdout: Writable;
  stderr: Writable;
  /** Registers the SIGINT handler; returns a function that removes it. */
  onSigint: (handler: () => void) => () => void;
}

/** Runs print mode to the end and returns the exit status. */
export async function runPrint(args: CliArgs, cliConfig: CliConfig, io: PrintIO): Promise<number> {
  const config = await withMcpServers(cliConfig, args);
  let prompt: string | AsyncIterable<SDKUserMessageInput>;
  let options = config.options;
  let control: ControlSession | undefined;
  if (args.inputFormat === "stream-json") {
    // User messages and control requests on stdin (Claude Code's protocol with the Agent SDK).
    const { openControlSession } = await import("./control-session.js");
    control = await openControlSession(args, options, { ...io, hostMcpServers: config.hostMcpServers });
    prompt = control.prompt;
    options = control.options;
  } else prompt = await printPrompt(args, io);
  // --agent: known once the host's initialize (which may define the agents) has been applied.
  let q: Query;
  try {
    q = query({ prompt, options: withMainAgent(options, args.agent) });
  } catch (error) {
    control?.close();
    throw error;
  }
  control?.attach(q);

  let interrupted = false;
  const removeSigint = io.onSigint(() => {
    if (interrupted) {
      // A second Ctrl-C: the user does not want to wait for the run to wind down.
      q.close();
      return;
    }
    interrupted = true;
    void q.interrupt();
  });

  let last: SDKResultMessage | undefined;
  try {
    for await (const message of q) {
      if (args.outputFormat === "stream-json") io.stdout.write(`${JSON.stringify(message)}\n`);
      else if (message.type === "result") writeResult(message, args.outputFormat, io);
      else if (message.type === "system" && message.subtype === "informational") {
        io.stderr.write(`goat: ${message.content}\n`);
      }
      if (message.type === "result") {
        last = message;
        // Stdin may still be open in stream-json input: an interrupt ends the session here.
        if (interrupted) q.close();
      }
    }
  } finally {
    removeSigint();
    control?.close();
  }
  if (interrupted) return 130;
  if (!last) {
    io.stderr.write("goat: the session ended without a result\n");
    return 1;
  }
  return last.is_error ? 1 : 0;
}

function writeResult(result: SDKResultMessage, format: "text" | "json", io: PrintIO): void {
  if (format === "json") {
    io.stdout.write(`${JSON.stringify(result)}\n`);
    return;
  }
  if (result.is_error) {
    io.stderr.write(`goat: ${resultErrorText(result)}\n`);
    return;
  }
  const text = result.result ?? "";
  io.stdout.write(text.endsWith("\n") ? text : `${text}\n`);
}

/** The text to show for an error result: its errors, else its final text, else its subtype. */
export function resultErrorText(result: SDKResultMessage): string {
  if ("errors" in result && result.errors.length > 0) return result.errors.join("; ");
  return result.result || `the run ended with ${result.subtype}`;
}

async function printPrompt(args: CliArgs, io: PrintIO): Promise<string> {
  if (args.prompt !== undefined) return args.prompt;
  if (io.stdin.isTTY) throw new UsageError('no prompt: give one (goat -p "…") or pipe it on stdin');
  const text = await readAll(io.stdin);
  if (text.trim() === "") throw new UsageError('the prompt on stdin is empty: give one (goat -p "…")');
  return text;
}

async function readAll(stream: Readable): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(typeof chunk === "string" ? Buffer.from(chunk) : chunk);
  return Buffer.concat(chunks).toString("utf8");
}
