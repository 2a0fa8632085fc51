/**
 * `managedSettings`: the embedder's policy tier, restrictive-only. Managed deny and ask rules hold in
 * bypassPermissions and against a host that tries to remove them, bypassPermissions can be locked out,
 * other sources' rules can be switched off, settings hooks can be stopped; keys that would widen access
 * are dropped with a warning, and a restrictive key Goat cannot enforce stops the session from starting.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { beforeEach, describe, expect, it } from "vitest";
import { query } from "../../src/sdk/query.js";
import type { SDKMessage } from "../../src/sdk/sdk-messages.js";
import { readManagedSettings } from "../../src/settings/managed.js";
import { reply } from "../support/mock-provider.js";
import { collect, mockOptions, useMockProvider } from "./helpers.js";

const mock = useMockProvider();
let cwd: string;
beforeEach(() => {
  cwd = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "goat-managed-")));
  return () => fs.rmSync(cwd, { recursive: true, force: true });
});

const bash = (command: string, id = "t1") => reply.toolCalls([{ name: "Bash", id, input: { command } }]);
const resultTexts = (messages: SDKMessage[]) =>
  messages.flatMap((m) =>
    m.type === "user" && Array.isArray(m.message.content)
      ? m.message.content.flatMap((b: any) => (b.type === "tool_result" ? [JSON.stringify(b.content)] : []))
      : [],
  );

describe("managedSettings", () => {
  it("a managed deny rule holds in bypassPermissions, and a host's removeRules cannot lift it", async () => {
    const asked: string[] = [];
    mock.enqueue(
      bash("touch denied", "a"),
      bash("touch asked", "b"),
      bash("touch denied", "c"),
      reply.text("done"),
    );
    const messages = await collect(
      query({
        prompt: "go",
        options: mockOptions(mock, "anthropic", {
          cwd,
          tools: ["Bash"],
          permissionMode: "bypassPermissions",
          managedSettings: { permissions: { deny: ["Bash(touch denied)"], ask: ["Bash(touch asked)"] } },
          // The host allows everything and asks to drop the deny rule with its answer.
          canUseTool: async (_tool, input) => {
            asked.push(String(input.command));
            return {
              behavior: "allow",
              updatedPermissions: [
                {
                  type: "removeRules",
                  rules: [{ toolName: "Bash", ruleContent: "touch denied" }],
                  behavior: "deny",
                  destination: "session",
                },
              ],
            };
          },
          allowedTools: ["Bash(touch denied)"],
        }),
      }),
    );
    const texts = resultTexts(messages);
    expect(texts[0]).toContain("denied by the rule Bash(touch denied)");
    // After the host's answer asked to remove it, the managed rule still denies.
    expect(texts[2]).toContain("denied by the rule Bash(touch denied)");
    expect(fs.existsSync(path.join(cwd, "denied"))).toBe(false);
    expect(fs.existsSync(path.join(cwd, "asked"))).toBe(true);
    expect(asked).toEqual(["touch asked"]);
  });

  it("disableBypassPermissionsMode locks bypassPermissions out, at start and later", async () => {
    const managedSettings = { permissions: { disableBypassPermissionsMode: "disable" } };
    expect(() =>
      query({ prompt: "x", options: mockOptions(mock, "anthropic", { managedSettings }) }),
    ).toThrow(/bypassPermissions is disabled by the managed settings/);
    mock.enqueue(reply.text("ok"));
    const q = query({
      prompt: "x",
      options: mockOptions(mock, "anthropic", {
        managedSettings,
        permissionMode: "default",
        allowDangerouslySkipPermissions: true,
      }),
    });
    await expect(q.setPermissionMode("bypassPermissions")).rejects.toThrow(
      /disabled by the managed settings/,
    );
    await collect(q);
  });

  it("allowManagedPermissionRulesOnly ignores every other rule", async () => {
    mock.enqueue(bash("touch allowed"), reply.text("done"));
    const messages = await collect(
      query({
        prompt: "go",
        options: mockOptions(mock, "anthropic", {
          cwd,
          tools: ["Bash"],
          permissionMode: "default",
          allowedTools: ["Bash"],
          managedSettings: { allowManagedPermissionRulesOnly: true },
        }),
      }),
    );
    // Without the allow rule the call needs approval, and no canUseTool is there to give it.
    expect(resultTexts(messages)[0]).toContain("no canUseTool callback");
    expect(fs.existsSync(path.join(cwd, "allowed"))).toBe(false);
  });

  it("allowManagedHooksOnly stops settings command hooks; the host's callbacks still run", async () => {
    const log = path.join(cwd, "hook.log");
    let callbacks = 0;
    mock.enqueue(bash("true"), reply.text("done"));
    await collect(
      query({
        prompt: "go",
        options: mockOptions(mock, "anthropic", {
          cwd,
          tools: ["Bash"],
          settings: {
            hooks: { PreToolUse: [{ hooks: [{ type: "command", command: `echo ran >> ${log}` }] }] },
          },
          hooks: {
            PreToolUse: [
              {
                hooks: [
                  async () => {
                    callbacks++;
                    return {};
                  },
                ],
              },
            ],
          },
          managedSettings: { allowManagedHooksOnly: true },
        }),
      }),
    );
    expect(fs.existsSync(log)).toBe(false);
    expect(callbacks).toBe(1);
  });

  it("widening keys are dropped with a warning; an unenforceable one stops the start", async () => {
    mock.enqueue(reply.text("ok"));
    const messages = await collect(
      query({
        prompt: "x",
        options: mockOptions(mock, "anthropic", {
          managedSettings: { model: "openai/gpt-4.1", permissions: { allow: ["Bash"] }, env: { A: "b" } },
        }),
      }),
    );
    const warning = messages.find(
      (m) => m.type === "system" && (m as any).subtype === "informational",
    ) as any;
    expect(warning.content).toContain("model, permissions.allow, env");
    expect(mock.requests[0].body.model).toBe("claude-sonnet-4-5");
    expect(() =>
      query({
        prompt: "x",
        options: mockOptions(mock, "anthropic", {
          managedSettings: { deniedMcpServers: [{ serverName: "x" }] },
        }),
      }),
    ).toThrow(/Goat cannot enforce deniedMcpServers/);
  });

  it("keeps only the sandbox settings that tighten", () => {
    const managed = readManagedSettings({
      sandbox: {
        enabled: true,
        allowUnsandboxedCommands: false,
        autoAllowBashIfSandboxed: true,
        excludedCommands: ["docker"],
        network: { allowLocalBinding: false, deniedDomains: ["evil.example"], allowedDomains: ["x.example"] },
      },
    });
    expect(managed.sandbox).toEqual({
      enabled: true,
      allowUnsandboxedCommands: false,
      network: { allowLocalBinding: false },
    });
    expect(managed.dropped).toEqual(["sandbox.excludedCommands", "sandbox.network.allowedDomains"]);
    expect(() => readManagedSettings({ sandbox: { filesystem: { denyRead: ["/etc"] } } })).toThrow(
      /cannot enforce sandbox\.filesystem/,
    );
  });
});
