// The forecast body (POST /v2/forecast) in each library, the same rules as src/api/schemas.ts's API_REQUEST_SCHEMAS.forecast
// (freq as its OpenAPI pattern: the alias reading itself is custom code in every case).
import { Type as Type034 } from "@sinclair/typebox";
import { Type as Type1 } from "typebox";
import { z } from "zod";

export const MODEL_NAMES = ["forecastmodel-1", "forecastmodel-1-long-horizon", "forecastmodel-2.1", "forecastmodel-1-high-frequency"];
export const LOSS_NAMES = ["default", "mae", "mse", "rmse", "mape", "smape", "poisson"];
export const FREQ_PATTERN = "^(?:[0-9]*(?:s|S|min|T|h|H)|D|W(?:-(?:MON|TUE|WED|THU|FRI|SAT|SUN))?|M|MS|ME)$";
const MODEL_ID = "^[a-zA-Z0-9\\-_]{1,36}$";

export function typeboxForecast(Type = Type034) {
  const num = Type.Number();
  const matrix = Type.Array(Type.Array(num));
  const nullable = (t) => Type.Union([t, Type.Null()]);
  return Type.Object({
    series: Type.Object({ y: Type.Array(num), sizes: Type.Array(Type.Integer({ exclusiveMinimum: 0 })), X: Type.Optional(nullable(matrix)) }),
    freq: Type.String({ pattern: FREQ_PATTERN }),
    h: Type.Integer({ exclusiveMinimum: 0 }),
    model: Type.Optional(Type.Union(MODEL_NAMES.map((m) => Type.Literal(m)))),
    clean_ex_first: Type.Optional(Type.Boolean()),
    level: Type.Optional(nullable(Type.Array(Type.Number({ minimum: 0, exclusiveMaximum: 100 }), { minItems: 1 }))),
    X_future: Type.Optional(nullable(matrix)),
    finetune_steps: Type.Optional(Type.Integer({ minimum: 0 })),
    finetune_loss: Type.Optional(Type.Union(LOSS_NAMES.map((m) => Type.Literal(m)))),
    finetune_depth: Type.Optional(Type.Union([1, 2, 3, 4, 5].map((m) => Type.Literal(m)))),
    finetuned_model_id: Type.Optional(nullable(Type.String({ pattern: MODEL_ID }))),
    hist_exog: Type.Optional(nullable(Type.Array(Type.Integer({ minimum: 0 })))),
    multivariate: Type.Optional(Type.Boolean()),
    model_parameters: Type.Optional(nullable(Type.Object({}))),
    feature_contributions: Type.Optional(Type.Boolean()),
  });
}

/** The same rules in TypeBox 1.x (the `typebox` package), whose builders are the same. */
export function typebox1Forecast() {
  return typeboxForecast(Type1);
}

export function zodForecast() {
  const num = z.number();
  const matrix = z.array(z.array(num));
  return z.object({
    series: z.object({ y: z.array(num), sizes: z.array(z.int().gt(0)), X: matrix.nullable().optional() }),
    freq: z.string().regex(new RegExp(FREQ_PATTERN)),
    h: z.int().gt(0),
    model: z.enum(MODEL_NAMES).optional(),
    clean_ex_first: z.boolean().optional(),
    level: z.array(z.number().gte(0).lt(100)).min(1).nullable().optional(),
    X_future: matrix.nullable().optional(),
    finetune_steps: z.int().gte(0).optional(),
    finetune_loss: z.enum(LOSS_NAMES).optional(),
    finetune_depth: z.union([1, 2, 3, 4, 5].map((d) => z.literal(d))).optional(),
    finetuned_model_id: z.string().regex(new RegExp(MODEL_ID)).nullable().optional(),
    hist_exog: z.array(z.int().gte(0)).nullable().optional(),
    multivariate: z.boolean().optional(),
    model_parameters: z.record(z.string(), z.unknown()).nullable().optional(),
    feature_contributions: z.boolean().optional(),
  });
}
