/**
 * The `sandbox` option of `query()` and the `sandbox` key of settings files, in the Claude Agent SDK's
 * shape, and its validation: a typo in a safety setting is an error naming the field, never a silently
 * weaker sandbox.
 */
import { GoatError } from "../errors.js";

/** Network access of sandboxed commands. Without `allowedDomains` there is none at all. */
export interface SandboxNetworkSettings {
  /**
   * Hosts sandboxed commands may reach, e.g. `["registry.npmjs.org", "*.github.com"]`. Not supported by
   * Goat's sandbox yet: giving any is an error rather than an unconfined network. Leave it out for no
   * network, or list the commands that need the network in `excludedCommands`.
   */
  allowedDomains?: string[];
  /**
   * macOS: let commands listen on local ports. On Linux a sandboxed command always has its own private
   * loopback (it can listen and connect there, and nothing outside can reach it), so this changes nothing.
   */
  allowLocalBinding?: boolean;
  /**
   * macOS: Unix socket paths commands may connect to. Linux cannot filter by path, so there this is
   * ignored; use `allowAllUnixSockets`.
   */
  allowUnixSockets?: string[];
  /** Let commands create Unix sockets (and so connect to any socket file they can see). Default false. */
  allowAllUnixSockets?: boolean;
}

/**
 * The OS sandbox for Bash (bubblewrap on Linux, `sandbox-exec` on macOS): the command sees the
 * filesystem read-only except the working directory, the additional directories and a private `/tmp`;
 * it has no network; its processes end with the call. See README "Safety" for what it does not cover.
 */
export interface SandboxSettings {
  /** Run Bash commands in the sandbox. Default false. When it cannot start, the command fails. */
  enabled?: boolean;
  /**
   * Let sandboxed commands run without asking (in `default`, `acceptEdits` and `dontAsk` modes): the
   * sandbox, not a prompt, is the boundary. Deny and ask rules still apply. Default true.
   */
  autoAllowBashIfSandboxed?: boolean;
  /**
   * Commands that run outside the sandbox, through the normal permission check: `"docker"` matches
   * `docker` and `docker ps`; `"npm run:*"` any line starting with `npm run`.
   */
  excludedCommands?: string[];
  /**
   * Let the model ask for a command to run outside the sandbox (`dangerouslyDisableSandbox: true` in
   * the Bash input); it then goes through the normal permission check. When false the flag is ignored
   * and every command is sandboxed. Default true.
   */
  allowUnsandboxedCommands?: boolean;
  /** Network access; none by default. */
  network?: SandboxNetworkSettings;
  /** The bubblewrap executable; default `bwrap` found on PATH. */
  bwrapPath?: string;
}

/** Settings after defaults: what the sandbox runs with. */
export interface ResolvedSandboxSettings {
  enabled: boolean;
  autoAllowBashIfSandboxed: boolean;
  excludedCommands: string[];
  allowUnsandboxedCommands: boolean;
  network: { allowLocalBinding: boolean; allowUnixSockets: string[]; allowAllUnixSockets: boolean };
  bwrapPath?: string;
}

/** A sandbox setting that cannot be used; the message names the field. */
export class SandboxSettingsError extends GoatError {
  override name = "SandboxSettingsError";
  constructor(message: string) {
    super(message, { code: "invalid_sandbox_settings" });
  }
}

const TOP_KEYS = new Set([
  "enabled",
  "autoAllowBashIfSandboxed",
  "excludedCommands",
  "allowUnsandboxedCommands",
  "network",
  "bwrapPath",
  // Accepted for compatibility with Claude Code settings; Goat always fails when the sandbox is unavailable.
  "failIfUnavailable",
]);
const NETWORK_KEYS = new Set([
  "allowedDomains",
  "allowLocalBinding",
  "allowUnixSockets",
  "allowAllUnixSockets",
]);

/**
 * Checks a `sandbox` value (from options or a settings file, so of unknown shape) and fills in the
 * defaults. `where` names its origin in error messages. Throws SandboxSettingsError.
 */
