#!/usr/bin/env node
/**
 * The `goat` program. Start-up speed matters, so this file imports only the argument parser: the
 * agent, the providers and the interactive UI are loaded when (and only if) the mode needs them.
 */
import module from "node:module";
import { CLAUDE_CODE_PROTOCOL_VERSION, GOAT_VERSION } from "../version.js";
import { type CliArgs, parseCliArgs, UsageError } from "./args.js";
import { terminalSafe } from "./terminal/safe-text.js";
import { keepWasmOnBaselineTier } from "./wasm-tier.js";

// Node 22.1+ keeps V8's compiled code of the files loaded from here on (the mode's chunks) in a cache
// directory, so the next start skips compiling them: `goat -p` 121-128 -> 106-107 ms of CPU on Node
// 22.23 (medians of 21, two rounds). The directory is Node's default, os.tmpdir()/node-compile-cache,
// shared with other tools that do the same (tsc); NODE_COMPILE_CACHE moves it and
// NODE_DISABLE_COMPILE_CACHE=1 turns it off. Node 20 has no such function: nothing happens there.
(module as typeof module & { enableCompileCache?: () => unknown }).enableCompileCache?.();

/** Durable sessions on DBOS and PostgreSQL (`durable/durable-command.ts`). */
const DURABLE_COMMANDS = new Set(["worker", "submit", "follow", "send", "cancel", "durable"]);
/** Every subcommand, for `goat help <command>`. */
const SUBCOMMANDS = new Set([...DURABLE_COMMANDS, "serve", "acp", "sessions"]);

async function main(argv: string[]): Promise<number> {
  // `goat help` and `goat help serve`, as commander-based CLIs (Claude Code's too) answer them; the
  // word alone was sent to the model as a prompt. `goat -p help` still asks the model.
  if (argv[0] === "help" && argv.length <= 2) {
    if (argv.length === 2 && SUBCOMMANDS.has(argv[1])) return main([argv[1], "--help"]);
    if (argv.length === 1) {
      process.stdout.write((await import("./help.js")).HELP_TEXT);
      return 0;
    }
  }
  if (argv[0] === "serve") {
    try {
      return await (await import("./serve/command.js")).runServe(argv.slice(1), process.env);
    } catch (error) {
      return fail(error);
    }
  }
  if (DURABLE_COMMANDS.has(argv[0])) {
    try {
      return await (await import("./durable/durable-command.js")).runDurableCommand(argv, process.env);
    } catch (error) {
      return fail(error);
    }
  }
  if (argv[0] === "acp") {
    try {
      return await (await import("./acp/command.js")).runAcp(argv.slice(1));
    } catch (error) {
      return fail(error);
    }
  }
  if (argv[0] === "sessions")
    return (await import("./sessions/sessions-command.js")).runSessions(argv.slice(1), process.env);
  // `goat --resume` with no id: the interactive mode opens a picker of this directory's sessions.
  const bareResume = takeBareResume(argv);
  const pickSession = bareResume !== undefined;
  let args: CliArgs;
  try {
    args = parseCliArgs(argv);
  } catch (error) {
    return fail(error);
  }
  if (args.version) {
    // The Claude Code version whose protocol Goat speaks comes first: the Agent SDKs check it
    // (the Python SDK reads the leading x.y.z and warns below 2.0.0). Goat's own version follows.
    // Each number says what it is: the leading one reads as Goat's own otherwise.
    process.stdout.write(
      `${CLAUDE_CODE_PROTOCOL_VERSION} (Claude Code protocol version; Goat version ${GOAT_VERSION})\n`,
    );
    return 0;
  }
  if (args.help) {
    process.stdout.write((await import("./help.js")).HELP_TEXT);
    return 0;
  }
  const interactive = !args.print && process.stdin.isTTY === true && args.inputFormat === "text";
  const { assertSessionToResume, buildConfig, missingKeyMessage, settleCliTrust } = await import(
    "./config.js"
  );
  let config: Awaited<ReturnType<typeof buildConfig>>;
  try {
    // Before anything of the folder is applied (its settings' env reaches process.env here).
    const trust = await settleCliTrust(args, interactive);
    if (trust === "quit") return 130;
    config = buildConfig(args, process.env, trust);
    await assertSessionToResume(args, config, interactive);
  } catch (error) {
    return fail(error);
  }
  // What Goat cannot use of a Claude Code settings file (the rest of it applies), one line each.
  if (config.settings.warnings.length > 0) {
    // They quote the files (JSON.parse's message shows some of the text): control characters made visible.
    for (const warning of config.settings.warnings) {
      process.stderr.write(`goat: ${terminalSafe(warning.replace(/\n/g, "\\n"))}\n`);
    }
  }
  if (args.ignoredFlags.length > 0) {
    // One line, so a host's stderr is not flooded: the flags were accepted and have no effect.
    process.stderr.write(`goat: ignored (no counterpart in Goat): ${args.ignoredFlags.join(", ")}\n`);
  }
  const keyMessage = missingKeyMessage(config.model, process.env);
  if (keyMessage) {
    process.stderr.write(`goat: ${keyMessage}\n`);
    return 1;
  }
  // OTEL_TRACES_EXPORTER=otlp (or CLAUDE_CODE_ENABLE_TELEMETRY=1 with an endpoint): spans go out.
  if (process.env.OTEL_TRACES_EXPORTER || process.env.CLAUDE_CODE_ENABLE_TELEMETRY) {
    const { startCliTelemetry } = await import("./otlp/index.js");
    const telemetry = await startCliTelemetry(process.env, (m) =>
      process.stderr.write(`goat: ${terminalSafe(m)}\n`),
    );
    if (telemetry) {
      config = { ...config, options: { ...config.options, telemetry: telemetry.option } };
      flushTelemetry = telemetry.flush;
    }
  }
  if (interactive) {
    const { runInteractive } = await import("./interactive/interactive.js");
    keepWasmOnBaselineTier();
    return runInteractive(args, config, { pickSession });
  }
  if (bareResume !== undefined) {
    // Only the interactive mode has a picker; elsewhere a bare --resume is a missing value.
    const why =
      bareResume.next === undefined
        ? "--resume needs a session id here"
        : `--resume needs a value, but the next argument "${bareResume.next}" is a flag; put the value right after --resume`;
    return fail(new UsageError(`${why} (goat sessions lists them)`));
  }
  const { runPrint } = await import("./print.js");
  keepWasmOnBaselineTier();
  return runPrint(args, config, {
    stdin: process.stdin,
    stdout: process.stdout,
    stderr: process.stderr,
    onSignal(handler) {
      const signals = ["SIGINT", "SIGTERM", "SIGHUP"] as const;
      const listeners = signals.map((signal) => [signal, () => handler(signal)] as const);
      for (const [signal, listener] of listeners) process.on(signal, listener);
      return () => {
        for (const [signal, listener] of listeners) process.off(signal, listener);
      };
    },
  });
}

