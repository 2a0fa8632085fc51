/**
 * Benchmark: one streamed call through our Bedrock (InvokeModel for Claude, ConverseStream for the
 * others) and Vertex providers (built dist/) against a raw client of the same wire on the same instant
 * server, and against the official clients when test/llm/official-cloud has them installed. The raw
 * Bedrock clients sign each call (SigV4, our signer: any client must sign) and decode the event-stream
 * frames minimally (lengths, payload, base64 for InvokeModel, JSON; no checksums, which ours checks);
 * the raw Vertex client posts with a bearer token and splits SSE lines.
 * The server runs in a child process, so only client CPU is counted.
 *
 *   npx tsc -p tsconfig.build.json && node bench/cloud-provider.mjs [calls=2000]
 */
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import http from "node:http";
import { createRequire } from "node:module";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";

const here = fileURLToPath(new URL(".", import.meta.url));
const CALLS = Number(process.argv[2] ?? 2000);
const WARMUP = 300;
// Many short rounds, rotating the order: on a shared machine, load that comes and goes hits every variant alike.
const ROUNDS = 20;

const { createBedrockProvider } = await import("../dist/llm/bedrock.js");
const { createVertexProvider } = await import("../dist/llm/vertex.js");
const { accumulate } = await import("../dist/llm/accumulate.js");
const { anthropicRequestBody } = await import("../dist/llm/anthropic-request.js");
const { signRequest } = await import("../dist/llm/aws-sigv4.js");
const { converseRequestBody } = await import("../dist/llm/bedrock-converse.js");

const officialModules = `${here}../test/llm/official-cloud/node_modules`;
const official = existsSync(`${officialModules}/@anthropic-ai/bedrock-sdk`)
  ? createRequire(`${officialModules}/index.js`)
  : undefined;

const REQUEST = {
  model: "claude-sonnet-4-5",
  system: "You are a benchmark.",
  maxTokens: 1024,
  messages: [{ role: "user", content: "Say something short." }],
};
const BEDROCK_MODEL = "us.anthropic.claude-sonnet-4-5-20250929-v1:0";
const CONVERSE_MODEL = "us.amazon.nova-pro-v1:0";
const VERTEX_MODEL = "claude-sonnet-4-5@20250929";
const credentials = { accessKeyId: "AKIDBENCH", secretAccessKey: "bench-secret" };
const env = {
  AWS_ACCESS_KEY_ID: credentials.accessKeyId,
  AWS_SECRET_ACCESS_KEY: credentials.secretAccessKey,
  AWS_REGION: "us-east-1",
};

/** The text of one InvokeModel chunk payload: base64 inside JSON, an Anthropic event inside that. */
const invokeText = (payload) => {
  const ev = JSON.parse(Buffer.from(JSON.parse(payload).bytes, "base64").toString());
  return ev.type === "content_block_delta" ? ev.delta.text : "";
};
/** The text of one ConverseStream payload (only contentBlockDelta events carry `delta.text`). */
const converseText = (payload) => JSON.parse(payload).delta?.text ?? "";

/** Minimal event-stream consumption: frame lengths, the payload, its text; the text joined. */
function minimalEventStream(textOf) {
  let buffered = Buffer.alloc(0);
  let text = "";
  return {
    push(chunk) {
      buffered = buffered.length ? Buffer.concat([buffered, chunk]) : chunk;
      while (buffered.length >= 12 && buffered.length >= buffered.readUInt32BE(0)) {
        const total = buffered.readUInt32BE(0);
        const headers = buffered.readUInt32BE(4);
        text += textOf(buffered.subarray(12 + headers, total - 4).toString());
        buffered = buffered.subarray(total);
      }
    },
    text: () => text,
  };
}

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

