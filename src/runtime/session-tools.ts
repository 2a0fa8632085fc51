/**
 * The tools a session offers the model: built-in and user tools, the Task tool for subagents, and
 * the tools of its MCP servers, which may connect, fail or change while the session runs. The list
 * is read before every model call.
 */
import type { McpManager, McpServerConfig, McpSetServersResult } from "../mcp/types.js";
import type { BashSandbox } from "../sandbox/bash-sandbox.js";
import type { Confinement } from "../sandbox/confinement.js";
import type { SkillDefinition } from "../settings/skill-files.js";
import { bashTool, createBashTool } from "../tools/bash.js";
import { resolveTools } from "../tools/builtin.js";
import { createToolRegistry } from "../tools/registry.js";
import type { Tool } from "../tools/types.js";
import { createSearchBackend, WebSearchConfigError } from "../tools/web/search-backend.js";
import { createWebFetchTool, type WebFetchOptions, webFetchTool } from "../tools/web/web-fetch.js";
import { createWebSearchTool, unconfiguredWebSearchTool } from "../tools/web/web-search.js";
import type { SessionOptions } from "./options.js";
import { createSkillTool, enabledSkills } from "./skill-tool.js";
import { createTaskTool, type SubagentParent } from "./subagents.js";

/** A session's tool set. */
export interface SessionTools {
  /** The tools of the next model call. */
  current(): Tool[];
  /** Tools that never change during the session (built-ins, user tools, Task). */
  readonly staticTools: Tool[];
  /** The Task tool, when subagents are on. */
  readonly taskTool?: Tool;
  /** The names of the skills the Skill tool offers (none: no Skill tool). */
  readonly skills: string[];
  /** True when the session's Bash is the built-in one running in the OS sandbox. */
  readonly bashSandboxed: boolean;
  mcp(): McpManager | undefined;
  /** Connects the configured MCP servers in parallel, waiting at most `timeoutMs`. */
  startMcp(signal: AbortSignal, timeoutMs: number): Promise<void>;
  /** Replaces the servers added at run time (those from the options stay). */
  setMcpServers(servers: Record<string, McpServerConfig>, signal: AbortSignal): Promise<McpSetServersResult>;
  close(): Promise<void>;
}

/**
 * Builds the tool set. `disallowedTools` removes plain names from the model's view (pattern rules
 * go to permissions); `Task` is on by default and when `agents` are given. WebFetch gets the
 * session's rules and small/fast model (`web`); WebSearch is offered when `webSearch` (or
 * `GOAT_WEB_SEARCH`) names a backend, and asking for it by name without one is an error.
 */
export function createSessionTools(
  options: SessionOptions,
  cwd: string,
  subagentParent: () => SubagentParent,
  shell: { sandbox?: BashSandbox; confinement?: Confinement } = {},
  web: WebFetchOptions = {},
  onSkillUse: (name: string, skill: SkillDefinition) => void = () => {},
): SessionTools {
  const { sandbox, confinement } = shell;
  // The Claude Agent SDK's `{ type: "preset", preset: "claude_code" }` means the default set.
  const list = Array.isArray(options.tools) ? options.tools : undefined;
  const wantsTask = list === undefined || list.includes("Task") || options.agents !== undefined;
  // The built-in Bash is swapped for one that runs in the sandbox (when on) and confines what the
  // engine allows on its own analysis; a Bash tool of the host's own making is left alone (and not
  // auto-allowed by the sandbox setting: it is not sandboxed).
  const ownBash = sandbox || confinement ? createBashTool({ sandbox, confinement }) : undefined;
  const sessionWebFetch = createWebFetchTool(web);
  const search = webSearchTool(options, list);
  const names = list?.filter((t) => t !== "Task" && t !== "Skill");
  const resolved = [...resolveTools(names), ...(search && names === undefined ? [search] : [])].map((t) =>
    t === bashTool && ownBash
      ? ownBash
      : t === webFetchTool
        ? sessionWebFetch
        : t === unconfiguredWebSearchTool && search
          ? search
          : t,
  );
  const own = createToolRegistry(resolved).filter({ disallowedTools: options.disallowedTools }).list();
  const disallowed = new Set(options.disallowedTools ?? []);
  const taskTool =
    wantsTask && !disallowed.has("Task") ? createTaskTool(options.agents ?? {}, subagentParent) : undefined;
  // No skills, no Skill tool: a session without skills pays nothing for them.
  const skills = disallowed.has("Skill") ? {} : enabledSkills(options.skillDefinitions, options.skills);
  const skillTool =
    // A `tools` list names Skill to keep it, unless the `skills` option asks for skills outright.
    Object.keys(skills).length > 0 &&
    (list === undefined || list.includes("Skill") || options.skills !== undefined)
      ? createSkillTool(skills, onSkillUse)
      : undefined;
  const staticTools = [...own, ...(taskTool ? [taskTool] : []), ...(skillTool ? [skillTool] : [])];
  let mcp: McpManager | undefined;

  const createManager = async (servers: Record<string, McpServerConfig>, signal: AbortSignal) => {
    // Loaded only when used: programs without MCP never pay for the MCP SDK at start-up.
    const { createMcpManager } = await import("../mcp/manager.js");
    return createMcpManager({ servers, cwd, signal, env: options.env });
  };

  return {
    current: () =>
      mcp ? [...staticTools, ...mcp.tools().filter((t) => !disallowed.has(t.name))] : staticTools,
    staticTools,
    taskTool,
    skills: skillTool ? Object.keys(skills) : [],
    bashSandboxed: sandbox !== undefined && ownBash !== undefined && own.includes(ownBash),
    mcp: () => mcp,
    async startMcp(signal, timeoutMs) {
      if (!options.mcpServers || Object.keys(options.mcpServers).length === 0) return;
      mcp = await createManager(options.mcpServers, signal);
      await mcp.ready(timeoutMs);
    },
    async setMcpServers(servers, signal) {
      mcp ??= await createManager({}, signal);
      return mcp.setServers({ ...(options.mcpServers ?? {}), ...servers });
    },
    close: async () => mcp?.close(),
  };
}

/**
 * WebSearch on the configured backend, or undefined without one. Naming WebSearch in `tools`
 * without a backend is an error: the model would be offered a tool that can only fail.
 */
function webSearchTool(
  options: SessionOptions,
  list: ReadonlyArray<string | Tool> | undefined,
): Tool | undefined {
  const env = options.env ?? process.env;
  const config = options.webSearch ?? (env.GOAT_WEB_SEARCH?.trim() || undefined);
  if (config === undefined) {
    if (list?.includes("WebSearch")) {
      throw new WebSearchConfigError(
        'tools lists WebSearch, but no search backend is configured: set webSearch (e.g. "searxng:http://127.0.0.1:8888", or "brave" with BRAVE_API_KEY) or GOAT_WEB_SEARCH.',
      );
    }
    return undefined;
  }
  return createWebSearchTool(createSearchBackend(config, env));
}
