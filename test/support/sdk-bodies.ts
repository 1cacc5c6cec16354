/**
 * Request bodies as the hosted API's Python SDK sends them (its client
 * source, `nixtla/nixtla_client.py`), for the tests of the SDK's protocol.
 */

/**
 * The body of the SDK's `cross_validation` for monthly series (step 12, the
 * SDK's defaults for the other fields), with `fields` over it.
 */
export function sdkCrossValidationBody(fields: Record<string, unknown>): Record<string, unknown> {
  return {
    model: "forecastmodel-1",
    h: 12,
    n_windows: 1,
    step_size: 12,
    freq: "MS",
    clean_ex_first: true,
    hist_exog: null,
    level: [80],
    finetune_steps: 0,
    finetune_depth: 1,
    finetune_loss: "default",
    finetuned_model_id: null,
    refit: true,
    multivariate: false,
    ...fields,
  };
}