export function resolveSandboxSettings(value: unknown, where = "sandbox"): ResolvedSandboxSettings {
  const obj = asObject(value, where);
  for (const key of Object.keys(obj)) {
    if (!TOP_KEYS.has(key)) {
      throw new SandboxSettingsError(
        `${where}.${key} is not a sandbox setting (known: ${[...TOP_KEYS].join(", ")})`,
      );
    }
  }
  if (obj.failIfUnavailable === false) {
    throw new SandboxSettingsError(
      `${where}.failIfUnavailable: false is not supported: Goat never runs a command unsandboxed when the sandbox was asked for and cannot start`,
    );
  }
  const network = obj.network === undefined ? {} : asObject(obj.network, `${where}.network`);
  for (const key of Object.keys(network)) {
    if (!NETWORK_KEYS.has(key)) {
      throw new SandboxSettingsError(
        `${where}.network.${key} is not a sandbox network setting (known: ${[...NETWORK_KEYS].join(", ")})`,
      );
    }
  }
  const domains = stringList(network.allowedDomains, `${where}.network.allowedDomains`);
  if (domains.length > 0) {
    throw new SandboxSettingsError(
      `${where}.network.allowedDomains is not supported by Goat's sandbox yet (sandboxed commands have no network). Leave it out, or list the commands that need the network in ${where}.excludedCommands so they run outside the sandbox after the normal permission check.`,
    );
  }
  const bwrapPath = obj.bwrapPath;
  if (bwrapPath !== undefined && (typeof bwrapPath !== "string" || bwrapPath === "")) {
    throw new SandboxSettingsError(`${where}.bwrapPath must be a non-empty string`);
  }
  return {
    enabled: bool(obj.enabled, `${where}.enabled`, false),
    autoAllowBashIfSandboxed: bool(obj.autoAllowBashIfSandboxed, `${where}.autoAllowBashIfSandboxed`, true),
    excludedCommands: stringList(obj.excludedCommands, `${where}.excludedCommands`).map((c) => c.trim()),
    allowUnsandboxedCommands: bool(obj.allowUnsandboxedCommands, `${where}.allowUnsandboxedCommands`, true),
    network: {
      allowLocalBinding: bool(network.allowLocalBinding, `${where}.network.allowLocalBinding`, false),
      allowUnixSockets: stringList(network.allowUnixSockets, `${where}.network.allowUnixSockets`),
      allowAllUnixSockets: bool(network.allowAllUnixSockets, `${where}.network.allowAllUnixSockets`, false),
    },
    ...(typeof bwrapPath === "string" ? { bwrapPath } : {}),
  };
}

/**
 * Merges `sandbox` values from several settings files (later ones win field by field, lists
 * concatenate), as settings files merge.
 */
export function mergeSandboxSettings(values: readonly SandboxSettings[]): SandboxSettings {
  const merged: SandboxSettings = {};
  for (const value of values) {
    const { network, excludedCommands, ...rest } = value;
    Object.assign(merged, rest);
    if (excludedCommands) merged.excludedCommands = [...(merged.excludedCommands ?? []), ...excludedCommands];
    if (network) {
      const { allowedDomains, allowUnixSockets, ...flags } = network;
      const into: SandboxNetworkSettings = { ...merged.network, ...flags };
      if (allowedDomains)
        into.allowedDomains = [...(merged.network?.allowedDomains ?? []), ...allowedDomains];
      if (allowUnixSockets)
        into.allowUnixSockets = [...(merged.network?.allowUnixSockets ?? []), ...allowUnixSockets];
      merged.network = into;
    }
  }
  return merged;
}

function asObject(value: unknown, where: string): Record<string, unknown> {
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    throw new SandboxSettingsError(`${where} must be an object`);
  }
  return value as Record<string, unknown>;
}

function bool(value: unknown, where: string, fallback: boolean): boolean {
  if (value === undefined) return fallback;
  if (typeof value !== "boolean") throw new SandboxSettingsError(`${where} must be true or false`);
  return value;
}

function stringList(value: unknown, where: string): string[] {
  if (value === undefined) return [];
  if (!Array.isArray(value) || value.some((v) => typeof v !== "string" || v.trim() === "")) {
    throw new SandboxSettingsError(`${where} must be a list of non-empty strings`);
  }
  return value as string[];
}
