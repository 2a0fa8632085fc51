/**
 * `goat serve`: starts the local session viewer and prints its address, token included, on a line
 * of its own (so a script can read it). Runs until interrupted.
 *
 *   goat serve [--port N] [--host ADDRESS]
 */
import { parseArgs } from "node:util";
import { createJsonlSessionStore, goatHome } from "../../session/index.js";
import { UsageError } from "../args.js";
import { startViewerServer } from "./server.js";

/** Runs the viewer until SIGINT or SIGTERM; returns the exit status. */
export async function runServe(argv: string[], env: NodeJS.ProcessEnv): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: { port: { type: "string" }, host: { type: "string" }, help: { type: "boolean", short: "h" } },
    strict: true,
  });
  if (values.help) {
    process.stdout.write(
      "Usage: goat serve [--port N] [--host ADDRESS]\n\nA local web viewer of Goat's sessions ($GOAT_HOME or ~/.goat). It listens on 127.0.0.1\nunless --host names another address, and needs the token printed with its URL.\n",
    );
    return 0;
  }
  const port = values.port === undefined ? 0 : Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new UsageError(`--port expects a port number (0-65535), got ${JSON.stringify(values.port)}.`);
  const store = createJsonlSessionStore({ home: goatHome(env), onWarning: () => undefined });
  const server = await startViewerServer({ store, port, host: values.host });
  process.stdout.write(`Goat session viewer (Ctrl-C to stop):\n${server.url}\n`);
  await new Promise<void>((resolve) => {
    const stop = () => resolve();
    process.once("SIGINT", stop);
    process.once("SIGTERM", stop);
  });
  await server.close();
  await store.close();
  return 0;
}
