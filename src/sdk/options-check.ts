/**
 * Checks `query()` options before anything starts. Code ported from the Claude Agent SDK must never
 * run and quietly do something else, so:
 * - an option of the SDK's `Options` that Goat does not implement is refused with an error naming it,
 *   unless ignoring it is harmless (it only concerns the SDK's CLI subprocess, or only adds
 *   optional messages), in which case the query starts with one warning saying it was ignored;
 * - an option nobody knows (a typo) is refused, with the nearest known name suggested;
 * - a known option of the wrong type or range is refused in one line saying what it expects.
 */
import { statSync } from "node:fs";
import { InvalidOptionError } from "../errors.js";
import type { ContentBlock } from "../llm/types.js";
import type { QueryOptions } from "./options.js";

/** A `query()` option that cannot be used (defined with the other shared errors in `src/errors.ts`). */
export { InvalidOptionError };

/** Returns what the option expects when `value` does not fit, else undefined. */
type Check = (value: unknown, options: QueryOptions) => string | undefined;

const PERMISSION_MODES = ["default", "acceptEdits", "plan", "bypassPermissions", "dontAsk"];

const isObject = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === "object" && !Array.isArray(v);
const string: Check = (v) => (typeof v === "string" && v.trim() !== "" ? undefined : "a non-empty string");
const anyString: Check = (v) => (typeof v === "string" ? undefined : "a string");
const boolean: Check = (v) => (typeof v === "boolean" ? undefined : "true or false");
const fn: Check = (v) => (typeof v === "function" ? undefined : "a function");
const object: Check = (v) => (isObject(v) ? undefined : "an object");
const stringList: Check = (v) =>
  Array.isArray(v) && v.every((x) => typeof x === "string") ? undefined : "an array of strings";
const wholeNumber =
  (min: number): Check =>
  (v) =>
    typeof v === "number" && Number.isInteger(v) && v >= min ? undefined : `a whole number ≥ ${min}`;
const positiveNumber: Check = (v) =>
  typeof v === "number" && Number.isFinite(v) && v > 0 ? undefined : "a number greater than 0";
const oneOf =
  (values: readonly string[]): Check =>
  (v) =>
    typeof v === "string" && values.includes(v) ? undefined : `one of ${values.map(quote).join(", ")}`;

const directory: Check = (v) => {
  if (typeof v !== "string" || v === "") return "the path of an existing directory";
  try {
    if (statSync(v).isDirectory()) return undefined;
    return "the path of an existing directory (this path is a file)";
  } catch {
    return "the path of an existing directory (nothing exists at this path)";
  }
};

const tools: Check = (v) => {
  if (isObject(v)) {
    return v.type === "preset" && (v.preset === "claude_code" || v.preset === "goat")
      ? undefined
      : `{ type: "preset", preset: "claude_code" } or an array of tool names and tools`;
  }
  if (!Array.isArray(v))
    return `an array of tool names and tools, or { type: "preset", preset: "claude_code" }`;
  const bad = v.find((t) => typeof t !== "string" && !(isObject(t) && typeof t.name === "string"));
  return bad === undefined ? undefined : "an array of tool names (strings) and tools made with defineTool";
};

const systemPrompt: Check = (v) => {
  if (typeof v === "string") return undefined;
  if (isObject(v) && v.type === "preset" && (v.preset === "claude_code" || v.preset === "goat")) {
    return v.append === undefined || typeof v.append === "string" ? undefined : "append to be a string";
  }
  return `a string, or { type: "preset", preset: "claude_code" | "goat", append?: string }`;
};

const stopWhen: Check = (v) =>
  typeof v === "function" || (Array.isArray(v) && v.every((f) => typeof f === "function"))
    ? undefined
    : "a stop condition (function) or an array of them";

const env: Check = (v) =>
  isObject(v) && Object.values(v).every((x) => x === undefined || typeof x === "string")
    ? undefined
    : "an object of string values";

const telemetry: Check = (v) =>
  typeof v === "boolean" || isObject(v) ? undefined : "true, false or an object";

const abortController: Check = (v) =>
  isObject(v) && typeof v.abort === "function" && isObject(v.signal) ? undefined : "an AbortController";
const signal: Check = (v) =>
  isObject(v) && typeof v.aborted === "boolean" && typeof v.addEventListener === "function"
    ? undefined
    : "an AbortSignal";

