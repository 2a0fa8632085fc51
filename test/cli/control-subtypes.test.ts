/**
 * The control requests a Claude Agent SDK host sends besides the basic ones, each answered: context
 * usage, flag settings, file rewinds, tasks, files, reloads; the initialize answer's lists agree with
 * `system/init`; a subtype Goat has no counterpart for gets Claude Code's `unsupported_request` error.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { reply } from "../support/mock-provider.js";
import { control, type Host, isResult, responseTo, startHost as startHostIn, user } from "./control-host.js";
import { useCliFixture } from "./helpers.js";

const fx = useCliFixture("goat-ctl-sub");
const sessions: Host[] = [];
afterEach(() => {
  for (const s of sessions.splice(0)) s.child.kill("SIGKILL");
});
const startHost = (extraArgs: string[] = []) => startHostIn(fx, sessions, extraArgs);

/** Sends a request and resolves with its answer's `response` object. */
async function ask(host: Host, id: string, request: object): Promise<any> {
  host.send(control(id, request));
  return (await host.waitFor(responseTo(id))).response;
}

describe("control subtypes beyond the basic flows", () => {
  it("get_context_usage reports the last call's tokens against the model's window", async () => {
    fx.mock.enqueue(reply.text("hello"));
    const host = startHost(["--model", "anthropic/claude-sonnet-4-5"]);
    const before = await ask(host, "cu-0", { subtype: "get_context_usage" });
    expect(before.subtype).toBe("success");
    // Before any call the runtime estimates what the first request will hold (system prompt, tools).
    expect(before.response.totalTokens).toBeGreaterThanOrEqual(0);
    expect(before.response.maxTokens).toBe(200_000);
    host.send(user("hi"));
    await host.waitFor(isResult);
    const after = (await ask(host, "cu-1", { subtype: "get_context_usage" })).response;
    expect(after.model).toBe("anthropic/claude-sonnet-4-5");
    expect(after.totalTokens).toBeGreaterThan(0);
    expect(after.maxTokens).toBe(200_000);
    expect(after.categories.map((c: any) => c.kind)).toContain("free");
    const sum = after.categories.reduce((n: number, c: any) => n + c.tokens, 0);
    expect(sum).toBe(after.maxTokens);
    expect((await host.end()).code).toBe(0);
  });

  it("apply_flag_settings changes the model and mode, and refuses (changing nothing) what it cannot apply", async () => {
    fx.mock.enqueue(reply.text("one"));
    const host = startHost(["--model", "anthropic/claude-sonnet-4-5"]);
    const refused = await ask(host, "fs-1", {
      subtype: "apply_flag_settings",
      settings: { model: "anthropic/claude-haiku-4-5", outputStyle: "Explanatory" },
    });
    expect(refused).toMatchObject({ subtype: "error", error_code: "unsupported_setting" });
    expect(refused.error).toContain("outputStyle");
    const ok = await ask(host, "fs-2", {
      subtype: "apply_flag_settings",
      settings: { model: "anthropic/claude-haiku-4-5", permissions: { defaultMode: "acceptEdits" } },
    });
    expect(ok.subtype).toBe("success");
    host.send(user("go"));
    await host.waitFor(isResult);
    expect(fx.mock.requests[0].body.model).toBe("claude-haiku-4-5");
    const init = host.lines.find((m) => m.type === "system" && m.subtype === "init");
    expect(init.permissionMode).toBe("acceptEdits");
    expect((await host.end()).code).toBe(0);
  });

  it("read_file answers inside the session's directories and refuses outside them", async () => {
    writeFileSync(join(fx.work.path, "notes.txt"), "0123456789");
    mkdirSync(join(fx.home.path, "secret"));
    writeFileSync(join(fx.home.path, "secret", "key"), "k");
    const host = startHost();
    const whole = await ask(host, "rf-1", { subtype: "read_file", path: "notes.txt" });
    expect(whole.response).toMatchObject({
      contents: "0123456789",
      absPath: join(fx.work.path, "notes.txt"),
    });
    const cut = await ask(host, "rf-2", {
      subtype: "read_file",
      path: "notes.txt",
      max_bytes: 4,
      encoding: "base64",
    });
    expect(cut.response).toMatchObject({ contents: Buffer.from("0123").toString("base64"), truncated: true });
    const outside = await ask(host, "rf-3", {
      subtype: "read_file",
      path: join(fx.home.path, "secret", "key"),
    });
    expect(outside).toMatchObject({ subtype: "error", error_code: "permission_denied" });
    const outsideRead = await ask(host, "rf-4", { subtype: "read_file", path: "../../etc/passwd" });
    expect(outsideRead.subtype).toBe("error");
    expect((await host.end()).code).toBe(0);
  });

  it("rewind_files, stop_task, reloads and cancel_async_message are answered; unknown subtypes get unsupported_request", async () => {
    const host = startHost();
    const rewind = await ask(host, "rw", { subtype: "rewind_files", user_message_id: "u-1", dry_run: true });
    expect(rewind.response.canRewind).toBe(false);
    expect(typeof rewind.response.error).toBe("string");
    expect(await ask(host, "st", { subtype: "stop_task", task_id: "t-9" })).toMatchObject({
      subtype: "success",
    });
    const plugins = (await ask(host, "rp", { subtype: "reload_plugins" })).response;
    expect(plugins).toMatchObject({ plugins: [], mcpServers: [], error_count: 0 });
    expect(plugins.commands.map((c: any) => c.name)).toEqual(["compact"]);
    expect(plugins.agents.map((a: any) => a.name)).toEqual(["general-purpose"]);
    expect((await ask(host, "rs", { subtype: "reload_skills" })).response).toEqual({ skills: [] });
    expect((await ask(host, "ro", { subtype: "reload_output_styles" })).response).toEqual({
      available_output_styles: ["default"],
    });
    expect((await ask(host, "ca", { subtype: "cancel_async_message", message_uuid: "m" })).response).toEqual({
      cancelled: false,
    });
    for (const subtype of [
      "claim_session",
      "side_question",
      "mcp_authenticate",
      "remote_control",
      "no_such_thing",
    ]) {
      const answer = await ask(host, `u-${subtype}`, { subtype });
      expect(answer).toMatchObject({ subtype: "error", error_code: "unsupported_request" });
      expect(answer.error).toContain(subtype);
    }
    expect((await host.end()).code).toBe(0);
  });

  it("the initialize answer lists the agents, model and version system/init reports", async () => {
    fx.mock.enqueue(reply.text("ok"));
    // A model the catalog does not know (a gateway's): it still leads supportedModels().
    const host = startHost(["--model", "anthropic/gateway-model-x"]);
    const init = (
      await ask(host, "i", {
        subtype: "initialize",
        agents: { reviewer: { description: "Reviews diffs", prompt: "Review." } },
      })
    ).response;
    host.send(user("hi"));
    await host.waitFor(isResult);
    const sys = host.lines.find((m) => m.type === "system" && m.subtype === "init");
    expect(init.agents.map((a: any) => a.name)).toEqual(sys.agents);
    expect(init.agents.map((a: any) => a.name)).toEqual(["reviewer"]);
    expect(init.models[0].value).toBe(sys.model);
    expect(init.commands.map((c: any) => c.name)).toEqual(sys.slash_commands);
    expect(init.claude_code_version).toBe(sys.claude_code_version);
    // accountInfo() is read from this answer: the same key source init reports.
    expect(init.account).toMatchObject({ apiKeySource: sys.apiKeySource, provider: "anthropic" });
    expect(sys.apiKeySource).toBe("ANTHROPIC_API_KEY");
    expect(sys.claude_code_version).toMatch(/^2\.\d+\.\d+$/);
    // reinitialize(): the same answer, nothing re-applied.
    const again = await ask(host, "i2", {
      subtype: "initialize",
      agents: { other: { description: "d", prompt: "p" } },
    });
    expect(again.response.agents).toEqual(init.agents);
    expect((await host.end()).code).toBe(0);
  });

  it("list_permission_rules names each rule's source; the flag layer and managed rules show up", async () => {
    const host = startHost([
      "--allowedTools",
      "Read",
      "--settings",
      JSON.stringify({ permissions: { deny: ["Bash(rm *)"] } }),
      "--managed-settings",
      JSON.stringify({ permissions: { ask: ["WebFetch"] }, allowManagedPermissionRulesOnly: true }),
    ]);
    expect(
      (
        await ask(host, "fl", {
          subtype: "apply_flag_settings",
          settings: { permissions: { allow: ["Glob"] } },
        })
      ).subtype,
    ).toBe("success");
    const state = (await ask(host, "lr", { subtype: "list_permission_rules" })).response.state;
    const rows = state.rules.map((r: any) => [
      r.behavior,
      r.rule,
      r.source,
      r.editability,
      r.notInEffect ?? false,
    ]);
    expect(rows).toEqual(
      expect.arrayContaining([
        ["ask", "WebFetch", "policySettings", "readonly", false],
        ["allow", "Read", "cliArg", "session", true],
        ["deny", "Bash(rm *)", "projectSettings", "persistent", true],
        ["allow", "Glob", "flagSettings", "session", true],
      ]),
    );
    expect(state).toMatchObject({ originalCwd: fx.work.path, managedOnly: true });
    expect((await host.end()).code).toBe(0);
  });

  it("answers for what a host asks about that does not exist, with the reason", async () => {
    const host = startHost(["--setting-sources", "project"]);
    expect(
      (await ask(host, "bg", { subtype: "background_tasks", tool_use_id: "toolu_none" })).response,
    ).toEqual({
      backgrounded: false,
    });
    expect(
      (await ask(host, "sr", { subtype: "seed_read_state", path: "missing.txt", mtime: 1 })).response,
    ).toMatchObject({ seeded: false, reason: expect.stringContaining("missing.txt") });
    const resource = await ask(host, "rr", {
      subtype: "mcp_read_resource",
      serverName: "docs",
      uri: "ui://x",
    });
    expect(resource).toMatchObject({ subtype: "error", error_code: "mcp_error" });
    expect(resource.error).toContain('"docs"');
    const auto = await ask(host, "mo", {
      subtype: "set_mcp_permission_mode_override",
      serverName: "docs",
      mode: "auto",
    });
    expect(auto).toMatchObject({ subtype: "error", error_code: "unsupported_setting" });
    const user = await ask(host, "us", {
      subtype: "update_settings",
      source: "userSettings",
      settings: { effortLevel: "low" },
    });
    expect(user).toMatchObject({ subtype: "error", error_code: "permission_denied" });
    expect(user.error).toContain("--setting-sources project");
    const usage = (await ask(host, "gu", { subtype: "get_usage" })).response;
    expect(usage).toMatchObject({
      session: { total_cost_usd: 0, total_lines_added: 0, total_lines_removed: 0 },
      rate_limits_available: false,
      rate_limits: null,
    });
    expect((await host.end()).code).toBe(0);
  });
});
