/**
 * The start-up questions of the interactive `goat`, asked before anything of the project runs and
 * before the session's own screen exists: whether to trust the folder, then, one at a time, whether
 * to use each new server of its `.mcp.json`. Drawn with the session's terminal pieces (the screen,
 * the raw-mode or plain-line input, one key per answer); closed again before the session starts.
 *
 * Everything shown comes from the project's files, which are hostile input: control characters are
 * made visible and every line is clipped to the terminal's width.
 */
import { colorOutput, createStyle, cursorControl, type Style } from "../style.js";
import { createPlainInput } from "../terminal/plain-input.js";
import { createRawInput } from "../terminal/raw-input.js";
import { terminalSafe } from "../terminal/safe-text.js";
import { createScreen } from "../terminal/screen.js";
import { clipEnd } from "../terminal/text-width.js";
import type { UserInput } from "../terminal/user-input.js";
import type { McpjsonApprovals } from "./mcp-approvals.js";
import type { McpjsonServer, ProjectConfig } from "./project-config.js";

/** The answer to the trust question. */
export type TrustAnswer = "trust" | "skip" | "quit";
/** The answer about one `.mcp.json` server: this one, all of the project's, never, not this time. */
export type ServerAnswer = "use" | "all" | "never" | "not-now" | "quit";

/** The questions, over the program's terminal. */
export interface TrustQuestions {
  /** Shows what the folder declares and asks whether to trust it. */
  trustFolder(project: ProjectConfig, approvals: McpjsonApprovals, remembered: boolean): Promise<TrustAnswer>;
  /** Asks whether to use one server of `.mcp.json`. */
  useServer(server: McpjsonServer): Promise<ServerAnswer>;
  /** Prints a line (dim). */
  note(text: string): void;
  /** Gives the terminal back (raw mode off, live region erased). */
  close(): void;
}

/** Items listed per file before "… and N more". */
const MAX_ITEMS = 12;

/** Opens the questions over `stdin`/`stdout` (a terminal; plain lines when it has no cursor control). */
export function openTrustQuestions(
  stdin: NodeJS.ReadStream,
  stdout: NodeJS.WriteStream,
  env: Record<string, string | undefined>,
): TrustQuestions {
  const live = cursorControl(stdin, stdout, env);
  const style = createStyle(colorOutput(stdout, env));
  const screen = createScreen(stdout, live, { dim: style.dim, env });
  const user: UserInput = live
    ? createRawInput(stdin, stdout, screen, style)
    : createPlainInput(stdin, stdout);
  user.setPromptVisible(false);
  // The input must be running for answers to arrive; nothing is typed outside a question here.
  user.start({ submit() {}, ctrlC() {}, escape() {}, ctrlO() {}, eof() {} });
  const keys = (pairs: Array<[string, string]>) =>
    pairs.map(([key, what]) => `${style.bold(key)} ${what}`).join(" · ");

  return {
    async trustFolder(project, approvals, remembered) {
      screen.print(trustFolderText(project, approvals, style, screen.columns - 1, remembered));
      const answer = await user.choose(
        `${style.yellow("?")} Trust this folder?  ${keys([
          ["enter/y", "yes, trust it"],
          ["n", "no, continue without its configuration"],
          ["ctrl-c", "quit"],
        ])} `,
        ["enter", "y", "n"],
      );
      if (answer === "ctrl-c") return "quit";
      return answer === "enter" || answer === "y" ? "trust" : "skip";
    },
    async useServer(server) {
      screen.print(
        `${style.bold("New MCP server in .mcp.json:")} ${terminalSafe(server.name)}\n` +
          `  ${clipEnd(terminalSafe(server.description), screen.columns - 3)}\n`,
      );
      const answer = await user.choose(
        `${style.yellow("?")} Use it?  ${keys([
          ["y", "use this server"],
          ["a", "use all of this project's servers, later ones too"],
          ["n", "don't use it"],
          ["esc", "not now"],
        ])} `,
        ["y", "a", "n"],
      );
      if (answer === "ctrl-c") return "quit";
      return answer === "y" ? "use" : answer === "a" ? "all" : answer === "n" ? "never" : "not-now";
    },
    note(text) {
      screen.print(`${style.dim(terminalSafe(text))}\n`);
    },
    close() {
      user.close();
      screen.close();
    },
  };
}

/**
 * The trust question's text: the folder, what its files would run or allow, file by file, and what
 * each answer means. `columns`: the width lines are clipped to.
 */
export function trustFolderText(
  project: ProjectConfig,
  approvals: McpjsonApprovals,
  style: Style,
  columns: number,
  remembered: boolean,
): string {
  const clip = (line: string) => clipEnd(line, Math.max(20, columns));
  const lines = [
    style.bold("Do you trust the files in this folder?"),
    clip(terminalSafe(project.cwd)),
    "",
    "Its configuration would run commands on this machine or allow more than goat does by default:",
  ];
  if (project.mcpjsonServers.length > 0) {
    lines.push(`  ${style.bold(".mcp.json")}`);
    const shown = project.mcpjsonServers.slice(0, MAX_ITEMS).map((s) => {
      const where = approvals.approvedIn(s.name);
      const approved = where ? ` (approved in ${where})` : approvals.rejected(s.name) ? " (rejected)" : "";
      return clip(`    MCP server ${terminalSafe(s.name)}${approved}: ${terminalSafe(s.description)}`);
    });
    lines.push(...shown, ...more(project.mcpjsonServers.length, style));
  }
  for (const { file, items } of project.declaring) {
    lines.push(`  ${style.bold(terminalSafe(file))}`);
    lines.push(
      ...items.slice(0, MAX_ITEMS).map((item) => clip(`    ${terminalSafe(item)}`)),
      ...more(items.length, style),
    );
  }
  const asked = project.mcpjsonServers.length > 0 ? " (each .mcp.json server is still asked about once)" : "";
  lines.push(
    "",
    remembered
      ? `Trusting it lets goat run and allow these, now and whenever it starts in this folder or one below it${asked}.`
      : `Trusting it lets goat run and allow these for this session only${asked}: the home folder and / are never remembered.`,
    "Trust only a folder whose source you know. Not trusting it starts goat without them; the folder's deny and ask",
    "rules and its AGENTS.md / CLAUDE.md still apply.",
  );
  return `${lines.join("\n")}\n`;
}

function more(count: number, style: Style): string[] {
  return count > MAX_ITEMS ? [style.dim(`    … and ${count - MAX_ITEMS} more`)] : [];
}
