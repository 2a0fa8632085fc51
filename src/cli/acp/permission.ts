/**
 * Goat's permission questions (`canUseTool`, asked when the engine's answer is "ask") as ACP
 * `session/request_permission`: allow once, allow always (the rule the engine suggests, applied
 * as the engine applies an answer's `updatedPermissions`), reject. A client that cannot answer, or
 * a run cancelled while the question is open, denies.
 */
import type { AgentContext, PermissionOption, ToolCallUpdate } from "@agentclientprotocol/sdk";
import type { CanUseTool, PermissionModeName, PermissionUpdate } from "../../index.js";
import { toolCallView } from "./tool-view.js";

const ALLOW_ONCE = "allow_once";
const ALLOW_ALWAYS = "allow_always";
const REJECT = "reject_once";

/**
 * A `canUseTool` that asks the client of `sessionId`. `onModeChange` hears the permission mode an
 * answer moves the session to (leaving plan mode; an "always" that sets a mode), so the editor's
 * mode menu follows.
 */
export function askClient(
  client: AgentContext,
  sessionId: string,
  onModeChange: (mode: PermissionModeName) => void,
): CanUseTool {
  return async (toolName, input, options) => {
    const always = describeRules(options.suggestions);
    const choices = toolName === "ExitPlanMode" ? PLAN_CHOICES : callChoices(always);
    const toolCall: ToolCallUpdate = {
      toolCallId: options.toolUseID,
      status: "pending",
      rawInput: input,
      ...toolCallView(toolName, input),
    };
    let answer: Awaited<ReturnType<AgentContext["request"]>>;
    try {
      answer = await client.request(
        "session/request_permission",
        { sessionId, toolCall, options: choices },
        { cancellationSignal: options.signal, stopWaitingOnCancel: true },
      );
    } catch (error) {
      return { behavior: "deny", message: `The editor did not answer: ${(error as Error).message}` };
    }
    const outcome = (answer as { outcome?: { outcome?: string; optionId?: string } }).outcome;
    if (outcome?.outcome !== "selected") {
      return { behavior: "deny", message: "The user cancelled the request.", interrupt: true };
    }
    if (outcome.optionId === ALLOW_ONCE) {
      // Leaving plan mode with no mode named goes to default (the engine's rule).
      if (toolName === "ExitPlanMode") onModeChange("default");
      return { behavior: "allow" };
    }
    if (outcome.optionId === ALLOW_ALWAYS && always !== undefined) {
      const mode = options.suggestions?.find((u) => u.type === "setMode");
      if (mode?.type === "setMode") onModeChange(mode.mode as PermissionModeName);
      return { behavior: "allow", updatedPermissions: options.suggestions };
    }
    return { behavior: "deny", message: "The user rejected this tool call." };
  };
}

/** Allow once, allow always (naming what it allows) when the engine suggests a rule, reject. */
function callChoices(always: string | undefined): PermissionOption[] {
  return [
    { optionId: ALLOW_ONCE, name: "Allow", kind: "allow_once" },
    ...(always !== undefined
      ? [{ optionId: ALLOW_ALWAYS, name: `Always allow ${always}`, kind: "allow_always" as const }]
      : []),
    { optionId: REJECT, name: "Reject", kind: "reject_once" },
  ];
}

/** The plan's question: the engine suggests acceptEdits for "always". */
const PLAN_CHOICES: PermissionOption[] = [
  { optionId: ALLOW_ALWAYS, name: "Yes, and accept edits", kind: "allow_always" },
  { optionId: ALLOW_ONCE, name: "Yes, and approve edits one by one", kind: "allow_once" },
  { optionId: REJECT, name: "No, keep planning", kind: "reject_once" },
];

/** What "always" would allow, in words (`Bash(npm test:*)`, "edits this session"); undefined: nothing. */
function describeRules(suggestions: PermissionUpdate[] | undefined): string | undefined {
  if (suggestions === undefined || suggestions.length === 0) return undefined;
  const parts: string[] = [];
  for (const update of suggestions) {
    if (update.type === "addRules") {
      for (const rule of update.rules) {
        parts.push(rule.ruleContent !== undefined ? `${rule.toolName}(${rule.ruleContent})` : rule.toolName);
      }
    } else if (update.type === "setMode") parts.push(`mode ${update.mode}`);
    else if (update.type === "addDirectories") parts.push(update.directories.join(", "));
  }
  return parts.length > 0 ? parts.join(", ") : undefined;
}
