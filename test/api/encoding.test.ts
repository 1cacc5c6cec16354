/**
 * Compressed request bodies (part of issue 14): zstd as the hosted API's SDK
 * sends it above 1 MB, gzip, the size limit on the decoded body, bombs,
 * corrupt data and unknown encodings. Fixtures: test/fixtures/encoding,
 * made by make-compressed.py with Python's zstandard and gzip.
 */
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { gzipSync } from "node:zlib";
import fc from "fast-check";
import { Gunzip } from "fflate";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { ApiPipelines } from "../../src/api/pipelines.js";
import { BodyDecodeError, crc32, decodeContent, zstdBounds } from "../../src/api/encoding.js";
import { KEY_A, bearer, fakePipelines, testService } from "./helpers.js";

const fixture = (name: string): Uint8Array => new Uint8Array(readFileSync(`test/fixtures/encoding/${name}`));
const SHA = "ac132406f4be644d8d870b328caa8bd4edf3543f92cf9919963cc67768dae48b";
const sha = (b: Uint8Array): string => createHash("sha256").update(b).digest("hex");
const MB = 1024 * 1024;

describe("decodeContent", () => {
  it.each(["body.json.zst", "body-stream.json.zst"])("%s (Python zstandard) decodes to the original body", (name) => {
    const out = decodeContent(fixture(name), "zstd", 256 * MB);
    expect(out.length).toBe(222100);
    expect(sha(out)).toBe(SHA);
  });

  it("gzip decodes to the original body; encodings match without case", () => {
    expect(sha(decodeContent(fixture("body.json.gz"), "GZip ", 256 * MB))).toBe(SHA);
  });

  it("identity and no encoding return the bytes themselves", () => {
    const b = Uint8Array.of(123, 125);
    expect(decodeContent(b, "identity", 10)).toBe(b);
    expect(decodeContent(b, "", 10)).toBe(b);
  });

  it("the limit is on the decoded size: a 64 MiB bomb of 2 kB (zstd) or 64 kB (gzip) is refused at a 1 MiB limit", () => {
    expect(() => decodeContent(fixture("bomb.zst"), "zstd", MB)).toThrow(/decodes to more than limits.maxBodyBytes = 1048576/);
    expect(() => decodeContent(fixture("bomb.gz"), "gzip", MB)).toThrow(/decodes to more than limits.maxBodyBytes = 1048576/);
    expect(() => decodeContent(fixture("body.json.zst"), "zstd", 222099)).toThrow(BodyDecodeError);
    expect(decodeContent(fixture("body.json.zst"), "zstd", 222100).length).toBe(222100);
  });

  it("the zstd size bound is an upper bound of the decoded size", () => {
    for (const name of ["body.json.zst", "body-stream.json.zst", "bomb.zst"]) {
      const { decodedAtMost } = zstdBounds(fixture(name));
      const actual = name === "bomb.zst" ? 64 * MB : 222100;
      expect(decodedAtMost).toBeGreaterThanOrEqual(actual);
    }
  });

  it("a frame that declares a 2 GB window is refused before anything is allocated", () => {
    // magic, descriptor without single segment, window descriptor 0xA8 (a 2 GiB window, more than the limit), one empty raw last block
    const frame = Uint8Array.of(0x28, 0xb5, 0x2f, 0xfd, 0x00, 0xa8, 0x01, 0x00, 0x00);
    expect(() => decodeContent(frame, "zstd", 256 * MB)).toThrow(/more than limits.maxBodyBytes/);
  });

  it("corrupt or truncated data and unknown encodings are BodyDecodeErrors with a reason", () => {
    const zst = fixture("body.json.zst");
    const reasons = (f: () => unknown): string => {
      try {
        f();
        return "none";
      } catch (e) {
        return e instanceof BodyDecodeError ? e.reason : `other: ${String(e)}`;
      }
    };
    expect(reasons(() => decodeContent(zst.subarray(0, 1000), "zstd", 256 * MB))).toBe("corrupt");
    expect(reasons(() => decodeContent(Uint8Array.of(1, 2, 3, 4, 5), "zstd", 256 * MB))).toBe("corrupt");
    expect(reasons(() => decodeContent(fixture("body.json.gz").subarray(0, 5000), "gzip", 256 * MB))).toBe("corrupt");
    expect(reasons(() => decodeContent(zst, "br", 256 * MB))).toBe("unsupported");
    expect(reasons(() => decodeContent(zst, "gzip, zstd", 256 * MB))).toBe("unsupported");
  });

  it("arbitrary bytes never crash: decoded, or a BodyDecodeError", () => {
    const zst = fixture("body.json.zst");
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 64 }), fc.nat(zst.length - 1), fc.nat(255), fc.constantFrom("zstd", "gzip"), (noise, at, byte, enc) => {
        const flipped = zst.slice();
        flipped[at] = byte;
        for (const input of [noise, Uint8Array.of(0x28, 0xb5, 0x2f, 0xfd, ...noise), flipped]) {
          try {
            const out = decodeContent(input, enc, MB);
            expect(out.length).toBeLessThanOrEqual(MB);
          } catch (e) {
            expect(e).toBeInstanceOf(BodyDecodeError);
          }
        }
      }),
      { numRuns: 200 },
    );
  });
});

