/**
 * The permission engine the loop asks once per tool call, after input validation and PreToolUse
 * hooks. Order: a hook's deny → deny rules → plan mode → ask rules → a hook's allow or ask → allow
 * rules → the mode → `canUseTool` when the outcome is "ask" (or a denial saying how to allow it when
 * there is no callback, or in dontAsk mode). State (mode, session rules, directories) lives in the
 * engine object, one per session.
 */
import { GoatError, InvalidOptionError } from "../errors.js";
import { resolveToolPath } from "../tools/paths.js";
import { splitBashCommand } from "./bash-split.js";
import { decideByMode, isReadOnlyCall, type ModeContext, planModeMessage, protectedWrite } from "./modes.js";
import { firstOutsideScope, toolPaths } from "./path-scope.js";
import { listRules, type PermissionRulesListing } from "./rule-listing.js";
import { type CallFacts, matchRules, ruleMatches } from "./rule-match.js";
import type { PermissionRule, RuleContext } from "./rule-parse.js";
import {
  applyDirectoryUpdate,
  applyRuleUpdate,
  compileRuleLists,
  type RuleLists,
  replaceSourceRules,
} from "./rule-set.js";
import { suggestUpdates } from "./suggestions.js";
import { isFileEditTool } from "./tool-kinds.js";
import type {
  CanUseTool,
  DecisionReason,
  PermissionDecision,
  PermissionMode,
  PermissionRequest,
  PermissionUpdate,
} from "./types.js";
import { PERMISSION_MODES } from "./types.js";
import { describeSuggestions, LIBRARY_WORDING, type PermissionWording } from "./wording.js";

/** How to build an engine. Rules in `allowedTools`/`disallowedTools` use Claude Code's syntax. */
export interface PermissionEngineOptions {
  mode?: PermissionMode;
  /** Allow rules (`Bash(npm test:*)`, `Read`, `mcp__github__*`). */
  allowedTools?: string[];
  /** Deny rules. */
  disallowedTools?: string[];
  /** `permissions` from settings files. */
  settingsRules?: RuleLists;
  cwd: string;
  /** What `Edit(/path)` rules are relative to; defaults to `cwd`. */
  projectRoot?: string;
  additionalDirectories?: string[];
  canUseTool?: CanUseTool;
  /** Lets `setMode('bypassPermissions')` happen later; starting in that mode needs no flag. */
  allowDangerouslySkipPermissions?: boolean;
  /**
   * True for a Bash input that will run in the OS sandbox with `autoAllowBashIfSandboxed`: the engine
   * allows it without asking, after deny rules, plan mode, ask rules and hooks had their say.
   */
  autoAllowSandboxedBash?: (input: Record<string, unknown>) => boolean;
  /**
   * Absolute paths of the shell start-up files the environment of the session's commands names
   * (`startupFilesNamedBy(env, cwd)`): Bash sources them before every call, so writing one asks like
   * writing `.bashrc` does.
   */
  shellStartupFiles?: readonly string[];
  /** Managed (policy) settings: rules no update removes, and locks that only tighten. */
  managed?: ManagedPermissions;
  /** The host's words for how to allow a denied call (default: `query()`'s option names). */
  wording?: PermissionWording;
}

/** The permission part of managed settings (`managedSettings`), already filtered to what restricts. */
export interface ManagedPermissions {
  deny?: string[];
  ask?: string[];
  /** `permissions.disableBypassPermissionsMode: "disable"`: bypassPermissions can never be entered. */
  disableBypassPermissionsMode?: boolean;
  /** `allowManagedPermissionRulesOnly`: only managed rules count; every other rule is ignored. */
  managedRulesOnly?: boolean;
}

/** A settings layer the host replaces as a whole (`applyFlagSettings` permissions). */
export interface PermissionLayer extends RuleLists {
  additionalDirectories?: string[];
}