const provider: Check = (v) =>
  isObject(v) || (Array.isArray(v) && v.every(isObject))
    ? undefined
    : "a provider config or Provider object, or an array of them";

/** The fields of an agent definition Goat acts on. */
const AGENT_FIELDS = ["description", "prompt", "tools", "disallowedTools", "model", "maxTurns"];

const agents: Check = (v) => {
  if (!isObject(v)) return "an object of agent definitions by name";
  for (const [name, def] of Object.entries(v)) {
    if (!isObject(def)) return `agent "${name}" to be an object with description and prompt`;
    if (typeof def.description !== "string" || def.description.trim() === "")
      return `agent "${name}" to have a "description" string (when the model should use it)`;
    if (typeof def.prompt !== "string")
      return `agent "${name}" to have a "prompt" string (its system prompt)`;
    if (def.tools !== undefined && stringList(def.tools, {}))
      return `agent "${name}" "tools" to be an array of tool names`;
    if (def.model !== undefined && string(def.model, {}))
      return `agent "${name}" "model" to be a model id or "inherit"`;
    if (def.maxTurns !== undefined && wholeNumber(1)(def.maxTurns, {}))
      return `agent "${name}" "maxTurns" to be a whole number ≥ 1`;
    if (def.disallowedTools !== undefined && stringList(def.disallowedTools, {}))
      return `agent "${name}" "disallowedTools" to be an array of tool names`;
    const unsupported = Object.keys(def).filter((k) => !AGENT_FIELDS.includes(k) && def[k] !== undefined);
    if (unsupported.length > 0)
      return `agent "${name}" to use only ${AGENT_FIELDS.join(", ")} (Goat does not support ${unsupported.join(", ")})`;
  }
  return undefined;
};

const skillDefinitions: Check = (v) => {
  if (!isObject(v)) return "an object of skill definitions by name";
  for (const [name, def] of Object.entries(v)) {
    if (!/^[\w.:-]+$/.test(name)) return `skill name "${name}" to be letters, digits, ".", ":", "_" or "-"`;
    if (!isObject(def)) return `skill "${name}" to be an object with description, body and dir`;
    for (const key of ["description", "body", "dir"])
      if (typeof def[key] !== "string") return `skill "${name}" to have a "${key}" string`;
    if (def.allowedTools !== undefined && stringList(def.allowedTools, {}))
      return `skill "${name}" "allowedTools" to be an array of rules`;
  }
  return undefined;
};

const slashCommands: Check = (v) => {
  if (!isObject(v)) return "an object of slash command definitions by name";
  for (const [name, def] of Object.entries(v)) {
    if (!/^[\w.:-]+$/.test(name))
      return `command name "${name}" to be letters, digits, ".", ":", "_" or "-" (no leading /)`;
    if (!isObject(def)) return `command "${name}" to be an object with description and prompt`;
    if (typeof def.description !== "string") return `command "${name}" to have a "description" string`;
    if (typeof def.prompt !== "string") return `command "${name}" to have a "prompt" string`;
    if (def.argumentHint !== undefined && typeof def.argumentHint !== "string")
      return `command "${name}" "argumentHint" to be a string`;
    if (def.allowedTools !== undefined && stringList(def.allowedTools, {}))
      return `command "${name}" "allowedTools" to be an array of rules`;
  }
  return undefined;
};

/**
 * Every option Goat implements, with the check of its value. The type makes this list complete: a
 * new `QueryOptions` field does not compile until it is listed here (null: any value is fine).
 */
