/**
 * Input without cursor control (TERM=dumb, or output to a pipe): the terminal's own line editing,
 * one line per prompt, Ctrl-C as SIGINT. Questions and pickers read the next line.
 */
import { createInterface } from "node:readline";
import type { Readable, Writable } from "node:stream";
import { terminalSafe } from "./safe-text.js";
import type { Choice, InputHandlers, UserInput } from "./user-input.js";

/** Creates line-based input over `stdin`, writing its prompts to `out`. */
export function createPlainInput(stdin: Readable, out: Writable): UserInput {
  const rl = createInterface({ input: stdin, terminal: false });
  let handlers: InputHandlers | undefined;
  let answer: ((line: string | undefined) => void) | undefined;
  let visible = true;
  let closed = false;

  const nextLine = (signal?: AbortSignal) =>
    new Promise<string | undefined>((resolve) => {
      if (signal?.aborted || closed) {
        resolve(undefined);
        return;
      }
      const abort = () => done(undefined);
      const done = (line: string | undefined) => {
        answer = undefined;
        signal?.removeEventListener("abort", abort);
        resolve(line);
      };
      signal?.addEventListener("abort", abort, { once: true });
      answer = done;
    });
  const onSigint = () => {
    if (answer) answer(undefined);
    else handlers?.ctrlC(false);
  };

  return {
    start(h) {
      handlers = h;
      rl.on("line", (line) => {
        if (answer) answer(line);
        else handlers?.submit(line);
      });
      rl.on("close", () => {
        if (answer) answer(undefined);
        if (!closed) handlers?.eof();
      });
      process.on("SIGINT", onSigint);
      if (visible) out.write("> ");
    },
    async choose(question, keys, signal): Promise<Choice> {
      for (;;) {
        out.write(`${terminalSafe(question, { mode: "styled" })}\n`);
        const line = await nextLine(signal);
        if (line === undefined) return "escape";
        if (line.trim() === "" && keys.includes("enter")) return "enter";
        const key = line.trim().toLowerCase()[0];
        if (key !== undefined && keys.includes(key)) return key;
      }
    },
    async ask(question, signal) {
      out.write(`${terminalSafe(question, { mode: "styled" })}\n> `);
      return nextLine(signal);
    },
    async pick(title, items, signal) {
      out.write(`${terminalSafe(title, { mode: "styled" })}\n`);
      for (const [i, item] of items.entries())
        out.write(`${String(i + 1).padStart(2)}. ${terminalSafe(item, { mode: "styled" })}\n`);
      out.write(`which? [1-${items.length}, Enter to cancel] `);
      const line = (await nextLine(signal))?.trim();
      const n = Number(line);
      return line && Number.isInteger(n) && n >= 1 && n <= items.length ? n - 1 : undefined;
    },
    setCommands() {
      // No menu without cursor control: /help lists the commands.
    },
    setHint() {
      // No line under the prompt without cursor control.
    },
    setPromptVisible(v) {
      if (v && !visible && !closed) out.write("> ");
      visible = v;
    },
    close() {
      if (closed) return;
      closed = true;
      process.off("SIGINT", onSigint);
      rl.close();
    },
  };
}
