/**
 * Benchmark (issue 33, item 5): does one process's heap stay flat over 1,000 sequential query() runs
 * with DEFAULT options (transcripts persisted under a temp GOAT_HOME, the default tools, default
 * permission mode)? Two workloads, each in its own `node --expose-gc` child so the heap is its own:
 * - `text`: each run is one prompt and a text answer;
 * - `tool`: each run's model first calls Read on a small file, then answers.
 * The model server is a child process too (its memory is not ours). Every 100 runs the child forces
 * GC and prints the heap used and the open handles (process._getActiveHandles()); the figure is the
 * growth of the heap after GC from run 100 (code warm) to run N. Goal: under 5 MB, handles flat.
 *
 * With HEAP_SNAP=/tmp/x the child also writes heap snapshots at runs 100 and N (/tmp/x-100.heapsnapshot…)
 * to compare what grew.
 *
 *   npm run build && node bench/heap.mjs [runs=1000] [text|tool|both]
 */
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import http from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { cannedAnthropicAnswer } from "./support/instant-server.mjs";
import { lastLine } from "./support/measure.mjs";

const self = fileURLToPath(import.meta.url);
const sse = (event, data) => `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;

/** An answer calling Read on `filePath` (one write, as a real stream's last chunk would arrive). */
function readCallAnswer(filePath) {
  const usage = {
    input_tokens: 120,
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: 0,
    output_tokens: 1,
  };
  return [
    sse("message_start", {
      type: "message_start",
      message: { id: "msg_h", type: "message", role: "assistant", model: "bench", content: [], usage },
    }),
    sse("content_block_start", {
      type: "content_block_start",
      index: 0,
      content_block: { type: "tool_use", id: "toolu_read", name: "Read", input: {} },
    }),
    sse("content_block_delta", {
      type: "content_block_delta",
      index: 0,
      delta: { type: "input_json_delta", partial_json: JSON.stringify({ file_path: filePath }) },
    }),
    sse("content_block_stop", { type: "content_block_stop", index: 0 }),
    sse("message_delta", {
      type: "message_delta",
      delta: { stop_reason: "tool_use" },
      usage: { output_tokens: 9 },
    }),
    sse("message_stop", { type: "message_stop" }),
  ].join("");
}

/** The model server: a request with a tool_result gets the text answer; a first request in tool mode a Read call. */
function serve(readPath) {
  const text = Buffer.from(cannedAnthropicAnswer());
  const call = Buffer.from(readCallAnswer(readPath));
  const server = http.createServer((req, res) => {
    const parts = [];
    req.on("data", (d) => parts.push(d));
    req.on("end", () => {
      const body = Buffer.concat(parts).toString("utf8");
      const answer = readPath && !body.includes('"tool_result"') ? call : text;
      res.writeHead(200, { "content-type": "text/event-stream", "content-length": answer.length });
      res.end(answer);
    });
  });
  server.keepAliveTimeout = 60_000;
  server.listen(0, "127.0.0.1", () =>
    process.stdout.write(`${JSON.stringify({ port: server.address().port })}\n`),
  );
  process.stdin.on("end", () => process.exit(0));
  process.stdin.resume();
}

/** The measured child: `runs` sequential query() runs, heap after GC and handles every 100. */
async function measure(runs, port, mode, cwd) {
  const { query } = await import("../dist/index.js");
  const samples = [];
  const sample = (run) => {
    globalThis.gc();
    globalThis.gc();
    samples.push({
      run,
      heapMB: Math.round((process.memoryUsage().heapUsed / 2 ** 20) * 10) / 10,
      handles: process._getActiveHandles().length,
      // Unref'd sockets (a keep-alive agent's idle ones) are not handles; open descriptors count them.
      fds: existsSync("/proc/self/fd") ? readdirSync("/proc/self/fd").length : undefined,
    });
    process.stderr.write(
      `  ${mode} run ${run}: heap ${samples.at(-1).heapMB} MB, handles ${samples.at(-1).handles}, fds ${samples.at(-1).fds}\n`,
    );
  };
  sample(0);
  for (let i = 1; i <= runs; i++) {
    const q = query({
      prompt: mode === "tool" ? "Read the notes file, then answer." : "Say something.",
      options: {
        cwd,
        model: "anthropic/claude-sonnet-4-5",
        provider: { type: "anthropic", baseURL: `http://127.0.0.1:${port}`, apiKey: "x" },
      },
    });
    let result;
    for await (const m of q) if (m.type === "result") result = m;
    const turns = mode === "tool" ? 2 : 1;
    if (result?.subtype !== "success" || result.num_turns !== turns)
      throw new Error(`bad run ${JSON.stringify(result)}`);
    if (i % 100 === 0) sample(i);
    if (process.env.HEAP_SNAP && (i === 100 || i === runs)) {
      globalThis.gc();
      (await import("node:v8")).writeHeapSnapshot(`${process.env.HEAP_SNAP}-${i}.heapsnapshot`);
    }
  }
  // Growth is measured from run 100: the first runs warm code, caches of fixed size and the JIT.
  const from = samples.find((s) => s.run === Math.min(100, runs));
  const to = samples.at(-1);
  process.stdout.write(
    `${JSON.stringify({ mode, runs, heapGrowthMB: Math.round((to.heapMB - from.heapMB) * 10) / 10, handlesFrom: from.handles, handlesTo: to.handles, fdsFrom: from.fds, fdsTo: to.fds, samples })}\n`,
  );
  process.exit(0);
}

async function runMode(runs, mode) {
  const home = mkdtempSync(join(tmpdir(), "goat-bench-heap-"));
  const notes = join(home, "project", "notes.txt");
  mkdirSync(join(home, "project"));
  writeFileSync(notes, "a small file the model reads\n".repeat(20));
  const server = spawn(process.execPath, [self, "--server", mode === "tool" ? notes : ""], {
    stdio: ["pipe", "pipe", "inherit"],
  });
  try {
    const { port } = JSON.parse(
      await new Promise((r) => createInterface({ input: server.stdout }).once("line", r)),
    );
    const child = spawn(
      process.execPath,
      ["--expose-gc", self, "--child", String(runs), String(port), mode, join(home, "project")],
      {
        stdio: ["ignore", "pipe", "inherit"],
        env: { ...process.env, GOAT_HOME: join(home, "goat") },
      },
    );
    return await lastLine(child);
  } finally {
    server.stdin.end();
    rmSync(home, { recursive: true, force: true });
  }
}

if (process.argv[2] === "--server") serve(process.argv[3]);
else if (process.argv[2] === "--child") {
  const [, , , runs, port, mode, cwd] = process.argv;
  await measure(Number(runs), Number(port), mode, cwd);
} else {
  const runs = Number(process.argv[2] ?? 1000);
  const which = process.argv[3] ?? "both";
  const modes = which === "both" ? ["text", "tool"] : [which];
  const results = [];
  for (const mode of modes) results.push(await runMode(runs, mode));
  for (const r of results) {
    console.error(
      `${r.mode}: heap after GC grew ${r.heapGrowthMB} MB from run 100 to ${r.runs}; handles ${r.handlesFrom} -> ${r.handlesTo}, open fds ${r.fdsFrom} -> ${r.fdsTo} (goal under 5 MB, handles and fds flat)`,
    );
  }
  console.log(JSON.stringify({ bench: "heap", results: results.map(({ samples, ...r }) => r) }));
}
