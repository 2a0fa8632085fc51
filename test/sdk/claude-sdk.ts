/**
 * The official Claude Agent SDK for the tests that drive `goat` with it. It lives in its own small
 * package (`test/sdk/package.json`, pinned by its lock file) installed on first use with
 * `--omit=optional`, so the SDK's native Claude binary (a large per-platform package these tests never
 * run) is not downloaded, and the main install stays free of it. Only the npm registry is needed.
 *
 * The module is loaded by path and typed here with the part the tests use: the root `npm test`
 * type-checks before any test runs, when the package may not be installed yet.
 */
import { execFile } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { promisify } from "node:util";

const HERE = import.meta.dirname;
const ENTRY = join(HERE, "node_modules/@anthropic-ai/claude-agent-sdk/sdk.mjs");
const LOCK = join(HERE, ".installing");

/** The SDK version the tests pin (the lock file's). */
export const CLAUDE_SDK_VERSION: string = JSON.parse(readFileSync(join(HERE, "package.json"), "utf8"))
  .dependencies["@anthropic-ai/claude-agent-sdk"];

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
    await ensureInstalled();
    return (await import(pathToFileURL(ENTRY).href)) as ClaudeSdk;
  })();
  return loaded;
}

/**
 * Installs the SDK package when missing, without importing it: the global set-up starts this so the
 * download overlaps the first test files instead of holding up the first SDK test.
 */
export function ensureClaudeSdkInstalled(): Promise<void> {
  return ensureInstalled();
}

function installedVersion(): string | undefined {
  try {
    return JSON.parse(readFileSync(join(ENTRY, "../package.json"), "utf8")).version;
  } catch {
    return undefined;
  }
}

async function ensureInstalled(): Promise<void> {
  // Installed means the right version and nobody writing it: npm writes package.json before the
  // rest, so a version seen while another process holds the lock may belong to a half-written copy.
  while (existsSync(LOCK) || installedVersion() !== CLAUDE_SDK_VERSION) {
    try {
      mkdirSync(LOCK);
    } catch {
      // Another process is installing: wait for it. A lock older than the install's time limit was
      // left by a killed run.
      if (lockAgeMs() > INSTALL_TIMEOUT_MS) rmSync(LOCK, { recursive: true, force: true });
      await new Promise((r) => setTimeout(r, 200));
      continue;
    }
    try {
      if (installedVersion() !== CLAUDE_SDK_VERSION) {
        await promisify(execFile)(
          "npm",
          ["install", "--omit=optional", "--no-audit", "--no-fund", "--loglevel=error"],
          { cwd: HERE, timeout: INSTALL_TIMEOUT_MS },
        );
      }
    } finally {
      rmSync(LOCK, { recursive: true, force: true });
    }
  }
  if (!existsSync(ENTRY)) throw new Error(`the Claude Agent SDK was not installed in ${HERE}`);
}

const INSTALL_TIMEOUT_MS = 300_000;

function lockAgeMs(): number {
  try {
    return Date.now() - statSync(LOCK).mtimeMs;
  } catch {
    return 0;
  }
}

/** The zod copy the SDK uses (its peer), for `tool()` input shapes. */
export async function loadSdkZod(): Promise<typeof import("zod")> {
  await loadClaudeSdk();
  return import(pathToFileURL(join(HERE, "node_modules/zod/index.js")).href);
}
