/**
 * The Claude Agent SDK's options reaching Goat's behaviour through the flags and `initialize` fields
 * the SDK sends, and its control methods answered by `goat`: each asserted on what the model was sent,
 * what ran, or what the method returned.
 */
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { useCliFixture } from "../cli/helpers.js";
import { reply } from "../support/mock-provider.js";
import { type ClaudeSdk, loadClaudeSdk, loadSdkZod } from "./claude-sdk.js";
import { collect, inits, results, sdkOptions, userStream } from "./helpers.js";

const fx = useCliFixture("goat-sdk-o");
let sdk: ClaudeSdk;
let z: typeof import("zod");
beforeAll(async () => {
  sdk = await loadClaudeSdk();
  z = await loadSdkZod();
}, 300_000);

async function waitUntil(done: () => boolean, timeoutMs = 15_000): Promise<void> {
  const start = Date.now();
  while (!done()) {
    if (Date.now() - start > timeoutMs) throw new Error("condition not met in time");
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Runs one prompt with `options` and returns the run. */
async function once(options: Record<string, unknown>, prompt = "go") {
  return collect(sdk.query({ prompt, options: sdkOptions(fx, options) }));
}

function files(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? files(join(dir, e.name)) : [join(dir, e.name)],
  );
}

describe("options reach behaviour", () => {
  it("model chooses the provider: openai/... goes to the OpenAI API", async () => {
    fx.env.OPENAI_BASE_URL = fx.mock.openaiBaseURL;
    fx.env.OPENAI_API_KEY = "test";
    fx.mock.enqueue(reply.text("from openai"));
    const run = await once({ model: "openai/gpt-4.1" });
    expect(run.error).toBeUndefined();
    expect(fx.mock.requests[0].path).toMatch(/chat\/completions$/);
    expect(fx.mock.requests[0].body.model).toBe("gpt-4.1");
    expect(inits(run)[0].model).toBe("openai/gpt-4.1");
    expect(results(run)[0].result).toBe("from openai");
  });

  it("systemPrompt, appendSystemPrompt (preset), tools, disallowedTools and thinking reach the request", async () => {
    fx.mock.enqueue(reply.text("a"), reply.text("b"));
    await once({
      systemPrompt: "You are a terse pirate.",
      tools: ["Read", "Grep"],
      thinking: { type: "enabled", budgetTokens: 2048 },
    });
    const first = fx.mock.requests[0].body;
    expect(JSON.stringify(first.system)).toContain("You are a terse pirate.");
    expect(first.tools.map((t: any) => t.name).sort()).toEqual(["Grep", "Read"]);
    expect(first.thinking).toEqual({ type: "enabled", budget_tokens: 2048 });
    await once({
      systemPrompt: { type: "preset", preset: "claude_code", append: "Always answer in French." },
      disallowedTools: ["Bash"],
    });
    const second = fx.mock.requests[1].body;
    expect(JSON.stringify(second.system)).toContain("Always answer in French.");
    expect(JSON.stringify(second.system)).toContain("Goat");
    expect(second.tools.map((t: any) => t.name)).not.toContain("Bash");
    expect(second.tools.map((t: any) => t.name)).toContain("Read");
  });

  it("maxTurns ends the run with error_max_turns", async () => {
    fx.mock.enqueue(reply.toolCalls([{ name: "Glob", id: "toolu_g", input: { pattern: "*" } }]));
    const run = await once({ maxTurns: 1 });
    expect(results(run)[0]).toMatchObject({ subtype: "error_max_turns", is_error: true });
  });

  it("outputFormat gives the result's structured_output", async () => {
    fx.mock.enqueue(
      reply.toolCalls([{ name: "StructuredOutput", id: "toolu_so", input: { city: "Paris", n: 3 } }]),
    );
    const schema = {
      type: "object",
      properties: { city: { type: "string" }, n: { type: "integer" } },
      required: ["city", "n"],
    };
    const run = await once({ outputFormat: { type: "json_schema", schema } });
    expect(run.error).toBeUndefined();
    expect(results(run)[0]).toMatchObject({ subtype: "success", structured_output: { city: "Paris", n: 3 } });
  });

  it("sessionId, persistSession: false, includePartialMessages and permissionMode", async () => {
    fx.mock.enqueue(reply.text("streamed"));
    const sessionId = "4f1e2d3c-1111-4222-8333-444455556666";
    const run = await once({
      sessionId,
      persistSession: false,
      includePartialMessages: true,
      permissionMode: "acceptEdits",
    });
    expect(results(run)[0].session_id).toBe(sessionId);
    expect(inits(run)[0].permissionMode).toBe("acceptEdits");
    expect(run.messages.some((m) => m.type === "stream_event")).toBe(true);
    expect(files(fx.home.path).filter((f) => f.endsWith(".jsonl"))).toEqual([]);
  });

  it("bypassPermissions runs a tool without asking; settings deny rules still hold", async () => {
    fx.mock.enqueue(
      reply.toolCalls([{ name: "Bash", id: "toolu_ok", input: { command: "touch ran.txt" } }]),
      reply.toolCalls([{ name: "Bash", id: "toolu_no", input: { command: "touch never.txt" } }]),
      reply.text("done"),
    );
    // Without canUseTool a call that would ask is denied, so ran.txt proves nothing asked.
    await once({
      permissionMode: "bypassPermissions",
      allowDangerouslySkipPermissions: true,
      settings: { permissions: { deny: ["Bash(touch never.txt)"] } },
    });
    expect(existsSync(join(fx.work.path, "ran.txt"))).toBe(true);
    expect(existsSync(join(fx.work.path, "never.txt"))).toBe(false);
  });

  it("agents define subagents; agent runs the main thread as one", async () => {
    fx.mock.enqueue(reply.text("reviewed"));
    const run = await once({
      agents: { reviewer: { description: "Reviews code", prompt: "You review diffs, nothing else." } },
      agent: "reviewer",
    });
    expect(run.error).toBeUndefined();
    expect(JSON.stringify(fx.mock.requests[0].body.system)).toContain("You review diffs, nothing else.");
  });

  it("a flag Goat does not know (extraArgs) is one warning on stderr, not a failure", async () => {
    fx.mock.enqueue(reply.text("fine"));
    let stderr = "";
    const run = await once({
      extraArgs: { "some-future-flag": null, "another-future-flag": "value" },
      stderr: (text: string) => {
        stderr += text;
      },
    });
    expect(run.error).toBeUndefined();
    expect(results(run)[0].result).toBe("fine");
    expect(stderr).toContain("--some-future-flag");
    expect(stderr).toContain("--another-future-flag");
    expect(
      stderr
        .trim()
        .split("\n")
        .filter((l) => l.includes("ignored")),
    ).toHaveLength(1);
  });
});

describe("control methods", () => {
  it("enableFileCheckpointing: rewindFiles to a user message's uuid undoes that turn's writes", async () => {
    fx.mock.enqueue(
      reply.toolCalls([
        {
          name: "Write",
          id: "toolu_w",
          input: { file_path: join(fx.work.path, "made.txt"), content: "new\n" },
        },
      ]),
      reply.text("written"),
    );
    const input = userStream();
    const q = sdk.query({
      prompt: input.stream,
      options: sdkOptions(fx, { enableFileCheckpointing: true, permissionMode: "acceptEdits" }),
    });
    const seen: any[] = [];
    const collected = collect(q, (m) => seen.push(m));
    const uuid = "7b0c3a52-1111-4222-8333-444455556666";
    input.push("write a file", uuid);
    await waitUntil(() => seen.some((m) => m.type === "result"));
    expect(existsSync(join(fx.work.path, "made.txt"))).toBe(true);
    const dry = await q.rewindFiles(uuid, { dryRun: true });
    expect(dry).toMatchObject({ canRewind: true });
    expect(existsSync(join(fx.work.path, "made.txt"))).toBe(true);
    const done = await q.rewindFiles(uuid);
    expect(done.canRewind).toBe(true);
    expect(done.filesChanged).toEqual([join(fx.work.path, "made.txt")]);
    expect(existsSync(join(fx.work.path, "made.txt"))).toBe(false);
    input.end();
    expect((await collected).error).toBeUndefined();
  });

  it("supported*, accountInfo, MCP status, setMcpServers, context usage, flag settings, rewind and stopTask", async () => {
    fx.mock.enqueue(reply.text("first"), reply.text("second"));
    const calc = sdk.createSdkMcpServer({
      name: "calc",
      tools: [
        sdk.tool("add", "Adds", { a: z.number(), b: z.number() }, async (args) => ({
          content: [{ type: "text", text: String(args.a + args.b) }],
        })),
      ],
    });
    const input = userStream();
    const q = sdk.query({
      prompt: input.stream,
      options: sdkOptions(fx, { model: "anthropic/claude-sonnet-4-5", mcpServers: { calc } }),
    });
    const seen: any[] = [];
    const collected = collect(q, (m) => seen.push(m));
    input.push("hello");
    await waitUntil(() => fx.mock.requests.length === 1);

    const agents = await q.supportedAgents();
    expect(agents.map((a: any) => a.name)).toEqual(["general-purpose"]);
    expect((await q.supportedModels()).map((m: any) => m.value)).toContain("anthropic/claude-sonnet-4-5");
    expect((await q.supportedCommands()).map((c: any) => c.name)).toEqual(["compact"]);
    const account = await q.accountInfo();
    expect(account).toEqual({
      apiKeySource: "ANTHROPIC_API_KEY",
      apiProvider: "gateway", // the mock's ANTHROPIC_BASE_URL
      provider: "anthropic",
      model: "anthropic/claude-sonnet-4-5",
    });
    const status = await q.mcpServerStatus();
    expect(status).toEqual([expect.objectContaining({ name: "calc", status: "connected" })]);
    expect(status[0].tools.map((t: any) => t.name)).toEqual(["add"]);

    const more = sdk.createSdkMcpServer({
      name: "more",
      tools: [
        sdk.tool("echo", "Echoes", { s: z.string() }, async (args) => ({
          content: [{ type: "text", text: args.s }],
        })),
      ],
    });
    const set = await q.setMcpServers({ calc, more });
    expect(set.added).toEqual(["more"]);
    await q.toggleMcpServer("more", false);
    await q.toggleMcpServer("more", true);
    await q.reconnectMcpServer("calc");

    await waitUntil(() => seen.some((m) => m.type === "result"));
    const usage = await q.getContextUsage();
    expect(usage.totalTokens).toBeGreaterThan(0);
    expect(usage.model).toBe("anthropic/claude-sonnet-4-5");
    await q.applyFlagSettings({ model: "anthropic/claude-haiku-4-5" });
    expect((await q.rewindFiles("some-message-uuid", { dryRun: true })).canRewind).toBe(false);
    await expect(q.stopTask("no-such-task")).resolves.toBeUndefined(); // a no-op, as in Claude Code

    input.push("again");
    await waitUntil(() => fx.mock.requests.length === 2);
    input.end();
    const done = await collected;
    expect(done.error).toBeUndefined();
    expect(fx.mock.requests[1].body.model).toBe("claude-haiku-4-5");
    const init = inits(done)[1];
    expect(init.agents).toEqual(agents.map((a: any) => a.name));
    expect(init.apiKeySource).toBe(account.apiKeySource);
    expect(init.mcp_servers).toEqual(
      expect.arrayContaining([
        { name: "calc", status: "connected" },
        { name: "more", status: "connected" },
      ]),
    );
    expect(init.tools).toEqual(expect.arrayContaining(["mcp__calc__add", "mcp__more__echo"]));
  });
});