const CHECKS: { [K in keyof Required<QueryOptions>]: Check | null } = {
  model: string,
  fallbackModel: string,
  provider,
  models: (v) => (Array.isArray(v) ? undefined : "an array of model infos"),
  getApiKey: fn,
  maxTurns: wholeNumber(1),
  maxBudgetUsd: positiveNumber,
  maxTokens: wholeNumber(1),
  temperature: (v) => (typeof v === "number" && Number.isFinite(v) && v >= 0 ? undefined : "a number ≥ 0"),
  stopSequences: stringList,
  maxThinkingTokens: wholeNumber(0),
  thinking: (v, o) => {
    if (!isObject(v))
      return `{ type: "enabled", budgetTokens }, { type: "adaptive" } or { type: "disabled" }`;
    if (v.display !== undefined && v.display !== "summarized" && v.display !== "omitted")
      return `display to be "summarized" or "omitted"`;
    if (v.type === "adaptive" || v.type === "disabled") return undefined;
    if (v.type !== "enabled") return `type "enabled", "adaptive" or "disabled"`;
    const budget = v.budgetTokens;
    if (typeof budget !== "number" || !Number.isInteger(budget) || budget < 1024)
      return "budgetTokens to be a whole number ≥ 1024 (Anthropic's minimum)";
    if (o.maxTokens !== undefined && budget >= o.maxTokens)
      return `budgetTokens below maxTokens (${o.maxTokens}): the thinking counts toward the output limit`;
    return undefined;
  },
  effort: oneOf(["low", "medium", "high", "xhigh", "max"]),
  tools,
  smallFastModel: string,
  webSearch: (v) =>
    (typeof v === "string" && v.trim() !== "") ||
    (isObject(v) && (typeof v.search === "function" || v.provider === "searxng" || v.provider === "brave"))
      ? undefined
      : `"searxng:<url>", "brave", { provider: "searxng", url }, { provider: "brave", apiKey } or a backend with search()`,
  allowedTools: stringList,
  disallowedTools: stringList,
  permissionMode: oneOf(PERMISSION_MODES),
  allowDangerouslySkipPermissions: boolean,
  permissionRules: object,
  managedSettings: object,
  settingSources: (v) =>
    Array.isArray(v) && v.every((s) => s === "user" || s === "project" || s === "local")
      ? undefined
      : `an array of "user", "project" and "local"`,
  memorySources: (v) =>
    Array.isArray(v) && v.every((s) => s === "user" || s === "project" || s === "local")
      ? undefined
      : `an array of "user", "project" and "local"`,
  settings: (v) =>
    (typeof v === "string" && v !== "") || isObject(v)
      ? undefined
      : "the path of a settings file or a settings object",
  canUseTool: fn,
  permissionPromptToolName: (v, o) =>
    typeof v !== "string" || v === ""
      ? "a tool name such as mcp__server__tool"
      : o.canUseTool !== undefined
        ? "no canUseTool beside it (one of them answers permission prompts)"
        : undefined,
  permissionPrompts: oneOf(["host", "none"]),
  permissionWording: (v) =>
    isObject(v) &&
    typeof v.nobodyAsked === "string" &&
    ["allowRules", "addDirectories", "useMode"].every((k) => typeof v[k] === "function")
      ? undefined
      : "an object with nobodyAsked (a string) and allowRules, addDirectories and useMode (functions)",
  additionalDirectories: stringList,
  hooks: object,
  cwd: directory,
  systemPrompt,
  includePartialMessages: boolean,
  includeHookEvents: boolean,
  betas: (v) =>
    Array.isArray(v) && v.every((b) => typeof b === "string" && /^[\w.-]+$/.test(b))
      ? undefined
      : "an array of Anthropic beta names",
  outputFormat: (v) =>
    isObject(v) && v.type === "json_schema" && isObject(v.schema) && v.schema.type === "object"
      ? undefined
      : `{ type: "json_schema", schema } with a JSON Schema of an object (type: "object")`,
  abortController,
  signal,
  resume: string,
  continue: boolean,
  forkSession: boolean,
  resumeSessionAt: string,
  sessionId: string,
  persistSession: boolean,
  enableFileCheckpointing: boolean,
  sessionStore: object,
  stopWhen,
  transformContext: fn,
  convertToLlm: fn,
  getSteeringMessages: fn,
  getFollowUpMessages: fn,
  retry: object,
  providerTimeouts: (v) =>
    isObject(v) &&
    ["connectMs", "firstByteMs", "idleMs"].every(
      (k) => v[k] === undefined || (typeof v[k] === "number" && (v[k] as number) >= 0),
    )
      ? undefined
      : "{ connectMs?, firstByteMs?, idleMs? } in milliseconds ≥ 0",
  proxy: (v) => (v === false || (typeof v === "string" && v !== "") ? undefined : "a proxy URL or false"),
  toolConcurrency: wholeNumber(1),
  orderedToolStarts: boolean,
  mcpServers: object,
  mcpStartupTimeoutMs: (v) => (typeof v === "number" && v >= 0 ? undefined : "a number of milliseconds ≥ 0"),
  agents,
  slashCommands,
  skills: (v) =>
    v === "all" || (Array.isArray(v) && v.every((n) => typeof n === "string"))
      ? undefined
      : '"all" or an array of skill names',
  skillDefinitions,
  plugins: (v) =>
    Array.isArray(v) &&
    v.every(
      (p) =>
        p !== null &&
        typeof p === "object" &&
        (p as { type?: unknown }).type === "local" &&
        typeof (p as { path?: unknown }).path === "string",
    )
      ? undefined
      : 'an array of { type: "local", path } (marketplace plugins are not supported)',
  loadedPlugins: object,
  agent: string,
  compactor: fn,
  onEvent: fn,
  onListenerError: fn,
  telemetry,
  debug: boolean,
  debugFile: anyString,
  env,
  sandbox: object,
  modelPricing: object,
  toolTimeoutMs: (v) =>
    typeof v === "number" && Number.isFinite(v) && v >= 0
      ? undefined
      : "a number of milliseconds ≥ 0 (0: no limit)",
};

