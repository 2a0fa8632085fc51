/**
 * A seccomp filter, as the classic BPF program bubblewrap loads with `--seccomp FD`, that refuses to
 * create Unix-domain sockets (`socket(AF_UNIX, …)` fails with EPERM). Without it, a sandboxed command
 * could connect to any socket file it can see, even on a read-only filesystem: the Docker daemon's
 * (root on the host), an SSH agent, the session bus. A network namespace hides only abstract sockets.
 *
 * `socket()` is not the only way to make a socket: io_uring's `IORING_OP_SOCKET` (Linux 5.19) creates
 * one inside the kernel, where no syscall filter sees its arguments, so the io_uring calls are refused
 * outright (few programs need them, and those fall back to ordinary calls on EPERM, as they must on
 * kernels where io_uring is disabled). The 32-bit `socketcall` multiplexer is refused for the same
 * reason: its arguments sit in user memory.
 *
 * Built here, in a few lines per architecture, rather than shipped as a compiled helper: there is
 * nothing to download or build, and the program is small enough to check by reading. `socketpair`
 * stays allowed (it makes a connected pair, reaching nothing outside).
 */

/** One architecture's numbers: its audit id and `socket` syscall, plus compatibility ABIs to cover. */
interface ArchFilter {
  /** `AUDIT_ARCH_*` of the native ABI. */
  audit: number;
  socket: number;
  /** Calls refused whatever their arguments (io_uring's), in the native numbering. */
  refused: number[];
  /** Other ABIs the kernel accepts from this architecture's processes, with their socket calls. */
  compat: Array<{ audit: number; blocked: Array<{ nr: number; checkDomain: boolean }> }>;
}

const AF_UNIX = 1;
const EPERM = 1;
const X32_SYSCALL_BIT = 0x40000000;
/** io_uring_setup, io_uring_enter, io_uring_register: the same numbers on every architecture since 5.1. */
const IO_URING_CALLS = [425, 426, 427];
const refuse = (nr: number) => ({ nr, checkDomain: false });

/** The architectures we know the numbers for, keyed by Node's `process.arch`. */
const ARCHES: Record<string, ArchFilter> = {
  x64: {
    audit: 0xc000003e, // AUDIT_ARCH_X86_64
    socket: 41,
    refused: IO_URING_CALLS,
    compat: [
      // 32-bit x86 through int 0x80: socket (359) and the multiplexed socketcall (102), whose
      // arguments sit in user memory where a filter cannot read them, so it is refused outright.
      {
        audit: 0x40000003,
        blocked: [{ nr: 359, checkDomain: true }, refuse(102), ...IO_URING_CALLS.map(refuse)],
      },
    ],
  },
  arm64: {
    audit: 0xc00000b7, // AUDIT_ARCH_AARCH64
    socket: 198,
    refused: IO_URING_CALLS,
    // 32-bit ARM: socket (281) and the io_uring calls.
    compat: [{ audit: 0x40000028, blocked: [{ nr: 281, checkDomain: true }, ...IO_URING_CALLS.map(refuse)] }],
  },
};

// Classic BPF opcodes (linux/filter.h) and seccomp return values (linux/seccomp.h).
const LD_W_ABS = 0x20;
const JEQ_K = 0x15;
const RET_K = 0x06;
const RET_ALLOW = 0x7fff0000;
const RET_ERRNO = 0x00050000;
// Offsets in struct seccomp_data: nr, arch, then args[0] (its low 32 bits first on little-endian).
const OFF_NR = 0;
const OFF_ARCH = 4;
const OFF_ARG0 = 16;

/** True when a Unix-socket filter can be built for this machine's architecture. */
export function canFilterUnixSockets(arch: string = process.arch): boolean {
  return Object.hasOwn(ARCHES, arch);
}

/**
 * The filter program for `arch` as bytes (8 per instruction, little-endian), ready to hand to
 * bubblewrap. Throws for an architecture without a table.
 */
export function unixSocketFilter(arch: string = process.arch): Buffer {
  const spec = ARCHES[arch];
  if (!spec) throw new Error(`no seccomp socket filter for the ${arch} architecture`);
  const abis = [
    {
      audit: spec.audit,
      blocked: [
        { nr: spec.socket, checkDomain: true },
        ...spec.refused.map(refuse),
        // x32 processes run on x86-64's audit arch with bit 30 set in the call number.
        ...(arch === "x64"
          ? [
              { nr: spec.socket | X32_SYSCALL_BIT, checkDomain: true },
              ...spec.refused.map((nr) => refuse(nr | X32_SYSCALL_BIT)),
            ]
          : []),
      ],
    },
    ...spec.compat,
  ];
  // For each ABI: "arch == audit? then compare the syscall number with its blocked calls"; an ABI
  // that matches nothing falls through to the next comparison. Jumps name labels, resolved below.
  const out: Item[] = [];
  const emit = (code: number, k: number, jt: Target = 0, jf: Target = 0) => out.push({ code, jt, jf, k });
  const label = (name: string) => out.push({ label: name });
  emit(LD_W_ABS, OFF_ARCH);
  abis.forEach((abi, i) => {
    const next = `abi${i + 1}`;
    emit(JEQ_K, abi.audit, 0, next);
    emit(LD_W_ABS, OFF_NR);
    for (const call of abi.blocked) emit(JEQ_K, call.nr, call.checkDomain ? "domain" : "deny", 0);
    emit(RET_K, RET_ALLOW);
    // Back to the arch word for the next ABI's comparison.
    label(next);
    emit(LD_W_ABS, OFF_ARCH);
  });
  // No known ABI matched: an unknown ABI is refused rather than trusted.
  emit(RET_K, RET_ERRNO | EPERM);
  label("domain");
  emit(LD_W_ABS, OFF_ARG0);
  emit(JEQ_K, AF_UNIX, "deny", 0);
  emit(RET_K, RET_ALLOW);
  label("deny");
  emit(RET_K, RET_ERRNO | EPERM);
  return assemble(out);
}

/** A jump target: an offset, or a label's name. */
type Target = number | string;
/** An instruction with symbolic jumps, or a label marking the next instruction. */
type Item = { code: number; jt: Target; jf: Target; k: number } | { label: string };

/** Resolves label jumps into relative offsets and encodes the program. */
function assemble(items: Item[]): Buffer {
  const labels = new Map<string, number>();
  const insns: Array<{ code: number; jt: Target; jf: Target; k: number }> = [];
  for (const item of items) {
    if ("label" in item) labels.set(item.label, insns.length);
    else insns.push(item);
  }
  const buf = Buffer.alloc(insns.length * 8);
  insns.forEach((insn, i) => {
    const rel = (target: Target): number => {
      if (typeof target === "number") return target;
      const at = labels.get(target);
      if (at === undefined) throw new Error(`seccomp: unknown label ${target}`);
      const offset = at - i - 1;
      if (offset < 0 || offset > 255) throw new Error(`seccomp: jump to ${target} out of range`);
      return offset;
    };
    buf.writeUInt16LE(insn.code, i * 8);
    buf.writeUInt8(rel(insn.jt), i * 8 + 2);
    buf.writeUInt8(rel(insn.jf), i * 8 + 3);
    buf.writeUInt32LE(insn.k >>> 0, i * 8 + 4);
  });
  return buf;
}
