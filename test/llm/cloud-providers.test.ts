/**
 * Bedrock (Claude through InvokeModelWithResponseStream, other models through ConverseStream) and
 * Vertex (Claude through streamRawPredict), each run through the same scenarios against the mock's
 * rendering of its wire: text, tool loop with parallel calls, an image, the thinking round trip, a
 * max_tokens cut, context overflow, 429 and overload with retry-after, stall, dropped stream,
 * malformed chunk, auth failure and refresh. Requests are checked as the cloud checks them: Bedrock's
 * SigV4 signature is recomputed from the headers that arrived, Vertex's token came from a token
 * endpoint that verified the service account's JWT.
 */
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { accumulate } from "../../src/llm/accumulate.js";
import { createBedrockProvider } from "../../src/llm/bedrock.js";
import { isProviderError, type ProviderError } from "../../src/llm/errors.js";
import { streamWithRetry } from "../../src/llm/retry.js";
import type { Message, ModelRequest, Provider, ProviderOptions, StreamEvent } from "../../src/llm/types.js";
import { createVertexProvider } from "../../src/llm/vertex.js";
import { type MockProvider, type MockRequest, reply, startMockProvider } from "../support/mock-provider.js";
import { tempDir } from "../support/temp-dirs.js";
import {
  rsaKeyPair,
  startTokenServer,
  type TokenServer,
  verifySigV4,
  writeServiceAccountKey,
} from "./cloud-fixtures.js";

let mock: MockProvider;
let tokens: TokenServer;
let keyFile: string;
const keys = rsaKeyPair();
const SECRET = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY";

beforeAll(async () => {
  mock = await startMockProvider();
  tokens = await startTokenServer(keys.publicKey);
  keyFile = writeServiceAccountKey(
    fs.mkdtempSync(path.join(process.env.TMPDIR ?? "/tmp", "goat-sa-")),
    keys.privateKey,
    tokens.url,
  );
});
afterAll(async () => {
  await mock.close();
  await tokens.close();
  fs.rmSync(path.dirname(keyFile), { recursive: true, force: true });
});

interface Wire {
  name: string;
  model: string;
  format: MockRequest["format"];
  make(options?: ProviderOptions & { env?: Record<string, string> }): Provider;
  /** Checks the request carried valid credentials; returns what is wrong. */
  authProblem(request: MockRequest): string | undefined;
  /** What the request's body calls its messages and how a tool result, an image and thinking look on it. */
  toolResults(body: any): Array<{ id: string; text: string }>;
  image(body: any): unknown;
  thinkingSignature(body: any): unknown;
  overload: number;
}

const awsEnv = { AWS_ACCESS_KEY_ID: "AKIDEXAMPLE", AWS_SECRET_ACCESS_KEY: SECRET, AWS_REGION: "us-west-2" };
const anthropicToolResults = (body: any) =>
  body.messages
    .at(-1)
    .content.filter((b: any) => b.type === "tool_result")
    .map((b: any) => ({ id: b.tool_use_id, text: b.content }));

