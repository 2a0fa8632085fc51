import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { GoatError } from "../../src/errors.js";
import {
  IGNORED_OPTIONS,
  InvalidOptionError,
  KNOWN_OPTIONS,
  REFUSED_OPTIONS,
} from "../../src/sdk/options-check.js";
import { query } from "../../src/sdk/query.js";
import { type MockProvider, reply, startMockProvider } from "../support/mock-provider.js";
import { collect, mockOptions, resultOf, tempDir } from "./helpers.js";

/** Every field of the Claude Agent SDK 0.3.330 `Options` type (sdk.d.ts). */
const SDK_OPTIONS =
  `abortController additionalDirectories projectConfigRoot agent agents allowedTools canUseTool
continue cwd disallowedTools toolAliases tools env executable executableArgs extraArgs fallbackModel
enableFileCheckpointing toolConfig forkSession betas hooks onElicitation onUserDialog supportedDialogKinds
perTaskStopAffordance persistSession sessionStore sessionStoreFlush loadTimeoutMs includeHookEvents
includePartialMessages forwardSubagentText verbatimPrompts thinking effort maxThinkingTokens maxTurns
maxBudgetUsd taskBudget mcpServers mcpServersDelivery model outputFormat pathToClaudeCodeExecutable
permissionMode planModeInstructions allowDangerouslySkipPermissions permissionPromptToolName
permissionPrompts plugins pluginDelivery promptSuggestions agentProgressSummaries resume sessionId
resumeSessionAt resumeDropsTurn sandbox settings managedSettings settingSources skills debug debugFile
stderr strictMcpConfig systemPrompt title spawnClaudeCodeProcess`.split(/\s+/);

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

/** The error `query()` throws for these options (failing the test when it throws none). */
function refusal(options: Record<string, unknown>): InvalidOptionError {
  try {
    query({ prompt: "x", options: mockOptions(mock, "anthropic", options as any) });
  } catch (error) {
    expect(error).toBeInstanceOf(InvalidOptionError);
    expect(error).toBeInstanceOf(GoatError);
    expect((error as GoatError).code).toBe("invalid_option");
    return error as InvalidOptionError;
  }
  throw new Error(`query() accepted ${JSON.stringify(Object.keys(options))}`);
}

describe("options Goat does not implement fail loudly", () => {
  it("every option of the Claude Agent SDK is implemented, refused or ignored with a warning", () => {
    const unaccounted = SDK_OPTIONS.filter(
      (name) =>
        !KNOWN_OPTIONS.includes(name) &&
        !Object.hasOwn(REFUSED_OPTIONS, name) &&
        !Object.hasOwn(IGNORED_OPTIONS, name),
    );
    expect(unaccounted).toEqual([]);
    // Goat's own options are all known, the observability ones included.
    expect(KNOWN_OPTIONS).toEqual(
      expect.arrayContaining(["telemetry", "debug", "debugFile", "onEvent", "provider", "stopWhen", "retry"]),
    );
  });

  it("a refused Claude Agent SDK option throws naming it, before any model call", () => {
    const error = refusal({ taskBudget: { total: 1000 } });
    expect(error.option).toBe("taskBudget");
    expect(error.message).toMatch(/^Option "taskBudget" of the Claude Agent SDK is not supported by Goat: /);
    expect(mock.requests).toHaveLength(0);
  });

  it("a misspelt option throws with the nearest name", () => {
    expect(refusal({ maxTurn: 3 }).message).toBe(
      'Unknown option "maxTurn". Did you mean "maxTurns"? See the README for the options query() takes.',
    );
    expect(refusal({ completelyUnheardOf: 1 }).message).toBe(
      'Unknown option "completelyUnheardOf". See the README for the options query() takes.',
    );
  });

  it("an ignored option runs the query with one warning naming it", async () => {
    mock.enqueue(reply.text("ok"));
    const messages = await collect(
      query({
        prompt: "x",
        options: mockOptions(mock, "anthropic", { title: "My session", verbatimPrompts: true } as any),
      }),
    );
    const warnings = messages.filter((m) => m.type === "system" && (m as any).subtype === "informational");
    expect(warnings.map((m: any) => m.content)).toEqual([
      'Option "title" is ignored: session titles are not stored.',
    ]);
    expect(resultOf(messages).subtype).toBe("success");
  });
});

describe("options of the wrong type or range get one line naming them", () => {
  it.each([
    [{ maxTurns: 0 }, 'Option "maxTurns" expects a whole number ≥ 1 (got 0).'],
    [{ maxTurns: -2 }, 'Option "maxTurns" expects a whole number ≥ 1 (got -2).'],
    [{ maxTurns: 1.5 }, 'Option "maxTurns" expects a whole number ≥ 1 (got 1.5).'],
    [{ maxTurns: "3" }, 'Option "maxTurns" expects a whole number ≥ 1 (got "3").'],
    [{ maxBudgetUsd: 0 }, 'Option "maxBudgetUsd" expects a number greater than 0 (got 0).'],
    [
      { permissionMode: "yolo" },
      'Option "permissionMode" expects one of "default", "acceptEdits", "plan", "bypassPermissions", "dontAsk" (got "yolo").',
    ],
    [{ allowedTools: "Bash" }, 'Option "allowedTools" expects an array of strings (got "Bash").'],
    [{ canUseTool: true }, 'Option "canUseTool" expects a function (got true).'],
    [
      { agents: { r: { prompt: "p" } } },
      'Option "agents" expects agent "r" to have a "description" string (when the model should use it) (got an object).',
    ],
  ])("%j", (options, message) => {
    expect(refusal(options).message).toBe(message);
  });

  it("a cwd that does not exist, or is a file", () => {
    expect(refusal({ cwd: "/no/such/goat/dir" }).message).toBe(
      'Option "cwd" expects the path of an existing directory (nothing exists at this path) (got "/no/such/goat/dir").',
    );
    expect(refusal({ cwd: "/etc/hostname" }).message).toMatch(/this path is a file/);
  });
});

