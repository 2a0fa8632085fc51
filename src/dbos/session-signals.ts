/**
 * Signals of a session's life from PostgreSQL itself: when a session is queued, a worker hears it at
 * once instead of at its next queue poll; when a session ends, a client waiting for it hears it at
 * once instead of at its next status poll. Measured on one idle worker, the poll was most of what
 * durability added to a short session.
 *
 * The signals are NOTIFYs sent by triggers on DBOS's `workflow_status` table, so every way a session
 * gets queued (a submit from any client, a resume, a fork, a dead worker's session handed back, a
 * delayed one come due) and every way it ends (success, error, cancel from anywhere) is heard, and
 * only once the change is committed. A signal is only a hint: the polls stay as a safety net (a lost
 * connection, a database without the triggers), and the trigger swallows its own errors so it can
 * never fail DBOS's write.
 */
import pg from "pg";
import { quoteIdent, underAdvisoryLock } from "./schema.js";

/** The NOTIFY channel of a queued session; the payload is its queue's name. */
export const QUEUED_CHANNEL = "goat_session_queued";
/** The NOTIFY channel of an ended session; the payload is its workflow id. */
export const ENDED_CHANNEL = "goat_session_ended";

const ENDED_STATUSES = "'SUCCESS', 'ERROR', 'CANCELLED', 'MAX_RECOVERY_ATTEMPTS_EXCEEDED'";

/**
 * Installs the triggers (after DBOS's own migration: they sit on its table). Safe from many workers
 * at once; the triggers are created only when missing, so a worker's start takes no lock on DBOS's
 * table while others run sessions.
 */
export async function installSessionSignals(pool: pg.Pool, schemaName: string): Promise<void> {
  const schema = quoteIdent(schemaName);
  await underAdvisoryLock(pool, "goat-session-signals", async (client) => {
    await client.query(`
      CREATE OR REPLACE FUNCTION ${schema}.session_signal() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        BEGIN
          IF NEW.status = 'ENQUEUED' THEN
            PERFORM pg_notify('${QUEUED_CHANNEL}', coalesce(NEW.queue_name, ''));
          ELSE
            PERFORM pg_notify('${ENDED_CHANNEL}', NEW.workflow_uuid);
          END IF;
        EXCEPTION WHEN OTHERS THEN
          NULL; -- a hint only: never fail the write that changed the session
        END;
        RETURN NULL;
      END $$`);
    const { rows } = await client.query<{ tgname: string }>(
      `SELECT tgname FROM pg_trigger WHERE tgrelid = 'dbos.workflow_status'::regclass
         AND tgname IN ('goat_session_queued', 'goat_session_changed')`,
    );
    const present = new Set(rows.map((r) => r.tgname));
    if (!present.has("goat_session_queued"))
      await client.query(`CREATE TRIGGER goat_session_queued AFTER INSERT ON dbos.workflow_status
        FOR EACH ROW WHEN (NEW.status = 'ENQUEUED') EXECUTE FUNCTION ${schema}.session_signal()`);
    if (!present.has("goat_session_changed"))
      await client.query(`CREATE TRIGGER goat_session_changed AFTER UPDATE OF status ON dbos.workflow_status
        FOR EACH ROW WHEN (OLD.status IS DISTINCT FROM NEW.status AND NEW.status IN ('ENQUEUED', ${ENDED_STATUSES}))
        EXECUTE FUNCTION ${schema}.session_signal()`);
  });
}

/** A connection that LISTENs on some channels and reconnects when it is lost. */
export interface SignalListener {
  /** Resolves once the channels are listened to (or the first connection failed: then polls must do). */
  readonly ready: Promise<void>;
  close(): Promise<void>;
}

/**
 * Listens on `channels`, calling `onSignal(channel, payload)` for each notification, and
 * `onReconnect()` after a lost connection is back (what was signalled meanwhile was not heard).
 */
export function listenForSignals(
  connectionString: string,
  channels: readonly string[],
  onSignal: (channel: string, payload: string) => void,
  options: { onReconnect?: () => void; connectTimeoutMs?: number; retryMs?: number } = {},
): SignalListener {
  let closed = false;
  let client: pg.Client | undefined;
  let retry: NodeJS.Timeout | undefined;
  /** Connects and listens; false when that failed (a retry is then scheduled). */
  const connect = async (): Promise<boolean> => {
    const next = new pg.Client({
      connectionString,
      connectionTimeoutMillis: options.connectTimeoutMs ?? 10_000,
    });
    client = next;
    const lost = () => {
      if (client !== next || closed) return;
      client = undefined;
      void next.end().catch(() => {});
      retry = setTimeout(() => {
        void connect().then((back) => {
          if (back && !closed) options.onReconnect?.();
        });
      }, options.retryMs ?? 1000);
      retry.unref();
    };
    next.on("error", lost);
    next.on("end", lost);
    next.on("notification", (n) => onSignal(n.channel, n.payload ?? ""));
    try {
      await next.connect();
      for (const channel of channels) await next.query(`LISTEN ${channel}`);
      return true;
    } catch {
      lost();
      return false;
    }
  };
  const ready = connect().then(() => {});
  return {
    ready,
    async close() {
      closed = true;
      clearTimeout(retry);
      await client?.end().catch(() => {});
    },
  };
}

/**
 * Waiting for sessions to end, many at once over one listening connection (a client's `result`
 * calls share it). `watch` before reading the status, then `wait` between reads: an end committed
 * after the read wakes the wait, and a read made before the connection listened is followed by
 * another once it does.
 */
export interface SessionEndWatcher {
  /** `wait` returns at the session's next signal (or one since the last wait) or after `timeoutMs`. */
  watch(workflowId: string): { wait(timeoutMs: number): Promise<void>; cancel(): void };
  close(): Promise<void>;
}

/** Starts the watcher's connection on first use. */
export function createSessionEndWatcher(
  connectionString: string,
  connectTimeoutMs: number,
): SessionEndWatcher {
  const waiting = new Map<string, Set<() => void>>();
  let listener: SignalListener | undefined;
  let listening = false;
  const wakeAll = () => {
    for (const set of waiting.values()) for (const wake of set) wake();
  };
  const start = () => {
    listener ??= listenForSignals(
      connectionString,
      [ENDED_CHANNEL],
      (_channel, workflowId) => {
        for (const wake of waiting.get(workflowId) ?? []) wake();
      },
      { onReconnect: wakeAll, connectTimeoutMs },
    );
    // Also after a failed first connection: the polls then do the work, as before signals.
    void listener.ready.then(() => {
      listening = true;
    });
    return listener.ready;
  };
  const sleep = (ms: number, onWake: (wake: () => void) => void) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      onWake(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  return {
    watch(workflowId) {
      let signalled = false;
      let wakeWaiter: (() => void) | undefined;
      const wake = () => {
        signalled = true;
        wakeWaiter?.();
      };
      const set = waiting.get(workflowId) ?? new Set();
      set.add(wake);
      waiting.set(workflowId, set);
      const ready = start();
      return {
        async wait(timeoutMs) {
          // Not listening at the last read: wait for the connection (within the poll), then read again.
          if (!listening)
            await sleep(timeoutMs, (w) => {
              void ready.then(w);
            });
          else if (!signalled)
            await sleep(timeoutMs, (w) => {
              wakeWaiter = w;
            });
          wakeWaiter = undefined;
          signalled = false;
        },
        cancel() {
          set.delete(wake);
          if (set.size === 0 && waiting.get(workflowId) === set) waiting.delete(workflowId);
        },
      };
    },
    async close() {
      await listener?.close();
    },
  };
}
