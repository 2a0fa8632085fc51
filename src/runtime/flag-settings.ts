/**
 * `applyFlagSettings()`: Claude Code's "flag" settings layer, changed while the session runs. Each
 * call shallow-merges its top-level keys into the layer (a key given again replaces the earlier value
 * whole; `null` removes it, and what lies below takes over again), and the keys it names take effect
 * from the next model call or tool call on. The keys Goat has a meaning for:
 *
 * - `model`, `fallbackModel` (one model, or a list of one), `effortLevel`, `alwaysThinkingEnabled`;
 * - `permissions` (`allow`, `deny`, `ask` rules, `additionalDirectories`, `defaultMode`): the layer's
 *   rules and directories replace the previous call's; those given at start stay;
 * - `hooks` (command hooks in the settings-file shape, run after the others), `env` (variables for
 *   tools and command hooks, over the session's);
 * - `outputStyle` (only `"default"`, the one style Goat has).
 *
 * A call is checked whole before anything changes: an unknown key, a bad value, a rule that does not
 * parse or a mode that cannot be entered rejects it and leaves the session as it was.
 */
import { GoatError } from "../errors.js";
import { parseHookSettings } from "../hooks/settings.js";
import type { SettingsHooks } from "../hooks/types.js";
import type { EffortLevel, ThinkingConfig } from "../llm/types.js";
import type { PermissionEngine, PermissionLayer } from "../permissions/engine.js";
import { PERMISSION_MODES, type PermissionMode } from "../permissions/types.js";

/** What applying the layer changes in the session. */
export interface FlagSettingsTarget {
  /** Throws when `model` cannot be used (no provider, no price under a budget). */
  checkModel(model: string): void;
  /** Undefined: back to the configured model. */
  setModel(model: string | undefined): void;
  /** Undefined: back to the configured fallback model. */
  setFallbackModel(model: string | undefined): void;
  /** Undefined: the model's default effort. */
  setEffort(effort: EffortLevel | undefined): void;
  /** Undefined: back to the configured thinking setting. */
  setThinking(thinking: ThinkingConfig | undefined): void;
  permissions: Pick<PermissionEngine, "setFlagLayer" | "setMode" | "mode">;
  setFlagHooks(hooks: SettingsHooks | undefined): void;
  /** Undefined: the session's environment alone. */
  setFlagEnv(env: Record<string, string> | undefined): void;
}

/**
 * An error in the settings a host asked to apply (`Query.applyFlagSettings`); nothing was changed. Its
 * `code` is `unsupported_setting` for keys Goat has no meaning for, `invalid_setting` for bad values.
 */
export class FlagSettingsError extends GoatError {
  override name = "FlagSettingsError";
  constructor(message: string, code: "unsupported_setting" | "invalid_setting") {
    super(message, { code });
  }
}

/** The top-level keys Goat applies. */
const FLAG_SETTING_KEYS: readonly string[] = [
  "model",
  "fallbackModel",
  "effortLevel",
  "alwaysThinkingEnabled",
  "permissions",
  "hooks",
  "env",
  "outputStyle",
];
const PERMISSION_KEYS = ["allow", "deny", "ask", "additionalDirectories", "defaultMode"];
const EFFORTS: readonly string[] = ["low", "medium", "high", "xhigh", "max"];

/** One checked key: what to do to the session. */
type Change = () => void;

/** Creates the session's flag layer; `apply` is `applyFlagSettings()`. */
export function createFlagSettings(target: FlagSettingsTarget): {
  apply(settings: Record<string, unknown>): void;
} {
  // The permissions layer in force, to put back when a later part of the same change is refused.
  const layers = { current: undefined as PermissionLayer | undefined };
  return {
    apply(settings) {
      const unknown = Object.keys(settings).filter((k) => !FLAG_SETTING_KEYS.includes(k));
      if (unknown.length > 0) {
        throw new FlagSettingsError(
          `applyFlagSettings: Goat has no meaning for ${unknown.join(", ")} (it applies ${FLAG_SETTING_KEYS.join(", ")}); nothing was changed`,
          "unsupported_setting",
        );
      }
      const changes: Change[] = [];
      let permissions: Change | undefined;
      for (const [key, value] of Object.entries(settings)) {
        if (value === undefined) continue;
        if (key === "permissions") permissions = checkPermissions(value, target, layers);
        else changes.push(checkKey(key, value, target));
      }
      // The permission change is the one that can still fail (entering a mode); it goes first and
      // undoes itself, so a refused call leaves everything as it was.
      permissions?.();
      for (const change of changes) change();
    },
  };
}

