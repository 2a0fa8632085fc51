/**
 * The `plugins` option (the Claude Agent SDK's `[{ type: "local", path }]`, the CLI's `--plugin-dir`):
 * each plugin's parts, read by `settings/plugins.ts`, join the session's options below the options'
 * own. Commands, agents and skills carry the plugin's name (`<plugin>:<name>`), so they never replace
 * a project's; hooks run after the settings' and the options' own; MCP servers are validated here
 * and a server that cannot start is one warning, not the end of the session.
 */
import { parseMcpConfig } from "../mcp/config-file.js";
import { type LoadedPlugins, readPlugins } from "../settings/plugins.js";
import { mergeHooks } from "./merge-hooks.js";
import type { SessionOptions } from "./options.js";

/**
 * The options with their `plugins` read and applied (`plugins` then dropped, `loadedPlugins` set);
 * the same object when there are none. Never throws: problems go to `warn`.
 */
export function withPlugins(options: SessionOptions, warn: (message: string) => void): SessionOptions {
  if (options.plugins === undefined || options.plugins.length === 0) return options;
  return applyPlugins(options, readPlugins(options.plugins, options.cwd ?? process.cwd(), warn), warn);
}

/**
 * The options with plugins already read applied (`plugins` dropped, `loadedPlugins` set); the same
 * options when nothing was read.
 */
export function applyPlugins(
  options: SessionOptions,
  loaded: LoadedPlugins,
  warn: (message: string) => void,
): SessionOptions {
  // Nothing read (the description was read without plugins): `plugins` stays, for withPlugins.
  if (loaded.plugins.length === 0 && loaded.errors.length === 0) return options;
  const { plugins: _, ...out } = options;
  const result: SessionOptions = {
    ...out,
    // Added to those already loaded (the `--plugin-dir` ones, when a host's initialize sends more).
    loadedPlugins: {
      plugins: [
        ...(options.loadedPlugins?.plugins ?? []),
        ...loaded.plugins.map(({ name, path, version }) => ({
          name,
          path,
          ...(version !== undefined ? { version } : {}),
        })),
      ],
      errors: [...(options.loadedPlugins?.errors ?? []), ...loaded.errors],
    },
  };
  for (const plugin of loaded.plugins) {
    const agents = Object.entries(plugin.agents).map(([name, { file: _file, ...agent }]) => [name, agent]);
    result.agents = below(result.agents, Object.fromEntries(agents));
    result.slashCommands = below(result.slashCommands, plugin.commands);
    result.skillDefinitions = below(result.skillDefinitions, plugin.skills);
    // A plugin's hooks join the session's (every matching hook runs, whatever the order).
    if (Object.keys(plugin.hooks).length > 0) result.hooks = mergeHooks(plugin.hooks, result.hooks);
    const servers = Object.keys(plugin.mcpServers);
    if (servers.length > 0) {
      const { servers: parsed, errors } = parseMcpConfig(
        { mcpServers: plugin.mcpServers },
        result.env ?? process.env,
      );
      for (const [name, problem] of Object.entries(errors)) {
        warn(`plugin ${plugin.name}: MCP server ${name}: ${problem}; left out`);
        result.loadedPlugins?.errors.push({
          plugin: plugin.name,
          type: "mcp-config-invalid",
          message: problem,
        });
      }
      result.mcpServers = { ...parsed, ...result.mcpServers };
    }
  }
  return result;
}

/**
 * `own` with the plugin's entries added after it, where `own` has none of that name: a plugin's part
 * is listed after the session's own and never replaces one. Undefined stays so when both are empty.
 */
function below<T>(
  own: Record<string, T> | undefined,
  plugin: Record<string, T>,
): Record<string, T> | undefined {
  if (Object.keys(plugin).length === 0) return own;
  return {
    ...own,
    ...Object.fromEntries(Object.entries(plugin).filter(([name]) => !own || !Object.hasOwn(own, name))),
  };
}
