/**
 * The official Claude Agent SDK's control methods that `goat` used to refuse, each driven through the
 * real SDK and checked on what ran or what the model was sent: `applyFlagSettings` for every key Goat
 * applies, `seedReadState`, `readMcpResource`, `setMcpPermissionModeOverride`, `updateSettings`,
 * `usage_EXPERIMENTAL…`, and `managedSettings` / `settings` whichever way the SDK delivers them.
 */
import { existsSync, mkdtempSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { useCliFixture } from "../cli/helpers.js";
import { RESOURCE_FIXTURES, writeStdioServer } from "../mcp/helpers.js";
import { reply } from "../support/mock-provider.js";
import { type ClaudeSdk, loadClaudeSdk, loadSdkZod, type SdkQuery } from "./claude-sdk.js";
import { collect, inits, results, sdkOptions, toolResults, userStream } from "./helpers.js";

const fx = useCliFixture("goat-sdk-c");
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

/** A streaming session: `turn(text)` sends a prompt and waits for its result. */
function session(options: Record<string, unknown>) {
  const input = userStream();
  const q: SdkQuery = sdk.query({ prompt: input.stream, options: sdkOptions(fx, options) });
  const seen: any[] = [];
  const done = collect(q, (m) => seen.push(m));
  let turns = 0;
  return {
    q,
    seen,
    async turn(text: string) {
      input.push(text);
      turns++;
      await waitUntil(() => seen.filter((m) => m.type === "result").length >= turns);
    },
    async end() {
      input.end();
      return done;
    },
  };
}

const bash = (command: string, id: string) => reply.toolCalls([{ name: "Bash", id, input: { command } }]);

describe("control methods through goat", () => {
  it("applyFlagSettings: rules, env, hooks, effort and thinking apply mid-session; null takes them back", async () => {
    const hookLog = join(fx.work.path, "hook.log");
    fx.mock.enqueue(
      bash("touch blocked", "t1"),
      bash('echo "v=$FLAG_VAR"', "t2"),
      reply.text("one"),
      bash("touch blocked", "t3"),
      reply.text("two"),
    );
    const s = session({
      model: "anthropic/claude-opus-9",
      permissionMode: "bypassPermissions",
      allowDangerouslySkipPermissions: true,
      settings: { modelPricing: { "anthropic/claude-opus-9": { input: 15, output: 75 } } },
    });
    await s.q.applyFlagSettings({
      permissions: { deny: ["Bash(touch blocked)"] },
      env: { FLAG_VAR: "layer" },
      hooks: {
        PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: `echo x >> ${hookLog}` }] }],
      },
      effortLevel: "high",
      alwaysThinkingEnabled: true,
    });
    await s.turn("one");
    const texts = (i: number) => JSON.stringify(fx.mock.requests[i].body.messages.at(-1).content);
    expect(texts(1)).toContain("denied by the rule Bash(touch blocked)");
    expect(texts(2)).toContain("v=layer");
    expect(readFileSync(hookLog, "utf8")).toBe("x\nx\n");
    expect(fx.mock.requests[0].body.output_config).toEqual({ effort: "high" });
    expect(fx.mock.requests[0].body.thinking).toEqual({ type: "adaptive" });

    await s.q.applyFlagSettings({
      permissions: null,
      effortLevel: null,
      alwaysThinkingEnabled: null,
      hooks: null,
    });
    await s.turn("two");
    expect(existsSync(join(fx.work.path, "blocked"))).toBe(true);
    expect(fx.mock.requests[3].body.output_config).toBeUndefined();
    expect(readFileSync(hookLog, "utf8")).toBe("x\nx\n");
    expect((await s.end()).error).toBeUndefined();
  });

  it("applyFlagSettings rejects a key Goat has no meaning for, and nothing of that call applies", async () => {
    fx.mock.enqueue(reply.text("unchanged"));
    const s = session({ model: "anthropic/claude-sonnet-4-5" });
    await expect(
      s.q.applyFlagSettings({ model: "anthropic/claude-haiku-4-5", theme: "dark" }),
    ).rejects.toThrow(/no meaning for theme/);
    await s.turn("go");
    expect(fx.mock.requests[0].body.model).toBe("claude-sonnet-4-5");
    expect((await s.end()).error).toBeUndefined();
  });

  it("seedReadState lets Edit change a file the host read elsewhere", async () => {
    const file = join(fx.work.path, "plan.md");
    writeFileSync(file, "step one\n");
    fx.mock.enqueue(
      reply.toolCalls([
        { name: "Edit", id: "e1", input: { file_path: file, old_string: "one", new_string: "1" } },
      ]),
      reply.text("edited"),
    );
    const s = session({ permissionMode: "acceptEdits" });
    await s.q.seedReadState(file, Math.floor(statSync(file).mtimeMs));
    await s.turn("edit it");
    expect(readFileSync(file, "utf8")).toBe("step 1\n");
    expect((await s.end()).error).toBeUndefined();
  });

  it("readMcpResource reads a stdio server's resource; system/init advertises it", async () => {
    const server = writeStdioServer(mkdtempSync(join(fx.home.path, "srv-")), { resources: true });
    fx.mock.enqueue(reply.text("hi"));
    const s = session({ mcpServers: { docs: { command: process.execPath, args: [server] } } });
    await s.turn("hi");
    expect(inits({ messages: s.seen }).at(0)?.capabilities).toContain("mcp_read_resource_v1");
    const page = await s.q.readMcpResource("docs", RESOURCE_FIXTURES.page.uri);
    expect(page).toEqual({
      contents: [{ uri: RESOURCE_FIXTURES.page.uri, mimeType: "text/html", text: "<p>hi</p>" }],
    });
    await expect(s.q.readMcpResource("nope", "ui://x")).rejects.toThrow(/nope/);
    expect((await s.end()).error).toBeUndefined();
  });

  it("setMcpPermissionModeOverride makes one in-process server's tools ask again in bypassPermissions", async () => {
    const ran: string[] = [];
    const box = sdk.createSdkMcpServer({
      name: "box",
      tools: [
        sdk.tool("open", "Opens the box", { n: z.number() }, async (args) => {
          ran.push(`open ${args.n}`);
          return { content: [{ type: "text", text: "opened" }] };
        }),
      ],
    });
    const asked: string[] = [];
    fx.mock.enqueue(
      reply.toolCalls([{ name: "mcp__box__open", id: "b1", input: { n: 1 } }]),
      reply.text("one"),
      reply.toolCalls([{ name: "mcp__box__open", id: "b2", input: { n: 2 } }]),
      reply.text("two"),
    );
    const s = session({
      permissionMode: "bypassPermissions",
      allowDangerouslySkipPermissions: true,
      mcpServers: { box },
      canUseTool: async (tool: string) => {
        asked.push(tool);
        return { behavior: "deny", message: "ask me later" };
      },
    });
    expect(await s.q.setMcpPermissionModeOverride("box", "default")).toEqual({});
    await s.turn("one");
    expect(asked).toEqual(["mcp__box__open"]);
    expect(ran).toEqual([]);
    await s.q.setMcpPermissionModeOverride("box", null);
    await s.turn("two");
    expect(ran).toEqual(["open 2"]);
    await expect(s.q.setMcpPermissionModeOverride("box", "auto")).rejects.toThrow(/no auto mode/);
    expect((await s.end()).error).toBeUndefined();
  });

  it("updateSettings writes the allowed keys to Goat's settings files; the next session takes the effort", async () => {
    fx.mock.enqueue(reply.text("first"), reply.text("second"));
    const s = session({});
    await s.q.updateSettings("userSettings", { effortLevel: "low" });
    await s.q.updateSettings("localSettings", { outputStyle: "default" });
    await expect(s.q.updateSettings("userSettings", { model: "x" })).rejects.toThrow(
      /takes only effortLevel/,
    );
    await expect(s.q.updateSettings("localSettings", { outputStyle: "Explanatory" })).rejects.toThrow(
      /default/,
    );
    await s.turn("one");
    expect(fx.mock.requests[0].body.output_config).toBeUndefined();
    expect((await s.end()).error).toBeUndefined();
    expect(JSON.parse(readFileSync(join(fx.home.path, "settings.json"), "utf8"))).toEqual({
      effortLevel: "low",
    });
    expect(JSON.parse(readFileSync(join(fx.work.path, ".goat", "settings.local.json"), "utf8"))).toEqual({
      outputStyle: "default",
    });
    const next = await collect(
      sdk.query({
        prompt: "two",
        options: sdkOptions(fx, {
          model: "anthropic/claude-opus-9",
          settings: { modelPricing: { "anthropic/claude-opus-9": { input: 1, output: 1 } } },
        }),
      }),
    );
    expect(next.error).toBeUndefined();
    expect(fx.mock.requests[1].body.output_config).toEqual({ effort: "low" });
  });

  it("usage_EXPERIMENTAL reports the session's cost, time, tokens and lines written, without plan limits", async () => {
    fx.mock.enqueue(
      reply.toolCalls([
        { name: "Write", id: "w1", input: { file_path: join(fx.work.path, "a.txt"), content: "1\n2\n3\n" } },
      ]),
      reply.text("done"),
    );
    const s = session({ permissionMode: "acceptEdits", model: "anthropic/claude-sonnet-4-5" });
    await s.turn("write");
    const usage = await s.q.usage_EXPERIMENTAL_MAY_CHANGE_DO_NOT_RELY_ON_THIS_API_YET();
    expect(usage).toMatchObject({
      session: { total_lines_added: 3, total_lines_removed: 0 },
      subscription_type: null,
      rate_limits_available: false,
      rate_limits: null,
    });
    expect(usage.session.total_cost_usd).toBeGreaterThan(0);
    expect(Object.keys(usage.session.model_usage)).toEqual(["anthropic/claude-sonnet-4-5"]);
    expect((await s.end()).error).toBeUndefined();
  });
});

