/**
 * Reads the `mcpServers` JSON of Claude Code's `.mcp.json`, settings files and `--mcp-config FILE`:
 * validates each server's shape and expands `${VAR}` / `${VAR:-default}` from the environment, so a
 * file can name a token without containing it. A bad server is reported and skipped, not fatal.
 */
import { type JsonSchema, validateJsonSchema } from "../schema/json-schema-validator.js";
import { McpConfigError } from "./errors.js";
import type { McpServerConfig } from "./types.js";

const stringRecord = { type: "object", additionalProperties: { type: "string" } };
const timeout = { type: "number", minimum: 0 };
const stdioSchema: JsonSchema = {
  type: "object",
  properties: {
    type: { const: "stdio" },
    command: { type: "string", minLength: 1 },
    args: { type: "array", items: { type: "string" } },
    env: stringRecord,
    toolTimeoutMs: timeout,
  },
  required: ["command"],
};
const remoteSchema: JsonSchema = {
  type: "object",
  properties: {
    type: { type: "string", enum: ["http", "sse"] },
    url: { type: "string" },
    headers: stringRecord,
    toolTimeoutMs: timeout,
  },
  required: ["type", "url"],
};

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
    throw new McpConfigError("MCP config must be a JSON object with an mcpServers field");
  }
  const record = "mcpServers" in value ? (value as { mcpServers: unknown }).mcpServers : value;
  if (record === null || typeof record !== "object" || Array.isArray(record)) {
    throw new McpConfigError("mcpServers must be an object mapping server names to configs");
  }
  const servers: Record<string, McpServerConfig> = {};
  const errors: Record<string, string> = {};
  for (const [name, raw] of Object.entries(record)) {
    const missing = new Set<string>();
    const expanded = expandEnv(raw, env, missing);
    const isRemote =
      (expanded as { type?: unknown } | null)?.type === "http" ||
      (expanded as { type?: unknown } | null)?.type === "sse";
    const parsed = validateJsonSchema(isRemote ? remoteSchema : stdioSchema, expanded);
    const issues = parsed.ok
      ? []
      : parsed.issues.map((i) => `${i.path.join(".") || "(config)"}: ${i.message}`);
    const url = (expanded as { url?: unknown }).url;
    if (isRemote && typeof url === "string" && !URL.canParse(url))
      issues.push(`url: not a valid URL: ${url}`);
    if (!parsed.ok || issues.length > 0) {
      errors[name] = `invalid MCP server config: ${issues.join("; ")}`;
      continue;
    }
    if (missing.size > 0) {
      errors[name] = `environment variable(s) ${[...missing].join(", ")} not set and no default given`;
      continue;
    }
    servers[name] = parsed.value as McpServerConfig;
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
