/**
 * Compressed request bodies: `content-encoding: zstd` (what the hosted API's
 * SDK sends above 1 MB) and `gzip`, decoded in pure JavaScript (fzstd,
 * fflate) with the body-size limit applied to the decoded size before any
 * large allocation.
 * @module
 */
import { Gunzip } from "fflate";
import { decompress as zstdDecompress } from "fzstd";

/**
 * The content encodings a request body may have.
 * @category API rules
 */
export const CONTENT_ENCODINGS = ["identity", "gzip", "zstd"] as const;

/**
 * Why a body could not be decoded: `unsupported` (an encoding this service
 * does not read: HTTP 415), `tooLarge` (the decoded body would pass the
 * limit) or `corrupt` (not valid data of the encoding).
 * @category API rules
 */
export class BodyDecodeError extends Error {
  /** `unsupported`, `tooLarge` or `corrupt`. */
  readonly reason: "unsupported" | "tooLarge" | "corrupt";
  constructor(reason: "unsupported" | "tooLarge" | "corrupt", message: string) {
    super(message);
    this.reason = reason;
    this.name = "BodyDecodeError";
  }
}

const ZSTD_MAGIC = 0xfd2fb528;
const BLOCK_MAX = 128 * 1024;

function u32(b: Uint8Array, at: number): number {
  return ((b[at]! | (b[at + 1]! << 8) | (b[at + 2]! << 16)) >>> 0) + b[at + 3]! * 0x1000000;
}

/**
 * Walks the frames and block headers of zstd data without decoding it and
 * returns an upper bound of the decoded size, the sum of the frames'
 * window sizes and the sum of the content sizes the frames declare (the
 * decoder allocates a declared size before it decodes a byte), so a body
 * that would pass `maxBytes` is refused before it is decoded. Throws
 * `BodyDecodeError` on malformed framing.
 *
 * @example
 * ```ts
 * // one frame, single segment, content size 3, one raw block "abc"
 * zstdBounds(Uint8Array.of(0x28, 0xb5, 0x2f, 0xfd, 0x20, 3, 0x19, 0, 0, 0x61, 0x62, 0x63));
 * // => { decodedAtMost: 3, windows: 3, declared: 3 }
 * ```
 * @category API rules
 */
export function zstdBounds(data: Uint8Array): { decodedAtMost: number; windows: number; declared: number } {
  let at = 0;
  let decodedAtMost = 0;
  let windows = 0;
  let declared = 0;
  const corrupt = (what: string): BodyDecodeError => new BodyDecodeError("corrupt", `the zstd body is not valid zstd data: ${what} at byte ${at}`);
  while (at < data.length) {
    if (at + 4 > data.length) throw corrupt("a truncated frame");
    const magic = u32(data, at);
    if (magic >>> 4 === 0x184d2a5) {
      // skippable frame: 4-byte magic, 4-byte size, content
      if (at + 8 > data.length) throw corrupt("a truncated skippable frame");
      at += 8 + u32(data, at + 4);
      if (at > data.length) throw corrupt("a truncated skippable frame");
      continue;
    }
    if (magic !== ZSTD_MAGIC) throw corrupt("no zstd frame magic number");
    const flags = data[at + 4];
    if (flags === undefined) throw corrupt("a truncated frame header");
    const fcsFlag = flags >> 6;
    const single = (flags >> 5) & 1;
    const checksum = (flags >> 2) & 1;
    const dictFlag = flags & 3;
    if ((flags & 8) !== 0) throw corrupt("a reserved frame header bit set");
    let p = at + 5;
    let window = 0;
    if (single === 0) {
      const wd = data[p++];
      if (wd === undefined) throw corrupt("a truncated frame header");
      const base = 2 ** (10 + (wd >> 3));
      window = base + (base / 8) * (wd & 7);
    }
    p += dictFlag === 3 ? 4 : dictFlag;
    const fcsBytes = fcsFlag === 0 ? single : 1 << fcsFlag;
    if (p + fcsBytes > data.length) throw corrupt("a truncated frame header");
    let contentSize = -1;
    if (fcsBytes === 1) contentSize = data[p]!;
    else if (fcsBytes === 2) contentSize = data[p]! + (data[p + 1]! << 8) + 256;
    else if (fcsBytes === 4) contentSize = u32(data, p);
    else if (fcsBytes === 8) contentSize = u32(data, p) + u32(data, p + 4) * 2 ** 32;
    p += fcsBytes;
    if (contentSize > 0) declared += contentSize;
    if (single === 1) window = contentSize;
    windows += window;
    const blockMax = Math.min(window, BLOCK_MAX);
    let frameAtMost = 0;
    for (;;) {
      if (p + 3 > data.length) throw corrupt("a truncated block header");
      const h = data[p]! | (data[p + 1]! << 8) | (data[p + 2]! << 16);
      p += 3;
      const last = h & 1;
      const type = (h >> 1) & 3;
      const size = h >>> 3;
      if (type === 3) throw corrupt("a reserved block type");
      if (type === 0) frameAtMost += size;
      else if (type === 1) frameAtMost += size;
      else frameAtMost += blockMax;
      p += type === 1 ? 1 : size;
      if (p > data.length) throw corrupt("a truncated block");
      if (last === 1) break;
    }
    if (checksum === 1) p += 4;
    if (p > data.length) throw corrupt("a truncated checksum");
    decodedAtMost += contentSize >= 0 ? Math.min(contentSize, frameAtMost) : frameAtMost;
    at = p;
  }
  return { decodedAtMost, windows, declared };
}

