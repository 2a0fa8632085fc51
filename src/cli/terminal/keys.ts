/**
 * Decodes what a terminal in raw mode sends into keys: printable text, control keys, escape
 * sequences (arrows, Home/End, xterm modifiers, the kitty keyboard protocol's `CSI … u`) and
 * bracketed pastes (`ESC [200~ … ESC [201~`), which arrive as one `paste` whatever their size or how
 * the bytes were split into chunks.
 */

/** A decoded key. `name` is a printable character for text, or one of the names below. */
export interface Key {
  /**
   * `text` (in `text`), `paste` (in `text`), `enter`, `newline` (Shift/Alt+Enter, Ctrl-J), `backspace`,
   * `delete`, `left`, `right`, `up`, `down`, `home`, `end`, `escape`, `tab`, or a letter with `ctrl`/`meta`.
   */
  name: string;
  text?: string;
  ctrl?: boolean;
  meta?: boolean;
  shift?: boolean;
}

const PASTE_START = "\x1b[200~";
const PASTE_END = "\x1b[201~";
/** How long a lone ESC waits for the rest of a sequence before it counts as the Escape key. */
const ESC_WAIT_MS = 25;

/** Feeds raw input in, calls `onKey` for each key; `dispose()` drops a pending lone-ESC timer. */
export interface KeyDecoder {
  feed(chunk: string): void;
  dispose(): void;
}

/** Creates a decoder; `onKey` is called synchronously from `feed` (or from a short timer for ESC). */
export function createKeyDecoder(onKey: (key: Key) => void): KeyDecoder {
  let pending = "";
  let paste: string | undefined;
  let escTimer: NodeJS.Timeout | undefined;

  const run = () => {
    for (;;) {
      if (paste !== undefined) {
        const end = pending.indexOf(PASTE_END);
        if (end < 0) {
          // Keep a tail that could be the start of the end marker split across chunks.
          const keep = partialSuffix(pending, PASTE_END);
          paste += pending.slice(0, pending.length - keep);
          pending = pending.slice(pending.length - keep);
          return;
        }
        paste += pending.slice(0, end);
        pending = pending.slice(end + PASTE_END.length);
        onKey({ name: "paste", text: paste.replace(/\r\n?/g, "\n") });
        paste = undefined;
        continue;
      }
      if (pending === "") return;
      if (pending.startsWith(PASTE_START)) {
        pending = pending.slice(PASTE_START.length);
        paste = "";
        continue;
      }
      const step = decodeOne(pending);
      if (step === "incomplete") {
        // Wait for the rest of an escape sequence; a lone ESC becomes the Escape key shortly.
        escTimer = setTimeout(() => {
          escTimer = undefined;
          const rest = pending;
          pending = "";
          if (rest === "\x1b") onKey({ name: "escape" });
          else if (rest.startsWith("\x1b")) {
            onKey({ name: "escape" });
            pending = rest.slice(1);
            run();
          }
        }, ESC_WAIT_MS);
        return;
      }
      pending = pending.slice(step.length);
      if (step.key) onKey(step.key);
    }
  };

  return {
    feed(chunk) {
      if (escTimer) {
        clearTimeout(escTimer);
        escTimer = undefined;
      }
      pending += chunk;
      run();
    },
    dispose() {
      if (escTimer) clearTimeout(escTimer);
      escTimer = undefined;
    },
  };
}

/** How many trailing characters of `s` are a proper prefix of `marker`. */
function partialSuffix(s: string, marker: string): number {
  for (let n = Math.min(marker.length - 1, s.length); n > 0; n--) {
    if (s.endsWith(marker.slice(0, n))) return n;
  }
  return 0;
}

type Step = { length: number; key?: Key } | "incomplete";

/** Decodes the key at the start of `s`. */
function decodeOne(s: string): Step {
  const c = s[0];
  if (c === "\x1b") return decodeEscape(s);
  const code = c.charCodeAt(0);
  if (c === "\r") return { length: 1, key: { name: "enter" } };
  if (c === "\n") return { length: 1, key: { name: "newline" } };
  if (c === "\t") return { length: 1, key: { name: "tab" } };
  if (c === "\x7f" || c === "\b") return { length: 1, key: { name: "backspace" } };
  if (code < 0x20) return { length: 1, key: { name: String.fromCharCode(code + 96), ctrl: true } };
  // Printable text: take the run up to the next control character, so typing-ahead is one insert.
  let end = 1;
  while (end < s.length && s.charCodeAt(end) >= 0x20 && s[end] !== "\x7f") end++;
  return { length: end, key: { name: "text", text: s.slice(0, end) } };
}

