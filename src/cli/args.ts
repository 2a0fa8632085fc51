/**
 * Command-line arguments of `goat`: Claude Code's flag names, parsed with `node:util` `parseArgs`
 * (no dependency, nothing to load). Every mistake is a `UsageError` whose one-line message says what
 * to fix.
 */
import { parseArgs } from "node:util";
import { GoatError } from "../errors.js";
import { closestFlag, setAsideUnknownFlags } from "./unknown-flags.js";

/** A mistake in the command line: printed as one line, exit status 1. */
export class UsageError extends GoatError {
  override name = "UsageError";
  override readonly code: string = "usage";
}

/** Output formats of print mode. */
type OutputFormat = "text" | "json" | "stream-json";
/** Input formats of print mode. */
type InputFormat = "text" | "stream-json";

const PERMISSION_MODES = ["default", "acceptEdits", "plan", "bypassPermissions", "dontAsk"] as const;
/** A permission mode name as the flag takes it. */
type CliPermissionMode = (typeof PERMISSION_MODES)[number];

/** `--thinking`: adaptive (the model decides), enabled (a budget), or off. */
type CliThinking = "adaptive" | "enabled" | "disabled";

const EFFORTS = ["low", "medium", "high", "xhigh", "max"] as const;

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
  /** `--small-fast-model`: the model that answers WebFetch's questions about a page. */
  smallFastModel?: string;
  /** `--web-search`: the search backend that makes WebSearch available (`searxng:URL`, `brave`). */
  webSearch?: string;
  maxTurns?: number;
  maxBudgetUsd?: number;
  permissionMode?: CliPermissionMode;
  /** `--permission-prompt-tool stdio`: permission questions go to the stream-json host as control requests. */
  permissionPromptTool?: "stdio";
  /** `--permission-prompt-tool NAME` (not stdio): a tool of the session, usually MCP, answers them. */
  permissionPromptToolName?: string;
  /** `--permission-prompts none`: a call that would ask is denied at once (the host is never asked). */
  permissionPrompts?: "host" | "none";
  /** `--allow-dangerously-skip-permissions`: `bypassPermissions` may be switched to later. */
  allowDangerouslySkipPermissions: boolean;
  /** `--tools`: the base set of built-in tools (`[]`: none), or `"default"`. */
  tools?: string[] | "default";
  /** `--thinking`. */
  thinking?: CliThinking;
  /** `--max-thinking-tokens`: a thinking budget (0: off). */
  maxThinkingTokens?: number;
  /** `--betas a,b`: Anthropic beta features, sent as the `anthropic-beta` header. */
  betas: string[];
  /** `--thinking-display`: summarized or omitted thinking text, as Anthropic's `thinking.display`. */
  thinkingDisplay?: "summarized" | "omitted";
  /** `--effort`. */
  effort?: (typeof EFFORTS)[number];
  /** `--json-schema`: the final answer must be JSON matching this schema. */
  jsonSchema?: Record<string, unknown>;
  /** `--agent NAME`: the main thread runs as this subagent (its prompt, tools and model). */
  agent?: string;
  /** `--session-id`: the id of a new session. */
  sessionId?: string;
  /** `--resume-session-at UUID`: resume from this message instead of the latest. */
  resumeSessionAt?: string;
  /** `--include-hook-events`: hook started / response system messages on the stream. */
  includeHookEvents: boolean;
  /** `--debug-file PATH`: the debug trace goes to this file. */
  debugFile?: string;
  /** `--system-prompt-file PATH`. */
  systemPromptFile?: string;
  /** `--managed-settings JSON`: policy settings from the embedding program (restrictive-only). */
  managedSettings?: Record<string, unknown>;
  /** `--managed-settings-in-initialize`: the policy settings come in the host's `initialize` instead. */
  managedSettingsInInitialize: boolean;
  /** `--session-mirror`: each transcript append is also sent to the SDK host's `sessionStore`. */
  sessionMirror: boolean;
  /**
   * `--replay-user-messages`: each user message read from stdin is written back on stdout (same uuid,
   * `isReplay: true`) as its turn starts, so a host knows which result answers which of its messages.
   */
  replayUserMessages: boolean;
  /**
   * Flags accepted without effect: known Claude Code flags Goat has no counterpart for, and (under an
   * SDK) unknown ones. The program reports them in one warning line.
   */
  ignoredFlags: string[];
  allowedTools: string[];
  disallowedTools: string[];
  systemPrompt?: string;
  appendSystemPrompt?: string;
  cwd?: string;
  addDirs: string[];
  /** `--sandbox`: run Bash commands in the OS sandbox (merged over the settings' `sandbox`). */
  sandbox: boolean;
  resume?: string;
  continue: boolean;
  forkSession: boolean;
  persistSession: boolean;
  settings?: string;
  /** `--setting-sources user,project,local`: which settings files to read (all when absent, none when empty). */
  settingSources?: string[];
  /** `--mcp-config` values in order: file paths or inline JSON. */
  mcpConfig: string[];
  /** `--plugin-dir` (and `--plugin-dir-no-mcp`, without the plugin's MCP servers) folders, in order. */
  plugins: Array<{ type: "local"; path: string; skipMcpDiscovery?: boolean }>;
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
  "replay-user-messages": { type: "boolean" },
  verbose: { type: "boolean" },
  model: { type: "string" },
  "fallback-model": { type: "string" },
  "small-fast-model": { type: "string" },
  "web-search": { type: "string" },
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
  sandbox: { type: "boolean" },
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
  "debug-file": { type: "string" },
  // Claude Code plugin folders (the Agent SDK's plugins option arrives as one flag per plugin).
  "plugin-dir": { type: "string", multiple: true },
  "plugin-dir-no-mcp": { type: "string", multiple: true },
  version: { type: "boolean", short: "v" },
  help: { type: "boolean", short: "h" },
  // Flags the Claude Agent SDKs pass (TypeScript sdk.mjs, Python subprocess_cli.py).
  "permission-prompts": { type: "string" },
  "allow-dangerously-skip-permissions": { type: "boolean" },
  "dangerously-skip-permissions": { type: "boolean" },
  tools: { type: "string" },
  thinking: { type: "string" },
  "max-thinking-tokens": { type: "string" },
  effort: { type: "string" },
  "json-schema": { type: "string" },
  agent: { type: "string" },
  "session-id": { type: "string" },
  "resume-session-at": { type: "string" },
  "include-hook-events": { type: "boolean" },
  "system-prompt-file": { type: "string" },
  // Goat always reads initialize before the first turn, and applies what it can of it.
  "await-initialize": { type: "boolean" },
  "initialize-fields": { type: "string" },
  "thinking-display": { type: "string" },
  betas: { type: "string", multiple: true },
  // The Agent SDK's sessionStore: transcript entries also go to the host (session-mirror.ts).
  "session-mirror": { type: "boolean" },
  // Accepted without effect (see IGNORED).
  "task-budget": { type: "string" },
  channels: { type: "string", multiple: true },
  "project-config-root": { type: "string" },
  "resume-drops-turn": { type: "string" },
  // Policy settings from the embedding program (the Agent SDK's managedSettings), applied restrictive-only.
  "managed-settings": { type: "string" },
  "managed-settings-in-initialize": { type: "boolean" },
} as const;

