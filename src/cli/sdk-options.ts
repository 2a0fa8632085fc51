/**
 * `query()` options of the Claude Agent SDK that the CLI passes through under their Claude names:
 * the flags and `initialize` fields the SDKs send map onto them one to one (all of them are
 * `QueryOptions` fields now; `enableFileCheckpointing` comes from
 * `CLAUDE_CODE_ENABLE_SDK_FILE_CHECKPOINTING`).
 */
import type { QueryOptions } from "../index.js";

/** Claude's `thinking` option: adaptive, a fixed budget, or off (Goat's `thinking` query option). */
export type ThinkingOption = NonNullable<QueryOptions["thinking"]>;

/**
 * The options the CLI builds `query()` from. The Claude Agent SDK's flags (`--json-schema`,
 * `--thinking`, `--effort`, `--setting-sources`, `--include-hook-events`, the sandbox settings) all
 * map onto `QueryOptions` itself.
 */
export type CliQueryOptions = QueryOptions;
