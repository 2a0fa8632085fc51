/**
 * The rest of the Claude Agent SDK's `query()` options, each driven through the real SDK into `goat`
 * and asserted on what it changed: what the model was sent, which tools ran, which session was
 * continued, where the trace went, what the SDK put on goat's command line; and the Query methods
 * no other file drives. (The options and methods covered elsewhere in test/sdk are not repeated here.)
 */
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { beforeAll, describe, expect, it } from "vitest";
import { trustWorkFolder, useCliFixture } from "../cli/helpers.js";
import { writeStdioServer } from "../mcp/helpers.js";
import { reply } from "../support/mock-provider.js";
import { type ClaudeSdk, loadClaudeSdk, loadSdkZod } from "./claude-sdk.js";
import { collect, inits, results, sdkOptions, toolResults, userStream } from "./helpers.js";

const fx = useCliFixture("goat-sdk-f");
let sdk: ClaudeSdk;
beforeAll(async () => {
  sdk = await loadClaudeSdk();
}, 300_000);

/** Runs one prompt with `options` and returns the run. */
async function once(options: Record<string, unknown>, prompt = "go") {
  return collect(sdk.query({ prompt, options: sdkOptions(fx, options) }));
}

/** The user and assistant texts of request `i`, in order. */
function conversation(i: number): string[] {
  return fx.mock.requests[i].body.messages.map((m: any) =>
    typeof m.content === "string"
      ? m.content
      : m.content
          .filter((b: any) => b.type === "text")
          .map((b: any) => b.text)
          .join(""),
  );
}

/** What the SDK hands `spawnClaudeCodeProcess`. */
interface SpawnOptions {
  command: string;
  args: string[];
  cwd?: string;
  env: NodeJS.ProcessEnv;
  signal: AbortSignal;
}

const bash = (command: string, id: string) => reply.toolCalls([{ name: "Bash", id, input: { command } }]);

describe("thinking and effort options", () => {
  it("maxThinkingTokens, thinking (adaptive, disabled, a display) and effort reach the Anthropic request", async () => {
    // A model Goat does not know gets adaptive thinking and effort as given (a known one is fitted).
    const model = "anthropic/claude-opus-9";
    fx.mock.enqueue(reply.text("a"), reply.text("b"), reply.text("c"), reply.text("d"));
    await once({ model, maxThinkingTokens: 1536 });
    await once({ model, thinking: { type: "adaptive" }, effort: "max" });
    await once({ model, thinking: { type: "disabled" } });
    await once({ model, thinking: { type: "enabled", budgetTokens: 1024, display: "omitted" } });
    const [budget, adaptive, disabled, omitted] = fx.mock.requests.map((r) => r.body);
    expect(budget.thinking).toEqual({ type: "enabled", budget_tokens: 1536 });
    expect(budget.output_config).toBeUndefined();
    expect(adaptive.thinking).toEqual({ type: "adaptive" });
    expect(adaptive.output_config).toEqual({ effort: "max" });
    expect(disabled.thinking).toEqual({ type: "disabled" });
    // The display reaches goat as --thinking-display.
    expect(omitted.thinking).toEqual({ type: "enabled", budget_tokens: 1024, display: "omitted" });
  });
});

describe("Anthropic betas", () => {
  it("betas reach Anthropic as the anthropic-beta header", async () => {
    fx.mock.enqueue(reply.text("a"));
    const run = await once({ betas: ["context-1m-2025-08-07"] });
    expect(run.error).toBeUndefined();
    expect(fx.mock.requests[0].headers["anthropic-beta"]).toBe("context-1m-2025-08-07");
  });
});

describe("the tools preset", () => {
  it("tools: the claude_code preset (--tools=default) offers Goat's default set", async () => {
    fx.mock.enqueue(reply.text("a"), reply.text("b"));
    await once({ tools: { type: "preset", preset: "claude_code" } });
    await once({ tools: [] });
    const offered = (i: number) => (fx.mock.requests[i].body.tools ?? []).map((t: any) => t.name);
    expect(offered(0)).toEqual(
      expect.arrayContaining(["Bash", "Read", "Edit", "Write", "Glob", "Grep", "Task"]),
    );
    expect(offered(1)).toEqual([]);
  });
});

