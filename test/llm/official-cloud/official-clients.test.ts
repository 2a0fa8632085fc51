/**
 * The mocks of the cloud wires checked once against the official clients: Anthropic's Bedrock and
 * Vertex SDKs and AWS's Bedrock runtime client parse the streams our mock sends (so the mock is the
 * documented wire, not our reading of it), send the requests our providers send, and are signed as
 * we sign: Smithy's SigV4 signer gives our signature for the same request, and the official client's
 * request passes the verifier our provider tests use.
 */
import { createRequire } from "node:module";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { accumulate } from "../../../src/llm/accumulate.js";
import { signRequest } from "../../../src/llm/aws-sigv4.js";
import { createBedrockProvider } from "../../../src/llm/bedrock.js";
import { createVertexProvider } from "../../../src/llm/vertex.js";
import { type MockProvider, reply, startMockProvider } from "../../support/mock-provider.js";
import { verifySigV4 } from "../cloud-fixtures.js";
import { ensureOfficialCloudClients } from "./install.mjs";

let mock: MockProvider;
let load: (name: string) => any;
const SECRET = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY";
const credentials = { accessKeyId: "AKIDEXAMPLE", secretAccessKey: SECRET };

beforeAll(async () => {
  const modules = await ensureOfficialCloudClients();
  load = createRequire(join(modules, "index.js"));
  mock = await startMockProvider();
}, 300_000);
afterAll(() => mock?.close());

const tools = [
  { name: "Read", description: "read a file", input_schema: { type: "object", properties: {} } },
];
const script = () =>
  reply.toolCalls([{ name: "Read", input: { file_path: "/a.txt" }, id: "toolu_1" }], {
    text: "Reading.",
    chunkSize: 3,
    usage: { input: 12, output: 7, cacheRead: 40, cacheWrite: 5 },
  });

describe("Anthropic's Bedrock SDK against the Bedrock mock", () => {
  it("parses the event-stream frames into the same message our provider reads", async () => {
    const { AnthropicBedrock } = load("@anthropic-ai/bedrock-sdk");
    const client = new AnthropicBedrock({
      awsAccessKey: credentials.accessKeyId,
      awsSecretKey: SECRET,
      awsRegion: "us-west-2",
      baseURL: mock.bedrockBaseURL,
      maxRetries: 0,
    });
    mock.enqueue(script(), script());
    const model = "us.anthropic.claude-sonnet-4-5-20250929-v1:0";
    const official = await client.messages
      .stream({ model, max_tokens: 1024, tools, messages: [{ role: "user", content: "read it" }] })
      .finalMessage();
    const theirs = mock.requests.at(-1)!;
    expect(official.content).toEqual([
      { type: "text", text: "Reading." },
      { type: "tool_use", id: "toolu_1", name: "Read", input: { file_path: "/a.txt" } },
    ]);
    expect(official.usage).toMatchObject({
      input_tokens: 12,
      output_tokens: 7,
      cache_read_input_tokens: 40,
      cache_creation_input_tokens: 5,
    });
    expect(official.stop_reason).toBe("tool_use");
    expect(verifySigV4(theirs, SECRET)).toBeUndefined(); // our verifier accepts the official signer's request

    const ours = await accumulate(
      createBedrockProvider({
        baseURL: mock.bedrockBaseURL,
        env: { AWS_ACCESS_KEY_ID: "AKIDEXAMPLE", AWS_SECRET_ACCESS_KEY: SECRET, AWS_REGION: "us-west-2" },
      }).stream({
        model,
        maxTokens: 1024,
        tools,
        messages: [{ role: "user", content: "read it" }],
      }),
    );
    expect(ours.content).toEqual(official.content);
    const mine = mock.requests.at(-1)!;
    // AWS's client sends the model id's ":" as %3A, Anthropic's as is: the same path to the server.
    expect(decodeURIComponent(mine.path)).toBe(decodeURIComponent(theirs.path));
    expect(Object.keys(mine.body).sort()).toEqual(Object.keys(theirs.body).sort());
    // The documented value; this SDK release sends its own API version date (2026-10-21) there instead.
    expect(mine.body.anthropic_version).toBe("bedrock-2023-05-31");
    expect(theirs.body.anthropic_version).toMatch(/^(?:bedrock-2023-05-31|\d{4}-\d{2}-\d{2})$/);
  });
});

