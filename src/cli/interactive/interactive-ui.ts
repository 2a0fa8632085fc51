/**
 * The interactive mode's terminal: the screen, the prompt (our own editor in a real terminal, plain
 * lines otherwise), the status line, the thinking view and the renderer of the SDK's messages, and
 * the questions a tool call's permission asks through them.
 */
import type { CanUseTool, PermissionMode } from "../../index.js";
import type { CliArgs } from "../args.js";
import type { CliConfig } from "../config.js";
import { createRenderer, type Renderer } from "../render/renderer.js";
import { createStatusLine, type StatusLine } from "../render/status-line.js";
import { createThinkingView, type ThinkingView } from "../render/thinking-view.js";
import { colorOutput, createStyle, cursorControl, type Style } from "../style.js";
import { createPlainInput } from "../terminal/plain-input.js";
import { createRawInput } from "../terminal/raw-input.js";
import { createScreen, type Screen } from "../terminal/screen.js";
import type { UserInput } from "../terminal/user-input.js";
import { createPermissionPrompt } from "./permission-prompt.js";

/** The parts of the interactive terminal. */
export interface InteractiveUi {
  /** Whether the terminal takes cursor control (a real terminal, not a pipe or a dumb one). */
  live: boolean;
  style: Style;
  screen: Screen;
  user: UserInput;
  status: StatusLine;
  thinking: ThinkingView;
  renderer: Renderer;
}

/** Creates the terminal on the process's stdin and stdout. */
export function createInteractiveUi(args: CliArgs, cliConfig: CliConfig, cwd: string): InteractiveUi {
  const out = process.stdout;
  const live = cursorControl(process.stdin, out, process.env);
  const style = createStyle(colorOutput(out, process.env));
  const screen = createScreen(out, live, { dim: style.dim });
  const user: UserInput = live
    ? createRawInput(process.stdin, out, screen, style)
    : createPlainInput(process.stdin, out);
  const status = createStatusLine(screen, style);
  const thinking = createThinkingView(screen, style, {
    expanded: args.verbose || cliConfig.settings.verbose === true,
    live,
  });
  const silence = Number(process.env.GOAT_SILENCE_NOTICE_MS);
  const renderer = createRenderer(
    screen,
    style,
    status,
    cwd,
    thinking,
    Number.isFinite(silence) && silence > 0 ? silence : undefined,
  );
  return { live, style, screen, user, status, thinking, renderer };
}

/**
 * The `canUseTool` of the interactive mode: a question at the prompt, undefined with
 * `--permission-prompts none` (a call that would ask is denied without asking). `interrupt` ends the
 * turn; an "always" answer that switches the mode (acceptEdits for an edit) is passed to `setMode`.
 */
export function interactivePermissions(
  args: CliArgs,
  ui: InteractiveUi,
  cwd: string,
  interrupt: () => void,
  setMode: (mode: PermissionMode) => void,
): CanUseTool | undefined {
  if (args.permissionPrompts === "none") return undefined;
  const { status, renderer, user, screen, style } = ui;
  const prompt = createPermissionPrompt(
    {
      choose: (question, keys, signal) => {
        status.hide();
        renderer.endLine();
        return user.choose(question, keys, signal).finally(() => {
          if (!signal.aborted) status.show("Running…");
        });
      },
      ask: (question, signal) => user.ask(question, signal),
      show: (block) => screen.printBlock(block),
      columns: () => screen.columns,
      rows: () => screen.rows,
    },
    style,
    interrupt,
    cwd,
  );
  return async (toolName, input, context) => {
    const answer = await prompt(toolName, input, context);
    if (answer.behavior === "allow")
      for (const update of answer.updatedPermissions ?? [])
        if (update.type === "setMode") setMode(update.mode);
    return answer;
  };
}
