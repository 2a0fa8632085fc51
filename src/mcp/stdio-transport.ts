/**
 * The stdio client transport: runs an MCP server as the leader of its own process group and speaks
 * newline-delimited JSON-RPC on its stdin and stdout. Ours rather than the SDK's so that close() kills
 * the whole group (an `npx` or `sh -c` wrapper's children too) and so a failure can quote the
 * server's stderr. Loaded lazily: it imports the MCP SDK.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { ReadBuffer, serializeMessage } from "@modelcontextprotocol/sdk/shared/stdio.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { killProcessGroup, trackChildGroup } from "../tools/process-tree.js";

/** How much of the server's stderr is kept for error messages. */
const STDERR_TAIL_BYTES = 4096;
/** How long a server gets to exit on its own after its stdin closes, before its group is signalled. */
const EXIT_ON_EOF_MS = 300;

/** What to run. */
export interface StdioParams {
  command: string;
  args?: string[];
  env?: Record<string, string>;
  cwd: string;
  /** The environment the server's own `env` is added to (the session's); default `process.env`. */
  baseEnv?: Record<string, string | undefined>;
}

/** A stdio transport that also reports the child's pid, exit and stderr tail. */
export interface GroupStdioTransport extends Transport {
  readonly pid: number | undefined;
  /** Why the process ended, e.g. "exited with code 1", or undefined while it runs. */
  exitDescription(): string | undefined;
  stderrTail(): string;
}

/** Makes a transport that spawns the server on `start()`. */
export function createStdioTransport(params: StdioParams): GroupStdioTransport {
  let child: ChildProcess | undefined;
  let exited: string | undefined;
  let stderr = "";
  let closing: Promise<void> | undefined;
  let closeReported = false;
  const readBuffer = new ReadBuffer();
  // The child's "error" and "close" events and our own close() may all happen: report one close.
  const reportClose = () => {
    if (closeReported) return;
    closeReported = true;
    transport.onclose?.();
  };

  const transport: GroupStdioTransport = {
    get pid() {
      return child?.pid;
    },
    exitDescription: () => exited,
    stderrTail: () => stderr.trim(),
    start: () =>
      new Promise<void>((resolve, reject) => {
        if (closing) return reject(new Error("the transport was closed before it started"));
        const proc = spawn(params.command, params.args ?? [], {
          cwd: params.cwd,
          env: { ...(params.baseEnv ?? process.env), ...params.env },
          stdio: ["pipe", "pipe", "pipe"],
          detached: true,
        });
        child = proc;
        trackChildGroup(proc);
        proc.once("error", (err) => {
          exited ??= `could not be started (${err.message})`;
          reject(err);
          transport.onerror?.(err);
          reportClose();
        });
        proc.once("spawn", () => resolve());
        proc.once("exit", (code, signal) => {
          exited = signal ? `was killed by ${signal}` : `exited with code ${code}`;
        });
        proc.once("close", reportClose);
        proc.stdin?.on("error", (err) => transport.onerror?.(err));
        proc.stderr?.on("data", (chunk: Buffer) => {
          stderr = (stderr + chunk.toString("utf8")).slice(-STDERR_TAIL_BYTES);
        });
        proc.stdout?.on("data", (chunk: Buffer) => deliver(readBuffer, chunk, transport));
      }),
    send: (message) =>
      new Promise<void>((resolve, reject) => {
        const stdin = child?.stdin;
        if (!stdin || stdin.destroyed || exited) {
          reject(new Error(`MCP server ${exited ?? "is not running"}`));
          return;
        }
        if (stdin.write(serializeMessage(message))) resolve();
        else stdin.once("drain", resolve);
      }),
    // Every caller (the client on a failed connect, the connector, the manager) waits for the same
    // close, so nobody returns while the process group is still being killed.
    close: () => {
      closing ??= closeNow();
      return closing;
    },
  };

  async function closeNow(): Promise<void> {
    if (child?.pid !== undefined) await stopGroup(child, child.pid);
    readBuffer.clear();
    reportClose();
  }
  return transport;
}

/** Hands the messages completed by `chunk` to the transport. */
function deliver(readBuffer: ReadBuffer, chunk: Buffer, transport: GroupStdioTransport): void {
  try {
    readBuffer.append(chunk);
  } catch (err) {
    // A message over the buffer limit: the stream cannot be resynchronised, so give up on it.
    transport.onerror?.(err as Error);
    void transport.close();
    return;
  }
  for (;;) {
    let message: JSONRPCMessage | null;
    try {
      message = readBuffer.readMessage();
    } catch (err) {
      // A line that is not JSON-RPC (a stray console.log): report it and keep reading.
      transport.onerror?.(err as Error);
      continue;
    }
    if (message === null) break;
    transport.onmessage?.(message);
  }
}

/** Ends the server: its stdin closed, a moment to exit, then its whole process group killed. */
async function stopGroup(proc: ChildProcess, pid: number): Promise<void> {
  const exitedNow = new Promise<void>((resolve) => {
    if (proc.exitCode !== null || proc.signalCode !== null) resolve();
    else proc.once("exit", () => resolve());
  });
  proc.stdin?.end();
  // Well-behaved servers exit when their stdin closes; give them a moment, then kill the group
  // anyway: a wrapper's children may still be running after the leader is gone.
  await Promise.race([exitedNow, new Promise((r) => setTimeout(r, EXIT_ON_EOF_MS).unref())]);
  await killProcessGroup(pid, 1000);
  proc.stdout?.destroy();
  proc.stderr?.destroy();
}
