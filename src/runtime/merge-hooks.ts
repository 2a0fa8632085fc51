/**
 * Hooks from files (settings, plugins) joined with a session's own `hooks` option, per event.
 */
import type { CliSettings } from "../settings/files.js";
import type { SessionOptions } from "./options.js";

/** Settings hooks first, then the options' own, per event. */
export function mergeHooks(
  files: CliSettings["hooks"],
  own: SessionOptions["hooks"],
): SessionOptions["hooks"] {
  const events = new Set([...Object.keys(files), ...Object.keys(own ?? {})]) as Set<keyof typeof files>;
  if (events.size === 0) return own;
  const merged: NonNullable<SessionOptions["hooks"]> = {};
  for (const event of events) {
    // One group may be given alone (`PreToolUse: { matcher, hooks }` or a bare callback): as a list.
    const mine = own?.[event];
    merged[event] = [
      ...(files[event] ?? []),
      ...(mine === undefined ? [] : Array.isArray(mine) ? mine : [mine]),
    ];
  }
  return merged;
}
