import { describe, expect, it } from "vitest";
import type { HookCallback, HookJSONOutput } from "../../src/hooks/index.js";
import { bashCall, opts, testRunner } from "./support.js";

/** A callback that always answers `output`. */
const answer =
  (output: HookJSONOutput): HookCallback =>
  async () =>
    output;

describe("aggregation of PreToolUse answers", () => {
  it("deny beats ask beats allow, and the reason comes from the winning decision", async () => {
    const runner = testRunner({
      hooks: {
        PreToolUse: [
          {
            hooks: [
              answer({
                hookSpecificOutput: {
                  hookEventName: "PreToolUse",
                  permissionDecision: "allow",
                  permissionDecisionReason: "fine",
                },
              }),
              answer({
                hookSpecificOutput: { permissionDecision: "deny", permissionDecisionReason: "rm is scary" },
              }),
              answer({
                hookSpecificOutput: { permissionDecision: "ask", permissionDecisionReason: "check" },
              }),
            ],
          },
        ],
      },
    });
    const r = await runner.run("PreToolUse", bashCall, opts());
    expect(r.permissionDecision).toBe("deny");
    expect(r.permissionDecisionReason).toBe("rm is scary");
    expect(r.blocked).toBe(true);
    expect(r.blockReason).toBe("rm is scary");
    expect(r.errors).toEqual([]);
  });

  it("ask beats allow when nobody denies", async () => {
    const runner = testRunner({
      hooks: {
        PreToolUse: [
          {
            hooks: [
              answer({ hookSpecificOutput: { permissionDecision: "allow" } }),
              answer({ hookSpecificOutput: { permissionDecision: "ask" } }),
            ],
          },
        ],
      },
    });
    const r = await runner.run("PreToolUse", bashCall, opts());
    expect(r.permissionDecision).toBe("ask");
    expect(r.blocked).toBe(false);
  });

  it("maps the legacy top-level decision: approve = allow, block = deny with its reason", async () => {
    const approve = testRunner({ hooks: { PreToolUse: [{ hooks: [answer({ decision: "approve" })] }] } });
    expect((await approve.run("PreToolUse", bashCall, opts())).permissionDecision).toBe("allow");
    const block = testRunner({
      hooks: { PreToolUse: [{ hooks: [answer({ decision: "block", reason: "no shell today" })] }] },
    });
    const r = await block.run("PreToolUse", bashCall, opts());
    expect(r.permissionDecision).toBe("deny");
    expect(r.permissionDecisionReason).toBe("no shell today");
  });

  it("takes updatedInput from the last registered hook, whichever finishes first", async () => {
    const slowFirst: HookCallback = async () => {
      await new Promise((r) => setTimeout(r, 80));
      return { hookSpecificOutput: { updatedInput: { command: "first" } } };
    };
    const runner = testRunner({
      hooks: {
        PreToolUse: [
          { hooks: [answer({ hookSpecificOutput: { updatedInput: { command: "zero" } } }), slowFirst] },
          { hooks: [answer({ hookSpecificOutput: { updatedInput: { command: "last" } } })] },
        ],
      },
    });
    const r = await runner.run("PreToolUse", bashCall, opts());
    expect(r.updatedInput).toEqual({ command: "last" });
  });

  it("collects additionalContext and systemMessages in registration order", async () => {
    const late: HookCallback = async () => {
      await new Promise((r) => setTimeout(r, 60));
      return { systemMessage: "m1", hookSpecificOutput: { additionalContext: "c1" } };
    };
    const runner = testRunner({
      hooks: {
        PreToolUse: [
          { hooks: [late, answer({ systemMessage: "m2", hookSpecificOutput: { additionalContext: "c2" } })] },
        ],
      },
    });
    const r = await runner.run("PreToolUse", bashCall, opts());
    expect(r.additionalContext).toEqual(["c1", "c2"]);
    expect(r.systemMessages).toEqual(["m1", "m2"]);
  });
});

describe("aggregation of the common fields", () => {
  it("continue:false wins over the others and keeps every stopReason", async () => {
    const runner = testRunner({
      hooks: {
        Stop: [
          {
            hooks: [
              answer({ continue: true }),
              answer({ continue: false, stopReason: "budget spent" }),
              answer({ continue: false, stopReason: "done" }),
            ],
          },
        ],
      },
    });
    const r = await runner.run("Stop", { stop_hook_active: false }, opts());
    expect(r.continue).toBe(false);
    expect(r.stopReason).toBe("budget spent\ndone");
  });

  it("Stop decision:block keeps the loop going with all reasons joined", async () => {
    const runner = testRunner({
      hooks: {
        Stop: [
          {
            hooks: [
              answer({ decision: "block", reason: "tests fail" }),
              answer({ decision: "block", reason: "lint fails" }),
            ],
          },
        ],
      },
    });
    const r = await runner.run("Stop", { stop_hook_active: false }, opts());
    expect(r.continue).toBe(true);
    expect(r.blocked).toBe(true);
    expect(r.blockReason).toBe("tests fail\nlint fails");
  });

  it("suppressOutput is set when any hook asks for it", async () => {
    const runner = testRunner({
      hooks: { Notification: [{ hooks: [answer({}), answer({ suppressOutput: true })] }] },
    });
    const r = await runner.run("Notification", { message: "hi", notification_type: "idle" }, opts());
    expect(r.suppressOutput).toBe(true);
  });

  it("a block on an event that cannot block is not a block", async () => {
    const runner = testRunner({
      hooks: { SessionEnd: [{ hooks: [answer({ decision: "block", reason: "nope" })] }] },
    });
    const r = await runner.run("SessionEnd", { reason: "other" }, opts());
    expect(r.blocked).toBe(false);
  });
});

