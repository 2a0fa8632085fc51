/**
 * A local model-provider server for tests: one scripted queue of replies, answered in the wire
 * format the request's path names: Anthropic on `/v1/messages`, OpenAI Chat Completions on
 * `/chat/completions` (Azure's deployment paths too), OpenAI Responses on `/responses`, Gemini on
 * `/v1beta/models/<model>:streamGenerateContent` (see MockFormat). It records every request so tests assert on what was sent.
 *
 * ```ts
 * const mock = await startMockProvider();
 * mock.enqueue(reply.toolCalls([{ name: "Read", input: { file_path: "/x" } }]), reply.text("done"));
 * query({ prompt: "…", options: { provider: { type: "anthropic", baseURL: mock.anthropicBaseURL, apiKey: "k" } } });
 * ```
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import type { MessageReply, MockFormat, MockRequest, Reply } from "./mock-replies.js";
import { anthropicEvents, errorBody, jsonBody, openaiEvents } from "./mock-wire.js";
import { bedrockError, bedrockInvokeFrames, converseFrames, vertexError } from "./mock-wire-cloud.js";
import { geminiEvents } from "./mock-wire-gemini.js";
import { responsesEvents } from "./mock-wire-responses.js";

export type { MessageReply, MockBlock, MockRequest, MockToolCall, Reply } from "./mock-replies.js";
export { reply } from "./mock-replies.js";

/** A running mock provider. */
export interface MockProvider {
  /** Base URL for `createAnthropicProvider` (`http://127.0.0.1:PORT`). */
  readonly anthropicBaseURL: string;
  /**
   * Base URL for `createOpenAIProvider` and `createOpenAIResponsesProvider` (`http://127.0.0.1:PORT/v1`,
   * serving `/chat/completions` and `/responses`).
   */
  readonly openaiBaseURL: string;
  /** Base URL for `createGeminiProvider` (`GOOGLE_GEMINI_BASE_URL`) and Azure's endpoint: the origin. */
  readonly geminiBaseURL: string;
  /** Base URL for `createBedrockProvider` / `ANTHROPIC_BEDROCK_BASE_URL` (`http://127.0.0.1:PORT`). */
  readonly bedrockBaseURL: string;
  /** Base URL for `createVertexProvider` / `ANTHROPIC_VERTEX_BASE_URL` (`http://127.0.0.1:PORT/v1`). */
  readonly vertexBaseURL: string;
  /** Every request received, in order. */
  readonly requests: MockRequest[];
  /** Adds replies to the end of the queue; each request takes the first. */
  enqueue(...replies: Reply[]): void;
  /** The reply used when the queue is empty (default: a 500 saying "mock queue empty"). */
  setWhenEmpty(reply: Reply): void;
  /** Replies still queued. */
  pending(): number;
  /**
   * Drops the queued replies and the recorded requests. Call it between tests that share one mock,
   * so a test that fails before using its replies does not hand them to the next test.
   */
  clear(): void;
  /** Stops the server and closes every connection, kept-alive ones included. */
  close(): Promise<void>;
}

const QUEUE_EMPTY: Reply = {
  kind: "error",
  status: 500,
  message: "mock queue empty: the test made more model calls than it scripted",
};

