/**
 * Workspace trust for the `goat` command: before the configuration is built, decides how much of the
 * folder's own configuration applies, so a cloned repository cannot run code by being opened.
 *
 * Interactive `goat`, in a folder whose files declare something that runs or widens (hooks, MCP
 * servers, allow rules, `env`, …; `project-config.ts`) and that is not trusted (`store.ts`), asks
 * once: trusted, the folder is remembered and its configuration applies; not trusted, its settings
 * files are read restricted (deny and ask rules, narrower modes) and its `.mcp.json` not at all. In
 * a trusted folder, each `.mcp.json` server nobody has answered for yet is asked about
 * (`mcp-approvals.ts`), and only the approved ones start.
 *
 * Print mode and stream-json (the Agent SDKs) ask nothing and behave as Claude Code's `-p` does
 * since 2.1.195: a folder that is not trusted is read restricted, as if the user had answered no (its
 * deny and ask rules apply; its allow rules, hooks, `env`, MCP servers and `.mcp.json` do not), and
 * one line on stderr says what was left out. In a trusted folder its configuration applies, and each
 * `.mcp.json` server not rejected starts. A server in `disabledMcpjsonServers` never starts.
 * `GOAT_REQUIRE_TRUST=1` asks more of a trusted folder: only approved `.mcp.json` servers start,
 * each omission reported. `GOAT_REQUIRE_TRUST=0` restores the old headless rule for a user's own
 * repositories in CI: the folder's configuration applies unasked (the project cannot set it: its
 * `env` is applied only after this is decided).
 *
 * Cost when nothing needs asking: none beyond the project description, whose reads of the settings
 * files and `.mcp.json` the session then merges (each file is read once per start), plus
 * `trust.json` when the folder declares something.
 */
import { relative, resolve } from "node:path";
import { type PluginConfig, type ProjectDescription, readProjectDescription } from "../../settings/index.js";
import type { CliArgs } from "../args.js";
import { terminalSafe } from "../terminal/safe-text.js";
import type { McpjsonApprovals } from "./mcp-approvals.js";
import { readMcpjsonApprovals, recordMcpjsonChoice } from "./mcp-approvals.js";
import { needsTrust, type ProjectConfig, readProjectConfig } from "./project-config.js";
import type { TrustQuestions } from "./questions.js";
import {
  canRememberTrust,
  isFolderTrusted,
  realFolder,
  rememberTrustedFolder,
  trustFilePath,
} from "./store.js";

/** How much of the folder's own configuration the session applies. */
export interface ProjectTrust {
  /** Settings files read restricted (the folder is not trusted); none when it is. */
  restrictedFiles: string[];
  /** Whether `.mcp.json` is read at all. */
  readMcpjson: boolean;
  /** Which servers of `.mcp.json` start (all of them when absent). */
  keepMcpjsonServer?: (name: string) => boolean;
  /**
   * Whether the folder's subagents and slash commands (`.claude/agents/`, `.claude/commands/`) apply
   * (they do when absent).
   */
  readProjectDefinitions?: boolean;
  /**
   * The definitions and plugins read to decide (the user's and the folder's agents, commands and
   * skills, the plugins), which the session then applies: the files are read once.
   */
  description?: ProjectDescription;
}

/** What deciding needs. */
export interface TrustContext {
  /** The session's folder (resolved). */
  cwd: string;
  env: Record<string, string | undefined>;
  /** `--setting-sources` (undefined: all). */
  settingSources?: readonly string[];
  /** `--settings` (a path or JSON), which may reject servers too. */
  settingsFlag?: string;
  /** Whether a person answers at a terminal (interactive `goat`). */
  interactive: boolean;
  /** Where headless notices go. */
  stderr: { write(text: string): unknown };
  /** The `--plugin-dir` plugins, read with the rest (they need no trust: the user named them). */
  plugins?: readonly PluginConfig[];
  /** Opens the terminal questions; called only when there is something to ask. */
  openQuestions: () => Promise<TrustQuestions>;
}

/** Everything of the folder applies, as before workspace trust existed. */
const ALL: ProjectTrust = { restrictedFiles: [], readMcpjson: true, readProjectDefinitions: true };

/** Decides; resolves "quit" when the user pressed Ctrl-C at a question. */
export async function settleProjectTrust(ctx: TrustContext): Promise<ProjectTrust | "quit"> {
  const description = readProjectDescription({
    cwd: ctx.cwd,
    env: ctx.env,
    sources: ctx.settingSources ?? ["user", "project", "local"],
    plugins: ctx.plugins,
  });
  const project = readProjectConfig(ctx.cwd, ctx.env, ctx.settingSources, description);
  const trust = await decide(ctx, project, description);
  return trust === "quit" ? trust : { ...trust, description };
}

async function decide(
  ctx: TrustContext,
  project: ProjectConfig,
  description: ProjectDescription,
): Promise<ProjectTrust | "quit"> {
  if (!needsTrust(project)) return ALL;
  const approvals = readMcpjsonApprovals(ctx.cwd, ctx.env, ctx.settingsFlag, description.settings);
  if (!ctx.interactive) return headless(project, approvals, ctx);
  const folder = realFolder(ctx.cwd);
  const trusted = isFolderTrusted(folder, ctx.env);
  const pending = project.mcpjsonServers.filter(
    (s) => !approvals.rejected(s.name) && approvals.approvedIn(s.name) === undefined,
  );
  if (trusted && pending.length === 0) return approvedOnly(approvals);
  const questions = await ctx.openQuestions();
  try {
    if (!trusted) {
      const answer = await questions.trustFolder(project, approvals, canRememberTrust(folder));
      if (answer === "quit") return "quit";
      if (answer === "skip") {
        questions.note("Continuing without this folder's configuration (not trusted).");
        return restricted(project);
      }
      await remember(folder, ctx.env, questions);
    }
    return await askServers(pending, approvals, ctx.cwd, questions);
  } finally {
    questions.close();
  }
}

