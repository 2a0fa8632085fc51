import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { createModelCatalog } from "../../src/llm/catalog.js";
import { computeCost } from "../../src/llm/cost.js";
import { createSdkMcpServer, tool } from "../../src/mcp/sdk-server.js";
import { query } from "../../src/sdk/query.js";
import { writeStdioServer } from "../mcp/helpers.js";
import { type MockProvider, reply, startMockProvider } from "../support/mock-provider.js";
import { collect, echoTool, mockOptions, resultOf, tempDir, timedTool, toolResultsSent } from "./helpers.js";

let mock: MockProvider;
let dir: string;
beforeAll(async () => {
  mock = await startMockProvider();
});
afterAll(async () => {
  await mock.close();
});
beforeEach(() => {
  mock.requests.length = 0;
  dir = tempDir("goat-mcp-e2e-");
});

describe("MCP servers in a session", () => {
  it("exposes stdio and in-process server tools as mcp__server__tool and runs them for the model", async () => {
    const server = writeStdioServer(dir);
    const inProcess = createSdkMcpServer({
      name: "calc",
      tools: [
        tool("add", "Adds", { a: z.number(), b: z.number() }, async ({ a, b }) => ({
          content: [{ type: "text", text: String(a + b) }],
        })),
      ],
    });
    mock.enqueue(
      reply.toolCalls([
        { name: "mcp__fixture__echo", input: { msg: "hi" }, id: "m1" },
        { name: "mcp__calc__add", input: { a: 2, b: 3 }, id: "m2" },
      ]),
      reply.text("done"),
    );
    const messages = await collect(
      query({
        prompt: "x",
        options: mockOptions(mock, "anthropic", {
          mcpServers: { fixture: { command: process.execPath, args: [server] }, calc: inProcess },
        }),
      }),
    );
    const init = messages[0] as any;
    expect(init.mcp_servers).toEqual([
      { name: "fixture", status: "connected" },
      { name: "calc", status: "connected" },
    ]);
    expect(init.tools).toContain("mcp__fixture__echo");
    const toolNames = mock.requests[0].body.tools.map((t: any) => t.name);
    expect(toolNames).toEqual(expect.arrayContaining(["mcp__fixture__echo", "mcp__calc__add"]));
    expect(toolResultsSent(mock.requests[1].body).map((r) => r.content)).toEqual(["echo: hi", "5"]);
  });

  it("reports a server that fails to start and goes on without it; permission rules apply to MCP tools", async () => {
    const server = writeStdioServer(dir);
    mock.enqueue(
      reply.toolCalls([{ name: "mcp__fixture__structured", input: { n: 4 }, id: "s1" }]),
      reply.text("ok"),
    );
    const messages = await collect(
      query({
        prompt: "x",
        options: mockOptions(mock, "anthropic", {
          permissionMode: "default",
          disallowedTools: ["mcp__fixture__structured"],
          mcpServers: {
            fixture: { command: process.execPath, args: [server] },
            broken: { command: process.execPath, args: ["-e", "process.exit(1)"] },
          },
        }),
      }),
    );
    const init = messages[0] as any;
    expect(init.mcp_servers).toContainEqual({ name: "broken", status: "failed" });
    expect(init.mcp_servers).toContainEqual({ name: "fixture", status: "connected" });
    const sent = toolResultsSent(mock.requests[1].body)[0];
    expect(sent.isError).toBe(true);
    expect(resultOf(messages).subtype).toBe("success");
  });
});

