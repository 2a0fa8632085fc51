/**
 * The machine's managed (policy) settings file, where Claude Code's administrators put it:
 * `/etc/claude-code/managed-settings.json` on Linux, `/Library/Application Support/ClaudeCode/…` on
 * macOS, `C:\Program Files\ClaudeCode\…` on Windows. It binds every session on the machine, whatever
 * `settingSources` says, together with the host's `managedSettings`: both are restrictive-only
 * (`managed.ts`), so joining them keeps every restriction of each.
 *
 * A file that exists but cannot be read or used stops the session from starting, naming the file: a
 * policy must never look applied when it is not. A missing file is the common case and costs one
 * failed `stat`. A file that exists is read and checked once per change: what it gave is kept with
 * its modification time, size and inode, and a session whose `stat` finds them unchanged takes a copy
 * instead of reading and parsing it again (a process running many sessions reads it once).
 */
import { readFileSync, type Stats, statSync } from "node:fs";
import { mergeSandboxSettings } from "../sandbox/settings.js";
import { type ManagedSettings, ManagedSettingsError, readManagedSettings } from "./managed.js";

/** The machine's managed settings file for `platform`, or undefined where Claude Code has none. */
export function systemManagedSettingsFile(platform: NodeJS.Platform = process.platform): string | undefined {
  if (platform === "linux") return "/etc/claude-code/managed-settings.json";
  if (platform === "darwin") return "/Library/Application Support/ClaudeCode/managed-settings.json";
  if (platform === "win32") return "C:\\Program Files\\ClaudeCode\\managed-settings.json";
  return undefined;
}

/**
 * The session's managed settings: the machine's file (`file`; the platform's by default) joined with
 * the host's object; undefined when there are neither. Throws `ManagedSettingsError` naming what
 * cannot be used.
 */
export function sessionManagedSettings(
  host: Record<string, unknown> | undefined,
  file: string | undefined = systemManagedSettingsFile(),
): ManagedSettings | undefined {
  const fromFile = file === undefined ? undefined : readManagedFile(file);
  const fromHost = host === undefined ? undefined : readManagedSettings(host);
  if (!fromFile || !fromHost) return fromFile ?? fromHost;
  return joinManaged(fromFile, fromHost);
}

/** What a managed settings file gave, with the `stat` it was read under. */
interface ManagedFileEntry {
  stamp: string;
  settings?: ManagedSettings;
  error?: ManagedSettingsError;
}

/** The files read, by path: the machine's policy file, the same for every session of the process. */
const managedFileCache = new Map<string, ManagedFileEntry>();

function readManagedFile(file: string): ManagedSettings | undefined {
  let stats: Stats;
  try {
    stats = statSync(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") {
      managedFileCache.delete(file);
      return undefined;
    }
    throw new ManagedSettingsError(
      `managed settings file ${file} cannot be read: ${(error as Error).message}`,
    );
  }
  const stamp = `${stats.mtimeMs}:${stats.ctimeMs}:${stats.size}:${stats.ino}`;
  let entry = managedFileCache.get(file);
  if (entry?.stamp !== stamp) {
    entry = { stamp };
    try {
      entry.settings = parseManagedFile(file);
    } catch (error) {
      entry.error = error as ManagedSettingsError;
    }
    managedFileCache.set(file, entry);
  }
  if (entry.error) throw entry.error;
  // Each session gets its own copy: nothing one session does to it reaches another.
  return entry.settings && copyManaged(entry.settings);
}

/** A copy of every list and object of the settings (a few arrays: cheaper than structuredClone). */
function copyManaged(settings: ManagedSettings): ManagedSettings {
  const { permissions, sandbox } = settings;
  return {
    ...settings,
    permissions: {
      ...permissions,
      ...(permissions.deny ? { deny: [...permissions.deny] } : {}),
      ...(permissions.ask ? { ask: [...permissions.ask] } : {}),
    },
    ...(sandbox
      ? { sandbox: { ...sandbox, ...(sandbox.network ? { network: { ...sandbox.network } } : {}) } }
      : {}),
    dropped: [...settings.dropped],
  };
}

function parseManagedFile(file: string): ManagedSettings | undefined {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw new ManagedSettingsError(
      `managed settings file ${file} cannot be read: ${(error as Error).message}`,
    );
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new ManagedSettingsError(
      `managed settings file ${file} is not valid JSON: ${(error as Error).message}`,
    );
  }
  try {
    return readManagedSettings(json);
  } catch (error) {
    throw new ManagedSettingsError(`managed settings file ${file}: ${(error as Error).message}`);
  }
}

/** Both policies at once: every rule of each, and each restriction either one asks for. */
function joinManaged(a: ManagedSettings, b: ManagedSettings): ManagedSettings {
  const list = (x?: string[], y?: string[]) => (x || y ? [...(x ?? []), ...(y ?? [])] : undefined);
  const permissions: ManagedSettings["permissions"] = {};
  const deny = list(a.permissions.deny, b.permissions.deny);
  const ask = list(a.permissions.ask, b.permissions.ask);
  if (deny) permissions.deny = deny;
  if (ask) permissions.ask = ask;
  if (a.permissions.disableBypassPermissionsMode || b.permissions.disableBypassPermissionsMode) {
    permissions.disableBypassPermissionsMode = true;
  }
  if (a.permissions.managedRulesOnly || b.permissions.managedRulesOnly) permissions.managedRulesOnly = true;
  const sandboxes = [a.sandbox, b.sandbox].filter((s) => s !== undefined);
  return {
    permissions,
    managedHooksOnly: a.managedHooksOnly || b.managedHooksOnly,
    ...(sandboxes.length > 0 ? { sandbox: mergeSandboxSettings(sandboxes) } : {}),
    dropped: [...a.dropped, ...b.dropped],
  };
}
