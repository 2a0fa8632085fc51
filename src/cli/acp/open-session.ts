/**
 * Opens the `query()` behind an ACP session: the `goat` command line's configuration (flags given
 * after `goat acp`, settings files, workspace trust as in print mode) for the session's folder, plus
 * what the client gives: its MCP servers, its permission answers, its file system and terminal when it
 * offers them.
 */
import { randomUUID } from "node:crypto";
import type { AgentContext, ClientCapabilities, McpServer } from "@agentclientprotocol/sdk";
import { RequestError } from "@agentclientprotocol/sdk";
import type { McpServerConfig, PermissionModeName, Tool } from "../../index.js";
import { query } from "../../index.js";
import { DEFAULT_TOOL_NAMES } from "../../tools/index.js";
import type { CliArgs } from "../args.js";
import { buildConfig, missingKeyMessage, settleCliTrust, withMcpServers } from "../config.js";
import { clientFileTools } from "./client-fs-tools.js";
import { clientTerminalBash } from "./client-terminal-tool.js";
import { askClient } from "./permission.js";
import { AcpSession, PromptQueue } from "./session.js";

/** What opening a session needs from the connection. */
export interface SessionContext {
  args: CliArgs;
  client: AgentContext;
  capabilities: ClientCapabilities | undefined;
}

/** A new session in `cwd`, or the stored session `resume` continued. */
export async function openSession(
  context: SessionContext,
  request: { cwd: string; mcpServers: McpServer[]; resume?: string },
): Promise<AcpSession> {
  const args: CliArgs = { ...context.args, cwd: request.cwd, ignoredFlags: [] };
  const trust = await settleCliTrust(args, false);
  if (trust === "quit") throw RequestError.internalError(undefined, "workspace trust was refused");
  const config = await withMcpServers(buildConfig(args, process.env, trust), args);
  const keyMessage = missingKeyMessage(config.model, process.env);
  if (keyMessage) throw RequestError.authRequired(undefined, keyMessage);
  const sessionId = request.resume ?? randomUUID();
  const mode: PermissionModeName = config.options.permissionMode ?? "default";
  const input = new PromptQueue();
  const clientTools = clientFileTools(context.client, sessionId, context.capabilities);
  // The editor's terminal runs what Goat would run unconfined; with the sandbox on, Goat's Bash runs all.
  if (context.capabilities?.terminal === true && config.options.sandbox?.enabled !== true) {
    const directories = [config.cwd, ...(config.options.additionalDirectories ?? [])];
    clientTools.set(
      "Bash",
      clientTerminalBash({
        client: context.client,
        sessionId,
        directories: () => directories,
        env: process.env,
        send: (update) => context.client.notify("session/update", { sessionId, update }),
      }),
    );
  }
  // Bound once the session exists: the permission bridge tells it of mode changes the answers make.
  let session: AcpSession | undefined;
  const q = query({
    prompt: input,
    options: {
      ...config.options,
      ...(request.resume !== undefined ? { resume: request.resume } : { sessionId }),
      includePartialMessages: true,
      permissionMode: mode,
      // The editor's mode menu offers bypassPermissions; choosing it there is the user's own word.
      allowDangerouslySkipPermissions: true,
      canUseTool: askClient(context.client, sessionId, (next) => session?.modeChanged(next)),
      mcpServers: { ...config.options.mcpServers, ...clientMcpServers(request.mcpServers) },
      ...(clientTools.size > 0 && !isPreset(config.options.tools)
        ? { tools: withReplacements(config.options.tools, clientTools) }
        : {}),
    },
  });
  session = new AcpSession(sessionId, config.cwd, q, input, context.client, mode);
  return session;
}

/** The client's MCP servers in Goat's configuration shape, by name. */
function clientMcpServers(servers: readonly McpServer[]): Record<string, McpServerConfig> {
  const configs: Record<string, McpServerConfig> = {};
  for (const server of servers) {
    if ("type" in server && (server.type === "http" || server.type === "sse")) {
      configs[server.name] = {
        type: server.type,
        url: server.url,
        headers: Object.fromEntries(server.headers.map((h) => [h.name, h.value])),
      };
    } else if ("command" in server) {
      configs[server.name] = {
        type: "stdio",
        command: server.command,
        args: server.args,
        env: Object.fromEntries(server.env.map((v) => [v.name, v.value])),
      };
    }
  }
  return configs;
}

/** The session's tool list with the client's tools in place of Goat's of the same name. */
function withReplacements(
  base: ReadonlyArray<string | Tool> | undefined,
  replacements: Map<string, Tool>,
): Array<string | Tool> {
  return (base ?? DEFAULT_TOOL_NAMES).map((entry) =>
    typeof entry === "string" ? (replacements.get(entry) ?? entry) : entry,
  );
}

/** A tools preset names Claude Code's or Goat's set as a whole: left as it is (Goat's own Write and Edit). */
function isPreset(tools: unknown): tools is { type: "preset" } {
  return typeof tools === "object" && tools !== null && !Array.isArray(tools);
}
