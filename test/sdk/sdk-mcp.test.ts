/**
 * In-process MCP servers (`createSdkMcpServer`) of the official Claude Agent SDK, run by `goat`: the
 * server lives in the host (this test process) and Goat calls its tools over the control channel
 * (`mcp_message`), with and without the manifests the SDK captures.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { useCliFixture } from "../cli/helpers.js";
import { reply } from "../support/mock-provider.js";
import { type ClaudeSdk, loadClaudeSdk, loadSdkZod } from "./claude-sdk.js";
import { collect, inits, results, sdkOptions, toolResults } from "./helpers.js";

const fx = useCliFixture("goat-sdk-mcp");
let sdk: ClaudeSdk;
let z: typeof import("zod");
beforeAll(async () => {
  sdk = await loadClaudeSdk();
  z = await loadSdkZod();
}, 300_000);

function calculator(calls: Array<{ a: number; b: number }>) {
  return sdk.createSdkMcpServer({
    name: "calc",
    version: "1.2.3",
    tools: [
      sdk.tool("add", "Adds two numbers", { a: z.number(), b: z.number() }, async (args) => {
        calls.push(args);
        return { content: [{ type: "text", text: `sum=${args.a + args.b}` }] };
      }),
    ],
  });
}

describe("in-process SDK MCP servers", () => {
  for (const manifests of [true, false]) {
    it(`a tool of the host's server is called in the host's process (${manifests ? "with" : "without"} manifests)`, async () => {
      fx.mock.enqueue(
        reply.toolCalls([{ name: "mcp__calc__add", id: "toolu_add", input: { a: 2, b: 40 } }]),
        reply.text("the sum is 42"),
      );
      const calls: Array<{ a: number; b: number }> = [];
      const previous = process.env.CLAUDE_AGENT_SDK_DISABLE_MCP_MANIFESTS;
      if (!manifests) process.env.CLAUDE_AGENT_SDK_DISABLE_MCP_MANIFESTS = "1";
      try {
        const run = await collect(
          sdk.query({
            prompt: "add 2 and 40",
            options: sdkOptions(fx, { mcpServers: { calc: calculator(calls) }, allowedTools: ["mcp__calc"] }),
          }),
        );
        expect(run.error).toBeUndefined();
        expect(calls).toEqual([{ a: 2, b: 40 }]);
        expect(toolResults(run)[0].tool_use_id).toBe("toolu_add");
        expect(toolResults(run)[0].is_error).toBeFalsy();
        expect(JSON.stringify(toolResults(run)[0].content)).toContain("sum=42");
        expect(results(run)[0]).toMatchObject({ subtype: "success", result: "the sum is 42" });
        expect(inits(run)[0].mcp_servers).toEqual([{ name: "calc", status: "connected" }]);
        expect(inits(run)[0].tools).toContain("mcp__calc__add");
        // The model saw the tool with the server's schema.
        const offered = fx.mock.requests[0].body.tools.find((t: any) => t.name === "mcp__calc__add");
        expect(offered.input_schema.properties).toMatchObject({
          a: { type: "number" },
          b: { type: "number" },
        });
      } finally {
        if (previous === undefined) delete process.env.CLAUDE_AGENT_SDK_DISABLE_MCP_MANIFESTS;
        else process.env.CLAUDE_AGENT_SDK_DISABLE_MCP_MANIFESTS = previous;
      }
    });
  }
});
