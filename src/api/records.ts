/**
 * Records in, records out: rows of `{unique_id, ds, y, …features}` (as in
 * dataframe forecasting SDKs), grouped into series, checked with the strict
 * timestamp rules of the older request form (one format, no gaps, no
 * duplicates), the frequency inferred (any sub-daily step that divides a
 * day, such as 30s, 5min or 2h; hourly, daily, weekly, monthly, quarterly,
 * yearly), and
 * results as rows with timestamps in the input's format (strings as written,
 * or `Date`s when `Date`s came in).
 * @module
 */
import { ValidationError, valueError, type ErrorItem } from "./errors.js";
import type { Freq, Intervals, LevelKey } from "../types.js";
import type { AnomalyResult } from "./results.js";
import type { AnomalyRequest, FinetuneRequest, ForecastRequest, HistoricRequest } from "./bodies.js";
import { finetuneCallResult, runCore, type CoreCallOptions, type FinetuneCallResult } from "./entry-points.js";
import { callPipelines } from "./pipelines.js";
import { prepareLegacySeries, type LegacySeries } from "./legacy.js";
import { acceptedFreqText, freqRefusalAmong, readFreq } from "./freq.js";
import { isBusinessFreq, parseFreq } from "../series/freq.js";
import { CORE_FREQS } from "./schemas.js";
import { DEFAULT_SERVICE_LIMITS, resolveLimits, type ServiceLimits, type ValidatedSeries } from "./requests.js";

/**
 * One observation: the series it belongs to, its time, its value and any
 * exogenous features (numbers). `D` is the type of its timestamp: rows read
 * from a CSV are `RecordRow<string>`, rows built with `Date`s
 * `RecordRow<Date>`; the result rows' `ds` has the same type.
 * @category API rules
 */
export interface RecordRow<D extends string | Date = string | Date> {
  /** Series id. */
  readonly unique_id: string | number;
  /** Timestamp: `"YYYY-MM-DD"`, `"YYYY-MM-DD HH:MM:SS"` or a `Date` (UTC). */
  readonly ds: D;
  /** Observed value. */
  readonly y: number;
  /** Exogenous features, by name (every row of a request has the same ones). */
  readonly [feature: string]: unknown;
}

/**
 * What the record entry points require of a row's type: `unique_id`, `ds`
 * and `y` (features are read at run time). Any object type with these three
 * fields is accepted, an `interface` of the caller's as well as
 * {@link RecordRow}.
 *
 * @example
 * ```ts
 * interface Sale { unique_id: string; ds: string; y: number }
 * const sales: Sale[] = Array.from({ length: 24 }, (_, t) => ({ unique_id: "s", ds: `${2022 + Math.floor(t / 12)}-${String((t % 12) + 1).padStart(2, "0")}-01`, y: t % 12 }));
 * forecastRecords(sales, { h: 1 }).rows[0]!.ds; // => "2024-01-01"
 * ```
 * @category API rules
 */
export interface RecordRowFields {
  /** Series id. */
  readonly unique_id: string | number;
  /** Timestamp: `"YYYY-MM-DD"`, `"YYYY-MM-DD HH:MM:SS"` or a `Date` (UTC). */
  readonly ds: string | Date;
  /** Observed value. */
  readonly y: number;
}

/**
 * A future row of exogenous features (forecasts with features need `h` per series).
 * @category API rules
 */
export interface FutureRecordRow {
  /** Series id. */
  readonly unique_id: string | number;
  /** Timestamp of the future step. */
  readonly ds: string | Date;
  /** Feature values, by name. */
  readonly [feature: string]: unknown;
}

/**
 * The identifying fields of a result row.
 * @category API rules
 */
export interface ResultRecordKey<Id extends string | number = string | number, D extends string | Date = string | Date> {
  /** Series id, as given. */
  unique_id: Id;
  /** Timestamp, in the input's format (string or `Date`). */
  ds: D;
}

/**
 * A result row of no particular entry point: series id, timestamp and the
 * result's per-row values (`mean`, `lo-80`, …) as `unknown`. The entry
 * points return the precise rows: {@link ForecastRecord},
 * {@link AnomalyRecord}, {@link HistoricRecord}.
 * @category API rules
 */