describe("backgroundTasks through goat", () => {
  it("moves a running Bash command to the background; the turn ends, a task_notification follows", async () => {
    const go = join(fx.work.path, "go");
    fx.mock.enqueue(
      bash(`echo started; while [ ! -f ${go} ]; do sleep 0.05; done; echo finished`, "bg1"),
      reply.text("carried on"),
    );
    const s = session({ permissionMode: "bypassPermissions", allowDangerouslySkipPermissions: true });
    const turn = s.turn("run something long");
    await waitUntil(() =>
      s.seen.some((m) => m.type === "tool_progress" && String(m.output ?? "").includes("started")),
    );
    expect(await s.q.backgroundTasks("nothing-like-it")).toBe(false);
    expect(await s.q.backgroundTasks("bg1")).toBe(true);
    await turn;
    const moved = s.seen.find((m) => m.type === "user" && m.tool_use_result?.backgroundedByUser);
    const shellId = moved.tool_use_result.backgroundTaskId;
    expect(results({ messages: s.seen })[0]).toMatchObject({ subtype: "success", result: "carried on" });
    writeFileSync(go, "");
    await waitUntil(() => s.seen.some((m) => m.type === "system" && m.subtype === "task_notification"));
    expect(s.seen.find((m) => m.subtype === "task_notification")).toMatchObject({
      task_id: shellId,
      tool_use_id: "bg1",
      status: "completed",
    });
    expect((await s.end()).error).toBeUndefined();
  });
});

