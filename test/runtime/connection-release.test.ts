/**
 * A finished query() releases its model connections: each query builds its own providers, whose
 * keep-alive agents held the idle socket (and the last request, ~30 KB with the default tools) until
 * the server hung up, so 1,000 sequential runs in one process grew the heap by about 30 MB.
 */
import http from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createProviderRegistry } from "../../src/llm/resolve.js";
import type { Provider } from "../../src/llm/types.js";
import { query } from "../../src/sdk/query.js";
import { reply, startMockProvider } from "../support/mock-provider.js";
import { collect, resultOf } from "./helpers.js";

/** A one-answer Anthropic stream; the server keeps sockets alive far longer than the test waits. */
const sse = (event: string, data: unknown) => `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
const ANSWER = [
  sse("message_start", {
    type: "message_start",
    message: {
      id: "m",
      type: "message",
      role: "assistant",
      model: "x",
      content: [],
      usage: { input_tokens: 1, output_tokens: 1 },
    },
  }),
  sse("content_block_start", {
    type: "content_block_start",
    index: 0,
    content_block: { type: "text", text: "" },
  }),
  sse("content_block_delta", {
    type: "content_block_delta",
    index: 0,
    delta: { type: "text_delta", text: "hi" },
  }),
  sse("content_block_stop", { type: "content_block_stop", index: 0 }),
  sse("message_delta", {
    type: "message_delta",
    delta: { stop_reason: "end_turn" },
    usage: { output_tokens: 1 },
  }),
  sse("message_stop", { type: "message_stop" }),
].join("");

let server: http.Server;
const open = new Set<Socket>();
let baseURL = "";
beforeAll(async () => {
  server = http.createServer((req, res) => {
    req.resume();
    req.on("end", () => res.writeHead(200, { "content-type": "text/event-stream" }).end(ANSWER));
  });
  server.keepAliveTimeout = 60_000;
  server.on("connection", (socket: Socket) => {
    open.add(socket);
    socket.on("close", () => open.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  baseURL = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

/** Resolves once the server has no open connection, or with the count still open after `ms`. */
async function openAfter(ms: number): Promise<number> {
  const until = Date.now() + ms;
  while (open.size > 0 && Date.now() < until) await new Promise((r) => setTimeout(r, 10));
  return open.size;
}

describe("connections of a finished query", () => {
  it("are closed when the query ends, not left to the server's keep-alive timeout", async () => {
    for (let i = 0; i < 3; i++) {
      const messages = await collect(
        query({
          prompt: "hi",
          options: {
            model: "anthropic/claude-sonnet-4-5",
            provider: { type: "anthropic", baseURL, apiKey: "k" },
            persistSession: false,
            tools: [],
          },
        }),
      );
      expect(resultOf(messages).result).toBe("hi");
      expect(await openAfter(2_000)).toBe(0);
    }
  });

  it("a registry closes the providers it made, never one its caller gave", async () => {
    const mock = await startMockProvider();
    try {
      let closed = 0;
      const given: Provider = {
        name: "mine",
        stream: () => {
          throw new Error("unused");
        },
        close: () => {
          closed++;
        },
      };
      const registry = createProviderRegistry([
        { type: "anthropic", baseURL: mock.anthropicBaseURL, apiKey: "k" },
        given,
      ]);
      const { provider } = registry.resolve("anthropic/claude-sonnet-4-5");
      registry.get("mine");
      mock.enqueue(reply.text("a"), reply.text("b"));
      const ask = {
        model: "claude-sonnet-4-5",
        messages: [{ role: "user" as const, content: "x" }],
        maxTokens: 10,
      };
      for await (const _ of provider.stream(ask)) {
      }
      registry.close();
      for await (const _ of provider.stream(ask)) {
      }
      expect(closed).toBe(0);
      const [a, b] = mock.requests.slice(-2);
      expect(b.connection).not.toBe(a.connection);
    } finally {
      await mock.close();
    }
  });
});