export type ResultRecord = ResultRecordKey & Record<string, unknown>;

/**
 * The interval bounds of a result row, one number per {@link LevelKey} of
 * the levels `L` (none when `L` is `never`: no levels asked).
 *
 * @example
 * ```ts
 * const rows = Array.from({ length: 24 }, (_, t) => ({ unique_id: "a", ds: new Date(Date.UTC(2022, t, 1)), y: t % 12 }));
 * const row = forecastRecords(rows, { h: 1, level: [80] }).rows[0]!;
 * const bounds: LevelBounds<80> = row;
 * bounds["lo-80"] <= bounds["hi-80"]; // => true
 * ```
 * @category Records
 */
export type LevelBounds<L extends number> = { [K in LevelKey<L>]: number };

/**
 * The timestamp type of result rows, from the type of the input rows' `ds`:
 * strings give strings, `Date`s give `Date`s, a mix gives either.
 *
 * @example
 * ```ts
 * const rows = Array.from({ length: 24 }, (_, t) => ({ unique_id: "a", ds: new Date(Date.UTC(2022, t, 1)), y: t % 12 }));
 * const ds: ResultDs<Date> = forecastRecords(rows, { h: 1 }).rows[0]!.ds;
 * ds.toISOString(); // => "2024-01-01T00:00:00.000Z"
 * ```
 * @category Records
 */
export type ResultDs<D> = [D] extends [Date] ? Date : [D] extends [string] ? string : string | Date;

/**
 * A row of {@link forecastRecords}: the series id, the future timestamp (in
 * the input's type), the point forecast and the bounds of every requested
 * level (`lo-80`, `hi-80`, …: typed keys when the levels are written in the
 * call, e.g. `level: [80, 95]`).
 *
 * @example
 * ```ts
 * const rows = Array.from({ length: 24 }, (_, t) => ({ unique_id: "a", ds: new Date(Date.UTC(2022, t, 1)), y: 10 + (t % 12) }));
 * const row = forecastRecords(rows, { h: 1, level: [95] }).rows[0]!;
 * row.ds.getUTCFullYear(); // => 2024
 * row["lo-95"] <= row.mean && row.mean <= row["hi-95"]; // => true
 * ```
 * @category Records
 */
export type ForecastRecord<Id extends string | number = string | number, D extends string | Date = string | Date, L extends number = number> = ResultRecordKey<Id, D> & {
  /** The point forecast. */
  mean: number;
} & LevelBounds<L>;

/**
 * A row of {@link historicForecastRecords}: the series id, the timestamp
 * (as given), the observed `y`, the in-sample fitted `mean` and the bounds
 * of every requested level.
 *
 * @example
 * ```ts
 * const rows = Array.from({ length: 140 }, (_, t) => ({ unique_id: "a", ds: new Date(Date.UTC(2010, t, 1)), y: 50 + (t % 12) }));
 * const row = historicForecastRecords(rows, { level: [90] }).rows[0]!;
 * row["lo-90"] <= row["hi-90"]; // => true
 * Object.keys(row); // => ["unique_id", "ds", "y", "mean", "lo-90", "hi-90"]
 * ```
 * @category Records
 */
export type HistoricRecord<Id extends string | number = string | number, D extends string | Date = string | Date, L extends number = number> = ResultRecordKey<Id, D> & {
  /** The observed value. */
  y: number;
  /** The in-sample fitted value. */
  mean: number;
} & LevelBounds<L>;

/**
 * The judgement of one row, as {@link detectAnomaliesRecords} writes it
 * besides the series id, the timestamp and the interval bounds.
 *
 * @example
 * ```ts
 * const rows = Array.from({ length: 60 }, (_, t) => ({ unique_id: 1, ds: new Date(Date.UTC(2024, 0, 1, t)), y: t === 59 ? 90 : 10 + (t % 24) / 4 }));
 * const fields: AnomalyRecordFields = detectAnomaliesRecords(rows, { h: 4, detection_size: 2 }).rows[1]!;
 * fields.anomaly; // => true
 * ```
 * @category Records
 */