/**
 * Claude Code flags with no counterpart in Goat, and why: accepted, reported once, never fatal.
 */
const IGNORED_FLAGS: Readonly<Record<string, string>> = {
  "task-budget": "an Anthropic API beta",
  channels: "Claude Code channels",
  "project-config-root": "project settings are read from the working directory",
  "resume-drops-turn": "a Claude Code resume check",
};

const KNOWN_FLAGS: ReadonlySet<string> = new Set(Object.keys(OPTIONS));
/** The flags that take no value. */
const SWITCHES: ReadonlySet<string> = new Set(
  Object.entries(OPTIONS)
    .filter(([, spec]) => spec.type === "boolean")
    .map(([name]) => name),
);

/** Whether the command line asks for stream-json input: the Agent SDKs always do. */
function underSdk(argv: string[]): boolean {
  return argv.some(
    (w, i) => w === "--input-format=stream-json" || (w === "--input-format" && argv[i + 1] === "stream-json"),
  );
}

/**
 * The plugin folders of `--plugin-dir` then `--plugin-dir-no-mcp`. (Claude Code keeps the two flags'
 * order on the command line; Goat reads all plugins before starting, so their order only decides
 * which of two plugins of one name loads.)
 */
function pluginDirs(withMcp: string[] | undefined, withoutMcp: string[] | undefined): CliArgs["plugins"] {
  return [
    ...(withMcp ?? []).map((path) => ({
      type: "local" as const,
      path: nonEmpty("--plugin-dir", path) as string,
    })),
    ...(withoutMcp ?? []).map((path) => ({
      type: "local" as const,
      path: nonEmpty("--plugin-dir-no-mcp", path) as string,
      skipMcpDiscovery: true,
    })),
  ];
}

