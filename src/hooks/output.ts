/**
 * Validates what a hook returned against the output contract, so a hook that returns the wrong shape
 * is reported with a message that says which field is wrong instead of half-applied.
 */
import * as z from "zod";
import type { HookEvent, HookJSONOutput } from "./types.js";

const toolInput = z.record(z.string(), z.unknown());

const preToolUse = z.looseObject({
  permissionDecision: z.enum(["allow", "deny", "ask"]).optional(),
  permissionDecisionReason: z.string().optional(),
  updatedInput: toolInput.optional(),
  additionalContext: z.string().optional(),
});

const postToolUse = z.looseObject({
  additionalContext: z.string().optional(),
  updatedToolOutput: z.unknown().optional(),
  updatedMCPToolOutput: z.unknown().optional(),
});

const permissionRequest = z.looseObject({
  decision: z.discriminatedUnion("behavior", [
    z.looseObject({
      behavior: z.literal("allow"),
      updatedInput: toolInput.optional(),
      updatedPermissions: z.array(z.unknown()).optional(),
    }),
    z.looseObject({
      behavior: z.literal("deny"),
      message: z.string().optional(),
      interrupt: z.boolean().optional(),
    }),
  ]),
});

const contextOnly = z.looseObject({ additionalContext: z.string().optional() });

const SPECIFIC: Partial<Record<HookEvent, z.ZodType>> = {
  PreToolUse: preToolUse,
  PostToolUse: postToolUse,
  PermissionRequest: permissionRequest,
};

const common = z.looseObject({
  continue: z.boolean().optional(),
  stopReason: z.string().optional(),
  suppressOutput: z.boolean().optional(),
  decision: z.enum(["approve", "block"]).optional(),
  reason: z.string().optional(),
  systemMessage: z.string().optional(),
  hookSpecificOutput: z.looseObject({ hookEventName: z.string().optional() }).optional(),
});

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
  const base = common.safeParse(raw);
  if (!base.success) return { ok: false, message: `invalid hook output: ${flatten(base.error)}` };
  const specific = base.data.hookSpecificOutput;
  if (specific !== undefined) {
    const named = specific.hookEventName;
    if (named !== undefined && named !== event) {
      return {
        ok: false,
        message: `hookSpecificOutput.hookEventName is "${named}" but the hook ran for ${event}`,
      };
    }
    const schema = SPECIFIC[event] ?? contextOnly;
    const checked = schema.safeParse(specific);
    if (!checked.success) {
      return { ok: false, message: `invalid hookSpecificOutput: ${flatten(checked.error)}` };
    }
  }
  return { ok: true, output: base.data as HookJSONOutput };
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

function flatten(error: z.ZodError): string {
  return z.prettifyError(error).replace(/\n\s*/g, " ");
}

function describe(value: unknown): string {
  return Array.isArray(value) ? "an array" : typeof value;
}

function truncate(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max)}…`;
}