export interface AnomalyRecordFields {
  /** The observed value. */
  y: number;
  /** The forecast of the row from the points before it. */
  mean: number;
  /** Whether the row is flagged. */
  anomaly: boolean;
  /** Its signed calibrated z-score. */
  anomaly_score: number;
  /** The accumulated evidence (see `AnomalyResult.accumulated_anomaly_score`). */
  accumulated_anomaly_score: number;
}

/**
 * A row of {@link detectAnomaliesRecords}: series id, timestamp (as given),
 * the judgement ({@link AnomalyRecordFields}) and, with the univariate
 * threshold, the interval bounds at the level (`lo-99`, `hi-99` by default);
 * the multivariate threshold has no interval (`M` = `"multivariate"`).
 *
 * @example
 * ```ts
 * const rows = Array.from({ length: 60 }, (_, t) => ({ unique_id: 1, ds: new Date(Date.UTC(2024, 0, 1, t)), y: t === 59 ? 90 : 10 + (t % 24) / 4 }));
 * const row = detectAnomaliesRecords(rows, { h: 4, detection_size: 2 }).rows[1]!;
 * row.y > row["hi-99"]; // => true
 * ```
 * @category Records
 */
export type AnomalyRecord<
  Id extends string | number = string | number,
  D extends string | Date = string | Date,
  L extends number = number,
  M extends "univariate" | "multivariate" = "univariate" | "multivariate",
> = ResultRecordKey<Id, D> & AnomalyRecordFields & (M extends "univariate" ? LevelBounds<L> : unknown);

/**
 * What the record entry points return: rows, and notes such as the horizon warning.
 * @category API rules
 */
export interface RecordsResult<R = ResultRecord> {
  /** One row per output point, series in order of first appearance, time ascending. */
  readonly rows: R[];
  /** Notes (horizon, fraction levels, unknown fields). */
  readonly warnings: string[];
  /** Numbers received by the underlying call. */
  readonly input_tokens: number;
  /** Numbers returned by the underlying call. */
  readonly output_tokens: number;
  /** Fine-tune steps × series of the underlying call. */
  readonly finetune_tokens: number;
}

/**
 * The frequency option of the record entry points.
 * @category API rules
 */
export interface RecordFreq {
  /**
   * The frequency (any alias the core functions accept: `"5min"`, `"15T"`,
   * `"H"`, `"D"`, `"MS"`, …); inferred from the timestamps when absent, and
   * checked against them when given (`"15T"` and the inferred `"15min"` agree).
   */
  freq?: Freq;
}

/**
 * Options shared by the record entry points: the body fields except `series`, `X_future` and `freq` (inferred unless given).
 * @category API rules
 */
export type RecordOptions<B> = Omit<B, "series" | "freq" | "X_future"> & RecordFreq;

/**
 * The options of {@link forecastRecords}: the forecast body's fields but
 * `series`, `X_future` (given as `futureRows`) and `freq` (inferred unless
 * given); `L` is the levels, read from the call.
 *
 * @example
 * ```ts
 * const options: ForecastRecordOptions<80> = { h: 1, level: [80] };
 * const rows = Array.from({ length: 24 }, (_, t) => ({ unique_id: "a", ds: new Date(Date.UTC(2022, t, 1)), y: t % 12 }));
 * Object.keys(forecastRecords(rows, options).rows[0]!); // => ["unique_id", "ds", "mean", "lo-80", "hi-80"]
 * ```
 * @category Records
 */
export type ForecastRecordOptions<L extends number = number> = RecordOptions<ForecastRequest<L>> & {
  /** The features at the `h` future timestamps of every series (when the rows have features). */
  futureRows?: readonly FutureRecordRow[];
};

interface PackedRecords {
  readonly ids: (string | number)[];
  /** The rows' series, checked and typed (the entry points take them as they are: `validateEndpointBody`'s `checkedSeries`). */
  readonly series: ValidatedSeries;
  readonly features: string[];
  readonly freq: Freq;
  /** Per series: its rows in time order (global row indices) and its future timestamps. */
  readonly parts: { rows: number[]; future: (string | Date)[]; ds: (string | Date)[] }[];
}

const RESERVED = new Set(["unique_id", "ds", "y"]);

