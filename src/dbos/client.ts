/**
 * The client side of durable sessions, for any process that reaches the database (no worker, no DBOS
 * runtime of its own): submit a session to the queue, follow its SDK messages live, send it steering
 * and follow-up messages, interrupt or cancel it, and read its result.
 */

import { randomUUID } from "node:crypto";
import { DBOSClient } from "@dbos-inc/dbos-sdk";
import { InvalidOptionError } from "../errors.js";
import type { SDKMessage, SDKResultMessage } from "../sdk/sdk-messages.js";
import { followMessages } from "./message-log.js";
import {
  type DurableSessionOutcome,
  type DurableSessionRequest,
  FOLLOW_UP_TOPIC,
  STEER_TOPIC,
} from "./session-workflow.js";
import { DEFAULT_APP_NAME, DEFAULT_QUEUE_NAME, SESSION_WORKFLOW_NAME } from "./worker.js";

/** Options of `createDurableClient`. */
export interface DurableClientOptions {
  databaseUrl: string;
  /** As the workers' `appName`. Default `goat`. */
  appName?: string;
  /** As the workers' `queueName`. Default `goat-sessions`. */
  queueName?: string;
  /** As the workers' `schema`. Default `goat`. */
  schema?: string;
}

/** A submitted session: its workflow id (what every other call takes) and its session id. */
export interface DurableSessionHandle {
  workflowId: string;
  sessionId: string;
}

/** Where a durable session stands (DBOS's workflow status). */
export type DurableSessionStatus =
  | "ENQUEUED"
  | "PENDING"
  | "SUCCESS"
  | "ERROR"
  | "CANCELLED"
  | "MAX_RECOVERY_ATTEMPTS_EXCEEDED"
  | "DELAYED"
  | "unknown";

/** The client. */
export interface DurableClient {
  /** Queues a session; returns at once. `workflowId` makes submitting idempotent (default: a new uuid). */
  submit(request: DurableSessionRequest, options?: { workflowId?: string }): Promise<DurableSessionHandle>;
  /** The session's SDK messages from the first (or after `from`), live, until it has ended. */
  follow(workflowId: string, options?: { from?: number; signal?: AbortSignal }): AsyncGenerator<SDKMessage>;
  /** Delivers a user message at the next turn boundary of the running session. */
  steer(workflowId: string, text: string): Promise<void>;
  /** Queues a user message that starts another round when the current one ends. */
  sendFollowUp(workflowId: string, text: string): Promise<void>;
  /**
   * Stops the session: DBOS cancels the workflow and its worker interrupts the running model call and
   * tools (each tool call still gets its result). A cancelled session stays cancelled; continue the
   * conversation by submitting with `resume: sessionId`.
   */
  cancel(workflowId: string): Promise<void>;
  status(workflowId: string): Promise<DurableSessionStatus>;
  /**
   * Waits for the session to end and returns its last result message (undefined when it had none).
   * Throws when the session was cancelled or failed. Polls every `pollMs` (default 100).
   */
  result(workflowId: string, options?: { pollMs?: number }): Promise<SDKResultMessage | undefined>;
  close(): Promise<void>;
}

const FINISHED = new Set(["SUCCESS", "ERROR", "CANCELLED", "MAX_RECOVERY_ATTEMPTS_EXCEEDED"]);

/** Connects a client (DBOS's client library plus one connection per follower). */
export async function createDurableClient(options: DurableClientOptions): Promise<DurableClient> {
  const appName = options.appName ?? DEFAULT_APP_NAME;
  const queueName = options.queueName ?? DEFAULT_QUEUE_NAME;
  const schema = options.schema ?? "goat";
  const dbos = await DBOSClient.create({ systemDatabaseUrl: options.databaseUrl, applicationName: appName });
  const status = async (workflowId: string): Promise<DurableSessionStatus> =>
    ((await dbos.retrieveWorkflow(workflowId).getStatus())?.status as DurableSessionStatus | undefined) ??
    "unknown";

  return {
    async submit(request, submitOptions) {
      if (typeof request.prompt !== "string" || request.prompt === "") {
        throw new InvalidOptionError("prompt", "A durable session needs a prompt (a non-empty string).");
      }
      const workflowId = submitOptions?.workflowId ?? randomUUID();
      await dbos.enqueue(
        { queueName, workflowName: SESSION_WORKFLOW_NAME, workflowID: workflowId, applicationName: appName },
        request,
      );
      return {
        workflowId,
        sessionId:
          request.resume && !request.forkSession ? request.resume : (request.sessionId ?? workflowId),
      };
    },
    follow(workflowId, followOptions) {
      return followMessages(
        options.databaseUrl,
        schema,
        workflowId,
        async () => FINISHED.has(await status(workflowId)),
        {
          from: followOptions?.from,
          signal: followOptions?.signal,
        },
      );
    },
    steer: (workflowId, text) => dbos.send(workflowId, text, STEER_TOPIC),
    sendFollowUp: (workflowId, text) => dbos.send(workflowId, text, FOLLOW_UP_TOPIC),
    cancel: (workflowId) => dbos.cancelWorkflow(workflowId),
    status,
    async result(workflowId, resultOptions) {
      // DBOS polls the workflow's status once a second unless told otherwise.
      const outcome = (await dbos
        .retrieveWorkflow<DurableSessionOutcome>(workflowId)
        .getResult({ pollingIntervalMs: resultOptions?.pollMs ?? 100 })) as DurableSessionOutcome | null;
      return outcome?.result;
    },
    close: () => dbos.destroy(),
  };
}