describe("settings the SDK delivers", () => {
  for (const delivery of ["argv", "initialize"] as const) {
    it(`managedSettings (${delivery}): a managed deny rule holds in bypassPermissions`, async () => {
      fx.mock.enqueue(bash("touch nope", "m1"), reply.text("done"));
      const run = await collect(
        sdk.query({
          prompt: "go",
          options: sdkOptions(fx, {
            permissionMode: "bypassPermissions",
            allowDangerouslySkipPermissions: true,
            managedSettings: { permissions: { deny: ["Bash(touch nope)"] } },
            managedSettingsDelivery: delivery,
          }),
        }),
      );
      expect(run.error).toBeUndefined();
      expect(JSON.stringify(toolResults(run)[0].content)).toContain("denied by the rule Bash(touch nope)");
      expect(existsSync(join(fx.work.path, "nope"))).toBe(false);
    });
  }

  it("managedSettings Goat cannot enforce end the session with the reason, before any model call", async () => {
    const run = await collect(
      sdk.query({
        prompt: "go",
        options: sdkOptions(fx, {
          managedSettings: { availableModels: ["sonnet"] },
          managedSettingsDelivery: "initialize",
        }),
      }),
    );
    expect(run.error?.message ?? "").toMatch(/Goat cannot enforce availableModels/);
    expect(fx.mock.requests).toHaveLength(0);
  });

  it("settings sent in initialize (settingsDelivery) apply and are confirmed", async () => {
    fx.mock.enqueue(bash("touch held", "s1"), reply.text("done"));
    const run = await collect(
      sdk.query({
        prompt: "go",
        options: sdkOptions(fx, {
          permissionMode: "bypassPermissions",
          allowDangerouslySkipPermissions: true,
          settings: { permissions: { deny: ["Bash(touch held)"] } },
          settingsDelivery: "initialize",
        }),
      }),
    );
    expect(run.error).toBeUndefined();
    expect(results(run)[0].subtype).toBe("success");
    expect(existsSync(join(fx.work.path, "held"))).toBe(false);
  });
});
