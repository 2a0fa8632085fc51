/**
 * Parses permission rules written in Claude Code's syntax (`Bash`, `Bash(npm run test:*)`,
 * `Read(./src/**)`, `Edit(//etc/**)`, `WebFetch(domain:example.com)`, `mcp__server__*`) into
 * compiled matchers. Anything that cannot be parsed throws a PermissionRuleError naming the rule, so
 * a bad rule is caught at start-up instead of silently never matching.
 */
import os from "node:os";
import path from "node:path";
import { picomatch } from "../tools/lazy-packages.js";
import { resolveToolPath } from "../tools/paths.js";
import { PermissionRuleError } from "./errors.js";
import { takesPathRule } from "./tool-kinds.js";
import type { PermissionBehavior, PermissionRuleValue, PermissionUpdateDestination } from "./types.js";

/** A shell-command pattern: `npm test:*` (prefix), `git *` (wildcard) or `git status` (exact). */
export type CommandPattern =
  | { type: "prefix"; value: string }
  | { type: "exact"; value: string }
  /**
   * `git * main`: the text is the literal `parts` in order with anything (`*`) between them. Matched
   * by a linear scan, never a regular expression: the text is the model's, and a `^a.*b.*c$` regex
   * backtracks in the cube of its length. `bare` is the text a lone trailing ` *` also accepts (`git`).
   */
  | { type: "wildcard"; parts: string[]; bare?: string };

/** A compiled path pattern: paths under `root` (lexical and real form) that match the glob. */
export interface PathPattern {
  rootLexical: string;
  rootReal: string;
  /** Tests a path relative to the root ("" means the root itself). */
  test: (relative: string) => boolean;
}

/** What a rule's parenthesised part says, once compiled. */
export type RuleSpecifier =
  | { kind: "command"; pattern: CommandPattern }
  | { kind: "path"; pattern: PathPattern }
  | { kind: "domain"; domain: string }
  | { kind: "field"; field: string; pattern: CommandPattern };

/** A parsed rule with its behaviour and where it came from. */
export interface PermissionRule {
  /** The rule as the user wrote it (normalised), used in messages. */
  text: string;
  value: PermissionRuleValue;
  behavior: PermissionBehavior;
  source: PermissionUpdateDestination;
  specifier?: RuleSpecifier;
}

/** Directories path rules are relative to: `./x` and `x` to cwd, `/x` to the project root. */
export interface RuleContext {
  cwd: string;
  projectRoot: string;
}

/** Input fields that non-file, non-shell tools match a specifier against: `Agent(Explore)`, `Skill(x)`. */
const FIELD_RULE_TOOLS: Readonly<Record<string, string>> = {
  Agent: "subagent_type",
  Task: "subagent_type",
  Skill: "skill",
};

const TOOL_NAME = /^[A-Za-z_][A-Za-z0-9_.-]*(\*)?$/;

/** Splits `Tool(content)` into its value; throws for anything else. */
export function parseRuleValue(text: string): PermissionRuleValue {
  const rule = text.trim();
  if (rule === "") throw new PermissionRuleError(text, "the rule is empty");
  const open = rule.indexOf("(");
  if (open === -1) {
    if (rule.includes(")")) throw new PermissionRuleError(text, "')' without a matching '('");
    checkToolName(text, rule);
    return { toolName: rule };
  }
  if (!rule.endsWith(")")) {
    throw new PermissionRuleError(text, "expected the rule to end with ')', as in Bash(npm test:*)");
  }
  const toolName = rule.slice(0, open).trim();
  checkToolName(text, toolName);
  const content = rule.slice(open + 1, -1).trim();
  if (content === "") {
    throw new PermissionRuleError(text, `empty parentheses; write ${toolName} to match every call`);
  }
  return { toolName, ruleContent: content };
}

function checkToolName(text: string, toolName: string): void {
  if (!TOOL_NAME.test(toolName)) {
    throw new PermissionRuleError(text, `${JSON.stringify(toolName)} is not a tool name`);
  }
  if (toolName.includes("*") && !toolName.startsWith("mcp__")) {
    throw new PermissionRuleError(text, "'*' in a tool name only works for MCP tools, as in mcp__server__*");
  }
}

/** Formats a rule value back to text: `{toolName:'Bash', ruleContent:'ls'}` → `Bash(ls)`. */
export function formatRule(value: PermissionRuleValue): string {
  return value.ruleContent === undefined ? value.toolName : `${value.toolName}(${value.ruleContent})`;
}

/** Parses and compiles one rule. Throws PermissionRuleError naming the rule when it cannot. */
export function compileRule(
  input: string | PermissionRuleValue,
  behavior: PermissionBehavior,
  source: PermissionUpdateDestination,
  ctx: RuleContext,
): PermissionRule {
  const value = typeof input === "string" ? parseRuleValue(input) : normaliseValue(input);
  const text = formatRule(value);
  const rule: PermissionRule = { text, value, behavior, source };
  if (value.ruleContent !== undefined) rule.specifier = compileSpecifier(text, value, ctx);
  return rule;
}

