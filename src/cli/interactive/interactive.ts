/**
 * Interactive mode: one multi-turn `query()` fed by what is typed at the prompt, the answer streamed
 * as it is written, a status line while waiting, tool calls with their outcome, one-key permission
 * questions and slash commands. In a real terminal the prompt is our own editor (`terminal/`); on a
 * dumb terminal or with output to a pipe it is plain lines. Esc or Ctrl-C interrupt the turn (the
 * session stays usable); Ctrl-C twice at an empty prompt, Ctrl-D on an empty prompt or /exit leave.
 * Ctrl-O shows or hides thinking in full (`--verbose` or `"verbose": true` start with it shown).
 * Shift+Tab cycles the permission modes, the mode shown under the prompt when it is not the default.
 */
import type { PermissionMode, QueryOptions } from "../../index.js";
import { type Query, query } from "../../index.js";
import { defaultModel } from "../../llm/index.js";
import { killTrackedGroups, killTrackedGroupsNow } from "../../tools/index.js";
import type { CliArgs } from "../args.js";
import { type CliConfig, withMainAgent, withMcpServers } from "../config.js";
import { createInputQueue, type InputQueue } from "../input-queue.js";
import { loadRich, richIfLoaded } from "../rich-loader.js";
import { SIGNAL_KILL_GRACE_MS } from "../stop-grace.js";
import type { MenuCommand } from "../terminal/command-menu.js";
import { terminalSafe } from "../terminal/safe-text.js";
import { pickSessionToResume, replaySession } from "./interactive-resume.js";
import { createInteractiveUi, type InteractiveUi, interactivePermissions } from "./interactive-ui.js";
import { modeHint, nextMode } from "./permission-modes.js";
import { isCustomCommand, runSlashCommand, SLASH_COMMANDS } from "./slash-commands.js";

interface Session {
  q: Query;
  input: InputQueue;
  consumed: Promise<void>;
}

