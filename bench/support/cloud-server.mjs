/**
 * An instant Bedrock and Vertex server for benchmarks: the same short text answer as
 * instant-server.mjs (14 text deltas), as Bedrock's event-stream frames on
 * `…/invoke-with-response-stream` and as Vertex's Anthropic SSE on `…:streamRawPredict`, each in a
 * single write, and the same text as ConverseStream frames on `…/converse-stream` (the testing kit's
 * encoder, 14 text deltas), so what is measured is the client.
 *
 * Run as a child process: prints `{"port": N}` on stdout once listening; exits when stdin closes.
 */
import http from "node:http";
import { encodeEventStreamFrame } from "../../dist/llm/aws-event-stream.js";
import { converseFrames } from "../../dist/testing/mock-wire-cloud.js";
import { cannedAnthropicAnswer } from "./instant-server.mjs";

const sse = cannedAnthropicAnswer();
const frames = Buffer.concat(
  sse
    .split("\n\n")
    .filter((e) => e.includes("data: ") && !e.startsWith("event: ping"))
    .map((e) => {
      const data = /^data: (.*)$/m.exec(e)[1];
      return encodeEventStreamFrame(
        { ":event-type": "chunk", ":content-type": "application/json", ":message-type": "event" },
        JSON.stringify({ bytes: Buffer.from(data).toString("base64") }),
      );
    }),
);

const TEXT = "The quick brown fox jumps over the lazy dog while the benchmark counts every microsecond spent";
const converse = Buffer.concat(
  converseFrames({
    content: [{ type: "text", text: TEXT }],
    chunkSize: 7,
    usage: { input: 120, output: 15 },
  }),
);

const server = http.createServer((req, res) => {
  req.resume();
  req.on("end", () => {
    if (req.url?.endsWith("/invoke-with-response-stream")) {
      res.writeHead(200, { "content-type": "application/vnd.amazon.eventstream" });
      res.end(frames);
    } else if (req.url?.endsWith("/converse-stream")) {
      res.writeHead(200, { "content-type": "application/vnd.amazon.eventstream" });
      res.end(converse);
    } else {
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.end(sse);
    }
  });
});
server.keepAliveTimeout = 60_000;
server.listen(0, "127.0.0.1", () => {
  process.stdout.write(`${JSON.stringify({ port: server.address().port })}\n`);
});
process.stdin.on("end", () => process.exit(0));
process.stdin.resume();