function dsText(ds: unknown, allMidnight: boolean): string | null {
  if (typeof ds === "string") return ds;
  if (ds instanceof Date && Number.isFinite(ds.getTime())) {
    const iso = ds.toISOString(); // YYYY-MM-DDTHH:MM:SS.sssZ
    return allMidnight ? iso.slice(0, 10) : `${iso.slice(0, 10)} ${iso.slice(11, 19)}`;
  }
  return null;
}

/** A row as the records API takes it: an object that is not an array (rows come from untyped sources: JSON, CSV parsers). */
function isRowObject(r: unknown): r is RecordRow {
  return typeof r === "object" && r !== null && !Array.isArray(r);
}

/** What a value that is not a row is, for the message: "null", "undefined", "an array", "a number", … */
function kindOf(v: unknown): string {
  if (v === null || v === undefined) return String(v);
  return Array.isArray(v) ? "an array" : `a ${typeof v}`;
}

/**
 * Numbers written as text (`"112"`, as a CSV parser gives them when nobody
 * converted the column): one 422 item per column, at its first such row,
 * saying how many rows and how to convert, instead of one identical item per
 * row. Values that are no number at all (`""`, `"n/a"`, `NaN`) are not
 * noted: the caller names their row.
 */
function numbersAsText(errors: ErrorItem[], rowCount: number): { note(column: string, row: number, value: unknown): boolean; finish(): void } {
  const columns = new Map<string, { item: number; first: number; value: string; count: number }>();
  return {
    note(column, row, value) {
      if (typeof value !== "string" || value.trim() === "" || !Number.isFinite(Number(value))) return false;
      const seen = columns.get(column);
      if (seen !== undefined) seen.count++;
      else {
        columns.set(column, { item: errors.length, first: row, value, count: 1 });
        errors.push(valueError(["rows", row, column], "", value)); // worded in finish(), when the count is known
      }
      return true;
    },
    finish() {
      for (const [column, c] of columns) {
        const what = column === "y" ? "y" : `feature ${column}`;
        const msg =
          `${what} holds numbers written as strings in ${c.count} of ${rowCount} rows (rows[${c.first}].${column} is ${JSON.stringify(c.value)}): ` +
          `convert the column to numbers before the call, e.g. rows.map((r) => ({ ...r, ${column}: Number(r.${column}) })), or with csv-parse's ` +
          `cast option (cast: (value, context) => (context.column === ${JSON.stringify(column)} ? Number(value) : value))`;
        const item = errors[c.item] as ErrorItem;
        errors[c.item] = valueError(item.loc, msg, c.value);
      }
    },
  };
}

/**
 * The rule on `h` of the records entry points, checked before any timestamp
 * is made: an integer 1 ≤ h ≤ limits.maxHorizon, and the forecast rows
 * (series × h, each with the mean and two bounds per level) within
 * limits.maxValues, the limits the forecast itself applies next.
 */
function horizonErrors(h: unknown, seriesCount: number, valuesPerStep: number, limits: ServiceLimits): ErrorItem[] {
  if (typeof h !== "number" || !Number.isInteger(h) || h < 1) return [valueError(["h"], "h must be an integer ≥ 1", h)];
  if (h > limits.maxHorizon) return [valueError(["h"], `h = ${h} is more than limits.maxHorizon = ${limits.maxHorizon}`, h)];
  const values = seriesCount * h * valuesPerStep;
  if (values > limits.maxValues) return [valueError(["h"], `the response would hold ${values} numbers (${seriesCount} series × h ${h} × ${valuesPerStep}), more than limits.maxValues = ${limits.maxValues}`, h)];
  return [];
}

/**
 * Groups, checks and packs record rows; `h` future timestamps per series
 * (`h` checked first, see horizonErrors; `valuesPerStep` numbers per future row).
 */
