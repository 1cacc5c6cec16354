/** The series arbitrary the partition and pool properties share. */
import { fc } from "@fast-check/vitest";

/** A series with level, trend, season and a seeded wiggle: integers keep fast-check shrinking readable. */
export const seriesArb = (minLength: number, maxLength: number) =>
  fc
    .record({
      length: fc.integer({ min: minLength, max: maxLength }),
      level: fc.integer({ min: -50, max: 500 }),
      trend: fc.integer({ min: -3, max: 3 }),
      season: fc.integer({ min: 0, max: 20 }),
      noise: fc.array(fc.integer({ min: -5, max: 5 }), { minLength: 7, maxLength: 7 }),
    })
    .map(({ length, level, trend, season, noise }) =>
      Array.from({ length }, (_, t) => level + trend * t + season * Math.sin((2 * Math.PI * t) / 12) + (noise[t % 7] as number)),
    );
