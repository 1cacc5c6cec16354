/**
 * Properties of the API's small parts: key comparison, headers, ids,
 * calendar arithmetic of the older form, and field-level validation.
 */
import { describe, expect, it } from "vitest";
import { fc, test } from "@fast-check/vitest";
import { bearerToken, constantTimeEqual, findAccountByKey, headerValue, keyIndex } from "../../src/api/auth.js";
import { hashHex32, seededIdSequence, toHex32, uuidLayout } from "../../src/api/ids.js";
import { civilFromDays, daysFromCivil, daysInMonth, formatLegacyTimestamp, parseLegacyTimestamp, prepareLegacySeries } from "../../src/api/legacy.js";
import { readFreq } from "../../src/api/freq.js";
import { DEFAULT_SERVICE_LIMITS, validateEndpointBody } from "../../src/api/requests.js";
import { ValidationError } from "../../src/api/errors.js";

describe("keys", () => {
  test.prop([fc.string(), fc.string()])("constantTimeEqual(a, b) is a === b", (a, b) => {
    expect(constantTimeEqual(a, b)).toBe(a === b);
    expect(constantTimeEqual(a, a)).toBe(true);
  });

  test.prop([fc.string({ minLength: 1 }), fc.nat({ max: 20 })])("a key differing in one position or length never matches", (key, i) => {
    const pos = i % key.length;
    const changed = key.slice(0, pos) + String.fromCharCode((key.charCodeAt(pos) + 1) % 65536) + key.slice(pos + 1);
    expect(constantTimeEqual(key, changed)).toBe(false);
    expect(constantTimeEqual(key, `${key}\u0000`)).toBe(false);
  });

  test.prop([fc.uniqueArray(fc.string({ minLength: 1, maxLength: 12 }), { minLength: 1, maxLength: 6 }), fc.nat()])(
    "findAccountByKey finds exactly the owner of a key",
    (keys, pick) => {
      const entries = keyIndex(keys.map((key, i) => ({ key, accountId: `acct-${i}` })));
      const i = pick % keys.length;
      expect(findAccountByKey(entries, keys[i] as string)).toBe(`acct-${i}`);
      expect(findAccountByKey(entries, `${keys.join("")}#`)).toBeNull();
    },
  );

  it("a 1 MB key against 1,000 configured keys is refused after one hash: it compares with no configured key of another hash", () => {
    const entries = Array.from({ length: 1000 }, (_, i) => ({ key: `key-${i}-${"x".repeat(32)}`, accountId: `acct-${i}` }));
    const index = keyIndex(entries);
    expect(index.size).toBe(1000);
    const huge = "k".repeat(1_000_000);
    expect(findAccountByKey(index, huge)).toBeNull();
    expect(findAccountByKey(index, entries[517]!.key)).toBe("acct-517");
  });

  it("reads headers case-insensitively; a repeated header counts as absent", () => {
    expect(headerValue({ "X-Api-Key": "k" }, "x-api-key")).toBe("k");
    expect(headerValue({ "x-api-key": ["k"] }, "X-API-KEY")).toBe("k");
    expect(headerValue({ "x-api-key": ["k", "j"] }, "x-api-key")).toBeNull();
    expect(headerValue({ "x-api-key": "k", "X-API-KEY": "j" }, "x-api-key")).toBeNull();
    expect(headerValue(null, "x")).toBeNull();
    expect(bearerToken({ Authorization: "Bearer abc" })).toBe("abc");
    expect(bearerToken({ authorization: "BEARER abc" })).toBe("abc");
    for (const v of ["Basic abc", "Bearer", "Bearer ", "Bearer a b", "Bearerabc"]) expect(bearerToken({ authorization: v })).toBeNull();
  });
});

describe("ids", () => {
  it("a seeded sequence is deterministic and gives 32 hex digits", () => {
    const a = seededIdSequence("s");
    const b = seededIdSequence("s");
    const xs = Array.from({ length: 50 }, () => a());
    expect(Array.from({ length: 50 }, () => b())).toEqual(xs);
    expect(new Set(xs).size).toBe(50);
    for (const x of xs) expect(x).toMatch(/^[0-9a-f]{32}$/);
  });

  test.prop([fc.string()])("toHex32 always gives 32 hex digits; hashing is deterministic", (s) => {
    expect(toHex32(s)).toMatch(/^[0-9a-f]{32}$/);
    expect(hashHex32(s)).toBe(hashHex32(s));
    expect(uuidLayout(toHex32(s))).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
  });

  it("32 hex digits and UUIDs are kept as they are", () => {
    expect(toHex32("0123456789ABCDEF0123456789abcdef")).toBe("0123456789abcdef0123456789abcdef");
    expect(toHex32("01234567-89ab-cdef-0123-456789abcdef")).toBe("0123456789abcdef0123456789abcdef");
    expect(hashHex32("a")).not.toBe(hashHex32("b"));
  });
});

