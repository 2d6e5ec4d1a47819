/**
 * JSON Patch (RFC 6902) over an aspect, with DataHub's `arrayPrimaryKeys` extension:
 * an array named in it is addressed by its elements' key (`/properties/<propertyUrn>`)
 * instead of by index. `add` on a keyed element inserts it or replaces it in place;
 * `remove` deletes it (a missing key is a no-op, so retries are harmless).
 */
import { ValidationError } from './errors.js';
import { jsonEqual as deepEqual } from './json.js';

export type PatchOperation =
  | { op: 'add' | 'replace' | 'test'; path: string; value: unknown }
  | { op: 'remove'; path: string };

export interface PatchDocument {
  patch: PatchOperation[];
  arrayPrimaryKeys: Record<string, string[]>;
}

const OPS = new Set(['add', 'remove', 'replace', 'test']);
export const MAX_PATCH_OPERATIONS = 1000;

/** Accepts `{patch: [...], arrayPrimaryKeys?: {...}}` or a bare RFC 6902 array. */
export function parsePatchDocument(input: unknown): PatchDocument {
  const body = Array.isArray(input) ? { patch: input } : input;
  if (!body || typeof body !== 'object') throw new ValidationError('patch body must be a JSON object with a "patch" list', 'patch');
  const { patch, arrayPrimaryKeys, ...rest } = body as Record<string, unknown>;
  const extra = Object.keys(rest).filter((k) => k !== 'forceGenericPatch');
  if (extra.length > 0) throw new ValidationError(`Unknown field(s) in patch body: ${extra.join(', ')}`, extra[0]);
  if (!Array.isArray(patch)) throw new ValidationError('patch must be a list of operations', 'patch');
  if (patch.length > MAX_PATCH_OPERATIONS) throw new ValidationError(`patch has more than the limit of ${MAX_PATCH_OPERATIONS} operations`, 'patch');
  const ops = patch.map((raw, i): PatchOperation => {
    const field = `patch[${i}]`;
    if (!raw || typeof raw !== 'object' || Array.isArray(raw)) throw new ValidationError(`${field} must be an object`, field);
    const o = raw as Record<string, unknown>;
    if (typeof o.op !== 'string' || !OPS.has(o.op)) {
      throw new ValidationError(`${field}.op must be one of add, remove, replace, test`, `${field}.op`);
    }
    if (typeof o.path !== 'string' || (o.path !== '' && !o.path.startsWith('/'))) {
      throw new ValidationError(`${field}.path must be a JSON pointer such as /properties/<urn>`, `${field}.path`);
    }
    if (o.op === 'remove') return { op: 'remove', path: o.path };
    if (!('value' in o)) throw new ValidationError(`${field}.value is required for ${o.op}`, `${field}.value`);
    return { op: o.op as 'add' | 'replace' | 'test', path: o.path, value: o.value };
  });
  const keys: Record<string, string[]> = {};
  if (arrayPrimaryKeys !== undefined && arrayPrimaryKeys !== null) {
    if (typeof arrayPrimaryKeys !== 'object' || Array.isArray(arrayPrimaryKeys)) {
      throw new ValidationError('arrayPrimaryKeys must be an object of array name to key fields', 'arrayPrimaryKeys');
    }
    for (const [name, fields] of Object.entries(arrayPrimaryKeys)) {
      if (!Array.isArray(fields) || fields.length !== 1 || typeof fields[0] !== 'string') {
        throw new ValidationError(`arrayPrimaryKeys.${name} must name exactly one key field`, `arrayPrimaryKeys.${name}`);
      }
      keys[name] = fields as string[];
    }
  }
  return { patch: ops, arrayPrimaryKeys: keys };
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
