/**
 * What each host control request does: the subtypes Claude Code answers that map onto `Query`'s
 * methods (`interrupt`, `set_model`, `set_permission_mode`, context and usage, file rewinds, tasks,
 * files, reloads), with Claude Code's response shapes; the MCP ones are in `control-mcp-handlers.ts`,
 * the settings ones in `control-settings.ts`. `initialize` is the session's (it shapes the query's
 * options). A subtype Goat has no counterpart for gets an error answer with Claude Code's
 * `unsupported_request` code, never a hang.
 */
import { readFile } from "node:fs/promises";
import { isAbsolute, relative, resolve } from "node:path";
import type { PermissionMode } from "../../index.js";
import { PERMISSION_MODES } from "../../permissions/index.js";
import type { CliQueryOptions } from "../sdk-options.js";
import type { ControlHandlerContext, ControlSubtypeHandler } from "./control-context.js";
import { offeredAgents, offeredCommands, offeredSkills } from "./control-initialize.js";
import { MCP_HANDLERS } from "./control-mcp-handlers.js";
import { ControlError, type ControlRequestBody, type ControlRequestHandler } from "./control-protocol.js";
import { SETTINGS_HANDLERS } from "./control-settings.js";

/** What `read_file` returns at most when the host gives no `max_bytes`. */
const READ_FILE_MAX_BYTES = 10 * 1024 * 1024;

const CORE_HANDLERS: Record<string, ControlSubtypeHandler> = {
  async interrupt(_request, q) {
    await q.interrupt();
    // Messages queued behind the interrupted turn stay queued and run next.
    return { still_queued: [] };
  },
  async set_model(request, q) {
    const model = request.model;
    if (model !== undefined && model !== null && typeof model !== "string") {
      throw new Error('set_model: "model" must be a string (or absent for the configured model)');
    }
    // Claude Code's "default" means the configured model, as an absent one does.
    const next = typeof model === "string" && model !== "" && model !== "default" ? model : undefined;
    await q.setModel(next);
    return { model: next ?? "default" };
  },
  async set_permission_mode(request, q) {
    const mode = request.mode;
    if (typeof mode !== "string" || !(PERMISSION_MODES as readonly string[]).includes(mode)) {
      throw new Error(
        `set_permission_mode: "mode" must be one of ${PERMISSION_MODES.join(", ")} (got ${JSON.stringify(mode)})`,
      );
    }
    await q.setPermissionMode(mode as PermissionMode);
    return { mode };
  },
  async set_max_thinking_tokens(request, q) {
    const tokens = request.max_thinking_tokens;
    if (tokens !== null && tokens !== undefined && (typeof tokens !== "number" || !(tokens >= 0))) {
      throw new Error('set_max_thinking_tokens: "max_thinking_tokens" must be a number ≥ 0 or null');
    }
    // query() checks the display mode (and refuses "highlights"); its error is this request's answer.
    await q.setMaxThinkingTokens(
      typeof tokens === "number" && tokens > 0 ? tokens : null,
      request.thinking_display as Parameters<typeof q.setMaxThinkingTokens>[1],
    );
    return {};
  },
  async get_context_usage(_request, q) {
    return (await q.getContextUsage()) as unknown as Record<string, unknown>;
  },
  async get_usage(_request, _q, ctx) {
    return ctx.usage();
  },
  async rewind_files(request, q) {
    if (typeof request.user_message_id !== "string")
      throw new Error('rewind_files: "user_message_id" is required');
    const dryRun = request.dry_run === true;
    return (await q.rewindFiles(request.user_message_id, { dryRun })) as unknown as Record<string, unknown>;
  },
  async stop_task(request, q) {
    if (typeof request.task_id !== "string") throw new Error('stop_task: "task_id" is required');
    // An id that names nothing running is a no-op (Query.stopTask), as in Claude Code.
    await q.stopTask(request.task_id);
    return {};
  },
  async list_permission_rules(_request, q) {
    return { state: await q.listPermissionRules() };
  },
  async background_tasks(request, q) {
    const id = request.tool_use_id;
    if (id !== undefined && typeof id !== "string")
      throw new Error('background_tasks: "tool_use_id" must be a string');
    return { backgrounded: await q.backgroundTasks(id) };
  },
  async seed_read_state(request, q) {
    if (typeof request.path !== "string" || typeof request.mtime !== "number") {
      throw new Error('seed_read_state: "path" (string) and "mtime" (number) are required');
    }
    // A file changed since the host saw it is not seeded (Edit then asks for a fresh Read), as in
    // Claude Code; the answer says which it was.
    return q.seedReadState(request.path, request.mtime);
  },
  async read_file(request, _q, ctx) {
    return readFileForHost(request, ctx.options());
  },
  async reload_plugins(_request, q, ctx) {
    // The plugins were read when the session started (--plugin-dir): the lists are what it offers.
    const loaded = ctx.options().loadedPlugins;
    return {
      commands: offeredCommands(ctx.options()),
      agents: offeredAgents(ctx.options()),
      plugins: loaded?.plugins ?? [],
      mcpServers: await q.mcpServerStatus(),
      error_count: loaded?.errors.length ?? 0,
    };
  },
  async reload_skills(_request, _q, ctx) {
    // The skills were read when the session started: the list is what it offers.
    return { skills: offeredSkills(ctx.options()) };
  },
  async reload_output_styles() {
    return { available_output_styles: ["default"] };
  },
  async cancel_async_message() {
    // A queued message is handed to the runtime as soon as it arrives: there is nothing left to take back.
    return { cancelled: false };
  },
};

