/** The OS sandbox for Bash: settings, the session object, and its error. */

export type { ShellLaunch, ShellWrapper } from "./bash-sandbox.js";
export {
  type BashSandbox,
  type BashSandboxOptions,
  createBashSandbox,
  isExcludedCommand,
} from "./bash-sandbox.js";
export { SandboxUnavailableError } from "./errors.js";
export {
  mergeSandboxSettings,
  type ResolvedSandboxSettings,
  resolveSandboxSettings,
  type SandboxNetworkSettings,
  type SandboxSettings,
  SandboxSettingsError,
} from "./settings.js";