function tooLarge(maxBytes: number, encoding: string): BodyDecodeError {
  return new BodyDecodeError("tooLarge", `the ${encoding} body decodes to more than limits.maxBodyBytes = ${maxBytes} bytes`);
}

// eight tables of 256 (slicing by 8: eight bytes per step), built on first use
let crcTables: Int32Array | null = null;

function crcTablesBuilt(): Int32Array {
  if (crcTables !== null) return crcTables;
  const t = new Int32Array(8 * 256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    t[n] = c;
  }
  for (let n = 0; n < 256; n++) for (let k = 1; k < 8; k++) t[k * 256 + n] = (t[(k - 1) * 256 + n]! >>> 8) ^ t[t[(k - 1) * 256 + n]! & 0xff]!;
  crcTables = t;
  return t;
}

/**
 * The CRC-32 of `bytes` as gzip's trailer holds it (the IEEE 802.3
 * polynomial, reflected, 0xEDB88320), continued from `previous` (the CRC of
 * the bytes before; 0 to start): `crc32(b, crc32(a))` is the CRC of `a`
 * followed by `b`. Table-driven, eight bytes per step; O(n).
 *
 * @example
 * ```ts
 * crc32(new TextEncoder().encode("123456789")); // => 3421780262
 * crc32(new TextEncoder().encode("6789"), crc32(new TextEncoder().encode("12345"))); // => 3421780262
 * ```
 * @category API rules
 */
export function crc32(bytes: Uint8Array, previous = 0): number {
  const t = crcTablesBuilt();
  let crc = ~previous;
  let i = 0;
  for (const end8 = bytes.length - 7; i < end8; i += 8) {
    crc ^= bytes[i]! | (bytes[i + 1]! << 8) | (bytes[i + 2]! << 16) | (bytes[i + 3]! << 24);
    crc =
      t[1792 + (crc & 0xff)]! ^
      t[1536 + ((crc >>> 8) & 0xff)]! ^
      t[1280 + ((crc >>> 16) & 0xff)]! ^
      t[1024 + (crc >>> 24)]! ^
      t[768 + bytes[i + 4]!]! ^
      t[512 + bytes[i + 5]!]! ^
      t[256 + bytes[i + 6]!]! ^
      t[bytes[i + 7]!]!;
  }
  for (; i < bytes.length; i++) crc = t[(crc ^ bytes[i]!) & 0xff]! ^ (crc >>> 8);
  return ~crc >>> 0;
}

// deflate's largest expansion: a 258-byte match in as little as 2 bits
const DEFLATE_MAX_RATIO = 1032;
const GZIP_MIN_MEMBER = 18;

/**
 * Inflates gzip data (one member or several, as RFC 1952 allows) and checks
 * every member's trailer: the CRC-32 and the size modulo 2^32 of what it
 * decoded to. Input is pushed in pieces small enough that one piece cannot
 * decode to more than the bytes the limit has left (at deflate's largest
 * ratio), so a bomb is stopped within one piece of passing the limit.
 */
