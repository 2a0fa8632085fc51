/**
 * `goat durable …`: the operator's commands over durable sessions in PostgreSQL — list and show
 * sessions, resume or fork one at a step, count and move sessions between application versions,
 * prune old ones, read a tool output that was cut for the model. A thin layer over the client
 * (`dbos/client.ts`); flags are listed in durable-command.ts's USAGE.
 */
import type { DurableSessionSummary } from "../../dbos/index.js";
import { UsageError } from "../args.js";
import { terminalSafe } from "../terminal/safe-text.js";
import { count, type FlagSpecs, one, parse, withClient } from "./durable-shared.js";

type DbosModule = typeof import("../../dbos/index.js");
type Client = Awaited<ReturnType<DbosModule["createDurableClient"]>>;

/** Runs `goat durable <subcommand> …`; returns the exit status. */
export async function runDurableAdmin(
  dbos: DbosModule,
  argv: string[],
  databaseUrl: string,
  env: NodeJS.ProcessEnv,
): Promise<number> {
  const [sub, ...rest] = argv;
  const run = (flags: FlagSpecs, body: (client: Client, v: ReturnType<typeof parse>) => Promise<number>) =>
    withClient(dbos, databaseUrl, env, (client) => body(client, parse(rest, flags)));
  switch (sub) {
    case "list":
      return run(
        {
          status: { type: "string" },
          version: { type: "string" },
          limit: { type: "string" },
          json: { type: "boolean" },
        },
        async (client, { values }) => {
          const sessions = await client.list({
            ...(values.status ? { status: values.status.toUpperCase() } : {}),
            ...(values.version ? { applicationVersion: values.version } : {}),
            limit: count(values.limit, "--limit") ?? 100,
          });
          if (values.json) process.stdout.write(`${JSON.stringify(sessions)}\n`);
          else for (const s of sessions) process.stdout.write(`${line(s)}\n`);
          return 0;
        },
      );
    case "show":
      return run({ json: { type: "boolean" } }, async (client, { values, positionals }) => {
        const shown = await client.show(one(positionals, "a workflow id"));
        if (!shown) throw new UsageError(`No durable session ${positionals[0]}.`);
        process.stdout.write(values.json ? `${JSON.stringify(shown)}\n` : detail(shown));
        return 0;
      });
    case "resume":
      return run({ "app-version": { type: "string" } }, async (client, { values, positionals }) => {
        const handle = await client.resume(one(positionals, "a workflow id"), {
          ...(values["app-version"] ? { applicationVersion: values["app-version"] } : {}),
        });
        process.stdout.write(`${handle.workflowId} (session ${handle.sessionId})\n`);
        return 0;
      });
    case "fork":
      return run(
        { step: { type: "string" }, "app-version": { type: "string" } },
        async (client, { values, positionals }) => {
          const step = Number(values.step);
          if (values.step === undefined || !Number.isInteger(step) || step < 0)
            throw new UsageError("goat durable fork needs --step N (a step number from goat durable show).");
          const handle = await client.fork(one(positionals, "a workflow id"), step, {
            ...(values["app-version"] ? { applicationVersion: values["app-version"] } : {}),
          });
          process.stdout.write(`${handle.workflowId} (session ${handle.sessionId})\n`);
          return 0;
        },
      );
    case "versions":
      return run({}, async (client) => {
        for (const v of await client.versions())
          process.stdout.write(`${terminalSafe(v.applicationVersion)}\t${v.status}\t${v.count}\n`);
        return 0;
      });
    case "move":
      return run(
        { from: { type: "string" }, to: { type: "string" } },
        async (client, { values, positionals }) => {
          if (!values.from || !values.to)
            throw new UsageError("goat durable move needs --from VERSION --to VERSION.");
          const moved = await client.moveVersion(
            values.from,
            values.to,
            positionals.length > 0 ? positionals : undefined,
          );
          process.stdout.write(`moved ${moved.length} session(s) to ${terminalSafe(values.to)}\n`);
          for (const id of moved) process.stdout.write(`${id}\n`);
          return 0;
        },
      );
    case "prune":
      return run({ "older-than": { type: "string" } }, async (client, { values }) => {
        const age = values["older-than"] === undefined ? undefined : dbos.parseAge(values["older-than"]);
        if (age === undefined)
          throw new UsageError("goat durable prune needs --older-than AGE (90s, 30m, 12h, 7d).");
        const report = await client.prune(age);
        process.stdout.write(`pruned ${report.workflows} session(s), ${report.transcripts} transcript(s)\n`);
        return 0;
      });
    case "output":
      return run({}, async (client, { positionals }) => {
        const text = await client.storedOutput(one(positionals, "an output id"));
        if (text === undefined) throw new UsageError(`No stored tool output ${positionals[0]}.`);
        process.stdout.write(text);
        return 0;
      });
    default:
      throw new UsageError(
        `Unknown goat durable command ${JSON.stringify(sub ?? "")}: list, show, resume, fork, versions, move, prune, output.`,
      );
  }
}

/** One line per session: id, status, age, version, worker, cost, error. */
function line(s: DurableSessionSummary): string {
  const cost = s.costUsd !== undefined ? `$${s.costUsd.toFixed(4)}` : "-";
  const fields = [
    s.workflowId,
    s.status,
    age(s.createdAt),
    s.applicationVersion ?? "-",
    s.executorId ?? "-",
    cost,
  ];
  if (s.error) fields.push(s.error.split("\n")[0].slice(0, 120));
  return terminalSafe(fields.join("\t"));
}

function detail(s: DurableSessionSummary): string {
  const rows: Array<[string, string | number | undefined]> = [
    ["workflow", s.workflowId],
    ["session", s.sessionId],
    ["status", s.status],
    ["prompt", s.prompt],
    ["version", s.applicationVersion],
    ["worker", s.executorId],
    ["age", age(s.createdAt)],
    ["priority", s.priority],
    ["deadline", s.deadlineEpochMs ? new Date(s.deadlineEpochMs).toISOString() : undefined],
    ["steps", s.steps],
    ["last step", s.lastStep ? `${s.lastStep.number} ${s.lastStep.name}` : undefined],
    ["cost", s.costUsd !== undefined ? `$${s.costUsd.toFixed(4)}` : undefined],
    ["forked from", s.forkedFrom],
    ["error", s.error],
  ];
  return rows
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => `${k}: ${terminalSafe(String(v))}\n`)
    .join("");
}

/** How long ago: 45s, 12m, 5h, 3d. */
export function age(createdAt: number): string {
  const seconds = Math.max(0, Math.round((Date.now() - createdAt) / 1000));
  if (seconds < 120) return `${seconds}s`;
  if (seconds < 7200) return `${Math.round(seconds / 60)}m`;
  if (seconds < 172_800) return `${Math.round(seconds / 3600)}h`;
  return `${Math.round(seconds / 86_400)}d`;
}
