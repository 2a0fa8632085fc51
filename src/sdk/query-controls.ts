/**
 * The methods of a `Query` that ask about the session or change it (model, permission mode, thinking,
 * MCP servers, flag settings, tasks, file checkpoints, what it offers), as opposed to its input and
 * its message stream (query.ts). Each is a thin call into the session; what a method pushes (a task
 * notification) goes to the query's message stream.
 */
import { GoatError, InvalidOptionError } from "../errors.js";
import type {
  McpResource,
  McpResourceContents,
  McpServerConfig,
  McpServerStatus,
  McpSetServersResult,
} from "../mcp/types.js";
import type { PermissionRulesListing } from "../permissions/rule-listing.js";
import type { RewindFilesResult } from "../runtime/file-checkpoints.js";
import type { Session } from "../runtime/session.js";
import { describeShellStatus } from "../tools/background-shells.js";
import { CLAUDE_CODE_PROTOCOL_VERSION } from "../version.js";
import type { AsyncQueue } from "./async-queue.js";
import type { QueryOptions } from "./options.js";
import type { PermissionModeName, SDKMessage } from "./sdk-messages.js";
import {
  type AccountInfo,
  type AgentInfo,
  type ContextUsage,
  type InitializationResult,
  type SlashCommand,
  type SupportedModel,
  toContextUsage,
} from "./session-info.js";

/** The display modes `setMaxThinkingTokens` takes, as the Claude Agent SDK's. */
const THINKING_DISPLAYS: readonly string[] = ["summarized", "omitted", "highlights"];