const reasonOf = (f: () => unknown): string => {
  try {
    f();
    return "none";
  } catch (e) {
    return e instanceof BodyDecodeError ? `${e.reason}: ${e.message}` : `other: ${String(e)}`;
  }
};
const utf8 = (text: string): Uint8Array => new TextEncoder().encode(text);

describe("gzip integrity (issue 27)", () => {
  const text = utf8(JSON.stringify({ series: { y: [1, 2, 3, 4, 5, 6], sizes: [6] }, freq: "D", h: 2 }));
  // level 0: stored blocks, so a changed data byte still inflates and only the CRC-32 can tell
  const stored = new Uint8Array(gzipSync(text, { level: 0 }));
  const changed = (bytes: Uint8Array, at: number, byte: number): Uint8Array => {
    const copy = bytes.slice();
    copy[at] = byte;
    return copy;
  };

  it("crc32 has the check value of CRC-32/ISO-HDLC and continues from a previous CRC", () => {
    expect(crc32(utf8("123456789"))).toBe(0xcbf43926);
    expect(crc32(new Uint8Array(0))).toBe(0);
    expect(crc32(utf8("6789"), crc32(utf8("12345")))).toBe(0xcbf43926);
    // the bit-at-a-time definition, against the table-driven one, over any split
    const bitwise = (bytes: Uint8Array): number => {
      let c = 0xffffffff;
      for (const byte of bytes) {
        c ^= byte;
        for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
      }
      return ~c >>> 0;
    };
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 100 }), fc.nat(), (bytes, cut) => {
        const at = cut % (bytes.length + 1);
        expect(crc32(bytes)).toBe(bitwise(bytes));
        expect(crc32(bytes.subarray(at), crc32(bytes.subarray(0, at)))).toBe(crc32(bytes));
      }),
    );
  });

  it("a changed data byte, a wrong CRC-32, a wrong size and a missing or cut trailer are corrupt", () => {
    expect(decodeContent(stored, "gzip", MB)).toEqual(text);
    const dataAt = stored.length - 8 - 3; // a byte of the stored block's content
    expect(stored[dataAt]).toBe(text[text.length - 3]);
    expect(reasonOf(() => decodeContent(changed(stored, dataAt, 0x39), "gzip", MB))).toMatch(/^corrupt: .*CRC-32/);
    expect(reasonOf(() => decodeContent(changed(stored, stored.length - 8, stored[stored.length - 8]! ^ 1), "gzip", MB))).toMatch(/^corrupt: .*CRC-32/);
    expect(reasonOf(() => decodeContent(changed(stored, stored.length - 4, stored[stored.length - 4]! + 1), "gzip", MB))).toMatch(/^corrupt: .*decodes to \d+ bytes, its trailer says/);
    expect(reasonOf(() => decodeContent(stored.subarray(0, stored.length - 8), "gzip", MB))).toMatch(/^corrupt/);
    expect(reasonOf(() => decodeContent(stored.subarray(0, stored.length - 3), "gzip", MB))).toMatch(/^corrupt/);
    const compressed = fixture("body.json.gz");
    expect(reasonOf(() => decodeContent(compressed.subarray(0, compressed.length - 8), "gzip", 256 * MB))).toMatch(/^corrupt/);
    expect(reasonOf(() => decodeContent(Uint8Array.of(...compressed, 0, 0), "gzip", 256 * MB))).toMatch(/^corrupt/);
  });

  it("every member of a multi-member body is checked; intact members decode to their concatenation", () => {
    const second = new Uint8Array(gzipSync(utf8("tail"), { level: 0 }));
    expect(new TextDecoder().decode(decodeContent(Uint8Array.of(...stored, ...second), "gzip", MB))).toBe(`${new TextDecoder().decode(text)}tail`);
    const badFirst = changed(stored, stored.length - 8, stored[stored.length - 8]! ^ 0x80);
    expect(reasonOf(() => decodeContent(Uint8Array.of(...badFirst, ...second), "gzip", MB))).toMatch(/^corrupt: .*member at byte 0/);
    const badSecond = changed(second, second.length - 11, 0x21);
    expect(reasonOf(() => decodeContent(Uint8Array.of(...stored, ...badSecond), "gzip", MB))).toMatch(new RegExp(`^corrupt: .*member at byte ${stored.length}`));
  });

  it("any body round-trips through gzip, and any changed byte of it is refused or decodes to the same bytes", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 3000 }), fc.constantFrom(0, 1, 6, 9), fc.nat(), fc.integer({ min: 1, max: 255 }), (body, level, where, delta) => {
        const gz = new Uint8Array(gzipSync(body, { level }));
        expect(decodeContent(gz, "gzip", MB)).toEqual(body);
        // a change past the header (whose mtime, xfl and os bytes carry no data) is caught, unless it
        // only touched bits deflate ignores (a stored block's padding): never a different body
        const at = 10 + (where % (gz.length - 10));
        const bad = changed(gz, at, (gz[at]! + delta) & 0xff);
        try {
          expect(decodeContent(bad, "gzip", MB)).toEqual(body);
        } catch (e) {
          expect(e).toBeInstanceOf(BodyDecodeError);
          expect((e as BodyDecodeError).reason).toBe("corrupt");
        }
      }),
      { numRuns: 300 },
    );
  });

  it("the service answers a corrupt gzip body 422 at body and computes nothing", async () => {
    let computed = 0;
    const pipelines: ApiPipelines = {
      ...fakePipelines,
      forecast: (r) => {
        computed++;
        return fakePipelines.forecast(r);
      },
    };
    const service = testService({ pipelines });
    const send = (body: Uint8Array) => service.handle({ method: "POST", path: "/v2/forecast", headers: { ...bearer(KEY_A), "content-encoding": "gzip" }, body });
    expect((await send(stored)).status).toBe(200);
    expect(computed).toBe(1);
    for (const bad of [changed(stored, stored.length - 11, 0x39), changed(stored, stored.length - 1, 1), stored.subarray(0, stored.length - 8)]) {
      const answer = await send(bad);
      expect(answer.status).toBe(422);
      expect((answer.body as { detail: { loc: unknown[] }[] }).detail[0]).toMatchObject({ loc: ["body"] });
    }
    expect(computed).toBe(1);
  });
});

