/**
 * A busy process is not a stalled provider. With thousands of sessions in one process the event loop
 * can be held for longer than a stall limit; the answer the server sent meanwhile waits unread in the
 * socket. These tests hold the event loop (Atomics.wait) for twice the limit while a server on another
 * thread answers, then let go: the call must succeed, where a plain timer fired first and reported a
 * timeout. Deterministic: the holding thread waits for the server thread's signal that it has written,
 * and for twice the limit, before it lets go.
 */
import { Worker } from "node:worker_threads";
import { afterEach, describe, expect, it } from "vitest";
import { accumulate } from "../../src/llm/accumulate.js";
import { createAnthropicProvider } from "../../src/llm/anthropic.js";
import type { ModelRequest, StreamEvent } from "../../src/llm/types.js";
import { reply } from "../support/mock-provider.js";
import { anthropicEvents } from "../support/mock-wire.js";

const LIMIT_MS = 300;
const ask: ModelRequest = { model: "m-1", messages: [{ role: "user", content: "hi" }] };
const events = anthropicEvents(reply.text("answered while you were busy", { chunkSize: 6 }), "m-1");

/** Slots of the shared flags: the server has written its answer; the main thread is holding the loop. */
const WRITTEN = 0;
const HOLDING = 1;

/**
 * The server thread. `mode` says when it writes: "whole" writes the whole answer once the main thread
 * holds the loop (the main thread holds it when told of the request); "rest" writes the first event at
 * once and the rest once the main thread holds the loop; "at-once" answers at once and tells the main
 * thread of each new connection.
 */
const SERVER = `
const http = require("node:http");
const { parentPort, workerData } = require("node:worker_threads");
const { mode, events, flags } = workerData;
const f = new Int32Array(flags);
const waitForHold = () => Atomics.wait(f, ${HOLDING}, 0, 10000);
const written = () => { Atomics.store(f, ${WRITTEN}, 1); Atomics.notify(f, ${WRITTEN}); };
const head = { "content-type": "text/event-stream" };
const server = http.createServer((req, res) => {
  req.resume();
  req.on("end", () => {
    if (mode === "whole") {
      parentPort.postMessage("request");
      waitForHold();
      res.writeHead(200, head);
      res.end(events.join(""), written);
    } else if (mode === "rest") {
      res.writeHead(200, head);
      res.write(events[0], () => {
        waitForHold();
        res.end(events.slice(1).join(""), written);
      });
    } else {
      res.writeHead(200, head);
      res.end(events.join(""), written);
    }
  });
});
server.on("connection", () => { if (mode === "at-once") parentPort.postMessage("connection"); });
server.listen(0, "127.0.0.1", () => parentPort.postMessage({ port: server.address().port }));
parentPort.on("message", (m) => { if (m === "close") { server.closeAllConnections(); server.close(); parentPort.close(); } });
`;

const workers: Worker[] = [];
afterEach(async () => {
  for (const w of workers.splice(0)) {
    w.postMessage("close");
    await w.terminate();
  }
});

/** Starts the server thread; resolves with its base URL, the worker and the shared flags. */
async function serverThread(mode: "whole" | "rest" | "at-once") {
  const flags = new Int32Array(new SharedArrayBuffer(8));
  const worker = new Worker(SERVER, { eval: true, workerData: { mode, events, flags: flags.buffer } });
  workers.push(worker);
  const port = await new Promise<number>((resolve) =>
    worker.once("message", (m: { port: number }) => resolve(m.port)),
  );
  return { baseURL: `http://127.0.0.1:${port}`, worker, flags };
}

/**
 * Holds this thread's event loop: tells the server thread it is holding, then waits until the server
 * has written (at most `capMs`) and at least twice the limit has passed, plus a margin for the
 * loopback delivery.
 */
function holdTheLoop(flags: Int32Array, capMs = 10_000): void {
  const started = performance.now();
  Atomics.store(flags, HOLDING, 1);
  Atomics.notify(flags, HOLDING);
  Atomics.wait(flags, WRITTEN, 0, capMs);
  const rest = 2 * LIMIT_MS + 50 - (performance.now() - started);
  if (rest > 0) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, rest);
}

const textOf = (message: { content: Array<{ type: string; text?: string }> }) =>
  message.content.map((b) => b.text ?? "").join("");

describe("stall limits on a busy process", () => {
  it("an answer that arrived while the loop was held past the first-byte limit is read, not timed out", async () => {
    const { baseURL, worker, flags } = await serverThread("whole");
    worker.once("message", () => holdTheLoop(flags)); // the server got the request
    const provider = createAnthropicProvider({ baseURL, apiKey: "k", timeouts: { firstByteMs: LIMIT_MS } });
    const message = await accumulate(provider.stream(ask));
    expect(textOf(message)).toBe("answered while you were busy");
  });

  it("the rest of a stream that arrived while the loop was held past the idle limit is read, not timed out", async () => {
    const { baseURL, flags } = await serverThread("rest");
    const provider = createAnthropicProvider({ baseURL, apiKey: "k", timeouts: { idleMs: LIMIT_MS } });
    const stream = provider.stream(ask)[Symbol.asyncIterator]();
    const first = await stream.next(); // the idle limit is running from this chunk
    expect((first.value as StreamEvent).type).toBe("message_start");
    holdTheLoop(flags);
    const rest: StreamEvent[] = [];
    for (let r = await stream.next(); !r.done; r = await stream.next()) rest.push(r.value);
    expect(rest.at(-1)?.type).toBe("message_end");
  });

  it("a connection made while the loop was held past the connect limit goes on to its answer", async () => {
    const { baseURL, worker, flags } = await serverThread("at-once");
    // Told of the connection, the loop is held before it has seen the connect (or right after it sent
    // the request): either way both limits pass while the answer or the handshake waits unread.
    worker.once("message", () => holdTheLoop(flags, 2 * LIMIT_MS));
    const provider = createAnthropicProvider({
      baseURL,
      apiKey: "k",
      timeouts: { connectMs: LIMIT_MS, firstByteMs: LIMIT_MS },
    });
    const message = await accumulate(provider.stream(ask));
    expect(textOf(message)).toBe("answered while you were busy");
  });

  it("a server that really stays silent still times out, once the held loop has read everything", async () => {
    const { baseURL, worker, flags } = await serverThread("whole");
    // The server thread waits for the hold, which never comes: it never answers.
    worker.once("message", () => undefined);
    const provider = createAnthropicProvider({ baseURL, apiKey: "k", timeouts: { firstByteMs: LIMIT_MS } });
    const error = await accumulate(provider.stream(ask)).then(
      () => undefined,
      (e: Error) => e,
    );
    expect(error?.message).toMatch(/sent no answer within 300 ms/);
    Atomics.store(flags, HOLDING, 1); // let the server thread go so it can close
    Atomics.notify(flags, HOLDING);
  });
});