/**
 * `read_file`: a file in the working directory or an added directory (what Read may open without
 * asking), as text or base64, cut at `max_bytes`.
 */
async function readFileForHost(
  request: ControlRequestBody,
  options: CliQueryOptions,
): Promise<Record<string, unknown>> {
  if (typeof request.path !== "string" || request.path === "")
    throw new Error('read_file: "path" is required');
  const cwd = options.cwd ?? process.cwd();
  const absPath = resolve(cwd, request.path);
  const roots = [cwd, ...(options.additionalDirectories ?? [])];
  const inside = roots.some((root) => {
    const rel = relative(root, absPath);
    return rel === "" || (!rel.startsWith("..") && !isAbsolute(rel));
  });
  if (!inside)
    throw new ControlError(`read_file: ${absPath} is outside the session's directories`, "permission_denied");
  const max =
    typeof request.max_bytes === "number" && request.max_bytes >= 0 ? request.max_bytes : READ_FILE_MAX_BYTES;
  const bytes = await readFile(absPath);
  const cut = bytes.subarray(0, max);
  const truncated = cut.length < bytes.length;
  if (request.encoding === "base64")
    return { contents: cut.toString("base64"), absPath, truncated, encoding: "base64" };
  const contents = cut.toString("utf8");
  return { contents, absPath, truncated, lossy: contents.includes("\uFFFD") };
}

const HANDLERS: Record<string, ControlSubtypeHandler> = {
  ...CORE_HANDLERS,
  ...MCP_HANDLERS,
  ...SETTINGS_HANDLERS,
};

/** The subtypes the handler answers (for error messages and the initialize response). */
const CONTROL_SUBTYPES: readonly string[] = ["initialize", "mcp_message", ...Object.keys(HANDLERS)];

/** Creates the handler the channel runs for each host request. */
export function createControlHandler(ctx: ControlHandlerContext): ControlRequestHandler {
  return async (request) => {
    if (request.subtype === "initialize") return ctx.initialize(request);
    if (request.subtype === "mcp_message") {
      // The host's server speaks first (a tool list change): no query needed to take it.
      if (typeof request.server_name !== "string") throw new Error('mcp_message: "server_name" is required');
      ctx.mcpMessage(request.server_name, request.message);
      return { mcp_response: { jsonrpc: "2.0", result: {}, id: 0 } };
    }
    const handler = Object.hasOwn(HANDLERS, request.subtype) ? HANDLERS[request.subtype] : undefined;
    if (!handler) {
      throw new ControlError(
        `Unsupported control request subtype: ${request.subtype} (Goat answers ${CONTROL_SUBTYPES.join(", ")})`,
        "unsupported_request",
      );
    }
    return handler(request, await ctx.query(), ctx);
  };
}
