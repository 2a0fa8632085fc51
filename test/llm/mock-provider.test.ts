/** The mock provider itself: non-streaming JSON answers and function replies, in both wire formats. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type MockProvider, reply, startMockProvider } from "../support/mock-provider.js";

let mock: MockProvider;
beforeAll(async () => {
  mock = await startMockProvider();
});
afterAll(() => mock.close());

const post = (url: string, body: object) =>
  fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });

describe("mock provider", () => {
  it("answers JSON in the Anthropic shape when stream is false", async () => {
    mock.enqueue(reply.toolCalls([{ name: "Read", input: { file_path: "/x" }, id: "t1" }], { text: "hm" }));
    const res = await post(`${mock.anthropicBaseURL}/v1/messages`, { model: "m", messages: [] });
    expect(await res.json()).toMatchObject({
      type: "message",
      model: "m",
      stop_reason: "tool_use",
      content: [
        { type: "text", text: "hm" },
        { type: "tool_use", id: "t1", name: "Read", input: { file_path: "/x" } },
      ],
    });
  });

  it("answers JSON in the OpenAI shape, deciding from a function reply", async () => {
    mock.enqueue((req) => reply.text(`you sent ${req.body.messages.length} messages`));
    const res = await post(`${mock.openaiBaseURL}/chat/completions`, {
      model: "g",
      messages: [{ role: "user", content: "a" }],
    });
    const json = (await res.json()) as any;
    expect(json.choices[0]).toMatchObject({
      message: { role: "assistant", content: "you sent 1 messages" },
      finish_reason: "stop",
    });
    expect(mock.requests.at(-1)).toMatchObject({ path: "/v1/chat/completions", format: "openai" });
  });
});
