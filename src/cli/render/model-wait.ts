/**
 * Notices when the model has gone quiet: from the moment a model call is due (a turn starts, the
 * tools' results are sent back, a retry's wait ends) until its answer is complete, any silence of
 * more than a few seconds is reported once a second, so the interactive mode can show "waiting for
 * the model (12 s)" instead of a spinner that looks the same whether bytes flow or not. The provider's
 * own stall limits still decide when the call is given up (`providerTimeouts`).
 */

/** How long a silence goes unremarked: a model often thinks this long before its first token. */
const SILENCE_NOTICE_MS = 5_000;

/** The clock of one session's model calls. */
export interface ModelWait {
  /** A model call is due or under way: the silence is counted from now, or from `afterMs` from now. */
  waiting(afterMs?: number): void;
  /** The model sent something: the silence starts over. True when a silence was being shown. */
  heard(): boolean;
  /** The call is complete, or tools run: nothing is awaited from the model. */
  done(): void;
}

/** Creates the clock; `onSilence` is called each second of a silence past `noticeMs`. */
export function createModelWait(
  onSilence: (seconds: number) => void,
  noticeMs = SILENCE_NOTICE_MS,
): ModelWait {
  let since = 0;
  let shown = false;
  let timer: NodeJS.Timeout | undefined;
  const check = () => {
    const quiet = Date.now() - since;
    if (quiet < noticeMs) return;
    shown = true;
    onSilence(Math.max(1, Math.round(quiet / 1000)));
  };
  return {
    waiting(afterMs = 0) {
      since = Date.now() + afterMs;
      if (timer) return;
      timer = setInterval(check, 1000);
      // Never keeps the program alive on its own.
      timer.unref();
    },
    heard() {
      if (timer) since = Date.now();
      const was = shown;
      shown = false;
      return was;
    },
    done() {
      if (timer) clearInterval(timer);
      timer = undefined;
      shown = false;
    },
  };
}