/** Parses `argv` (without node and the script). Throws `UsageError` for anything it cannot accept. */
export function parseCliArgs(argv: string[]): CliArgs {
  // Under an SDK an unknown flag is set aside (reported once); a person gets an error and a suggestion.
  const setAside = underSdk(argv) ? setAsideUnknownFlags(argv, KNOWN_FLAGS, SWITCHES) : { argv, unknown: [] };
  let parsed: ReturnType<typeof parseArgs<{ options: typeof OPTIONS; allowPositionals: true; strict: true }>>;
  try {
    parsed = parseArgs({ args: setAside.argv, options: OPTIONS, allowPositionals: true, strict: true });
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
    smallFastModel: nonEmpty("--small-fast-model", v["small-fast-model"]),
    webSearch: nonEmpty("--web-search", v["web-search"]),
    maxTurns: positiveInt("--max-turns", v["max-turns"]),
    maxBudgetUsd: positiveNumber("--max-budget-usd", v["max-budget-usd"]),
    permissionMode:
      v["permission-mode"] === undefined
        ? undefined
        : oneOf("--permission-mode", v["permission-mode"], PERMISSION_MODES, "default"),
    permissionPromptTool: v["permission-prompt-tool"] === "stdio" ? "stdio" : undefined,
    permissionPromptToolName:
      v["permission-prompt-tool"] === "stdio"
        ? undefined
        : nonEmpty("--permission-prompt-tool", v["permission-prompt-tool"]),
    permissionPrompts:
      v["permission-prompts"] === undefined
        ? undefined
        : oneOf("--permission-prompts", v["permission-prompts"], ["host", "none"] as const, "host"),
    allowDangerouslySkipPermissions:
      v["allow-dangerously-skip-permissions"] === true || v["dangerously-skip-permissions"] === true,
    tools: toolsFlag(v.tools),
    thinking:
      v.thinking === undefined
        ? undefined
        : oneOf<CliThinking>("--thinking", v.thinking, ["adaptive", "enabled", "disabled"], "adaptive"),
    maxThinkingTokens: wholeNumber("--max-thinking-tokens", v["max-thinking-tokens"]),
    thinkingDisplay: thinkingDisplay(v["thinking-display"]),
    betas: (v.betas ?? []).flatMap((list) => list.split(",").map((b) => b.trim())).filter((b) => b !== ""),
    effort: v.effort === undefined ? undefined : oneOf("--effort", v.effort, EFFORTS, "medium"),
    jsonSchema: jsonObject("--json-schema", v["json-schema"]),
    agent: nonEmpty("--agent", v.agent),
    sessionId: nonEmpty("--session-id", v["session-id"]),
    resumeSessionAt: nonEmpty("--resume-session-at", v["resume-session-at"]),
    includeHookEvents: v["include-hook-events"] === true,
    debugFile: nonEmpty("--debug-file", v["debug-file"]),
    systemPromptFile: nonEmpty("--system-prompt-file", v["system-prompt-file"]),
    managedSettings: jsonObject("--managed-settings", v["managed-settings"]),
    managedSettingsInInitialize: v["managed-settings-in-initialize"] === true,
    sessionMirror: v["session-mirror"] === true,
    replayUserMessages: v["replay-user-messages"] === true,
    ignoredFlags: [
      ...Object.keys(IGNORED_FLAGS)
        .filter((name) => v[name as keyof typeof v] !== undefined)
        .map((name) => `--${name}`),
      ...setAside.unknown,
    ],
    allowedTools: splitToolLists([...(v.allowedTools ?? []), ...(v["allowed-tools"] ?? [])]),
    disallowedTools: splitToolLists([...(v.disallowedTools ?? []), ...(v["disallowed-tools"] ?? [])]),
    systemPrompt: v["system-prompt"],
    appendSystemPrompt: v["append-system-prompt"],
    cwd: nonEmpty("--cwd", v.cwd),
    addDirs: v["add-dir"] ?? [],
    sandbox: v.sandbox === true,
    resume: nonEmpty("--resume", v.resume),
    continue: v.continue === true,
    forkSession: v["fork-session"] === true,
    persistSession: v["no-session-persistence"] !== true,
    settings: nonEmpty("--settings", v.settings),
    settingSources: settingSources(v["setting-sources"]),
    mcpConfig: (v["mcp-config"] ?? []).map((value) => nonEmpty("--mcp-config", value) as string),
    plugins: pluginDirs(v["plugin-dir"], v["plugin-dir-no-mcp"]),
    strictMcpConfig: v["strict-mcp-config"] === true,
    agents: nonEmpty("--agents", v.agents),
    debug: v.debug === true || v["debug-file"] !== undefined,
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
  if (v["dangerously-skip-permissions"] === true) {
    if (args.permissionMode !== undefined && args.permissionMode !== "bypassPermissions") {
      throw new UsageError(
        `--dangerously-skip-permissions means --permission-mode bypassPermissions, not ${args.permissionMode}; give one of them`,
      );
    }
    args.permissionMode = "bypassPermissions";
  }
  if (v["thinking-display"] === "highlights") {
    // Anthropic accepts highlights only from the sessions it hosts.
    args.ignoredFlags.push("--thinking-display highlights");
  }
  if (args.systemPrompt !== undefined && args.systemPromptFile !== undefined) {
    throw new UsageError("--system-prompt and --system-prompt-file both set the prompt; give one of them");
  }
  if (args.permissionPromptTool !== undefined && args.inputFormat !== "stream-json") {
    throw new UsageError(
      "--permission-prompt-tool stdio needs --input-format stream-json (the answers come on stdin)",
    );
  }
  if (args.replayUserMessages && args.inputFormat !== "stream-json") {
    throw new UsageError(
      "--replay-user-messages needs --input-format stream-json (it echoes the user messages read on stdin)",
    );
  }
  if (args.includePartialMessages && args.outputFormat !== "stream-json") {
    throw new UsageError("--include-partial-messages needs --output-format stream-json");
  }
  return args;
}

/** `--thinking-display`: what Anthropic's `thinking.display` takes; `highlights` is set aside by the caller. */
function thinkingDisplay(value: string | undefined): CliArgs["thinkingDisplay"] {
  if (value === undefined || value === "highlights") return undefined;
  return oneOf("--thinking-display", value, ["summarized", "omitted"] as const, "summarized");
}

/**
 * Splits tool rule lists given as `"Read,Grep"`, `"Read Grep"` or repeated flags. A comma or space
 * inside parentheses belongs to the rule (`Bash(git diff:*)`), so only top-level separators split.
 */
function splitToolLists(values: string[]): string[] {
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
  if (unknown) {
    const flag = unknown[1].split("=")[0];
    const near = flag.startsWith("--") ? closestFlag(flag, KNOWN_FLAGS) : undefined;
    return `unknown option ${flag}${near ? `; did you mean ${near}?` : ""} (see goat --help for the flags)`;
  }
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

function wholeNumber(flag: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (value.trim() === "" || !Number.isInteger(n) || n < 0)
    throw new UsageError(`${flag} must be a whole number ≥ 0 (got "${value}")`);
  return n;
}

/** `--tools`: a comma list of tool names, `""` for none, `default` for the default set. */
function toolsFlag(value: string | undefined): string[] | "default" | undefined {
  if (value === undefined) return undefined;
  if (value.trim() === "default") return "default";
  return splitToolLists([value]);
}

/** A flag whose value is a JSON object (a schema). */
function jsonObject(flag: string, value: string | undefined): Record<string, unknown> | undefined {
  if (value === undefined) return undefined;
  let json: unknown;
  try {
    json = JSON.parse(value);
  } catch (error) {
    throw new UsageError(`${flag} must be a JSON object: ${(error as Error).message}`);
  }
  if (json === null || typeof json !== "object" || Array.isArray(json)) {
    throw new UsageError(`${flag} must be a JSON object (a JSON Schema), not ${JSON.stringify(json)}`);
  }
  return json as Record<string, unknown>;
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
