/**
 * Matches compiled rules against one tool call. Bash commands are matched part by part (see
 * bash-split): any part matching a deny or ask rule decides for the whole line, while allow rules
 * must cover every part. Path rules compare resolved paths, so a deny rule catches every spelling of
 * a path (symlinks included) and an allow rule only holds where the file really is.
 */
import path from "node:path";
import type { BashSplit, SimpleCommand } from "./bash-split.js";
import type { ResolvedPath } from "./path-scope.js";
import type { CommandPattern, PathPattern, PermissionRule } from "./rule-parse.js";
import { takesPathRule, toolsGovernedBy } from "./tool-kinds.js";
import type { PermissionBehavior } from "./types.js";

/** What the engine knows about a call when matching rules. */
export interface CallFacts {
  toolName: string;
  input: Record<string, unknown>;
  /** Present for Bash. */
  bash?: BashSplit;
  /** Present for file tools: the resolved paths the call touches. */
  paths?: ResolvedPath[];
  /** For file tools: whether every path is inside the allowed directories. */
  inScope: boolean;
}

/** The rules' verdict. For Bash, `partRules` says which parts allow rules cover when none decided. */
export type RuleVerdict =
  | { behavior: PermissionBehavior; rule: PermissionRule }
  | { behavior: "none"; partRules?: Array<PermissionRule | undefined> };

/** Programs that run the rest of their arguments as a command; stripped when looking for deny matches. */
const WRAPPERS = new Set([
  "sudo",
  "doas",
  "command",
  "exec",
  "nohup",
  "time",
  "nice",
  "env",
  "builtin",
  "xargs",
  "timeout",
  "stdbuf",
]);

/** Applies deny, then ask, then allow rules to a call; the first behaviour with a match decides. */
export function matchRules(rules: readonly PermissionRule[], facts: CallFacts): RuleVerdict {
  for (const behavior of ["deny", "ask"] as const) {
    const rule = rules.find((r) => r.behavior === behavior && ruleMatches(r, facts, "any"));
    if (rule) return { behavior, rule };
  }
  const allowRules = rules.filter((r) => r.behavior === "allow");
  if (facts.toolName === "Bash") return matchBashAllow(allowRules, facts);
  const rule = allowRules.find((r) => ruleMatches(r, facts, "all"));
  return rule ? { behavior: "allow", rule } : { behavior: "none" };
}

function matchBashAllow(allowRules: PermissionRule[], facts: CallFacts): RuleVerdict {
  const bare = allowRules.find((r) => r.value.toolName === "Bash" && r.specifier === undefined);
  if (bare) return { behavior: "allow", rule: bare };
  // An unparseable line, or one that may run code no part shows, is never allowed piecemeal: only a
  // bare `Bash` rule covers it.
  if (!facts.bash?.ok || facts.bash.opaque) return { behavior: "none" };
  const partRules = facts.bash.commands.map((cmd) =>
    allowRules.find((r) => r.specifier?.kind === "command" && commandMatches(r.specifier.pattern, cmd.text)),
  );
  if (partRules.length > 0 && partRules.every((r) => r !== undefined)) {
    return { behavior: "allow", rule: partRules[0]! };
  }
  return { behavior: "none", partRules };
}

/**
 * True when `rule` matches the call. `any`: one part or one path is enough (deny and ask);
 * `all`: every path must match where it really is (allow).
 */
export function ruleMatches(rule: PermissionRule, facts: CallFacts, need: "any" | "all"): boolean {
  const { toolName } = facts;
  const spec = rule.specifier;
  if (spec === undefined) {
    if (!toolNameMatches(rule.value.toolName, toolName)) return false;
    // A bare allow rule for a file tool still keeps it inside the allowed directories.
    return need === "any" || !takesPathRule(toolName) || facts.inScope;
  }
  switch (spec.kind) {
    case "command":
      return toolName === "Bash" && need === "any" && bashPartMatches(spec.pattern, facts.bash, facts.input);
    case "path": {
      const paths = facts.paths;
      if (!toolsGovernedBy(rule.value.toolName).includes(toolName) || !paths || paths.length === 0)
        return false;
      return need === "any"
        ? paths.some(
            (p) =>
              pathMatches(spec.pattern, p.lexical, "lexical") || pathMatches(spec.pattern, p.real, "real"),
          )
        : paths.every((p) => pathMatches(spec.pattern, p.real, "real"));
    }
    case "domain":
      return toolName === "WebFetch" && domainMatches(spec.domain, facts.input.url);
    case "field": {
      const value = facts.input[spec.field];
      return (
        toolName === rule.value.toolName && typeof value === "string" && commandMatches(spec.pattern, value)
      );
    }
  }
}

