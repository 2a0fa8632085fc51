/**
 * The three runners of the loop benchmark, each playing the same scripted session against
 * bench/support/loop-server.mjs: `ours` (query() from the built package), and two minimal hand-written
 * loops with no features (build the body with the whole history, POST, parse SSE, run the tool,
 * append, repeat): one on `fetch`, one on `node:http` with a keep-alive agent. The baselines send the
 * same bytes as ours (same system prompt, max_tokens, tool schema and cache marker), which the
 * server's byte counter checks. Each runner resolves with the time at which each model answer was
 * complete, so per-turn cost can be read at any point of the history.
 */
import http from "node:http";
import { z } from "zod";

const { query } = await import("../../dist/sdk/query.js");
const { defineTool } = await import("../../dist/tools/define-tool.js");
const { MINIMAL_SYSTEM_PROMPT } = await import("../../dist/runtime/system-prompt.js");

/** The trivial tool every runner calls. */
export const echoTool = defineTool({
  name: "echo",
  description: "Echoes its text.",
  inputSchema: z.object({ text: z.string() }),
  sideEffect: "none",
  execute: async ({ text }) => ({ content: text }),
});

/** The prompt of a session of `rounds` tool rounds (the server reads `rounds=K` from it). */
export const promptFor = (rounds) => `Call echo until told to stop. rounds=${rounds}`;

/**
 * Ours: query() iterated to the end. Resolves with per-answer timestamps (ms). `persistSession: true`
 * writes the transcript as the default does (to `$GOAT_HOME`, which the caller points at a temp dir).
 */
export async function runOurs(baseURL, rounds, { persistSession = false, sessionStore } = {}) {
  const stamps = [];
  const q = query({
    prompt: promptFor(rounds),
    options: {
      model: "anthropic/claude-sonnet-4-5",
      provider: { type: "anthropic", baseURL, apiKey: "x" },
      tools: [echoTool],
      persistSession,
      ...(sessionStore ? { sessionStore } : {}),
      permissionMode: "bypassPermissions",
      maxTurns: 1000,
    },
  });
  let result;
  for await (const m of q) {
    if (m.type === "assistant") stamps.push(performance.now());
    else if (m.type === "result") result = m;
  }
  if (result?.subtype !== "success" || result.num_turns !== rounds + 1)
    throw new Error(`ours: bad run ${JSON.stringify(result)}`);
  return stamps;
}

const HEADERS = {
  accept: "text/event-stream",
  "x-api-key": "x",
  "anthropic-version": "2023-06-01",
  "content-type": "application/json",
};
const TOOLS = [{ name: "echo", description: echoTool.description, input_schema: echoTool.jsonSchema }];
const SYSTEM = [{ type: "text", text: MINIMAL_SYSTEM_PROMPT, cache_control: { type: "ephemeral" } }];

/** The request body a hand-written client builds: the whole history, cache marker on the last block. */
function bodyOf(messages) {
  const last = messages[messages.length - 1];
  const text = typeof last.content === "string" ? last.content : undefined;
  if (text !== undefined) last.content = [{ type: "text", text }];
  const block = last.content[last.content.length - 1];
  block.cache_control = { type: "ephemeral" };
  const body = JSON.stringify({
    model: "claude-sonnet-4-5",
    max_tokens: 32000,
    stream: true,
    system: SYSTEM,
    messages,
    tools: TOOLS,
  });
  delete block.cache_control;
  if (text !== undefined) last.content = text;
  return body;
}

/** Minimal SSE handling: split lines, JSON.parse `data:` lines, rebuild text and tool_use blocks. */
function minimalSse() {
  let rest = "";
  const blocks = [];
  const json = [];
  let stop = null;
  return {
    push(chunk) {
      const lines = (rest + chunk).split("\n");
      rest = lines.pop();
      for (const line of lines) {
        if (!line.startsWith("data: ")) continue;
        const ev = JSON.parse(line.slice(6));
        if (ev.type === "content_block_start") {
          blocks[ev.index] = { ...ev.content_block };
          json[ev.index] = "";
        } else if (ev.type === "content_block_delta") {
          if (ev.delta.type === "text_delta") blocks[ev.index].text += ev.delta.text;
          else if (ev.delta.type === "input_json_delta") json[ev.index] += ev.delta.partial_json;
        } else if (ev.type === "content_block_stop") {
          if (blocks[ev.index].type === "tool_use")
            blocks[ev.index].input = JSON.parse(json[ev.index] || "{}");
        } else if (ev.type === "message_delta") stop = ev.delta.stop_reason;
      }
    },
    message: () => ({ blocks, stop }),
  };
}

/** The loop both baselines share; `post(body)` returns the parsed answer. */
async function handLoop(rounds, post) {
  const stamps = [];
  const messages = [{ role: "user", content: promptFor(rounds) }];
  for (;;) {
    const { blocks, stop } = await post(bodyOf(messages));
    stamps.push(performance.now());
    messages.push({ role: "assistant", content: blocks });
    if (stop !== "tool_use") break;
    const results = [];
    for (const b of blocks) {
      if (b.type !== "tool_use") continue;
      const out = await echoTool.execute(b.input, {});
      results.push({ type: "tool_result", tool_use_id: b.id, content: out.content });
    }
    messages.push({ role: "user", content: results });
  }
  if (stamps.length !== rounds + 1) throw new Error(`hand loop: ${stamps.length} answers`);
  return stamps;
}

