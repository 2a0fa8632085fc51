/**
 * `goat serve`: starts the local session viewer and prints its address, token included, on a line
 * of its own (so a script can read it). Runs until interrupted. With `--database URL` (or
 * GOAT_DATABASE_URL) it shows the durable sessions in that PostgreSQL database instead of the local
 * session files, and checks first that the database answers (within GOAT_DATABASE_TIMEOUT_MS).
 *
 *   goat serve [--port N] [--host ADDRESS] [--database URL]
 */
import { parseArgs } from "node:util";
import { createJsonlSessionStore, goatHome } from "../../session/index.js";
import { UsageError } from "../args.js";
import { databaseTimeout, loadDbos, viewerDatabaseUrl } from "../durable/durable-shared.js";
import { startViewerServer } from "./server.js";
import { localSource, type ViewerSource } from "./viewer-source.js";

/** Runs the viewer until SIGINT or SIGTERM; returns the exit status. */
export async function runServe(argv: string[], env: NodeJS.ProcessEnv): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      port: { type: "string" },
      host: { type: "string" },
      database: { type: "string" },
      help: { type: "boolean", short: "h" },
    },
    strict: true,
  });
  if (values.help) {
    process.stdout.write(
      "Usage: goat serve [--port N] [--host ADDRESS] [--database URL]\n\nA local web viewer of Goat's sessions ($GOAT_HOME or ~/.goat). It listens on 127.0.0.1\nunless --host names another address, and needs the token printed with its URL.\nWith --database (or GOAT_DATABASE_URL) it shows the durable sessions in that PostgreSQL\ndatabase, running ones live; it waits GOAT_DATABASE_TIMEOUT_MS (10000) for each query.\n",
    );
    return 0;
  }
  const port = values.port === undefined ? 0 : Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new UsageError(`--port expects a port number (0-65535), got ${JSON.stringify(values.port)}.`);
  const databaseUrl = viewerDatabaseUrl(values.database, env);
  const source =
    databaseUrl === undefined
      ? localSource(createJsonlSessionStore({ home: goatHome(env), onWarning: () => undefined }))
      : await durableViewerSource(databaseUrl, env);
  const server = await startViewerServer({ source, port, host: values.host }).catch(async (error) => {
    await source.close();
    throw error;
  });
  const what = databaseUrl === undefined ? "session viewer" : "durable session viewer";
  process.stdout.write(`Goat ${what} (Ctrl-C to stop):\n${server.url}\n`);
  await new Promise<void>((resolve) => {
    const stop = () => resolve();
    process.once("SIGINT", stop);
    process.once("SIGTERM", stop);
  });
  await server.close();
  await source.close();
  return 0;
}

/** The durable sessions' source, once the database has answered a first list (or the error naming it). */
async function durableViewerSource(databaseUrl: string, env: NodeJS.ProcessEnv): Promise<ViewerSource> {
  const dbos = await loadDbos();
  const reader = await dbos.createDurableSessionReader({ databaseUrl, timeoutMs: databaseTimeout(env) });
  try {
    await reader.list({ limit: 1 });
  } catch (error) {
    await reader.close();
    throw error;
  }
  return (await import("./durable-source.js")).durableSource(reader);
}
