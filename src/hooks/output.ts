/**
 * Validates what a hook returned against the output contract, so a hook that returns the wrong shape
 * is reported with a message that says which field is wrong instead of half-applied.
 */
import {
  type JsonSchema,
  type JsonSchemaIssue,
  validateJsonSchema,
} from "../schema/json-schema-validator.js";
import type { HookEvent, HookJSONOutput } from "./types.js";

// The contract as JSON Schemas, checked by Goat's validator. Fields not named here are allowed
// (hooks written for newer Claude Code versions may return more).
const toolInput = { type: "object" };
const string = { type: "string" };
const boolean = { type: "boolean" };

const preToolUse: JsonSchema = {
  type: "object",
  properties: {
    permissionDecision: { type: "string", enum: ["allow", "deny", "ask"] },
    permissionDecisionReason: string,
    updatedInput: toolInput,
    additionalContext: string,
  },
};

const postToolUse: JsonSchema = { type: "object", properties: { additionalContext: string } };

const permissionRequest: JsonSchema = {
  type: "object",
  properties: {
    decision: {
      anyOf: [
        {
          type: "object",
          properties: {
            behavior: { const: "allow" },
            updatedInput: toolInput,
            updatedPermissions: { type: "array" },
          },
          required: ["behavior"],
        },
        {
          type: "object",
          properties: { behavior: { const: "deny" }, message: string, interrupt: boolean },
          required: ["behavior"],
        },
      ],
    },
  },
  required: ["decision"],
};

const contextOnly: JsonSchema = { type: "object", properties: { additionalContext: string } };

const SPECIFIC: Partial<Record<HookEvent, JsonSchema>> = {
  PreToolUse: preToolUse,
  PostToolUse: postToolUse,
  PermissionRequest: permissionRequest,
};

const common: JsonSchema = {
  type: "object",
  properties: {
    continue: boolean,
    stopReason: string,
    suppressOutput: boolean,
    decision: { type: "string", enum: ["approve", "block"] },
    reason: string,
    systemMessage: string,
    hookSpecificOutput: { type: "object", properties: { hookEventName: string } },
  },
};

/** The result of checking one hook's output. */
export type ParsedHookOutput = { ok: true; output: HookJSONOutput } | { ok: false; message: string };

/**
 * Checks a hook's output for `event`. `undefined`/`null` count as `{}` (a callback that returns
 * nothing has no opinion). `hookSpecificOutput` written for another event is an error, because the
 * hook author surely meant something this firing will not do.
 */
export function parseHookOutput(event: HookEvent, raw: unknown): ParsedHookOutput {
  if (raw === undefined || raw === null) return { ok: true, output: {} };
  if (typeof raw !== "object" || Array.isArray(raw)) {
    return { ok: false, message: `hook output must be a JSON object, got ${describe(raw)}` };
  }
  const base = validateJsonSchema(common, raw);
  if (!base.ok) return { ok: false, message: `invalid hook output: ${flatten(base.issues)}` };
  const output = base.value as HookJSONOutput & { hookSpecificOutput?: { hookEventName?: string } };
  const specific = output.hookSpecificOutput;
  if (specific !== undefined) {
    const named = specific.hookEventName;
    if (named !== undefined && named !== event) {
      return {
        ok: false,
        message: `hookSpecificOutput.hookEventName is "${named}" but the hook ran for ${event}`,
      };
    }
    const schema = SPECIFIC[event] ?? contextOnly;
    const checked = validateJsonSchema(schema, specific);
    if (!checked.ok) {
      return { ok: false, message: `invalid hookSpecificOutput: ${flatten(checked.issues)}` };
    }
  }
  return { ok: true, output };
}

/**
 * Parses a command hook's stdout. Text that looks like JSON (starts with `{`) must parse as an
 * output object; other text is `{text}` and only the caller decides whether it means anything.
 */
export function parseCommandStdout(
  event: HookEvent,
  stdout: string,
): ParsedHookOutput | { ok: true; text: string } {
  const trimmed = stdout.trim();
  if (!trimmed.startsWith("{") && !trimmed.startsWith("[")) return { ok: true, text: trimmed };
  let json: unknown;
  try {
    json = JSON.parse(trimmed);
  } catch (err) {
    return {
      ok: false,
      message: `stdout is not valid JSON (${(err as Error).message}): ${truncate(trimmed, 200)}`,
    };
  }
  return parseHookOutput(event, json);
}

/** One line for all problems: `expected boolean, received string (at continue)`. */
function flatten(issues: JsonSchemaIssue[]): string {
  return issues
    .map((issue) => (issue.path.length > 0 ? `${issue.message} (at ${issue.path.join(".")})` : issue.message))
    .join("; ");
}

function describe(value: unknown): string {
  return Array.isArray(value) ? "an array" : typeof value;
}

function truncate(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max)}…`;
}