describe("subagents", () => {
  it("runs two Task calls concurrently and adds their cost to the parent's result", async () => {
    const log: Array<[string, string, number]> = [];
    const slow = timedTool("slow_read", "none", 200, log);
    // Each subagent asks for the slow tool once, then answers; the parent then answers.
    mock.enqueue(
      reply.toolCalls(
        [
          {
            name: "Task",
            input: { description: "one", prompt: "job one", subagent_type: "worker" },
            id: "t1",
          },
          {
            name: "Task",
            input: { description: "two", prompt: "job two", subagent_type: "worker" },
            id: "t2",
          },
        ],
        { usage: { input: 100, output: 10 } },
      ),
    );
    const childReply = (req: any) => {
      const prompt = JSON.stringify(req.body.messages[0]);
      const tag = prompt.includes("job one") ? "one" : "two";
      const hasResult = JSON.stringify(req.body.messages).includes("tool_result");
      return hasResult
        ? reply.text(`report ${tag}`, { usage: { input: 100, output: 10 } })
        : reply.toolCalls([{ name: "slow_read", input: { tag } }], { usage: { input: 100, output: 10 } });
    };
    mock.enqueue(
      childReply,
      childReply,
      childReply,
      childReply,
      reply.text("all done", { usage: { input: 100, output: 10 } }),
    );
    const messages = await collect(
      query({
        prompt: "delegate",
        options: mockOptions(mock, "anthropic", {
          tools: [slow],
          agents: { worker: { description: "does jobs", prompt: "You are a worker.", tools: ["slow_read"] } },
        }),
      }),
    );
    const result = resultOf(messages);
    expect(result.result).toBe("all done");
    expect(mock.requests).toHaveLength(6);
    // Both children's tools overlapped: the subagents ran at the same time.
    const t = (tag: string, kind: string) => log.find(([x, k]) => x === tag && k === kind)![2];
    expect(t("one", "start")).toBeLessThan(t("two", "end"));
    expect(t("two", "start")).toBeLessThan(t("one", "end"));
    const sent = toolResultsSent(mock.requests[5].body);
    expect(sent.map((r) => r.content).sort()).toEqual(["report one", "report two"]);
    // Six calls of equal usage: the parent's total is six times one call.
    const model = Object.keys(result.modelUsage)[0];
    expect(result.modelUsage[model].inputTokens).toBe(600);
    const perCall = computeCost(
      { input_tokens: 100, output_tokens: 10, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 },
      createModelCatalog().get(model),
    ).costUsd;
    expect(perCall).toBeGreaterThan(0);
    expect(result.total_cost_usd).toBeCloseTo(6 * perCall, 12);
    // The children's messages reach the parent's stream marked with their Task call.
    const childAssistant = messages.filter((m) => m.type === "assistant" && (m as any).parent_tool_use_id);
    expect(new Set(childAssistant.map((m: any) => m.parent_tool_use_id))).toEqual(new Set(["t1", "t2"]));
    // The child's system prompt is its own.
    expect(
      mock.requests.slice(1, 5).every((r) => JSON.stringify(r.body.system).includes("You are a worker.")),
    ).toBe(true);
  });

  it("starts a subagent without asking in default mode, while the subagent's own writes still ask", async () => {
    const dir = tempDir("goat-task-perm-");
    const target = `${dir}/made-by-subagent.txt`;
    mock.enqueue(
      reply.toolCalls([
        {
          name: "Task",
          input: { description: "w", prompt: "write it", subagent_type: "general-purpose" },
          id: "t",
        },
      ]),
      reply.toolCalls([{ name: "Write", input: { file_path: target, content: "x" }, id: "w" }]),
      reply.text("could not write"),
      reply.text("the subagent reported back"),
    );
    const asked: string[] = [];
    const messages = await collect(
      query({
        prompt: "delegate a write",
        options: mockOptions(mock, "anthropic", {
          cwd: dir,
          permissionMode: "default",
          tools: ["Write", "Task"],
          canUseTool: async (name) => {
            asked.push(name);
            return { behavior: "deny", message: "no" };
          },
        }),
      }),
    );
    expect(resultOf(messages).result).toBe("the subagent reported back");
    expect(asked).toEqual(["Write"]);
    expect(toolResultsSent(mock.requests[3].body)).toEqual([
      { id: "t", content: "could not write", isError: false },
    ]);
    expect(await import("node:fs").then((fs) => fs.existsSync(target))).toBe(false);
  });

  it("interrupting the parent stops a running subagent", async () => {
    const log: Array<[string, string, number]> = [];
    const slow = timedTool("slow_read", "none", 10_000, log);
    mock.enqueue(
      reply.toolCalls([
        {
          name: "Task",
          input: { description: "d", prompt: "p", subagent_type: "general-purpose" },
          id: "t1",
        },
      ]),
      reply.toolCalls([{ name: "slow_read", input: { tag: "child" } }]),
    );
    const q = query({
      prompt: "x",
      options: mockOptions(mock, "anthropic", { tools: [slow, echoTool, "Task"] }),
    });
    const started = Date.now();
    const messages = [];
    for await (const m of q) {
      messages.push(m);
      if (m.type === "tool_progress" && (m as any).tool_name === "slow_read") void q.interrupt();
    }
    expect(Date.now() - started).toBeLessThan(3_000);
    expect(log.find(([, k]) => k === "end")).toBeTruthy();
    expect(resultOf(messages).exit_reason).toBe("interrupted");
    expect(mock.requests).toHaveLength(2);
  });
});