describe("bombs against a small limit (issue 27)", () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it("a zstd frame declaring 2e9 bytes of content is refused from its header: the decoder never allocates them", () => {
    // magic, descriptor (4-byte content size, no single segment), window descriptor 0 (1 KiB), content size 2e9, one empty raw last block, 600 bytes of skippable padding
    const frame = Uint8Array.of(0x28, 0xb5, 0x2f, 0xfd, 0x80, 0x00, ...[0, 0x94, 0x35, 0x77], 0x01, 0x00, 0x00, 0x50, 0x2a, 0x4d, 0x18, 0x58, 0x02, 0, 0, ...new Uint8Array(600));
    expect(reasonOf(() => decodeContent(frame, "zstd", MB))).toMatch(/^tooLarge: the zstd body decodes to more than limits.maxBodyBytes = 1048576/);
    expect(zstdBounds(frame)).toMatchObject({ declared: 2e9, windows: 1024 });
    // a declared size within the limit is what the SDK sends: still decoded
    expect(zstdBounds(fixture("body.json.zst")).declared).toBe(222100);
  });

  it("a gzip bomb is stopped within about a kilobyte of input at a 1 MiB limit (at most ~1 MiB decoded), not after 64 kB (64 MiB)", () => {
    let pushed = 0;
    const push = Gunzip.prototype.push;
    vi.spyOn(Gunzip.prototype, "push").mockImplementation(function (this: Gunzip, chunk: Uint8Array, final?: boolean) {
      pushed += chunk.length;
      push.call(this, chunk, final);
    });
    expect(reasonOf(() => decodeContent(fixture("bomb.gz"), "gzip", MB))).toMatch(/^tooLarge/);
    // deflate decodes at most 1032 bytes per byte of input: 1 MiB / 1032 ≈ 1016 bytes, and one more piece of at least 256
    expect(pushed).toBeGreaterThan(0);
    expect(pushed).toBeLessThanOrEqual(1016 + 256);
  });
});

describe("the service reads compressed bodies", () => {
  const service = testService();
  const send = (body: unknown, encoding: string | null, s = service) =>
    s.handle({ method: "POST", path: "/v2/forecast", headers: { ...bearer(KEY_A), ...(encoding === null ? {} : { "content-encoding": encoding }) }, body });

  it("a zstd body as the SDK sends it gives the same answer as the plain body", async () => {
    const plain = decodeContent(fixture("body.json.zst"), "zstd", 256 * MB);
    const viaZstd = await send(fixture("body.json.zst"), "zstd");
    const viaGzip = await send(fixture("body.json.gz").buffer, "gzip");
    const direct = await send(plain, null);
    expect(viaZstd.status).toBe(200);
    expect(viaZstd.body).toEqual(direct.body);
    expect(viaGzip.body).toEqual(direct.body);
    expect((viaZstd.body as { sizes: number[] }).sizes.length).toBe(200);
  });

  it("an unknown encoding is a 415, a bomb and corrupt data are 422s at body; a string body with zstd is a 422", async () => {
    const br = await send(fixture("body.json.zst"), "br");
    expect(br.status).toBe(415);
    expect((br.body as { detail: string }).detail).toContain("accepted: identity, gzip, zstd");
    const small = testService({ limits: { maxBodyBytes: MB } });
    const bomb = await send(fixture("bomb.zst"), "zstd", small);
    expect(bomb.status).toBe(422);
    expect((bomb.body as { detail: { loc: unknown[]; msg: string }[] }).detail[0]).toMatchObject({ loc: ["body"] });
    expect((await send(Uint8Array.of(9, 9, 9, 9, 9), "zstd")).status).toBe(422);
    expect((await send("{}", "zstd")).status).toBe(422);
  });
});
