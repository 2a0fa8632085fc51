/**
 * Managed (policy) settings handed down by the program that embeds Goat (the Claude Agent SDK's
 * `managedSettings`, the CLI's `--managed-settings`): kept restrictive-only, as Claude Code does, so an
 * embedder can lock a session down but never open it up. What Goat enforces:
 *
 * - `permissions.deny` and `permissions.ask` rules, above every other source and never removable;
 * - `permissions.disableBypassPermissionsMode: "disable"` (bypassPermissions cannot be entered);
 * - `allowManagedPermissionRulesOnly: true` (rules from anywhere else are ignored);
 * - `allowManagedHooksOnly: true`, and `disableAllHooks` (any value but false), which binds the same
 *   way: no command hook from a settings file runs (the host's own callbacks still do);
 * - `sandbox`: `enabled: true`, `allowUnsandboxedCommands: false`, `autoAllowBashIfSandboxed: false`,
 *   `network.allowAllUnixSockets: false`, `network.allowLocalBinding: false`; network deny lists hold
 *   by construction (Goat's sandbox has no network at all).
 *
 * Keys that would widen access (`permissions.allow`, `additionalDirectories`, `model`, `env`, …) are
 * dropped, as in Claude Code (reported). A restrictive key Goat cannot enforce (MCP server allow and
 * deny lists, model allowlists, sandbox file-system lists) is an error: a policy must never look
 * applied when it is not.
 */
import { GoatError } from "../errors.js";
import type { SandboxSettings } from "../sandbox/settings.js";

/** What Goat enforces of a managed settings object. */
export interface ManagedSettings {
  permissions: {
    deny?: string[];
    ask?: string[];
    disableBypassPermissionsMode?: boolean;
    managedRulesOnly?: boolean;
  };
  /** No command hook from settings runs. */
  managedHooksOnly: boolean;
  /** Sandbox settings that tighten the session's (merged over them). */
  sandbox?: SandboxSettings;
  /** The keys left out because they would widen access, for one notice. */
  dropped: string[];
}

/** Managed settings that ask for something Goat cannot enforce. */
export class ManagedSettingsError extends GoatError {
  override name = "ManagedSettingsError";
  constructor(message: string) {
    super(message, { code: "invalid_managed_settings" });
  }
}

/** Keys that only restrict something Goat does not have (HTTP hooks, plugin marketplaces): nothing to do. */
const SATISFIED = new Set([
  "allowedHttpHookUrls",
  "httpHookAllowedEnvVars",
  "blockedMarketplaces",
  "strictKnownMarketplaces",
  "strictPluginOnlyCustomization",
  "disableSkillShellExecution",
  "parentSettingsBehavior",
  "managedSourcesBehavior",
]);
/** Restrictive keys Goat cannot enforce. */
const UNENFORCEABLE = new Set([
  "allowedMcpServers",
  "deniedMcpServers",
  "allowManagedMcpServersOnly",
  "availableModels",
  "enforceAvailableModels",
  "deniedModels",
  "disableAutoMode",
  "forceLoginMethod",
  "forceLoginOrgUUID",
  "allowedProviders",
]);

/** Reads a managed settings object; throws `ManagedSettingsError` for what Goat cannot enforce. */
export function readManagedSettings(value: unknown): ManagedSettings {
  const raw = object(value, "managedSettings");
  const out: ManagedSettings = { permissions: {}, managedHooksOnly: false, dropped: [] };
  const unenforceable: string[] = [];
  for (const [key, v] of Object.entries(raw)) {
    if (v === undefined || v === null) continue;
    if (key === "permissions") readPermissions(object(v, "managedSettings.permissions"), out);
    else if (key === "allowManagedPermissionRulesOnly") {
      if (v === true) out.permissions.managedRulesOnly = true;
    } else if (key === "allowManagedHooksOnly") {
      if (v === true) out.managedHooksOnly = true;
    } else if (key === "disableAllHooks") {
      // Claude Code binds any value but false as allowManagedHooksOnly (policies often carry text).
      if (v !== false && v !== "false") out.managedHooksOnly = true;
    } else if (key === "sandbox") readSandbox(object(v, "managedSettings.sandbox"), out, unenforceable);
    else if (UNENFORCEABLE.has(key)) unenforceable.push(key);
    else if (!SATISFIED.has(key)) out.dropped.push(key);
  }
  if (unenforceable.length > 0) {
    throw new ManagedSettingsError(
      `managed settings: Goat cannot enforce ${unenforceable.join(", ")}; the session was not started rather than run without them`,
    );
  }
  return out;
}

function readPermissions(p: Record<string, unknown>, out: ManagedSettings): void {
  for (const [key, v] of Object.entries(p)) {
    if (key === "deny" || key === "ask")
      out.permissions[key] = stringList(v, `managedSettings.permissions.${key}`);
    else if (key === "disableBypassPermissionsMode") {
      if (v === "disable") out.permissions.disableBypassPermissionsMode = true;
    } else out.dropped.push(`permissions.${key}`);
  }
}

function readSandbox(s: Record<string, unknown>, out: ManagedSettings, unenforceable: string[]): void {
  const sandbox: SandboxSettings = {};
  for (const [key, v] of Object.entries(s)) {
    if (key === "enabled") {
      if (v === true) sandbox.enabled = true;
    } else if (key === "allowUnsandboxedCommands" || key === "autoAllowBashIfSandboxed") {
      if (v === false) sandbox[key] = false;
    } else if (key === "network") {
      for (const [nk, nv] of Object.entries(object(v, "managedSettings.sandbox.network"))) {
        if (nk === "allowAllUnixSockets" || nk === "allowLocalBinding") {
          if (nv === false) sandbox.network = { ...sandbox.network, [nk]: false };
        } else if (nk === "deniedDomains" || nk === "allowManagedDomainsOnly") {
          // Goat's sandbox reaches no network at all: any deny list holds.
        } else out.dropped.push(`sandbox.network.${nk}`);
      }
    } else if (key === "failIfUnavailable") {
      // Goat's sandbox never runs a command unsandboxed because it could not start.
    } else if (key === "filesystem") unenforceable.push("sandbox.filesystem");
    else out.dropped.push(`sandbox.${key}`);
  }
  if (Object.keys(sandbox).length > 0) out.sandbox = sandbox;
}

function object(value: unknown, where: string): Record<string, unknown> {
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    throw new ManagedSettingsError(`${where} must be an object`);
  }
  return value as Record<string, unknown>;
}

function stringList(value: unknown, where: string): string[] {
  if (!Array.isArray(value) || value.some((x) => typeof x !== "string")) {
    throw new ManagedSettingsError(`${where} must be a list of rule strings`);
  }
  return value as string[];
}
