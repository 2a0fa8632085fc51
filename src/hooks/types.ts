/**
 * The hook data model, shaped like the Claude Agent SDK's so existing hooks port as is: the events,
 * the input each event's hooks receive, the output contract a hook returns, and the registration
 * shapes for in-process callbacks and settings-file command hooks.
 */

/** Every hook event Goat fires. */
export const HOOK_EVENTS = [
  "PreToolUse",
  "PostToolUse",
  "PostToolUseFailure",
  "UserPromptSubmit",
  "SessionStart",
  "SessionEnd",
  "Stop",
  "PreCompact",
  "PostCompact",
  "Notification",
  "PermissionRequest",
  "SubagentStart",
  "SubagentStop",
] as const;

/** A hook event name. */
export type HookEvent = (typeof HOOK_EVENTS)[number];

/** Fields present on every hook input; the runner fills them so the loop passes only the event's own. */
export interface BaseHookInput {
  session_id: string;
  transcript_path: string;
  cwd: string;
  permission_mode?: string;
  /** Set only inside subagents. */
  agent_id?: string;
  agent_type?: string;
}

/** Input of PreToolUse: the call about to run. */
export interface PreToolUseHookInput extends BaseHookInput {
  hook_event_name: "PreToolUse";
  tool_name: string;
  tool_input: Record<string, unknown>;
  tool_use_id: string;
}

/** Input of PostToolUse: the call and what it returned. */
export interface PostToolUseHookInput extends BaseHookInput {
  hook_event_name: "PostToolUse";
  tool_name: string;
  tool_input: Record<string, unknown>;
  tool_response: unknown;
  tool_use_id: string;
  duration_ms?: number;
}

/** Input of PostToolUseFailure: the call and the error it failed with. */
export interface PostToolUseFailureHookInput extends BaseHookInput {
  hook_event_name: "PostToolUseFailure";
  tool_name: string;
  tool_input: Record<string, unknown>;
  tool_use_id: string;
  error: string;
  is_interrupt?: boolean;
  duration_ms?: number;
}

/** Input of UserPromptSubmit: the prompt before it reaches the model. */
export interface UserPromptSubmitHookInput extends BaseHookInput {
  hook_event_name: "UserPromptSubmit";
  prompt: string;
}

/** Why a session started. */
export type SessionStartSource = "startup" | "resume" | "clear" | "compact";

/** Input of SessionStart. */
export interface SessionStartHookInput extends BaseHookInput {
  hook_event_name: "SessionStart";
  source: SessionStartSource;
  model?: string;
}

/** Input of SessionEnd; `reason` is free text (the SDK uses clear/resume/logout/prompt_input_exit/other). */
export interface SessionEndHookInput extends BaseHookInput {
  hook_event_name: "SessionEnd";
  reason: string;
}

/** Input of Stop: the model ended its turn. `stop_hook_active` is true when a Stop hook already continued it. */
export interface StopHookInput extends BaseHookInput {
  hook_event_name: "Stop";
  stop_hook_active: boolean;
  last_assistant_message?: string;
}

/** Input of PreCompact. */
export interface PreCompactHookInput extends BaseHookInput {
  hook_event_name: "PreCompact";
  trigger: "manual" | "auto";
  custom_instructions: string | null;
}

/** Input of PostCompact. */
export interface PostCompactHookInput extends BaseHookInput {
  hook_event_name: "PostCompact";
  trigger: "manual" | "auto";
  compact_summary: string;
}

/** Input of Notification. */
export interface NotificationHookInput extends BaseHookInput {
  hook_event_name: "Notification";
  message: string;
  title?: string;
  notification_type: string;
}

/** Input of PermissionRequest: the permission rules said "ask" for this call. */
export interface PermissionRequestHookInput extends BaseHookInput {
  hook_event_name: "PermissionRequest";
  tool_name: string;
  tool_input: Record<string, unknown>;
  tool_use_id?: string;
  permission_suggestions?: unknown[];
}

/** Input of SubagentStart. */
export interface SubagentStartHookInput extends BaseHookInput {
  hook_event_name: "SubagentStart";
  agent_id: string;
  agent_type: string;
}

/** Input of SubagentStop. */
export interface SubagentStopHookInput extends BaseHookInput {
  hook_event_name: "SubagentStop";
  stop_hook_active: boolean;
  agent_id: string;
  agent_type: string;
  agent_transcript_path: string;
  last_assistant_message?: string;
}

