import { describe, expect, it, vi } from "vitest";
import type { HookCallback, HookInput } from "../../src/hooks/index.js";
import { createHookRunner, runHooks } from "../../src/hooks/index.js";
import { bashCall, opts, sleep, testRunner } from "./support.js";

describe("in-process callbacks", () => {
  it("receive the base fields, the event's fields and the tool use id", async () => {
    const seen: Array<{ input: HookInput; id: string | undefined; signal: AbortSignal }> = [];
    let mode = "default";
    const runner = createHookRunner({
      sessionId: "sess-9",
      cwd: "/work/x",
      transcriptPath: "/t/sess-9.jsonl",
      getPermissionMode: () => mode,
      hooks: {
        PreToolUse: [
          {
            matcher: "Bash",
            hooks: [
              async (input, id, { signal }) => {
                seen.push({ input, id, signal });
                return {};
              },
            ],
          },
        ],
      },
    });
    mode = "acceptEdits";
    await runner.run("PreToolUse", bashCall, opts("tu_1"));
    expect(seen).toHaveLength(1);
    expect(seen[0].input).toEqual({
      session_id: "sess-9",
      transcript_path: "/t/sess-9.jsonl",
      cwd: "/work/x",
      permission_mode: "acceptEdits",
      hook_event_name: "PreToolUse",
      tool_name: "Bash",
      tool_input: { command: "ls" },
      tool_use_id: "tu_1",
    });
    expect(seen[0].id).toBe("tu_1");
    expect(seen[0].signal).toBeInstanceOf(AbortSignal);
  });

  it("do not run when their matcher does not select the tool", async () => {
    let calls = 0;
    const runner = testRunner({
      hooks: {
        PreToolUse: [
          {
            matcher: "Write|Edit",
            hooks: [
              async () => {
                calls++;
                return {};
              },
            ],
          },
        ],
      },
    });
    const r = await runner.run("PreToolUse", bashCall, opts());
    expect(calls).toBe(0);
    expect(r.outcomes).toEqual([]);
    expect(runner.has("PreToolUse")).toBe(true);
    expect(runner.has("PreToolUse", "Bash")).toBe(false);
    expect(runner.has("PreToolUse", "Edit")).toBe(true);
    expect(runner.has("PostToolUse")).toBe(false);
  });

  it("a throwing hook is reported and the others still count", async () => {
    const runner = testRunner({
      hooks: {
        PreToolUse: [
          {
            hooks: [
              async function explode() {
                throw new Error("kaboom");
              },
              async () => ({
                hookSpecificOutput: { permissionDecision: "deny" as const, permissionDecisionReason: "r" },
              }),
            ],
          },
        ],
      },
    });
    const r = await runner.run("PreToolUse", bashCall, opts());
    expect(r.permissionDecision).toBe("deny");
    expect(r.errors).toEqual([
      { hook: "callback explode (PreToolUse:*)", event: "PreToolUse", message: "threw: kaboom" },
    ]);
    expect(r.outcomes.map((o) => o.outcome)).toEqual(["error", "success"]);
  });

  it("a hook that hangs past its timeout is aborted and reported; the run goes on", async () => {
    let hookSignal: AbortSignal | undefined;
    const hang: HookCallback = (_input, _id, { signal }) => {
      hookSignal = signal;
      return new Promise(() => {});
    };
    const runner = testRunner({
      hooks: {
        Stop: [
          { timeout: 0.2, hooks: [hang] },
          { hooks: [async () => ({ decision: "block" as const, reason: "keep going" })] },
        ],
      },
    });
    const started = Date.now();
    const r = await runner.run("Stop", { stop_hook_active: false }, opts());
    const elapsed = Date.now() - started;
    expect(elapsed).toBeGreaterThanOrEqual(150);
    expect(elapsed).toBeLessThan(3000);
    expect(r.errors).toHaveLength(1);
    expect(r.errors[0].message).toBe("timed out after 0.2 s");
    expect(hookSignal?.aborted).toBe(true);
    expect(r.blocked).toBe(true);
    expect(r.blockReason).toBe("keep going");
  });

  it("matching hooks run in parallel: each of two 300 ms hooks starts before the other ends", async () => {
    const spans: Array<[number, number]> = [];
    const slow: HookCallback = async () => {
      const start = Date.now();
      await sleep(300);
      spans.push([start, Date.now()]);
      return {};
    };
    const runner = testRunner({
      hooks: { PreToolUse: [{ hooks: [slow] }, { matcher: "Bash", hooks: [slow] }] },
    });
    await runner.run("PreToolUse", bashCall, opts());
    expect(spans).toHaveLength(2);
    // Overlap: each started before the other finished (run one after the other, the second would
    // start after the first's end). No bound on the total: a loaded machine can fire timers late.
    expect(spans[0][0]).toBeLessThan(spans[1][1]);
    expect(spans[1][0]).toBeLessThan(spans[0][1]);
  });

  it("aborting the run cancels running hooks, aborts their signals and returns promptly", async () => {
    let hookSignal: AbortSignal | undefined;
    const runner = testRunner({
      hooks: {
        PreToolUse: [
          {
            hooks: [
              async (_i, _id, { signal }) => {
                hookSignal = signal;
                await sleep(10_000, signal);
                return {};
              },
            ],
          },
        ],
      },
    });
    const controller = new AbortController();
    const running = runner.run("PreToolUse", bashCall, { signal: controller.signal });
    await vi.waitFor(() => expect(hookSignal).toBeDefined()); // the hook is running
    const started = Date.now();
    controller.abort();
    const r = await running;
    expect(Date.now() - started).toBeLessThan(2000);
    expect(r.outcomes[0].outcome).toBe("cancelled");
    expect(hookSignal?.aborted).toBe(true);
  });

  it("onFailure: block turns a failing hook into a block with the error as the reason", async () => {
    const runner = testRunner({
      hooks: {
        PreToolUse: [
          {
            onFailure: "block",
            hooks: [
              async function guard() {
                throw new Error("policy server down");
              },
            ],
          },
        ],
      },
    });
    const r = await runner.run("PreToolUse", bashCall, opts());
    expect(r.permissionDecision).toBe("deny");
    expect(r.permissionDecisionReason).toMatch(/guard.*failed: threw: policy server down/);
    expect(r.errors).toHaveLength(1);
  });

  it("a callback that returns nothing has no opinion", async () => {
    const runner = testRunner({ hooks: { PreToolUse: [{ hooks: [async () => {}] }] } });
    const r = await runner.run("PreToolUse", bashCall, opts());
    expect(r.errors).toEqual([]);
    expect(r.permissionDecision).toBeUndefined();
    expect(r.outcomes[0]).toMatchObject({ outcome: "success", hookId: "hook_0", hookName: "PreToolUse:*" });
  });

  it("without hooks the runner answers an empty result", async () => {
    const runner = testRunner();
    expect(runner.has("PreToolUse")).toBe(false);
    const r = await runner.run("PreToolUse", bashCall, opts());
    expect(r).toMatchObject({
      continue: true,
      blocked: false,
      errors: [],
      outcomes: [],
      additionalContext: [],
    });
  });

  it("runHooks works on plain registrations too", async () => {
    const r = await runHooks(
      "UserPromptSubmit",
      { hook_event_name: "UserPromptSubmit", session_id: "s", transcript_path: "", cwd: "/", prompt: "hi" },
      {
        hooks: {
          UserPromptSubmit: [{ matcher: "ignored-here", hooks: [async () => ({ systemMessage: "seen" })] }],
        },
      },
      opts(),
    );
    expect(r.systemMessages).toEqual(["seen"]);
  });

  it("rejects an invalid matcher or an unknown event when the runner is created", () => {
    expect(() =>
      testRunner({ hooks: { PreToolUse: [{ matcher: "Bash(", hooks: [async () => ({})] }] } }),
    ).toThrow(/Invalid hook matcher "Bash\("/);
    expect(() => testRunner({ hooks: { PreTooluse: [{ hooks: [async () => ({})] }] } as never })).toThrow(
      /Unknown hook event "PreTooluse"/,
    );
  });
});
