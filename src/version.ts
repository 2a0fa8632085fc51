/** Goat's version, recorded in session files and `system/init`. Kept in step with package.json by a test. */
export const GOAT_VERSION = "0.1.0";

/**
 * The Claude Code version whose stream-json protocol Goat speaks (the CLI the Claude Agent SDK 0.3.330
 * ships with). `goat --version` prints it first and `system/init` reports it as `claude_code_version`,
 * because the SDKs check that field and the version output against their minimum.
 */
export const CLAUDE_CODE_PROTOCOL_VERSION = "2.1.330";