function post(agent, url, headers, body, textOf) {
  return new Promise((resolve, reject) => {
    const req = http.request(
      url,
      { method: "POST", agent, headers: { ...headers, "content-length": Buffer.byteLength(body) } },
      (res) => {
        const p = textOf ? minimalEventStream(textOf) : minimalSse();
        if (!textOf) res.setEncoding("utf8");
        res.on("data", (c) => p.push(c));
        res.on("end", () => resolve(p.text()));
        res.on("error", reject);
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

function variants(port) {
  const base = `http://127.0.0.1:${port}`;
  const agent = new http.Agent({ keepAlive: true });
  const bedrock = createBedrockProvider({ baseURL: base, env });
  const vertex = createVertexProvider({
    baseURL: `${base}/v1`,
    apiKey: "bench-token",
    project: "p",
    region: "us-east5",
  });
  const bedrockBody = JSON.stringify(
    anthropicRequestBody(REQUEST, { anthropicVersion: "bedrock-2023-05-31", stream: false }),
  );
  const vertexBody = JSON.stringify(
    anthropicRequestBody(REQUEST, { anthropicVersion: "vertex-2023-10-16", stream: true }),
  );
  const converseBody = JSON.stringify(converseRequestBody({ ...REQUEST, model: CONVERSE_MODEL }));
  const bedrockUrl = `${base}/model/${encodeURIComponent(BEDROCK_MODEL)}/invoke-with-response-stream`;
  const converseUrl = `${base}/model/${encodeURIComponent(CONVERSE_MODEL)}/converse-stream`;
  const signed = (url, body) =>
    signRequest({
      method: "POST",
      url: new URL(url),
      headers: { accept: "application/vnd.amazon.eventstream", "content-type": "application/json" },
      body,
      region: "us-east-1",
      service: "bedrock",
      credentials,
    });
  const converseRequest = { ...REQUEST, model: CONVERSE_MODEL };
  const vertexUrl = `${base}/v1/projects/p/locations/us-east5/publishers/anthropic/models/${VERTEX_MODEL}:streamRawPredict`;
  const check = (m) => {
    if (m.content.length !== 1) throw new Error("bad answer");
  };
  const out = {
    "bedrock ours": async () => check(await accumulate(bedrock.stream(REQUEST))),
    "bedrock raw": () => post(agent, bedrockUrl, signed(bedrockUrl, bedrockBody), bedrockBody, invokeText),
    "converse ours": async () => check(await accumulate(bedrock.stream(converseRequest))),
    "converse raw": () =>
      post(agent, converseUrl, signed(converseUrl, converseBody), converseBody, converseText),
    "vertex ours": async () => check(await accumulate(vertex.stream({ ...REQUEST }))),
    "vertex raw": () =>
      post(
        agent,
        vertexUrl,
        {
          authorization: "Bearer bench-token",
          "content-type": "application/json",
          accept: "text/event-stream",
        },
        vertexBody,
      ),
  };
  if (official) {
    const { AnthropicBedrock } = official("@anthropic-ai/bedrock-sdk");
    const { AnthropicVertex } = official("@anthropic-ai/vertex-sdk");
    const bedrockSdk = new AnthropicBedrock({
      awsAccessKey: credentials.accessKeyId,
      awsSecretKey: credentials.secretAccessKey,
      awsRegion: "us-east-1",
      baseURL: base,
      maxRetries: 0,
    });
    const authClient = {
      projectId: "p",
      getRequestHeaders: async () => new Headers({ authorization: "Bearer bench-token" }),
    };
    const vertexSdk = new AnthropicVertex({
      region: "us-east5",
      projectId: "p",
      authClient,
      baseURL: `${base}/v1`,
      maxRetries: 0,
    });
    const sdkRequest = { max_tokens: 1024, system: REQUEST.system, messages: REQUEST.messages };
    out["bedrock sdk"] = async () =>
      check(await bedrockSdk.messages.stream({ ...sdkRequest, model: BEDROCK_MODEL }).finalMessage());
    out["vertex sdk"] = async () =>
      check(await vertexSdk.messages.stream({ ...sdkRequest, model: VERTEX_MODEL }).finalMessage());
  }
  return out;
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

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

const child = spawn(process.execPath, [`${here}support/cloud-server.mjs`], {
  stdio: ["pipe", "pipe", "inherit"],
});
const port = JSON.parse(
  await new Promise((r) => createInterface({ input: child.stdout }).once("line", r)),
).port;
try {
  const v = variants(port);
  const names = Object.keys(v);
  for (const name of names) await measure(v[name], WARMUP, [], []);
  const cpu = Object.fromEntries(names.map((n) => [n, []]));
  const wall = Object.fromEntries(names.map((n) => [n, []]));
  const per = Math.ceil(CALLS / ROUNDS);
  for (let r = 0; r < ROUNDS; r++) {
    for (let k = 0; k < names.length; k++) {
      const name = names[(k + r) % names.length];
      await measure(v[name], per, cpu[name], wall[name]);
    }
  }
  const result = {};
  console.log(`streamed call on an instant server, ${per * ROUNDS} calls each (median)`);
  console.log("variant        cpu ms/call  wall ms/call");
  for (const name of names) {
    result[name] = { cpuMs: median(cpu[name]), wallMs: median(wall[name]) };
    console.log(
      `${name.padEnd(14)} ${result[name].cpuMs.toFixed(3).padStart(11)}  ${result[name].wallMs.toFixed(3).padStart(12)}`,
    );
  }
  const ratio = (a, b) => (result[a] && result[b] ? result[a].cpuMs / result[b].cpuMs : undefined);
  const ratios = {
    bedrockOursVsRawCpu: ratio("bedrock ours", "bedrock raw"),
    converseOursVsRawCpu: ratio("converse ours", "converse raw"),
    vertexOursVsRawCpu: ratio("vertex ours", "vertex raw"),
    bedrockSdkVsOursCpu: ratio("bedrock sdk", "bedrock ours"),
    vertexSdkVsOursCpu: ratio("vertex sdk", "vertex ours"),
  };
  console.log(
    Object.entries(ratios)
      .filter(([, x]) => x !== undefined)
      .map(([k, x]) => `${k} ${x.toFixed(2)}x`)
      .join("; "),
  );
  console.log(
    JSON.stringify({ bench: "cloud-provider", calls: per * ROUNDS, ...result, ratios, target: 1.2 }),
  );
} finally {
  child.stdin.end();
}
