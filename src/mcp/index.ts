/**
 * MCP support: server configs with the Claude Agent SDK's shapes, in-process servers (`tool`,
 * `createSdkMcpServer`) and the per-session manager. Importing this never loads the MCP SDK.
 */
export { type ParsedMcpConfig, parseMcpConfig } from "./config-file.js";
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
  McpSdkServerConfigWithInstance,
  McpServerConfig,
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
