/**
 * The loop's tool extension points wired to hooks and permissions: PreToolUse hooks, then the
 * permission engine (rules, mode, canUseTool, with PermissionRequest hooks asked first), then after
 * the call PostToolUse / PostToolUseFailure hooks. A session without hooks skips the hook work
 * entirely (`runner.has` is a map lookup).
 */
import type { HookRunner } from "../hooks/runner.js";
import type { AfterToolCallOutcome, BeforeToolCallDecision, ToolCallInfo } from "../loop/loop-config.js";
import type { PermissionEngine } from "../permissions/engine.js";
import type { CanUseTool, PermissionResult } from "../permissions/types.js";
import { describeSuggestions, LIBRARY_WORDING, type PermissionWording } from "../permissions/wording.js";
import type { ToolContent, ToolResult } from "../tools/types.js";

/** Reports hook problems (a throwing hook, a timeout, bad output) without stopping the run. */
export type HookProblemSink = (message: string) => void;

/**
 * Builds `beforeToolCall` from PreToolUse hooks and the permission engine. `preApproved` (a reason)
 * counts as a hook's allow when no hook decided: deny and ask rules and plan mode still apply first
 * (a slash command's `allowed-tools` naming one of its `!` lines).
 */
export function createBeforeToolCall(
  hooks: HookRunner,
  permissions: PermissionEngine,
  report: HookProblemSink,
): (info: ToolCallInfo, preApproved?: string) => Promise<BeforeToolCallDecision> {
  return async ({ call, tool, input, signal }, preApproved) => {
    let hookDecision: { behavior: "allow" | "deny" | "ask"; reason?: string } | undefined;
    let effectiveInput = input;
    const preContext: string[] = [];
    if (hooks.has("PreToolUse", call.name)) {
      const pre = await hooks.run(
        "PreToolUse",
        { tool_name: call.name, tool_input: input, tool_use_id: call.id },
        { signal, toolUseID: call.id },
      );
      reportErrors(pre.errors, report);
      if (!pre.continue) {
        return {
          action: "deny",
          message: pre.stopReason ?? "A PreToolUse hook stopped the run.",
          interrupt: true,
        };
      }
      if (pre.updatedInput) effectiveInput = pre.updatedInput;
      preContext.push(...pre.additionalContext);
      if (pre.permissionDecision)
        hookDecision = { behavior: pre.permissionDecision, reason: pre.permissionDecisionReason };
      else if (pre.blocked) hookDecision = { behavior: "deny", reason: pre.blockReason };
    }
    if (hookDecision === undefined && preApproved) hookDecision = { behavior: "allow", reason: preApproved };
    const decision = await permissions.decide({
      toolName: call.name,
      input: effectiveInput,
      sideEffect: tool.sideEffect,
      ...(call.name === "Bash" ? { confines: tool.confines === true } : {}),
      toolUseID: call.id,
      signal,
      hookDecision,
    });
    const additionalContext = preContext.length > 0 ? preContext.join("\n") : undefined;
    if (decision.behavior === "allow") {
      const { input: allowed, confine } = decision;
      return { action: "run", input: allowed, additionalContext, ...(confine ? { confine } : {}) };
    }
    return {
      action: "deny",
      message: decision.message,
      permissionDenial: true,
      interrupt: decision.interrupt,
      additionalContext,
    };
  };
}

/**
 * How a successful call's output is shown to PostToolUse hooks (`tool_response`): the host's shape (the
 * SDK gives Claude Code's), else the tool's `details`, or its text.
 */
export type ToolResponseShape = (
  toolName: string,
  input: Record<string, unknown>,
  result: ToolResult,
) => unknown;

const detailsOrText: ToolResponseShape = (_name, _input, result) =>
  result.details ?? contentText(result.content);