/** A session's permission engine. */
export interface PermissionEngine {
  /** The current mode. */
  readonly mode: PermissionMode;
  /** Decides one tool call; never throws for a callback's failure (that becomes a denial). */
  decide(request: PermissionRequest): Promise<PermissionDecision>;
  /** Changes the mode mid-run. Throws for bypassPermissions unless it was allowed at start. */
  setMode(mode: PermissionMode): void;
  /** Applies updates ("always allow"); throws PermissionRuleError for a rule that cannot be parsed. */
  applyUpdates(updates: PermissionUpdate[]): void;
  /** Updates that would let this call through from now on, e.g. `Bash(npm run test:*)`. */
  suggestionsFor(toolName: string, input: Record<string, unknown>): Promise<PermissionUpdate[]>;
  /**
   * True when an allow rule names this call specifically (a rule with a specifier, such as
   * `WebFetch(domain:localhost)`) and no deny or ask rule matches it. A bare tool rule, a mode or a
   * callback's answer does not count: this is how WebFetch tells a host the user named from any host.
   */
  allowsByNamedRule(toolName: string, input: Record<string, unknown>): boolean;
  /** The rules in force (configuration and session), for display. */
  readonly rules: readonly PermissionRule[];
  /** The directories file tools may touch (real paths), working directory first. */
  readonly directories: readonly string[];
  /** What Claude Code's `list_permission_rules` reports: rules with their sources, directories, the lock. */
  listRules(): PermissionRulesListing;
  /**
   * Replaces the flag settings layer's rules and directories (undefined clears it). Checked first:
   * a bad rule throws PermissionRuleError and nothing changes.
   */
  setFlagLayer(layer: PermissionLayer | undefined): void;
  /**
   * Asks per call for the tools whose names start with `toolPrefix` (an MCP server's `mcp__name__`)
   * even when the mode would allow them all (bypassPermissions); null lifts it. It only tightens.
   */
  setToolModeOverride(toolPrefix: string, mode: "default" | null): void;
}

/**
 * Builds a permission engine. Throws PermissionRuleError (naming the rule) for a rule that cannot
 * be parsed.
 * @example createPermissionEngine({ cwd, allowedTools: ["Bash(npm test:*)"], canUseTool })
 */