function packRecords(given: readonly RecordRowFields[], h: number, freq: Freq | undefined, limits: ServiceLimits, valuesPerStep = 1): PackedRecords {
  // rows come from untyped sources (JSON, CSV parsers): every field is checked below, features read by name
  const rows = given as unknown as readonly RecordRow[];
  if (!Array.isArray(rows) || rows.length === 0) throw new ValidationError([valueError(["rows"], "give at least one row of {unique_id, ds, y}")]);
  const errors: ErrorItem[] = horizonErrors(h, 1, valuesPerStep, limits);
  const featureSet = new Set<string>();
  const first: unknown = rows[0];
  if (isRowObject(first)) for (const key of Object.keys(first)) if (!RESERVED.has(key)) featureSet.add(key);
  const features = [...featureSet].sort();
  const dates = rows.every((r) => isRowObject(r) && r.ds instanceof Date);
  const allMidnight = dates && rows.every((r) => (r.ds as Date).getTime() % 86_400_000 === 0);
  const groups = new Map<string, { id: string | number; rows: number[] }>();
  const textNumbers = numbersAsText(errors, rows.length);
  rows.forEach((r: unknown, i) => {
    if (errors.length > 1000) return;
    if (!isRowObject(r)) {
      errors.push(valueError(["rows", i], `rows[${i}] must be an object {unique_id, ds, y}, got ${kindOf(r)}`, r));
      return;
    }
    if (typeof r.unique_id !== "string" && typeof r.unique_id !== "number") errors.push(valueError(["rows", i, "unique_id"], "unique_id must be a string or a number", r.unique_id));
    if (typeof r.y !== "number" || !Number.isFinite(r.y)) {
      if (!textNumbers.note("y", i, r.y)) errors.push(valueError(["rows", i, "y"], "y must be a finite number", r.y));
    }
    if (dsText(r.ds, allMidnight) === null) errors.push(valueError(["rows", i, "ds"], "ds must be a string YYYY-MM-DD or YYYY-MM-DD HH:MM:SS, or a valid Date", r.ds));
    for (const f of features) {
      if (typeof r[f] === "number" && Number.isFinite(r[f])) continue;
      if (!textNumbers.note(f, i, r[f])) errors.push(valueError(["rows", i, f], `feature ${f} must be a finite number in every row`, r[f]));
    }
    for (const key of Object.keys(r)) if (!RESERVED.has(key) && !featureSet.has(key)) errors.push(valueError(["rows", i, key], `feature ${key} is not in the first row: every row must have the same features`));
    if (errors.length > 1000) return;
    const key = `${typeof r.unique_id}:${String(r.unique_id)}`;
    let g = groups.get(key);
    if (g === undefined) {
      g = { id: r.unique_id, rows: [] };
      groups.set(key, g);
    }
    g.rows.push(i);
  });
  textNumbers.finish();
  if (errors.length === 0) errors.push(...horizonErrors(h, groups.size, valuesPerStep, limits));
  if (errors.length > 0) throw new ValidationError(errors);
  const ids: (string | number)[] = [];
  const y: number[] = [];
  const sizes: number[] = [];
  const X: number[][] = features.map(() => []);
  const parts: PackedRecords["parts"] = [];
  let inferred: Freq | null = null;
  for (const g of groups.values()) {
    let prepared: LegacySeries;
    try {
      prepared = prepareLegacySeries(g.rows.map((i) => ({ ds: dsText(rows[i]!.ds, allMidnight)!, y: rows[i]!.y })), h, { calendar: true });
    } catch (e) {
      if (!(e instanceof ValidationError)) throw e;
      // df[k] of the series is row g.rows[k] of the request
      throw new ValidationError(
        e.detail.map((item) => {
          const loc = item.loc[0] === "body" && item.loc[1] === "df" ? ["rows", ...(typeof item.loc[2] === "number" ? [g.rows[item.loc[2]]!] : []), ...item.loc.slice(3)] : item.loc;
          const msg = item.msg.replace(/df\[(\d+)\]/g, (_m, k: string) => `rows[${g.rows[Number(k)]}]`).replace(/\bdf\b/g, `the rows of unique_id ${String(g.id)}`);
          return { ...item, loc, msg };
        }),
      );
    }
    if (inferred !== null && prepared.freq !== inferred) {
      throw new ValidationError([valueError(["rows"], `series ${String(g.id)} is ${prepared.freq}, the series before it ${inferred}: every series of a request must have one frequency`)]);
    }
    inferred = prepared.freq;
    const ordered = Array.from(prepared.order, (k) => g.rows[k]!);
    ids.push(g.id);
    sizes.push(ordered.length);
    for (const i of ordered) y.push(rows[i]!.y);
    features.forEach((f, k) => {
      for (const i of ordered) X[k]!.push(rows[i]![f] as number);
    });
    const future = dates ? prepared.future.map((t) => new Date(`${t.length === 10 ? t : t.replace(" ", "T")}${t.length === 10 ? "T00:00:00" : ""}Z`)) : prepared.future;
    parts.push({ rows: ordered, future, ds: ordered.map((i) => rows[i]!.ds) });
  }
  const actual = inferred as Freq;
  if (freq !== undefined) {
    const info = parseFreq(freq);
    if (info !== null && isBusinessFreq(info.name)) {
      throw new ValidationError([valueError(["freq"], `freq ${freq} is a business calendar, whose steps skip closed days or hours: the records API reads the step from the timestamps, which such a calendar does not space evenly; send the series as { y, sizes } with freq ${freq} to the series form (forecast, detectAnomalies, …)`, freq)]);
    }
    const given = readFreq(freq, CORE_FREQS);
    if (given === null) throw new ValidationError([valueError(["freq"], `freq is not a supported frequency: ${freqRefusalAmong(freq, CORE_FREQS)}; accepted: ${acceptedFreqText(CORE_FREQS)}`, freq)]);
    if (given !== actual) throw new ValidationError([valueError(["freq"], `freq ${freq} was given, the timestamps are ${actual}`, freq)]);
  }
  const typed = { y: Float64Array.from(y), sizes, X: features.length > 0 ? X.map((x) => Float64Array.from(x)) : null };
  return { ids, series: typed, features, freq: actual, parts };
}

