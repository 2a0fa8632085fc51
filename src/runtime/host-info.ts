/**
 * What the host can ask about a session (the Query's informational methods): the subagents and slash
 * commands it offers, the models of its catalog, the account serving its model, and how full the
 * context window is. Each answer is read when asked, so it follows the model and tools in force.
 */
import { type AccountInfo, accountOf } from "../llm/account.js";
import type { ModelCatalog } from "../llm/catalog.js";
import { type SupportedModel, supportedModels } from "../llm/model-list.js";
import type { ProviderRegistry, ProviderSpec } from "../llm/resolve.js";
import type { LoopSession } from "../loop/context.js";
import type { LoopConfig } from "../loop/loop-config.js";
import { type ContextFigures, contextFigures } from "./context-figures.js";
import type { SessionOptions } from "./options.js";
import { type AgentInfo, offeredAgents, offeredCommands, type SlashCommand } from "./session-offers.js";

/** The session's answers to the host's questions about it. */
export interface HostInfo {
  agents(): AgentInfo[];
  /** The slash commands a prompt may start with (`system/init`'s `slash_commands`). */
  commands(): SlashCommand[];
  models(): SupportedModel[];
  account(): AccountInfo;
  /** How full the context window is, by what fills it. */
  contextFigures(): ContextFigures;
}

/** What the answers are read from. */
export interface HostInfoSources {
  options: SessionOptions;
  env: Record<string, string | undefined>;
  registry: ProviderRegistry;
  providerSpecs: ProviderSpec[];
  catalog: ModelCatalog;
  currentModel(): string;
  /** True when the session offers the Task tool (and so its subagents). */
  hasTaskTool: boolean;
  /** The loop's config, for the system prompt and tools the context holds. */
  config(): Pick<LoopConfig, "systemPrompt" | "tools">;
  session: LoopSession;
  maxOutputTokens: number;
}

/** Builds the session's answers. */
export function createHostInfo(sources: HostInfoSources): HostInfo {
  const { options, catalog } = sources;
  const agents = () => offeredAgents(sources.hasTaskTool, options.agents);
  return {
    agents,
    commands: () => offeredCommands(options.slashCommands),
    models: () => supportedModels(catalog),
    account: () =>
      accountOf(sources.currentModel(), {
        registry: sources.registry,
        providers: sources.providerSpecs,
        getApiKey: options.getApiKey !== undefined,
        env: sources.env,
      }),
    contextFigures: () => {
      const model = sources.currentModel();
      const config = sources.config();
      return contextFigures({
        model,
        systemPrompt: config.systemPrompt,
        tools: config.tools,
        session: sources.session,
        contextWindow: catalog.get(model)?.contextWindow,
        maxOutputTokens: sources.maxOutputTokens,
        agents: agents(),
      });
    },
  };
}
