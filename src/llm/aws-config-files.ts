/**
 * The AWS shared files (`~/.aws/credentials` and `~/.aws/config`, or `AWS_SHARED_CREDENTIALS_FILE` and
 * `AWS_CONFIG_FILE`) read as the SDKs read them: `[name]` in credentials and `[profile name]` (or
 * `[default]`) in config, the two merged with the credentials file winning, and `[sso-session name]`
 * sections of the config file for SSO profiles.
 */
import { readFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";

/** One profile's settings (lower-case keys). */
export type AwsProfile = Record<string, string>;

/** Both files, parsed: profiles by name and the config file's `sso-session` sections. */
export interface AwsSharedFiles {
  profiles: Map<string, AwsProfile>;
  ssoSessions: Map<string, AwsProfile>;
}

/** The profile the environment selects: `AWS_PROFILE`, `AWS_DEFAULT_PROFILE`, else `default`. */
export function selectedProfile(env: Record<string, string | undefined>): string {
  return env.AWS_PROFILE || env.AWS_DEFAULT_PROFILE || "default";
}

/** Reads and merges both files (a missing file reads as empty). */
export function readSharedFiles(env: Record<string, string | undefined>, home?: string): AwsSharedFiles {
  const dir = join(home ?? homedir(), ".aws");
  const config = parseIni(readOrEmpty(env.AWS_CONFIG_FILE || join(dir, "config")));
  const credentials = parseIni(readOrEmpty(env.AWS_SHARED_CREDENTIALS_FILE || join(dir, "credentials")));
  const profiles = new Map<string, AwsProfile>();
  const ssoSessions = new Map<string, AwsProfile>();
  for (const [section, values] of config) {
    if (section.startsWith("sso-session ")) ssoSessions.set(section.slice(12).trim(), values);
    else if (section.startsWith("profile ")) merge(profiles, section.slice(8).trim(), values);
    // A bare `[name]` in config counts only for `default` (the SDKs ignore the others).
    else if (section === "default") merge(profiles, section, values);
  }
  for (const [section, values] of credentials) merge(profiles, section, values);
  return { profiles, ssoSessions };
}

function merge(into: Map<string, AwsProfile>, name: string, values: AwsProfile): void {
  into.set(name, { ...into.get(name), ...values });
}

function readOrEmpty(path: string): string {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return "";
  }
}

/** The INI dialect of the AWS files: `[section]`, `key = value`, `#`/`;` comments, nested blocks skipped. */
function parseIni(text: string): Map<string, AwsProfile> {
  const sections = new Map<string, AwsProfile>();
  let current: AwsProfile | undefined;
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.replace(/^\s+|\s+$/g, "");
    if (line === "" || line.startsWith("#") || line.startsWith(";")) continue;
    const header = /^\[\s*([^\]]+?)\s*\]$/.exec(line);
    if (header) {
      current = {};
      sections.set(header[1], current);
      continue;
    }
    // An indented line continues a nested block (`s3 =` sub-settings): none of ours live there.
    if (!current || /^\s/.test(raw)) continue;
    const eq = line.indexOf("=");
    if (eq <= 0) continue;
    current[line.slice(0, eq).trim().toLowerCase()] = line.slice(eq + 1).trim();
  }
  return sections;
}