describe("event-specific outputs", () => {
  const post = {
    tool_name: "Read",
    tool_input: { file_path: "/a" },
    tool_response: "secret",
    tool_use_id: "tu_2",
  };

  it("PostToolUse: replacement output (last wins), context and a block reason for the model", async () => {
    const runner = testRunner({
      hooks: {
        PostToolUse: [
          {
            matcher: "Read",
            hooks: [
              answer({ hookSpecificOutput: { hookEventName: "PostToolUse", updatedToolOutput: "first" } }),
              answer({
                decision: "block",
                reason: "output had a secret",
                hookSpecificOutput: { updatedToolOutput: "[redacted]", additionalContext: "ctx" },
              }),
            ],
          },
        ],
      },
    });
    const r = await runner.run("PostToolUse", post, opts());
    expect(r.hasUpdatedToolOutput).toBe(true);
    expect(r.updatedToolOutput).toBe("[redacted]");
    expect(r.additionalContext).toEqual(["ctx"]);
    expect(r.blocked).toBe(true);
    expect(r.blockReason).toBe("output had a secret");
  });

  it("PostToolUse without a replacement says so", async () => {
    const runner = testRunner({ hooks: { PostToolUse: [{ hooks: [answer({})] }] } });
    const r = await runner.run("PostToolUse", post, opts());
    expect(r.hasUpdatedToolOutput).toBe(false);
  });

  it("UserPromptSubmit and SessionStart carry additionalContext; a prompt block is reported", async () => {
    const runner = testRunner({
      hooks: {
        UserPromptSubmit: [
          {
            hooks: [
              answer({
                decision: "block",
                reason: "no secrets",
                hookSpecificOutput: { additionalContext: "u" },
              }),
            ],
          },
        ],
        SessionStart: [
          {
            matcher: "startup",
            hooks: [
              answer({ hookSpecificOutput: { hookEventName: "SessionStart", additionalContext: "s" } }),
            ],
          },
        ],
      },
    });
    const u = await runner.run("UserPromptSubmit", { prompt: "hi" }, opts());
    expect(u.additionalContext).toEqual(["u"]);
    expect(u.blocked).toBe(true);
    const s = await runner.run("SessionStart", { source: "startup" }, opts());
    expect(s.additionalContext).toEqual(["s"]);
    const resumed = await runner.run("SessionStart", { source: "resume" }, opts());
    expect(resumed.additionalContext).toEqual([]);
  });

  it("PermissionRequest: deny beats allow and interrupt sticks", async () => {
    const allow = answer({
      hookSpecificOutput: { decision: { behavior: "allow", updatedInput: { command: "ls -a" } } },
    });
    const deny = answer({
      hookSpecificOutput: { decision: { behavior: "deny", message: "not now", interrupt: true } },
    });
    const allowOnly = testRunner({ hooks: { PermissionRequest: [{ hooks: [allow] }] } });
    const fields = { tool_name: "Bash", tool_input: { command: "ls" } };
    expect((await allowOnly.run("PermissionRequest", fields, opts())).permissionRequestDecision).toEqual({
      behavior: "allow",
      updatedInput: { command: "ls -a" },
    });
    const both = testRunner({ hooks: { PermissionRequest: [{ hooks: [deny, allow] }] } });
    const r = await both.run("PermissionRequest", fields, opts());
    expect(r.permissionRequestDecision).toEqual({ behavior: "deny", message: "not now", interrupt: true });
    expect(r.blocked).toBe(true);
  });

  it("reports output of the wrong shape as an error and applies none of it", async () => {
    const runner = testRunner({
      hooks: {
        PreToolUse: [
          {
            hooks: [
              answer({ continue: "no" } as never),
              answer({ hookSpecificOutput: { hookEventName: "PostToolUse", additionalContext: "x" } }),
              answer({ hookSpecificOutput: { permissionDecision: "maybe" } } as never),
              (async () => "deny") as never,
            ],
          },
        ],
      },
    });
    const r = await runner.run("PreToolUse", bashCall, opts());
    expect(r.continue).toBe(true);
    expect(r.additionalContext).toEqual([]);
    expect(r.permissionDecision).toBeUndefined();
    expect(r.errors.map((e) => e.message)).toEqual([
      expect.stringMatching(/invalid hook output: .*boolean.*continue/),
      expect.stringMatching(/hookEventName is "PostToolUse" but the hook ran for PreToolUse/),
      expect.stringMatching(/invalid hookSpecificOutput: .*permissionDecision/),
      "hook output must be a JSON object, got string",
    ]);
  });
});
