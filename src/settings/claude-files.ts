/**
 * Claude Code's settings files, read beside Goat's own: `$CLAUDE_CONFIG_DIR/settings.json` (default
 * `~/.claude/settings.json`), `<cwd>/.claude/settings.json` and `<cwd>/.claude/settings.local.json`.
 * A team's repository prepared for Claude Code keeps its deny rules there; a Goat that ignored them
 * would run what the team forbade.
 *
 * These files were written for Claude Code, which knows many keys Goat does not (status lines,
 * plugins, attribution, …): those are ignored quietly. What Goat would reject in its own files
 * (malformed JSON, a hook type or permission mode it does not have, a value of the wrong shape) is
 * one warning naming the file and the key, and the rest of the file still applies. Goat's own files
 * stay strict: they are written for Goat, so a mistake there is an error.
 */
import { homedir } from "node:os";
import { basename, dirname, join } from "node:path";
import { MODEL_ALIASES } from "../llm/resolve.js";

/** Claude Code's user folder: `$CLAUDE_CONFIG_DIR`, else `~/.claude`. */
export function claudeConfigDir(env: Record<string, string | undefined>): string {
  return env.CLAUDE_CONFIG_DIR && env.CLAUDE_CONFIG_DIR.length > 0
    ? env.CLAUDE_CONFIG_DIR
    : join(homedir(), ".claude");
}

/** Whether `file` is one of Claude Code's settings files (its user file, or in a `.claude` folder). */
export function isClaudeSettingsFile(file: string, env: Record<string, string | undefined>): boolean {
  return basename(dirname(file)) === ".claude" || file === join(claudeConfigDir(env), "settings.json");
}

/** The permission modes Goat has (Claude Code's, less `auto`). */
const PERMISSION_MODES: readonly string[] = [
  "default",
  "acceptEdits",
  "plan",
  "bypassPermissions",
  "dontAsk",
];

/**
 * What Goat can use of a Claude Code settings file's JSON: hook handlers other than `command`
 * (Claude's `prompt`, `agent`, `http`), a permission mode Goat lacks and a model name Goat cannot
 * resolve (Claude's `opusplan`, `sonnet[1m]`, `default`) are left out, each with a warning; the rest
 * is as written. The loader then checks each key on its own.
 */
export function usableClaudeSettings(
  json: Record<string, unknown>,
  file: string,
  warn: (message: string) => void,
): Record<string, unknown> {
  const out: Record<string, unknown> = { ...json };
  if (isObject(json.permissions) && json.permissions.defaultMode !== undefined) {
    const mode = json.permissions.defaultMode;
    if (typeof mode !== "string" || !PERMISSION_MODES.includes(mode)) {
      warn(`${file}: permissions.defaultMode ${JSON.stringify(mode)} is not a Goat mode; ignored`);
      const { defaultMode: _, ...rest } = json.permissions;
      out.permissions = rest;
    }
  }
  if (isObject(json.hooks)) out.hooks = commandHooksOnly(json.hooks, file, warn);
  if (typeof json.model === "string" && !isGoatModelName(json.model)) {
    warn(`${file}: model ${JSON.stringify(json.model)} is not a model name Goat knows; ignored`);
    delete out.model;
  }
  return out;
}

/** A Claude model id, an alias Goat expands, or a `provider/model` id: what Goat's model lookup resolves. */
export function isGoatModelName(model: string): boolean {
  const name = model.trim().toLowerCase();
  return Object.hasOwn(MODEL_ALIASES, name) || name.startsWith("claude-") || name.includes("/");
}

/** The `hooks` value with only `command` handlers (the only kind Goat runs); the others are named. */
function commandHooksOnly(
  hooks: Record<string, unknown>,
  file: string,
  warn: (message: string) => void,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [event, groups] of Object.entries(hooks)) {
    if (!Array.isArray(groups)) {
      out[event] = groups; // the hook parser names the mistake
      continue;
    }
    out[event] = groups.map((group) => {
      if (!isObject(group) || !Array.isArray(group.hooks)) return group;
      const kept = group.hooks.filter((h) => !isObject(h) || h.type === "command");
      for (const h of group.hooks) {
        if (isObject(h) && h.type !== "command") {
          warn(`${file}: ${event} hook of type ${JSON.stringify(h.type)} is not supported by Goat; ignored`);
        }
      }
      return { ...group, hooks: kept };
    });
  }
  return out;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}
