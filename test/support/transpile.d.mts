/** The JavaScript of a TypeScript module (ES2022, ES modules, types erased), cached on disk (see transpile.mjs). */
export function transpile(source: string): string;