/** Maps each event to its full input type. */
export interface HookInputMap {
  PreToolUse: PreToolUseHookInput;
  PostToolUse: PostToolUseHookInput;
  PostToolUseFailure: PostToolUseFailureHookInput;
  UserPromptSubmit: UserPromptSubmitHookInput;
  SessionStart: SessionStartHookInput;
  SessionEnd: SessionEndHookInput;
  Stop: StopHookInput;
  PreCompact: PreCompactHookInput;
  PostCompact: PostCompactHookInput;
  Notification: NotificationHookInput;
  PermissionRequest: PermissionRequestHookInput;
  SubagentStart: SubagentStartHookInput;
  SubagentStop: SubagentStopHookInput;
}

/** The input any hook may receive; narrow on `hook_event_name`. */
export type HookInput = HookInputMap[HookEvent];

/** The event-specific fields of an input: what the loop passes to `runner.run`. */
export type HookEventFields<E extends HookEvent> = Omit<
  HookInputMap[E],
  "hook_event_name" | "session_id" | "transcript_path" | "cwd" | "permission_mode"
> &
  Partial<BaseHookInput>;

/** A permission decision a PreToolUse hook may take. */
export type HookPermissionDecision = "allow" | "deny" | "ask";

/** A PermissionRequest hook's answer, the same shape as canUseTool's result. */
export type PermissionRequestDecision =
  | { behavior: "allow"; updatedInput?: Record<string, unknown>; updatedPermissions?: unknown[] }
  | { behavior: "deny"; message?: string; interrupt?: boolean };

/** Event-specific output; `hookEventName` may be omitted (it defaults to the running event). */
export type HookSpecificOutput =
  | {
      hookEventName?: "PreToolUse";
      permissionDecision?: HookPermissionDecision;
      permissionDecisionReason?: string;
      updatedInput?: Record<string, unknown>;
      additionalContext?: string;
    }
  | {
      hookEventName?: "PostToolUse";
      additionalContext?: string;
      /** Replaces the tool output the model sees. */
      updatedToolOutput?: unknown;
      /** The SDK's name for the same replacement on MCP tools; treated like `updatedToolOutput`. */
      updatedMCPToolOutput?: unknown;
    }
  | { hookEventName?: "PermissionRequest"; decision: PermissionRequestDecision }
  | {
      hookEventName?: Exclude<HookEvent, "PreToolUse" | "PostToolUse" | "PermissionRequest">;
      additionalContext?: string;
    };

/** What a hook returns (the SDK's SyncHookJSONOutput). Every field is optional; `{}` means "no opinion". */
export interface HookJSONOutput {
  /** `false` stops the whole run after this step. */
  continue?: boolean;
  /** Shown to the user when `continue` is false. */
  stopReason?: string;
  /** Hide this hook's stdout from the transcript. */
  suppressOutput?: boolean;
  /** Legacy top-level decision. On PreToolUse approve = allow and block = deny. */
  decision?: "approve" | "block";
  /** Why `decision` was taken; for Stop/PostToolUse it is what the model reads. */
  reason?: string;
  /** Shown to the user, never to the model. */
  systemMessage?: string;
  hookSpecificOutput?: HookSpecificOutput;
}

/** An in-process hook, the Claude Agent SDK's `HookCallback`. */
export type HookCallback = (
  input: HookInput,
  toolUseID: string | undefined,
  options: { signal: AbortSignal },
  // biome-ignore lint/suspicious/noConfusingVoidType: lets `async () => {}` (no opinion) type-check as a hook.
) => Promise<HookJSONOutput | undefined | void>;

/** Hooks registered for one event, filtered by `matcher`. */
export interface HookCallbackMatcher {
  /** Tool-name pattern (`Bash|Write`, a regex, `*` or empty = all); for other events see `matcherTarget`. */
  matcher?: string;
  hooks: HookCallback[];
  /** Seconds each hook may run before it is aborted and reported. Default 60. */
  timeout?: number;
  /** What a failing hook (throw, timeout) means: `continue` (default, report only) or `block`. */
  onFailure?: "continue" | "block";
}

/** In-process hooks: the SDK's `options.hooks`. */
export type HooksConfig = Partial<Record<HookEvent, HookCallbackMatcher[]>>;

/** A settings-file command hook: run with `sh -c`, the event JSON on stdin. */
export interface CommandHookEntry {
  type: "command";
  command: string;
  /** Seconds; default 60. */
  timeout?: number;
  /** The settings file it came from, for error messages. */
  source?: string;
}

/** A settings-file matcher group. */
export interface SettingsHookMatcher {
  matcher?: string;
  hooks: CommandHookEntry[];
}

/** Command hooks loaded from settings files. */
export type SettingsHooks = Partial<Record<HookEvent, SettingsHookMatcher[]>>;
