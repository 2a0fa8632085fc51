import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { InvalidOptionError } from "../../src/sdk/options-check.js";
import { query } from "../../src/sdk/query.js";
import { defineTool } from "../../src/tools/define-tool.js";
import { type MockProvider, reply, startMockProvider } from "../support/mock-provider.js";
import { collect, echoTool, mockOptions, resultOf, toolResultsSent } from "./helpers.js";

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

const shout = defineTool({
  name: "shout",
  description: "Shouts",
  inputSchema: z.object({ text: z.string() }),
  sideEffect: "none",
  execute: async ({ text }) => ({ content: text.toUpperCase() }),
});

const agents = {
  reviewer: {
    description: "Reviews code for mistakes",
    prompt: "You are a strict reviewer.",
    tools: ["echo"],
    model: "haiku",
  },
  writer: {
    description: "Writes prose",
    prompt: "You are a writer.",
    disallowedTools: ["echo"],
  },
};

const names = (body: any) => (body.tools ?? []).map((t: any) => t.name ?? t.function?.name);
const system = (body: any) => JSON.stringify(body.system);

describe("custom subagents (agents)", () => {
  it("the Task tool lists them, and each runs with its own prompt, tools and model", async () => {
    mock.enqueue(
      reply.toolCalls([
        {
          name: "Task",
          input: { description: "r", prompt: "review it", subagent_type: "reviewer" },
          id: "t1",
        },
      ]),
      reply.text("looks fine"),
      reply.toolCalls([
        { name: "Task", input: { description: "w", prompt: "write it", subagent_type: "writer" }, id: "t2" },
      ]),
      reply.text("a poem"),
      reply.text("all done"),
    );
    const messages = await collect(
      query({ prompt: "x", options: mockOptions(mock, "anthropic", { tools: [echoTool, shout], agents }) }),
    );
    expect(resultOf(messages).result).toBe("all done");
    expect((messages[0] as any).agents).toEqual(["reviewer", "writer"]);
    const task = mock.requests[0].body.tools.find((t: any) => t.name === "Task");
    expect(task.description).toContain("- reviewer: Reviews code for mistakes");
    expect(task.description).toContain("- writer: Writes prose");

    const [parent, reviewer, , writer] = mock.requests.map((r) => r.body);
    expect(parent.model).toBe("claude-sonnet-4-5");
    expect(reviewer.model).toBe("claude-haiku-4-5");
    expect(system(reviewer)).toContain("You are a strict reviewer.");
    expect(names(reviewer)).toEqual(["echo"]);
    expect(writer.model).toBe("claude-sonnet-4-5");
    expect(system(writer)).toContain("You are a writer.");
    expect(names(writer)).toEqual(["shout"]);
    expect(toolResultsSent(mock.requests[2].body).map((r) => r.content)).toEqual(["looks fine"]);
  });

  it("an unknown subagent_type gets an error naming the agents that exist", async () => {
    mock.enqueue(
      reply.toolCalls([
        { name: "Task", input: { description: "d", prompt: "p", subagent_type: "nobody" }, id: "t1" },
      ]),
      reply.text("ok"),
    );
    await collect(
      query({ prompt: "x", options: mockOptions(mock, "anthropic", { tools: [echoTool], agents }) }),
    );
    const [sent] = toolResultsSent(mock.requests[1].body);
    expect(sent.isError).toBe(true);
    expect(sent.content).toBe('Unknown subagent_type "nobody". Available: reviewer, writer.');
  });

  it("a definition field Goat does not act on is refused, not dropped", () => {
    expect(() =>
      query({
        prompt: "x",
        options: mockOptions(mock, "anthropic", {
          agents: { r: { description: "d", prompt: "p", skills: ["pdf"] } as any },
        }),
      }),
    ).toThrow(
      /agent "r" to use only description, prompt, tools, disallowedTools, model, maxTurns \(Goat does not support skills\)/,
    );
  });
});

describe("agent: the main conversation as one of the agents", () => {
  it("takes the agent's prompt, tools and model", async () => {
    mock.enqueue(reply.text("reviewed"));
    const messages = await collect(
      query({
        prompt: "x",
        options: mockOptions(mock, "anthropic", {
          tools: [echoTool, shout, "Read"],
          agents,
          agent: "reviewer",
        }),
      }),
    );
    expect(resultOf(messages).result).toBe("reviewed");
    const body = mock.requests[0].body;
    expect(body.model).toBe("claude-haiku-4-5");
    expect(system(body)).toContain("You are a strict reviewer.");
    expect(names(body)).toEqual(["echo"]);
  });

  it("an agent that is not defined, or lists a tool that does not exist, is refused", () => {
    const attempt = (extra: object) => () =>
      query({ prompt: "x", options: mockOptions(mock, "anthropic", { agents, ...extra }) });
    expect(attempt({ agent: "editor" })).toThrow(InvalidOptionError);
    expect(attempt({ agent: "editor" })).toThrow(
      'Option "agent" names "editor", which is not in "agents" (defined: reviewer, writer).',
    );
    expect(
      attempt({ agents: { a: { description: "d", prompt: "p", tools: ["Raed"] } }, agent: "a" }),
    ).toThrow(/Agent "a" lists tools that do not exist: Raed\./);
  });
});
