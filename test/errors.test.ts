/**
 * One base class for the errors a caller catches: `instanceof GoatError` and a stable `code` on every
 * error class Goat has (the library's and the CLI's), also for errors made by another copy of the
 * package (simulated by an object carrying the shared marker, as a second copy's class would). The
 * errors reach a caller through `query()` and `Query.compact()` as these classes.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { UsageError } from "../src/cli/args.js";
import { ControlError } from "../src/cli/control/control-protocol.js";
import { McpConfigError } from "../src/cli/mcp-servers.js";
import {
  CompactionError,
  FlagSettingsError,
  GoatError,
  InvalidOptionError,
  InvalidToolError,
  isGoatError,
  ManagedSettingsError,
  PermissionRuleError,
  ProviderError,
  query,
  SandboxSettingsError,
  SandboxUnavailableError,
  type SDKUserMessageInput,
  SessionNotFoundError,
  SettingsError,
} from "../src/index.js";
import { type MockProvider, reply, startMockProvider } from "./support/mock-provider.js";

let mock: MockProvider;
beforeAll(async () => {
  mock = await startMockProvider();
});
afterAll(async () => {
  await mock.close();
});

describe("GoatError", () => {
  it("is the base of the errors Goat throws, each with a code", () => {
    const errors = [
      new ProviderError({ kind: "rate_limit", provider: "anthropic", message: "slow down" }),
      new PermissionRuleError("Bash(", "unclosed parenthesis"),
      new InvalidOptionError("maxTurns", "maxTurns must be a whole number"),
      new SettingsError("bad settings.json"),
      new SessionNotFoundError("abc"),
      new CompactionError("the summary call failed"),
      new CompactionError("a hook said no", { code: "compaction_blocked" }),
      new SandboxSettingsError("sandbox.enabled must be true or false"),
      new SandboxUnavailableError("bwrap is not installed"),
      new ManagedSettingsError("cannot enforce allowedMcpServers"),
      new FlagSettingsError("no such key", "unsupported_setting"),
      new UsageError("--max-turns needs a number"),
      new McpConfigError("bad .mcp.json"),
      new InvalidToolError('Tool "x": execute must be a function', "x"),
      new ControlError("no such request", "unsupported_request"),
    ];
    expect(errors.map((e) => [e.name, e instanceof GoatError, e instanceof Error, e.code])).toEqual([
      ["ProviderError", true, true, "provider_rate_limit"],
      ["PermissionRuleError", true, true, "invalid_permission_rule"],
      ["InvalidOptionError", true, true, "invalid_option"],
      ["SettingsError", true, true, "invalid_settings"],
      ["SessionNotFoundError", true, true, "session_not_found"],
      ["CompactionError", true, true, "compaction_failed"],
      ["CompactionError", true, true, "compaction_blocked"],
      ["SandboxSettingsError", true, true, "invalid_sandbox_settings"],
      ["SandboxUnavailableError", true, true, "sandbox_unavailable"],
      ["ManagedSettingsError", true, true, "invalid_managed_settings"],
      ["FlagSettingsError", true, true, "unsupported_setting"],
      ["UsageError", true, true, "usage"],
      ["McpConfigError", true, true, "invalid_mcp_config"],
      ["InvalidToolError", true, true, "invalid_tool"],
      ["ControlError", true, true, "unsupported_request"],
    ]);
    expect(new UsageError("x") instanceof ProviderError).toBe(false);
  });

  it("recognises an error from another copy of the package by its shared marker", () => {
    const foreign = Object.assign(new Error("from a second install"), {
      [Symbol.for("goat.GoatError")]: true,
      code: "provider_overloaded",
    });
    expect(foreign instanceof GoatError).toBe(true);
    expect(isGoatError(foreign)).toBe(true);
    expect(new Error("plain") instanceof GoatError).toBe(false);
    expect(isGoatError({ code: "x" })).toBe(false);
  });

  it("reaches a caller of query() as a GoatError when a permission rule is malformed", async () => {
    const failure = await (async () => {
      try {
        const run = query({
          prompt: "hi",
          options: { allowedTools: ["Bash(npm test"], persistSession: false },
        });
        for await (const _ of run) {
          // drain
        }
      } catch (error) {
        return error;
      }
      return undefined;
    })();
    expect(failure).toBeInstanceOf(GoatError);
    expect((failure as GoatError).code).toBe("invalid_permission_rule");
  });

  it("reaches a caller of Query.compact() as a CompactionError when a PreCompact hook blocks it", async () => {
    mock.enqueue(reply.text("first answer"));
    let done!: () => void;
    const finished = new Promise<void>((resolve) => {
      done = resolve;
    });
    async function* prompts(): AsyncGenerator<SDKUserMessageInput> {
      yield { type: "user", message: { role: "user", content: "hello" } };
      await finished;
    }
    const q = query({
      prompt: prompts(),
      options: {
        provider: { type: "anthropic", baseURL: mock.anthropicBaseURL, apiKey: "test" },
        model: "anthropic/claude-sonnet-4-5",
        persistSession: false,
        hooks: { PreCompact: [async () => ({ decision: "block", reason: "not now" })] },
      },
    });
    let failure: unknown;
    for await (const message of q) {
      if (message.type === "result") {
        failure = await q.compact().then(
          () => undefined,
          (error: unknown) => error,
        );
        done();
      }
    }
    expect(failure).toBeInstanceOf(CompactionError);
    expect(failure).toMatchObject({ code: "compaction_blocked" });
    expect((failure as Error).message).toContain("not now");
  });
});
