/**
 * Where a path in a Bash line really leads, found the way the kernel walks it: one component at a
 * time from the root (or the command's directory), following each symlink as it is met, and only
 * then applying the next `..`. Folding `..` first, as `path.resolve` does, gets `dirlink/../x` wrong:
 * the kernel goes to the parent of dirlink's TARGET, which may be anywhere. The walk also reports
 * where each symlink met inside the allowed directories led, so a path that passes through a link out
 * of them can be refused even when it comes back.
 */
import fs from "node:fs";
import path from "node:path";

/** A path in two forms: as spelled (made absolute, `..` folded) and where it really is on disk. */
export interface ResolvedPath {
  lexical: string;
  real: string;
}

/** Linux's own limit of symlinks followed in one lookup (ELOOP beyond it). */
const MAX_LINKS = 40;

/** A path resolved by the kernel's rules, and the places the symlinks on the way led to. */
export interface KernelPath extends ResolvedPath {
  /** For each symlink followed: where the link itself is, and the real place its target led to. */
  links: Array<{ at: string; to: string }>;
  /** True when the walk met more links than the kernel follows (a loop): nothing can be said. */
  loop?: true;
}

/** Marks the end of a link's target components in the queue, so the walk knows where it led. */
interface LinkEnd {
  at: string;
}

/**
 * Resolves `p` (already free of quotes and `~`) against `base` (a real directory). Components that
 * do not exist yet are taken as written, `..` included, as `mkdir -p a/../b` would create them.
 * @example resolveLikeKernel("dirlink/../secret", "/repo") // real: "/elsewhere/secret" when dirlink -> /elsewhere/sub
 */
export function resolveLikeKernel(p: string, base: string): KernelPath {
  const lexical = path.resolve(base, p);
  const links: KernelPath["links"] = [];
  const start = path.isAbsolute(p) ? [] : base.split("/").filter(Boolean);
  const stack = [...start];
  const queue: Array<string | LinkEnd> = p.split("/").filter(Boolean);
  let missing = false;
  let hops = 0;
  while (queue.length > 0) {
    const part = queue.shift()!;
    if (typeof part !== "string") {
      links.push({ at: part.at, to: `/${stack.join("/")}` });
      continue;
    }
    if (part === ".") continue;
    if (part === "..") {
      stack.pop();
      continue;
    }
    const here = `/${[...stack, part].join("/")}`;
    const target = missing ? undefined : linkTarget(here);
    if (target === null) missing = true;
    if (typeof target !== "string") {
      stack.push(part);
      continue;
    }
    if (++hops > MAX_LINKS) return { lexical, real: lexical, links, loop: true };
    if (path.isAbsolute(target)) stack.length = 0;
    queue.unshift(...target.split("/").filter(Boolean), { at: here });
  }
  return { lexical, real: `/${stack.join("/")}`, links };
}

/** The link's target; undefined for anything else that exists; null when nothing is there. */
function linkTarget(p: string): string | undefined | null {
  try {
    return fs.readlinkSync(p);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    // EINVAL: it exists and is not a link. ENOENT/ENOTDIR: nothing there, so nothing further is a link.
    if (code === "ENOENT" || code === "ENOTDIR") return null;
    return undefined;
  }
}