export function createPermissionEngine(options: PermissionEngineOptions): PermissionEngine {
  const cwd = resolveToolPath(options.cwd, "/");
  const ruleCtx: RuleContext = { cwd, projectRoot: resolveToolPath(options.projectRoot ?? cwd, cwd) };
  const managed = options.managed ?? {};
  const wording = options.wording ?? LIBRARY_WORDING;
  let mode = checkMode(options.mode ?? "default");
  if (mode === "bypassPermissions" && managed.disableBypassPermissionsMode) {
    throw new GoatError(
      "bypassPermissions is disabled by the managed settings (disableBypassPermissionsMode)",
      {
        code: "permission_mode_refused",
      },
    );
  }
  const bypassAllowed = mode === "bypassPermissions" || options.allowDangerouslySkipPermissions === true;
  let rules: PermissionRule[] = [
    ...compileRuleLists({ deny: managed.deny, ask: managed.ask }, "policySettings", ruleCtx),
    ...compileRuleLists({ deny: options.disallowedTools, allow: options.allowedTools }, "cliArg", ruleCtx),
    ...compileRuleLists(options.settingsRules ?? {}, "projectSettings", ruleCtx),
  ];
  // The rules calls are matched against: only the managed ones under allowManagedPermissionRulesOnly.
  const inForce = () =>
    managed.managedRulesOnly ? rules.filter((r) => r.source === "policySettings") : rules;
  let activeRules = inForce();
  let extraDirs = applyDirectoryUpdate(
    [],
    { type: "addDirectories", directories: options.additionalDirectories ?? [], destination: "cliArg" },
    cwd,
  );
  let flagDirs: string[] = [];
  const scopeDirs = () => [cwd, ...extraDirs, ...flagDirs];
  const startupFiles = options.shellStartupFiles ?? [];
  // Tool-name prefixes (MCP servers) whose calls are decided in default mode instead of bypass.
  const askPrefixes = new Set<string>();
  const modeFor = (toolName: string): PermissionMode => {
    if (mode !== "bypassPermissions" || askPrefixes.size === 0) return mode;
    for (const prefix of askPrefixes) if (toolName.startsWith(prefix)) return "default";
    return mode;
  };

  const setMode = (next: PermissionMode) => {
    checkMode(next);
    if (next === "bypassPermissions" && managed.disableBypassPermissionsMode) {
      throw new GoatError(
        "bypassPermissions is disabled by the managed settings (disableBypassPermissionsMode)",
        {
          code: "permission_mode_refused",
        },
      );
    }
    if (next === "bypassPermissions" && !bypassAllowed) {
      throw new GoatError(
        "bypassPermissions must be asked for explicitly: start in that mode or pass allowDangerouslySkipPermissions: true",
        { code: "permission_mode_refused" },
      );
    }
    mode = next;
  };

  const applyUpdates = (updates: PermissionUpdate[]) => {
    for (const update of updates) {
      if (update.type === "setMode") setMode(update.mode);
      else if ("directories" in update) {
        extraDirs = applyDirectoryUpdate(extraDirs, update, cwd);
      } else if (update.destination !== "policySettings") {
        rules = applyRuleUpdate(rules, update, ruleCtx);
        activeRules = inForce();
      }
    }
  };

  const factsFor = async (toolName: string, input: Record<string, unknown>): Promise<CallFacts> => {
    const paths = toolPaths(toolName, input, cwd);
    const facts: CallFacts = { toolName, input, paths, inScope: true };
    if (paths) facts.inScope = firstOutsideScope(paths, scopeDirs()) === undefined;
    if (toolName === "Bash") {
      const command = input.command;
      // The grammar loads on the first Bash call; after that the analysis is synchronous.
      facts.bash =
        typeof command === "string"
          ? await splitBashCommand(command)
          : { ok: false, reason: "command is not a string" };
    }
    return facts;
  };

  const decide = async (req: PermissionRequest): Promise<PermissionDecision> => {
    if (req.toolName === EXIT_PLAN_MODE) return decideExitPlan(req);
    return decideCall(req);
  };

  // Leaving plan mode is the user's call, whatever rules or hooks say: deny rules still deny, and
  // anything else asks. Approved, the session goes to the mode the answer set, or to default.
  const decideExitPlan = async (req: PermissionRequest): Promise<PermissionDecision> => {
    if (mode !== "plan") {
      return deny(
        "ExitPlanMode is only for leaving plan mode, and the session is not in plan mode: go ahead without it.",
        "mode",
      );
    }
    const facts: CallFacts = { toolName: req.toolName, input: req.input, inScope: true };
    const verdict = matchRules(activeRules, facts);
    if (verdict.behavior === "deny" || req.hookDecision?.behavior === "deny") return decideCall(req);
    const decision = await ask(req, facts, "leaving plan mode needs the user's approval of the plan", {
      suggestions: [{ type: "setMode", mode: "acceptEdits", destination: "session" }],
    });
    if (decision.behavior === "allow" && mode === "plan") mode = "default";
    if (decision.behavior === "deny" && decision.reason === "callback" && !decision.interrupt) {
      return {
        ...decision,
        message: `The user rejected the plan and the session stays in plan mode: ${decision.message}`,
      };
    }
    return decision;
  };

  const decideCall = async (req: PermissionRequest): Promise<PermissionDecision> => {
    const { toolName, input, hookDecision: hook } = req;
    if (hook?.behavior === "deny") {
      return deny(hook.reason ?? `A PreToolUse hook denied ${toolName}.`, "hook");
    }
    const facts = await factsFor(toolName, input);
    const verdict = matchRules(activeRules, facts);
    // The session mode, or default for a tool whose MCP server asks per call (setToolModeOverride).
    const callMode = modeFor(toolName);
    if (verdict.behavior === "deny") {
      const message = `Permission to use ${describeCall(facts)} was denied by the rule ${verdict.rule.text}.`;
      return { ...deny(message, "rule"), rule: verdict.rule.text };
    }
    // Plan mode is a promise to the user that nothing changes, so even allow rules and hooks yield to it.
    if (callMode === "plan" && !isReadOnlyCall(facts, req.sideEffect))
      return deny(planModeMessage(toolName), "mode");
    if (verdict.behavior === "ask") return ask(req, facts, `the rule ${verdict.rule.text} asks for approval`);
    if (hook?.behavior === "allow") return { behavior: "allow", input, reason: "hook" };
    if (hook?.behavior === "ask") {
      return ask(req, facts, `a PreToolUse hook asked for approval${hook.reason ? `: ${hook.reason}` : ""}`);
    }
    // A bare `Write`/`Edit` rule does not cover protected files (.git/, settings, shell start-up files).
    const guarded =
      verdict.behavior === "allow" &&
      verdict.rule.specifier === undefined &&
      isFileEditTool(toolName) &&
      callMode !== "bypassPermissions"
        ? protectedWrite(facts.paths ?? [], startupFiles)
        : undefined;
    if (guarded) return ask(req, facts, guarded.why, { protectedPath: guarded.path });
    if (verdict.behavior === "allow")
      return { behavior: "allow", input, rule: verdict.rule.text, reason: "rule" };
    if (toolName === "Bash" && options.autoAllowSandboxedBash?.(input)) {
      return { behavior: "allow", input, reason: "sandbox" };
    }
    const modeCtx: ModeContext = { mode: callMode, cwd, scopeDirs: scopeDirs(), startupFiles };
    const partRules = verdict.behavior === "none" ? verdict.partRules : undefined;
    const byMode = decideByMode(modeCtx, facts, req.sideEffect, partRules);
    if (byMode.behavior === "allow") {
      // A Bash line let through on the analysis alone runs confined, so a mistake in it costs nothing.
      // A line with rule-allowed parts is confined too (the rule covers only its part), but may write
      // the allowed directories, as the command the user allowed (`npm test`) usually does.
      if (toolName !== "Bash" || callMode === "bypassPermissions")
        return { behavior: "allow", input, reason: byMode.reason };
      // A Bash tool that cannot run it confined gets no line through on the analysis alone.
      if (req.confines === false)
        return ask(
          req,
          facts,
          "this Bash tool does not run commands confined, so Goat asks rather than allow it on its own analysis",
          {},
        );
      const ruled = partRules?.some((rule) => rule !== undefined) === true;
      const confine = byMode.reason === "read-only" && !ruled ? "read-only" : "workspace";
      return { behavior: "allow", input, reason: byMode.reason, confine };
    }
    return ask(req, facts, byMode.why, {
      blockedPath: byMode.blockedPath,
      protectedPath: byMode.protectedPath,
      partAllowed: partRules?.map((r) => r !== undefined),
    });
  };

  const ask = async (
    req: PermissionRequest,
    facts: CallFacts,
    why: string,
    about: {
      blockedPath?: string;
      protectedPath?: string;
      partAllowed?: boolean[];
      suggestions?: PermissionUpdate[];
    } = {},
  ): Promise<PermissionDecision> => {
    const { blockedPath, protectedPath, partAllowed } = about;
    // For a protected file the only lasting answer is a rule naming that file.
    const suggestions =
      about.suggestions ??
      (protectedPath ? [protectedFileRule(protectedPath)] : suggestUpdates(facts, blockedPath, partAllowed));
    const what = describeCall(facts);
    if (mode === "dontAsk") {
      return deny(
        `Permission to use ${what} was denied: the permission mode is dontAsk and ${why}. ${describeSuggestions(suggestions, wording)}`,
        "mode",
      );
    }
    if (!options.canUseTool) {
      return deny(
        `Permission to use ${what} is required (${why}), and ${wording.nobodyAsked}. ${describeSuggestions(suggestions, wording)}`,
        "no-callback",
      );
    }
    return askCallback(
      options.canUseTool,
      req,
      { suggestions, blockedPath, decisionReason: why },
      applyUpdates,
    );
  };

  return {
    get mode() {
      return mode;
    },
    get rules() {
      return rules;
    },
    get directories() {
      return scopeDirs();
    },
    listRules: () =>
      listRules(
        rules,
        [
          ...extraDirs.map((path) => ({ path, source: "cliArg" })),
          ...flagDirs.map((path) => ({ path, source: "flagSettings" })),
        ],
        cwd,
        managed.managedRulesOnly === true,
      ),
    setFlagLayer(layer) {
      const next = replaceSourceRules(rules, "flagSettings", layer, ruleCtx);
      flagDirs = (layer?.additionalDirectories ?? [])
        .map((d) => resolveToolPath(d, cwd))
        .filter((d) => !extraDirs.includes(d));
      rules = next;
      activeRules = inForce();
    },
    setToolModeOverride(toolPrefix, override) {
      if (override === null) askPrefixes.delete(toolPrefix);
      else askPrefixes.add(toolPrefix);
    },
    decide,
    setMode,
    applyUpdates,
    allowsByNamedRule(toolName, input) {
      const facts: CallFacts = { toolName, input, inScope: true };
      if (matchRules(rules, facts).behavior !== "allow") return false;
      // Any allow rule naming the call counts, not only the first that matches: a bare `WebFetch`
      // beside `WebFetch(domain:127.0.0.1)` must not hide the named one.
      return rules.some(
        (r) => r.behavior === "allow" && r.specifier !== undefined && ruleMatches(r, facts, "all"),
      );
    },
    suggestionsFor: async (toolName, input) => {
      const facts = await factsFor(toolName, input);
      return suggestUpdates(facts, facts.paths ? firstOutsideScope(facts.paths, scopeDirs()) : undefined);
    },
  };
}

