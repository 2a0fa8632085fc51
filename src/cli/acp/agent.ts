/**
 * `goat acp`'s request handlers: the Agent Client Protocol's agent side on the official library's
 * `agent()` app. Sessions live in this process, one `query()` each; stored sessions (Goat's JSONL
 * store) are listed and loaded, their history replayed as updates.
 */
import {
  type AgentApp,
  agent,
  type ClientCapabilities,
  type InitializeResponse,
  type ListSessionsResponse,
  PROTOCOL_VERSION,
  RequestError,
  type SessionConfigOption,
  type SessionModeState,
} from "@agentclientprotocol/sdk";
import type { PermissionModeName } from "../../index.js";
import { GOAT_VERSION, getSessionMessages, listSessions } from "../../index.js";
import type { CliArgs } from "../args.js";
import { MessageUpdates } from "./message-updates.js";
import { openSession } from "./open-session.js";
import { promptContent, UnsupportedContentError } from "./prompt-content.js";
import type { AcpSession } from "./session.js";

/** The permission modes the editor's mode menu offers. */
const MODES: ReadonlyArray<{ id: PermissionModeName; name: string; description: string }> = [
  { id: "default", name: "Default", description: "Asks before edits, commands and other changes" },
  { id: "acceptEdits", name: "Accept edits", description: "Edits in the workspace run without asking" },
  { id: "plan", name: "Plan", description: "Reads and plans; changes nothing" },
  { id: "bypassPermissions", name: "Bypass permissions", description: "Runs everything without asking" },
];
const MODEL_OPTION = "model";
/** How many stored sessions one `session/list` page holds. */
const LIST_PAGE = 100;

/** The agent app, its handlers bound to the sessions of one connection. */
export function goatAcpAgent(args: CliArgs): AgentApp {
  const sessions = new Map<string, AcpSession>();
  let capabilities: ClientCapabilities | undefined;
  const app = agent({ name: "goat" });

  app.onRequest("initialize", ({ params }): InitializeResponse => {
    capabilities = params.clientCapabilities;
    return INITIALIZE_RESPONSE;
  });

  app.onRequest("session/new", async ({ params, client }) => {
    const session = await openSession({ args, client, capabilities }, params);
    sessions.set(session.id, session);
    return { sessionId: session.id, modes: modeState(session), configOptions: await configOptions(session) };
  });

  app.onRequest("session/load", async ({ params, client }) => {
    const history = await storedHistory(params.sessionId);
    sessions.get(params.sessionId)?.close();
    const session = await openSession(
      { args, client, capabilities },
      { ...params, resume: params.sessionId },
    );
    sessions.set(session.id, session);
    const replay = new MessageUpdates();
    for (const message of history) {
      for (const update of replay.historyUpdates(message.role, message.content)) await session.send(update);
    }
    return { modes: modeState(session), configOptions: await configOptions(session) };
  });

  app.onRequest("session/list", ({ params }) => storedSessions(params.cwd, params.cursor));

  app.onRequest("session/prompt", async ({ params }) => {
    const session = sessionOf(sessions, params.sessionId);
    let content: ReturnType<typeof promptContent>;
    try {
      content = promptContent(params.prompt);
    } catch (error) {
      if (error instanceof UnsupportedContentError)
        throw RequestError.invalidParams(undefined, error.message);
      throw error;
    }
    return { stopReason: await session.prompt(content) };
  });

  app.onNotification("session/cancel", async ({ params }) => {
    await sessions.get(params.sessionId)?.cancel();
  });

  app.onRequest("session/set_mode", async ({ params }) => {
    const mode = MODES.find((m) => m.id === params.modeId);
    if (!mode) throw RequestError.invalidParams(undefined, `no mode ${params.modeId}`);
    await sessionOf(sessions, params.sessionId).setMode(mode.id);
    return {};
  });

  app.onRequest("session/set_config_option", async ({ params }) => {
    const session = sessionOf(sessions, params.sessionId);
    if (params.configId !== MODEL_OPTION || typeof params.value !== "string") {
      throw RequestError.invalidParams(undefined, `no option ${params.configId}`);
    }
    const { models } = await session.models();
    if (!models.some((m) => m.value === params.value)) {
      throw RequestError.invalidParams(undefined, `no model ${params.value} in the menu`);
    }
    await session.setModel(params.value);
    return { configOptions: await configOptions(session) };
  });

  app.onConnect((connection) => {
    // The client went away: every session ends, and with it each session's tool processes.
    void connection.closed.finally(() => {
      for (const session of sessions.values()) session.close();
    });
  });
  return app;
}

/** What Goat can do, honestly: no audio, no terminal authentication, no session deletion or resume. */
const INITIALIZE_RESPONSE: InitializeResponse = {
  protocolVersion: PROTOCOL_VERSION,
  agentInfo: { name: "goat", title: "Goat", version: GOAT_VERSION },
  agentCapabilities: {
    loadSession: true,
    promptCapabilities: { image: true, audio: false, embeddedContext: true },
    mcpCapabilities: { http: true, sse: true },
    sessionCapabilities: { list: {} },
  },
  authMethods: [],
};

/** One page of the stored sessions (of `cwd`, or all), newest first; the cursor is an offset. */
async function storedSessions(
  cwd: string | null | undefined,
  cursor: string | null | undefined,
): Promise<ListSessionsResponse> {
  const all = await listSessions(cwd ? { cwd } : {});
  const start = cursor ? Math.max(0, Number.parseInt(cursor, 10) || 0) : 0;
  const page = all.slice(start, start + LIST_PAGE);
  return {
    sessions: page.map((info) => ({
      sessionId: info.sessionId,
      cwd: info.cwd,
      title: info.firstPrompt.slice(0, 200) || null,
      updatedAt: new Date(info.lastModified).toISOString(),
    })),
    nextCursor: start + LIST_PAGE < all.length ? String(start + LIST_PAGE) : null,
  };
}

function sessionOf(sessions: Map<string, AcpSession>, id: string): AcpSession {
  const session = sessions.get(id);
  if (!session) throw RequestError.sessionNotFound(id);
  return session;
}

async function storedHistory(sessionId: string): ReturnType<typeof getSessionMessages> {
  try {
    return await getSessionMessages(sessionId);
  } catch (error) {
    throw RequestError.resourceNotFound(`session ${sessionId}: ${(error as Error).message}`);
  }
}

function modeState(session: AcpSession): SessionModeState {
  return {
    currentModeId: session.mode,
    availableModes: MODES.map(({ id, name, description }) => ({ id, name, description })),
  };
}

/** The model menu: every model of the session's catalog, across its providers. */
async function configOptions(session: AcpSession): Promise<SessionConfigOption[]> {
  const { current, models } = await session.models();
  return [
    {
      id: MODEL_OPTION,
      name: "Model",
      category: "model",
      type: "select",
      currentValue: current,
      options: models.map((m) => ({ value: m.value, name: m.displayName, description: m.description })),
    },
  ];
}
