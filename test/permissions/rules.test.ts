import { describe, expect, it } from "vitest";
import { splitBashCommand } from "../../src/permissions/bash-split.js";
import { isReadOnlyCommand } from "../../src/permissions/command-effects.js";
import { PermissionRuleError } from "../../src/permissions/errors.js";
import { type CallFacts, commandMatches, matchRules } from "../../src/permissions/rule-match.js";
import { compileCommandPattern, compileRule, parseRuleValue } from "../../src/permissions/rule-parse.js";
import type { PermissionBehavior } from "../../src/permissions/types.js";

const ctx = { cwd: "/work/project", projectRoot: "/work/project" };

async function bash(rules: Array<[PermissionBehavior, string]>, command: string): Promise<string> {
  const compiled = rules.map(([b, t]) => compileRule(t, b, "session", ctx));
  const facts: CallFacts = {
    toolName: "Bash",
    input: { command },
    bash: await splitBashCommand(command),
    inScope: true,
  };
  return matchRules(compiled, facts).behavior;
}

describe("parsing rules", () => {
  it("reads bare tools, specifiers and MCP names", async () => {
    expect(parseRuleValue("Bash")).toEqual({ toolName: "Bash" });
    expect(parseRuleValue("Bash(npm run test:*)")).toEqual({
      toolName: "Bash",
      ruleContent: "npm run test:*",
    });
    expect(parseRuleValue("mcp__github__*")).toEqual({ toolName: "mcp__github__*" });
  });

  it.each([
    ["", "empty"],
    ["Bash(npm test", "end with ')'"],
    ["Bash()", "empty parentheses"],
    ["Bash(npm:*x)", "':*' only works once"],
    ["Ba sh", "not a tool name"],
    ["Read*", "only works for MCP"],
    ["WebFetch(example.com)", "domain:"],
    ["Read(src/**/[a)", "bad glob"],
    ["mcp__srv__tool(x)", "take no parentheses"],
    ["TodoWrite(x)", "take no specifier"],
  ])("rejects %j, naming the rule", (text, problem) => {
    expect(() => compileRule(text, "allow", "cliArg", ctx)).toThrow(PermissionRuleError);
    expect(() => compileRule(text, "allow", "cliArg", ctx)).toThrow(problem);
    try {
      compileRule(text, "allow", "cliArg", ctx);
    } catch (err) {
      expect((err as PermissionRuleError).rule).toBe(text);
      expect((err as Error).message).toContain(JSON.stringify(text));
    }
  });
});