/** Starts a mock provider on 127.0.0.1 with a random port. */
export async function startMockProvider(options: { whenEmpty?: Reply } = {}): Promise<MockProvider> {
  const queue: Reply[] = [];
  const requests: MockRequest[] = [];
  let whenEmpty = options.whenEmpty ?? QUEUE_EMPTY;
  const connections = new WeakMap<object, number>();
  let connectionCount = 0;

  const server = http.createServer((req, res) => {
    const parts: Buffer[] = [];
    req.on("data", (b: Buffer) => parts.push(b));
    req.on("end", () => {
      const raw = Buffer.concat(parts).toString("utf8");
      let body: any;
      try {
        body = raw ? JSON.parse(raw) : undefined;
      } catch {
        body = undefined;
      }
      const path = (req.url ?? "/").split("?")[0];
      const format = formatOf(path);
      if (!format) {
        res.writeHead(404, { "content-type": "application/json" });
        res.end(
          JSON.stringify({ error: { message: `mock provider: no route for ${path}`, type: "not_found" } }),
        );
        return;
      }
      const connection = connections.get(req.socket) ?? 0;
      const request: MockRequest = {
        path,
        url: req.url ?? path,
        method: req.method ?? "POST",
        headers: req.headers,
        body,
        rawBody: raw,
        format,
        connection,
      };
      requests.push(request);
      res.on("close", () => {
        if (!res.writableFinished && !cutByMock.has(res)) request.abandoned = true;
      });
      const next = queue.length > 0 ? queue.shift()! : whenEmpty;
      answer(next, request, res).catch((err) => {
        cutByMock.add(res);
        res.destroy(err);
      });
    });
  });
  server.on("connection", (socket) => connections.set(socket, ++connectionCount));
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  const origin = `http://127.0.0.1:${port}`;

  return {
    anthropicBaseURL: origin,
    openaiBaseURL: `${origin}/v1`,
    geminiBaseURL: origin,
    bedrockBaseURL: origin,
    vertexBaseURL: `${origin}/v1`,
    requests,
    enqueue: (...replies) => {
      queue.push(...replies);
    },
    setWhenEmpty: (r) => {
      whenEmpty = r;
    },
    pending: () => queue.length,
    clear: () => {
      queue.length = 0;
      requests.length = 0;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** The wire a path belongs to (see MockFormat). */
function formatOf(path: string): MockFormat | undefined {
  if (path.endsWith("/messages")) return "anthropic";
  if (path.endsWith("/chat/completions")) return "openai";
  if (path.endsWith("/responses")) return "openai-responses";
  if (/:(?:stream)?[gG]enerateContent$/.test(path)) return "gemini";
  if (path.endsWith("/invoke-with-response-stream")) return "bedrock";
  if (path.endsWith("/converse-stream")) return "bedrock-converse";
  if (path.endsWith(":streamRawPredict")) return "vertex";
  return undefined;
}

/** Bedrock's streaming endpoints, which answer in the AWS event-stream framing. */
function isBinary(format: MockFormat): boolean {
  return format === "bedrock" || format === "bedrock-converse";
}

/**
 * True when the request asks for a streamed answer: Gemini says so in the path, Bedrock's streaming
 * endpoints always stream, the others say so in the body.
 */
function wantsStream(request: MockRequest): boolean {
  if (isBinary(request.format)) return true;
  return request.format === "gemini"
    ? request.path.endsWith(":streamGenerateContent")
    : request.body?.stream === true;
}

/** The model a request names (Gemini's, Bedrock's and Vertex's are in the path). */
function modelOf(request: MockRequest): string {
  if (request.format === "gemini") return /models\/([^/:]+):/.exec(request.path)?.[1] ?? "mock-model";
  const inPath = /\/models?\/([^/:]+)(?::[A-Za-z]+)?(?:\/[a-z-]+)?$/.exec(request.path)?.[1];
  return request.body?.model ?? (inPath ? decodeURIComponent(inPath) : "mock-model");
}

/** The events of a reply in the request's wire format: SSE text, or event-stream frames for Bedrock. */
function eventsOf(r: MessageReply, request: MockRequest, model: string): Array<string | Buffer> {
  switch (request.format) {
    case "anthropic":
    case "vertex":
      return anthropicEvents(r, model);
    case "openai":
      return openaiEvents(r, model, request.body?.stream_options?.include_usage === true);
    case "openai-responses":
      return responsesEvents(r, model);
    case "gemini":
      return geminiEvents(r, model);
    case "bedrock":
      return bedrockInvokeFrames(r, model);
    case "bedrock-converse":
      return converseFrames(r);
  }
}

/** Responses whose connection the mock cut on purpose (a scripted hang-up or drop), not the client. */
const cutByMock = new WeakSet<http.ServerResponse>();

/** Cuts the connection of `res` on purpose: the request is not marked abandoned. */
function cutConnection(res: http.ServerResponse): void {
  cutByMock.add(res);
  res.socket?.destroy();
}

async function answer(r: Reply, request: MockRequest, res: http.ServerResponse): Promise<void> {
  let resolved = r;
  while (typeof resolved === "function") resolved = await resolved(request);
  const format = request.format;
  switch (resolved.kind) {
    case "hangup":
      cutConnection(res);
      return;
    case "error": {
      if (format === "bedrock" || format === "bedrock-converse") {
        const e = bedrockError(resolved);
        res.writeHead(resolved.status, {
          "content-type": "application/json",
          ...e.headers,
          ...resolved.headers,
        });
        res.end(e.body);
        return;
      }
      res.writeHead(resolved.status, { "content-type": "application/json", ...resolved.headers });
      res.end(format === "vertex" ? vertexError(resolved) : errorBody(format, resolved));
      return;
    }
    case "raw":
      res.writeHead(resolved.status ?? 200, { "content-type": "text/event-stream", ...resolved.headers });
      res.end(resolved.body);
      return;
    case "message":
      return answerMessage(resolved, request, res);
  }
}

async function answerMessage(r: MessageReply, request: MockRequest, res: http.ServerResponse): Promise<void> {
  const model = modelOf(request);
  if (!wantsStream(request)) {
    if (request.format !== "anthropic" && request.format !== "openai" && request.format !== "vertex") {
      res.writeHead(400, { "content-type": "application/json" });
      res.end(
        JSON.stringify({
          error: { message: `mock provider: ${request.format} answers streamed calls only` },
        }),
      );
      return;
    }
    res.writeHead(200, { "content-type": "application/json", ...r.headers });
    res.end(JSON.stringify(jsonBody(request.format === "vertex" ? "anthropic" : request.format, r, model)));
    return;
  }
  const binary = isBinary(request.format);
  const events = eventsOf(r, request, model);
  // Bedrock's frames script their malformed chunk themselves (mock-wire-cloud.ts).
  if (r.malformedAfterEvents !== undefined && !binary)
    events.splice(r.malformedAfterEvents, 0, "data: {broken\n\n");
  const contentType = binary ? "application/vnd.amazon.eventstream" : "text/event-stream";
  res.writeHead(200, { "content-type": contentType, "cache-control": "no-cache", ...r.headers });
  const drop = r.dropAfterEvents;
  const delay = r.delayMs ?? 0;
  if (delay === 0 && drop === undefined) {
    res.end(binary ? Buffer.concat(events as Buffer[]) : events.join("")); // instant: one write
    return;
  }
  const count = drop === undefined ? events.length : Math.min(drop, events.length);
  for (let i = 0; i < count; i++) {
    if (delay > 0) await new Promise((resolve) => setTimeout(resolve, delay));
    if (res.destroyed || res.socket?.destroyed) return; // the client went away (abort)
    res.write(events[i]);
  }
  if (drop === undefined) {
    res.end();
    return;
  }
  // Flush what was written, then cut the connection without finishing the chunked body.
  await new Promise<void>((resolve) => res.write("", () => resolve()));
  cutConnection(res);
}