describe("AWS's Bedrock runtime client against the Bedrock mock", () => {
  const client = () => {
    const { BedrockRuntimeClient } = load("@aws-sdk/client-bedrock-runtime");
    // The client speaks HTTP/2 for the event streams unless given the HTTP/1.1 handler (the mock's).
    const { NodeHttpHandler } = load("@smithy/node-http-handler");
    return new BedrockRuntimeClient({
      region: "us-west-2",
      endpoint: mock.bedrockBaseURL,
      credentials,
      maxAttempts: 1,
      requestHandler: new NodeHttpHandler(),
    });
  };

  it("reads the ConverseStream frames: text, a tool call's input, usage with cache tokens", async () => {
    const { ConverseStreamCommand } = load("@aws-sdk/client-bedrock-runtime");
    mock.enqueue(script());
    const response = await client().send(
      new ConverseStreamCommand({
        modelId: "meta.llama3-3-70b-instruct-v1:0",
        messages: [{ role: "user", content: [{ text: "read it" }] }],
        toolConfig: {
          tools: [
            { toolSpec: { name: "Read", description: "read", inputSchema: { json: { type: "object" } } } },
          ],
        },
      }),
    );
    let text = "";
    let toolInput = "";
    let toolName: string | undefined;
    let usage: any;
    let stop: string | undefined;
    for await (const event of response.stream) {
      if (event.contentBlockDelta?.delta?.text) text += event.contentBlockDelta.delta.text;
      if (event.contentBlockDelta?.delta?.toolUse) toolInput += event.contentBlockDelta.delta.toolUse.input;
      if (event.contentBlockStart?.start?.toolUse) toolName = event.contentBlockStart.start.toolUse.name;
      if (event.messageStop) stop = event.messageStop.stopReason;
      if (event.metadata) usage = event.metadata.usage;
    }
    expect({ text, toolName, input: JSON.parse(toolInput), stop }).toEqual({
      text: "Reading.",
      toolName: "Read",
      input: { file_path: "/a.txt" },
      stop: "tool_use",
    });
    expect(usage).toMatchObject({
      inputTokens: 12,
      outputTokens: 7,
      cacheReadInputTokens: 40,
      cacheWriteInputTokens: 5,
    });
    const request = mock.requests.at(-1)!;
    expect(request.path).toBe("/model/meta.llama3-3-70b-instruct-v1%3A0/converse-stream");
    expect(verifySigV4(request, SECRET)).toBeUndefined();
  });

  it("raises the mock's in-stream exception frame as its ThrottlingException", async () => {
    const { InvokeModelWithResponseStreamCommand } = load("@aws-sdk/client-bedrock-runtime");
    mock.enqueue(
      reply.streamError("rate_limit_error", "Too many requests", {
        text: "partial",
        streamError: { type: "rate_limit_error", message: "Too many requests", afterEvents: 3 },
      }),
    );
    const response = await client().send(
      new InvokeModelWithResponseStreamCommand({
        modelId: "us.anthropic.claude-haiku-4-5-20251001-v1:0",
        body: JSON.stringify({
          anthropic_version: "bedrock-2023-05-31",
          max_tokens: 10,
          messages: [{ role: "user", content: "hi" }],
        }),
      }),
    );
    const chunks: string[] = [];
    const error = await (async () => {
      try {
        for await (const event of response.body) chunks.push(Buffer.from(event.chunk.bytes).toString());
      } catch (err) {
        return err as Error;
      }
    })();
    expect(JSON.parse(chunks[0]).type).toBe("message_start");
    expect(error?.name).toBe("ThrottlingException");
    expect(error?.message).toBe("Too many requests");
  });
});

