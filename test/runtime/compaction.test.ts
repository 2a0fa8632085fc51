import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { query, type SDKUserMessageInput } from "../../src/sdk/query.js";
import { createJsonlSessionStore } from "../../src/session/jsonl-store.js";
import { type MockProvider, reply, startMockProvider } from "../support/mock-provider.js";
import { collect, echoTool, mockOptions, resultOf, tempDir } from "./helpers.js";

let mock: MockProvider;
let home: string;
beforeAll(async () => {
  mock = await startMockProvider();
});
afterAll(async () => {
  await mock.close();
});
beforeEach(() => {
  mock.requests.length = 0;
  home = tempDir("goat-compact-");
});

const summaryRequest = (body: any) => JSON.stringify(body).includes("summary");

describe("compaction in a session", () => {
  it("recovers from a real overflow error with the default summarizer, once", async () => {
    mock.enqueue(
      reply.text("earlier answer"),
      reply.overflow(),
      reply.text("<summary>we talked</summary>"),
      reply.text("fits"),
    );
    async function* input(): AsyncGenerator<SDKUserMessageInput> {
      yield { type: "user", message: { role: "user", content: "first" } };
      yield { type: "user", message: { role: "user", content: "second" } };
    }
    const messages = await collect(query({ prompt: input(), options: mockOptions(mock, "anthropic") }));
    const results = messages.filter((m) => m.type === "result") as any[];
    expect(results.map((r) => r.result)).toEqual(["earlier answer", "fits"]);
    expect(summaryRequest(mock.requests[2].body)).toBe(true);
    expect(JSON.stringify(mock.requests[3].body.messages)).toContain("we talked");
    const boundary = messages.find(
      (m) => m.type === "system" && (m as any).subtype === "compact_boundary",
    ) as any;
    expect(boundary.compact_metadata.trigger).toBe("auto");
  });

  it("compacts on request between runs, fires PreCompact and PostCompact, and a resume loads summary plus tail", async () => {
    const fired: string[] = [];
    const hook = async (input: any) => {
      fired.push(`${input.hook_event_name}:${input.trigger}`);
      return {};
    };
    const options = mockOptions(mock, "anthropic", {
      persistSession: true,
      env: { GOAT_HOME: home },
      hooks: { PreCompact: [{ hooks: [hook] }], PostCompact: [{ hooks: [hook] }] },
    });
    mock.enqueue(reply.text("a1"), reply.text("a2"), reply.text("<summary>the gist</summary>"));
    let release!: () => void;
    const gate = new Promise<void>((r) => {
      release = r;
    });
    async function* input(): AsyncGenerator<SDKUserMessageInput> {
      yield { type: "user", message: { role: "user", content: "q1 ".repeat(2000) } };
      yield { type: "user", message: { role: "user", content: "q2" } };
      await gate;
    }
    const q = query({ prompt: input(), options });
    let results = 0;
    const seen = [];
    for await (const m of q) {
      seen.push(m);
      if (m.type === "result" && ++results === 2) {
        await q.compact("keep the numbers");
        release();
      }
    }
    expect(fired).toEqual(["PreCompact:manual", "PostCompact:manual"]);
    expect(JSON.stringify(mock.requests[2].body)).toContain("keep the numbers");
    const boundary = seen.find(
      (m) => m.type === "system" && (m as any).subtype === "compact_boundary",
    ) as any;
    expect(boundary.compact_metadata.trigger).toBe("manual");

    const sessionId = q.sessionId;
    const store = createJsonlSessionStore({ home });
    const entries = (await store.load(sessionId))!;
    store.close();
    expect(entries.some((e: any) => e.type === "compact_boundary" && e.summary.includes("the gist"))).toBe(
      true,
    );

    mock.requests.length = 0;
    mock.enqueue(reply.text("resumed"));
    await collect(query({ prompt: "q3", options: { ...options, hooks: {}, resume: sessionId } }));
    const sent = JSON.stringify(mock.requests[0].body.messages);
    expect(sent).toContain("the gist");
    expect(sent).not.toContain("q1 q1 q1");
    expect(sent).toContain("q3");
  });

  it("stops after three failed compactions in a row with a clear error, instead of looping", async () => {
    let attempts = 0;
    mock.enqueue(
      reply.toolCalls([{ name: "echo", input: { text: "a" } }], { usage: { input: 3_900, output: 10 } }),
      reply.toolCalls([{ name: "echo", input: { text: "b" } }], { usage: { input: 3_900, output: 10 } }),
    );
    const messages = await collect(
      query({
        prompt: `big ${"word ".repeat(4_000)}`,
        options: mockOptions(mock, "anthropic", {
          model: "anthropic/tiny-window",
          models: [
            {
              id: "tiny-window",
              provider: "anthropic",
              contextWindow: 4_000,
              maxOutputTokens: 500,
              pricing: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
            },
          ],
          tools: [echoTool],
          compactor: async () => {
            attempts++;
            throw new Error("summarizer down");
          },
        }),
      }),
    );
    expect(attempts).toBe(3);
    const result = resultOf(messages) as any;
    expect(result.exit_reason).toBe("error");
    expect(result.errors.join(" ")).toContain("Compaction failed (3 in a row): summarizer down");
    expect(mock.requests).toHaveLength(2);
  });
});
