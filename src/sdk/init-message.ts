/** Claude's `system/init` message, from what the session says about itself as a run starts. */
import { randomUUID } from "node:crypto";
import type { SessionInitInfo } from "../runtime/session-init.js";
import { CLAUDE_CODE_PROTOCOL_VERSION, GOAT_VERSION } from "../version.js";
import type { SDKSystemInitMessage } from "./sdk-messages.js";

/** The `system/init` message that opens each run. */
export function initMessage(info: SessionInitInfo): SDKSystemInitMessage {
  return {
    type: "system",
    subtype: "init",
    uuid: randomUUID(),
    session_id: info.sessionId,
    cwd: info.cwd,
    model: info.model,
    tools: info.tools,
    mcp_servers: info.mcpServers,
    agents: info.agents,
    permissionMode: info.permissionMode,
    slash_commands: info.slashCommands,
    apiKeySource: info.apiKeySource,
    claude_code_version: CLAUDE_CODE_PROTOCOL_VERSION,
    goat_version: GOAT_VERSION,
    ...("launcher" in info.confinement
      ? { goat_confinement: info.confinement.launcher }
      : { goat_confinement: "none", goat_confinement_problem: info.confinement.problem }),
    output_style: "default",
    skills: info.skills,
    plugins: info.plugins,
    ...(info.pluginErrors?.length ? { plugin_errors: info.pluginErrors } : {}),
  };
}