function checkKey(key: string, value: unknown, target: FlagSettingsTarget): Change {
  switch (key) {
    case "model": {
      if (value === null) return () => target.setModel(undefined);
      const model = text(value, "model");
      // Claude Code's "default" is the configured model.
      if (model === "default") return () => target.setModel(undefined);
      target.checkModel(model);
      return () => target.setModel(model);
    }
    case "fallbackModel": {
      if (value === null) return () => target.setFallbackModel(undefined);
      const list = Array.isArray(value) ? value : [value];
      if (list.length !== 1) {
        throw new FlagSettingsError(
          `applyFlagSettings: fallbackModel must name one model (Goat tries one fallback), got ${list.length}`,
          "invalid_setting",
        );
      }
      const model = text(list[0], "fallbackModel");
      target.checkModel(model);
      return () => target.setFallbackModel(model);
    }
    case "effortLevel": {
      if (value === null) return () => target.setEffort(undefined);
      if (typeof value !== "string" || !EFFORTS.includes(value)) {
        throw invalid(`effortLevel must be one of ${EFFORTS.join(", ")} or null`);
      }
      return () => target.setEffort(value as EffortLevel);
    }
    case "alwaysThinkingEnabled": {
      if (value === null) return () => target.setThinking(undefined);
      if (typeof value !== "boolean") throw invalid("alwaysThinkingEnabled must be true, false or null");
      const thinking: ThinkingConfig = value ? { type: "adaptive" } : { type: "disabled" };
      return () => target.setThinking(thinking);
    }
    case "hooks": {
      if (value === null) return () => target.setFlagHooks(undefined);
      let hooks: SettingsHooks;
      try {
        hooks = parseHookSettings(value, "applyFlagSettings");
      } catch (error) {
        throw invalid((error as Error).message);
      }
      return () => target.setFlagHooks(hooks);
    }
    case "env": {
      if (value === null) return () => target.setFlagEnv(undefined);
      const env = record(value, "env");
      for (const [name, v] of Object.entries(env)) {
        if (typeof v !== "string") throw invalid(`env.${name} must be a string`);
      }
      return () => target.setFlagEnv(env as Record<string, string>);
    }
    case "outputStyle": {
      if (value !== null && value !== "default") {
        throw new FlagSettingsError(
          `applyFlagSettings: outputStyle ${JSON.stringify(value)} is not available (Goat has only "default"); nothing was changed`,
          "unsupported_setting",
        );
      }
      return () => {};
    }
    default:
      throw new FlagSettingsError(`applyFlagSettings: ${key} is not applied by Goat`, "unsupported_setting");
  }
}

/** `permissions`: the layer's rules and directories, then its mode; undone when the mode is refused. */
function checkPermissions(
  value: unknown,
  target: FlagSettingsTarget,
  layers: { current: PermissionLayer | undefined },
): Change {
  if (value === null) {
    return () => {
      target.permissions.setFlagLayer(undefined);
      layers.current = undefined;
    };
  }
  const p = record(value, "permissions");
  const unknown = Object.keys(p).filter((k) => !PERMISSION_KEYS.includes(k));
  if (unknown.length > 0) {
    throw new FlagSettingsError(
      `applyFlagSettings: permissions.${unknown.join(", permissions.")} not applied by Goat (it applies ${PERMISSION_KEYS.join(", ")}); nothing was changed`,
      "unsupported_setting",
    );
  }
  const layer: PermissionLayer = {};
  for (const key of ["allow", "deny", "ask", "additionalDirectories"] as const) {
    if (p[key] === undefined || p[key] === null) continue;
    if (!Array.isArray(p[key]) || (p[key] as unknown[]).some((r) => typeof r !== "string")) {
      throw invalid(`permissions.${key} must be a list of strings`);
    }
    layer[key] = p[key] as string[];
  }
  const mode = p.defaultMode;
  if (mode !== undefined && mode !== null && !(PERMISSION_MODES as readonly unknown[]).includes(mode)) {
    throw invalid(`permissions.defaultMode must be one of ${PERMISSION_MODES.join(", ")}`);
  }
  return () => {
    try {
      target.permissions.setFlagLayer(layer);
    } catch (error) {
      throw invalid((error as Error).message);
    }
    if (typeof mode === "string" && mode !== target.permissions.mode) {
      try {
        target.permissions.setMode(mode as PermissionMode);
      } catch (error) {
        target.permissions.setFlagLayer(layers.current);
        throw invalid((error as Error).message);
      }
    }
    layers.current = layer;
  };
}

function text(value: unknown, key: string): string {
  if (typeof value !== "string" || value === "") throw invalid(`${key} must be a non-empty string or null`);
  return value;
}

function record(value: unknown, key: string): Record<string, unknown> {
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    throw invalid(`${key} must be an object or null`);
  }
  return value as Record<string, unknown>;
}

function invalid(message: string): FlagSettingsError {
  return new FlagSettingsError(`applyFlagSettings: ${message}; nothing was changed`, "invalid_setting");
}