/** Builds `afterToolCall` from PostToolUse and PostToolUseFailure hooks. */
export function createAfterToolCall(
  hooks: HookRunner,
  report: HookProblemSink,
  toolResponse: ToolResponseShape = detailsOrText,
): (info: ToolCallInfo & { result: ToolResult; isError: boolean }) => Promise<AfterToolCallOutcome> {
  return async ({ call, input, result, isError, signal }) => {
    const event = isError ? "PostToolUseFailure" : "PostToolUse";
    if (!hooks.has(event, call.name)) return {};
    const text = contentText(result.content);
    const post = isError
      ? await hooks.run(
          "PostToolUseFailure",
          {
            tool_name: call.name,
            tool_input: input,
            tool_use_id: call.id,
            error: text,
            is_interrupt: signal.aborted,
          },
          { signal, toolUseID: call.id },
        )
      : await hooks.run(
          "PostToolUse",
          {
            tool_name: call.name,
            tool_input: input,
            tool_use_id: call.id,
            tool_response: await toolResponse(call.name, input, result),
          },
          { signal, toolUseID: call.id },
        );
    reportErrors(post.errors, report);
    const outcome: AfterToolCallOutcome = {};
    if (post.hasUpdatedToolOutput) {
      const replaced = post.updatedToolOutput;
      outcome.result = {
        ...result,
        content: typeof replaced === "string" ? replaced : JSON.stringify(replaced),
      };
    }
    const context = [...post.additionalContext];
    if (post.blocked && post.blockReason) context.push(post.blockReason);
    if (context.length > 0) outcome.additionalContext = context.join("\n");
    if (!post.continue) outcome.stopReason = post.stopReason ?? `A ${event} hook stopped the run.`;
    return outcome;
  };
}

/**
 * Wraps the user's `canUseTool` so PermissionRequest hooks answer first (a hook's allow or deny
 * wins; without one, the callback is asked). Notification hooks hear that permission is needed.
 */
export function wrapCanUseTool(
  hooks: () => HookRunner,
  canUseTool: CanUseTool | undefined,
  report: HookProblemSink,
  wording: PermissionWording = LIBRARY_WORDING,
): CanUseTool | undefined {
  return async (toolName, input, options) => {
    const runner = hooks();
    if (runner.has("Notification")) {
      const n = await runner.run(
        "Notification",
        { message: `Goat needs your permission to use ${toolName}`, notification_type: "permission_prompt" },
        { signal: options.signal },
      );
      reportErrors(n.errors, report);
    }
    if (runner.has("PermissionRequest", toolName)) {
      const r = await runner.run(
        "PermissionRequest",
        {
          tool_name: toolName,
          tool_input: input,
          tool_use_id: options.toolUseID,
          permission_suggestions: options.suggestions,
        },
        { signal: options.signal, toolUseID: options.toolUseID },
      );
      reportErrors(r.errors, report);
      const d = r.permissionRequestDecision;
      if (d?.behavior === "allow") return d as PermissionResult;
      if (d?.behavior === "deny") {
        return {
          behavior: "deny",
          message: d.message ?? "Denied by a PermissionRequest hook.",
          interrupt: d.interrupt,
        };
      }
    }
    if (!canUseTool) {
      // The engine's own wording: why it asked and the rule, directory or mode that would allow it.
      const why = options.decisionReason ? ` (${options.decisionReason})` : "";
      return {
        behavior: "deny",
        message: `Permission to use ${toolName} is required${why}, and ${wording.nobodyAsked}. ${describeSuggestions(options.suggestions ?? [], wording)}`,
      };
    }
    return canUseTool(toolName, input, options);
  };
}

function reportErrors(
  errors: Array<{ hook: string; event: string; message: string }>,
  report: HookProblemSink,
) {
  for (const e of errors) report(`${e.event} hook ${e.hook} failed: ${e.message}`);
}

function contentText(content: ToolContent): string {
  if (typeof content === "string") return content;
  return content.map((b) => (b.type === "text" ? b.text : "[image]")).join("\n");
}