/** What a `Query` can ask of its session or change in it, between runs or during one. */
export interface QueryControls {
  /** Uses `model` from the next model call on (undefined: back to the configured model). */
  setModel(model?: string): Promise<void>;
  setPermissionMode(mode: PermissionModeName): Promise<void>;
  /**
   * Sets a fixed thinking budget from the next model call on (null or 0: no thinking), as the Claude
   * Agent SDK's. `thinkingDisplay` replaces the display mode for the rest of the session (null clears
   * it; left out, the mode in force stays). `"highlights"` is accepted by Anthropic only from the
   * sessions it hosts: the promise rejects, the display stays as it was, and the budget still applies.
   */
  setMaxThinkingTokens(
    tokens: number | null,
    thinkingDisplay?: "summarized" | "omitted" | "highlights" | null,
  ): Promise<void>;
  /** Every configured MCP server and its status (`connected`, `failed`, `pending`, `disabled`). */
  mcpServerStatus(): Promise<McpServerStatus[]>;
  /** Replaces the MCP servers added at run time; those from the options stay. */
  setMcpServers(servers: Record<string, McpServerConfig>): Promise<McpSetServersResult>;
  /** Closes an MCP server and connects it again. */
  reconnectMcpServer(name: string): Promise<void>;
  /** Disables or re-enables an MCP server. */
  toggleMcpServer(name: string, enabled: boolean): Promise<void>;
  /**
   * Reads one resource of a connected MCP server (any scheme, not only Claude Code's `ui://`). Rejects
   * for an unknown server, one without resources, or the server's own error.
   */
  readMcpResource(serverName: string, uri: string): Promise<McpResourceContents>;
  /** The resources the connected MCP servers offer (one server's with `serverName`). Goat's own. */
  listMcpResources(serverName?: string): Promise<McpResource[]>;
  /**
   * Makes one MCP server's tools ask per call even in bypassPermissions (`"default"`), or lifts that
   * (`null`). Only tightens. `warning` is set when no server has that name yet (it still applies once one does).
   */
  setMcpPermissionModeOverride(serverName: string, mode: "default" | null): Promise<{ warning?: string }>;
  /**
   * Merges settings into the session's flag layer: model, fallbackModel, effortLevel,
   * alwaysThinkingEnabled, permissions, hooks, env (see flag-settings.ts). Rejects, changing nothing,
   * for a key Goat has no meaning for or a bad value.
   */
  applyFlagSettings(settings: Record<string, unknown>): Promise<void>;
  /**
   * Tells Write and Edit that `path` was read (in a Read since dropped from the context), if it still
   * has modification time `mtime` (whole ms); a file changed since is left needing a fresh Read.
   */
  seedReadState(path: string, mtime: number): Promise<{ seeded: boolean; reason?: string }>;
  /**
   * Puts the files Write, Edit and NotebookEdit changed back as they were when the user message
   * `userMessageId` arrived (its uuid: the host's own, or `user_message_uuid` on its result), and
   * says what changed; `dryRun` only says. Needs `enableFileCheckpointing`.
   */
  rewindFiles(userMessageId: string, options?: { dryRun?: boolean }): Promise<RewindFilesResult>;
  /** The Claude Agent SDK's initialize answer: commands, agents, models, account, output styles. */
  initializationResult(): Promise<InitializationResult>;
  /**
   * The slash commands a prompt may start with: Goat's built-in `/compact`, then the custom ones
   * (`slashCommands`, `.claude/commands/`).
   */
  supportedCommands(): Promise<SlashCommand[]>;
  /** The models of the session's catalog, with the thinking and effort each takes. */
  supportedModels(): Promise<SupportedModel[]>;
  /** The subagents the Task tool offers, as `system/init` lists them. */
  supportedAgents(): Promise<AgentInfo[]>;
  /** The provider serving the current model and where its key comes from. */
  accountInfo(): Promise<AccountInfo>;
  /** How full the context window is, by category (system prompt, tools, MCP tools, messages, free). */
  getContextUsage(): Promise<ContextUsage>;
  /**
   * Stops a running subagent (by its Task call's `tool_use_id`, the `parent_tool_use_id` of its
   * messages) or kills a background shell (by its id); a `task_notification` with status `stopped`
   * follows. An id that names nothing running (a task that already ended, a typo) changes nothing,
   * as in Claude Code: a host racing a task's end must not have to catch an error.
   */
  stopTask(taskId: string): Promise<void>;
  /**
   * Moves a running Bash command (its call's `tool_use_id`; every one, without it) to the background,
   * like Ctrl+B in Claude Code: the call answers at once with the shell's id and the turn goes on; a
   * `task_notification` follows when the command ends. Resolves false only when `toolUseId` names no
   * running command. Subagents cannot be moved. Rejects when `CLAUDE_CODE_DISABLE_BACKGROUND_TASKS` is set.
   */
  backgroundTasks(toolUseId?: string): Promise<boolean>;
  /**
   * The permission rules in force with their sources (settings, flags, the host's answers, managed),
   * the added directories, and whether only managed rules count: Claude Code's `list_permission_rules`.
   */
  listPermissionRules(): Promise<PermissionRulesListing>;
}

