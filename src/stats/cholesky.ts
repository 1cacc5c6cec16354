/**
 * Cholesky factorisation and solves for small dense symmetric systems
 * (row-major Float64Array, lower triangle).
 * @module
 */

/**
 * Overwrites the lower triangle of the symmetric m × m matrix `a` (row-major;
 * only the lower triangle is read) with its Cholesky factor L (A = L Lᵀ), in
 * column order: l_jj = √(a_jj − Σ_{k<j} l_jk²), l_ij = (a_ij − Σ_{k<j} l_ik·l_jk) / l_jj.
 * With `dropped`, a column whose pivot a_jj − Σ l_jk² is not above
 * `tolerance` times its diagonal a_jj is a combination of the earlier ones:
 * it is marked (`dropped[j] = 1`), its column of L is zeroed and the
 * factorisation goes on without it (as R's `lm` drops aliased columns).
 * Without `dropped`, the matrix must be positive definite.
 *
 * @example
 * ```ts
 * const a = Float64Array.from([4, 0, 2, 5]); // [[4, 2], [2, 5]], lower triangle read
 * choleskyInPlace(a, 2);
 * [a[0], a[2], a[3]]; // => [2, 1, 2]
 * ```
 * @category Statistics
 */
export function choleskyInPlace(a: Float64Array, m: number, dropped?: Uint8Array, tolerance = 0): void {
  for (let j = 0; j < m; j++) {
    const diagonal = a[j * m + j] as number;
    let d = diagonal;
    for (let k = 0; k < j; k++) {
      const l = a[j * m + k] as number;
      d -= l * l;
    }
    if (dropped !== undefined) {
      dropped[j] = 0;
      if (!(d > tolerance * diagonal)) {
        dropped[j] = 1;
        for (let i = j; i < m; i++) a[i * m + j] = 0;
        continue;
      }
    }
    const pivot = Math.sqrt(d);
    a[j * m + j] = pivot;
    for (let i = j + 1; i < m; i++) {
      let v = a[i * m + j] as number;
      for (let k = 0; k < j; k++) v -= (a[i * m + k] as number) * (a[j * m + k] as number);
      a[i * m + j] = v / pivot;
    }
  }
}

/**
 * Solves L Lᵀ x = b in place (b becomes x), L from {@link choleskyInPlace}:
 * forward substitution with L, then backward with Lᵀ. With `dropped` (as
 * choleskyInPlace marked it), a dropped column's unknown is 0 and its
 * equation is skipped.
 *
 * @example
 * ```ts
 * const a = Float64Array.from([4, 0, 2, 5]);
 * choleskyInPlace(a, 2);
 * const b = Float64Array.from([6, 7]); // [[4, 2], [2, 5]] x = [6, 7]
 * choleskySolve(a, 2, b);
 * Array.from(b); // => [1, 1]
 * ```
 * @category Statistics
 */
export function choleskySolve(l: Float64Array, m: number, b: Float64Array, dropped?: Uint8Array): void {
  for (let i = 0; i < m; i++) {
    if (dropped !== undefined && dropped[i] === 1) {
      b[i] = 0;
      continue;
    }
    let v = b[i] as number;
    for (let k = 0; k < i; k++) v -= (l[i * m + k] as number) * (b[k] as number);
    b[i] = v / (l[i * m + i] as number);
  }
  for (let i = m - 1; i >= 0; i--) {
    if (dropped !== undefined && dropped[i] === 1) continue;
    let v = b[i] as number;
    for (let k = i + 1; k < m; k++) v -= (l[k * m + i] as number) * (b[k] as number);
    b[i] = v / (l[i * m + i] as number);
  }
}
