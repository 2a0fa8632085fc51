import { describe, expect, it } from "vitest";
import { compileMatcher, matcherTarget } from "../../src/hooks/index.js";

describe("compileMatcher", () => {
  it("matches every name when the matcher is absent, empty or *", () => {
    for (const m of [undefined, "", "*"]) {
      expect(compileMatcher(m)("Bash")).toBe(true);
      expect(compileMatcher(m)("mcp__x__y")).toBe(true);
    }
  });

  it("matches names joined by | exactly, never as substrings", () => {
    const m = compileMatcher("Bash|Write");
    expect(m("Bash")).toBe(true);
    expect(m("Write")).toBe(true);
    expect(m("Read")).toBe(false);
    expect(m("BashOutput")).toBe(false);
    expect(m("bash")).toBe(false);
  });

  it("treats other patterns as regexes that must match the whole name", () => {
    const mcp = compileMatcher("mcp__github__.*");
    expect(mcp("mcp__github__create_issue")).toBe(true);
    expect(mcp("mcp__gitlab__create_issue")).toBe(false);
    expect(mcp("xmcp__github__a")).toBe(false);
    const edits = compileMatcher("(Edit|Write).*");
    expect(edits("Edit")).toBe(true);
    expect(edits("WriteFile")).toBe(true);
    expect(edits("Read")).toBe(false);
  });

  it("rejects an invalid regex with a message naming the matcher", () => {
    expect(() => compileMatcher("Bash(")).toThrow(/Invalid hook matcher "Bash\("/);
  });
});

describe("matcherTarget", () => {
  it("tests tool events on the tool name", () => {
    expect(matcherTarget("PreToolUse", { tool_name: "Bash" } as never)).toBe("Bash");
    expect(matcherTarget("PostToolUseFailure", { tool_name: "Read" } as never)).toBe("Read");
    expect(matcherTarget("PermissionRequest", { tool_name: "Edit" } as never)).toBe("Edit");
  });

  it("tests other events on their natural field", () => {
    expect(matcherTarget("SessionStart", { source: "resume" } as never)).toBe("resume");
    expect(matcherTarget("PreCompact", { trigger: "auto" } as never)).toBe("auto");
    expect(matcherTarget("Notification", { notification_type: "idle" } as never)).toBe("idle");
  });

  it("ignores matchers on events without a natural field", () => {
    expect(matcherTarget("Stop", { stop_hook_active: false } as never)).toBeUndefined();
    expect(matcherTarget("UserPromptSubmit", { prompt: "hi" } as never)).toBeUndefined();
  });
});