describe("model limits", () => {
  it("fallbackModel answers when the model is unavailable", async () => {
    fx.mock.enqueue(
      (req) =>
        req.body.model === "claude-sonnet-4-5"
          ? reply.error(404, { message: "model not found" })
          : reply.text("wrong model"),
      (req) => reply.text(`answered by ${req.body.model}`),
    );
    const run = await once({
      model: "anthropic/claude-sonnet-4-5",
      fallbackModel: "anthropic/claude-haiku-4-5",
    });
    expect(run.error).toBeUndefined();
    expect(fx.mock.requests.map((r) => r.body.model)).toEqual(["claude-sonnet-4-5", "claude-haiku-4-5"]);
    expect(results(run)[0]).toMatchObject({ subtype: "success", result: "answered by claude-haiku-4-5" });
  });

  it("maxBudgetUsd ends the run with error_max_budget_usd once the cost passes it", async () => {
    fx.mock.enqueue(
      reply.toolCalls([{ name: "Glob", id: "toolu_g", input: { pattern: "*" } }], {
        usage: { input: 200_000, output: 10_000 },
      }),
    );
    const run = await once({ model: "anthropic/claude-sonnet-4-5", maxBudgetUsd: 0.01 });
    expect(results(run)[0]).toMatchObject({ subtype: "error_max_budget_usd", is_error: true });
    expect(fx.mock.requests).toHaveLength(1);
  });
});

describe("sessions", () => {
  it("continue picks up the directory's last session; forkSession copies it under a new id", async () => {
    fx.mock.enqueue(reply.text("noted: green"), reply.text("you said green"), reply.text("forked"));
    const first = await once({}, "my colour is green");
    const id = results(first)[0].session_id;
    const continued = await once({ continue: true }, "what is my colour?");
    expect(results(continued)[0].session_id).toBe(id);
    expect(conversation(1)).toEqual(["my colour is green", "noted: green", "what is my colour?"]);
    const forked = await once({ resume: id, forkSession: true }, "branch");
    const forkId = results(forked)[0].session_id;
    expect(forkId).not.toBe(id);
    expect(conversation(2).slice(0, 2)).toEqual(["my colour is green", "noted: green"]);
    // The original session did not get the fork's turn: continuing it again shows no "branch".
    fx.mock.enqueue(reply.text("ok"));
    await once({ resume: id }, "again");
    expect(conversation(3)).not.toContain("branch");
  });

  it("resumeSessionAt resumes from an earlier assistant message", async () => {
    fx.mock.enqueue(reply.text("answer one"), reply.text("answer two"), reply.text("answer three"));
    const first = await once({}, "q1");
    const id = results(first)[0].session_id;
    const answerOne = first.messages.find((m) => m.type === "assistant");
    await once({ resume: id }, "q2");
    // The uuid of the assistant message the host saw is the one resumeSessionAt takes.
    const third = await once({ resume: id, resumeSessionAt: answerOne?.uuid }, "q3");
    expect(third.error).toBeUndefined();
    expect(conversation(2)).toEqual(["q1", "answer one", "q3"]);
  });
});

