/**
 * A scripted model server for the durable benchmark (Anthropic Messages SSE, one write per answer):
 * a session whose first prompt says `rounds=N` gets N answers that call the `echo` tool, then a text
 * answer; a tool call whose input says `waitMs` is the tool's business, not the server's.
 *
 * Run as a child process: prints `{"port": N}` once listening; exits when stdin closes.
 */
import http from "node:http";
import { cannedAnthropicAnswer } from "./instant-server.mjs";

const sse = (event, data) => `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
const usage = {
  input_tokens: 120,
  cache_creation_input_tokens: 0,
  cache_read_input_tokens: 0,
  output_tokens: 1,
};

/** An answer calling `echo` with `input`. */
function toolCallAnswer(id, input) {
  return [
    sse("message_start", {
      type: "message_start",
      message: { id: "msg_b", type: "message", role: "assistant", model: "bench", content: [], usage },
    }),
    sse("content_block_start", {
      type: "content_block_start",
      index: 0,
      content_block: { type: "tool_use", id, name: "echo", input: {} },
    }),
    sse("content_block_delta", {
      type: "content_block_delta",
      index: 0,
      delta: { type: "input_json_delta", partial_json: JSON.stringify(input) },
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

const text = Buffer.from(cannedAnthropicAnswer());
const server = http.createServer((req, res) => {
  const parts = [];
  req.on("data", (d) => parts.push(d));
  req.on("end", () => {
    const body = JSON.parse(Buffer.concat(parts).toString("utf8"));
    const first = body.messages[0];
    const prompt = typeof first.content === "string" ? first.content : (first.content[0]?.text ?? "");
    const rounds = Number(/rounds=(\d+)/.exec(prompt)?.[1] ?? 0);
    const waitMs = Number(/waitMs=(\d+)/.exec(prompt)?.[1] ?? 0);
    let done = 0;
    for (const m of body.messages) {
      if (Array.isArray(m.content)) done += m.content.filter((b) => b.type === "tool_result").length;
    }
    const answer =
      done < rounds ? Buffer.from(toolCallAnswer(`toolu_${done}`, { text: `round ${done}`, waitMs })) : text;
    // One write with a length: a chunked body's last chunk would wait on Nagle and a delayed ACK.
    res.writeHead(200, {
      "content-type": "text/event-stream",
      "cache-control": "no-cache",
      "content-length": answer.length,
    });
    res.end(answer);
  });
});
server.keepAliveTimeout = 60_000;
server.listen(0, "127.0.0.1", () => {
  process.stdout.write(`${JSON.stringify({ port: server.address().port })}\n`);
});
process.stdin.on("end", () => process.exit(0));
process.stdin.resume();
