/**
 * V8 compiles a WebAssembly function a second time, with its optimising
 * compiler, once the function has run a budget of code (`--wasm-tiering-budget`,
 * 13,000,000 by default in Node 24's V8). Opening PGlite runs enough of
 * PostgreSQL's start-up code to use up that budget for many functions: 0.3–0.5 s
 * of CPU on V8's compiler threads at every start, for code that mostly runs
 * once. V8 gives each function of an instance its budget when the instance is
 * created, so a larger one while PGlite creates its instance leaves the
 * start-up code to the baseline compiler; the default then applies again,
 * and the functions a running server keeps using are still optimised, a
 * little later (docs/performance.md, "Start-up"). A budget an operator set
 * on the command line is left alone.
 */
import { setFlagsFromString } from 'node:v8';

const FLAG = '--wasm-tiering-budget';
const DEFAULT_BUDGET = 13_000_000;
const CREATION_BUDGET = 1_000_000_000;

function isSetByOperator(): boolean {
  return [...process.execArgv, ...(process.env.NODE_OPTIONS ?? '').split(/\s+/)].some((arg) => arg.startsWith(FLAG));
}

/** Runs `create` (which instantiates the WebAssembly module) with the larger budget. */
export async function withStartTieringBudget<T>(create: () => Promise<T>): Promise<T> {
  if (isSetByOperator()) return create();
  setFlagsFromString(`${FLAG}=${CREATION_BUDGET}`);
  try {
    return await create();
  } finally {
    setFlagsFromString(`${FLAG}=${DEFAULT_BUDGET}`);
  }
}
