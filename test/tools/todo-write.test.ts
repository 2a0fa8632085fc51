/**
 * TodoWrite through query(): on by default, the list reaches the host in the tool_use block and the
 * result's details, and a bad list is refused with a message naming the field. The CLI renderer shows
 * it as a checklist.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createRenderer } from "../../src/cli/render/renderer.js";
import { createThinkingView } from "../../src/cli/render/thinking-view.js";
import { createStyle } from "../../src/cli/style.js";
import { createScreen } from "../../src/cli/terminal/screen.js";
import { query } from "../../src/sdk/query.js";
import { collect, mockOptions, toolResultsSent } from "../runtime/helpers.js";
import { type MockProvider, reply, startMockProvider } from "../support/mock-provider.js";

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

const todos = [
  { content: "Run the tests", status: "completed", activeForm: "Running the tests" },
  { content: "Fix the bug", status: "in_progress", activeForm: "Fixing the bug" },
  { content: "Write docs", status: "pending", activeForm: "Writing docs" },
];

describe("TodoWrite", () => {
  it("is offered by default and runs in default mode without asking; the host sees the list", async () => {
    mock.enqueue(reply.toolCalls([{ name: "TodoWrite", input: { todos }, id: "t1" }]), reply.text("ok"));
    const { tools: _omit, ...rest } = mockOptions(mock, "anthropic");
    const events: any[] = [];
    const messages = await collect(
      query({
        prompt: "plan",
        options: { ...rest, permissionMode: "default", onEvent: (e) => events.push(e) },
      }),
    );
    const offered = mock.requests[0].body.tools.map((t: any) => t.name);
    expect(offered).toContain("TodoWrite");
    const use = messages
      .filter((m) => m.type === "assistant")
      .flatMap((m: any) => m.message.content)
      .find((b: any) => b.type === "tool_use");
    expect(use.input.todos).toEqual(todos);
    const sent = toolResultsSent(mock.requests[1].body)[0];
    expect(sent.isError).toBe(false);
    expect(sent.content).toMatch(/Todos have been modified successfully/);
    const end = events.find((e) => e.type === "tool_execution_end");
    expect(end.result.details.newTodos).toEqual(todos);
  });

  it("refuses a todo with a bad status, naming the field, and keeps the old list", async () => {
    const bad = [{ content: "x", status: "done", activeForm: "x-ing" }];
    mock.enqueue(
      reply.toolCalls([{ name: "TodoWrite", input: { todos }, id: "t1" }]),
      reply.toolCalls([{ name: "TodoWrite", input: { todos: bad }, id: "t2" }]),
      reply.toolCalls([{ name: "TodoWrite", input: { todos: todos.slice(0, 1) }, id: "t3" }]),
      reply.text("ok"),
    );
    const events: any[] = [];
    await collect(
      query({
        prompt: "plan",
        options: mockOptions(mock, "openai", { tools: ["TodoWrite"], onEvent: (e) => events.push(e) }),
      }),
    );
    const second = toolResultsSent(mock.requests[2].body).at(-1)!;
    expect(second.content).toMatch(/todos\.0\.status/);
    const ends = events.filter((e) => e.type === "tool_execution_end" && e.result.details);
    expect(ends.at(-1).result.details.oldTodos).toEqual(todos);
  });
});

describe("TodoWrite in the CLI renderer", () => {
  it("shows the list as a compact checklist and not the result text", () => {
    let out = "";
    const screen = createScreen(
      {
        columns: 80,
        write: (t: string) => {
          out += t;
          return true;
        },
      } as any,
      false,
    );
    const status: any = { show() {}, hide() {}, end() {}, tokens() {}, retry() {} };
    const style = createStyle(false);
    const thinking = createThinkingView(screen, style, { expanded: false, live: false });
    const r = createRenderer(screen, style, status, "/tmp", thinking);
    r.handle({
      type: "assistant",
      parent_tool_use_id: null,
      message: {
        content: [{ type: "tool_use", id: "t1", name: "TodoWrite", input: { todos } }],
        usage: { input_tokens: 1, output_tokens: 1 },
      },
    } as any);
    r.handle({
      type: "user",
      parent_tool_use_id: null,
      message: {
        role: "user",
        content: [
          { type: "tool_result", tool_use_id: "t1", content: "Todos have been modified successfully." },
        ],
      },
    } as any);
    expect(out).toContain("● Update Todos");
    expect(out).toContain("⎿ ☒ Run the tests");
    expect(out).toContain("◐ Fixing the bug");
    expect(out).toContain("☐ Write docs");
    expect(out).not.toContain("modified successfully");
  });
});
