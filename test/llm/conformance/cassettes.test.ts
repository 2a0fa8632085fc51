/**
 * Cassettes of every wire: a tool loop recorded through the testing kit's recorder in front of each
 * provider's mock, saved with its credential redacted, and replayed by the replayer to the same
 * messages, so a user can record any provider Goat speaks and test offline against it.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { accumulate } from "../../../src/llm/accumulate.js";
import type { AssistantMessage, Message, Provider } from "../../../src/llm/types.js";
import { startRecorder, startReplayer } from "../../../src/testing/cassette.js";
import { reply, startMockProvider } from "../../../src/testing/mock-provider.js";
import { descriptors } from "./providers/index.js";

const dir = mkdtempSync(join(tmpdir(), "goat-cassettes-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const tools = [
  {
    name: "Read",
    description: "Read a file",
    input_schema: { type: "object", properties: { file_path: { type: "string" } } },
  },
];

/** Two turns: a Read call, then the answer after its result. */
async function toolLoop(provider: Provider, model: string): Promise<AssistantMessage[]> {
  const history: Message[] = [{ role: "user", content: "read /a" }];
  const first = await accumulate(provider.stream({ model, messages: history, tools, maxTokens: 256 }));
  history.push(first, {
    role: "user",
    content: [{ type: "tool_result", tool_use_id: "call_k1", content: "A" }],
  });
  const second = await accumulate(provider.stream({ model, messages: history, tools, maxTokens: 256 }));
  provider.close?.();
  return [first, second];
}

describe.each(descriptors)("$name cassette", (d) => {
  it("records a tool loop and replays it offline to the same messages", async () => {
    const mock = await startMockProvider();
    const path = join(dir, `${d.name}.json`);
    const recorder = await startRecorder({ target: mock.anthropicBaseURL, cassette: path });
    mock.enqueue(
      reply.toolCalls([{ name: "Read", input: { file_path: "/a" }, id: "call_k1" }]),
      reply.text("It is A."),
    );
    const recorded = await toolLoop(d.create(recorder.baseURL), d.model);
    await recorder.save();
    await recorder.close();
    await mock.close();
    const file = readFileSync(path, "utf8");
    expect(file).not.toContain("test-key");

    const replayer = await startReplayer({ cassette: path });
    const replayed = await toolLoop(d.create(replayer.baseURL), d.model);
    await replayer.close();
    expect(replayer.mismatches).toEqual([]);
    expect(replayer.remaining()).toBe(0);
    expect(replayed).toEqual(recorded);
    expect(replayed[1].content).toEqual([{ type: "text", text: "It is A." }]);
  });
});
