/**
 * Compressed request bodies (part of issue 14): zstd as the hosted API's SDK
 * sends it above 1 MB, gzip, the size limit on the decoded body, bombs,
 * corrupt data and unknown encodings. Fixtures: test/fixtures/encoding,
 * made by make-compressed.py with Python's zstandard and gzip.
 */
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { BodyDecodeError, decodeContent, zstdBounds } from "../../src/api/encoding.js";
import { KEY_A, bearer, testService } from "./helpers.js";

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
