/**
 * `applyFlagSettings()` changing a running session: permission rules and mode, env for tools, command
 * hooks, effort, thinking, model and fallback model, each seen in what the model was sent or what ran;
 * successive calls replace a key, `null` removes it, and a refused call changes nothing.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { beforeEach, describe, expect, it } from "vitest";
import { createAsyncQueue } from "../../src/sdk/async-queue.js";
import { type Query, query, type SDKUserMessageInput } from "../../src/sdk/query.js";
import type { SDKMessage } from "../../src/sdk/sdk-messages.js";
import { reply } from "../support/mock-provider.js";
import { mockOptions, useMockProvider } from "./helpers.js";

const mock = useMockProvider();
let cwd: string;
beforeEach(() => {
  cwd = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "goat-flags-")));
  return () => fs.rmSync(cwd, { recursive: true, force: true });
});

/** A multi-turn session: `turn(text)` sends a prompt and resolves with that turn's messages. */
function session(options: Record<string, unknown>) {
  const input = createAsyncQueue<SDKUserMessageInput>();
  const q: Query = query({
    prompt: input,
    options: mockOptions(mock, "anthropic", {
      model: "anthropic/claude-opus-9",
      modelPricing: { "anthropic/claude-opus-9": { input: 15, output: 75 } },
      cwd,
      ...options,
    } as any),
  });
  return {
    q,
    async turn(text: string): Promise<SDKMessage[]> {
      input.push({ type: "user", message: { role: "user", content: text } });
      const out: SDKMessage[] = [];
      for (;;) {
        const { value, done } = await q.next();
        if (done) return out;
        out.push(value);
        if (value.type === "result") return out;
      }
    },
    end() {
      input.close();
      q.close();
    },
  };
}

/** The text of the tool results of a turn. */
const resultTexts = (messages: SDKMessage[]) =>
  messages.flatMap((m) =>
    m.type === "user" && Array.isArray(m.message.content)
      ? m.message.content.flatMap((b: any) => (b.type === "tool_result" ? [JSON.stringify(b.content)] : []))
      : [],
  );

describe("applyFlagSettings", () => {
  it("permission rules: a deny layer applies, the next call replaces it, null removes it", async () => {
    const s = session({ tools: ["Bash"], permissionMode: "default", allowedTools: ["Bash"] });
    const touch = (file: string) => reply.toolCalls([{ name: "Bash", input: { command: `touch ${file}` } }]);
    mock.enqueue(
      touch("one"),
      reply.text("a"),
      touch("two"),
      reply.text("b"),
      touch("three"),
      reply.text("c"),
    );
    await s.q.applyFlagSettings({ permissions: { deny: ["Bash(touch one)"] } });
    expect(resultTexts(await s.turn("1")).join()).toContain("denied by the rule Bash(touch one)");
    await s.q.applyFlagSettings({ permissions: { deny: ["Bash(touch two)"] } });
    expect(resultTexts(await s.turn("2")).join()).toContain("denied by the rule Bash(touch two)");
    await s.q.applyFlagSettings({ permissions: null });
    await s.turn("3");
    expect(fs.existsSync(path.join(cwd, "one"))).toBe(false);
    expect(fs.existsSync(path.join(cwd, "two"))).toBe(false);
    expect(fs.existsSync(path.join(cwd, "three"))).toBe(true);
    s.end();
  });

  it("env reaches tools, hooks run, effort and thinking reach the request; null goes back", async () => {
    const hookLog = path.join(cwd, "hook.log");
    const s = session({ tools: ["Bash"] });
    mock.enqueue(
      reply.toolCalls([{ name: "Bash", input: { command: 'echo "flag=$FLAG_VAR"' } }]),
      reply.text("a"),
      reply.text("b"),
    );
    await s.q.applyFlagSettings({
      env: { FLAG_VAR: "from-the-layer" },
      hooks: {
        PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: `echo ran >> ${hookLog}` }] }],
      },
      effortLevel: "low",
      alwaysThinkingEnabled: true,
    });
    const first = await s.turn("1");
    expect(resultTexts(first).join()).toContain("flag=from-the-layer");
    expect(fs.readFileSync(hookLog, "utf8")).toBe("ran\n");
    expect(mock.requests[0].body.output_config).toEqual({ effort: "low" });
    expect(mock.requests[0].body.thinking).toEqual({ type: "adaptive" });
    await s.q.applyFlagSettings({ effortLevel: null, alwaysThinkingEnabled: null, hooks: null, env: null });
    await s.turn("2");
    expect(mock.requests[2].body.output_config).toBeUndefined();
    expect(mock.requests[2].body.thinking).toBeUndefined();
    s.end();
  });

  it("model and fallbackModel: the next call uses the layer's model, and the fallback when it is overloaded", async () => {
    const s = session({ retry: { maxRetries: 1, baseDelayMs: 1 } });
    mock.enqueue(reply.text("from haiku"));
    await s.q.applyFlagSettings({ model: "anthropic/claude-haiku-4-5" });
    await s.turn("1");
    expect(mock.requests[0].body.model).toBe("claude-haiku-4-5");
    await s.q.applyFlagSettings({ model: null, fallbackModel: ["anthropic/claude-sonnet-4-5"] });
    mock.enqueue(reply.error(529), reply.error(529), (req) => reply.text(`answered by ${req.body.model}`));
    const second = await s.turn("2");
    // Back on the configured model, which is overloaded: the layer's fallback answers.
    expect(mock.requests[1].body.model).toBe("claude-opus-9");
    expect(second.find((m) => m.type === "result")).toMatchObject({
      result: "answered by claude-sonnet-4-5",
    });
    s.end();
  });

  it("a refused call changes nothing: an unknown key, a bad rule, a mode that cannot be entered", async () => {
    const s = session({ tools: ["Bash"], permissionMode: "default" });
    await expect(
      s.q.applyFlagSettings({ model: "anthropic/claude-haiku-4-5", spinnerTipsEnabled: false }),
    ).rejects.toMatchObject({
      code: "unsupported_setting",
      message: expect.stringContaining("spinnerTipsEnabled"),
    });
    await expect(
      s.q.applyFlagSettings({ effortLevel: "high", permissions: { deny: ["Bash(unclosed"] } }),
    ).rejects.toMatchObject({ code: "invalid_setting" });
    await expect(
      s.q.applyFlagSettings({
        model: "anthropic/claude-haiku-4-5",
        permissions: { deny: ["Read"], defaultMode: "bypassPermissions" },
      }),
    ).rejects.toThrow(/bypassPermissions must be asked for explicitly.*nothing was changed/);
    await expect(s.q.applyFlagSettings({ fallbackModel: ["a/b", "c/d"] })).rejects.toThrow(/one model/);
    mock.enqueue(reply.text("unchanged"));
    const turn = await s.turn("1");
    const body = mock.requests[0].body;
    expect(body.model).toBe("claude-opus-9");
    expect(body.output_config).toBeUndefined();
    expect(turn.find((m) => m.type === "system" && m.subtype === "init")).toMatchObject({
      permissionMode: "default",
    });
    s.end();
  });
});
