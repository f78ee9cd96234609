/**
 * Compiling a route's schemas (ajv validators, fast-json-stringify serialisers) on the first request
 * that needs them, not at start: at start it was the largest part of a start's CPU, and most routes
 * of an instance are not called in its first seconds. A schema that does not compile would then fail
 * its route's first request instead of the start; `compilePending()` compiles everything still
 * waiting, which a test does for the whole application (test/http/schemas.test.ts), so none ships.
 */

/**
 * Compilations handed out and not run yet, held weakly: an application that was closed (tests build
 * many in one process) leaves its uncompiled schemas to the garbage collector.
 */
const pending = new Set<WeakRef<() => unknown>>();

/** `compile`, run once on the first call of the function returned. */
export function onFirstUse<T>(compile: () => T): () => T {
  let compiled: { value: T } | undefined;
  const get = (): T => {
    if (compiled === undefined) {
      compiled = { value: compile() };
      pending.delete(entry);
    }
    return compiled.value;
  };
  const entry = new WeakRef(get);
  pending.add(entry);
  return get;
}

/** Runs every compilation still waiting for its first use; returns how many. Throws a schema's error. */
export function compilePending(): number {
  let count = 0;
  for (const entry of [...pending]) {
    const compile = entry.deref();
    pending.delete(entry);
    if (compile === undefined) continue;
    compile();
    count += 1;
  }
  return count;
}