/** The headless rules: as Claude Code's `-p` (see the module comment for `GOAT_REQUIRE_TRUST`). */
function headless(project: ProjectConfig, approvals: McpjsonApprovals, ctx: TrustContext): ProjectTrust {
  const required = trustRequirement(ctx.env);
  if (required === "never") return { ...ALL, keepMcpjsonServer: (name) => !approvals.rejected(name) };
  if (!isFolderTrusted(realFolder(ctx.cwd), ctx.env)) {
    const what = [
      ...project.mcpjsonServers.map((s) => `MCP server ${s.name} (.mcp.json)`),
      ...project.declaring.flatMap((d) => d.items.map((item) => `${item} (${d.file})`)),
    ];
    // One line: the items quote the project's files, so line breaks and other control characters
    // are made visible (a hook command may span lines).
    const list = what.join("; ").replace(/\n/g, "\\n");
    ctx.stderr.write(
      `${terminalSafe(`goat: ${ctx.cwd} is not a trusted folder: left out ${list}. `)}` +
        "Its deny and ask rules apply. Run goat there interactively once to trust it.\n",
    );
    return restricted(project);
  }
  if (required === "default") return { ...ALL, keepMcpjsonServer: (name) => !approvals.rejected(name) };
  for (const s of project.mcpjsonServers) {
    if (!approvals.rejected(s.name) && approvals.approvedIn(s.name) === undefined) {
      ctx.stderr.write(
        `${terminalSafe(
          `goat: MCP server ${s.name} of .mcp.json is not approved (GOAT_REQUIRE_TRUST=1): left out. `,
        )}Approve it in interactive goat, or list it in enabledMcpjsonServers.\n`,
      );
    }
  }
  return approvedOnly(approvals);
}

/**
 * `GOAT_REQUIRE_TRUST`: `1`/`true` ("approved", trusted folders start only approved `.mcp.json`
 * servers), `0`/`false` ("never": headless runs apply any folder's configuration), else "default".
 */
function trustRequirement(env: Record<string, string | undefined>): "approved" | "never" | "default" {
  const value = env.GOAT_REQUIRE_TRUST?.trim().toLowerCase();
  if (value === "1" || value === "true") return "approved";
  if (value === "0" || value === "false") return "never";
  return "default";
}

/** The untrusted folder: its settings restricted, its `.mcp.json` unread. */
function restricted(project: ProjectConfig): ProjectTrust {
  return { restrictedFiles: project.settingsFiles, readMcpjson: false, readProjectDefinitions: false };
}

/** A trusted folder whose `.mcp.json` servers start only when approved and not rejected. */
function approvedOnly(approvals: McpjsonApprovals, alsoUse: ReadonlySet<string> = new Set()): ProjectTrust {
  return {
    ...ALL,
    keepMcpjsonServer: (name) =>
      !approvals.rejected(name) && (alsoUse.has(name) || approvals.approvedIn(name) !== undefined),
  };
}

/** Remembers the folder (not the home folder or `/`), saying where or why not. */
async function remember(
  folder: string,
  env: Record<string, string | undefined>,
  questions: TrustQuestions,
): Promise<void> {
  try {
    const kept = await rememberTrustedFolder(folder, env);
    questions.note(
      kept
        ? `Trusted ${folder} (remembered in ${trustFilePath(env)}).`
        : `Trusted ${folder} for this session (the home folder and / are never remembered).`,
    );
  } catch (error) {
    questions.note(`Trusted for this session only: ${(error as Error).message}`);
  }
}

/**
 * Asks about each server nobody has answered for, recording the answers in the project's
 * `.goat/settings.local.json`; Esc leaves one out this time only. "quit" on Ctrl-C.
 */
async function askServers(
  pending: ProjectConfig["mcpjsonServers"],
  approvals: McpjsonApprovals,
  cwd: string,
  questions: TrustQuestions,
): Promise<ProjectTrust | "quit"> {
  const use = new Set<string>();
  let all = false;
  for (const server of pending) {
    if (all) {
      use.add(server.name);
      continue;
    }
    const answer = await questions.useServer(server);
    if (answer === "quit") return "quit";
    if (answer === "use" || answer === "all") use.add(server.name);
    all = answer === "all";
    if (answer === "not-now") {
      questions.note(`Not using ${server.name} this time.`);
      continue;
    }
    const choice =
      answer === "all"
        ? ({ kind: "enableAll" } as const)
        : ({ kind: answer === "use" ? "enable" : "disable", name: server.name } as const);
    const what =
      answer === "all"
        ? "Using every server of this project's .mcp.json"
        : `${answer === "use" ? "Using" : "Not using"} ${server.name}`;
    await recordMcpjsonChoice(cwd, choice).then(
      (file) => questions.note(`${what} (recorded in ${relative(cwd, file)}).`),
      (error: Error) => questions.note(`${what} this time: ${error.message}`),
    );
  }
  return approvedOnly(approvals, use);
}

/**
 * Workspace trust for one start of the `goat` command, from its arguments: asked at the program's
 * terminal when `interactive`, headless notices on stderr otherwise.
 */
export function settleCliTrust(args: CliArgs, interactive: boolean): Promise<ProjectTrust | "quit"> {
  return settleProjectTrust({
    cwd: resolve(args.cwd ?? process.cwd()),
    env: process.env,
    settingSources: args.settingSources,
    settingsFlag: args.settings,
    plugins: args.plugins,
    interactive,
    stderr: process.stderr,
    openQuestions: async () =>
      (await import("./questions.js")).openTrustQuestions(process.stdin, process.stdout, process.env),
  });
}
