/**
 * JSON Patch (RFC 6902) over an aspect, with DataHub's `arrayPrimaryKeys` extension:
 * an array named in it is addressed by its elements' key (`/properties/<propertyUrn>`)
 * instead of by index. `add` on a keyed element inserts it or replaces it in place;
 * `remove` deletes it (a missing key is a no-op, so retries are harmless).
 */
import { ValidationError } from './errors.js';
import { INPUT_LIMITS, nestingDepth } from './inputLimits.js';
import { jsonEqual as deepEqual } from './json.js';
import { MAX_PATCH_OPERATIONS, patchDocumentShape } from './shapes/jsonPatch.js';
import { parseShape, throwProblems, type Problem } from './shapes/shape.js';

export type PatchOperation =
  | { op: 'add' | 'replace' | 'test'; path: string; value: unknown }
  | { op: 'remove'; path: string };

export interface PatchDocument {
  patch: PatchOperation[];
  arrayPrimaryKeys: Record<string, string[]>;
}

export { MAX_PATCH_OPERATIONS };

/** Accepts `{patch: [...], arrayPrimaryKeys?: {...}}` or a bare RFC 6902 array. */
export function parsePatchDocument(input: unknown): PatchDocument {
  const body = parseShape(patchDocumentShape, Array.isArray(input) ? { patch: input } : input, 'patch body');
  // Each operation may nest the aspect at most as deep as a request body may nest.
  const tooDeep: Problem[] = [];
  body.patch.forEach((o, i) => {
    const depth = (o.path === '' ? 0 : o.path.split('/').length - 1) + nestingDepth(o.value);
    if (depth > INPUT_LIMITS.nestingDepth) {
      tooDeep.push({ path: ['patch', i], reason: `would nest the aspect deeper than the limit of ${INPUT_LIMITS.nestingDepth} levels of arrays and objects; flatten the value` });
    }
  });
  if (tooDeep.length > 0) throwProblems(tooDeep, 'patch body');
  return {
    patch: body.patch.map((o): PatchOperation => (o.op === 'remove' ? { op: 'remove', path: o.path } : { op: o.op, path: o.path, value: o.value })),
    arrayPrimaryKeys: body.arrayPrimaryKeys ?? {},
  };
}

function decodeSegment(s: string): string {
  return s.replace(/~1/g, '/').replace(/~0/g, '~');
}

type Container = Record<string, unknown> | unknown[];

function isObject(x: unknown): x is Record<string, unknown> {
  return !!x && typeof x === 'object' && !Array.isArray(x);
}

/**
 * Applies the patch to a copy of `doc`; the original is never modified, so a failing
 * operation leaves nothing half-applied.
 */
export function applyPatch<T>(doc: T, document: PatchDocument): T {
  let root: unknown = structuredClone(doc);
  document.patch.forEach((operation, i) => {
    root = applyOne(root, operation, document.arrayPrimaryKeys, `patch[${i}]`);
  });
  return root as T;
}

function applyOne(root: unknown, operation: PatchOperation, keys: Record<string, string[]>, field: string): unknown {
  const fail = (reason: string): never => {
    throw new ValidationError(`${field} (${operation.op} ${operation.path}): ${reason}`, `${field}.path`);
  };
  if (operation.path === '') {
    if (operation.op === 'remove') fail('cannot remove the whole aspect');
    if (operation.op === 'test') {
      if (!deepEqual(root, (operation as { value: unknown }).value)) fail('test failed');
      return root;
    }
    return structuredClone((operation as { value: unknown }).value);
  }
  const segments = operation.path.slice(1).split('/').map(decodeSegment);
  if (segments.some((seg) => seg === '__proto__' || seg === 'constructor' || seg === 'prototype')) fail('reserved path segment');
  let container: unknown = root;
  let containerName = '';
  for (let s = 0; s < segments.length - 1; s++) {
    const next = child(container, segments[s]!, containerName, keys);
    if (next === undefined) fail(`path segment ${segments[s]} does not exist`);
    containerName = Array.isArray(container) ? '' : segments[s]!;
    container = next;
  }
  const last = segments[segments.length - 1]!;
  if (!container || typeof container !== 'object') fail('parent is not an object or array');
  const target = container as Container;
  const keyField = Array.isArray(target) ? keys[containerName]?.[0] : undefined;

  if (Array.isArray(target) && keyField) {
    const index = target.findIndex((e) => isObject(e) && e[keyField] === last);
    switch (operation.op) {
      case 'add':
      case 'replace': {
        const value = operation.value;
        if (!isObject(value)) fail(`value must be an object keyed by ${keyField}`);
        const element = { ...(value as Record<string, unknown>) };
        if (element[keyField] === undefined) element[keyField] = last;
        if (element[keyField] !== last) fail(`value.${keyField} must equal the path key ${last}`);
        if (index >= 0) target[index] = element;
        else if (operation.op === 'replace') fail(`no element with ${keyField} ${last}`);
        else target.push(element);
        return root;
      }
      case 'remove':
        if (index >= 0) target.splice(index, 1);
        return root;
      case 'test':
        if (index < 0 || !deepEqual(target[index], operation.value)) fail('test failed');
        return root;
    }
  }
  if (Array.isArray(target)) {
    const index = last === '-' ? target.length : /^(0|[1-9]\d*)$/.test(last) ? Number(last) : -1;
    if (index < 0) fail(`${last} is not an array index`);
    switch (operation.op) {
      case 'add':
        if (index > target.length) fail('index out of range');
        target.splice(index, 0, operation.value);
        return root;
      case 'replace':
        if (index >= target.length) fail('index out of range');
        target[index] = operation.value;
        return root;
      case 'remove':
        if (index >= target.length) fail('index out of range');
        target.splice(index, 1);
        return root;
      case 'test':
        if (!deepEqual(target[index], operation.value)) fail('test failed');
        return root;
    }
  }
  const obj = target as Record<string, unknown>;
  switch (operation.op) {
    case 'add':
      obj[last] = operation.value;
      return root;
    case 'replace':
      if (!Object.hasOwn(obj, last)) fail(`${last} does not exist`);
      obj[last] = operation.value;
      return root;
    case 'remove':
      if (!Object.hasOwn(obj, last)) fail(`${last} does not exist`);
      delete obj[last];
      return root;
    case 'test':
      if (!deepEqual(obj[last], operation.value)) fail('test failed');
      return root;
  }
}

function child(container: unknown, segment: string, containerName: string, keys: Record<string, string[]>): unknown {
  if (Array.isArray(container)) {
    const keyField = keys[containerName]?.[0];
    if (keyField) return container.find((e) => isObject(e) && e[keyField] === segment);
    return /^(0|[1-9]\d*)$/.test(segment) ? container[Number(segment)] : undefined;
  }
  if (isObject(container)) return Object.prototype.hasOwnProperty.call(container, segment) ? container[segment] : undefined;
  return undefined;
}
