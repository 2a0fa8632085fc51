/**
 * `query()` options of the Claude Agent SDK that the CLI passes through under their Claude names:
 * the flags and `initialize` fields the SDKs send map onto them one to one. The one below is not a
 * `QueryOptions` field: `query()` warns that it ignores hook events, so the CLI sets it only when the
 * host asked for it. (`enableFileCheckpointing`, from `CLAUDE_CODE_ENABLE_SDK_FILE_CHECKPOINTING`, is.)
 */
import type { QueryOptions } from "../index.js";

/** Claude's `thinking` option: adaptive, a fixed budget, or off (Goat's `thinking` query option). */
export type ThinkingOption = NonNullable<QueryOptions["thinking"]>;

/** Claude's effort levels (`--effort`). */
export const EFFORT_LEVELS = ["low", "medium", "high", "xhigh", "max"] as const;

/**
 * The options the CLI sets beyond `QueryOptions`, with the Claude Agent SDK's names and shapes
 * (`--json-schema`, `--thinking`, `--effort`, `--setting-sources` and the sandbox settings map onto
 * `QueryOptions` itself).
 */
export interface ClaudeSdkOptions {
  /** `--include-hook-events`: hook_started / hook_response system messages. */
  includeHookEvents?: boolean;
}

/** `QueryOptions` with the Claude options the CLI may set. */
export type CliQueryOptions = QueryOptions & ClaudeSdkOptions;
