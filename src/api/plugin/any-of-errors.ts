/**
 * One error per field for a value that may take one of several shapes (SPEC-API: one entry per
 * offending field). Ajv reports an `anyOf` that no branch matches with every branch's errors and
 * then "must match a schema in anyOf": `{"mobile": 123}` against string-or-null gave three
 * entries. Here the branches that failed on the value's type give way to a branch that accepted
 * the type (its own errors say what is wrong: `must NOT have more than 50 characters`); when every
 * branch refused the type, one entry names the types allowed (`must be string or null`).
 */
import type { ErrorObject } from 'ajv';

type AjvError = Pick<ErrorObject, 'keyword' | 'instancePath' | 'schemaPath' | 'params' | 'message'>;

export function collapseAnyOfErrors<E extends AjvError>(errors: readonly E[]): E[] {
  let result = [...errors];
  const anyOfs = errors.filter((e) => e.keyword === 'anyOf').sort((a, b) => a.schemaPath.length - b.schemaPath.length);
  for (const anyOf of anyOfs) {
    if (!result.includes(anyOf)) continue;
    const prefix = `${anyOf.schemaPath}/`;
    const inBranches = result.filter((e) => e.schemaPath.startsWith(prefix));
    const branchOf = (e: E) => e.schemaPath.slice(prefix.length).split('/')[0]!;
    const branches = [...new Set(inBranches.map(branchOf))].map((branch) => inBranches.filter((e) => branchOf(e) === branch));
    const failedOnType = (branch: readonly E[]) => branch.some((e) => e.keyword === 'type' && e.instancePath === anyOf.instancePath);
    const typeAccepted = branches.filter((branch) => !failedOnType(branch));
    const replacement = typeAccepted.length === 1 ? typeAccepted[0]!
      : typeAccepted.length === 0 ? [{ ...anyOf, message: `must be ${allowedTypes(inBranches, anyOf.instancePath).join(' or ')}` }]
        : [anyOf];
    result = result.flatMap((e) => (e === anyOf ? replacement : inBranches.includes(e) ? [] : [e]));
  }
  return result;
}

function allowedTypes(errors: readonly AjvError[], instancePath: string): string[] {
  const types = errors.filter((e) => e.keyword === 'type' && e.instancePath === instancePath)
    .flatMap((e) => String((e.params as { type?: unknown }).type).split(','));
  return [...new Set(types)];
}
