/**
 * `goat-agent/sandbox`: the OS sandbox for Bash (bubblewrap on Linux, sandbox-exec on macOS) — its
 * settings (the `sandbox` option), the per-session sandbox `createBashTool` runs commands in, the
 * confinement of the commands the permission engine allows without asking, and its errors.
 */
export type { ShellLaunch, ShellWrapper } from "./bash-sandbox.js";
export {
  type BashSandbox,
  type BashSandboxOptions,
  createBashSandbox,
  isExcludedCommand,
} from "./bash-sandbox.js";
export {
  type Confinement,
  type ConfinementLevel,
  type ConfinementOptions,
  type ConfinementSupport,
  createConfinement,
} from "./confinement.js";
export { SandboxUnavailableError } from "./errors.js";
export {
  mergeSandboxSettings,
  type ResolvedSandboxSettings,
  resolveSandboxSettings,
  type SandboxNetworkSettings,
  type SandboxSettings,
  SandboxSettingsError,
} from "./settings.js";