function normaliseValue(value: PermissionRuleValue): PermissionRuleValue {
  // Re-parse the formatted text so a value from a callback is held to the same syntax as a string.
  return parseRuleValue(formatRule(value));
}

function compileSpecifier(text: string, value: PermissionRuleValue, ctx: RuleContext): RuleSpecifier {
  const { toolName } = value;
  const content = value.ruleContent!;
  if (toolName === "Bash") return { kind: "command", pattern: compileCommandPattern(text, content) };
  if (takesPathRule(toolName)) return { kind: "path", pattern: compilePathPattern(text, content, ctx) };
  if (toolName === "WebFetch") {
    const match = /^domain:(\S+)$/.exec(content);
    if (!match) throw new PermissionRuleError(text, "WebFetch rules look like WebFetch(domain:example.com)");
    return { kind: "domain", domain: match[1].toLowerCase() };
  }
  const field = FIELD_RULE_TOOLS[toolName];
  if (field) return { kind: "field", field, pattern: compileCommandPattern(text, content) };
  if (toolName.startsWith("mcp__")) {
    throw new PermissionRuleError(
      text,
      "MCP rules take no parentheses; write mcp__server__tool or mcp__server__*",
    );
  }
  throw new PermissionRuleError(
    text,
    `${toolName} rules take no specifier (only Bash, file tools, WebFetch, Agent and Skill do); write ${toolName} to match every call`,
  );
}

/** Compiles `npm test:*` (prefix), `git * main` (wildcard) or `git status` (exact). */
export function compileCommandPattern(text: string, content: string): CommandPattern {
  const colonStar = content.indexOf(":*");
  if (colonStar !== -1) {
    const value = content.slice(0, colonStar).trim();
    if (colonStar !== content.length - 2 || value.includes("*")) {
      throw new PermissionRuleError(text, "':*' only works once, at the end, as in Bash(npm run test:*)");
    }
    if (value === "") throw new PermissionRuleError(text, "nothing before ':*'");
    return { type: "prefix", value: collapseSpaces(value) };
  }
  const normalised = collapseSpaces(content);
  if (!normalised.includes("*")) return { type: "exact", value: normalised };
  const parts = normalised.split("*");
  // `git *` also matches a bare `git`: a single trailing wildcard after a space is optional.
  if (parts.length === 2 && normalised.endsWith(" *")) {
    return { type: "wildcard", parts, bare: parts[0].slice(0, -1) };
  }
  return { type: "wildcard", parts };
}

function compilePathPattern(text: string, content: string, ctx: RuleContext): PathPattern {
  let root: string;
  let glob: string;
  let anchored = true;
  if (content.startsWith("//")) [root, glob] = ["/", content.slice(2)];
  else if (content === "~" || content.startsWith("~/")) [root, glob] = [os.homedir(), content.slice(2)];
  else if (content.startsWith("/")) [root, glob] = [ctx.projectRoot, content.slice(1)];
  else if (content.startsWith("./")) [root, glob] = [ctx.cwd, content.slice(2)];
  else {
    [root, glob] = [ctx.cwd, content];
    // gitignore: a pattern with no slash (other than a trailing one) matches at any depth.
    anchored = glob.replace(/\/+$/, "").includes("/");
  }
  if (glob.endsWith("/")) glob += "**";
  // A leading static part (possibly with `..`) moves the root, so `../other/**` is anchored there.
  const scan = picomatch().scan(glob);
  if (anchored && scan.base !== "") {
    root = path.resolve(root, scan.base);
    glob = scan.isGlob ? scan.glob : "";
  } else if (glob.split("/").includes("..")) {
    throw new PermissionRuleError(text, "'..' may only appear before the first wildcard");
  }
  let matchers: Array<(p: string) => boolean>;
  try {
    const opts = { dot: true, strictBrackets: true };
    const full = anchored ? glob : `**/${glob}`;
    matchers = full === "" ? [] : [picomatch()(full, opts), picomatch()(`${full}/**`, opts)];
  } catch (err) {
    throw new PermissionRuleError(text, `bad glob: ${(err as Error).message}`);
  }
  const rootLexical = path.resolve(root);
  // An empty glob names the root itself and everything beneath it; `dir/**` also covers `dir`.
  const coversRoot = glob === "" || glob === "**";
  return {
    rootLexical,
    rootReal: resolveToolPath(rootLexical, "/"),
    test: (relative) =>
      relative === "" ? coversRoot : matchers.length === 0 || matchers.some((m) => m(relative)),
  };
}

function collapseSpaces(s: string): string {
  return s.trim().replace(/\s+/g, " ");
}
