/**
 * Command-line arguments of `goat`: Claude Code's flag names, parsed with `node:util` `parseArgs`
 * (no dependency, nothing to load). Every mistake is a `UsageError` whose one-line message says what
 * to fix.
 */
import { parseArgs } from "node:util";
import { GoatError } from "../errors.js";

/** A mistake in the command line: printed as one line, exit status 1. */
export class UsageError extends GoatError {
  override name = "UsageError";
  override readonly code: string = "usage";
}

/** Output formats of print mode. */
export type OutputFormat = "text" | "json" | "stream-json";
/** Input formats of print mode. */
export type InputFormat = "text" | "stream-json";

const PERMISSION_MODES = ["default", "acceptEdits", "plan", "bypassPermissions", "dontAsk"] as const;
/** A permission mode name as the flag takes it. */
export type CliPermissionMode = (typeof PERMISSION_MODES)[number];

/** The parsed command line. */
export interface CliArgs {
  print: boolean;
  /** The positional prompt, when given. */
  prompt?: string;
  outputFormat: OutputFormat;
  inputFormat: InputFormat;
  includePartialMessages: boolean;
  verbose: boolean;
  model?: string;
  fallbackModel?: string;
  maxTurns?: number;
  maxBudgetUsd?: number;
  permissionMode?: CliPermissionMode;
  /** `--permission-prompt-tool stdio`: permission questions go to the stream-json host as control requests. */
  permissionPromptTool?: "stdio";
  allowedTools: string[];
  disallowedTools: string[];
  systemPrompt?: string;
  appendSystemPrompt?: string;
  cwd?: string;
  addDirs: string[];
  resume?: string;
  continue: boolean;
  forkSession: boolean;
  persistSession: boolean;
  settings?: string;
  /** `--setting-sources user,project,local`: which settings files to read (all when absent, none when empty). */
  settingSources?: string[];
  /** `--mcp-config` values in order: file paths or inline JSON. */
  mcpConfig: string[];
  strictMcpConfig: boolean;
  /** The raw `--agents` JSON (parsed with the rest of the configuration). */
  agents?: string;
  debug: boolean;
  version: boolean;
  help: boolean;
}

const OPTIONS = {
  print: { type: "boolean", short: "p" },
  "output-format": { type: "string" },
  "input-format": { type: "string" },
  "include-partial-messages": { type: "boolean" },
  verbose: { type: "boolean" },
  model: { type: "string" },
  "fallback-model": { type: "string" },
  "max-turns": { type: "string" },
  "max-budget-usd": { type: "string" },
  "permission-mode": { type: "string" },
  "permission-prompt-tool": { type: "string" },
  allowedTools: { type: "string", multiple: true },
  "allowed-tools": { type: "string", multiple: true },
  disallowedTools: { type: "string", multiple: true },
  "disallowed-tools": { type: "string", multiple: true },
  "system-prompt": { type: "string" },
  "append-system-prompt": { type: "string" },
  cwd: { type: "string" },
  "add-dir": { type: "string", multiple: true },
  resume: { type: "string", short: "r" },
  continue: { type: "boolean", short: "c" },
  "fork-session": { type: "boolean" },
  "no-session-persistence": { type: "boolean" },
  settings: { type: "string" },
  "setting-sources": { type: "string" },
  "mcp-config": { type: "string", multiple: true },
  "strict-mcp-config": { type: "boolean" },
  agents: { type: "string" },
  debug: { type: "boolean" },
  version: { type: "boolean", short: "v" },
  help: { type: "boolean", short: "h" },
} as const;

/** Parses `argv` (without node and the script). Throws `UsageError` for anything it cannot accept. */
export function parseCliArgs(argv: string[]): CliArgs {
  let parsed: ReturnType<typeof parseArgs<{ options: typeof OPTIONS; allowPositionals: true; strict: true }>>;
  try {
    parsed = parseArgs({ args: argv, options: OPTIONS, allowPositionals: true, strict: true });
  } catch (error) {
    throw new UsageError(explainParseError(error, argv));
  }
  const v = parsed.values;
  if (parsed.positionals.length > 1) {
    throw new UsageError(
      `expected one prompt but got ${parsed.positionals.length} words; quote the prompt: goat -p "${parsed.positionals.join(" ")}"`,
    );
  }
  const args: CliArgs = {
    print: v.print === true,
    prompt: parsed.positionals[0],
    outputFormat: oneOf("--output-format", v["output-format"], ["text", "json", "stream-json"], "text"),
    inputFormat: oneOf("--input-format", v["input-format"], ["text", "stream-json"], "text"),
    includePartialMessages: v["include-partial-messages"] === true,
    verbose: v.verbose === true,
    model: nonEmpty("--model", v.model),
    fallbackModel: nonEmpty("--fallback-model", v["fallback-model"]),
    maxTurns: positiveInt("--max-turns", v["max-turns"]),
    maxBudgetUsd: positiveNumber("--max-budget-usd", v["max-budget-usd"]),
    permissionMode:
      v["permission-mode"] === undefined
        ? undefined
        : oneOf("--permission-mode", v["permission-mode"], PERMISSION_MODES, "default"),
    permissionPromptTool: permissionPromptTool(v["permission-prompt-tool"]),
    allowedTools: splitToolLists([...(v.allowedTools ?? []), ...(v["allowed-tools"] ?? [])]),
    disallowedTools: splitToolLists([...(v.disallowedTools ?? []), ...(v["disallowed-tools"] ?? [])]),
    systemPrompt: v["system-prompt"],
    appendSystemPrompt: v["append-system-prompt"],
    cwd: nonEmpty("--cwd", v.cwd),
    addDirs: v["add-dir"] ?? [],
    resume: nonEmpty("--resume", v.resume),
    continue: v.continue === true,
    forkSession: v["fork-session"] === true,
    persistSession: v["no-session-persistence"] !== true,
    settings: nonEmpty("--settings", v.settings),
    settingSources: settingSources(v["setting-sources"]),
    mcpConfig: (v["mcp-config"] ?? []).map((value) => nonEmpty("--mcp-config", value) as string),
    strictMcpConfig: v["strict-mcp-config"] === true,
    agents: nonEmpty("--agents", v.agents),
    debug: v.debug === true,
    version: v.version === true,
    help: v.help === true,
  };
  if (args.prompt !== undefined && args.prompt.trim() === "") {
    throw new UsageError(
      'the prompt is empty: give one (goat -p "…"), or pipe it on stdin without a prompt argument',
    );
  }
  if (args.resume !== undefined && args.continue) {
    throw new UsageError("--resume and --continue both pick a session to resume; use one of them");
  }
  if (args.forkSession && args.resume === undefined && !args.continue) {
    throw new UsageError("--fork-session needs --resume ID or --continue to say which session to fork");
  }
  if (args.inputFormat === "stream-json" && args.outputFormat !== "stream-json") {
    throw new UsageError("--input-format stream-json needs --output-format stream-json");
  }
  if (args.permissionPromptTool !== undefined && args.inputFormat !== "stream-json") {
    throw new UsageError(
      "--permission-prompt-tool stdio needs --input-format stream-json (the answers come on stdin)",
    );
  }
  if (args.includePartialMessages && args.outputFormat !== "stream-json") {
    throw new UsageError("--include-partial-messages needs --output-format stream-json");
  }
  return args;
}

