/**
 * Starts a node process for a benchmark or a test (a recipe's host or worker
 * process) and waits until it says it is up.
 */
import { spawn, type ChildProcess } from "node:child_process";

/** What `startProcess` waits for. */
export interface StartupMarker {
  /** A stdout line that says the process (or one of its workers) is up. */
  marker: RegExp;
  /** How many such lines to wait for (default 1). */
  count?: number;
  /** Receives every other stdout line, before and after the start. */
  onLine?: (line: string) => void;
}

/**
 * Spawns `node ...args` with `env` added to this process's environment
 * (stdout piped, stderr inherited); resolves with the child once `count`
 * stdout lines matched `marker`, rejects if it exits (or cannot be spawned)
 * first.
 */
export function startProcess(args: readonly string[], env: Record<string, string>, { marker, count = 1, onLine }: StartupMarker): Promise<ChildProcess> {
  const child = spawn(process.execPath, args, { env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "inherit"] });
  return new Promise((resolve, reject) => {
    let seen = 0;
    let buffered = "";
    child.stdout!.on("data", (chunk: Buffer) => {
      buffered += chunk.toString();
      let nl: number;
      while ((nl = buffered.indexOf("\n")) >= 0) {
        const line = buffered.slice(0, nl);
        buffered = buffered.slice(nl + 1);
        if (marker.test(line)) {
          if (++seen >= count) resolve(child);
        } else onLine?.(line);
      }
    });
    child.once("error", reject);
    child.once("exit", (code, signal) => reject(new Error(`${args.join(" ")} exited with ${String(code ?? signal)} before ${count} line(s) matching ${String(marker)}`)));
  });
}