const wires: Wire[] = [
  {
    name: "bedrock",
    model: "claude-sonnet-4-5",
    format: "bedrock",
    make: (o = {}) =>
      createBedrockProvider({ baseURL: mock.bedrockBaseURL, ...o, env: { ...awsEnv, ...o.env } }),
    authProblem: (r) => verifySigV4(r, SECRET),
    toolResults: anthropicToolResults,
    image: (body) => body.messages[0].content.find((b: any) => b.type === "image")?.source,
    thinkingSignature: (body) => body.messages[1].content.find((b: any) => b.type === "thinking")?.signature,
    overload: 503,
  },
  {
    name: "bedrock",
    model: "meta.llama3-3-70b-instruct-v1:0",
    format: "bedrock-converse",
    make: (o = {}) =>
      createBedrockProvider({ baseURL: mock.bedrockBaseURL, ...o, env: { ...awsEnv, ...o.env } }),
    authProblem: (r) => verifySigV4(r, SECRET),
    toolResults: (body) =>
      body.messages
        .at(-1)
        .content.filter((b: any) => b.toolResult)
        .map((b: any) => ({ id: b.toolResult.toolUseId, text: b.toolResult.content[0].text })),
    image: (body) => body.messages[0].content.find((b: any) => b.image)?.image,
    thinkingSignature: (body) =>
      body.messages[1].content.find((b: any) => b.reasoningContent)?.reasoningContent.reasoningText.signature,
    overload: 503,
  },
  {
    name: "vertex",
    model: "claude-sonnet-4-5",
    format: "vertex",
    make: (o = {}) =>
      createVertexProvider({
        baseURL: mock.vertexBaseURL,
        ...o,
        env: { GOOGLE_APPLICATION_CREDENTIALS: keyFile, CLOUD_ML_REGION: "us-east5", ...o.env },
      }),
    authProblem: (r) =>
      /^Bearer token-\d+$/.test(String(r.headers.authorization))
        ? undefined
        : `bad authorization ${r.headers.authorization}`,
    toolResults: anthropicToolResults,
    image: (body) => body.messages[0].content.find((b: any) => b.type === "image")?.source,
    thinkingSignature: (body) => body.messages[1].content.find((b: any) => b.type === "thinking")?.signature,
    overload: 529,
  },
];

const ask = (model: string, over: Partial<ModelRequest> = {}): ModelRequest => ({
  model,
  messages: [{ role: "user", content: "hello" }],
  maxTokens: 1024,
  ...over,
});

async function failure(run: Promise<unknown>): Promise<ProviderError> {
  const err = await run.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!isProviderError(err)) throw new Error(`expected a ProviderError, got ${String(err)}`);
  return err;
}

const PNG =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";

