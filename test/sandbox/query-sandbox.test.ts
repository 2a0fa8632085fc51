/**
 * The sandbox option of query(): sandboxed Bash runs without asking (autoAllowBashIfSandboxed) and
 * stays confined, while excluded commands and requests to leave the sandbox go through the normal
 * permission check, and deny rules and plan mode still win. Real bubblewrap, mock provider.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { findExecutable } from "../../src/sandbox/bwrap.js";
import type { SandboxSettings } from "../../src/sandbox/settings.js";
import type { QueryOptions } from "../../src/sdk/options.js";
import { query } from "../../src/sdk/query.js";
import { collect, mockOptions, tempDir, toolResultsSent } from "../runtime/helpers.js";
import { type MockProvider, reply, startMockProvider } from "../support/mock-provider.js";

const hasBwrap = process.platform === "linux" && findExecutable("bwrap") !== undefined;

let mock: MockProvider;
let cwd: string;
let outside: string;
beforeAll(async () => {
  mock = await startMockProvider();
  outside = fs.realpathSync(fs.mkdtempSync(path.join(os.homedir(), ".goat-sandbox-query-")));
});
afterAll(async () => {
  await mock.close();
  fs.rmSync(outside, { recursive: true, force: true });
});
beforeEach(() => {
  mock.requests.length = 0;
  cwd = tempDir("goat-sandbox-query-");
});

function options(sandbox: SandboxSettings, extra: QueryOptions = {}): QueryOptions {
  return mockOptions(mock, "anthropic", {
    cwd,
    tools: ["Bash"],
    permissionMode: "default",
    sandbox: { enabled: true, ...sandbox },
    ...extra,
  });
}

/** Runs one Bash call through query() and returns the tool result the model got. */
async function bash(input: Record<string, unknown>, opts: QueryOptions) {
  mock.requests.length = 0;
  mock.enqueue(reply.toolCalls([{ name: "Bash", input, id: "b1" }]), reply.text("done"));
  await collect(query({ prompt: "go", options: opts }));
  return toolResultsSent(mock.requests[1].body)[0];
}

describe.skipIf(!hasBwrap)("query() with the sandbox", () => {
  it("runs sandboxed commands without asking, confined to the working directory", async () => {
    let asked = 0;
    const canUseTool = async () => {
      asked++;
      return { behavior: "deny" as const, message: "no" };
    };
    const made = await bash({ command: "touch made.txt" }, options({}, { canUseTool }));
    expect(made.content).not.toMatch(/denied|Permission/);
    expect(fs.existsSync(path.join(cwd, "made.txt"))).toBe(true);

    const escaped = path.join(outside, "escaped.txt");
    const r = await bash({ command: `touch ${escaped}` }, options({}, { canUseTool }));
    expect(r.content).toMatch(/Read-only file system/);
    expect(fs.existsSync(escaped)).toBe(false);
    expect(asked).toBe(0);
  });

  it("offers dangerouslyDisableSandbox to the model only when commands may leave", async () => {
    mock.enqueue(reply.text("hi"), reply.text("hi"));
    await collect(query({ prompt: "x", options: options({}) }));
    await collect(query({ prompt: "x", options: options({ allowUnsandboxedCommands: false }) }));
    const schemaOf = (i: number) =>
      mock.requests[i].body.tools.find((t: { name: string }) => t.name === "Bash").input_schema;
    expect(Object.keys(schemaOf(0).properties)).toContain("dangerouslyDisableSandbox");
    expect(Object.keys(schemaOf(1).properties)).not.toContain("dangerouslyDisableSandbox");
  });

  it("asks as usual when auto-allow is off, for excluded commands and for requests to leave", async () => {
    const cases: Array<[Record<string, unknown>, SandboxSettings]> = [
      [{ command: "touch a.txt" }, { autoAllowBashIfSandboxed: false }],
      [{ command: "touch a.txt" }, { excludedCommands: ["touch"] }],
      [{ command: "touch a.txt", dangerouslyDisableSandbox: true }, {}],
    ];
    for (const [input, sandbox] of cases) {
      const asked: Array<Record<string, unknown>> = [];
      const r = await bash(
        input,
        options(sandbox, {
          canUseTool: async (_tool, toolInput) => {
            asked.push(toolInput);
            return { behavior: "deny", message: "the user said no" };
          },
        }),
      );
      expect(asked, JSON.stringify(sandbox)).toHaveLength(1);
      expect(r.content).toContain("the user said no");
      expect(fs.existsSync(path.join(cwd, "a.txt"))).toBe(false);
    }
  });

  it("ignores a request to leave when commands may not, and runs it sandboxed without asking", async () => {
    const escaped = path.join(outside, "left.txt");
    const r = await bash(
      { command: `touch ${escaped}`, dangerouslyDisableSandbox: true },
      options({ allowUnsandboxedCommands: false }),
    );
    expect(r.content).toMatch(/Read-only file system/);
    expect(fs.existsSync(escaped)).toBe(false);
  });

  it("still obeys deny rules and plan mode", async () => {
    const denied = await bash(
      { command: "touch d.txt" },
      options({}, { disallowedTools: ["Bash(touch:*)"] }),
    );
    expect(denied.content).toMatch(/denied by the rule Bash\(touch:\*\)/);
    const planned = await bash({ command: "touch p.txt" }, options({}, { permissionMode: "plan" }));
    expect(planned.content).toMatch(/plan mode/);
    expect(fs.existsSync(path.join(cwd, "d.txt"))).toBe(false);
    expect(fs.existsSync(path.join(cwd, "p.txt"))).toBe(false);
  });
});

describe("sandbox settings in query()", () => {
  it("rejects a misspelt or unsupported setting at start, even when the sandbox is off", () => {
    expect(() =>
      query({ prompt: "x", options: options({ enabled: false, autoAllow: true } as SandboxSettings) }),
    ).toThrow(/sandbox\.autoAllow is not a sandbox setting/);
    expect(() =>
      query({ prompt: "x", options: options({ network: { allowedDomains: ["example.com"] } }) }),
    ).toThrow(/allowedDomains is not supported/);
  });
});