describe("calendar of the older form", () => {
  test.prop([fc.integer({ min: -800_000, max: 2_900_000 })])("civilFromDays inverts daysFromCivil", (z) => {
    const { year, month, day } = civilFromDays(z);
    expect(daysFromCivil(year, month, day)).toBe(z);
    expect(day).toBeGreaterThanOrEqual(1);
    expect(day).toBeLessThanOrEqual(daysInMonth(year, month));
  });

  it("known dates", () => {
    expect(daysFromCivil(1970, 1, 1)).toBe(0);
    expect(daysFromCivil(2000, 3, 1)).toBe(11017);
    expect(daysInMonth(2000, 2)).toBe(29);
    expect(daysInMonth(1900, 2)).toBe(28);
    expect(parseLegacyTimestamp("2024-02-29")?.epochSeconds).toBe(Date.UTC(2024, 1, 29) / 1000);
    for (const bad of ["2023-02-29", "2026-13-01", "2026-00-10", "2026-01-01 24:00:00", "2026-01-01T00:00:00", "2026-01-01 00:00", " 2026-01-01", "0000-01-01"]) {
      expect(parseLegacyTimestamp(bad)).toBeNull();
    }
  });

  test.prop([fc.date({ min: new Date(Date.UTC(1, 0, 1)), max: new Date(Date.UTC(9999, 11, 31)), noInvalidDate: true }), fc.boolean()])(
    "formatting a parsed timestamp gives it back",
    (d, withTime) => {
      const seconds = Math.floor(d.getTime() / 1000);
      const text = formatLegacyTimestamp(withTime ? seconds : Math.floor(seconds / 86400) * 86400, withTime ? "datetime" : "date");
      const parsed = parseLegacyTimestamp(text);
      expect(parsed).not.toBeNull();
      expect(formatLegacyTimestamp(parsed!.epochSeconds, parsed!.format)).toBe(text);
    },
  );

  const freqArb = fc.constantFrom("H", "D", "W", "M", "Mend");
  test.prop([freqArb, fc.integer({ min: 0, max: 40_000 }), fc.integer({ min: 2, max: 30 }), fc.integer({ min: 1, max: 30 })])(
    "a regular series is accepted, and its future timestamps continue it regularly",
    (freq, startDay, n, h) => {
      const start = civilFromDays(startDay);
      const ds: string[] = [];
      for (let i = 0; i < n; i++) {
        if (freq === "M" || freq === "Mend") {
          const mi = start.year * 12 + start.month - 1 + i;
          const y = Math.floor(mi / 12);
          const m = (mi % 12) + 1;
          ds.push(formatLegacyTimestamp(daysFromCivil(y, m, freq === "M" ? Math.min(start.day, 28) : daysInMonth(y, m)) * 86400, "date"));
        } else {
          const step = freq === "H" ? 3600 : freq === "D" ? 86400 : 604800;
          ds.push(formatLegacyTimestamp(startDay * 86400 + i * step, freq === "H" ? "datetime" : "date"));
        }
      }
      const rows = ds.map((d, i) => ({ ds: d, y: i }));
      const out = prepareLegacySeries(rows, h);
      expect(out.freq).toBe(freq === "Mend" ? "M" : freq);
      expect(out.future).toHaveLength(h);
      const extended = prepareLegacySeries([...rows, ...out.future.map((d) => ({ ds: d, y: 0 }))], 1);
      expect(extended.freq).toBe(out.freq);
      // shuffled rows give the same series
      const shuffled = [...rows].reverse();
      expect(Array.from(prepareLegacySeries(shuffled, h).y)).toEqual(Array.from(out.y));
    },
  );

  test.prop([fc.integer({ min: 3, max: 20 }), fc.nat(), fc.integer({ min: 2, max: 5 })])("removing an inner row is a gap naming the next row", (n, pick, skip) => {
    const rows = Array.from({ length: n + skip }, (_, i) => ({ ds: formatLegacyTimestamp(i * 86400, "date"), y: i }));
    const at = 1 + (pick % (n - 1));
    const gapped = [...rows.slice(0, at), ...rows.slice(at + skip - 1)];
    try {
      prepareLegacySeries(gapped, 1);
      throw new Error("expected a gap");
    } catch (e) {
      expect(e).toBeInstanceOf(ValidationError);
      const item = (e as ValidationError).detail[0];
      expect(item?.loc).toEqual(["body", "df", at, "ds"]);
      expect(item?.msg).toContain(`${skip - 1} missing day`);
    }
  });
});

describe("field validation", () => {
  const valid = { series: { y: [1, 2, 3, 4], sizes: [2, 2] }, freq: "D", h: 2, level: [80], finetune_depth: 2 };
  const fields: [string, (string | number)[]][] = [
    ["freq", ["body", "freq"]],
    ["h", ["body", "h"]],
    ["level", ["body", "level"]],
    ["finetune_depth", ["body", "finetune_depth"]],
  ];
  const wrong = fc.oneof(fc.string(), fc.boolean(), fc.constant(null), fc.double(), fc.dictionary(fc.string(), fc.integer(), { maxKeys: 2 }), fc.array(fc.string(), { maxLength: 2 }));
  test.prop([fc.constantFrom(...fields), wrong])("replacing one field by a wrong value gives items located at that field only", ([field, loc], value) => {
    const body = { ...valid, [field]: value };
    let items: { loc: (string | number)[] }[] = [];
    try {
      validateEndpointBody("forecast", body, { core: false, limits: DEFAULT_SERVICE_LIMITS });
    } catch (e) {
      items = (e as ValidationError).detail;
    }
    const accepted = items.length === 0;
    if (!accepted) {
      for (const it of items) expect(it.loc.slice(0, loc.length)).toEqual(loc);
    } else {
      // the few wrong-looking values that are in fact valid
      // freq: any alias the API reads (fc.string() draws "h", "s", "T", "2s" now and then; only the letters were listed before issue 26)
      const ok = (field === "freq" && typeof value === "string" && readFreq(value, ["D", "M", "H", "W"]) !== null) || (field === "h" && Number.isInteger(value) && (value as number) > 0) || (field === "finetune_depth" && [1, 2, 3, 4, 5].includes(value as number)) || (field === "level" && value === null);
      expect(ok).toBe(true);
    }
  });
});
