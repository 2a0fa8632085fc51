/**
 * Reads the `mcpServers` JSON of Claude Code's `.mcp.json`, settings files and `--mcp-config FILE`:
 * validates each server's shape and expands `${VAR}` / `${VAR:-default}` from the environment, so a
 * file can name a token without containing it. A bad server is reported and skipped, not fatal.
 */
import * as z from "zod";
import type { McpServerConfig } from "./types.js";

const stringRecord = z.record(z.string(), z.string());
const stdioSchema = z.looseObject({
  type: z.literal("stdio").optional(),
  command: z.string().min(1),
  args: z.array(z.string()).optional(),
  env: stringRecord.optional(),
  toolTimeoutMs: z.number().min(0).optional(),
});
const remoteSchema = z.looseObject({
  type: z.enum(["http", "sse"]),
  url: z.string().url(),
  headers: stringRecord.optional(),
  toolTimeoutMs: z.number().min(0).optional(),
});

/** Servers read from a config, and why the others were skipped (by server name). */
export interface ParsedMcpConfig {
  servers: Record<string, McpServerConfig>;
  errors: Record<string, string>;
}

/**
 * Parses `{ "mcpServers": { name: config } }` (or the bare `{ name: config }` record) into server
 * configs. Throws only when the value is not an object at all.
 */
export function parseMcpConfig(value: unknown, env: NodeJS.ProcessEnv = process.env): ParsedMcpConfig {
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    throw new Error("MCP config must be a JSON object with an mcpServers field");
  }
  const record = "mcpServers" in value ? (value as { mcpServers: unknown }).mcpServers : value;
  if (record === null || typeof record !== "object" || Array.isArray(record)) {
    throw new Error("mcpServers must be an object mapping server names to configs");
  }
  const servers: Record<string, McpServerConfig> = {};
  const errors: Record<string, string> = {};
  for (const [name, raw] of Object.entries(record)) {
    const missing = new Set<string>();
    const expanded = expandEnv(raw, env, missing);
    const isRemote =
      (expanded as { type?: unknown } | null)?.type === "http" ||
      (expanded as { type?: unknown } | null)?.type === "sse";
    const parsed = (isRemote ? remoteSchema : stdioSchema).safeParse(expanded);
    if (!parsed.success) {
      const issues = parsed.error.issues.map((i) => `${i.path.join(".") || "(config)"}: ${i.message}`);
      errors[name] = `invalid MCP server config: ${issues.join("; ")}`;
      continue;
    }
    if (missing.size > 0) {
      errors[name] = `environment variable(s) ${[...missing].join(", ")} not set and no default given`;
      continue;
    }
    servers[name] = parsed.data as McpServerConfig;
  }
  return { servers, errors };
}

/** Expands `${VAR}` and `${VAR:-default}` in every string of a JSON value; records unset names. */
function expandEnv(value: unknown, env: NodeJS.ProcessEnv, missing: Set<string>): unknown {
  if (typeof value === "string") {
    return value.replace(
      /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g,
      (_all, name: string, fallback?: string) => {
        const found = env[name];
        if (found !== undefined) return found;
        if (fallback !== undefined) return fallback;
        missing.add(name);
        return "";
      },
    );
  }
  if (Array.isArray(value)) return value.map((v) => expandEnv(v, env, missing));
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, expandEnv(v, env, missing)]));
  }
  return value;
}