/** The controls of the session under a query; task notifications go to `output`. */
export function createQueryControls(
  session: Session,
  options: QueryOptions,
  output: AsyncQueue<SDKMessage>,
): QueryControls {
  const { runtime } = session;
  const mcpManager = (name: string) => {
    const manager = runtime.mcp();
    if (!manager) throw noMcpServer(name);
    return manager;
  };
  return {
    async setModel(model) {
      runtime.setModel(model);
    },
    async setPermissionMode(mode) {
      runtime.setPermissionMode(mode);
    },
    async setMaxThinkingTokens(tokens, thinkingDisplay) {
      if (thinkingDisplay != null && !THINKING_DISPLAYS.includes(thinkingDisplay)) {
        throw new InvalidOptionError(
          "thinkingDisplay",
          `setMaxThinkingTokens: thinkingDisplay must be ${THINKING_DISPLAYS.map((d) => `"${d}"`).join(", ")} or null (got ${JSON.stringify(thinkingDisplay)})`,
        );
      }
      if (thinkingDisplay === "highlights") {
        runtime.setThinkingBudget(tokens ?? undefined);
        throw new InvalidOptionError(
          "thinkingDisplay",
          'setMaxThinkingTokens: thinking display "highlights" is accepted by Anthropic only from the sessions it hosts; the display mode is unchanged, the budget applies',
        );
      }
      runtime.setThinkingBudget(tokens ?? undefined, thinkingDisplay);
    },
    mcpServerStatus: async () => runtime.mcp()?.status() ?? [],
    setMcpServers: (servers) => runtime.setMcpServers(servers),
    reconnectMcpServer: async (name) => mcpManager(name).reconnect(name),
    toggleMcpServer: async (name, enabled) => mcpManager(name).toggle(name, enabled),
    readMcpResource: async (name, uri) => mcpManager(name).readResource(name, uri, runtime.signal),
    listMcpResources: async (name) => runtime.mcp()?.listResources(name, runtime.signal) ?? [],
    async setMcpPermissionModeOverride(name, mode) {
      if (mode !== "default" && mode !== null) {
        throw new GoatError(
          `setMcpPermissionModeOverride: mode must be "default" or null (Goat has no auto mode), got ${JSON.stringify(mode)}`,
          { code: "invalid_argument" },
        );
      }
      runtime.setMcpPermissionModeOverride(name, mode);
      const known =
        Object.hasOwn(options.mcpServers ?? {}, name) ||
        (runtime.mcp()?.status() ?? []).some((s) => s.name === name);
      return known || mode === null
        ? {}
        : { warning: `No MCP server is named "${name}" yet; the override applies once one is.` };
    },
    applyFlagSettings: async (settings) => runtime.applyFlagSettings(settings),
    seedReadState: (path, mtime) => runtime.seedReadState(path, mtime),
    initializationResult: async () => ({
      commands: runtime.info.commands(),
      agents: runtime.info.agents(),
      output_style: "default",
      available_output_styles: ["default"],
      models: runtime.info.models(),
      account: runtime.info.account(),
      claude_code_version: CLAUDE_CODE_PROTOCOL_VERSION,
    }),
    supportedCommands: async () => runtime.info.commands(),
    supportedModels: async () => runtime.info.models(),
    supportedAgents: async () => runtime.info.agents(),
    accountInfo: async () => runtime.info.account(),
    getContextUsage: async () => toContextUsage(runtime.info.contextFigures()),
    async stopTask(taskId) {
      const stopped = await runtime.stopTask(taskId);
      if (!stopped) return;
      output.push({
        type: "system",
        subtype: "task_notification",
        uuid: crypto.randomUUID(),
        session_id: runtime.sessionId,
        task_id: taskId,
        ...(stopped.toolUseId ? { tool_use_id: stopped.toolUseId } : {}),
        status: "stopped",
        output_file: "",
        summary: stopped.toolUseId ? "The subagent was stopped." : "The background shell was killed.",
      });
    },
    listPermissionRules: async () => runtime.listPermissionRules(),
    async backgroundTasks(toolUseId) {
      const moved = runtime.backgroundTasks(toolUseId);
      for (const { toolUseId: id, shell } of moved) {
        void shell.done.then(() => {
          if (output.closed) return;
          output.push({
            type: "system",
            subtype: "task_notification",
            uuid: crypto.randomUUID(),
            session_id: runtime.sessionId,
            task_id: shell.id,
            tool_use_id: id,
            status:
              shell.status === "completed" ? "completed" : shell.status === "killed" ? "stopped" : "failed",
            output_file: "",
            summary: `The command moved to the background ended: ${describeShellStatus(shell)}.`,
          });
        });
      }
      return toolUseId === undefined || moved.length > 0;
    },
    async rewindFiles(userMessageId, opts) {
      if (!runtime.checkpoints) {
        return {
          canRewind: false,
          error: "File checkpointing is off: pass enableFileCheckpointing: true to query() to rewind files.",
        };
      }
      // Not in the middle of a run's edits: the rewind waits for the run to end.
      await session.idle();
      return runtime.checkpoints.rewind(userMessageId, opts);
    },
  };
}

/** The MCP manager for a server name, or an error saying there is no such server. */
function noMcpServer(name: string): GoatError {
  return new GoatError(`No MCP server named "${name}": none are configured.`, { code: "unknown_mcp_server" });
}
