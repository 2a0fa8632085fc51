/**
 * Which registered hooks apply to one firing of an event. Matchers follow Claude Code: on tool events
 * they test the tool name; on a few other events they test the event's natural field; elsewhere they
 * are ignored and every hook runs.
 */
import { InvalidOptionError } from "../errors.js";
import type { HookEvent, HookInput } from "./types.js";

/** The input field a matcher tests, per event; events not listed ignore matchers. */
const MATCHER_FIELD: Partial<Record<HookEvent, string>> = {
  PreToolUse: "tool_name",
  PostToolUse: "tool_name",
  PostToolUseFailure: "tool_name",
  PermissionRequest: "tool_name",
  SessionStart: "source",
  SessionEnd: "reason",
  PreCompact: "trigger",
  PostCompact: "trigger",
  Notification: "notification_type",
  SubagentStart: "agent_type",
  SubagentStop: "agent_type",
};

/** The input field `event`'s matchers test, or undefined when the event ignores matchers. */
export function matcherField(event: HookEvent): string | undefined {
  return MATCHER_FIELD[event];
}

/** The value a matcher is tested against for this input, or undefined when the event ignores matchers. */
export function matcherTarget(event: HookEvent, input: Partial<HookInput>): string | undefined {
  const field = MATCHER_FIELD[event];
  if (field === undefined) return undefined;
  const value = (input as Record<string, unknown>)[field];
  return typeof value === "string" ? value : "";
}

/** Names joined by `|` (`Bash|Write`) are matched exactly; anything else is a regex. */
const PLAIN_NAMES = /^[A-Za-z0-9_|-]+$/;

/** A compiled matcher: a predicate on the target string. */
export type CompiledMatcher = (target: string) => boolean;

/**
 * Compiles a matcher. `undefined`, `""` and `*` match everything; `Bash|Write` matches those names
 * exactly; anything else is a regex that must match the WHOLE name (so `mcp__github__.*` does not
 * match `xmcp__github__a`, and `Read` never matches `ReadMcpResource`). Throws on an invalid regex,
 * naming it, so a typo fails at start-up rather than silently never firing.
 */
export function compileMatcher(matcher: string | undefined): CompiledMatcher {
  if (matcher === undefined || matcher === "" || matcher === "*") return () => true;
  if (PLAIN_NAMES.test(matcher)) {
    const names = new Set(matcher.split("|"));
    return (target) => names.has(target);
  }
  let re: RegExp;
  try {
    re = new RegExp(`^(?:${matcher})$`);
  } catch (err) {
    throw new InvalidOptionError(
      "hooks",
      `Invalid hook matcher ${JSON.stringify(matcher)}: ${(err as Error).message}`,
    );
  }
  return (target) => re.test(target);
}

/** True when `matcher` selects this firing (always true on events that ignore matchers). */
export function matcherApplies(compiled: CompiledMatcher, target: string | undefined): boolean {
  return target === undefined || compiled(target);
}