describe("where goat may work", () => {
  it("additionalDirectories lets Read open a file outside cwd without asking", async () => {
    const extra = mkdtempSync(join(fx.home.path, "extra-"));
    const file = join(extra, "shared.txt");
    writeFileSync(file, "shared notes\n");
    const read = reply.toolCalls([{ name: "Read", id: "toolu_r", input: { file_path: file } }]);
    // Without a canUseTool callback a call that would ask is denied: the first run proves it would.
    fx.mock.enqueue(read, reply.text("denied"));
    const without = await once({});
    expect(toolResults(without)[0].is_error).toBe(true);
    fx.mock.enqueue(read, reply.text("read it"));
    const withDir = await once({ additionalDirectories: [extra] });
    expect(toolResults(withDir)[0].is_error).toBeFalsy();
    expect(JSON.stringify(toolResults(withDir)[0].content)).toContain("shared notes");
  });

  it("settingSources chooses which settings files apply", async () => {
    mkdirSync(join(fx.work.path, ".goat"));
    writeFileSync(
      join(fx.work.path, ".goat/settings.json"),
      JSON.stringify({ model: "anthropic/claude-haiku-4-5" }),
    );
    fx.mock.enqueue(reply.text("a"), reply.text("b"));
    const none = await once({ settingSources: [] });
    const project = await once({ settingSources: ["project"] });
    expect(fx.mock.requests.map((r) => r.body.model)).toEqual(["claude-sonnet-4-5", "claude-haiku-4-5"]);
    expect(inits(none)[0].model).toBe("anthropic/claude-sonnet-4-5");
    expect(inits(project)[0].model).toBe("anthropic/claude-haiku-4-5");
  });

  it("strictMcpConfig leaves out the MCP servers of settings files", async () => {
    mkdirSync(join(fx.work.path, ".goat"));
    writeFileSync(
      join(fx.work.path, ".goat/settings.json"),
      JSON.stringify({ mcpServers: { fromfile: { command: join(fx.work.path, "no-such-server") } } }),
    );
    trustWorkFolder(fx); // an untrusted folder's servers are left out whatever the flag says
    const calc = sdk.createSdkMcpServer({ name: "calc", tools: [] });
    fx.mock.enqueue(reply.text("a"), reply.text("b"));
    const loose = await once({ mcpServers: { calc } });
    const strict = await once({ mcpServers: { calc }, strictMcpConfig: true });
    const names = (run: typeof loose) =>
      inits(run)[0]
        .mcp_servers.map((s: any) => s.name)
        .sort();
    expect(names(loose)).toEqual(["calc", "fromfile"]);
    expect(names(strict)).toEqual(["calc"]);
  });

  it("sandbox (merged into --settings by the SDK) confines Bash to the working directory", async () => {
    const outside = join(fx.home.path, "escaped.txt");
    const options = { permissionMode: "bypassPermissions", allowDangerouslySkipPermissions: true };
    fx.mock.enqueue(bash(`touch ${outside}`, "toolu_s"), reply.text("done"));
    const boxed = await once({ ...options, sandbox: { enabled: true } });
    expect(JSON.stringify(toolResults(boxed)[0].content)).toContain("The command ran in the sandbox");
    expect(existsSync(outside)).toBe(false);
    fx.mock.enqueue(bash(`touch ${outside}`, "toolu_n"), reply.text("done"));
    await once(options);
    expect(existsSync(outside)).toBe(true);
  });
});

