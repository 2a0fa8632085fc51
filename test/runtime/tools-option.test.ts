import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { QueryOptions } from "../../src/sdk/options.js";
import { query } from "../../src/sdk/query.js";
import { DEFAULT_TOOL_NAMES } from "../../src/tools/builtin.js";
import { type MockProvider, reply, startMockProvider } from "../support/mock-provider.js";
import { collect, echoTool, mockOptions, resultOf, tempDir } from "./helpers.js";

let mock: MockProvider;
beforeAll(async () => {
  mock = await startMockProvider();
});
afterAll(async () => {
  await mock.close();
});
beforeEach(() => {
  mock.requests.length = 0;
});

const offered = (body: any): string[] => (body.tools ?? []).map((t: any) => t.name ?? t.function?.name);

async function toolsFor(extra: QueryOptions) {
  mock.enqueue(reply.text("ok"));
  const base = mockOptions(mock, "anthropic", extra);
  if (!("tools" in extra)) delete base.tools;
  const messages = await collect(query({ prompt: "x", options: base }));
  return { sent: offered(mock.requests.at(-1)!.body), init: (messages[0] as any).tools as string[] };
}

describe("tools: the base set offered to the model, distinct from allowedTools", () => {
  it("a list offers exactly those tools (built-in names and tool objects), and init says so", async () => {
    const { sent, init } = await toolsFor({ tools: ["Read", "Grep", echoTool] });
    expect(sent).toEqual(["Read", "Grep", "echo"]);
    expect(init).toEqual(sent);
  });

  it("an empty list offers no tool at all", async () => {
    const { sent } = await toolsFor({ tools: [] });
    expect(sent).toEqual([]);
  });

  it("the claude_code preset and no tools option both offer the default set with Task", async () => {
    const preset = await toolsFor({ tools: { type: "preset", preset: "claude_code" } });
    const absent = await toolsFor({});
    expect(preset.sent).toEqual([...DEFAULT_TOOL_NAMES, "Task"]);
    expect(absent.sent).toEqual(preset.sent);
  });

  it("allowedTools only allows without asking: it never narrows what is offered", async () => {
    const { sent } = await toolsFor({ allowedTools: ["Read"] });
    expect(sent).toEqual([...DEFAULT_TOOL_NAMES, "Task"]);
  });

  it("a tool outside the list is unknown to the run, even if allowedTools names it", async () => {
    mock.enqueue(
      reply.toolCalls([{ name: "Bash", input: { command: "echo hi" }, id: "b1" }]),
      reply.text("ok"),
    );
    const messages = await collect(
      query({
        prompt: "x",
        options: mockOptions(mock, "anthropic", { tools: ["Read"], allowedTools: ["Bash"] }),
      }),
    );
    expect(resultOf(messages).subtype).toBe("success");
    const result = mock.requests[1].body.messages[2].content[0];
    expect(result.is_error).toBe(true);
    expect(result.content).toMatch(/Bash/);
  });

  it("an unknown built-in name is refused at start", () => {
    expect(() =>
      query({ prompt: "x", options: mockOptions(mock, "anthropic", { tools: ["Raed"] }) }),
    ).toThrow(/Unknown built-in tool "Raed"/);
  });
});

describe("getApiKey for the built-in providers", () => {
  it.each(["anthropic", "openai"] as const)(
    "is asked before each %s call, over the key in the environment",
    async (name) => {
      const asked: string[] = [];
      let n = 0;
      mock.enqueue(reply.text("one"), reply.text("two"));
      const env =
        name === "anthropic"
          ? { ANTHROPIC_BASE_URL: mock.anthropicBaseURL, ANTHROPIC_API_KEY: "env-key" }
          : { OPENAI_BASE_URL: mock.openaiBaseURL, OPENAI_API_KEY: "env-key" };
      const q = query({
        prompt: (async function* () {
          yield { type: "user" as const, message: { role: "user" as const, content: "1" } };
          yield { type: "user" as const, message: { role: "user" as const, content: "2" } };
        })(),
        options: {
          model: name === "anthropic" ? "anthropic/claude-sonnet-4-5" : "openai/gpt-4.1",
          env: { ...env, GOAT_HOME: tempDir("goat-key-home-") },
          persistSession: false,
          tools: [],
          getApiKey: async (provider) => {
            asked.push(provider);
            return `rotated-${++n}`;
          },
        },
      });
      await collect(q);
      expect(asked).toEqual([name, name]);
      const keys = mock.requests.map((r) =>
        name === "anthropic" ? r.headers["x-api-key"] : r.headers.authorization,
      );
      expect(keys).toEqual(
        name === "anthropic" ? ["rotated-1", "rotated-2"] : ["Bearer rotated-1", "Bearer rotated-2"],
      );
    },
  );
});
