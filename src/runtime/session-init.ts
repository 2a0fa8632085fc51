/**
 * What a session says about itself at the start of each run: its tools, servers, mode and the rest,
 * in Goat's terms. The SDK turns it into Claude's `system/init` message (`sdk/init-message.ts`).
 */
import type { PermissionMode } from "../permissions/types.js";
import type { PluginError } from "../settings/plugins.js";

/** The session as a run starts. */
export interface SessionInitInfo {
  sessionId: string;
  cwd: string;
  model: string;
  /** The names of the tools the model is offered. */
  tools: string[];
  mcpServers: Array<{ name: string; status: string }>;
  /** The subagents the Task tool offers (undefined without the Task tool). */
  agents?: string[];
  permissionMode: PermissionMode;
  /** The slash commands a prompt may start with. */
  slashCommands: string[];
  /** Where the current model's key comes from. */
  apiKeySource: string;
  /**
   * What confines the Bash commands allowed without asking: the sandbox launcher, or the problem that
   * keeps one from running here.
   */
  confinement: { launcher: string } | { problem: string };
  skills: string[];
  /** The plugins loaded (`plugins` option, `--plugin-dir`), and those that failed to load. */
  plugins: Array<{ name: string; path: string; version?: string }>;
  pluginErrors?: PluginError[];
}
