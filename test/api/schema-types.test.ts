/**
 * The validated request types (src/api/requests.ts) are derived from the
 * TypeBox schemas (src/api/schemas.ts) with `Infer`. The compile-time checks
 * below fail `tsc` (part of `npm test`) if a validated type stops being
 * exactly its schema's; the run-time test checks that the validator gives
 * every field the type names, and nothing else.
 */
import { describe, expect, it } from "vitest";
import type { Infer } from "../../src/api/schema-validator.js";
import type { ValidatedAnomalyBody, ValidatedFinetuneBody, ValidatedForecastBody, ValidatedHistoricBody, ValidatedSeries } from "../../src/api/requests.js";
import { CORE_REQUEST_SCHEMAS, SERIES_SCHEMA } from "../../src/api/schemas.js";
import { UNLIMITED, validateEndpointBody } from "../../src/api/requests.js";

/** true when A and B are the same type (mutual assignability of the exact shapes). */
type Same<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
type Holds<T extends true> = T;
// the validator's own flags: modelGiven, missing (the filled points, only when y had null or NaN), featureGroups (only with categorical features)
// and shortSeriesWindow (historic bodies of the SDK's in-sample routes)
type WithoutFlag<T> = { readonly [K in keyof T as K extends "modelGiven" | "missing" | "featureGroups" | "shortSeriesWindow" ? never : K]: T[K] };
type Plain<T> = { readonly [K in keyof T]: T[K] };

export type Checks = [
  Holds<Same<Plain<ValidatedSeries>, Infer<typeof SERIES_SCHEMA>>>,
  Holds<Same<WithoutFlag<ValidatedForecastBody>, Infer<typeof CORE_REQUEST_SCHEMAS.forecast>>>,
  Holds<Same<WithoutFlag<ValidatedAnomalyBody>, Infer<typeof CORE_REQUEST_SCHEMAS.anomaly>>>,
  Holds<Same<WithoutFlag<ValidatedHistoricBody>, Infer<typeof CORE_REQUEST_SCHEMAS.historic>>>,
  Holds<Same<WithoutFlag<ValidatedFinetuneBody>, Infer<typeof CORE_REQUEST_SCHEMAS.finetune>>>,
];

describe("validated types and schema data", () => {
  const series = { y: [1, 2, 3, 4, 5, 6], sizes: [6] };
  const bodies = {
    forecast: { series, freq: "D", h: 2 },
    anomaly: { series, freq: "D", h: 1, detection_size: 1 },
    historic: { series, freq: "D" },
    finetune: { series, freq: "D" },
  } as const;
  for (const endpoint of ["forecast", "anomaly", "historic", "finetune"] as const) {
    it(`${endpoint}: the validator gives exactly the schema's fields (defaults filled in) and modelGiven`, () => {
      const v = validateEndpointBody(endpoint, bodies[endpoint], { core: true, limits: UNLIMITED });
      const names = Object.keys(CORE_REQUEST_SCHEMAS[endpoint].properties);
      expect(Object.keys(v).sort()).toEqual([...names, "modelGiven"].sort());
      expect(Object.keys(v.series).sort()).toEqual(Object.keys(SERIES_SCHEMA.properties).sort());
    });
  }
});