/** Every option `query()` accepts and acts on. */
export const KNOWN_OPTIONS: readonly string[] = Object.freeze(Object.keys(CHECKS));

/**
 * Options of the Claude Agent SDK that Goat refuses, each with why (ignoring them would change what
 * the program does, or weaken its safety).
 */
const REFUSED = {
  extraArgs: "Goat runs in-process and has no CLI to pass extra flags to; use the matching option",
  onElicitation: "MCP elicitation is not supported (Goat declines every elicitation)",
  planModeInstructions: "custom plan-mode instructions are not supported",
  projectConfigRoot: "a separate project configuration root is not supported",
  resumeDropsTurn: "the truncating-resume guard is not supported; resume without it",
  spawnClaudeCodeProcess: "Goat runs in-process and spawns no Claude Code process",
  taskBudget: "API-side task budgets are not supported",
  toolAliases: "tool name aliases are not supported",
} as const;
/** The Claude Agent SDK options `query()` refuses with an `InvalidOptionError`, each with why. */
export const REFUSED_OPTIONS: Readonly<Record<string, string>> = Object.freeze(REFUSED);

/** Options of the Claude Agent SDK that Goat ignores with a warning, because ignoring them is harmless. */
const IGNORED = {
  agentProgressSummaries: "subagent progress summaries are not produced",
  executable: "Goat runs in-process; there is no CLI runtime to choose",
  executableArgs: "Goat runs in-process; there is no CLI runtime to pass arguments to",
  forwardSubagentText: "Goat always forwards subagent messages, marked with their Task call",
  loadTimeoutMs: "session stores are called without a load timeout",
  mcpServersDelivery: "Goat runs in-process; MCP servers never go on a command line",
  pathToClaudeCodeExecutable: "Goat runs in-process and starts no Claude Code executable",
  perTaskStopAffordance: "interrupt always stops the running turn only",
  pluginDelivery: "Goat runs in-process; plugins never go on a command line",
  promptSuggestions: "prompt suggestions are not produced",
  sessionStoreFlush: "Goat writes each transcript entry as it is made",
  stderr: "Goat runs in-process and has no subprocess stderr; use debug/debugFile for a trace",
  strictMcpConfig: "query() only ever uses the servers given in mcpServers",
  supportedDialogKinds: "Goat opens no host dialogs",
  onUserDialog: "Goat opens no host dialogs",
  title: "session titles are not stored",
  toolConfig: "per-tool configuration is not supported",
  verbatimPrompts: "query() always sends prompts as written",
} as const;
/** The Claude Agent SDK options `query()` ignores with one warning, each with why ignoring it is harmless. */
export const IGNORED_OPTIONS: Readonly<Record<string, string>> = Object.freeze(IGNORED);

/** Ignored options whose given value is what Goat does anyway: no warning for these values. */
const ALREADY_SO: Readonly<Record<string, unknown>> = {
  forwardSubagentText: true,
  strictMcpConfig: true,
  verbatimPrompts: true,
  perTaskStopAffordance: false,
  promptSuggestions: false,
  agentProgressSummaries: false,
};

// An option Goat implements must leave the refused and ignored lists: this fails to compile otherwise.
type Overlap = Extract<keyof typeof REFUSED | keyof typeof IGNORED, keyof QueryOptions>;
const noOverlap: [Overlap] extends [never] ? true : Overlap = true;
void noOverlap;