describe.each(wires)("$format ($model)", (wire) => {
  const last = (): MockRequest => {
    const r = mock.requests.at(-1);
    if (!r) throw new Error("no request reached the mock");
    return r;
  };

  it("streams text with usage including cache tokens, over a correctly authenticated request", async () => {
    mock.enqueue(
      reply.text("Hello from the cloud.", {
        chunkSize: 4,
        usage: { input: 30, output: 6, cacheRead: 100, cacheWrite: 20 },
      }),
    );
    const events: StreamEvent[] = [];
    const message = await accumulate(wire.make().stream(ask(wire.model)), (e) => events.push(e));
    expect(message.content).toEqual([{ type: "text", text: "Hello from the cloud." }]);
    expect(message.stop_reason).toBe("end_turn");
    expect(message.usage).toEqual({
      input_tokens: 30,
      output_tokens: 6,
      cache_read_input_tokens: 100,
      cache_creation_input_tokens: 20,
    });
    expect(events.filter((e) => e.type === "text_delta").length).toBe(6);
    const request = last();
    expect(request.format).toBe(wire.format);
    expect(wire.authProblem(request)).toBeUndefined();
    if (wire.format === "bedrock") {
      expect(request.path).toBe(
        "/model/us.anthropic.claude-sonnet-4-5-20250929-v1%3A0/invoke-with-response-stream",
      );
      expect(request.body.anthropic_version).toBe("bedrock-2023-05-31");
      expect(request.body.model).toBeUndefined();
      expect(request.body.stream).toBeUndefined();
    } else if (wire.format === "vertex") {
      expect(request.path).toBe(
        "/v1/projects/proj-from-key/locations/us-east5/publishers/anthropic/models/claude-sonnet-4-5@20250929:streamRawPredict",
      );
      expect(request.body).toMatchObject({ anthropic_version: "vertex-2023-10-16", stream: true });
      expect(request.body.model).toBeUndefined();
    } else {
      expect(request.path).toBe("/model/meta.llama3-3-70b-instruct-v1%3A0/converse-stream");
      expect(request.body.inferenceConfig).toEqual({ maxTokens: 1024 });
    }
  });

  it("runs a tool loop with parallel calls and sends the results back in the wire's shape", async () => {
    const provider = wire.make();
    mock.enqueue(
      reply.toolCalls(
        [
          { name: "Read", input: { file_path: "/a.txt" }, id: "call_a" },
          { name: "Grep", input: { pattern: "fo+" }, id: "call_b" },
        ],
        { text: "Reading both.", chunkSize: 3 },
      ),
      reply.text("Both read."),
    );
    const tools = [
      { name: "Read", description: "read", input_schema: { type: "object" } },
      { name: "Grep", description: "grep", input_schema: { type: "object" } },
    ];
    const first = await accumulate(provider.stream(ask(wire.model, { tools })));
    expect(first.stop_reason).toBe("tool_use");
    const calls = first.content.filter((b) => b.type === "tool_use");
    expect(calls).toEqual([
      { type: "tool_use", id: "call_a", name: "Read", input: { file_path: "/a.txt" } },
      { type: "tool_use", id: "call_b", name: "Grep", input: { pattern: "fo+" } },
    ]);
    const messages: Message[] = [
      { role: "user", content: "read them" },
      first,
      {
        role: "user",
        content: [
          { type: "tool_result", tool_use_id: "call_a", content: "A" },
          { type: "tool_result", tool_use_id: "call_b", content: "B" },
        ],
      },
    ];
    const second = await accumulate(provider.stream(ask(wire.model, { tools, messages })));
    expect(second.content).toEqual([{ type: "text", text: "Both read." }]);
    expect(wire.toolResults(last().body)).toEqual([
      { id: "call_a", text: "A" },
      { id: "call_b", text: "B" },
    ]);
  });

  it("sends an image", async () => {
    mock.enqueue(reply.text("A dot."));
    const messages: Message[] = [
      {
        role: "user",
        content: [
          { type: "image", source: { type: "base64", media_type: "image/png", data: PNG } },
          { type: "text", text: "what is it?" },
        ],
      },
    ];
    await accumulate(wire.make().stream(ask(wire.model, { messages })));
    const image = wire.image(last().body);
    if (wire.format === "bedrock-converse") expect(image).toEqual({ format: "png", source: { bytes: PNG } });
    else expect(image).toEqual({ type: "base64", media_type: "image/png", data: PNG });
  });

  it("returns thinking with its signature and sends both back on the next turn", async () => {
    const provider = wire.make();
    mock.enqueue(reply.thinking("Weighing it.", "Answer.", { signature: "sig-xyz" }), reply.text("ok"));
    const first = await accumulate(
      provider.stream(ask(wire.model, { thinking: { type: "enabled", budgetTokens: 2048 } })),
    );
    expect(first.content[0]).toEqual({ type: "thinking", thinking: "Weighing it.", signature: "sig-xyz" });
    const messages: Message[] = [{ role: "user", content: "q" }, first, { role: "user", content: "more" }];
    await accumulate(provider.stream(ask(wire.model, { messages })));
    expect(wire.thinkingSignature(last().body)).toBe("sig-xyz");
  });

  it("marks a tool call cut by max_tokens as truncated", async () => {
    mock.enqueue(
      reply.toolCalls([{ name: "Write", rawArguments: '{"content": "abc' }], { stopReason: "max_tokens" }),
    );
    const message = await accumulate(wire.make().stream(ask(wire.model)));
    expect(message.stop_reason).toBe("max_tokens");
    expect(message.truncated).toBe(true);
  });

  it("reports context overflow", async () => {
    mock.enqueue(reply.overflow());
    expect((await failure(accumulate(wire.make().stream(ask(wire.model))))).kind).toBe("context_overflow");
  });

  it("maps 429 to rate_limit with retry-after, and retries it to success", async () => {
    mock.enqueue(reply.error(429, { headers: { "retry-after": "0.05" } }));
    const err = await failure(accumulate(wire.make().stream(ask(wire.model))));
    expect(err).toMatchObject({ kind: "rate_limit", status: 429, retryAfterMs: 50, provider: wire.name });
    if (wire.format === "vertex") expect(err.message).toMatch(/RESOURCE_EXHAUSTED/);
    else expect(err.message).toMatch(/Too many requests/);
    mock.enqueue(reply.error(429, { headers: { "retry-after": "0.05" } }), reply.text("after the wait"));
    const message = await accumulate(
      streamWithRetry(wire.make(), ask(wire.model), { retry: { baseDelayMs: 10 } }),
    );
    expect(message.content).toEqual([{ type: "text", text: "after the wait" }]);
  });

  it("maps the cloud's overload answer, over HTTP and inside the stream, to overloaded", async () => {
    mock.enqueue(reply.error(wire.overload));
    expect((await failure(accumulate(wire.make().stream(ask(wire.model))))).kind).toBe("overloaded");
    mock.enqueue(
      reply.streamError("overloaded_error", "Overloaded", {
        streamError: { type: "overloaded_error", message: "Overloaded", afterEvents: 1 },
      }),
    );
    const err = await failure(accumulate(wire.make().stream(ask(wire.model))));
    expect(err.kind).toBe("overloaded");
    expect(err.afterFirstDelta).toBe(false);
  });

  it("fails a stalled stream with a timeout", async () => {
    mock.enqueue(reply.text("slow answer here", { chunkSize: 2, delayMs: 400 }));
    const err = await failure(accumulate(wire.make({ timeouts: { idleMs: 150 } }).stream(ask(wire.model))));
    expect(err.kind).toBe("timeout");
    expect(err.message).toMatch(/stalled/);
  });

  it("fails a dropped stream with kind stream after part of the answer", async () => {
    mock.enqueue(reply.text("a long answer that will be cut", { chunkSize: 4, dropAfterEvents: 5 }));
    const err = await failure(accumulate(wire.make().stream(ask(wire.model))));
    expect(err).toMatchObject({ kind: "stream", afterFirstDelta: true });
  });

  it("fails a malformed chunk with kind stream, quoting it", async () => {
    mock.enqueue(reply.text("abcdefgh", { malformedAfterEvents: 2 }));
    const err = await failure(accumulate(wire.make().stream(ask(wire.model))));
    expect(err.kind).toBe("stream");
    expect(err.message).toContain("{broken");
  });

  it("on refused credentials fetches fresh ones: the call is retried once when they changed, else fails as authentication", async () => {
    const provider = wire.make();
    mock.enqueue(reply.text("one"), reply.error(403), reply.text("two"));
    await accumulate(provider.stream(ask(wire.model)));
    const grantsBefore = tokens.grants.length;
    const requestsBefore = mock.requests.length;
    if (wire.name === "vertex") {
      // A new token from the token endpoint, and the same call made again with it.
      const message = await accumulate(provider.stream(ask(wire.model)));
      expect(message.content).toEqual([{ type: "text", text: "two" }]);
      expect(tokens.grants.length).toBe(grantsBefore + 1);
      const [refused, retried] = mock.requests.slice(requestsBefore);
      expect(retried.headers.authorization).not.toBe(refused.headers.authorization);
    } else {
      // The environment's keys again: nothing newer to try, so the refusal stands, once.
      const err = await failure(accumulate(provider.stream(ask(wire.model))));
      expect(err.kind).toBe("authentication");
      expect(err.message).toContain("AccessDeniedException");
      expect(mock.requests.length).toBe(requestsBefore + 1);
      const message = await accumulate(provider.stream(ask(wire.model)));
      expect(message.content).toEqual([{ type: "text", text: "two" }]);
    }
    expect(wire.authProblem(last())).toBeUndefined();
  });
});

