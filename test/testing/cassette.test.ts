/**
 * goat-agent/testing: record a session's provider traffic through the recorder (in front of the
 * HTTP mock standing in for a real provider), then replay it with the provider gone, over both wire
 * formats; credentials never reach the cassette; a request the cassette did not record fails loudly.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { query } from "../../src/sdk/query.js";
import { startRecorder, startReplayer } from "../../src/testing/index.js";
import { defineTool } from "../../src/tools/define-tool.js";
import { tempDir } from "../runtime/helpers.js";
import { reply, startMockProvider } from "../support/mock-provider.js";

const SECRET = "sk-very-secret-key-123";
const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

const calls: string[] = [];
const weather = defineTool({
  name: "weather",
  description: "Weather of a city.",
  inputSchema: z.object({ city: z.string() }),
  sideEffect: "none",
  execute: async ({ city }) => {
    calls.push(city);
    return { content: `sunny in ${city}` };
  },
});

async function run(format: "anthropic" | "openai", baseURL: string, cwd: string) {
  const q = query({
    prompt: "What is the weather in Paris?",
    options: {
      cwd,
      model: format === "anthropic" ? "anthropic/claude-sonnet-4-5" : "openai/gpt-4o",
      provider: { type: format, baseURL: format === "openai" ? `${baseURL}/v1` : baseURL, apiKey: SECRET },
      tools: [weather],
      persistSession: false,
      permissionMode: "bypassPermissions",
      retry: { maxRetries: 0 },
    },
  });
  const out: { text: string[]; result?: any } = { text: [] };
  for await (const m of q) {
    if (m.type === "assistant")
      for (const b of m.message.content) if (b.type === "text") out.text.push(b.text);
    if (m.type === "result") out.result = m;
  }
  return out;
}

describe.each(["anthropic", "openai"] as const)("record and replay over %s", (format) => {
  it("replays a recorded tool-using session with the provider gone, same answers, key redacted", async () => {
    const mock = await startMockProvider();
    const upstream = mock.anthropicBaseURL;
    mock.enqueue(
      reply.toolCalls([{ name: "weather", input: { city: "Paris" }, id: "w1" }]),
      reply.text("It is sunny in Paris."),
    );
    const cwd = tempDir("goat-cassette-");
    const cassettePath = join(cwd, "weather.cassette.json");
    const recorder = await startRecorder({ target: upstream, cassette: cassettePath });
    calls.length = 0;
    const recorded = await run(format, recorder.baseURL, cwd);
    expect(recorded.result.subtype).toBe("success");
    await recorder.save();
    await recorder.close();
    await mock.close(); // the "real provider" is gone from here on

    const saved = readFileSync(cassettePath, "utf8");
    expect(saved).not.toContain(SECRET);
    expect(JSON.parse(saved).interactions).toHaveLength(2);

    const replayer = await startReplayer({ cassette: cassettePath });
    closers.push(() => replayer.close());
    const replayed = await run(format, replayer.baseURL, cwd);
    expect(replayed.text).toEqual(recorded.text);
    expect(replayed.text.join(" ")).toContain("It is sunny in Paris.");
    expect(replayed.result.subtype).toBe("success");
    expect(replayed.result.usage).toEqual(recorded.result.usage);
    expect(calls).toEqual(["Paris", "Paris"]); // the tool really ran both times
    expect(replayer.remaining()).toBe(0);
    expect(replayer.mismatches).toEqual([]);
  });
});

describe("replay mismatches", () => {
  it("a prompt the cassette did not record gets a 400 naming where the body differs", async () => {
    const cwd = tempDir("goat-cassette-");
    const replayer = await startReplayer({
      cassette: {
        version: 1,
        interactions: [
          {
            request: {
              method: "POST",
              path: "/v1/messages",
              headers: {},
              body: { model: "claude-sonnet-4-5", messages: [{ role: "user", content: "other prompt" }] },
            },
            response: { status: 200, headers: { "content-type": "application/json" }, body: "{}" },
          },
        ],
      },
    });
    closers.push(() => replayer.close());
    const out = await run("anthropic", replayer.baseURL, cwd);
    expect(out.result.subtype).not.toBe("success");
    expect(replayer.mismatches).toHaveLength(1);
    expect(replayer.mismatches[0]).toMatch(/body of POST \/v1\/messages differs from the recorded one at \//);
    expect(replayer.remaining()).toBe(1);
  });

  it("refuses a file that is not a cassette", async () => {
    await expect(startReplayer({ cassette: { version: 2 } as never })).rejects.toThrow(/Not a Goat cassette/);
  });
});
