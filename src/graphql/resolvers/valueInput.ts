/**
 * The inputs of upsertStructuredProperties and removeStructuredProperties, checked
 * with the structuredProperties aspect's own rules before the service runs, and every
 * error told in the input's terms: `structuredPropertyInputParams[0].values[1].stringValue`,
 * zero-based, not the aspect's `properties[...]`.
 */
import { relocated, ServiceError } from '../../domain/errors.js';
import type { PathSegment } from '../../domain/inputLimits.js';
import { throwProblems } from '../../domain/shapes/shape.js';
import { structuredPropertiesProblems } from '../../domain/structuredProperties.js';
import { typedValueOfInput } from '../../services/propertyService.js';
import type { PropertyValuesInput } from '../../services/valueService.js';

const INPUT_NAMES: Readonly<Record<string, string>> = { propertyUrn: 'structuredPropertyUrn', string: 'stringValue', double: 'numberValue' };

function inputPath(path: readonly PathSegment[]): PathSegment[] {
  const [head, ...rest] = path;
  return [head === 'properties' ? 'structuredPropertyInputParams' : head!, ...rest.map((s) => (typeof s === 'string' ? (INPUT_NAMES[s] ?? s) : s))];
}

export function checkUpsertInput(params: readonly PropertyValuesInput[]): void {
  const properties = params.map((p, i) => ({
    propertyUrn: p.structuredPropertyUrn,
    values: p.values.map((v, j) => typedValueOfInput(v, `structuredPropertyInputParams[${i}].values[${j}]`)),
  }));
  const { problems } = structuredPropertiesProblems({ properties });
  if (problems.length > 0) throwProblems(problems.map((p) => ({ path: inputPath(p.path), reason: p.reason })), 'input');
}

/**
 * Runs a write naming the given properties; a refusal about one of them (its values,
 * its definition, its soft delete: the error's propertyUrn) is told at that property's
 * input path.
 */
export async function atInputPaths<T>(propertyUrns: readonly string[], listName: string, field: (i: number, err: ServiceError) => string, write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (err) {
    if (!(err instanceof ServiceError) || err.propertyUrn === undefined) throw err;
    const i = propertyUrns.indexOf(err.propertyUrn);
    if (i < 0) throw err;
    const path = `${listName}[${i}]${field(i, err)}`;
    throw relocated(err, path, `${path}: ${err.message}`);
  }
}
