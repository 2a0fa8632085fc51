/**
 * `goat acp [flags]`: Goat as an Agent Client Protocol agent on stdio (JSON-RPC, one message a line),
 * for editors (Zed, JetBrains, Neovim's CodeCompanion and avante). The flags are `goat`'s own
 * (`--model`, `--permission-mode`, `--allowedTools`, …) and apply to every session; the editor gives
 * each session's folder and MCP servers. stdout carries the protocol only: diagnostics go to stderr.
 */
import { Readable, Writable } from "node:stream";
import { ndJsonStream } from "@agentclientprotocol/sdk";
import { killTrackedGroups, killTrackedGroupsNow } from "../../tools/index.js";
import { parseCliArgs } from "../args.js";
import { goatAcpAgent } from "./agent.js";

/** What `goat acp --help` prints. */
const ACP_HELP = `Usage: goat acp [flags]

Goat as an Agent Client Protocol agent on stdio, for editors (Zed, JetBrains, Neovim): the editor starts
it and speaks JSON-RPC on its stdin and stdout. The flags are goat's own (--model, --permission-mode,
--allowedTools, --disallowedTools, --settings, --mcp-config, …; goat --help lists them) and apply to every
session; the editor gives each session's folder and MCP servers. README.md shows each editor's set-up.
`;

/** Runs the agent until the client closes the connection; returns the exit status. */
export async function runAcp(argv: string[]): Promise<number> {
  if (argv.includes("--help") || argv.includes("-h")) {
    process.stdout.write(ACP_HELP);
    return 0;
  }
  const args = parseCliArgs(argv);
  // The last resort if the program exits some other way: no tool process outlives it.
  process.once("exit", killTrackedGroupsNow);
  const stream = ndJsonStream(
    Writable.toWeb(process.stdout) as WritableStream<Uint8Array>,
    Readable.toWeb(process.stdin) as ReadableStream<Uint8Array>,
  );
  const connection = goatAcpAgent(args).connect(stream);
  const stop = (): void => connection.close();
  process.once("SIGTERM", stop);
  process.once("SIGHUP", stop);
  await connection.closed.catch((error: unknown) => {
    process.stderr.write(`goat acp: ${(error as Error).message}\n`);
  });
  await killTrackedGroups();
  return 0;
}