/**
 * Splits tool rule lists given as `"Read,Grep"`, `"Read Grep"` or repeated flags. A comma or space
 * inside parentheses belongs to the rule (`Bash(git diff:*)`), so only top-level separators split.
 */
export function splitToolLists(values: string[]): string[] {
  const out: string[] = [];
  for (const value of values) {
    let depth = 0;
    let current = "";
    for (const ch of value) {
      if (ch === "(") depth++;
      else if (ch === ")") depth = Math.max(0, depth - 1);
      if (depth === 0 && (ch === "," || /\s/.test(ch))) {
        if (current) out.push(current);
        current = "";
      } else current += ch;
    }
    if (current) out.push(current);
  }
  return out;
}

function explainParseError(error: unknown, argv: string[]): string {
  const message = error instanceof Error ? error.message : String(error);
  const unknown = /Unknown option '([^']+)'/.exec(message);
  if (unknown) return `unknown option ${unknown[1]}; see goat --help for the flags`;
  const missing = /Option '([^']+?)(?: <value>)?' argument missing/.exec(message);
  if (missing) return `${missing[1].split(", ").pop()} needs a value`;
  // `--max-budget-usd -1`, `-r -p hi`: the value the flag takes starts with "-", so it reads as a flag.
  const ambiguous = /Option '([^']+?)(?: <value>)?' argument is ambiguous/.exec(message);
  if (ambiguous) {
    const given = ambiguous[1].split(", ").pop() ?? ambiguous[1];
    const flag = longName(given);
    const next = argv[argv.indexOf(given) + 1] ?? "";
    if (/^-[\d.]/.test(next))
      return `${flag} needs a value, and "${next}" starts with "-" so it reads as a flag; write ${flag}=${next} to pass it as the value`;
    return `${flag} needs a value, but the next argument "${next}" is a flag; put the value right after ${flag}`;
  }
  return `${message.split("\n")[0]}; see goat --help`;
}

/** `--resume` for `-r`; long names as they are. */
function longName(flag: string): string {
  if (flag.startsWith("--")) return flag;
  const short = flag.slice(1);
  const entry = Object.entries(OPTIONS).find(([, o]) => (o as { short?: string }).short === short);
  return entry ? `--${entry[0]}` : flag;
}

function oneOf<T extends string>(
  flag: string,
  value: string | undefined,
  allowed: readonly T[],
  fallback: T,
): T {
  if (value === undefined) return fallback;
  if ((allowed as readonly string[]).includes(value)) return value as T;
  throw new UsageError(`${flag} must be one of ${allowed.join(", ")} (got "${value}")`);
}

function permissionPromptTool(value: string | undefined): "stdio" | undefined {
  if (value === undefined) return undefined;
  if (value === "stdio") return value;
  throw new UsageError(
    `--permission-prompt-tool supports only "stdio" (control requests on stdout, answers on stdin); got "${value}"`,
  );
}

function nonEmpty(flag: string, value: string | undefined): string | undefined {
  if (value !== undefined && value.trim() === "") throw new UsageError(`${flag} needs a non-empty value`);
  return value;
}

function positiveInt(flag: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1)
    throw new UsageError(`${flag} must be a whole number ≥ 1 (got "${value}")`);
  return n;
}

function positiveNumber(flag: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0) throw new UsageError(`${flag} must be a number > 0 (got "${value}")`);
  return n;
}

/** Claude Code's `--setting-sources`: a comma list of user, project and local (the SDK passes it, often empty). */
function settingSources(value: string | undefined): string[] | undefined {
  if (value === undefined) return undefined;
  const sources = value
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s !== "");
  for (const source of sources) {
    if (!["user", "project", "local"].includes(source)) {
      throw new UsageError(
        `--setting-sources takes user, project and local (comma separated), not "${source}"`,
      );
    }
  }
  return sources;
}
