/**
 * The older request form (docs/contract.md §6): `{df: [{ds, y}], h}` with
 * strictly parsed timestamps, the frequency inferred from their spacing, and
 * future timestamps written in the input's format.
 * @module
 */
import { ValidationError, valueError, type ErrorItem } from "./errors.js";
import { stepInWords, subDailyFreq } from "../series/freq.js";
import type { Freq } from "../types.js";
import type { ForecastResult } from "./results.js";
import { forecastBodyOfSeries, type ServiceLimits, type ValidatedForecastBody } from "./requests.js";
import { SUPPORT_TEXT } from "./responses.js";
import { ErrorCollector, INVALID, isJsonObject, ownProperty, validateAgainst } from "./schema-validator.js";
import { LEGACY_REQUEST_SCHEMA } from "./schemas.js";

/**
 * A parsed `YYYY-MM-DD` or `YYYY-MM-DD HH:MM:SS` timestamp.
 * @category API rules
 */
export interface LegacyTimestamp {
  readonly format: "date" | "datetime";
  readonly year: number;
  readonly month: number;
  readonly day: number;
  /** Seconds since midnight. */
  readonly secondOfDay: number;
  /** Seconds since 1970-01-01 00:00:00 (UTC, no leap seconds). */
  readonly epochSeconds: number;
}

function isLeap(y: number): boolean {
  return (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
}

/**
 * Days in month `m` (1..12) of year `y`.
 * @category API rules
 */
export function daysInMonth(y: number, m: number): number {
  return m === 2 ? (isLeap(y) ? 29 : 28) : [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][m - 1] as number;
}

/**
 * Days from 1970-01-01 to the civil date y-m-d (proleptic Gregorian; H. Hinnant's algorithm).
 * @category API rules
 */
export function daysFromCivil(y: number, m: number, d: number): number {
  const yy = m <= 2 ? y - 1 : y;
  const era = Math.floor(yy / 400);
  const yoe = yy - era * 400;
  const doy = Math.floor((153 * (m + (m > 2 ? -3 : 9)) + 2) / 5) + d - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146097 + doe - 719468;
}

/**
 * The civil date of a day count from 1970-01-01 (inverse of `daysFromCivil`).
 * @category API rules
 */
export function civilFromDays(z: number): { year: number; month: number; day: number } {
  const zz = z + 719468;
  const era = Math.floor(zz / 146097);
  const doe = zz - era * 146097;
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36524) - Math.floor(doe / 146096)) / 365);
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const day = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const month = mp < 10 ? mp + 3 : mp - 9;
  return { year: yoe + era * 400 + (month <= 2 ? 1 : 0), month, day };
}

const DATE_RE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATETIME_RE = /^(\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2})$/;

/**
 * Parses a timestamp strictly (calendar-valid, exact layout); null otherwise.
 * @category API rules
 */