function toolNameMatches(ruleTool: string, toolName: string): boolean {
  if (ruleTool === toolName) return true;
  if (!ruleTool.startsWith("mcp__")) return false;
  // `mcp__server` and `mcp__server__*` cover every tool of that server.
  const server = ruleTool.endsWith("__*") ? ruleTool.slice(0, -3) : ruleTool;
  return server.split("__").length === 2 && toolName.startsWith(`${server}__`);
}

function bashPartMatches(
  pattern: CommandPattern,
  split: BashSplit | undefined,
  input: Record<string, unknown>,
): boolean {
  if (split?.ok)
    return split.commands.some((cmd) => commandForms(cmd).some((form) => commandMatches(pattern, form)));
  // Unparseable: test the whole line, so a deny rule still catches the obvious case.
  return (
    typeof input.command === "string" && commandMatches(pattern, input.command.trim().replace(/\s+/g, " "))
  );
}

/** The spellings a deny or ask rule is tried against: as written, without `VAR=`, without `sudo`-like wrappers. */
function commandForms(cmd: SimpleCommand): string[] {
  const argv = [...cmd.argv];
  while (argv.length > 0 && WRAPPERS.has(argv[0])) {
    argv.shift();
    while (
      argv.length > 0 &&
      (argv[0].startsWith("-") || /^\d+[smhd]?$/.test(argv[0]) || argv[0].includes("="))
    ) {
      argv.shift();
    }
  }
  return [cmd.text, cmd.commandText, argv.join(" ")];
}

/** True when a command line (one simple command) matches a pattern. */
export function commandMatches(pattern: CommandPattern, command: string): boolean {
  const text = command.trim();
  switch (pattern.type) {
    case "exact":
      return text === pattern.value;
    case "prefix":
      // `npm test:*` matches `npm test` and `npm test --watch`, never `npm testx`.
      return text === pattern.value || text.startsWith(`${pattern.value} `);
    case "wildcard":
      return text === pattern.bare || wildcardMatches(pattern.parts, text);
  }
}

/**
 * True when `text` is `parts[0]`, anything, `parts[1]`, anything, …, the last part. Each middle part is
 * placed at its leftmost fit, which leaves the most room for the rest, so one pass decides it.
 */
function wildcardMatches(parts: readonly string[], text: string): boolean {
  const first = parts[0] ?? "";
  const last = parts.length > 1 ? (parts[parts.length - 1] ?? "") : "";
  if (parts.length === 1) return text === first;
  if (text.length < first.length + last.length || !text.startsWith(first) || !text.endsWith(last)) {
    return false;
  }
  const end = text.length - last.length;
  let at = first.length;
  for (const part of parts.slice(1, -1)) {
    const found = text.indexOf(part, at);
    if (found === -1 || found + part.length > end) return false;
    at = found + part.length;
  }
  return true;
}

function pathMatches(pattern: PathPattern, target: string, form: "lexical" | "real"): boolean {
  const root = form === "lexical" ? pattern.rootLexical : pattern.rootReal;
  const rel = path.relative(root, target);
  if (rel === ".." || rel.startsWith(`..${path.sep}`) || path.isAbsolute(rel)) return false;
  return pattern.test(rel.split(path.sep).join("/"));
}

function domainMatches(domain: string, url: unknown): boolean {
  if (typeof url !== "string") return false;
  let host: string;
  try {
    host = new URL(url).hostname.toLowerCase();
  } catch {
    // Not a URL: WebFetch will reject it anyway, and no domain rule can be said to cover it.
    return false;
  }
  if (domain.startsWith("*.")) return host.endsWith(domain.slice(1)) || host === domain.slice(2);
  return host === domain;
}