/** The tool that asks to leave plan mode; the engine decides it itself. */
const EXIT_PLAN_MODE = "ExitPlanMode";

/** Asks the host, racing its answer against the abort signal so an interrupted run never hangs here. */
async function askCallback(
  canUseTool: CanUseTool,
  req: PermissionRequest,
  extra: { suggestions: PermissionUpdate[]; blockedPath?: string; decisionReason: string },
  applyUpdates: (updates: PermissionUpdate[]) => void,
): Promise<PermissionDecision> {
  const { signal, toolName, input, toolUseID } = req;
  const aborted = (): PermissionDecision => ({
    ...deny("The run was interrupted while asking for permission.", "aborted"),
    interrupt: true,
  });
  if (signal.aborted) return aborted();
  let onAbort = () => {};
  const abortPromise = new Promise<"aborted">((resolve) => {
    onAbort = () => resolve("aborted");
    signal.addEventListener("abort", onAbort, { once: true });
  });
  try {
    const options = {
      signal,
      toolUseID,
      suggestions: extra.suggestions,
      decisionReason: extra.decisionReason,
    };
    const result = await Promise.race([
      canUseTool(
        toolName,
        input,
        extra.blockedPath ? { ...options, blockedPath: extra.blockedPath } : options,
      ),
      abortPromise,
    ]);
    if (result === "aborted") return aborted();
    if (result?.behavior === "allow") {
      if (result.updatedPermissions) applyUpdates(result.updatedPermissions);
      return { behavior: "allow", input: result.updatedInput ?? input, reason: "callback" };
    }
    if (result?.behavior === "deny") {
      const message = result.message || `The user denied permission to use ${toolName}.`;
      return result.interrupt ? { ...deny(message, "callback"), interrupt: true } : deny(message, "callback");
    }
    return deny(
      `The permission callback returned no decision for ${toolName}; treating it as a denial.`,
      "callback-error",
    );
  } catch (err) {
    return deny(
      `The permission callback failed for ${toolName}: ${(err as Error)?.message ?? String(err)}`,
      "callback-error",
    );
  } finally {
    signal.removeEventListener("abort", onAbort);
  }
}

function protectedFileRule(file: string): PermissionUpdate {
  return {
    type: "addRules",
    rules: [{ toolName: "Edit", ruleContent: `/${file}` }],
    behavior: "allow",
    destination: "session",
  };
}

function deny(message: string, reason: DecisionReason): PermissionDecision & { behavior: "deny" } {
  return { behavior: "deny", message, reason };
}

function checkMode(mode: PermissionMode): PermissionMode {
  if (!PERMISSION_MODES.includes(mode)) {
    throw new InvalidOptionError(
      "permissionMode",
      `Unknown permission mode ${JSON.stringify(mode)}; expected one of ${PERMISSION_MODES.join(", ")}`,
    );
  }
  return mode;
}

/** Names the call for a message: `Bash command "npm test"`, `Write on /x/y`, or the tool name. */
function describeCall(facts: CallFacts): string {
  const { toolName, input } = facts;
  if (toolName === "Bash" && typeof input.command === "string")
    return `Bash command ${JSON.stringify(input.command)}`;
  const p = facts.paths?.[0];
  return p ? `${toolName} on ${p.lexical}` : toolName;
}
