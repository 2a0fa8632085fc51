/**
 * How long a tool process may take to die once a signal (SIGTERM, SIGHUP, SIGINT's exit) has asked
 * `goat` to stop, before it gets SIGKILL: 300 ms. The tools' own grace is 1.5 s, which suits a call
 * that is interrupted while the session goes on; when the whole program is asked to stop, it must
 * answer within a second even if a command ignores SIGTERM (`trap '' TERM`).
 */
export const SIGNAL_KILL_GRACE_MS = 300;
