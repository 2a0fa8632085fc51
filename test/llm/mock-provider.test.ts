/**
 * The mock provider itself: non-streaming JSON answers and function replies, in both wire formats, and
 * which requests the client abandoned.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
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

  it("clear() drops queued replies and recorded requests: the next request finds the queue empty", async () => {
    mock.enqueue(reply.text("left over by a failed test"));
    await post(`${mock.anthropicBaseURL}/v1/messages`, { model: "m", messages: [] });
    mock.enqueue(reply.text("never answered"));
    mock.clear();
    expect(mock.pending()).toBe(0);
    expect(mock.requests).toHaveLength(0);
    const res = await post(`${mock.anthropicBaseURL}/v1/messages`, { model: "m", messages: [] });
    expect(res.status).toBe(500);
    expect(await res.text()).toContain("mock queue empty");
    expect(mock.requests).toHaveLength(1);
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

  it("marks a request abandoned when the client closes it mid-answer, not when it reads to the end or the mock cuts it", async () => {
    const stream = (signal?: AbortSignal) =>
      fetch(`${mock.anthropicBaseURL}/v1/messages`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ model: "m", messages: [], stream: true }),
        signal,
      });
    // Read to the end: finished, not abandoned.
    mock.enqueue(reply.text("read me to the end", { chunkSize: 4, delayMs: 5 }));
    await (await stream()).text();
    const read = mock.requests.at(-1)!;
    // Closed by the client after the first chunk.
    mock.enqueue(reply.text("a long answer nobody waits for", { chunkSize: 2, delayMs: 40 }));
    const controller = new AbortController();
    const res = await stream(controller.signal);
    await res.body!.getReader().read();
    controller.abort();
    const closed = mock.requests.at(-1)!;
    await vi.waitFor(() => expect(closed.abandoned).toBe(true), { timeout: 5_000 });
    // Cut by the mock (a scripted hang-up): the client did not abandon it.
    mock.enqueue(reply.hangup());
    await stream().then(
      (r) => r.text(),
      () => "",
    );
    const hungUp = mock.requests.at(-1)!;
    expect(read.abandoned).toBeUndefined();
    expect(hungUp.abandoned).toBeUndefined();
  });
});
