/**
 * Interactive mode: a prompt line (node:readline), one multi-turn `query()` fed by what is typed,
 * the answer streamed as it is written, tool calls with a spinner and their outcome, permission
 * questions, slash commands. Ctrl-C interrupts the turn (the session stays usable); Ctrl-C twice at
 * an empty prompt, Ctrl-D or /exit leave.
 */
import { createInterface } from "node:readline";
import type { QueryOptions } from "../agent/options.js";
import { type Query, query } from "../agent/query.js";
import type { CliArgs } from "./args.js";
import { type CliConfig, withMainAgent, withMcpServers } from "./config.js";
import { createInputQueue, type InputQueue } from "./input-queue.js";
import { createPermissionPrompt } from "./permission-prompt.js";
import { createRenderer } from "./renderer.js";
import { runSlashCommand } from "./slash-commands.js";
import { createSpinner } from "./spinner.js";
import { createStyle, fancyOutput } from "./style.js";

interface Session {
  q: Query;
  input: InputQueue;
  consumed: Promise<void>;
}

/** Runs the interactive session until the user leaves; resolves with the exit status. */
export async function runInteractive(args: CliArgs, cliConfig: CliConfig): Promise<number> {
  const withServers = await withMcpServers(cliConfig, args);
  const config = { ...withServers, options: withMainAgent(withServers.options, args.agent) };
  const out = process.stdout;
  const fancy = fancyOutput(out, process.env);
  const style = createStyle(fancy);
  const spinner = createSpinner(out, fancy);
  const renderer = createRenderer(out, style, spinner, config.cwd);
  const rl = createInterface({ input: process.stdin, output: out, terminal: true, prompt: style.bold("> ") });

  let pendingTurns = 0;
  let armedExit = false;
  let answer: ((text: string) => void) | undefined;
  let finish!: (code: number) => void;
  const finished = new Promise<number>((resolve) => {
    finish = resolve;
  });

  const showPrompt = () => {
    if (pendingTurns === 0 && !answer) rl.prompt();
  };
  const ask = (question: string, signal?: AbortSignal) =>
    new Promise<string>((resolve) => {
      renderer.endLine();
      const done = (text: string) => {
        answer = undefined;
        signal?.removeEventListener("abort", cancel);
        resolve(text);
      };
      const cancel = () => done("");
      signal?.addEventListener("abort", cancel, { once: true });
      answer = done;
      rl.setPrompt(question);
      rl.prompt();
      rl.setPrompt(style.bold("> "));
    });
  // --permission-prompts none: a call that would ask is denied without asking.
  const canUseTool = args.permissionPrompts === "none" ? undefined : createPermissionPrompt(ask, config.cwd);

  const start = (extra: Partial<QueryOptions>): Session => {
    const input = createInputQueue();
    const q = query({
      prompt: input,
      options: { ...config.options, ...extra, includePartialMessages: true, canUseTool },
    });
    const consumed = (async () => {
      for await (const message of q) {
        renderer.handle(message);
        if (message.type === "result") {
          pendingTurns = Math.max(0, pendingTurns - 1);
          showPrompt();
        }
      }
    })().catch((error) => renderer.note(style.red(`session error: ${(error as Error).message}`)));
    return { q, input, consumed };
  };
  let session = start({});

  const stop = async (s: Session) => {
    s.input.close();
    s.q.close();
    await s.consumed;
  };
  let exiting = false;
  let exitCode = 0;
  // Every way out (/exit, Ctrl-C twice, Ctrl-D) closes readline; its close handler ends the session.
  const exit = (code: number) => {
    exitCode = code;
    rl.close();
  };

  rl.on("line", (line) => {
    if (answer) {
      answer(line);
      return;
    }
    armedExit = false;
    const text = line.trim();
    if (text === "") {
      showPrompt();
      return;
    }
    if (text.startsWith("/") && pendingTurns === 0) {
      void runSlashCommand(text, {
        query: () => session.q,
        cwd: config.cwd,
        model: () => renderer.model ?? config.model,
        note: (t) => renderer.note(t),
        ask: (question) => ask(question),
        restart: async (opts) => {
          await stop(session);
          pendingTurns = 0;
          session = start(
            opts.resume
              ? { resume: opts.resume, continue: undefined }
              : { resume: undefined, continue: undefined },
          );
        },
        exit,
      }).finally(() => {
        if (!exiting) showPrompt();
      });
      return;
    }
    if (text.startsWith("/")) {
      // Never send a command to the model as a prompt; most need the turn to be over.
      if (text === "/exit") exit(0);
      else
        renderer.note(
          `${text.split(" ")[0]} runs between turns: wait for the answer, or press Ctrl-C first.`,
        );
      return;
    }
    pendingTurns++;
    session.input.push(line);
  });

  rl.on("SIGINT", () => {
    if (answer) {
      answer("");
      return;
    }
    if (pendingTurns > 0) {
      renderer.endLine();
      void session.q.interrupt();
      return;
    }
    if (rl.line.length > 0) {
      // Clear what was typed, as a shell does.
      rl.write(null, { ctrl: true, name: "u" });
      armedExit = false;
      return;
    }
    if (armedExit) {
      out.write("\n");
      exit(0);
      return;
    }
    armedExit = true;
    out.write(`\n${style.dim("(press Ctrl-C again to exit)")}\n`);
    rl.prompt();
  });

  rl.on("close", () => {
    if (exiting) return;
    exiting = true;
    renderer.endLine();
    void stop(session).then(() => finish(exitCode));
  });

  out.write(
    `${style.bold("goat")} ${style.dim(`— ${config.cwd}${args.model ? ` — ${args.model}` : ""} — /help for commands, Ctrl-D to exit`)}\n`,
  );
  showPrompt();
  return finished;
}