/**
 * The key of a future row: its series id as text and its time (a `Date` by
 * its instant, a string as written), so a `Date` matches a `Date` at the
 * same instant and a string the same string.
 */
function futureRowKey(id: unknown, ds: unknown): string {
  const time = ds instanceof Date ? `d${ds.getTime()}` : `s${String(ds)}`;
  return `${String(id)}\u0000${time}`;
}

/** The future rows by key, the first of duplicates kept: one pass, then one look-up per future timestamp. */
function futureRowIndex(futureRows: readonly FutureRecordRow[]): Map<string, FutureRecordRow> {
  if (!Array.isArray(futureRows)) throw new ValidationError([valueError(["futureRows"], "futureRows must be a list of rows {unique_id, ds, …features}")]);
  const notRows: ErrorItem[] = [];
  futureRows.forEach((f: unknown, i) => {
    if (!isRowObject(f)) notRows.push(valueError(["futureRows", i], `futureRows[${i}] must be an object {unique_id, ds, …features}, got ${kindOf(f)}`, f));
  });
  if (notRows.length > 0) throw new ValidationError(notRows.slice(0, 1000));
  const index = new Map<string, FutureRecordRow>();
  for (const f of futureRows) {
    const key = futureRowKey(f.unique_id, f.ds);
    if (!index.has(key)) index.set(key, f);
  }
  return index;
}

/**
 * Runs the JSON entry point behind a records call, its 422 items placed
 * where the caller wrote the value: an option at its name (`["level", 0]`,
 * not `["body", "level", 0]`: the caller passed an options object, not a
 * body), the series at `rows` and `X_future` at `futureRows`.
 */
function asRecordsCall<T>(run: () => T): T {
  try {
    return run();
  } catch (e) {
    if (!(e instanceof ValidationError)) throw e;
    throw new ValidationError(
      e.detail.map((item) => {
        if (item.loc[0] !== "body" || item.loc.length < 2) return item;
        const field = item.loc[1];
        const loc = field === "series" ? ["rows"] : field === "X_future" ? ["futureRows"] : item.loc.slice(1);
        return { ...item, loc };
      }),
    );
  }
}

/** Rows of per-row arrays (`mean`, interval bounds, …) of one result laid out series after series. */
function rowsOf(ids: readonly (string | number)[], ds: readonly (readonly (string | Date)[])[], arrays: Record<string, readonly unknown[]>): ResultRecord[] {
  const out: ResultRecord[] = [];
  let r = 0;
  ids.forEach((id, i) => {
    for (const t of ds[i]!) {
      const row: ResultRecord = { unique_id: id, ds: t };
      for (const [name, values] of Object.entries(arrays)) row[name] = values[r];
      out.push(row);
      r++;
    }
  });
  return out;
}

