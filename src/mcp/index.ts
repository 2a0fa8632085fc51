/**
 * `goat-agent/mcp`: MCP servers — configs in the Claude Agent SDK's shapes (stdio, HTTP, SSE,
 * in-process), `.mcp.json` parsing, the per-session manager that connects them and offers their
 * tools, and the adapter from MCP tools to Goat tools. `createSdkMcpServer` and `tool` are also
 * exported from the root. Importing this never loads the MCP SDK.
 */
export { type ParsedMcpConfig, parseMcpConfig } from "./config-file.js";
export {
  McpConfigError,
  type McpSource,
  mergeMcpSources,
  type ResolvedMcpServers,
  readMcpConfigFile,
  settingsMcpSources,
  takeHostServers,
} from "./config-sources.js";
export { createMcpManager } from "./manager.js";
export { type CreateSdkMcpServerOptions, createSdkMcpServer, tool } from "./sdk-server.js";
export { mapCallToolResult, mcpToolName, sanitizeName, sideEffectOf } from "./tool-adapter.js";
export type {
  CallToolResult,
  Implementation,
  McpContentItem,
  McpHttpServerConfig,
  McpManager,
  McpManagerOptions,
  McpResource,
  McpResourceContents,
  McpSdkServerConfigWithInstance,
  McpServerConfig,
  McpServerLimits,
  McpServerStatus,
  McpSetServersResult,
  McpSSEServerConfig,
  McpStdioServerConfig,
  McpTransport,
  McpTransportServerInstance,
  SdkMcpServerInstance,
  SdkMcpToolDefinition,
  ToolAnnotations,
} from "./types.js";