const CSI_FINAL: Record<string, string> = {
  A: "up",
  B: "down",
  C: "right",
  D: "left",
  H: "home",
  F: "end",
};
const TILDE: Record<string, string> = {
  "1": "home",
  "7": "home",
  "4": "end",
  "8": "end",
  "3": "delete",
  "2": "insert",
  "5": "pageup",
  "6": "pagedown",
};

function decodeEscape(s: string): Step {
  if (s.length === 1) return "incomplete";
  const second = s[1];
  if (second === "[") {
    // CSI: parameters and intermediates, then a final byte in @–~.
    let i = 2;
    while (i < s.length && s.charCodeAt(i) >= 0x20 && s.charCodeAt(i) <= 0x3f) i++;
    if (i >= s.length) return s.length > 32 ? { length: s.length } : "incomplete";
    const params = s.slice(2, i);
    const final = s[i];
    return { length: i + 1, key: csiKey(params, final) };
  }
  if (second === "O") {
    if (s.length < 3) return "incomplete";
    const name = CSI_FINAL[s[2]];
    return { length: 3, key: name ? { name } : undefined };
  }
  if (second === "\r") return { length: 2, key: { name: "newline", meta: true } };
  if (second === "\x7f" || second === "\b") return { length: 2, key: { name: "backspace", meta: true } };
  if (second === "\x1b") return { length: 1, key: { name: "escape" } };
  // Alt+key arrives as ESC then the key.
  const inner = decodeOne(s.slice(1));
  if (inner === "incomplete") return "incomplete";
  if (inner.key?.name === "text" && inner.key.text) {
    return { length: 2, key: { name: inner.key.text[0], meta: true } };
  }
  return { length: 1 + inner.length, key: inner.key ? { ...inner.key, meta: true } : undefined };
}

/** Modifier bits of xterm and kitty: the parameter is 1 + shift(1) + alt(2) + ctrl(4). */
function modifiers(param: string | undefined): Pick<Key, "shift" | "meta" | "ctrl"> {
  const m = Math.max(0, Number(param ?? "1") - 1);
  return { shift: (m & 1) !== 0, meta: (m & 2) !== 0, ctrl: (m & 4) !== 0 };
}

function csiKey(params: string, final: string): Key | undefined {
  const parts = params.split(";");
  if (final === "u") return kittyKey(parts);
  if (final === "~") {
    // xterm modifyOtherKeys: CSI 27 ; mods ; code ~
    if (parts[0] === "27" && parts.length >= 3) return kittyKey([parts[2], parts[1]]);
    const name = TILDE[parts[0]];
    return name ? { name, ...modifiers(parts[1]) } : undefined;
  }
  // Back-tab: what xterm and most terminals send for Shift+Tab.
  if (final === "Z") return { name: "tab", shift: true };
  const name = CSI_FINAL[final];
  return name ? { name, ...modifiers(parts[1]) } : undefined;
}

/** The kitty keyboard protocol's `CSI code ; mods u` (and modifyOtherKeys, mapped to it). */
function kittyKey(parts: string[]): Key | undefined {
  const code = Number(parts[0]?.split(":")[0]);
  if (!Number.isFinite(code)) return undefined;
  const mods = modifiers(parts[1]?.split(":")[0]);
  if (code === 13)
    return mods.shift || mods.meta || mods.ctrl ? { name: "newline", ...mods } : { name: "enter" };
  if (code === 27) return { name: "escape", ...mods };
  if (code === 127 || code === 8) return { name: "backspace", ...mods };
  if (code === 9) return { name: "tab", ...mods };
  if (code < 32) return { name: String.fromCharCode(code + 96), ...mods, ctrl: true };
  const ch = String.fromCodePoint(code);
  if (mods.ctrl || mods.meta) return { name: ch.toLowerCase(), ...mods };
  return { name: "text", text: mods.shift ? ch.toUpperCase() : ch };
}
