/**
 * A session's policy, in the order it is built: managed (policy) settings, the sandbox and the
 * confinement of Bash (which the tools are built with), then the permission engine (which needs to
 * know whether the session's Bash is the sandboxed one, and asks the hooks and the host).
 *
 * The engine owns the session's directories, which the sandbox and confinement read on each call: they
 * are built before the engine, so they take the directories as a function, asked only once the
 * session runs.
 */
import type { HookRunner } from "../hooks/runner.js";
import { createPermissionEngine, type PermissionEngine } from "../permissions/engine.js";
import { protectedPathReason } from "../permissions/protected-paths.js";
import type { CanUseTool } from "../permissions/types.js";
import { type BashSandbox, createBashSandbox } from "../sandbox/bash-sandbox.js";
import { type Confinement, createConfinement } from "../sandbox/confinement.js";
import { startupFilesNamedBy } from "../sandbox/protected-names.js";
import { mergeSandboxSettings, resolveSandboxSettings } from "../sandbox/settings.js";
import type { ManagedSettings } from "../settings/managed.js";
import { sessionManagedSettings } from "../settings/managed-file.js";
import type { FileScope } from "../tools/types.js";
import type { SessionOptions } from "./options.js";
import { wrapCanUseTool } from "./tool-gate.js";

/** What Bash runs in, and the managed settings that tighten the rest. */
export interface SessionSandboxing {
  readonly managed: ManagedSettings | undefined;
  /** The files the shell sources before each Bash call (BASH_ENV, ENV): guarded like .bashrc. */
  readonly shellStartupFiles: string[];
  /** The OS sandbox of every Bash call, when the settings turn it on. */
  readonly sandbox: BashSandbox | undefined;
  /** Confines the Bash lines the engine allows on its own analysis, where a sandbox can start. */
  readonly confinement: Confinement;
}

/** Reads the managed settings and builds the sandbox (when on) and the confinement. */
export function createSessionSandboxing(
  options: SessionOptions,
  where: { cwd: string; env: Record<string, string | undefined> },
  directories: () => readonly string[],
  report: (message: string) => void,
): SessionSandboxing {
  const { cwd, env } = where;
  // Managed (policy) settings tighten permissions, hooks and the sandbox; never loosen them.
  // The machine's file (/etc/claude-code/managed-settings.json) and the host's, both binding.
  const managed = sessionManagedSettings(options.managedSettings);
  const sandboxSettings = managed?.sandbox
    ? mergeSandboxSettings([options.sandbox ?? {}, managed.sandbox])
    : options.sandbox;
  // Built only when asked for: a session without the sandbox never loads or checks anything for it.
  // Checked even when off, so a typo in a safety setting is an error rather than ignored.
  const shellStartupFiles = startupFilesNamedBy(env, cwd);
  const sandboxOn = sandboxSettings !== undefined && resolveSandboxSettings(sandboxSettings).enabled;
  const sandbox =
    sandboxOn && sandboxSettings
      ? createBashSandbox(sandboxSettings, { directories, protectedFiles: shellStartupFiles })
      : undefined;
  const confinement = createConfinement({
    directories,
    // Looked up where the session's commands are: on the PATH of its environment.
    envPath: env.PATH,
    protectedFiles: shellStartupFiles,
    // Said only when the sandbox fails after system/init claimed it (the machine changed mid-session).
    onUnavailable: (problem) =>
      report(`The sandbox cannot start here, so commands allowed without asking run unconfined: ${problem}`),
  });
  return { managed, shellStartupFiles, sandbox, confinement };
}

/** What the permission engine is wired to besides the options. */
export interface SessionPermissionLinks {
  sandboxing: SessionSandboxing;
  /** True when the session's Bash is the built-in one running in the sandbox (auto-allowed by it). */
  bashSandboxed: boolean;
  /** The session's hooks (PermissionRequest hooks are asked before the host). */
  hooks: () => HookRunner;
  /** Answers in place of `canUseTool`: the `permissionPromptToolName` tool, when named. */
  promptTool: () => CanUseTool | undefined;
  report: (message: string) => void;
}

/** Builds the session's permission engine. Throws for a malformed rule. */
export function createSessionPermissions(
  options: SessionOptions,
  cwd: string,
  links: SessionPermissionLinks,
): PermissionEngine {
  const { sandbox, managed, shellStartupFiles } = links.sandboxing;
  return createPermissionEngine({
    cwd,
    mode: options.permissionMode ?? "default",
    allowedTools: options.allowedTools,
    disallowedTools: options.disallowedTools,
    settingsRules: options.permissionRules,
    additionalDirectories: options.additionalDirectories,
    allowDangerouslySkipPermissions: options.allowDangerouslySkipPermissions,
    shellStartupFiles,
    managed: managed?.permissions,
    wording: options.permissionWording,
    autoAllowSandboxedBash: sandbox && links.bashSandboxed ? (input) => sandbox.autoAllows(input) : undefined,
    canUseTool: wrapCanUseTool(
      links.hooks,
      options.permissionPrompts === "none" ? undefined : (options.canUseTool ?? links.promptTool()),
      links.report,
      options.permissionWording,
    ),
  });
}

/**
 * Where Read, Write, Edit and NotebookEdit may go, re-checked when they open a path that goes through
 * a symbolic link (the link may have changed since the permission check): the engine's directories,
 * protected paths refused. bypassPermissions confines nothing.
 */
export function sessionFileScope(
  permissions: () => Pick<PermissionEngine, "mode" | "directories">,
  shellStartupFiles: readonly string[],
): () => FileScope | undefined {
  return () =>
    permissions().mode === "bypassPermissions"
      ? undefined
      : {
          directories: permissions().directories,
          protectedReason: (real) => protectedPathReason({ lexical: real, real }, shellStartupFiles),
        };
}
