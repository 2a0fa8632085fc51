/**
 * Measurement: tool processes left behind when `goat` is ended the ways a process manager or a
 * terminal ends it. A model server answers with a Bash call whose shell records its process group and
 * starts two `sleep 1000` children; then goat gets SIGTERM, SIGHUP, or (stream-json input, the tool in
 * the background) stdin EOF after its result. Counted: live processes of that group 500 ms after goat
 * exited (goal 0), and goat's exit status. Leftovers are killed by their group id afterwards.
 * Pass another build's bin to compare (e.g. the previous commit's).
 *
 *   npm run build && node bench/process-hygiene.mjs [runs=3] [cli=the package's bin]
 */
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import http from "node:http";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const bin = JSON.parse(readFileSync(join(root, "package.json"), "utf8")).bin.goat;
const RUNS = Number(process.argv[2] ?? 3);
const CLI = resolve(root, process.argv[3] ?? bin);
if (!existsSync(CLI)) {
  console.error(`${CLI} is missing: run npm run build first`);
  process.exit(1);
}

const sse = (event, data) => `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
function answer(blocks) {
  const out = [
    sse("message_start", { type: "message_start", message: { id: "m", usage: { input_tokens: 1 } } }),
  ];
  blocks.forEach((b, index) => {
    out.push(
      sse("content_block_start", {
        type: "content_block_start",
        index,
        content_block: { ...b, ...(b.type === "tool_use" ? { input: {} } : { text: "" }) },
      }),
    );
    const delta =
      b.type === "tool_use"
        ? { type: "input_json_delta", partial_json: JSON.stringify(b.input) }
        : { type: "text_delta", text: b.text };
    out.push(sse("content_block_delta", { type: "content_block_delta", index, delta }));
    out.push(sse("content_block_stop", { type: "content_block_stop", index }));
  });
  const stop = blocks.some((b) => b.type === "tool_use") ? "tool_use" : "end_turn";
  out.push(
    sse("message_delta", {
      type: "message_delta",
      delta: { stop_reason: stop },
      usage: { output_tokens: 1 },
    }),
  );
  out.push(sse("message_stop", { type: "message_stop" }));
  return out.join("");
}

/** Live (non-zombie) members of process group `pgid`, from /proc. */
function groupMembers(pgid) {
  const members = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    let stat;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, "utf8");
    } catch {
      continue;
    }
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    if (Number(fields[2]) === pgid && fields[0] !== "Z" && fields[0] !== "X") members.push(Number(entry));
  }
  return members;
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
async function until(check, ms = 15_000) {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = check();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error("timed out");
    await sleep(20);
  }
}

async function scenario(kind) {
  const work = mkdtempSync(join(tmpdir(), "goat-hygiene-"));
  const pidFile = join(work, "shell.pid");
  const command = `echo $$ > ${pidFile}; sleep 1000 & sleep 1000 & wait`;
  let calls = 0;
  const server = http.createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      calls++;
      res.writeHead(200, { "content-type": "text/event-stream" });
      const input = kind === "eof" ? { command, run_in_background: true } : { command };
      res.end(
        calls === 1
          ? answer([{ type: "tool_use", id: "t1", name: "Bash", input }])
          : answer([{ type: "text", text: "done" }]),
      );
    });
  });
  await new Promise((r) => server.listen(0, "127.0.0.1", r));
  const env = {
    PATH: process.env.PATH,
    HOME: work,
    GOAT_HOME: work,
    ANTHROPIC_API_KEY: "k",
    ANTHROPIC_BASE_URL: `http://127.0.0.1:${server.address().port}`,
  };
  const args =
    kind === "eof"
      ? [
          "-p",
          "--input-format",
          "stream-json",
          "--output-format",
          "stream-json",
          "--permission-mode",
          "bypassPermissions",
        ]
      : ["-p", "go", "--output-format", "stream-json", "--verbose", "--permission-mode", "bypassPermissions"];
  const child = spawn(process.execPath, [CLI, ...args], {
    cwd: work,
    env,
    stdio: ["pipe", "pipe", "ignore"],
  });
  let out = "";
  child.stdout.on("data", (b) => {
    out += b;
  });
  const exited = new Promise((r) => child.on("close", (code, signal) => r(code ?? signal)));
  if (kind === "eof")
    child.stdin.write(`${JSON.stringify({ type: "user", message: { role: "user", content: "go" } })}\n`);
  else child.stdin.end();
  const pgid = await until(() => {
    const t = existsSync(pidFile) ? readFileSync(pidFile, "utf8").trim() : "";
    return t ? Number(t) : undefined;
  });
  await until(() => (groupMembers(pgid).length >= 3 ? true : undefined));
  if (kind === "eof") {
    await until(() => (out.includes('"type":"result"') ? true : undefined));
    child.stdin.end();
  } else child.kill(kind);
  const status = await Promise.race([exited, sleep(15_000).then(() => "still running")]);
  if (status === "still running") child.kill("SIGKILL");
  await sleep(500);
  const left = groupMembers(pgid).length;
  try {
    process.kill(-pgid, "SIGKILL"); // clean up what the measured program left
  } catch {}
  server.close();
  rmSync(work, { recursive: true, force: true });
  return { left, status };
}

const results = {};
for (const kind of ["SIGTERM", "SIGHUP", "eof"]) {
  const runs = [];
  for (let i = 0; i < RUNS; i++) runs.push(await scenario(kind));
  results[kind] = { processesLeft: runs.map((r) => r.left), exit: runs.map((r) => r.status) };
}
console.log(JSON.stringify({ bench: "process-hygiene", cli: CLI, runs: RUNS, ...results }));
