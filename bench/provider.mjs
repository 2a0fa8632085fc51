/**
 * Benchmark: the cost of one streamed model call through our Anthropic provider (built dist/) against two
 * raw baselines on the same instant server in the same run: `fetch` + minimal SSE parse, and `node:http`
 * with a keep-alive agent + minimal SSE parse. The server runs in a child process so only client CPU is
 * counted. Prints a table and a final JSON line. Target: ours within 1.2x of the node:http baseline.
 *
 *   npx tsc -p tsconfig.build.json && node bench/provider.mjs [calls=2000]
 */
import { spawn } from "node:child_process";
import http from "node:http";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";

const here = fileURLToPath(new URL(".", import.meta.url));
const CALLS = Number(process.argv[2] ?? 2000);
const WARMUP = 300;
const ROUNDS = 4;

const { createAnthropicProvider } = await import("../dist/llm/anthropic.js");
const { accumulate } = await import("../dist/llm/accumulate.js");

const REQUEST = {
  model: "claude-sonnet-4-5",
  system: "You are a benchmark.",
  maxTokens: 1024,
  messages: [{ role: "user", content: "Say something short." }],
};
// The baselines send the same bytes our provider sends.
const WIRE_BODY = JSON.stringify({
  model: REQUEST.model,
  max_tokens: 1024,
  stream: true,
  system: [{ type: "text", text: REQUEST.system, cache_control: { type: "ephemeral" } }],
  messages: [
    {
      role: "user",
      content: [{ type: "text", text: "Say something short.", cache_control: { type: "ephemeral" } }],
    },
  ],
});
const HEADERS = {
  "x-api-key": "bench",
  "anthropic-version": "2023-06-01",
  "content-type": "application/json",
  accept: "text/event-stream",
};

/** Minimal SSE consumption a hand-written client would do: split lines, JSON.parse data lines, join text. */
function minimalSse() {
  let rest = "";
  let text = "";
  return {
    push(chunk) {
      const lines = (rest + chunk).split("\n");
      rest = lines.pop();
      for (const line of lines) {
        if (!line.startsWith("data: ")) continue;
        const ev = JSON.parse(line.slice(6));
        if (ev.type === "content_block_delta") text += ev.delta.text;
      }
    },
    text: () => text,
  };
}

function variants(port) {
  const base = `http://127.0.0.1:${port}`;
  const provider = createAnthropicProvider({ baseURL: base, apiKey: "bench" });
  const agent = new http.Agent({ keepAlive: true });
  return {
    ours: async () => {
      const m = await accumulate(provider.stream(REQUEST));
      if (m.content.length !== 1) throw new Error("bad answer");
    },
    "node:http": () =>
      new Promise((resolve, reject) => {
        const req = http.request(
          `${base}/v1/messages`,
          { method: "POST", agent, headers: { ...HEADERS, "content-length": Buffer.byteLength(WIRE_BODY) } },
          (res) => {
            const p = minimalSse();
            res.setEncoding("utf8");
            res.on("data", (c) => p.push(c));
            res.on("end", () => resolve(p.text()));
            res.on("error", reject);
          },
        );
        req.on("error", reject);
        req.end(WIRE_BODY);
      }),
    fetch: async () => {
      const res = await fetch(`${base}/v1/messages`, { method: "POST", headers: HEADERS, body: WIRE_BODY });
      const p = minimalSse();
      const decoder = new TextDecoder();
      for await (const chunk of res.body) p.push(decoder.decode(chunk, { stream: true }));
      return p.text();
    },
  };
}

async function measure(fn, n, cpu, wall) {
  for (let i = 0; i < n; i++) {
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    await fn();
    const c = process.cpuUsage(c0);
    wall.push(performance.now() - t0);
    cpu.push((c.user + c.system) / 1000);
  }
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
};

async function startServer() {
  const child = spawn(process.execPath, [`${here}support/instant-server.mjs`], {
    stdio: ["pipe", "pipe", "inherit"],
  });
  const line = await new Promise((resolve) => createInterface({ input: child.stdout }).once("line", resolve));
  return { port: JSON.parse(line).port, stop: () => child.stdin.end() };
}

/** Peak RSS of a fresh process that runs one variant only (so each figure is that variant's own). */
async function peakRss(name, port) {
  const child = spawn(process.execPath, [fileURLToPath(import.meta.url), "--rss-of", name, String(port)], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  const line = await new Promise((resolve) => createInterface({ input: child.stdout }).once("line", resolve));
  return JSON.parse(line).maxRssMB;
}

if (process.argv[2] === "--rss-of") {
  const fn = variants(Number(process.argv[4]))[process.argv[3]];
  for (let i = 0; i < 2000; i++) await fn();
  process.stdout.write(`${JSON.stringify({ maxRssMB: process.resourceUsage().maxRSS / 1024 })}\n`);
  process.exit(0);
}

const server = await startServer();
try {
  const v = variants(server.port);
  const names = Object.keys(v);
  for (const name of names) await measure(v[name], WARMUP, [], []);
  const cpu = Object.fromEntries(names.map((n) => [n, []]));
  const wall = Object.fromEntries(names.map((n) => [n, []]));
  const per = Math.ceil(CALLS / ROUNDS);
  // Interleaved rounds, rotating the order, so drift on a shared machine hits every variant alike.
  for (let r = 0; r < ROUNDS; r++) {
    for (let k = 0; k < names.length; k++) {
      const name = names[(k + r) % names.length];
      await measure(v[name], per, cpu[name], wall[name]);
    }
  }
  const rss = {};
  for (const name of names) rss[name] = await peakRss(name, server.port);
  const result = {};
  console.log(`streamed call on an instant server, ${per * ROUNDS} calls each (median)`);
  console.log("variant      cpu ms/call  wall ms/call  peak RSS MB");
  for (const name of names) {
    result[name] = { cpuMs: median(cpu[name]), wallMs: median(wall[name]), peakRssMB: rss[name] };
    console.log(
      `${name.padEnd(12)} ${result[name].cpuMs.toFixed(3).padStart(11)}  ${result[name].wallMs.toFixed(3).padStart(12)}  ${rss[name].toFixed(1).padStart(11)}`,
    );
  }
  const ratios = {
    oursVsNodeHttpCpu: result.ours.cpuMs / result["node:http"].cpuMs,
    oursVsNodeHttpWall: result.ours.wallMs / result["node:http"].wallMs,
    oursVsFetchCpu: result.ours.cpuMs / result.fetch.cpuMs,
    oursVsFetchWall: result.ours.wallMs / result.fetch.wallMs,
  };
  console.log(
    `ours/node:http cpu ${ratios.oursVsNodeHttpCpu.toFixed(2)}x wall ${ratios.oursVsNodeHttpWall.toFixed(2)}x; ours/fetch cpu ${ratios.oursVsFetchCpu.toFixed(2)}x wall ${ratios.oursVsFetchWall.toFixed(2)}x (target: <= 1.2x node:http)`,
  );
  console.log(
    JSON.stringify({
      bench: "provider",
      calls: per * ROUNDS,
      ...result,
      ratios,
      target: 1.2,
      withinTarget: ratios.oursVsNodeHttpCpu <= 1.2,
    }),
  );
} finally {
  server.stop();
}
