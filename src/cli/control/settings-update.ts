/**
 * `update_settings` (the SDK's `updateSettings(source, settings)`): merges keys into one of Goat's
 * settings files, Claude Code's way: an allowlist per file (`localSettings`, `.goat/settings.local.json`:
 * `outputStyle`; `userSettings`, `$GOAT_HOME/settings.json`: `effortLevel`), string values only, no
 * deletion, and never a file the session's `--setting-sources` leaves out. The file's other keys are
 * kept; the write is atomic. `effortLevel` is the default of later sessions, not this one's (as
 * Claude Code saves `/effort`); `outputStyle` can only be `"default"`, Goat's one style.
 */
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { EFFORT_LEVELS, goatHomeDir } from "../../settings/index.js";
import { writeFileAtomic } from "../../tools/index.js";
import { ControlError, isRecord } from "./control-protocol.js";

/** The keys each file takes, and the values each key takes. */
const ALLOWED: Record<string, Record<string, readonly string[]>> = {
  localSettings: { outputStyle: ["default"] },
  userSettings: { effortLevel: EFFORT_LEVELS },
};
/** The `--setting-sources` name of each file. */
const SOURCE_NAME: Record<string, string> = { localSettings: "local", userSettings: "user" };

/** Where the session's settings files are. */
export interface SettingsUpdateContext {
  cwd: string;
  env: Record<string, string | undefined>;
  /** `--setting-sources` (undefined: all of them). */
  settingSources?: readonly string[];
}

/** Checks the request and merges it into the file; returns the file written. */
export async function updateSettingsFile(
  source: unknown,
  settings: unknown,
  ctx: SettingsUpdateContext,
): Promise<string> {
  if (typeof source !== "string" || !(source in ALLOWED)) {
    throw new Error('update_settings: "source" must be "localSettings" or "userSettings"');
  }
  if (!isRecord(settings)) throw new Error('update_settings: "settings" must be an object');
  const allowed = ALLOWED[source];
  for (const [key, value] of Object.entries(settings)) {
    if (!(key in allowed)) {
      throw new ControlError(
        `update_settings: ${source} takes only ${Object.keys(allowed).join(", ")} (got ${key})`,
        "unsupported_setting",
      );
    }
    if (typeof value !== "string" || !allowed[key].includes(value)) {
      throw new Error(`update_settings: ${key} must be one of ${allowed[key].join(", ")}`);
    }
  }
  if (ctx.settingSources !== undefined && !ctx.settingSources.includes(SOURCE_NAME[source])) {
    throw new ControlError(
      `update_settings: the session does not read ${source} (--setting-sources ${ctx.settingSources.join(",")})`,
      "permission_denied",
    );
  }
  const file =
    source === "userSettings"
      ? join(goatHomeDir(ctx.env), "settings.json")
      : join(ctx.cwd, ".goat", "settings.local.json");
  const current = await readObject(file);
  // New files are the user's only; a folder made in $GOAT_HOME too (the project's .goat/ keeps its mode).
  const modes = source === "userSettings" ? { mode: 0o600, dirMode: 0o700 } : { mode: 0o600 };
  await writeFileAtomic(file, `${JSON.stringify({ ...current, ...settings }, null, 2)}\n`, {
    mkdirs: true,
    ...modes,
  });
  return file;
}

/** The file's JSON object, `{}` when it does not exist; an error when it is not an object. */
async function readObject(file: string): Promise<Record<string, unknown>> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return {};
    throw error;
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new Error(
      `update_settings: ${file} is not valid JSON (${(error as Error).message}); left unchanged`,
    );
  }
  if (!isRecord(json))
    throw new Error(`update_settings: ${file} does not hold a JSON object; left unchanged`);
  return json;
}
