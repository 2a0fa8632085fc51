/**
 * An instant model server for benchmarks: answers every POST with one canned Anthropic Messages SSE
 * stream (20 events: a short text answer) in a single write, so what is measured is the client.
 *
 * Run as a child process: prints `{"port": N}` on stdout once listening; exits when stdin closes.
 * Also importable: `startInstantServer()` resolves with `{ port, close }`.
 */
import http from "node:http";
import { pathToFileURL } from "node:url";

const sse = (event, data) => `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;

/** The canned answer: message_start, ping, one text block in 14 deltas, message_delta, message_stop. */
export function cannedAnthropicAnswer() {
  const words =
    "The quick brown fox jumps over the lazy dog while the benchmark counts every microsecond spent".split(
      " ",
    );
  const events = [
    sse("message_start", {
      type: "message_start",
      message: {
        id: "msg_bench",
        type: "message",
        role: "assistant",
        model: "bench-model",
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: {
          input_tokens: 120,
          cache_creation_input_tokens: 0,
          cache_read_input_tokens: 0,
          output_tokens: 1,
        },
      },
    }),
    sse("ping", { type: "ping" }),
    sse("content_block_start", {
      type: "content_block_start",
      index: 0,
      content_block: { type: "text", text: "" },
    }),
  ];
  for (const w of words.slice(0, 14)) {
    events.push(
      sse("content_block_delta", {
        type: "content_block_delta",
        index: 0,
        delta: { type: "text_delta", text: `${w} ` },
      }),
    );
  }
  events.push(sse("content_block_stop", { type: "content_block_stop", index: 0 }));
  events.push(
    sse("message_delta", {
      type: "message_delta",
      delta: { stop_reason: "end_turn", stop_sequence: null },
      usage: { output_tokens: 15 },
    }),
  );
  events.push(sse("message_stop", { type: "message_stop" }));
  return events.join("");
}

/** Starts the server on 127.0.0.1 with a random port. */
export function startInstantServer() {
  const body = Buffer.from(cannedAnthropicAnswer());
  const headers = {
    "content-type": "text/event-stream",
    "cache-control": "no-cache",
    "content-length": body.length,
  };
  const server = http.createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      res.writeHead(200, headers);
      res.end(body);
    });
  });
  server.keepAliveTimeout = 60_000;
  return new Promise((resolve) => {
    server.listen(0, "127.0.0.1", () => {
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
  const { port } = await startInstantServer();
  process.stdout.write(`${JSON.stringify({ port })}\n`);
  process.stdin.on("end", () => process.exit(0));
  process.stdin.resume();
}
