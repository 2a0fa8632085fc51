/**
 * Benchmark: `goat acp` against print mode on the same turn (one short streamed answer from an
 * instant mock server, so what is measured is Goat). For ACP, one process and one session: the time
 * from sending `session/prompt` to the first `session/update` (the first text chunk) and to the
 * prompt's answer, the session's first prompt apart from the later ones. For print mode
 * (`goat -p … --output-format stream-json --include-partial-messages`), one process per turn: spawn
 * to the first text delta on stdout and spawn to exit. Medians of N. Also `goat acp`'s start: spawn
 * to the `initialize` answer and to the `session/new` answer.
 *
 *   npm run build && node bench/acp.mjs [turns=20]
 */
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { startInstantServer } from "./support/instant-server.mjs";

const root = fileURLToPath(new URL("..", import.meta.url));
const CLI = resolve(root, JSON.parse(readFileSync(join(root, "package.json"), "utf8")).bin.goat);
const TURNS = Number(process.argv[2] ?? 20);

const server = await startInstantServer();
const home = mkdtempSync(join(tmpdir(), "goat-bench-acp-"));
const env = {
  PATH: process.env.PATH,
  HOME: home,
  GOAT_HOME: home,
  CLAUDE_CONFIG_DIR: join(home, "claude"),
  ANTHROPIC_BASE_URL: `http://127.0.0.1:${server.port}`,
  ANTHROPIC_API_KEY: "bench",
};

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const ms = (x) => `${x.toFixed(1)} ms`;

/** One `goat acp` process: a JSON-RPC line client with a hook on every notification. */
function startAcp() {
  const child = spawn(process.execPath, [CLI, "acp"], { env, cwd: home, stdio: ["pipe", "pipe", "inherit"] });
  const pending = new Map();
  let onUpdate = () => {};
  let buffer = "";
  let nextId = 1;
  child.stdout.on("data", (chunk) => {
    buffer += chunk.toString();
    for (let nl = buffer.indexOf("\n"); nl >= 0; nl = buffer.indexOf("\n")) {
      const message = JSON.parse(buffer.slice(0, nl));
      buffer = buffer.slice(nl + 1);
      if (message.method === "session/update") onUpdate(message.params.update);
      else if (message.id !== undefined && pending.has(message.id)) {
        pending.get(message.id)(message);
        pending.delete(message.id);
      }
    }
  });
  return {
    child,
    set onUpdate(fn) {
      onUpdate = fn;
    },
    request(method, params) {
      const id = nextId++;
      child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", id, method, params })}\n`);
      return new Promise((r) => pending.set(id, r));
    },
  };
}

async function benchAcp() {
  const t0 = performance.now();
  const acp = startAcp();
  await acp.request("initialize", { protocolVersion: 1, clientCapabilities: {} });
  const initialized = performance.now() - t0;
  const { result } = await acp.request("session/new", { cwd: home, mcpServers: [] });
  const sessionReady = performance.now() - t0;
  const firstUpdate = [];
  const turn = [];
  for (let i = 0; i <= TURNS; i++) {
    let first;
    const t0 = performance.now();
    acp.onUpdate = (u) => {
      if (first === undefined && u.sessionUpdate === "agent_message_chunk") first = performance.now() - t0;
    };
    const answer = await acp.request("session/prompt", {
      sessionId: result.sessionId,
      prompt: [{ type: "text", text: `turn ${i}` }],
    });
    if (answer.result?.stopReason !== "end_turn") throw new Error(JSON.stringify(answer));
    firstUpdate.push(first);
    turn.push(performance.now() - t0);
  }
  acp.child.stdin.end();
  await new Promise((r) => acp.child.once("exit", r));
  return { firstUpdate, turn, initialized, sessionReady };
}

function printTurn() {
  return new Promise((resolvePromise, reject) => {
    const t0 = performance.now();
    const child = spawn(
      process.execPath,
      [CLI, "-p", "turn", "--output-format", "stream-json", "--include-partial-messages", "--verbose"],
      { env, cwd: home, stdio: ["ignore", "pipe", "inherit"] },
    );
    let first;
    child.stdout.on("data", (chunk) => {
      if (first === undefined && chunk.toString().includes('"text_delta"')) first = performance.now() - t0;
    });
    child.once("error", reject);
    child.once("exit", (code) => {
      if (code !== 0) reject(new Error(`goat -p exited ${code}`));
      else resolvePromise({ first, total: performance.now() - t0 });
    });
  });
}

async function benchPrint() {
  const firstUpdate = [];
  const turn = [];
  for (let i = 0; i < TURNS; i++) {
    const { first, total } = await printTurn();
    firstUpdate.push(first);
    turn.push(total);
  }
  return { firstUpdate, turn };
}

try {
  const acp = await benchAcp();
  const print = await benchPrint();
  console.log(`goat acp, one session (${TURNS} turns after the first; median):`);
  console.log(
    `  spawn to initialize answer ${ms(acp.initialized)}, to session/new answer ${ms(acp.sessionReady)}`,
  );
  console.log(`  first prompt:  first update ${ms(acp.firstUpdate[0])}, answer ${ms(acp.turn[0])}`);
  console.log(
    `  later prompts: first update ${ms(median(acp.firstUpdate.slice(1)))}, answer ${ms(median(acp.turn.slice(1)))}`,
  );
  console.log(`goat -p, one process per turn (${TURNS} runs; median):`);
  console.log(
    `  spawn to first text delta ${ms(median(print.firstUpdate))}, spawn to exit ${ms(median(print.turn))}`,
  );
} finally {
  await server.close();
  rmSync(home, { recursive: true, force: true });
}