describe("cloud provider switches", () => {
  it("Bedrock sends no signature with CLAUDE_CODE_SKIP_BEDROCK_AUTH=1 and a bearer key with AWS_BEARER_TOKEN_BEDROCK", async () => {
    mock.enqueue(reply.text("a"), reply.text("b"));
    await accumulate(
      createBedrockProvider({
        baseURL: mock.bedrockBaseURL,
        env: { CLAUDE_CODE_SKIP_BEDROCK_AUTH: "1" },
      }).stream(ask("claude-haiku-4-5")),
    );
    expect(mock.requests.at(-1)?.headers.authorization).toBeUndefined();
    await accumulate(
      createBedrockProvider({
        baseURL: mock.bedrockBaseURL,
        env: { AWS_BEARER_TOKEN_BEDROCK: "bedrock-api-key-1" },
      }).stream(ask("claude-haiku-4-5")),
    );
    expect(mock.requests.at(-1)?.headers.authorization).toBe("Bearer bedrock-api-key-1");
  });

  it("Bedrock takes ANTHROPIC_BEDROCK_BASE_URL, the profile's region, and moves betas into the body", async () => {
    const home = tempDir("goat-aws-home-");
    fs.mkdirSync(path.join(home, ".aws"));
    fs.writeFileSync(path.join(home, ".aws", "config"), "[profile work]\nregion = eu-central-1\n");
    fs.writeFileSync(
      path.join(home, ".aws", "credentials"),
      `[work]\naws_access_key_id = AKIDWORK\naws_secret_access_key = ${SECRET}\n`,
    );
    mock.enqueue(reply.text("a"));
    const provider = createBedrockProvider({
      env: { ANTHROPIC_BEDROCK_BASE_URL: mock.bedrockBaseURL, AWS_PROFILE: "work" },
      credentialChain: { home },
      headers: { "anthropic-beta": "context-1m-2025-08-07" },
    });
    await accumulate(provider.stream(ask("claude-sonnet-4-5")));
    const request = mock.requests.at(-1)!;
    expect(request.path).toBe(
      "/model/eu.anthropic.claude-sonnet-4-5-20250929-v1%3A0/invoke-with-response-stream",
    );
    expect(String(request.headers.authorization)).toMatch(
      /Credential=AKIDWORK\/\d{8}\/eu-central-1\/bedrock\/aws4_request/,
    );
    expect(verifySigV4(request, SECRET)).toBeUndefined();
    expect(request.body.anthropic_beta).toEqual(["context-1m-2025-08-07"]);
    expect(request.headers["anthropic-beta"]).toBeUndefined();
  });

  it("Bedrock re-reads rotated credentials when the old ones are refused, and retries the call with them", async () => {
    const home = tempDir("goat-aws-home-");
    fs.mkdirSync(path.join(home, ".aws"));
    const credentialsFile = path.join(home, ".aws", "credentials");
    fs.writeFileSync(
      credentialsFile,
      `[default]\naws_access_key_id = AKIDOLD\naws_secret_access_key = ${SECRET}\n`,
    );
    const provider = createBedrockProvider({
      baseURL: mock.bedrockBaseURL,
      env: { AWS_EC2_METADATA_DISABLED: "true" },
      credentialChain: { home },
    });
    mock.enqueue(reply.text("a"));
    await accumulate(provider.stream(ask("claude-sonnet-4-5")));
    fs.writeFileSync(
      credentialsFile,
      `[default]\naws_access_key_id = AKIDNEW\naws_secret_access_key = ${SECRET}\n`,
    );
    mock.enqueue(
      reply.error(403, { message: "The security token included in the request is expired" }),
      reply.text("b"),
    );
    const message = await accumulate(provider.stream(ask("claude-sonnet-4-5")));
    expect(message.content).toEqual([{ type: "text", text: "b" }]);
    const [refused, retried] = mock.requests.slice(-2);
    expect(String(refused.headers.authorization)).toContain("Credential=AKIDOLD/");
    expect(String(retried.headers.authorization)).toContain("Credential=AKIDNEW/");
    expect(verifySigV4(retried, SECRET)).toBeUndefined();
  });

  it("Vertex skips auth with CLAUDE_CODE_SKIP_VERTEX_AUTH=1 and takes project, region and base URL from Claude Code's variables", async () => {
    mock.enqueue(reply.text("a"));
    const provider = createVertexProvider({
      env: {
        CLAUDE_CODE_SKIP_VERTEX_AUTH: "1",
        ANTHROPIC_VERTEX_BASE_URL: mock.vertexBaseURL,
        ANTHROPIC_VERTEX_PROJECT_ID: "my-proj",
        CLOUD_ML_REGION: "global",
      },
    });
    await accumulate(provider.stream(ask("claude-opus-4-5")));
    const request = mock.requests.at(-1)!;
    expect(request.path).toBe(
      "/v1/projects/my-proj/locations/global/publishers/anthropic/models/claude-opus-4-5@20251101:streamRawPredict",
    );
    expect(request.headers.authorization).toBeUndefined();
  });

  it("Vertex sends a model to the region of its VERTEX_REGION_<MODEL> variable (Claude Code's), the rest to CLOUD_ML_REGION", async () => {
    const env = {
      CLAUDE_CODE_SKIP_VERTEX_AUTH: "1",
      ANTHROPIC_VERTEX_BASE_URL: mock.vertexBaseURL,
      ANTHROPIC_VERTEX_PROJECT_ID: "p",
      CLOUD_ML_REGION: "global",
      VERTEX_REGION_CLAUDE_3_5_HAIKU: "us-east5",
      VERTEX_REGION_CLAUDE_4_1_OPUS: "europe-west1",
      VERTEX_REGION_CLAUDE_4_0_OPUS: "asia-east1",
    };
    const provider = createVertexProvider({ env });
    const regionOf = async (model: string): Promise<string> => {
      mock.enqueue(reply.text("a"));
      await accumulate(provider.stream(ask(model)));
      return /\/locations\/([^/]+)\//.exec(mock.requests.at(-1)!.path)![1];
    };
    expect(await regionOf("claude-3-5-haiku")).toBe("us-east5");
    expect(await regionOf("claude-3-5-haiku@20241022")).toBe("us-east5");
    expect(await regionOf("claude-opus-4-1")).toBe("europe-west1");
    expect(await regionOf("claude-opus-4")).toBe("asia-east1");
    // Opus 4.5 is not Opus 4's family: no variable of its own, so the default region.
    expect(await regionOf("claude-opus-4-5")).toBe("global");
    expect(await regionOf("claude-sonnet-4-5")).toBe("global");
  });

  it("Vertex sends a Gemini model to Google's publisher path with the Gemini body, and reads Gemini's stream", async () => {
    mock.enqueue(reply.toolCalls([{ name: "Read", input: { file_path: "/g" }, id: "g1" }]));
    const provider = createVertexProvider({
      baseURL: mock.vertexBaseURL,
      env: { GOOGLE_APPLICATION_CREDENTIALS: keyFile, CLOUD_ML_REGION: "europe-west4" },
    });
    const message = await accumulate(provider.stream(ask("gemini-2.5-pro")));
    expect(message.content).toMatchObject([{ type: "tool_use", name: "Read", input: { file_path: "/g" } }]);
    const request = mock.requests.at(-1)!;
    expect(request.format).toBe("gemini");
    expect(request.path).toBe(
      "/v1/projects/proj-from-key/locations/europe-west4/publishers/google/models/gemini-2.5-pro:streamGenerateContent",
    );
    expect(request.body.contents[0].parts[0].text).toBe("hello");
    expect(request.headers.authorization).toMatch(/^Bearer token-\d+$/);
  });

  it("Vertex without a project says which variable to set", async () => {
    const err = await failure(
      accumulate(
        createVertexProvider({
          baseURL: mock.vertexBaseURL,
          env: { CLAUDE_CODE_SKIP_VERTEX_AUTH: "1" },
        }).stream(ask("claude-opus-4-5")),
      ),
    );
    expect(err.message).toMatch(/ANTHROPIC_VERTEX_PROJECT_ID/);
  });
});
