/**
 * The testing kit's mock wires checked against the providers' official clients: `openai` reads the
 * mock's Responses and Chat Completions streams (also as `AzureOpenAI`), `@google/genai` its Gemini
 * stream and error bodies. A mock the official client cannot parse would make every conformance
 * scenario a test of our own misunderstanding.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { geminiRequestBody } from "../../../src/llm/gemini-request.js";
import { type MockProvider, reply, startMockProvider } from "../../../src/testing/mock-provider.js";
import { loadOfficialClient } from "./install.mjs";

let mock: MockProvider;
beforeAll(async () => {
  mock = await startMockProvider();
}, 300_000);
afterAll(() => mock.close());

const toolCallReply = () =>
  reply.message(
    [
      { type: "thinking", thinking: "Need the file first.", signature: "ZW5jcnlwdGVk" },
      { type: "text", text: "Reading it." },
      { type: "tool_use", name: "Read", input: { file_path: "/a.txt" }, id: "call_r1", signature: "c2ln" },
    ],
    { usage: { input: 20, output: 9, cacheRead: 64, reasoning: 4 }, chunkSize: 4 },
  );

describe("openai (official client) on the mock", () => {
  it("streams a Responses answer: reasoning with encrypted content, text, a function call, usage", async () => {
    const { default: OpenAI } = await loadOfficialClient("openai");
    const client = new OpenAI({ baseURL: mock.openaiBaseURL, apiKey: "k", maxRetries: 0 });
    mock.enqueue(toolCallReply());
    const stream = client.responses.stream({ model: "gpt-5", input: "hi", store: false });
    const deltas: string[] = [];
    stream.on("response.output_text.delta", (e: any) => deltas.push(e.delta));
    const final = await stream.finalResponse();
    expect(deltas.join("")).toBe("Reading it.");
    const [reasoning, message, call] = final.output;
    expect(reasoning).toMatchObject({ type: "reasoning", encrypted_content: "ZW5jcnlwdGVk" });
    expect(reasoning.summary[0].text).toBe("Need the file first.");
    expect(message).toMatchObject({
      type: "message",
      content: [{ type: "output_text", text: "Reading it." }],
    });
    expect(call).toMatchObject({ type: "function_call", call_id: "call_r1", name: "Read" });
    expect(JSON.parse(call.arguments)).toEqual({ file_path: "/a.txt" });
    expect(final.usage).toMatchObject({
      input_tokens: 84,
      output_tokens: 9,
      input_tokens_details: { cached_tokens: 64 },
      output_tokens_details: { reasoning_tokens: 4 },
    });
  }, 300_000);

  it("reads a Responses max_output_tokens cut as incomplete", async () => {
    const { default: OpenAI } = await loadOfficialClient("openai");
    const client = new OpenAI({ baseURL: mock.openaiBaseURL, apiKey: "k", maxRetries: 0 });
    mock.enqueue(reply.text("Once upon", { stopReason: "max_tokens" }));
    const stream = client.responses.stream({ model: "gpt-5", input: "hi" });
    let incomplete: any;
    stream.on("response.incomplete", (e: any) => {
      incomplete = e.response;
    });
    const final = await stream.finalResponse();
    expect(final.output[0].content[0].text).toBe("Once upon");
    expect(incomplete).toMatchObject({
      status: "incomplete",
      incomplete_details: { reason: "max_output_tokens" },
    });
  });

  it("streams Chat Completions, and Azure's deployment path through AzureOpenAI", async () => {
    const { default: OpenAI, AzureOpenAI } = await loadOfficialClient("openai");
    const client = new OpenAI({ baseURL: mock.openaiBaseURL, apiKey: "k", maxRetries: 0 });
    mock.enqueue(
      reply.toolCalls([{ name: "Read", input: { file_path: "/b" }, id: "call_c1" }], { text: "Ok." }),
    );
    const chat = await client.chat.completions
      .stream({
        model: "gpt-4.1",
        messages: [{ role: "user", content: "hi" }],
        stream_options: { include_usage: true },
      })
      .finalChatCompletion();
    expect(chat.choices[0].message.content).toBe("Ok.");
    expect(chat.choices[0].message.tool_calls?.[0]).toMatchObject({
      id: "call_c1",
      function: { name: "Read" },
    });

    const azure = new AzureOpenAI({
      endpoint: mock.geminiBaseURL,
      apiKey: "azure-key",
      apiVersion: "2024-10-21",
      deployment: "my-dep",
      maxRetries: 0,
    });
    mock.enqueue(reply.text("From Azure."));
    const fromAzure = await azure.chat.completions
      .stream({ model: "my-dep", messages: [{ role: "user", content: "hi" }] })
      .finalChatCompletion();
    expect(fromAzure.choices[0].message.content).toBe("From Azure.");
    const seen = mock.requests.at(-1)!;
    // The path and header our Azure provider sends are the ones the official client sends.
    expect(seen.path).toBe("/openai/deployments/my-dep/chat/completions");
    expect(seen.headers["api-key"]).toBe("azure-key");
  });
});

describe("@google/genai (official client) on the mock", () => {
  const client = async () => {
    const { GoogleGenAI } = await loadOfficialClient("@google/genai");
    return new GoogleGenAI({ apiKey: "gk", httpOptions: { baseUrl: mock.geminiBaseURL } });
  };

  it("streams thoughts, text and a signed function call, with usage", async () => {
    const ai = await client();
    mock.enqueue(toolCallReply());
    const chunks: any[] = [];
    for await (const chunk of await ai.models.generateContentStream({
      model: "gemini-2.5-pro",
      contents: "hi",
    }))
      chunks.push(chunk);
    const parts = chunks.flatMap((c) => c.candidates?.[0]?.content?.parts ?? []);
    expect(
      parts
        .filter((p) => p.thought)
        .map((p) => p.text)
        .join(""),
    ).toBe("Need the file first.");
    expect(parts.filter((p) => p.thought).at(-1).thoughtSignature).toBe("ZW5jcnlwdGVk");
    expect(chunks.map((c) => c.text ?? "").join("")).toBe("Reading it.");
    const call = chunks.flatMap((c) => c.functionCalls ?? [])[0];
    expect(call).toMatchObject({ id: "call_r1", name: "Read", args: { file_path: "/a.txt" } });
    expect(parts.find((p) => p.functionCall).thoughtSignature).toBe("c2ln");
    const last = chunks.at(-1);
    expect(last.candidates[0].finishReason).toBe("STOP");
    expect(last.usageMetadata).toMatchObject({
      promptTokenCount: 84,
      cachedContentTokenCount: 64,
      thoughtsTokenCount: 4,
      candidatesTokenCount: 5,
    });
    // The request went where our provider sends it, with the key where our provider puts it.
    const seen = mock.requests.at(-1)!;
    expect(seen.path).toBe("/v1beta/models/gemini-2.5-pro:streamGenerateContent");
    expect(seen.headers["x-goog-api-key"]).toBe("gk");
  });

  it("sends the request body our mapper sends for the same conversation", async () => {
    const ai = await client();
    mock.enqueue(reply.text("a"));
    const schema = { type: "object", properties: { file_path: { type: "string" } } };
    const stream = await ai.models.generateContentStream({
      model: "gemini-2.5-pro",
      contents: [
        { role: "user", parts: [{ text: "read /a" }] },
        {
          role: "model",
          parts: [
            { functionCall: { id: "c1", name: "Read", args: { file_path: "/a" } }, thoughtSignature: "c2ln" },
          ],
        },
        {
          role: "user",
          parts: [{ functionResponse: { id: "c1", name: "Read", response: { output: "A" } } }],
        },
      ],
      config: {
        systemInstruction: "Be brief.",
        maxOutputTokens: 256,
        thinkingConfig: { thinkingBudget: 1024, includeThoughts: true },
        tools: [
          {
            functionDeclarations: [
              { name: "Read", description: "Read a file", parametersJsonSchema: schema },
            ],
          },
        ],
      },
    });
    for await (const _ of stream);
    const official = mock.requests.at(-1)!.body;
    const ours = geminiRequestBody({
      model: "gemini-2.5-pro",
      system: "Be brief.",
      maxTokens: 256,
      thinking: { type: "enabled", budgetTokens: 1024 },
      tools: [{ name: "Read", description: "Read a file", input_schema: schema }],
      messages: [
        { role: "user", content: "read /a" },
        {
          role: "assistant",
          model: "gemini/gemini-2.5-pro",
          content: [
            { type: "tool_use", id: "c1", name: "Read", input: { file_path: "/a" }, signature: "c2ln" },
          ],
        },
        { role: "user", content: [{ type: "tool_result", tool_use_id: "c1", content: "A" }] },
      ],
    });
    expect(ours.contents).toEqual(official.contents);
    expect(ours.tools).toEqual(official.tools);
    expect(ours.generationConfig).toEqual(official.generationConfig);
    // The SDK marks the system instruction's role; the API takes it either way.
    expect(ours.systemInstruction).toEqual({ parts: official.systemInstruction.parts });
  });

  it("reads the mock's error body as Google's (status and code)", async () => {
    const ai = await client();
    mock.enqueue(reply.error(429));
    const err: any = await ai.models
      .generateContentStream({ model: "gemini-2.5-pro", contents: "hi" })
      .catch((e: unknown) => e);
    expect(err.status).toBe(429);
    expect(String(err.message)).toContain("RESOURCE_EXHAUSTED");
  });
});
