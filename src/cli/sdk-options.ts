/**
 * `query()` options of the Claude Agent SDK that the CLI passes through under their Claude names:
 * the flags and `initialize` fields the SDKs send map onto them one to one. Some are being added to
 * Goat's `QueryOptions` (issue #13: structured output, thinking, effort, file checkpoints, setting
 * sources); until a build has them, setting them has no effect, so the CLI can be ahead of the runtime
 * without a second mapping layer.
 */
import type { QueryOptions } from "../agent/options.js";

/** Claude's `thinking` option: adaptive, a fixed budget, or off. */
export type ThinkingOption =
  | { type: "adaptive" }
  | { type: "enabled"; budgetTokens?: number }
  | { type: "disabled" };

/** Claude's effort levels (`--effort`). */
export const EFFORT_LEVELS = ["low", "medium", "high", "xhigh", "max"] as const;

/** The options the CLI sets beyond today's `QueryOptions`, with the Claude Agent SDK's names and shapes. */
export interface ClaudeSdkOptions {
  /** `--json-schema` / `initialize.jsonSchema`: the final answer is JSON matching the schema. */
  outputFormat?: { type: "json_schema"; schema: Record<string, unknown> };
  /** `--thinking` / `--max-thinking-tokens`. */
  thinking?: ThinkingOption;
  /** `--effort`. */
  effort?: (typeof EFFORT_LEVELS)[number];
  /** `CLAUDE_CODE_ENABLE_SDK_FILE_CHECKPOINTING=true`: back files up before edits, for `rewind_files`. */
  enableFileCheckpointing?: boolean;
  /** `--setting-sources` (the CLI reads the files itself; passed on so the runtime knows). */
  settingSources?: Array<"user" | "project" | "local">;
  /** `--include-hook-events`: hook_started / hook_response system messages. */
  includeHookEvents?: boolean;
  /** The `sandbox` settings (the TypeScript SDK merges its `sandbox` option into `--settings`). */
  sandbox?: Record<string, unknown>;
}

/** `QueryOptions` with the Claude options the CLI may set. */
export type CliQueryOptions = QueryOptions & ClaudeSdkOptions;
