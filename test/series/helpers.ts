import seedrandom from "seedrandom";

/** A seasonal series with Gaussian noise of sd sigma (seeded, Box–Muller). */
export function seasonal(n: number, m: number, amplitude: number, sigma: number, seed: number, trend = 0): Float64Array {
  const rng = seedrandom(String(seed));
  const y = new Float64Array(n);
  for (let t = 0; t < n; t++) {
    const u = 1 - rng();
    const v = rng();
    const noise = Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
    y[t] = 100 + trend * t + (m > 1 ? amplitude * Math.sin((2 * Math.PI * t) / m) : 0) + sigma * noise;
  }
  return y;
}
