/**
 * The callbacks a stream-json host answers over the control protocol: `canUseTool` as Claude Code's
 * `--permission-prompt-tool stdio` (`can_use_tool` requests), and the hooks the host registered in
 * `initialize` (`hook_callback` requests). Both turn a host that cannot answer (error, closed stdin,
 * an abort while waiting) into a safe outcome: a denied call, a reported hook failure.
 */

import type { CanUseTool, PermissionResult, PermissionUpdate, QueryOptions } from "../../index.js";
import { HOOK_EVENTS, type HookCallback, type HookEvent, type HookJSONOutput } from "../../index.js";
import { type ControlChannel, errorText, isRecord } from "./control-protocol.js";

/** `canUseTool` that asks the host with a `can_use_tool` control request and waits for its answer. */
export function hostCanUseTool(channel: ControlChannel): CanUseTool {
  return async (toolName, input, options) => {
    const request: Record<string, unknown> = {
      subtype: "can_use_tool",
      tool_name: toolName,
      display_name: toolName,
      input,
      permission_suggestions: options.suggestions ?? [],
      tool_use_id: options.toolUseID,
    };
    if (options.blockedPath !== undefined) request.blocked_path = options.blockedPath;
    if (options.decisionReason !== undefined) request.decision_reason = options.decisionReason;
    if (typeof input.description === "string") request.description = input.description;
    let answer: Record<string, unknown>;
    try {
      answer = await channel.request(request as { subtype: string }, options.signal);
    } catch (error) {
      if (options.signal.aborted)
        return { behavior: "deny", message: "The run was interrupted before the host answered." };
      return { behavior: "deny", message: `The host did not allow ${toolName}: ${errorText(error)}` };
    }
    return toPermissionResult(answer, input);
  };
}

/** Maps the host's `{behavior:'allow', updatedInput?}` / `{behavior:'deny', message, interrupt?}` answer. */
function toPermissionResult(
  answer: Record<string, unknown>,
  input: Record<string, unknown>,
): PermissionResult {
  if (answer.behavior === "allow") {
    const result: PermissionResult = {
      behavior: "allow",
      updatedInput: isRecord(answer.updatedInput) ? answer.updatedInput : input,
    };
    if (Array.isArray(answer.updatedPermissions)) {
      result.updatedPermissions = answer.updatedPermissions as PermissionUpdate[];
    }
    return result;
  }
  if (answer.behavior === "deny") {
    return {
      behavior: "deny",
      message:
        typeof answer.message === "string" && answer.message !== ""
          ? answer.message
          : "The host denied this call.",
      interrupt: answer.interrupt === true,
    };
  }
  return {
    behavior: "deny",
    message: `The host's permission answer had behavior ${JSON.stringify(answer.behavior)}; expected "allow" or "deny".`,
  };
}

/** The `initialize` request's hooks: `{Event: [{matcher?, hookCallbackIds: [id…], timeout?}]}`. */
export type WireHooks = Record<string, unknown>;

/**
 * Turns the host's hook registrations into `query()` hooks whose callbacks send `hook_callback`
 * requests. Registrations that are malformed or name an event Goat does not fire are reported with
 * `warn` and left out. `base` (the settings files' hooks) keeps running before the host's.
 */
export function hostHooks(
  channel: ControlChannel,
  wire: WireHooks,
  base: QueryOptions["hooks"],
  warn: (text: string) => void,
): QueryOptions["hooks"] {
  const hooks: NonNullable<QueryOptions["hooks"]> = { ...base };
  for (const [event, matchers] of Object.entries(wire)) {
    if (!(HOOK_EVENTS as readonly string[]).includes(event)) {
      warn(`initialize: hooks for ${event} ignored (Goat fires ${HOOK_EVENTS.join(", ")})`);
      continue;
    }
    if (!Array.isArray(matchers)) {
      warn(`initialize: hooks.${event} must be an array of {matcher?, hookCallbackIds}; ignored`);
      continue;
    }
    const existing = hooks[event as HookEvent];
    const list = existing === undefined ? [] : Array.isArray(existing) ? [...existing] : [existing];
    for (const m of matchers) {
      const ids = isRecord(m) && Array.isArray(m.hookCallbackIds) ? m.hookCallbackIds : undefined;
      if (!ids || ids.some((id) => typeof id !== "string")) {
        warn(`initialize: a hooks.${event} entry without hookCallbackIds (strings) was ignored`);
        continue;
      }
      list.push({
        matcher: typeof m.matcher === "string" ? m.matcher : undefined,
        timeout: typeof m.timeout === "number" ? m.timeout : undefined,
        hooks: (ids as string[]).map((id) => hostHook(channel, id)),
      });
    }
    hooks[event as HookEvent] = list;
  }
  return hooks;
}

function hostHook(channel: ControlChannel, callbackId: string): HookCallback {
  return async (input, toolUseID, { signal }) => {
    const body: Record<string, unknown> = { subtype: "hook_callback", callback_id: callbackId, input };
    if (toolUseID !== undefined) body.tool_use_id = toolUseID;
    // A rejection is the hook runner's to report (and to block on, when the hook says onFailure: block).
    return (await channel.request(body as { subtype: string }, signal)) as HookJSONOutput;
  };
}