function gunzipChecked(bytes: Uint8Array, maxBytes: number): Uint8Array {
  const corrupt = (what: string): BodyDecodeError => new BodyDecodeError("corrupt", `the gzip body is not valid gzip data: ${what}`);
  const parts: Uint8Array[] = [];
  let total = 0;
  let over = false;
  let memberStart = 0;
  let memberCrc = 0;
  let memberSize = 0;
  const checkTrailer = (end: number): void => {
    if (end - memberStart < GZIP_MIN_MEMBER) throw corrupt(`a missing trailer (member at byte ${memberStart})`);
    const crc = u32(bytes, end - 8);
    const size = u32(bytes, end - 4);
    if (crc !== memberCrc) throw corrupt(`the CRC-32 of the member at byte ${memberStart} is ${memberCrc}, its trailer says ${crc}`);
    if (size !== memberSize % 2 ** 32) throw corrupt(`the member at byte ${memberStart} decodes to ${memberSize} bytes, its trailer says ${size}`);
  };
  const inflater = new Gunzip((chunk) => {
    total += chunk.length;
    if (total > maxBytes) {
      over = true;
      return;
    }
    parts.push(chunk);
    memberCrc = crc32(chunk, memberCrc);
    memberSize += chunk.length;
  });
  inflater.onmember = (offset) => {
    checkTrailer(offset);
    memberStart = offset;
    memberCrc = 0;
    memberSize = 0;
  };
  try {
    let at = 0;
    do {
      const left = maxBytes - total;
      const piece = Math.max(256, Math.min(64 * 1024, Math.floor(left / DEFLATE_MAX_RATIO)));
      const end = Math.min(bytes.length, at + piece);
      inflater.push(bytes.subarray(at, end), end === bytes.length);
      at = end;
    } while (at < bytes.length && !over);
  } catch (e) {
    if (e instanceof BodyDecodeError) throw e;
    throw corrupt(e instanceof Error ? e.message : String(e));
  }
  if (over) throw tooLarge(maxBytes, "gzip");
  checkTrailer(bytes.length);
  const out = new Uint8Array(total);
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

/**
 * Decodes a request body sent with `content-encoding: <encoding>`:
 * `identity` (or no header) returns the bytes as they are, `zstd` and
 * `gzip` decode them. The decoded size may not pass `maxBytes` (checked from
 * the zstd framing, declared content sizes included, before decoding, and
 * while inflating gzip, in input pieces that cannot decode to more than the
 * limit has left, so a compression bomb costs about `maxBytes`). A gzip
 * member whose CRC-32 or size differs from its trailer, or that has no
 * trailer, is `BodyDecodeError("corrupt")`. Encodings are matched without
 * case and surrounding spaces; a list of encodings, or any other, is
 * `BodyDecodeError("unsupported")`.
 *
 * @example
 * ```ts
 * const text = new TextDecoder().decode(decodeContent(Uint8Array.of(0x28, 0xb5, 0x2f, 0xfd, 0x20, 2, 0x11, 0, 0, 0x7b, 0x7d), "zstd", 1000));
 * text; // => "{}"
 * ```
 * @category API rules
 */
export function decodeContent(bytes: Uint8Array, encoding: string, maxBytes: number): Uint8Array {
  const name = encoding.trim().toLowerCase();
  if (name === "" || name === "identity") return bytes;
  if (name === "zstd") {
    const { decodedAtMost, windows, declared } = zstdBounds(bytes);
    if (decodedAtMost > maxBytes || declared > maxBytes || windows > Math.max(maxBytes, BLOCK_MAX)) throw tooLarge(maxBytes, "zstd");
    try {
      return zstdDecompress(bytes);
    } catch (e) {
      throw new BodyDecodeError("corrupt", `the zstd body is not valid zstd data: ${e instanceof Error ? e.message : String(e)}`);
    }
  }
  if (name === "gzip" || name === "x-gzip") return gunzipChecked(bytes, maxBytes);
  throw new BodyDecodeError("unsupported", `content-encoding '${encoding}' is not supported; accepted: ${CONTENT_ENCODINGS.join(", ")}`);
}
