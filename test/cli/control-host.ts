/**
 * A host driving the built `goat` over the stream-json control protocol line by line, as the Claude
 * Agent SDK drives Claude Code: for the CLI tests of the protocol.
 */
import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { CLI, type CliFixture } from "./helpers.js";

/** A host process talking to `goat` over stdin and stdout, as the SDK does. */
export interface Host {
  child: ChildProcessWithoutNullStreams;
  lines: any[];
  send(line: object): void;
  /** The `count`-th stdout line (1-based) matching `pred`, waiting for it if needed. */
  waitFor(pred: (m: any) => boolean, count?: number): Promise<any>;
  /** Closes stdin and resolves with the exit code and stderr. */
  end(): Promise<{ code: number | null; stderr: string }>;
}

/**
 * Starts `goat -p --input-format stream-json …` in the fixture (or `goat` with exactly `argv`, as an
 * SDK spawns it); `sessions` collects it for cleanup.
 */
export function startHost(
  fx: CliFixture,
  sessions: Host[],
  extraArgs: string[] = [],
  options: { argv?: string[] } = {},
): Host {
  const argv = options.argv ?? [
    "-p",
    "--input-format",
    "stream-json",
    "--output-format",
    "stream-json",
    "--verbose",
    ...extraArgs,
  ];
  const child = spawn(process.execPath, [CLI, ...argv], {
    cwd: fx.work.path,
    env: fx.env,
    stdio: ["pipe", "pipe", "pipe"],
  });
  const lines: any[] = [];
  const waiters: Array<{ pred: (m: any) => boolean; count: number; resolve: (m: any) => void }> = [];
  let buffer = "";
  let stderr = "";
  const check = () => {
    for (const w of [...waiters]) {
      const hits = lines.filter(w.pred);
      if (hits.length >= w.count) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve(hits[w.count - 1]);
      }
    }
  };
  child.stdout.on("data", (chunk: Buffer) => {
    buffer += chunk.toString();
    let nl = buffer.indexOf("\n");
    while (nl >= 0) {
      const text = buffer.slice(0, nl);
      buffer = buffer.slice(nl + 1);
      if (text.trim() !== "") lines.push(JSON.parse(text));
      nl = buffer.indexOf("\n");
    }
    check();
  });
  child.stderr.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const exited = new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)));
  const host: Host = {
    child,
    lines,
    send: (line) => child.stdin.write(`${JSON.stringify(line)}\n`),
    waitFor(pred, count = 1) {
      return new Promise((resolve, reject) => {
        const timer = setTimeout(
          () =>
            reject(
              new Error(`no matching line in time; stdout: ${JSON.stringify(lines)}; stderr: ${stderr}`),
            ),
          12_000,
        );
        waiters.push({
          pred,
          count,
          resolve: (m) => {
            clearTimeout(timer);
            resolve(m);
          },
        });
        check();
      });
    },
    async end() {
      child.stdin.end();
      const code = await exited;
      return { code, stderr };
    },
  };
  sessions.push(host);
  return host;
}

export const user = (content: string) => ({
  type: "user",
  message: { role: "user", content },
  parent_tool_use_id: null,
});
export const control = (requestId: string, request: object) => ({
  type: "control_request",
  request_id: requestId,
  request,
});
export const responseTo = (requestId: string) => (m: any) =>
  m.type === "control_response" && m.response.request_id === requestId;
export const isResult = (m: any) => m.type === "result";

/** Waits until `done()` holds, polling every 20 ms. */
export async function waitUntil(done: () => boolean, timeoutMs = 10_000): Promise<void> {
  const start = Date.now();
  while (!done()) {
    if (Date.now() - start > timeoutMs) throw new Error("condition not met in time");
    await new Promise((r) => setTimeout(r, 20));
  }
}
