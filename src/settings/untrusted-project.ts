/**
 * What a project's settings file may still do when its folder is not trusted: narrow the session,
 * never widen it or run anything. A repository is someone else's code; its committed
 * `.goat/settings.json` must not be able to run a hook, start a server, pre-allow `Bash(curl:*)`, set
 * `NODE_OPTIONS` or switch the session to `bypassPermissions` just because `goat` was started in it.
 *
 * Kept: `permissions.deny` and `permissions.ask`, a `defaultMode` that asks at least as much as
 * `default` (`default`, `plan`, `dontAsk`), turning the sandbox on (its commands then still ask) and
 * its keys that tighten, `disabledMcpjsonServers`, and what runs nothing (`model`, `effortLevel`,
 * `outputStyle`, `verbose`). Everything else a file says is left out (`modelPricing` too: a price of
 * 0 would defeat a budget) and described in words, for the trust question and for the notice that
 * says what was left out.
 *
 * Claude Code, for comparison, ignores a project's `permissions.allow` and `additionalDirectories`
 * until its workspace trust dialog is accepted, and gates hooks and `.mcp.json` servers behind the
 * same dialog.
 */

/** An untrusted project file's settings, restricted, and what was left out of it. */
export interface RestrictedSettings {
  /** The keys that only restrict, in the settings file's own shape. */
  kept: Record<string, unknown>;
  /** What trusting the folder would add, one short phrase each (`hook SessionStart: make setup`). */
  leftOut: string[];
}

/** The keys that change nothing on the machine: kept as they are. */
const INERT_KEYS = ["model", "effortLevel", "outputStyle", "verbose", "disabledMcpjsonServers"];
/** Permission modes that ask at least as often as `default`. */
const NARROW_MODES = new Set(["default", "plan", "dontAsk"]);

/**
 * Splits one settings file's JSON into what an untrusted folder keeps and what it leaves out.
 * Never throws: a value of the wrong shape is left out (or kept for the loader to reject, when it is
 * a key that only restricts), and described as well as its shape allows.
 */
export function restrictUntrustedSettings(json: Record<string, unknown>): RestrictedSettings {
  const kept: Record<string, unknown> = {};
  const leftOut: string[] = [];
  for (const key of INERT_KEYS) if (json[key] !== undefined) kept[key] = json[key];
  if (json.permissions !== undefined) restrictPermissions(json.permissions, kept, leftOut);
  if (json.sandbox !== undefined) restrictSandbox(json.sandbox, kept, leftOut);
  if (json.hooks !== undefined) leftOut.push(...describeHooks(json.hooks));
  if (json.env !== undefined) leftOut.push(...describeEnv(json.env));
  if (json.mcpServers !== undefined) leftOut.push(...describeMcpServers(json.mcpServers));
  // The user's prices win over the catalog's: a project pricing a model at 0 would defeat maxBudgetUsd.
  if (json.modelPricing !== undefined) {
    const models = isObject(json.modelPricing) ? Object.keys(json.modelPricing) : ["(modelPricing)"];
    leftOut.push(...models.map((m) => `price of ${m}`));
  }
  // Other keys (Claude Code's that Goat does not act on, `$schema`, approvals read elsewhere) are
  // ignored by the loader either way: they run nothing.
  return { kept, leftOut };
}

function restrictPermissions(value: unknown, kept: Record<string, unknown>, leftOut: string[]): void {
  if (!isObject(value)) {
    kept.permissions = value; // the loader names the file and the mistake
    return;
  }
  const permissions: Record<string, unknown> = {};
  if (value.deny !== undefined) permissions.deny = value.deny;
  if (value.ask !== undefined) permissions.ask = value.ask;
  for (const rule of strings(value.allow)) leftOut.push(`allow rule ${rule}`);
  for (const dir of strings(value.additionalDirectories)) leftOut.push(`additional directory ${dir}`);
  const mode = value.defaultMode;
  if (typeof mode === "string" && NARROW_MODES.has(mode)) permissions.defaultMode = mode;
  else if (mode !== undefined) leftOut.push(`permission mode ${String(mode)}`);
  kept.permissions = permissions;
}

