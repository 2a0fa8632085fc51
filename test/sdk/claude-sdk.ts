/**
 * The official Claude Agent SDK for the tests that drive `goat` with it. It lives in its own small
 * package (`test/sdk/package.json`, pinned by its lock file), installed by test/sdk/install.mjs (which
 * `npm test` runs before the tests, and these helpers again on first use), so the main install stays
 * free of it. Only the npm registry is needed.
 *
 * The module is loaded by path and typed here with the part the tests use: the root `npm test`
 * type-checks before any test runs, when the package may not be installed yet.
 */
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { CLAUDE_SDK_ENTRY, ensureClaudeSdkInstalled } from "./install.mjs";

const HERE = import.meta.dirname;

/** A message on the SDK's stream (the fields the tests read). */
export type SdkMessage = Record<string, any> & { type: string };

/** The SDK's `Query` (the methods the tests call). */
export interface SdkQuery extends AsyncGenerator<SdkMessage, void> {
  interrupt(): Promise<unknown>;
  setModel(model?: string): Promise<void>;
  setPermissionMode(mode: string): Promise<void>;
  setMaxThinkingTokens(
    tokens: number | null,
    thinkingDisplay?: "summarized" | "omitted" | "highlights" | null,
  ): Promise<void>;
  applyFlagSettings(settings: Record<string, unknown>): Promise<void>;
  supportedCommands(): Promise<any[]>;
  supportedModels(): Promise<any[]>;
  supportedAgents(): Promise<any[]>;
  accountInfo(): Promise<any>;
  initializationResult(): Promise<any>;
  reinitialize(): Promise<any>;
  readFile(path: string, options?: { maxBytes?: number; encoding?: "utf-8" | "base64" }): Promise<any>;
  reloadPlugins(): Promise<any>;
  reloadSkills(): Promise<any>;
  reloadOutputStyles(): Promise<any>;
  mcpServerStatus(): Promise<any[]>;
  setMcpServers(servers: Record<string, unknown>): Promise<any>;
  reconnectMcpServer(name: string): Promise<void>;
  toggleMcpServer(name: string, enabled: boolean): Promise<void>;
  getContextUsage(): Promise<any>;
  rewindFiles(userMessageId: string, options?: { dryRun?: boolean }): Promise<any>;
  stopTask(taskId: string): Promise<void>;
  seedReadState(path: string, mtime: number): Promise<void>;
  readMcpResource(serverName: string, uri: string): Promise<any>;
  setMcpPermissionModeOverride(
    serverName: string,
    mode: "default" | "auto" | null,
  ): Promise<{ warning?: string }>;
  updateSettings(source: "localSettings" | "userSettings", settings: Record<string, unknown>): Promise<void>;
  usage_EXPERIMENTAL_MAY_CHANGE_DO_NOT_RELY_ON_THIS_API_YET(opts?: { skipBehaviors?: boolean }): Promise<any>;
  backgroundTasks(toolUseId?: string): Promise<boolean>;
  streamInput(stream: AsyncIterable<SdkMessage>): Promise<void>;
  close(): void;
}

/** The SDK module (the exports the tests use). */
export interface ClaudeSdk {
  query(params: { prompt: string | AsyncIterable<SdkMessage>; options?: Record<string, unknown> }): SdkQuery;
  tool(
    name: string,
    description: string,
    shape: Record<string, unknown>,
    handler: (args: any, extra: unknown) => Promise<any>,
  ): unknown;
  createSdkMcpServer(options: { name: string; version?: string; tools?: unknown[] }): Record<string, unknown>;
}

let loaded: Promise<ClaudeSdk> | undefined;

/** Installs the SDK package when missing (one process at a time) and imports it. */
export function loadClaudeSdk(): Promise<ClaudeSdk> {
  loaded ??= (async () => {
    await ensureClaudeSdkInstalled();
    return (await import(pathToFileURL(CLAUDE_SDK_ENTRY).href)) as ClaudeSdk;
  })();
  return loaded;
}

/** The zod copy the SDK uses (its peer), for `tool()` input shapes. */
export async function loadSdkZod(): Promise<typeof import("zod")> {
  await loadClaudeSdk();
  return import(pathToFileURL(join(HERE, "node_modules/zod/index.js")).href);
}
