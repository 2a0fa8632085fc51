/**
 * The flags the Claude Agent SDKs pass (TypeScript `sdk.mjs` 0.3.330 writes `--flag=value`, the Python
 * SDK two words), parsed and mapped onto `query()` options; flags Goat cannot honour are set aside and
 * reported, while a person's typo is still an error with a suggestion.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { parseCliArgs, UsageError } from "../../src/cli/args.js";
import { buildConfig, withMainAgent } from "../../src/cli/config.js";

const SDK = ["--output-format", "stream-json", "--verbose", "--input-format", "stream-json"];
let dir: string;
let env: Record<string, string | undefined>;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "goat-args-"));
  env = { GOAT_HOME: dir, ANTHROPIC_API_KEY: "k" };
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const config = (argv: string[]) => buildConfig(parseCliArgs(argv), env);

describe("the TypeScript SDK's argv", () => {
  it("maps every flag with a meaning in Goat onto its option", () => {
    const schema = { type: "object", properties: { n: { type: "number" } } };
    const c = config([
      ...SDK,
      "--max-thinking-tokens=2048",
      "--effort=high",
      "--max-turns=7",
      "--max-budget-usd=0.5",
      "--model=openai/gpt-4.1",
      `--json-schema=${JSON.stringify(schema)}`,
      `--debug-file=${join(dir, "debug.log")}`,
      "--permission-prompt-tool=stdio",
      "--allowedTools=Read,Bash(git *)",
      "--disallowedTools=Write",
      "--tools=Read,Bash,Task",
      "--setting-sources=",
      "--permission-mode=acceptEdits",
      "--allow-dangerously-skip-permissions",
      "--fallback-model=anthropic/claude-haiku-4-5",
      "--include-hook-events",
      "--include-partial-messages",
      `--add-dir=${dir}`,
      "--await-initialize",
      "--resume=0b5f6c3e-1111-4222-8333-444455556666",
      "--fork-session",
      "--resume-session-at=7d1c9b7e-1111-4222-8333-444455556666",
      "--session-id=2a2a2a2a-1111-4222-8333-444455556666",
      "--no-session-persistence",
      "--settings",
      JSON.stringify({
        model: "ignored/by-flag",
        permissions: { deny: ["Bash(rm *)"] },
        sandbox: { enabled: true },
      }),
    ]);
    const o = c.options;
    expect(o).toMatchObject({
      maxThinkingTokens: 2048,
      thinking: { type: "enabled", budgetTokens: 2048 },
      effort: "high",
      maxTurns: 7,
      maxBudgetUsd: 0.5,
      model: "openai/gpt-4.1",
      outputFormat: { type: "json_schema", schema },
      debug: true,
      debugFile: join(dir, "debug.log"),
      allowedTools: ["Read", "Bash(git *)"],
      disallowedTools: ["Write"],
      tools: ["Read", "Bash", "Task"],
      permissionMode: "acceptEdits",
      allowDangerouslySkipPermissions: true,
      fallbackModel: "anthropic/claude-haiku-4-5",
      includeHookEvents: true,
      includePartialMessages: true,
      additionalDirectories: [dir],
      resume: "0b5f6c3e-1111-4222-8333-444455556666",
      forkSession: true,
      resumeSessionAt: "7d1c9b7e-1111-4222-8333-444455556666",
      sessionId: "2a2a2a2a-1111-4222-8333-444455556666",
      persistSession: false,
      sandbox: { enabled: true },
    });
    expect(o.permissionRules?.deny).toEqual(["Bash(rm *)"]);
    expect(parseCliArgs([...SDK, "--permission-prompt-tool=stdio"]).permissionPromptTool).toBe("stdio");
  });

  it("--thinking, --tools presets and --dangerously-skip-permissions", () => {
    expect(config([...SDK, "--thinking=adaptive"]).options.thinking).toEqual({ type: "adaptive" });
    expect(config([...SDK, "--thinking=disabled"]).options.thinking).toEqual({ type: "disabled" });
    expect(config([...SDK, "--max-thinking-tokens=0"]).options.thinking).toEqual({ type: "disabled" });
    expect(config([...SDK, "--tools="]).options.tools).toEqual([]);
    expect(config([...SDK, "--tools=default"]).options.tools).toBeUndefined();
    expect(config(["--dangerously-skip-permissions", "-p", "x"]).options.permissionMode).toBe(
      "bypassPermissions",
    );
  });

  it("--thinking-display sets the display of the thinking the other flags ask for", () => {
    const display = (...flags: string[]) => config([...SDK, ...flags]).options.thinking;
    expect(display("--max-thinking-tokens=2048", "--thinking-display=omitted")).toEqual({
      type: "enabled",
      budgetTokens: 2048,
      display: "omitted",
    });
    expect(display("--thinking=adaptive", "--thinking-display=summarized")).toEqual({
      type: "adaptive",
      display: "summarized",
    });
    expect(display("--thinking=disabled", "--thinking-display=summarized")).toEqual({ type: "disabled" });
    expect(() => parseCliArgs([...SDK, "--thinking-display=loud"])).toThrow(
      /--thinking-display must be one of summarized, omitted/,
    );
  });

  it("--plugin-dir and --plugin-dir-no-mcp name local plugins, the second without their MCP servers", () => {
    const args = parseCliArgs([...SDK, "--plugin-dir", "/a", "--plugin-dir-no-mcp=/b", "--plugin-dir=/c"]);
    expect(args.plugins).toEqual([
      { type: "local", path: "/a" },
      { type: "local", path: "/c" },
      { type: "local", path: "/b", skipMcpDiscovery: true },
    ]);
    expect(args.ignoredFlags).toEqual([]);
    expect(() => parseCliArgs(["-p", "x", "--plugin-dir="])).toThrow(/--plugin-dir needs a non-empty value/);
  });

  it("flags with no counterpart, and flags Goat does not know, are set aside for one warning; --betas is taken", () => {
    const args = parseCliArgs([
      ...SDK,
      "--betas=context-1m-2025-08-07",
      "--thinking-display=highlights",
      "--channels=x",
      "--session-mirror",
      "--some-future-flag",
      "value-of-it",
      "--another-one=x",
      "--model=anthropic/claude-sonnet-4-5",
    ]);
    expect(args.model).toBe("anthropic/claude-sonnet-4-5");
    expect(args.prompt).toBeUndefined();
    expect(args.betas).toEqual(["context-1m-2025-08-07"]);
    expect(args.sessionMirror).toBe(true);
    expect(args.ignoredFlags).toEqual([
      "--channels",
      "--some-future-flag",
      "--another-one",
      "--thinking-display highlights",
    ]);
    // A Claude tool name Goat lacks is left out under an SDK, an error for a person; so is WebSearch
    // under an SDK when no search backend is configured.
    const sdk = parseCliArgs([...SDK, "--tools=Read,WebFetch,Skill,WebSearch"]);
    expect(buildConfig(sdk, env).options.tools).toEqual(["Read", "WebFetch"]);
    expect(sdk.ignoredFlags).toEqual([
      "--tools Skill (no such Goat tool)",
      "--tools WebSearch (no search backend: see --web-search)",
    ]);
    const withBackend = parseCliArgs([
      ...SDK,
      "--tools=WebSearch",
      "--web-search",
      "searxng:http://127.0.0.1:1",
    ]);
    expect(buildConfig(withBackend, env).options).toMatchObject({
      tools: ["WebSearch"],
      webSearch: "searxng:http://127.0.0.1:1",
    });
    expect(() => config(["-p", "x", "--tools", "Read,Skill"])).toThrow(/Goat has no tool Skill/);
  });

  it("a person's unknown flag is an error naming the closest one", () => {
    expect(() => parseCliArgs(["-p", "x", "--max-turn", "3"])).toThrow(
      new UsageError("unknown option --max-turn; did you mean --max-turns? (see goat --help for the flags)"),
    );
    expect(() => parseCliArgs(["-p", "x", "--modle", "m"])).toThrow(/did you mean --model\?/);
    expect(() => parseCliArgs(["--zzzzzzzz"])).toThrow(/unknown option --zzzzzzzz \(see goat --help/);
  });

  it('--replay-user-messages as Zed\'s Claude adapter writes it (extraArgs {"replay-user-messages": ""})', () => {
    // The SDK writes an empty extraArgs value as its own word: it is the switch, not an empty prompt.
    const adapter = parseCliArgs([...SDK, "--replay-user-messages", "", "--permission-mode=default"]);
    expect(adapter).toMatchObject({ replayUserMessages: true, prompt: undefined, permissionMode: "default" });
    expect(adapter.ignoredFlags).toEqual([]);
    expect(parseCliArgs([...SDK, "--replay-user-messages"]).replayUserMessages).toBe(true);
    expect(parseCliArgs(SDK).replayUserMessages).toBe(false);
    expect(() => parseCliArgs(["-p", "x", "--replay-user-messages"])).toThrow(
      /--replay-user-messages needs --input-format stream-json/,
    );
  });
});

describe("the Python SDK's argv", () => {
  it("two-word values, an empty --system-prompt and an empty --tools", () => {
    const c = config([
      "--output-format",
      "stream-json",
      "--verbose",
      "--system-prompt",
      "",
      "--tools",
      "",
      "--max-turns",
      "3",
      "--permission-prompt-tool",
      "stdio",
      "--setting-sources=user,project",
      "--thinking",
      "adaptive",
      "--effort",
      "low",
      "--input-format",
      "stream-json",
    ]);
    // "" is the Python SDK's "no prompt chosen": Goat's prompt stays.
    expect(c.options.systemPrompt).toEqual({ type: "preset", preset: "goat", append: undefined });
    expect(c.options.tools).toEqual([]);
    expect(c.options).toMatchObject({ maxTurns: 3, thinking: { type: "adaptive" }, effort: "low" });
  });

  it("--system-prompt-file reads the prompt; --permission-prompt-tool NAME names the tool that answers", () => {
    writeFileSync(join(dir, "prompt.txt"), "You answer in haiku.");
    const args = parseCliArgs([
      ...SDK,
      "--system-prompt-file",
      join(dir, "prompt.txt"),
      "--permission-prompt-tool",
      "mcp__perm__ask",
    ]);
    const options = buildConfig(args, env).options;
    expect(options.systemPrompt).toBe("You answer in haiku.");
    expect(options.permissionPromptToolName).toBe("mcp__perm__ask");
    expect(options.canUseTool).toBeUndefined();
    expect(args.permissionPromptTool).toBeUndefined();
    expect(args.ignoredFlags).toEqual([]);
  });
});

describe("--agent", () => {
  it("runs the main thread with the agent's prompt, tools and model", () => {
    const c = config([
      ...SDK,
      "--agents",
      JSON.stringify({
        critic: { description: "d", prompt: "Criticise.", tools: ["Read"], model: "openai/gpt-4.1" },
      }),
      "--agent=critic",
    ]);
    const o = withMainAgent(c.options, "critic");
    expect(o).toMatchObject({ systemPrompt: "Criticise.", tools: ["Read"], model: "openai/gpt-4.1" });
    expect(() => withMainAgent(c.options, "nobody")).toThrow(
      /--agent nobody: no such agent \(defined: critic\)/,
    );
  });
});