/** Runs the interactive session until the user leaves; resolves with the exit status. */
export async function runInteractive(
  args: CliArgs,
  cliConfig: CliConfig,
  options: { pickSession?: boolean } = {},
): Promise<number> {
  const withServers = await withMcpServers(cliConfig, args);
  const config = { ...withServers, options: withMainAgent(withServers.options, args.agent) };
  const ui = createInteractiveUi(args, cliConfig, config.cwd);
  const { live, style, screen, user, status, thinking, renderer } = ui;

  // The permission mode, kept across /clear and /resume; Shift+Tab, an "always" answer that switches
  // modes and each run's system/init change it.
  const startMode = config.options.permissionMode ?? "default";
  const bypassAllowed = args.allowDangerouslySkipPermissions || startMode === "bypassPermissions";
  let mode: PermissionMode = startMode;
  const setMode = (next: PermissionMode) => {
    mode = next;
    user.setHint(modeHint(mode, style));
  };

  let pendingTurns = 0;
  let armedExit = false;
  let finish!: (code: number) => void;
  const finished = new Promise<number>((resolve) => {
    finish = resolve;
  });

  // An interrupt can come before the turn's run has started (its `system/init` not seen yet), when
  // there is nothing to stop: it is repeated once the run is there.
  let runStarted = false;
  let interruptPending = false;
  const interrupt = () => {
    if (pendingTurns === 0) return;
    renderer.interrupted();
    status.end();
    if (!runStarted) interruptPending = true;
    void current().q.interrupt();
  };
  const canUseTool = interactivePermissions(args, ui, config.cwd, interrupt, setMode);

  const start = (extra: Partial<QueryOptions>): Session => {
    const input = createInputQueue();
    const q = query({
      prompt: input,
      options: {
        ...config.options,
        ...extra,
        permissionMode: mode,
        includePartialMessages: true,
        canUseTool,
      },
    });
    const consumed = (async () => {
      for await (const message of q) {
        // Answers are rendered as markdown: streamed text shows as written at once, and a whole message
        // waits for the renderer (started loading at the first prompt).
        if ((message.type === "assistant" || message.type === "user") && !richIfLoaded())
          await loadRich().catch(() => undefined);
        if (message.type === "system" && message.subtype === "init") {
          runStarted = true;
          if (message.permissionMode !== mode) setMode(message.permissionMode);
          if (interruptPending) {
            interruptPending = false;
            void q.interrupt();
          }
        }
        renderer.handle(message);
        if (message.type === "result") {
          runStarted = false;
          pendingTurns = Math.max(0, pendingTurns - 1);
          if (pendingTurns === 0) user.setPromptVisible(true);
          else status.begin("Thinking…");
        }
      }
    })().catch((error) =>
      renderer.note(style.red(`session error: ${terminalSafe((error as Error).message)}`)),
    );
    return { q, input, consumed };
  };
  // Started once the user has picked a session (`goat --resume` without an id), else right away.
  let session: Session | undefined = options.pickSession ? undefined : start({});
  const current = () => {
    session ??= start({});
    return session;
  };

  const replay = (sessionId: string) => replaySession(ui, config.cwd, sessionId);

  const stop = async (s: Session | undefined) => {
    if (!s) return;
    s.input.close();
    s.q.close();
    await s.consumed;
  };
  let exiting = false;
  const exit = (code: number, graceMs?: number) => {
    if (exiting) return;
    exiting = true;
    status.end();
    user.close();
    void stop(session)
      .then(() => killTrackedGroups(graceMs))
      .then(() => {
        process.off("SIGTERM", onTerm);
        process.off("SIGHUP", onHup);
        screen.close();
        finish(code);
      });
  };
  // A process manager's SIGTERM or the terminal closing (SIGHUP): end the session as /exit does,
  // which interrupts the run and kills its tools, and exit with the conventional status.
  const onTerm = () => exit(143, SIGNAL_KILL_GRACE_MS);
  const onHup = () => exit(129, SIGNAL_KILL_GRACE_MS);
  process.once("SIGTERM", onTerm);
  process.once("SIGHUP", onHup);
  process.once("exit", killTrackedGroupsNow);

  /** Sends a prompt; `shown` is echoed into the transcript (long pastes as their stand-ins), null: none. */
  const sendPrompt = (text: string, shown: string | null = text) => {
    renderer.endLine();
    if (live && shown !== null) {
      const [first, ...rest] = terminalSafe(shown).split("\n");
      screen.print(`${style.bold(">")} ${first}\n${rest.map((l) => `  ${l}\n`).join("")}`);
    }
    pendingTurns++;
    if (pendingTurns === 1) status.begin("Thinking…");
    else renderer.note(style.dim("(queued: sent when the current answer ends)"));
    // After the first paint: load the markdown renderer while the model thinks.
    setImmediate(() => void loadRich().catch(() => undefined));
    user.setPromptVisible(live);
    current().input.push(text);
  };

  const submit = (text: string, shown?: string) => {
    armedExit = false;
    const trimmed = text.trim();
    if (trimmed === "") return;
    if (
      trimmed.startsWith("/") &&
      !trimmed.includes("\n") &&
      !isCustomCommand(trimmed, config.options.slashCommands)
    ) {
      if (pendingTurns > 0) {
        // Never send a command to the model as a prompt; most need the turn to be over.
        if (trimmed === "/exit") exit(0);
        else
          renderer.note(
            `${trimmed.split(" ")[0]} runs between turns: wait for the answer, or press Esc first.`,
          );
        return;
      }
      if (live) screen.print(`${style.bold(">")} ${terminalSafe(trimmed)}\n`);
      user.setPromptVisible(false);
      void runSlashCommand(trimmed, {
        query: () => current().q,
        cwd: config.cwd,
        model: () => renderer.model ?? config.model,
        // Slash commands quote servers, models and errors: escaped, as all outside text is.
        note: (t) => renderer.note(terminalSafe(t)),
        pick: (title, items) => user.pick(title, items),
        restart: async (opts) => {
          await stop(session);
          pendingTurns = 0;
          renderer.sessionStarted();
          session = start(
            opts.resume
              ? { resume: opts.resume, continue: undefined }
              : { resume: undefined, continue: undefined },
          );
          if (opts.resume) await replay(opts.resume);
        },
        exit,
        // The command line was echoed already: the prompt it sends (/init) is not.
        send: (prompt) => sendPrompt(prompt, null),
        mode: () => mode,
        customCommands: config.options.slashCommands,
      }).finally(() => {
        if (!exiting) user.setPromptVisible(true);
      });
      return;
    }
    sendPrompt(text, shown);
  };

  const resumed = typeof config.options.resume === "string" ? config.options.resume : undefined;
  // The banner first: in plain mode the input writes its "> " as it starts.
  printBanner(ui, config, options.pickSession ? undefined : (resumed ?? current().q.sessionId));
  user.start({
    submit,
    ctrlC(hadText) {
      if (pendingTurns > 0) {
        interrupt();
        return;
      }
      if (hadText) {
        armedExit = false;
        return;
      }
      if (armedExit) {
        exit(0);
        return;
      }
      armedExit = true;
      renderer.note(style.dim("(press Ctrl-C again to exit)"));
    },
    escape: interrupt,
    ctrlO() {
      thinking.toggle();
      screen.redrawAll();
    },
    eof: () => exit(0),
    shiftTab() {
      setMode(nextMode(mode, bypassAllowed, startMode));
      // Between turns the next run starts in it; during one, the run switches now.
      if (session) void session.q.setPermissionMode(mode).catch(() => undefined);
    },
  });
  if (mode !== "default") setMode(mode);
  user.setCommands(commandList(config.options.slashCommands));
  if (options.pickSession) {
    const picked = await pickSessionToResume(ui, config.cwd);
    session = start(
      picked ? { resume: picked, continue: undefined, forkSession: config.options.forkSession } : {},
    );
    if (picked) await replay(picked);
  } else if (resumed) await replay(resumed);
  // `goat "explain this repo"`: the session starts with that prompt already sent, as `claude "…"` does.
  if (args.prompt !== undefined && args.prompt.trim() !== "") sendPrompt(args.prompt);
  return finished;
}

/** The line naming the model, the permission mode, the directory and the session, and the keys. */
function printBanner(ui: InteractiveUi, config: CliConfig, sessionId: string | undefined): void {
  const { screen, style } = ui;
  const model = config.model ?? defaultModel(process.env);
  const mode = config.options.permissionMode ?? "default";
  screen.print(
    `${style.bold("goat")} ${style.dim("·")} ${model} ${style.dim("·")} ${mode} ${style.dim("·")} ${config.cwd} ${sessionId ? style.dim(`· session ${sessionId.slice(0, 8)}`) : ""}\n` +
      `${style.dim("/help for commands · Esc interrupts · Ctrl-D exits")}\n`,
  );
}

/** The slash commands the prompt's menu offers: the built-in ones, then the custom ones. */
function commandList(custom: QueryOptions["slashCommands"]): MenuCommand[] {
  return [
    ...SLASH_COMMANDS,
    ...Object.entries(custom ?? {}).map(([name, c]) => ({
      name: `/${name}`,
      argumentHint: c.argumentHint,
      description: c.description,
    })),
  ];
}