describe("prompts and subagents", () => {
  it("permissionPrompts none: what would ask is denied and canUseTool is never called", async () => {
    fx.mock.enqueue(bash("touch asked.txt", "toolu_p"), reply.text("done"));
    const asked: string[] = [];
    const run = await once({
      permissionPrompts: "none",
      canUseTool: async (tool: string, input: unknown) => {
        asked.push(tool);
        return { behavior: "allow", updatedInput: input };
      },
    });
    expect(run.error).toBeUndefined();
    expect(asked).toEqual([]);
    expect(toolResults(run)[0].is_error).toBe(true);
    expect(existsSync(join(fx.work.path, "asked.txt"))).toBe(false);
  });

  it("permissionPromptToolName: the host's in-process MCP tool answers the permission questions", async () => {
    const z = await loadSdkZod();
    const asked: any[] = [];
    const approver = sdk.createSdkMcpServer({
      name: "approver",
      tools: [
        sdk.tool(
          "ask",
          "Answers permission questions",
          { tool_name: z.string(), input: z.record(z.string(), z.unknown()), tool_use_id: z.string() },
          async (request) => {
            asked.push(request);
            const decision =
              request.input.command === "touch yes.txt"
                ? { behavior: "allow", updatedInput: request.input }
                : { behavior: "deny", message: "the approver says no" };
            return { content: [{ type: "text", text: JSON.stringify(decision) }] };
          },
        ),
      ],
    });
    fx.mock.enqueue(bash("touch yes.txt", "toolu_y"), bash("touch no.txt", "toolu_n"), reply.text("done"));
    const run = await once({ mcpServers: { approver }, permissionPromptToolName: "mcp__approver__ask" });
    expect(run.error).toBeUndefined();
    expect(asked.map((r) => [r.tool_name, r.input.command, r.tool_use_id])).toEqual([
      ["Bash", "touch yes.txt", "toolu_y"],
      ["Bash", "touch no.txt", "toolu_n"],
    ]);
    expect(existsSync(join(fx.work.path, "yes.txt"))).toBe(true);
    expect(existsSync(join(fx.work.path, "no.txt"))).toBe(false);
    expect(JSON.stringify(toolResults(run)[1].content)).toContain("the approver says no");
  });

  it("forwardSubagentText: the subagent's answer reaches the host under its Task call", async () => {
    fx.mock.enqueue(
      reply.toolCalls([
        {
          name: "Task",
          id: "toolu_task",
          input: { description: "look", prompt: "say hi", subagent_type: "general-purpose" },
        },
      ]),
      reply.text("hi from the subagent"),
      reply.text("the subagent said hi"),
    );
    const run = await once({ forwardSubagentText: true });
    expect(run.error).toBeUndefined();
    const sub = run.messages.find((m) => m.type === "assistant" && m.parent_tool_use_id === "toolu_task");
    expect(sub?.message.content).toEqual([{ type: "text", text: "hi from the subagent" }]);
    expect(results(run)[0].result).toBe("the subagent said hi");
  });

  it("includeHookEvents: each hook the host registered is shown starting and answering", async () => {
    fx.mock.enqueue(
      reply.toolCalls([{ name: "Glob", id: "toolu_g", input: { pattern: "*" } }]),
      reply.text("ok"),
    );
    const hook = async () => ({ systemMessage: "seen" });
    const hooks = { PreToolUse: [{ matcher: "Glob", hooks: [hook] }] };
    const run = await once({ includeHookEvents: true, hooks });
    expect(run.error).toBeUndefined();
    const shown = run.messages.filter((m) => m.subtype === "hook_started" || m.subtype === "hook_response");
    expect(shown.map((m) => [m.subtype, m.hook_name, m.hook_event])).toEqual([
      ["hook_started", "PreToolUse:Glob", "PreToolUse"],
      ["hook_response", "PreToolUse:Glob", "PreToolUse"],
    ]);
    expect(shown[1]).toMatchObject({ hook_id: shown[0].hook_id, outcome: "success" });
    expect(JSON.parse(shown[1].output)).toMatchObject({ systemMessage: "seen" });
    // Without the option, none.
    fx.mock.enqueue(
      reply.toolCalls([{ name: "Glob", id: "toolu_h", input: { pattern: "*" } }]),
      reply.text("ok"),
    );
    const quiet = await once({ hooks });
    expect(quiet.messages.filter((m) => String(m.subtype).startsWith("hook_"))).toEqual([]);
  });

  it("verbatimPrompts: a prompt that looks like a command reaches the model as written", async () => {
    fx.mock.enqueue(reply.text("ok"));
    const run = await once({ verbatimPrompts: true }, "/compact keep the API notes");
    expect(run.error).toBeUndefined();
    expect(conversation(0)).toEqual(["/compact keep the API notes"]);
  });
});

describe("how the SDK starts goat", () => {
  it("mcpServersDelivery initialize: a stdio server reaches goat over stdin, not argv, and is confirmed", async () => {
    const server = writeStdioServer(mkdtempSync(join(fx.home.path, "srv-")));
    const marker = join(fx.work.path, "preloaded.txt");
    const preload = join(fx.home.path, "preload.mjs");
    writeFileSync(
      preload,
      `import { writeFileSync } from "node:fs"; writeFileSync(${JSON.stringify(marker)}, "yes");\n`,
    );
    const spawned: string[][] = [];
    fx.mock.enqueue(
      reply.toolCalls([{ name: "mcp__docs__echo", id: "toolu_e", input: { msg: "hello" } }]),
      reply.text("echoed"),
    );
    const q = sdk.query({
      prompt: "echo hello",
      options: sdkOptions(fx, {
        mcpServers: { docs: { command: process.execPath, args: [server], env: { DOCS_TOKEN: "s3cret" } } },
        mcpServersDelivery: "initialize",
        allowedTools: ["mcp__docs"],
        executableArgs: ["--import", pathToFileURL(preload).href],
        spawnClaudeCodeProcess: (o: SpawnOptions) => {
          spawned.push([o.command, ...o.args]);
          return spawn(o.command, o.args, { cwd: o.cwd, env: o.env, signal: o.signal, stdio: "pipe" });
        },
      }),
    });
    const run = await collect(q);
    expect(run.error).toBeUndefined();
    expect(spawned).toHaveLength(1);
    expect(spawned[0].join(" ")).not.toContain("--mcp-config");
    expect(spawned[0].join(" ")).not.toContain("s3cret");
    expect(spawned[0]).toContain("--await-initialize");
    expect((await q.initializationResult()).mcp_servers_applied).toBe(true);
    expect(JSON.stringify(toolResults(run)[0].content)).toContain("echo: hello");
    expect(inits(run)[0].mcp_servers).toEqual([{ name: "docs", status: "connected" }]);
    // executableArgs went to node ahead of goat's script.
    expect(readFileSync(marker, "utf8")).toBe("yes");
  });

  it("debug traces to stderr, debugFile to the file", async () => {
    fx.mock.enqueue(reply.text("a"), reply.text("b"));
    let stderr = "";
    await once({ debug: true, stderr: (t: string) => (stderr += t) });
    expect(stderr).toMatch(/\[goat\] [\d:.]+ turn 1 · model call/);
    const file = join(fx.home.path, "trace.log");
    let quiet = "";
    await once({ debugFile: file, stderr: (t: string) => (quiet += t) });
    expect(readFileSync(file, "utf8")).toMatch(/turn 1 · model call/);
    expect(quiet).not.toContain("model call");
  });
});

