/**
 * `goat --resume 008d2fcb`: the banner and `goat sessions` show ids people copy in part, so
 * `--resume` takes any prefix that names exactly one session (in any folder, as a full id does).
 */
import { readdir } from "node:fs/promises";
import { join } from "node:path";
import { isSubagentSessionId } from "../session/index.js";

/** What a prefix names: one session, none, or several (listed, so the user can pick). */
export type PrefixMatch =
  | { kind: "one"; sessionId: string }
  | { kind: "none" }
  | { kind: "many"; sessionIds: string[] };

/** The sessions under `home`'s projects folder whose id starts with `prefix`. */
export async function matchSessionPrefix(home: string, prefix: string): Promise<PrefixMatch> {
  const projects = join(home, "projects");
  const folders = await readdir(projects).catch(() => [] as string[]);
  const ids = new Set<string>();
  for (const folder of folders) {
    const names = await readdir(join(projects, folder)).catch(() => [] as string[]);
    for (const name of names) {
      if (!name.endsWith(".jsonl") || !name.startsWith(prefix)) continue;
      const id = name.slice(0, -".jsonl".length);
      // Subagents' transcripts (`<parent>.agent-<id>`) are parts of their parent's session.
      if (!isSubagentSessionId(id)) ids.add(id);
    }
  }
  const sorted = [...ids].sort();
  if (sorted.length === 0) return { kind: "none" };
  if (sorted.length === 1) return { kind: "one", sessionId: sorted[0] };
  return { kind: "many", sessionIds: sorted };
}