/** Baseline: the hand-written loop on fetch. */
export function runFetch(baseURL, rounds) {
  const url = `${baseURL}/v1/messages`;
  return handLoop(rounds, async (body) => {
    const res = await fetch(url, { method: "POST", headers: HEADERS, body });
    const p = minimalSse();
    const decoder = new TextDecoder();
    for await (const chunk of res.body) p.push(decoder.decode(chunk, { stream: true }));
    return p.message();
  });
}

/** Baseline: the hand-written loop on node:http; pass one keep-alive agent for all sessions. */
export function runNodeHttp(baseURL, rounds, agent) {
  const url = `${baseURL}/v1/messages`;
  return handLoop(
    rounds,
    (body) =>
      new Promise((resolve, reject) => {
        const req = http.request(
          url,
          { method: "POST", agent, headers: { ...HEADERS, "content-length": Buffer.byteLength(body) } },
          (res) => {
            const p = minimalSse();
            res.setEncoding("utf8");
            res.on("data", (c) => p.push(c));
            res.on("end", () => resolve(p.message()));
            res.on("error", reject);
          },
        );
        req.on("error", reject);
        req.end(body);
      }),
  );
}

/**
 * Starts ours as a multi-turn session and resolves once its first run ended; it then waits for input.
 * `persistSession: true` writes the transcript to `$GOAT_HOME` as the default does.
 */
export async function startIdleOurs(baseURL, rounds, { persistSession = false } = {}) {
  let release;
  const hold = new Promise((r) => {
    release = r;
  });
  async function* input() {
    yield { type: "user", message: { role: "user", content: promptFor(rounds) } };
    await hold;
  }
  const q = query({
    prompt: input(),
    options: {
      model: "anthropic/claude-sonnet-4-5",
      provider: { type: "anthropic", baseURL, apiKey: "x" },
      tools: [echoTool],
      persistSession,
      permissionMode: "bypassPermissions",
      maxTurns: 1000,
    },
  });
  for (;;) {
    const { value, done } = await q.next();
    if (done) throw new Error("idle session ended early");
    if (value.type === "result") break;
  }
  return {
    q,
    end: async () => {
      release();
      for (;;) if ((await q.next()).done) break;
    },
  };
}

const USAGE = {
  input_tokens: 100,
  output_tokens: 20,
  cache_read_input_tokens: 0,
  cache_creation_input_tokens: 0,
};

/**
 * A Provider object that plays the same script in-process with no HTTP and no JSON: with it, query()
 * measures the loop alone (events, tool scheduling, SDK messages, bookkeeping), a diagnostic row.
 */
export const inProcessProvider = {
  name: "anthropic",
  stream(request) {
    let n = 0;
    for (const m of request.messages)
      if (typeof m.content !== "string") for (const b of m.content) if (b.type === "tool_result") n++;
    const rounds = Number(/rounds=(\d+)/.exec(JSON.stringify(request.messages[0].content))?.[1] ?? 1);
    const id = `toolu_${n}`;
    const call = { type: "tool_use", id, name: "echo", input: { text: `ping ${n}` } };
    const content =
      n >= rounds ? [{ type: "text", text: "Done." }] : [{ type: "text", text: "Calling echo." }, call];
    const events = [
      { type: "message_start", id: `msg_${n}`, model: request.model },
      { type: "text_start", index: 0 },
      { type: "text_delta", index: 0, delta: content[0].text },
      { type: "text_end", index: 0, text: content[0].text },
    ];
    if (n < rounds)
      events.push(
        { type: "toolcall_start", index: 1, id, name: "echo" },
        { type: "toolcall_delta", index: 1, id, delta: JSON.stringify(call.input) },
        { type: "toolcall_end", index: 1, toolCall: call },
      );
    const message = {
      role: "assistant",
      content,
      model: request.model,
      stop_reason: n < rounds ? "tool_use" : "end_turn",
      usage: USAGE,
    };
    events.push({ type: "usage", usage: USAGE }, { type: "message_end", message });
    return (async function* () {
      yield* events;
    })();
  },
};

/** Ours with the in-process provider: the loop's own cost per turn, transport excluded. */
export async function runOursNoTransport(rounds) {
  const stamps = [];
  const q = query({
    prompt: promptFor(rounds),
    options: {
      model: "anthropic/claude-sonnet-4-5",
      provider: inProcessProvider,
      tools: [echoTool],
      persistSession: false,
      permissionMode: "bypassPermissions",
      maxTurns: 1000,
    },
  });
  let result;
  for await (const m of q) {
    if (m.type === "assistant") stamps.push(performance.now());
    else if (m.type === "result") result = m;
  }
  if (result?.subtype !== "success" || result.num_turns !== rounds + 1)
    throw new Error(`ours (no transport): bad run ${JSON.stringify(result)}`);
  return stamps;
}
