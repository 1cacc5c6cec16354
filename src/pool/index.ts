/**
 * forecastmodel/pool: the main export's entry points on worker threads
 * ({@link createPool}), for servers that must never block their event loop
 * and hosts with more than one core. Importing it registers the weights of
 * every pretrained model, as the main export does.
 * @module
 */
import "../model/weights/default.js";

export { createPool, WorkerStoppedError } from "./pool.js";
export type { PoolOptions, PoolMemoStats, ForecastPool, EndpointRunner, EndpointRequests, EndpointResults } from "./pool.js";