/** Removes a `--resume`/`-r` given without an id (last, or before another flag); true when there was one. */
function takeBareResume(argv: string[]): { next?: string } | undefined {
  const i = argv.findIndex(
    (a, n) => (a === "--resume" || a === "-r") && (n === argv.length - 1 || argv[n + 1].startsWith("-")),
  );
  if (i < 0) return undefined;
  const next = argv[i + 1];
  argv.splice(i, 1);
  return { next };
}

/** Prints an error as one line (a stack trace only with --debug) and returns exit status 1. */
function fail(error: unknown): number {
  const message = error instanceof Error ? error.message : String(error);
  // The message may quote a file, a server or a provider: escaped as everything else shown.
  process.stderr.write(`goat: ${terminalSafe(message)}\n`);
  if (!(error instanceof UsageError) && process.argv.includes("--debug") && error instanceof Error) {
    process.stderr.write(`${error.stack}\n`);
  }
  return 1;
}

/** Sends the spans still held before the program exits (set when traces are exported). */
let flushTelemetry: () => Promise<void> = async () => {};

main(process.argv.slice(2)).then(
  (code) => flushTelemetry().then(() => exitAfterFlush(code)),
  (error) => flushTelemetry().then(() => exitAfterFlush(fail(error))),
);

/**
 * Exits once stdout and stderr have flushed, so piped output is never cut short. A reader that went
 * away while the last output was still queued (`goat -p … | head -1`) surfaces here as EPIPE, after
 * the run already returned: exit 141 quietly, as a Unix tool killed by SIGPIPE does.
 */
function exitAfterFlush(code: number): void {
  process.stdout.on("error", () => {}); // reported through the callback below, never as a crash
  process.stdout.write("", (error) => {
    const broken = (error as NodeJS.ErrnoException | null | undefined)?.code === "EPIPE";
    process.stderr.write("", () => process.exit(broken && code === 0 ? 141 : code));
  });
}
