/**
 * A profile's `credential_process`: the command the user configured (aws-vault, a company's SSO
 * helper, …) is run through the shell, as the AWS CLI and SDKs run it, and prints
 * `{"Version": 1, "AccessKeyId", "SecretAccessKey", "SessionToken"?, "Expiration"?}` on stdout.
 *
 * The command is the user's own configuration, so running it is what they asked for; what we bound is
 * its time (a helper that waits for a browser login that never comes would hang the first model
 * call forever) and the size of what it prints. On the limit its whole process group is ended, not
 * just the shell.
 */
import { spawn } from "node:child_process";
import type { AwsCredentials } from "./aws-sigv4.js";

/** How long the command may take (default 60 s: long enough for an interactive SSO helper). */
const CREDENTIAL_PROCESS_TIMEOUT_MS = 60_000;

const MAX_OUTPUT = 64 * 1024;

/** Runs the profile's command and reads its credentials. */
export async function processCredentials(
  command: string,
  profile: string,
  timeoutMs = CREDENTIAL_PROCESS_TIMEOUT_MS,
): Promise<AwsCredentials> {
  const { stdout, stderr, code } = await run(command, profile, timeoutMs);
  const where = `the credential_process of AWS profile "${profile}"`;
  if (code !== 0) {
    const said = stderr.trim().slice(0, 300);
    throw new Error(`${where} exited with status ${code}${said ? `: ${said}` : ""}`);
  }
  let json: { [key: string]: unknown } | null;
  try {
    json = JSON.parse(stdout);
  } catch {
    throw new Error(`${where} printed something other than JSON on stdout`);
  }
  if (json?.Version !== 1) throw new Error(`${where} did not answer Version 1`);
  if (json === null || typeof json.AccessKeyId !== "string" || typeof json.SecretAccessKey !== "string")
    throw new Error(`${where} answered without AccessKeyId and SecretAccessKey`);
  let expiration: Date | undefined;
  if (json.Expiration !== undefined) {
    expiration = new Date(typeof json.Expiration === "number" ? json.Expiration : String(json.Expiration));
    if (Number.isNaN(expiration.getTime())) throw new Error(`${where} answered an unreadable Expiration`);
    if (expiration.getTime() <= Date.now()) throw new Error(`${where} answered expired credentials`);
  }
  return {
    accessKeyId: json.AccessKeyId,
    secretAccessKey: json.SecretAccessKey,
    sessionToken: typeof json.SessionToken === "string" ? json.SessionToken : undefined,
    expiration,
  };
}

function run(
  command: string,
  profile: string,
  timeoutMs: number,
): Promise<{ stdout: string; stderr: string; code: number | null }> {
  return new Promise((resolve, reject) => {
    const ownGroup = process.platform !== "win32";
    // No stdin: Goat's terminal interface owns the keyboard, and a helper reading it would take the
    // user's keystrokes; helpers that need a login open a browser or say so on stderr.
    const child = spawn(command, { shell: true, detached: ownGroup, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      if (stdout.length < MAX_OUTPUT) stdout += chunk;
    });
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
      if (stderr.length < MAX_OUTPUT) stderr += chunk;
    });
    const timer = setTimeout(() => {
      try {
        if (ownGroup && child.pid !== undefined) process.kill(-child.pid, "SIGKILL");
        else child.kill("SIGKILL");
      } catch {
        // Already gone.
      }
      reject(
        new Error(
          `the credential_process of AWS profile "${profile}" gave no answer within ${Math.round(timeoutMs / 1000)} s`,
        ),
      );
    }, timeoutMs);
    child.once("error", (err) => {
      clearTimeout(timer);
      reject(new Error(`the credential_process of AWS profile "${profile}" could not start: ${err.message}`));
    });
    child.once("close", (code) => {
      clearTimeout(timer);
      resolve({ stdout, stderr, code });
    });
  });
}