describe("the Query methods not driven elsewhere in test/sdk", () => {
  it("setMaxThinkingTokens (with its display), reinitialize, readFile, the reloads, streamInput and close", async () => {
    writeFileSync(join(fx.work.path, "notes.txt"), "goat notes\n");
    fx.mock.enqueue(reply.text("first"), reply.text("second"));
    const input = userStream();
    const q = sdk.query({
      prompt: input.stream,
      options: sdkOptions(fx, { model: "anthropic/claude-opus-9" }),
    });
    const seen: any[] = [];
    const collected = collect(q, (m) => seen.push(m));
    const resultCount = () => seen.filter((m) => m.type === "result").length;

    await q.setMaxThinkingTokens(1024);
    input.push("one");
    await waitUntil(() => resultCount() === 1);
    expect(fx.mock.requests[0].body.thinking).toEqual({ type: "enabled", budget_tokens: 1024 });

    const first = await q.initializationResult();
    const again = await q.reinitialize();
    expect(again.agents).toEqual(first.agents);
    expect(again.agents.map((a: any) => a.name)).toEqual(inits({ messages: seen })[0].agents);

    expect(await q.readFile("notes.txt")).toMatchObject({ contents: "goat notes\n", truncated: false });
    // Outside the session's directories: the SDK answers null, as for Claude Code's refusal.
    expect(await q.readFile("/etc/hostname")).toBeNull();
    expect(await q.reloadPlugins()).toMatchObject({ plugins: [], error_count: 0 });
    expect(await q.reloadSkills()).toEqual({ skills: [] });
    expect(await q.reloadOutputStyles()).toMatchObject({ available_output_styles: ["default"] });

    // The display mode travels with setMaxThinkingTokens; "highlights" (Anthropic-hosted sessions only)
    // is refused, and the budget sent with it still applies.
    await q.setMaxThinkingTokens(2048, "omitted");
    await expect(q.setMaxThinkingTokens(4096, "highlights")).rejects.toThrow(/highlights/);

    // A second input stream joins the first: its prompt is the next turn.
    const more = userStream();
    void q.streamInput(more.stream);
    more.push("two");
    await waitUntil(() => resultCount() === 2);
    expect(fx.mock.requests[1].body.thinking).toEqual({
      type: "enabled",
      budget_tokens: 4096,
      display: "omitted",
    });
    expect(results({ messages: seen })[1].result).toBe("second");
    expect(conversation(1)).toEqual(["one", "first", "two"]);

    // close() ends goat and the iteration, with no more input ended by the host.
    q.close();
    await collected;
    expect(resultCount()).toBe(2);
  });
});

async function waitUntil(done: () => boolean, timeoutMs = 15_000): Promise<void> {
  const start = Date.now();
  while (!done()) {
    if (Date.now() - start > timeoutMs) throw new Error("condition not met in time");
    await new Promise((r) => setTimeout(r, 20));
  }
}