/** A records result from rows (built by rowsOf, whose fields the caller's type `R` names) and the underlying call's warnings and tokens. */
function recordsResult<R>(rows: ResultRecord[], call: { warnings: string[]; input_tokens: number; output_tokens: number; finetune_tokens: number }): RecordsResult<R> {
  return { rows: rows as R[], warnings: call.warnings, input_tokens: call.input_tokens, output_tokens: call.output_tokens, finetune_tokens: call.finetune_tokens };
}

function intervalArrays(intervals: Intervals | null): Record<string, readonly number[]> {
  return intervals === null ? {} : { ...intervals };
}

/**
 * Forecasts record rows: `h` future rows per series `{unique_id, ds, mean,
 * lo-<L>, hi-<L>, …}` with future timestamps in the input's format. The
 * rows are typed by the call ({@link ForecastRecord}): `mean` and the keys
 * of the levels written in `options.level` are numbers, `ds` is a string
 * for string timestamps and a `Date` for `Date`s. Features
 * (columns besides unique_id, ds, y) need `futureRows` with their values at
 * the `h` future timestamps of every series.
 *
 * @example
 * ```ts
 * const rows = Array.from({ length: 36 }, (_, t) => ({ unique_id: "a", ds: `20${String(20 + Math.floor(t / 12)).padStart(2, "0")}-${String((t % 12) + 1).padStart(2, "0")}-01`, y: 10 + (t % 12) }));
 * const out = forecastRecords(rows, { h: 2, level: [80] });
 * out.rows.map((r) => r.ds); // => ["2023-01-01", "2023-02-01"]
 * Object.keys(out.rows[0]!); // => ["unique_id", "ds", "mean", "lo-80", "hi-80"]
 * const first = out.rows[0]!; // typed by the call: mean and lo-80 / hi-80 are numbers, ds a string
 * first["lo-80"] <= first.mean && first.mean <= first["hi-80"]; // => true
 * ```
 * @category Records
 */
export function forecastRecords<Row extends RecordRowFields, L extends number = never>(
  rows: readonly Row[],
  options: ForecastRecordOptions<L>,
  call: CoreCallOptions = {},
): RecordsResult<ForecastRecord<Row["unique_id"], ResultDs<Row["ds"]>, L>> {
  const levels = Array.isArray(options.level) ? options.level.length : 0;
  const packed = packRecords(rows, options.h, options.freq, resolveLimits(call.limits, DEFAULT_SERVICE_LIMITS), 1 + 2 * levels);
  const { futureRows, freq: _freq, ...rest } = options;
  let X_future: number[][] | undefined;
  if (packed.features.length > 0) {
    if (futureRows === undefined) throw new ValidationError([valueError(["futureRows"], `the rows have features (${packed.features.join(", ")}): give futureRows with their values at the ${options.h} future timestamps of every series`)]);
    X_future = packed.features.map(() => []);
    const byKey = futureRowIndex(futureRows);
    packed.ids.forEach((id, i) => {
      for (const t of packed.parts[i]!.future) {
        const match = byKey.get(futureRowKey(id, t));
        if (match === undefined) throw new ValidationError([valueError(["futureRows"], `no future row for unique_id ${String(id)} at ${t instanceof Date ? t.toISOString() : t}`)]);
        packed.features.forEach((f, k) => X_future![k]!.push(match[f] as number));
      }
    });
  }
  const body = { ...rest, series: packed.series, freq: packed.freq, ...(X_future !== undefined ? { X_future } : {}) };
  const result = asRecordsCall(() => runCore("forecast", body, call, callPipelines(call), true).result);
  return recordsResult<ForecastRecord<Row["unique_id"], ResultDs<Row["ds"]>, L>>(rowsOf(packed.ids, packed.parts.map((p) => p.future), { mean: result.mean, ...intervalArrays(result.intervals) }), result);
}

