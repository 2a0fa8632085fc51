/**
 * An instant model server for the loop benchmark: a scripted tool-using session over Anthropic
 * Messages SSE. The reply is decided from the request alone, so any number of sessions can run at
 * once: the prompt carries `rounds=K`, and a request holding n tool_result blocks gets, while n < K,
 * an answer that calls the `echo` tool, and at n = K a final text answer. Each answer is a small but
 * realistic stream (message_start, text and tool_use blocks with deltas, message_delta with usage,
 * message_stop) written in one piece, so what is measured is the client.
 *
 * `GET /stats` answers `{requests, bytes, connections}` so far (every client must send the same bytes;
 * a keep-alive client opens one connection per session, not one per turn).
 * Run as a child process: prints `{"port": N}` once listening; exits when stdin closes.
 * Also importable: `startLoopServer()` resolves with `{ port, close }`.
 */
import http from "node:http";
import { pathToFileURL } from "node:url";

const sse = (event, data) => `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
const TOOL_RESULT = '"type":"tool_result"';

/** Counts tool_result blocks in a request body (JSON.stringify output, so no spaces around ':'). */
export function countToolResults(body) {
  let n = 0;
  for (let i = body.indexOf(TOOL_RESULT); i !== -1; i = body.indexOf(TOOL_RESULT, i + TOOL_RESULT.length))
    n++;
  return n;
}

function messageStart(n, inputTokens) {
  return sse("message_start", {
    type: "message_start",
    message: {
      id: `msg_${n}`,
      type: "message",
      role: "assistant",
      model: "claude-sonnet-4-5",
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: {
        input_tokens: inputTokens,
        cache_creation_input_tokens: 0,
        cache_read_input_tokens: 0,
        output_tokens: 1,
      },
    },
  });
}

function textBlock(index, parts) {
  let out = sse("content_block_start", {
    type: "content_block_start",
    index,
    content_block: { type: "text", text: "" },
  });
  for (const text of parts)
    out += sse("content_block_delta", {
      type: "content_block_delta",
      index,
      delta: { type: "text_delta", text },
    });
  return out + sse("content_block_stop", { type: "content_block_stop", index });
}

function end(stopReason, outputTokens) {
  return (
    sse("message_delta", {
      type: "message_delta",
      delta: { stop_reason: stopReason, stop_sequence: null },
      usage: { output_tokens: outputTokens },
    }) + sse("message_stop", { type: "message_stop" })
  );
}

/** The answer to the request that carries `n` tool results in a session of `rounds` tool rounds. */
export function scriptedAnswer(n, rounds, inputTokens) {
  if (n >= rounds) {
    return (
      messageStart(n, inputTokens) +
      textBlock(0, ["All ", `${rounds} echoes `, "came back."]) +
      end("end_turn", 9)
    );
  }
  const id = `toolu_${String(n).padStart(4, "0")}`;
  const json = JSON.stringify({ text: `ping ${n}` });
  const cut = json.length >> 1;
  return (
    messageStart(n, inputTokens) +
    textBlock(0, ["Calling ", "echo."]) +
    sse("content_block_start", {
      type: "content_block_start",
      index: 1,
      content_block: { type: "tool_use", id, name: "echo", input: {} },
    }) +
    sse("content_block_delta", {
      type: "content_block_delta",
      index: 1,
      delta: { type: "input_json_delta", partial_json: json.slice(0, cut) },
    }) +
    sse("content_block_delta", {
      type: "content_block_delta",
      index: 1,
      delta: { type: "input_json_delta", partial_json: json.slice(cut) },
    }) +
    sse("content_block_stop", { type: "content_block_stop", index: 1 }) +
    end("tool_use", 24)
  );
}

/** Starts the server on 127.0.0.1 with a random port. */
export function startLoopServer() {
  const stats = { requests: 0, bytes: 0, connections: 0 };
  const server = http.createServer((req, res) => {
    if (req.method === "GET") {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify(stats));
      return;
    }
    const chunks = [];
    req.on("data", (c) => chunks.push(c));
    req.on("end", () => {
      const body = Buffer.concat(chunks).toString("utf8");
      stats.requests++;
      stats.bytes += body.length;
      const rounds = Number(/rounds=(\d+)/.exec(body)?.[1] ?? 1);
      const answer = Buffer.from(scriptedAnswer(countToolResults(body), rounds, body.length >> 2));
      res.writeHead(200, {
        "content-type": "text/event-stream",
        "cache-control": "no-cache",
        "content-length": answer.length,
      });
      res.end(answer);
    });
  });
  server.on("connection", () => {
    stats.connections++;
  });
  server.keepAliveTimeout = 120_000;
  // 10,000 sessions hold 10,000 connections, and a retried call opens one more while its old socket
  // is still counted: at a cap of exactly 10,000 the server dropped such a connection unanswered.
  server.maxConnections = 20_000;
  // A client process running 10,000 sessions can take over a minute to write a request on a socket it
  // opened: Node's default 60 s header limit then closed it before the request arrived.
  server.requestTimeout = 0;
  server.headersTimeout = 0;
  return new Promise((resolve) => {
    server.listen({ port: 0, host: "127.0.0.1", backlog: 4096 }, () => {
      resolve({
        port: server.address().port,
        close: () =>
          new Promise((r) => {
            server.closeAllConnections();
            server.close(r);
          }),
      });
    });
  });
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  const { port } = await startLoopServer();
  process.stdout.write(`${JSON.stringify({ port })}\n`);
  process.stdin.on("end", () => process.exit(0));
  process.stdin.resume();
}
