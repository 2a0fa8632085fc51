/**
 * The project description (`settings/project-description.ts`: the user's and the folder's agents,
 * slash commands and skills, and the plugins, each read once) applied to a session's options. An
 * option's own entry wins over a file's of the same name; the folder's items apply only when it is
 * trusted; a plugin's parts come last, under the plugin's name. The memory files of the levels the
 * options read are read into the description here, once their folders are known (trusted or not:
 * memory applies either way), and the session shows them from it (`session-memory.ts`).
 */
import { definitionsInForce, type ProjectDescription } from "../settings/project-description.js";
import { memoryReadFor, readProjectMemory } from "../settings/project-memory.js";
import type { SessionOptions } from "./options.js";
import { applyPlugins } from "./plugin-options.js";
import { sessionMemoryRequest, withPreReadMemory } from "./session-memory.js";

/**
 * The options with the description's definitions added below their own; what could not be used of
 * the files in force goes to `warn`. The memory files the options read are read into
 * `description.memory` and shown by the first session started from the returned options.
 */
export function withProjectDescription<Options extends SessionOptions>(
  options: Options,
  description: ProjectDescription,
  projectTrusted: boolean,
  warn: (message: string) => void,
): Options {
  const files = definitionsInForce(description, projectTrusted);
  for (const message of [...files.warnings, ...description.pluginWarnings]) warn(message);
  const out: Options = { ...options };
  if (Object.keys(files.agents).length > 0) {
    const agents = Object.entries(files.agents).map(([name, { file: _, ...agent }]) => [name, agent]);
    out.agents = { ...Object.fromEntries(agents), ...options.agents };
  }
  if (Object.keys(files.commands).length > 0)
    out.slashCommands = { ...files.commands, ...options.slashCommands };
  if (Object.keys(files.skills).length > 0)
    out.skillDefinitions = { ...files.skills, ...options.skillDefinitions };
  return withDescriptionMemory(applyPlugins(out, description.plugins, warn) as Options, description);
}

/**
 * Reads the memory files the options ask for into `description` (kept when it holds them already,
 * read for the same folders) and hands them to the session started from the options.
 */
function withDescriptionMemory<Options extends SessionOptions>(
  options: Options,
  description: ProjectDescription,
): Options {
  const request = sessionMemoryRequest(options, options.cwd ?? description.cwd, options.env ?? process.env);
  const { user, project, local } = request?.levels ?? {};
  if (!request || !(user || project || local)) return options;
  if (description.memory?.readFor !== memoryReadFor(request)) description.memory = readProjectMemory(request);
  return withPreReadMemory(options, description.memory);
}