/**
 * Online anomaly detection on record rows: the last `detection_size` rows of
 * every series as `{unique_id, ds, y, mean, anomaly, anomaly_score,
 * accumulated_anomaly_score, lo-<L>, hi-<L>}`.
 *
 * @example
 * ```ts
 * const rows = Array.from({ length: 60 }, (_, t) => ({ unique_id: 1, ds: new Date(Date.UTC(2024, 0, 1, t)), y: t === 59 ? 90 : 10 + (t % 24) / 4 }));
 * const out = detectAnomaliesRecords(rows, { h: 4, detection_size: 2 });
 * out.rows.map((r) => r.ds.toISOString()); // => ["2024-01-03T10:00:00.000Z", "2024-01-03T11:00:00.000Z"] (Dates in, Dates out)
 * out.rows[1]!.anomaly; // => true
 * ```
 * @category Records
 */
export function detectAnomaliesRecords<Row extends RecordRowFields, L extends number = 99, M extends "univariate" | "multivariate" = "univariate">(
  rows: readonly Row[],
  options: RecordOptions<AnomalyRequest<L, M>>,
  call: CoreCallOptions = {},
): RecordsResult<AnomalyRecord<Row["unique_id"], ResultDs<Row["ds"]>, L, M>> {
  const packed = packRecords(rows, 1, options.freq, resolveLimits(call.limits, DEFAULT_SERVICE_LIMITS));
  const { freq: _freq, ...rest } = options;
  const result: AnomalyResult = asRecordsCall(() => runCore("anomaly", { ...rest, series: packed.series, freq: packed.freq }, call, callPipelines(call), true).result);
  const ds = packed.parts.map((p, i) => p.ds.slice(p.ds.length - result.sizes[i]!));
  const yOut = result.idxs.map((r) => packed.series.y[r]);
  const arrays = { y: yOut, mean: result.mean, anomaly: result.anomaly, anomaly_score: result.anomaly_score, accumulated_anomaly_score: result.accumulated_anomaly_score };
  return recordsResult<AnomalyRecord<Row["unique_id"], ResultDs<Row["ds"]>, L, M>>(rowsOf(packed.ids, ds, { ...arrays, ...intervalArrays(result.intervals) }), result);
}

/**
 * The historic (in-sample) forecast of record rows: the fitted rows of every
 * series as `{unique_id, ds, y, mean, lo-<L>, hi-<L>}`.
 * @category Records
 */
export function historicForecastRecords<Row extends RecordRowFields, L extends number = never>(
  rows: readonly Row[],
  options: RecordOptions<HistoricRequest<L>> = {},
  call: CoreCallOptions = {},
): RecordsResult<HistoricRecord<Row["unique_id"], ResultDs<Row["ds"]>, L>> {
  const packed = packRecords(rows, 1, options.freq, resolveLimits(call.limits, DEFAULT_SERVICE_LIMITS));
  const { freq: _freq, ...rest } = options;
  const result = asRecordsCall(() => runCore("historic", { ...rest, series: packed.series, freq: packed.freq }, call, callPipelines(call), true).result);
  const ds = packed.parts.map((p, i) => p.ds.slice(p.ds.length - result.sizes[i]!));
  const yOut: number[] = [];
  packed.parts.forEach((p, i) => {
    for (const r of p.rows.slice(p.rows.length - result.sizes[i]!)) yOut.push(rows[r]!.y);
  });
  return recordsResult<HistoricRecord<Row["unique_id"], ResultDs<Row["ds"]>, L>>(rowsOf(packed.ids, ds, { y: yOut, mean: result.mean, ...intervalArrays(result.intervals) }), result);
}

/**
 * Fine-tunes on record rows (see `finetune`); the result is the fine-tuned model.
 * @category Records
 */
export function finetuneRecords(rows: readonly RecordRowFields[], options: RecordOptions<FinetuneRequest> = {}, call: CoreCallOptions = {}): FinetuneCallResult {
  const packed = packRecords(rows, 1, options.freq, resolveLimits(call.limits, DEFAULT_SERVICE_LIMITS));
  const { freq: _freq, ...rest } = options;
  return asRecordsCall(() => finetuneCallResult(runCore("finetune", { ...rest, series: packed.series, freq: packed.freq }, call, callPipelines(call), true)));
}
