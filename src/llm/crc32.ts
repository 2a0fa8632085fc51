/**
 * CRC32 (IEEE 802.3, as zlib computes it) over a span of a buffer, for the AWS event-stream checksums
 * (aws-event-stream.ts). Each Bedrock frame carries two: one over its 8-byte prelude and one over the
 * whole frame, a few hundred bytes for a streamed token. `zlib.crc32` is native and fast per byte but
 * costs a binding call and a `subarray` per span, more than the whole of a short frame's checksum in
 * JavaScript; so short spans are summed here, slice-by-16 (sixteen table lookups per 16 bytes, about
 * 0.7 ns a byte here against zlib's 0.3 ns plus 150 ns a call), and long ones natively where Node has
 * it (≥ 20.15).
 */
import zlib from "node:zlib";

const nativeCrc32 = (zlib as unknown as { crc32?: (data: Uint8Array, initial?: number) => number }).crc32;

/** Spans at least this long go to zlib, when it has crc32: past here its per-call cost is repaid. */
const NATIVE_FROM = 384;

/** Sixteen 256-entry tables: TABLES[k * 256 + b] is the CRC of byte b followed by k zero bytes. */
let TABLES: Int32Array | undefined;

function tables(): Int32Array {
  if (TABLES) return TABLES;
  const t = new Int32Array(16 * 256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    t[n] = c;
  }
  for (let k = 1; k < 16; k++)
    for (let n = 0; n < 256; n++) {
      const previous = t[(k - 1) * 256 + n];
      t[k * 256 + n] = (previous >>> 8) ^ t[previous & 0xff];
    }
  TABLES = t;
  return t;
}

/**
 * The CRC32 of `bytes[start, end)`, continuing from `initial` (the CRC of the bytes before, as
 * `zlib.crc32(data, initial)` takes it; 0 to start afresh). Unsigned.
 */
export function crc32(bytes: Uint8Array, start: number, end: number, initial = 0): number {
  if (nativeCrc32 && end - start >= NATIVE_FROM) return nativeCrc32(bytes.subarray(start, end), initial);
  const t = tables();
  let c = ~initial;
  let i = start;
  for (; i + 16 <= end; i += 16) {
    const low = c ^ (bytes[i] | (bytes[i + 1] << 8) | (bytes[i + 2] << 16) | (bytes[i + 3] << 24));
    c =
      t[3840 + (low & 0xff)] ^
      t[3584 + ((low >>> 8) & 0xff)] ^
      t[3328 + ((low >>> 16) & 0xff)] ^
      t[3072 + (low >>> 24)] ^
      t[2816 + bytes[i + 4]] ^
      t[2560 + bytes[i + 5]] ^
      t[2304 + bytes[i + 6]] ^
      t[2048 + bytes[i + 7]] ^
      t[1792 + bytes[i + 8]] ^
      t[1536 + bytes[i + 9]] ^
      t[1280 + bytes[i + 10]] ^
      t[1024 + bytes[i + 11]] ^
      t[768 + bytes[i + 12]] ^
      t[512 + bytes[i + 13]] ^
      t[256 + bytes[i + 14]] ^
      t[bytes[i + 15]];
  }
  for (; i < end; i++) c = t[(c ^ bytes[i]) & 0xff] ^ (c >>> 8);
  return ~c >>> 0;
}
