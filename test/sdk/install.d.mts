/** Types of `install.mjs`: the official Claude Agent SDK of test/sdk/, installed on demand. */

/** The SDK's entry module, once installed. */
export declare const CLAUDE_SDK_ENTRY: string;

/** Zed's ACP adapter for Claude (`claude-agent-acp`), its program, once installed. */
export declare const ACP_ADAPTER_ENTRY: string;

/** Installs the SDK package unless the pinned version is there (waiting for another installer). */
export declare function ensureClaudeSdkInstalled(): Promise<void>;
