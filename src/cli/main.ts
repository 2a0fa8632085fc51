#!/usr/bin/env node
/**
 * The `goat` program. Start-up speed matters, so this file imports only the argument parser: the
 * agent, the providers and the interactive UI are loaded when (and only if) the mode needs them.
 */
import { GOAT_VERSION } from "../agent/version.js";
import { type CliArgs, parseCliArgs, UsageError } from "./args.js";

async function main(argv: string[]): Promise<number> {
  if (argv[0] === "serve") {
    try {
      return await (await import("./serve/command.js")).runServe(argv.slice(1), process.env);
    } catch (error) {
      return fail(error);
    }
  }
  let args: CliArgs;
  try {
    args = parseCliArgs(argv);
  } catch (error) {
    return fail(error);
  }
  if (args.version) {
    process.stdout.write(`${GOAT_VERSION} (goat)\n`);
    return 0;
  }
  if (args.help) {
    process.stdout.write((await import("./help.js")).HELP_TEXT);
    return 0;
  }
  const { assertSomethingToContinue, buildConfig, missingKeyMessage } = await import("./config.js");
  let config: Awaited<ReturnType<typeof buildConfig>>;
  try {
    config = buildConfig(args, process.env);
    await assertSomethingToContinue(args, config);
  } catch (error) {
    return fail(error);
  }
  const keyMessage = missingKeyMessage(config.model, process.env);
  if (keyMessage) {
    process.stderr.write(`goat: ${keyMessage}\n`);
    return 1;
  }
  const interactive = !args.print && process.stdin.isTTY === true && args.inputFormat === "text";
  if (interactive) {
    const { runInteractive } = await import("./interactive.js");
    return runInteractive(args, config);
  }
  const { runPrint } = await import("./print.js");
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

/** Prints an error as one line (a stack trace only with --debug) and returns exit status 1. */
function fail(error: unknown): number {
  const message = error instanceof Error ? error.message : String(error);
  process.stderr.write(`goat: ${message}\n`);
  if (!(error instanceof UsageError) && process.argv.includes("--debug") && error instanceof Error) {
    process.stderr.write(`${error.stack}\n`);
  }
  return 1;
}

main(process.argv.slice(2)).then(
  (code) => exitAfterFlush(code),
  (error) => exitAfterFlush(fail(error)),
);

/** Exits once stdout and stderr have flushed, so piped output is never cut short. */
function exitAfterFlush(code: number): void {
  process.stdout.write("", () => process.stderr.write("", () => process.exit(code)));
}