/**
 * Checks `query()`'s prompt: a string, or an AsyncIterable of user messages. Anything else (a
 * number, a plain object, a forgotten prompt) would start a session that ends with no run at all.
 */
export function checkPrompt(params: unknown): void {
  const prompt = isObject(params) ? params.prompt : undefined;
  if (typeof prompt === "string") return;
  if (typeof prompt === "object" && prompt !== null && Symbol.asyncIterator in prompt) return;
  throw new InvalidOptionError(
    "prompt",
    "query() expects a prompt: a string, or an AsyncIterable of user messages for a multi-turn session.",
  );
}

/** What a streamed user message must hold, as the warning for one that does not says it. */
export const USER_MESSAGE_SHAPE =
  "a user message needs message.content, a string or an array of content blocks.";

/** The content of a streamed user message, or undefined when it has none Goat can send. */
export function userMessageContent(m: unknown): string | ContentBlock[] | undefined {
  const message = isObject(m) ? m.message : undefined;
  const content = isObject(message) ? message.content : undefined;
  if (typeof content === "string") return content;
  if (Array.isArray(content) && content.every((b) => isObject(b) && typeof b.type === "string"))
    return content as ContentBlock[];
  return undefined;
}

/** What `checkOptions` found that does not stop the query. */
export interface OptionsCheck {
  /** One line per option that is ignored, to show the user once. */
  warnings: string[];
}

/**
 * Checks every option. Throws `InvalidOptionError` for the first one that cannot be used; returns
 * warnings for options ignored on purpose.
 */
export function checkOptions(options: unknown): OptionsCheck {
  if (options === undefined) return { warnings: [] };
  if (!isObject(options)) throw new InvalidOptionError("options", "query() options must be an object.");
  const warnings: string[] = [];
  for (const [key, value] of Object.entries(options)) {
    if (value === undefined) continue;
    if (Object.hasOwn(CHECKS, key)) {
      const check = CHECKS[key as keyof QueryOptions];
      const expected = check?.(value, options as QueryOptions);
      if (expected !== undefined) {
        throw new InvalidOptionError(key, `Option "${key}" expects ${expected} (got ${describe(value)}).`);
      }
    } else if (Object.hasOwn(REFUSED_OPTIONS, key)) {
      throw new InvalidOptionError(
        key,
        `Option "${key}" of the Claude Agent SDK is not supported by Goat: ${REFUSED_OPTIONS[key]}. Remove it.`,
      );
    } else if (Object.hasOwn(IGNORED_OPTIONS, key)) {
      if (Object.hasOwn(ALREADY_SO, key) && ALREADY_SO[key] === value) continue;
      warnings.push(`Option "${key}" is ignored: ${IGNORED_OPTIONS[key]}.`);
    } else {
      const near = nearest(key);
      throw new InvalidOptionError(
        key,
        `Unknown option "${key}".${near ? ` Did you mean "${near}"?` : ""} See the README for the options query() takes.`,
      );
    }
  }
  return { warnings };
}

function describe(value: unknown): string {
  if (typeof value === "function") return "a function";
  if (Array.isArray(value)) return `an array of ${value.length}`;
  if (typeof value === "string")
    return JSON.stringify(value.length > 60 ? `${value.slice(0, 57)}...` : value);
  if (value === null || typeof value !== "object") return String(value);
  return "an object";
}

function quote(s: string): string {
  return `"${s}"`;
}

/** The known option closest to a misspelled one (edit distance ≤ 2, or a different letter case). */
function nearest(key: string): string | undefined {
  let best: string | undefined;
  let bestDistance = 3;
  for (const name of [...KNOWN_OPTIONS, ...Object.keys(REFUSED_OPTIONS), ...Object.keys(IGNORED_OPTIONS)]) {
    const d = name.toLowerCase() === key.toLowerCase() ? 0 : editDistance(name, key);
    if (d < bestDistance) {
      bestDistance = d;
      best = name;
    }
  }
  return best;
}

function editDistance(a: string, b: string): number {
  if (Math.abs(a.length - b.length) > 2) return 3;
  let previous = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(
        previous[j] + 1,
        current[j - 1] + 1,
        previous[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1),
      );
    }
    previous = current;
  }
  return previous[b.length];
}