describe("a prompt query() cannot use", () => {
  // A number or an object as the prompt used to start a session that ended with no result and no
  // model call; no argument at all threw a TypeError from inside query().
  it.each([
    ["a number", { prompt: 42 }],
    ["nothing", {}],
    ["an object that is not a stream", { prompt: { text: "hi" } }],
    ["an array", { prompt: ["hi"] }],
  ])("%s is refused naming the prompt, before any model call", (_name, params) => {
    expect(() =>
      query({ ...(params as { prompt: string }), options: mockOptions(mock, "anthropic", {}) }),
    ).toThrow(
      new InvalidOptionError(
        "prompt",
        "query() expects a prompt: a string, or an AsyncIterable of user messages for a multi-turn session.",
      ),
    );
    expect(mock.requests).toHaveLength(0);
  });

  it("no argument at all is refused the same way", () => {
    expect(() => (query as (...a: unknown[]) => unknown)()).toThrow(InvalidOptionError);
  });
});

describe("a streamed user message query() cannot use", () => {
  // One malformed message ended the whole input ("Cannot read properties of undefined"), and content
  // of the wrong type stopped Goat "on an unexpected error" (message.content.filter is not a function).
  it("is skipped with one warning naming what a user message needs; the next one runs", async () => {
    mock.enqueue(reply.text("answered the good one"));
    async function* input() {
      yield {} as any;
      yield { type: "user", message: { role: "user", content: 42 } } as any;
      yield { type: "user" as const, message: { role: "user" as const, content: "hello" } };
    }
    const messages = await collect(query({ prompt: input(), options: mockOptions(mock, "anthropic") }));
    const warnings = messages
      .filter((m) => m.type === "system" && m.subtype === "informational")
      .map((m) => (m as { content: string }).content);
    expect(warnings).toEqual([
      "Input message 1 skipped: a user message needs message.content, a string or an array of content blocks.",
      "Input message 2 skipped: a user message needs message.content, a string or an array of content blocks.",
    ]);
    const result = resultOf(messages);
    expect(result).toMatchObject({ subtype: "success", result: "answered the good one" });
    expect(mock.requests).toHaveLength(1);
  });
});

describe("start-up failures end with a result message", () => {
  it("an unknown resume id gives an error result, not a stream that ends without one", async () => {
    const home = tempDir("goat-opt-home-");
    const messages = await collect(
      query({
        prompt: "x",
        options: mockOptions(mock, "anthropic", {
          persistSession: true,
          resume: "8f0c1f9e-0000-4000-8000-000000000000",
          env: { GOAT_HOME: home },
        }),
      }),
    );
    const result = resultOf(messages);
    expect(result.subtype).toBe("error_during_execution");
    expect(result.is_error).toBe(true);
    expect((result as any).errors[0]).toMatch(
      /^The session could not start: .*8f0c1f9e-0000-4000-8000-000000000000/,
    );
    expect(mock.requests).toHaveLength(0);
  });
});

describe("permissionPrompts", () => {
  it('"none" denies what would prompt without calling canUseTool', async () => {
    let asked = 0;
    const cwd = tempDir("goat-opt-prompts-");
    mock.enqueue(
      reply.toolCalls([{ name: "Bash", input: { command: "touch made-by-test" }, id: "b1" }]),
      reply.text("ok"),
    );
    const messages = await collect(
      query({
        prompt: "x",
        options: mockOptions(mock, "anthropic", {
          tools: ["Bash"],
          cwd,
          permissionMode: "default",
          permissionPrompts: "none",
          canUseTool: async () => {
            asked++;
            return { behavior: "allow", updatedInput: {} };
          },
        }),
      }),
    );
    expect(asked).toBe(0);
    expect(fs.existsSync(path.join(cwd, "made-by-test"))).toBe(false);
    expect(resultOf(messages).permission_denials.map((d) => d.tool_name)).toEqual(["Bash"]);
  });
});

describe("the README", () => {
  it("lists every refused and ignored option", () => {
    const readme = fs.readFileSync(path.join(import.meta.dirname, "../../README.md"), "utf8");
    const section = readme.slice(readme.indexOf("Options of the Claude Agent SDK that Goat does not take"));
    const missing = [...Object.keys(REFUSED_OPTIONS), ...Object.keys(IGNORED_OPTIONS)].filter(
      (name) => !section.includes(`\`${name}\``),
    );
    expect(missing).toEqual([]);
  });
});