describe("matching Bash rules", () => {
  it("prefix rules match the command and its arguments at a word boundary", async () => {
    expect(await bash([["allow", "Bash(npm test:*)"]], "npm test")).toBe("allow");
    expect(await bash([["allow", "Bash(npm test:*)"]], "npm   test --watch")).toBe("allow");
    expect(await bash([["allow", "Bash(npm test:*)"]], "npm testx")).toBe("none");
  });

  it("exact rules match only that command", async () => {
    expect(await bash([["allow", "Bash(git status)"]], "git status")).toBe("allow");
    expect(await bash([["allow", "Bash(git status)"]], "git status --short")).toBe("none");
  });

  it("wildcard rules, with a single trailing * being optional", async () => {
    expect(await bash([["allow", "Bash(git *)"]], "git")).toBe("allow");
    expect(await bash([["allow", "Bash(git * main)"]], "git push origin main")).toBe("allow");
    expect(await bash([["allow", "Bash(git * main)"]], "git push origin dev")).toBe("none");
  });

  it("wildcard rules match exactly what the anchored `.*` regex of the pieces matches", () => {
    // Differential check against the definition: `a * b` means /^a .* b$/s (with `x *` also `x`).
    let seed = 7;
    const random = (n: number) => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      return seed % n;
    };
    const word = (len: number) => Array.from({ length: len }, () => "ab *"[random(4)]).join("");
    const escapeRegex = (t: string) => t.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
    for (let i = 0; i < 3000; i++) {
      const rule = word(1 + random(6))
        .replace(/\s+/g, " ")
        .trim();
      if (!rule.includes("*") || rule.includes(":*")) continue;
      const pattern = compileCommandPattern("r", rule);
      const parts = rule.split("*");
      const bare = parts.length === 2 && rule.endsWith(" *") ? parts[0].slice(0, -1) : undefined;
      const definition = new RegExp(`^${parts.map(escapeRegex).join(".*")}$`, "s");
      const command = word(random(9)).trim();
      const want = command === bare || definition.test(command);
      expect(commandMatches(pattern, command), `${rule} vs ${JSON.stringify(command)}`).toBe(want);
    }
  });

  it("a wildcard rule decides a huge hostile command in linear time (no regex backtracking)", () => {
    // With `^a.*b.*c.*d$` an 8,000-character command of a's took 1.65 s on the main thread.
    const pattern = compileCommandPattern("r", "a * a * a * d");
    const hostile = `a ${"a ".repeat(20_000)}x`;
    const t0 = performance.now();
    expect(commandMatches(pattern, hostile)).toBe(false);
    expect(performance.now() - t0).toBeLessThan(50);
  });

  it("a compound command is allowed only when every part is", async () => {
    expect(await bash([["allow", "Bash(npm test:*)"]], "npm test && rm -rf /")).toBe("none");
    expect(await bash([["allow", "Bash(npm test:*)"]], "npm test | tee log && npm test")).toBe("none");
    expect(
      await bash(
        [
          ["allow", "Bash(npm test:*)"],
          ["allow", "Bash(tee:*)"],
        ],
        "npm test | tee log",
      ),
    ).toBe("allow");
    expect(await bash([["allow", "Bash(echo:*)"]], "echo $(rm -rf /)")).toBe("none");
  });

  it("a compound command is denied when any part is, even behind wrappers or in subshells", async () => {
    expect(
      await bash(
        [
          ["deny", "Bash(rm:*)"],
          ["allow", "Bash"],
        ],
        "ls && (rm -rf /)",
      ),
    ).toBe("deny");
    expect(await bash([["deny", "Bash(rm:*)"]], "sudo rm -rf /")).toBe("deny");
    expect(await bash([["deny", "Bash(rm:*)"]], "FOO=1 rm x")).toBe("deny");
    expect(await bash([["deny", "Bash(curl:*)"]], 'echo "curl is fine in quotes"')).toBe("none");
  });

  it("deny beats ask beats allow", async () => {
    const all: Array<[PermissionBehavior, string]> = [
      ["allow", "Bash(git:*)"],
      ["ask", "Bash(git push:*)"],
      ["deny", "Bash(git push --force:*)"],
    ];
    expect(await bash(all, "git log")).toBe("allow");
    expect(await bash(all, "git push origin")).toBe("ask");
    expect(await bash(all, "git push --force origin")).toBe("deny");
  });

  it("allow rules never cover an unparseable line; a bare Bash rule does", async () => {
    expect(await bash([["allow", "Bash(echo:*)"]], 'echo "oops')).toBe("none");
    expect(await bash([["allow", "Bash"]], 'echo "oops')).toBe("allow");
  });
});

describe("read-only commands", () => {
  const ro = async (command: string) => {
    const split = await splitBashCommand(command);
    return split.ok && split.commands.every(isReadOnlyCommand);
  };
  it("accepts looking-only commands", async () => {
    for (const c of [
      "ls -la",
      "cat a | grep x | wc -l",
      "git status",
      "git log -n 3",
      "find . -name '*.ts'",
      "echo hi",
    ]) {
      expect(await ro(c), c).toBe(true);
    }
  });
  it("refuses writing, running or never-ending variants", async () => {
    for (const c of [
      "echo hi > f",
      "find . -delete",
      "find . -exec rm {} ;",
      "git push",
      "git branch -D x",
      "tail -f log",
      "sort -o f x",
      "PATH=/x ls",
      "rm x",
    ]) {
      expect(await ro(c), c).toBe(false);
    }
  });
});