describe("Smithy's SigV4 signer", () => {
  it("gives our signature for the same Bedrock request", async () => {
    const { SignatureV4 } = load("@smithy/signature-v4");
    const { Sha256 } = load("@aws-crypto/sha256-js");
    const date = new Date("2025-11-28T02:03:04Z");
    const url = new URL(
      "https://bedrock-runtime.us-west-2.amazonaws.com/model/us.anthropic.claude-sonnet-4-5-20250929-v1%3A0/invoke-with-response-stream",
    );
    const body = JSON.stringify({
      anthropic_version: "bedrock-2023-05-31",
      max_tokens: 5,
      messages: [{ role: "user", content: "hé" }],
    });
    const headers = { accept: "application/vnd.amazon.eventstream", "content-type": "application/json" };
    const withSession = { ...credentials, sessionToken: "FwoGZXIvYXdzEXAMPLE" };
    const ours = signRequest({
      method: "POST",
      url,
      headers,
      body,
      region: "us-west-2",
      service: "bedrock",
      credentials: withSession,
      date,
    });
    const signer = new SignatureV4({
      credentials: withSession,
      region: "us-west-2",
      service: "bedrock",
      sha256: Sha256,
    });
    const theirs = await signer.sign(
      {
        method: "POST",
        protocol: "https:",
        hostname: url.hostname,
        path: url.pathname,
        query: {},
        headers: { ...headers, host: url.host },
        body,
      },
      { signingDate: date },
    );
    expect(ours.authorization).toBe(theirs.headers.authorization);
    expect(ours["x-amz-content-sha256"]).toBe(theirs.headers["x-amz-content-sha256"]);
  });
});

describe("Anthropic's Vertex SDK against the Vertex mock", () => {
  it("parses the stream and sends the request our provider sends", async () => {
    const { AnthropicVertex } = load("@anthropic-ai/vertex-sdk");
    // A stand-in for google-auth-library's client: our token exchange is tested in google-auth.test.ts.
    const authClient = {
      projectId: "proj-1",
      getRequestHeaders: async () => new Headers({ authorization: "Bearer tok-1" }),
    };
    const client = new AnthropicVertex({
      region: "us-east5",
      projectId: "proj-1",
      authClient,
      baseURL: mock.vertexBaseURL,
      maxRetries: 0,
    });
    mock.enqueue(script(), script());
    const official = await client.messages
      .stream({
        model: "claude-sonnet-4-5@20250929",
        max_tokens: 1024,
        tools,
        messages: [{ role: "user", content: "read it" }],
      })
      .finalMessage();
    const theirs = mock.requests.at(-1)!;
    expect(official.content[1]).toEqual({
      type: "tool_use",
      id: "toolu_1",
      name: "Read",
      input: { file_path: "/a.txt" },
    });
    expect(official.usage).toMatchObject({ cache_read_input_tokens: 40, cache_creation_input_tokens: 5 });
    expect(theirs.headers.authorization).toBe("Bearer tok-1");

    const ours = await accumulate(
      createVertexProvider({
        baseURL: mock.vertexBaseURL,
        apiKey: "tok-1",
        project: "proj-1",
        region: "us-east5",
      }).stream({
        model: "claude-sonnet-4-5",
        maxTokens: 1024,
        tools,
        messages: [{ role: "user", content: "read it" }],
      }),
    );
    expect(ours.content).toEqual(official.content);
    const mine = mock.requests.at(-1)!;
    expect(mine.path).toBe(theirs.path);
    expect(mine.headers.authorization).toBe("Bearer tok-1");
    expect(Object.keys(mine.body).sort()).toEqual(Object.keys(theirs.body).sort());
    expect(mine.body).toMatchObject({ anthropic_version: "vertex-2023-10-16", stream: theirs.body.stream });
    expect(theirs.body.anthropic_version).toMatch(/^(?:vertex-2023-10-16|\d{4}-\d{2}-\d{2})$/);
  });
});