/**
 * The sandbox keys that tighten. A project that turns the sandbox on does not also get its commands
 * run without asking: `autoAllowBashIfSandboxed` is set to false with it (over the user's own value,
 * which only makes the session ask more).
 */
function restrictSandbox(value: unknown, kept: Record<string, unknown>, leftOut: string[]): void {
  if (!isObject(value)) {
    leftOut.push("sandbox settings");
    return;
  }
  const sandbox: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value)) {
    if (key === "enabled" && v === true) {
      sandbox.enabled = true;
      sandbox.autoAllowBashIfSandboxed = false;
    } else if ((key === "allowUnsandboxedCommands" || key === "autoAllowBashIfSandboxed") && v === false) {
      sandbox[key] = false;
    } else if (key === "network" && isObject(v)) {
      const network: Record<string, unknown> = {};
      for (const [nk, nv] of Object.entries(v)) {
        if ((nk === "allowAllUnixSockets" || nk === "allowLocalBinding") && nv === false) network[nk] = false;
        else leftOut.push(`sandbox.network.${nk}`);
      }
      if (Object.keys(network).length > 0) sandbox.network = network;
    } else if (key === "enabled" || key === "failIfUnavailable") {
      // Off, or Goat's behaviour anyway: nothing is lost by leaving it out.
    } else if (key === "bwrapPath") {
      leftOut.push(`sandbox program ${typeof v === "string" ? v : "(bwrapPath)"}`);
    } else if (key === "excludedCommands") {
      for (const c of strings(v)) leftOut.push(`command run outside the sandbox: ${c}`);
    } else leftOut.push(`sandbox.${key}`);
  }
  if (Object.keys(sandbox).length > 0) kept.sandbox = sandbox;
}

/** `hook SessionStart: touch started`, one per command (Claude Code's `hooks` shape). */
function describeHooks(value: unknown): string[] {
  if (!isObject(value)) return ["hooks"];
  const out: string[] = [];
  for (const [event, groups] of Object.entries(value)) {
    const list = Array.isArray(groups) ? groups : [groups];
    for (const group of list) {
      const matcher =
        isObject(group) && typeof group.matcher === "string" && group.matcher !== "" ? group.matcher : "";
      const handlers = isObject(group) && Array.isArray(group.hooks) ? group.hooks : [undefined];
      for (const h of handlers) {
        const command = isObject(h) && typeof h.command === "string" ? h.command : "(a command)";
        out.push(`hook ${event}${matcher ? ` ${matcher}` : ""}: ${command}`);
      }
    }
  }
  return out.length > 0 ? out : ["hooks"];
}

/** `env NODE_OPTIONS=--require ./x.js`, one per variable. */
function describeEnv(value: unknown): string[] {
  if (!isObject(value)) return ["env"];
  return Object.entries(value).map(
    ([name, v]) => `env ${name}=${typeof v === "string" ? v : JSON.stringify(v)}`,
  );
}

/** `MCP server "db": node server.js --port 1`, one per server of a settings file. */
function describeMcpServers(value: unknown): string[] {
  if (!isObject(value)) return ["MCP servers"];
  return Object.entries(value).map(([name, config]) => `MCP server "${name}": ${describeMcpServer(config)}`);
}

/** What one MCP server config runs or reaches: its command line, or its URL. */
export function describeMcpServer(config: unknown): string {
  if (!isObject(config)) return "(not a server config)";
  if (typeof config.url === "string")
    return `${typeof config.type === "string" ? config.type : "remote"} ${config.url}`;
  const command = typeof config.command === "string" ? config.command : "(no command)";
  return [command, ...strings(config.args)].join(" ");
}

function strings(value: unknown): string[] {
  return Array.isArray(value) ? value.map((v) => (typeof v === "string" ? v : JSON.stringify(v))) : [];
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}
