/**
 * What a confined command must not read even though it may read the rest of the filesystem: the
 * places where credentials live under the home directory (keys, cloud and registry logins, shell
 * histories, Goat's and Claude Code's own transcripts), a few system files that hold hashes, and the
 * environment variables that carry secrets. Confinement hides the files (an empty directory or
 * /dev/null mounted over them) and leaves the variables out of the command's environment, so a read
 * that Goat's analysis wrongly judged harmless finds nothing to leak.
 *
 * The lists are deliberately broad: a masked file a read-only command needed costs a failed command
 * the model can explain to the user; a missed one costs a key.
 */
import path from "node:path";
import { lstatOrUndefined } from "./sandbox-paths.js";

/** Directories under the home directory that hold credentials or private history. */
// biome-ignore format: a path list reads better packed
const SECRET_HOME_DIRS: readonly string[] = [
  ".ssh", ".aws", ".azure", ".gnupg", ".docker", ".kube", ".config/gcloud", ".config/gh", ".config/hub",
  ".config/op", ".password-store", ".local/share/keyrings", ".terraform.d", ".vault", ".oci", ".goat",
  ".claude", ".config/goat", ".config/claude", ".mozilla", ".config/google-chrome", ".config/chromium",
  ".gem", ".cargo/registry/credentials", ".fly", ".netlify", ".vercel", ".config/heroku", ".pulumi",
];

/** Files under the home directory that hold credentials or private history. */
// biome-ignore format: a path list reads better packed
const SECRET_HOME_FILES: readonly string[] = [
  ".netrc", ".git-credentials", ".npmrc", ".yarnrc", ".pypirc", ".pgpass", ".my.cnf", ".vault-token",
  ".cargo/credentials", ".cargo/credentials.toml", ".claude.json", ".gradle/gradle.properties",
  ".m2/settings.xml", ".boto", ".s3cfg", ".dockercfg", ".bash_history", ".zsh_history", ".python_history",
  ".psql_history", ".mysql_history", ".sqlite_history", ".node_repl_history", ".lesshst", ".viminfo",
  ".local/share/fish/fish_history", ".config/gitlab-runner/config.toml",
];

/** System files a process running as root could otherwise read inside the sandbox. */
const SECRET_SYSTEM_FILES: readonly string[] = ["/etc/shadow", "/etc/gshadow", "/etc/ssh/ssh_host_rsa_key"];

/** The secret locations that exist on this machine, split by what to mount over them. */
export interface SecretMounts {
  /** Directories: an empty tmpfs goes over each. */
  dirs: string[];
  /** Files: /dev/null goes over each. */
  files: string[];
}

/**
 * The existing secret locations under `homes` (and the system ones), skipping any that contains one of
 * `keep` (a working directory inside `~/.config/goat` stays visible: the user chose to work there).
 * Symlinks are left alone: mounting over a link mounts over its target, which may be anywhere.
 */
export function secretMounts(homes: readonly string[], keep: readonly string[] = []): SecretMounts {
  const dirs = new Set<string>();
  const files = new Set<string>();
  const hides = (p: string) => !keep.some((k) => k === p || k.startsWith(`${p}${path.sep}`));
  // Masked by what is there: a name listed as a file may be a directory on some machine.
  const consider = (p: string) => {
    const kind = kindOf(p);
    if (!kind || !hides(p)) return;
    (kind === "dir" ? dirs : files).add(p);
  };
  for (const home of new Set(homes.filter((h) => path.isAbsolute(h) && h !== "/"))) {
    for (const rel of [...SECRET_HOME_DIRS, ...SECRET_HOME_FILES]) consider(path.join(home, rel));
  }
  for (const file of SECRET_SYSTEM_FILES) consider(file);
  return { dirs: [...dirs], files: [...files] };
}

function kindOf(p: string): "dir" | "file" | undefined {
  const st = lstatOrUndefined(p);
  if (st?.isDirectory()) return "dir";
  return st?.isFile() ? "file" : undefined;
}

/** Variables a command always keeps: they name places and settings, never secrets. */
// biome-ignore format: a word list reads better packed
const KEPT_VARIABLES = new Set([
  "PATH", "HOME", "USER", "LOGNAME", "SHELL", "LANG", "LANGUAGE", "TERM", "TZ", "TMPDIR", "PWD", "OLDPWD",
  "SHLVL", "COLUMNS", "LINES", "NO_COLOR", "FORCE_COLOR", "CI", "EDITOR", "VISUAL", "PAGER",
]);

/**
 * Name parts that mark a variable as secret-bearing (`GITHUB_TOKEN`, `AWS_SECRET_ACCESS_KEY`,
 * `DB_PASSWORD`, `SSH_AUTH_SOCK`, `NPM_CONFIG__AUTH`, `OPENAI_API_KEY`, `SENTRY_DSN`).
 */
const SECRET_NAME =
  /(KEY|TOKEN|SECRET|PASS(WORD|WD|PHRASE)?|PWD|CRED|AUTH|COOKIE|SESSION|PRIVATE|SIGNATURE|CERT|DSN|CONN(ECTION)?_?STR|SALT|BEARER|OTP|PIN)/i;

/** A value that carries a login inside a URL (`postgres://user:pw@host/db`). */
const URL_WITH_LOGIN = /[a-z][a-z0-9+.-]*:\/\/[^/\s:@]+:[^/\s@]+@/i;

/** A value shaped like a private key or a well-known token format. */
const SECRET_VALUE =
  /-----BEGIN [A-Z ]*PRIVATE KEY-----|\b(sk-[A-Za-z0-9_-]{16,}|gh[pousr]_[A-Za-z0-9]{20,}|xox[abpr]-[A-Za-z0-9-]{10,}|AKIA[0-9A-Z]{16})\b/;

/**
 * The environment without the variables that may carry secrets: by name (KEY, TOKEN, SECRET,
 * PASSWORD, AUTH… anywhere in it), by value (a URL with a login, a private key, a known token shape).
 * `PATH`, `HOME` and the other variables that only name places or settings always stay.
 * @example withoutSecrets({ PATH: "/bin", GITHUB_TOKEN: "ghp_x" }) // { PATH: "/bin" }
 */
export function withoutSecrets(
  env: Readonly<Record<string, string | undefined>>,
): Record<string, string | undefined> {
  const out: Record<string, string | undefined> = {};
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined) continue;
    if (!KEPT_VARIABLES.has(name) && !name.startsWith("LC_") && isSecretVariable(name, value)) continue;
    out[name] = value;
  }
  return out;
}

/** True when a variable's name or value looks like it carries a secret. */
function isSecretVariable(name: string, value: string): boolean {
  return SECRET_NAME.test(name) || URL_WITH_LOGIN.test(value) || SECRET_VALUE.test(value);
}