export function parseLegacyTimestamp(text: string): LegacyTimestamp | null {
  const m = DATETIME_RE.exec(text) ?? DATE_RE.exec(text);
  if (m === null) return null;
  const year = Number(m[1]);
  const month = Number(m[2]);
  const day = Number(m[3]);
  const hh = m[4] === undefined ? 0 : Number(m[4]);
  const mm = m[5] === undefined ? 0 : Number(m[5]);
  const ss = m[6] === undefined ? 0 : Number(m[6]);
  if (year < 1 || month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return null;
  if (hh > 23 || mm > 59 || ss > 59) return null;
  const secondOfDay = hh * 3600 + mm * 60 + ss;
  return {
    format: m[4] === undefined ? "date" : "datetime",
    year,
    month,
    day,
    secondOfDay,
    epochSeconds: daysFromCivil(year, month, day) * 86400 + secondOfDay,
  };
}

function pad(n: number, width: number): string {
  return String(n).padStart(width, "0");
}

/**
 * Writes a timestamp in `format`.
 * @category API rules
 */
export function formatLegacyTimestamp(epochSeconds: number, format: "date" | "datetime"): string {
  const days = Math.floor(epochSeconds / 86400);
  const sod = epochSeconds - days * 86400;
  const { year, month, day } = civilFromDays(days);
  const date = `${pad(year, 4)}-${pad(month, 2)}-${pad(day, 2)}`;
  if (format === "date") return date;
  return `${date} ${pad(Math.floor(sod / 3600), 2)}:${pad(Math.floor((sod % 3600) / 60), 2)}:${pad(sod % 60, 2)}`;
}

/**
 * The inferred frequency of a legacy series, its values in time order and the future timestamps.
 * @category API rules
 */
export interface LegacySeries {
  /** The inferred frequency, by its canonical name (`"H"`, `"5min"`, `"D"`, `"M"`, …). */
  readonly freq: Freq;
  readonly y: Float64Array;
  readonly future: string[];
  /** Indices of the input rows in time order (`y[k]` is the value of row `order[k]`). */
  readonly order: Int32Array;
  /** `"date"` (YYYY-MM-DD) or `"datetime"` (YYYY-MM-DD HH:MM:SS), as the input was written. */
  readonly format: "date" | "datetime";
}

/** A step of fixed length: its seconds, frequency, and its unit in words (singular, plural). */
type FixedStep = readonly [number, Freq, string, string];

const FIXED_STEPS: readonly FixedStep[] = [
  [3600, "H", "hour", "hours"],
  [86400, "D", "day", "days"],
  [604800, "W", "week", "weeks"],
];

/** The fixed step whose length is `seconds`: an hour, a day, a week, or another step that divides a day evenly (`5min`). */
function fixedStep(seconds: number): FixedStep | undefined {
  const known = FIXED_STEPS.find(([s]) => s === seconds);
  if (known !== undefined) return known;
  const info = subDailyFreq(seconds);
  if (info === null) return undefined;
  const words = stepInWords(seconds);
  return [seconds, info.name, `step of ${words}`, `steps of ${words}`];
}

/**
 * The calendar step whose smallest spacing is `minStep` seconds: one month
 * (28–31 days); with `calendar`, also a quarter (89–92 days) or a year
 * (365–366 days). `null` when none fits.
 */
function calendarStep(minStep: number, calendar: boolean): readonly [number, Freq, string] | null {
  const days = minStep / 86400;
  if (days >= 28 && days <= 31) return [1, "M", "month"];
  if (calendar && days >= 89 && days <= 92) return [3, "Q", "quarter"];
  if (calendar && days >= 365 && days <= 366) return [12, "Y", "year"];
  return null;
}

/** The 422 of a horizon whose dates would pass the year 9999 (ISO-8601 dates have four-digit years). */
function pastYear9999(h: number): ValidationError {
  return new ValidationError([valueError(["body", "h"], `the ${h} future timestamps would pass the year 9999, which a four-digit ISO-8601 date cannot write; ask for fewer steps`, h)]);
}

/**
 * Parses and checks the rows of an older-form request and writes the `h`
 * future timestamps. Rows may come in any order (they are sorted by time);
 * duplicate timestamps, gaps and irregular spacing are 422 items naming the
 * offending row's index in `df`; a horizon whose dates would pass the year
 * 9999 is a 422 at `h`. The older form infers sub-daily data (any step
 * that divides a day evenly: the smallest spacing of 300 s is `5min`, of 30 s
 * `30s`, of 2 hours `2h`, of one hour `H`), daily, weekly and monthly data;
 * with `calendar: true` (the records entry points) quarterly (steps of 3
 * months) and yearly (12 months) data are inferred too, anchored like
 * monthly data on the first timestamp's day of month or on month ends.
 * Future timestamps step by the inferred step.
 * @category API rules
 */
export function prepareLegacySeries(rows: readonly { ds: string; y: number }[], h: number, options: { readonly calendar?: boolean } = {}): LegacySeries {
  const errors: ErrorItem[] = [];
  const stamps: LegacyTimestamp[] = [];
  rows.forEach((r, i) => {
    const t = parseLegacyTimestamp(r.ds);
    if (t === null) {
      errors.push(valueError(["body", "df", i, "ds"], `df[${i}].ds = '${r.ds}' is not a valid timestamp of the form YYYY-MM-DD or YYYY-MM-DD HH:MM:SS`, r.ds));
    } else stamps.push(t);
  });
  if (errors.length > 0) throw new ValidationError(errors);
  const format = (stamps[0] as LegacyTimestamp).format;
  stamps.forEach((t, i) => {
    if (t.format !== format) {
      errors.push(valueError(["body", "df", i, "ds"], `df[${i}].ds = '${(rows[i] as { ds: string }).ds}' is not in the format of df[0].ds (${format === "date" ? "YYYY-MM-DD" : "YYYY-MM-DD HH:MM:SS"})`));
    }
  });
  if (errors.length > 0) throw new ValidationError(errors);
  if (rows.length < 2) throw new ValidationError([valueError(["body", "df"], "at least 2 rows are needed to infer the frequency")]);

  const order = stamps.map((_, i) => i).sort((a, b) => (stamps[a] as LegacyTimestamp).epochSeconds - (stamps[b] as LegacyTimestamp).epochSeconds || a - b);
  const at = (k: number): LegacyTimestamp => stamps[order[k] as number] as LegacyTimestamp;
  const loc = (k: number): (string | number)[] => ["body", "df", order[k] as number, "ds"];
  const dsOf = (k: number): string => (rows[order[k] as number] as { ds: string }).ds;
  for (let k = 1; k < order.length; k++) {
    if (at(k).epochSeconds === at(k - 1).epochSeconds) {
      errors.push(valueError(loc(k), `df[${order[k]}].ds = '${dsOf(k)}' duplicates df[${order[k - 1]}].ds`));
    }
  }
  if (errors.length > 0) throw new ValidationError(errors);

  let minStep = Infinity;
  for (let k = 1; k < order.length; k++) minStep = Math.min(minStep, at(k).epochSeconds - at(k - 1).epochSeconds);
  let freq: Freq;
  const last = at(order.length - 1);
  const future: string[] = [];
  const fixed = fixedStep(minStep);
  if (fixed !== undefined) {
    const [step, f, unit, units] = fixed;
    freq = f;
    for (let k = 1; k < order.length; k++) {
      const diff = at(k).epochSeconds - at(k - 1).epochSeconds;
      if (diff === step) continue;
      if (diff % step === 0) {
        errors.push(valueError(loc(k), `gap before df[${order[k]}].ds = '${dsOf(k)}': ${diff / step - 1} missing ${diff / step - 1 === 1 ? unit : units} after '${dsOf(k - 1)}' (frequency ${f})`));
      } else {
        errors.push(valueError(loc(k), `irregular spacing at df[${order[k]}].ds = '${dsOf(k)}': ${diff} s after '${dsOf(k - 1)}', not a multiple of one ${unit} (frequency ${f})`));
      }
    }
    if (civilFromDays(Math.floor((last.epochSeconds + h * step) / 86400)).year > 9999) throw pastYear9999(h);
    for (let j = 1; j <= h; j++) future.push(formatLegacyTimestamp(last.epochSeconds + j * step, format));
  } else if (calendarStep(minStep, options.calendar === true) !== null) {
    const [stepMonths, f, unit] = calendarStep(minStep, true)!;
    freq = f;
    const monthEnd = (t: LegacyTimestamp): boolean => t.day === daysInMonth(t.year, t.month);
    const allEnd = order.every((_, k) => monthEnd(at(k)));
    const first = at(0);
    for (let k = 1; k < order.length; k++) {
      const t = at(k);
      const p = at(k - 1);
      const sameAnchor = allEnd || (t.day === first.day && t.secondOfDay === first.secondOfDay);
      const months = t.year * 12 + t.month - (p.year * 12 + p.month);
      if (!sameAnchor || t.secondOfDay !== first.secondOfDay || months % stepMonths !== 0) {
        errors.push(valueError(loc(k), `irregular spacing at df[${order[k]}].ds = '${dsOf(k)}': ${unit}ly timestamps must be ${stepMonths === 1 ? "one month" : `${stepMonths} months`} apart and share the day of month (or all be month ends) and time of day of '${dsOf(0)}'`));
      } else if (months > stepMonths) {
        const missing = months / stepMonths - 1;
        errors.push(valueError(loc(k), `gap before df[${order[k]}].ds = '${dsOf(k)}': ${missing} missing ${unit}${missing === 1 ? "" : "s"} after '${dsOf(k - 1)}' (frequency ${f})`));
      }
    }
    const base = last.year * 12 + (last.month - 1);
    if (Math.floor((base + h * stepMonths) / 12) > 9999) throw pastYear9999(h);
    for (let j = 1; j <= h; j++) {
      const mi = base + j * stepMonths;
      const year = Math.floor(mi / 12);
      const month = (mi % 12) + 1;
      const day = allEnd ? daysInMonth(year, month) : Math.min(first.day, daysInMonth(year, month));
      future.push(formatLegacyTimestamp(daysFromCivil(year, month, day) * 86400 + first.secondOfDay, format));
    }
  } else {
    throw new ValidationError([
      valueError(
        ["body", "df"],
        `cannot infer the frequency: the smallest spacing between timestamps is ${minStep} s${minStep < 86400 ? ` (${stepInWords(minStep)}), which does not divide a day evenly` : ""}; supported are sub-daily steps that divide a day evenly (30 s, 1 min, 5 min, 15 min, 2 h, …), hourly, daily, weekly, monthly${options.calendar === true ? ", quarterly and yearly" : ""}`,
      ),
    ]);
  }
  if (errors.length > 0) throw new ValidationError(errors);
  const y = new Float64Array(order.length);
  for (let k = 0; k < order.length; k++) y[k] = (rows[order[k] as number] as { y: number }).y;
  return { freq, y, future, order: Int32Array.from(order), format };
}

/** The limits of the older form, on the raw body: rows of `df` and `h`. */
function legacyLimits(raw: unknown, limits: ServiceLimits): ErrorItem[] {
  const out: ErrorItem[] = [];
  if (!isJsonObject(raw)) return out;
  const df = ownProperty(raw, "df");
  if (Array.isArray(df) && df.length > limits.maxValues) {
    out.push(valueError(["body", "df"], `the request sends ${df.length} rows, more than limits.maxValues = ${limits.maxValues}`));
  }
  const h = ownProperty(raw, "h");
  if (typeof h === "number" && h > limits.maxHorizon) out.push(valueError(["body", "h"], `h = ${h} is more than limits.maxHorizon = ${limits.maxHorizon}`));
  if (typeof h === "number" && Number.isFinite(h) && h > limits.maxValues) out.push(valueError(["body", "h"], `the response would hold ${h} numbers, more than limits.maxValues = ${limits.maxValues}`));
  return out;
}

/**
 * Reads a body of the older request form (POST /forecastmodel): its limits,
 * then its schema, then the timestamps (`prepareLegacySeries`); the result is
 * the validated `/v2/forecast` body it asks for (`forecastBodyOfSeries`: its
 * limits and work budget judged, nothing validated again) and the future
 * timestamps to answer with.
 * @throws ValidationError with the 422 items of the first phase that fails.
 */
export function readLegacyBody(raw: unknown, limits: ServiceLimits): { forecastBody: ValidatedForecastBody; future: string[] } {
  const limitItems = legacyLimits(raw, limits);
  if (limitItems.length > 0) throw new ValidationError(limitItems);
  const errors = new ErrorCollector();
  const v = validateAgainst(LEGACY_REQUEST_SCHEMA, raw, ["body"], errors);
  if (v === INVALID) throw new ValidationError(errors.items);
  const body = v as { df: { ds: string; y: number }[]; h: number };
  const prepared = prepareLegacySeries(body.df, body.h);
  return { forecastBody: forecastBodyOfSeries(prepared.y, prepared.freq, body.h, limits), future: prepared.future };
}

/** The older form's envelope around a forecast: `{status, data: {timestamp, value, tokens}, message, details, code, requestID, support}`. */
export function legacyAnswer(result: Pick<ForecastResult, "mean" | "input_tokens" | "output_tokens" | "finetune_tokens">, future: readonly string[], requestID: string): Record<string, unknown> {
  return {
    status: 200,
    data: {
      timestamp: future,
      value: result.mean,
      input_tokens: result.input_tokens,
      output_tokens: result.output_tokens,
      finetune_tokens: result.finetune_tokens,
    },
    message: "success",
    details: "request successful",
    code: "B10",
    requestID,
    support: SUPPORT_TEXT,
  };
}
