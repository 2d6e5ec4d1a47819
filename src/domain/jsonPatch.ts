/**
 * JSON Patch (RFC 6902) over an aspect, with DataHub's keyed arrays: an array whose
 * elements are identified by key fields is addressed by those keys instead of by index,
 * one path segment per key field (`/properties/<propertyUrn>/<attribution source>`). A
 * path naming fewer keys than the array has addresses the group of elements sharing
 * them (`/properties/<propertyUrn>`). The keys come from the patch's `arrayPrimaryKeys`
 * or, for arrays it does not name, from the aspect's own (the registry's patchKeys), as
 * DataHub's aspect templates do. A key field inside a nested object is written with
 * DataHub's separator U+241F (`attribution␟source`); an absent key is the empty string.
 *
 * `add` on a whole key inserts the element or replaces it in place; on a group it
 * replaces the group with the value (an element, as older clients send it, or a list of
 * them). `remove` deletes the element or the group; a missing key is a no-op, so
 * retries are harmless.
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
  /** Per array name, its key fields as the client sent them (`["propertyUrn", "attribution␟source"]`). */
  arrayPrimaryKeys: Record<string, string[]>;
}

/**
 * How an array's elements are identified: one key path per key field (`['attribution',
 * 'source']`; `*` stands for the only member of an object, such as an allowed value's
  * `{"string": ...}`); no key fields for an array of strings, identified by themselves.
 */
export interface KeyedArray {
  readonly keys: readonly (readonly string[])[];
}

export type KeyedArrays = Readonly<Record<string, KeyedArray>>;

/** DataHub's separator between the parts of a nested key field. */
export const KEY_PATH_SEPARATOR = '\u241F';

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

/** The keyed arrays a patch works with: those it names, over the aspect's own. */
function keyedArraysOf(document: PatchDocument, aspectKeys: KeyedArrays): KeyedArrays {
  const out: Record<string, KeyedArray> = { ...aspectKeys };
  for (const [field, keys] of Object.entries(document.arrayPrimaryKeys)) out[field] = { keys: keys.map((k) => k.split(KEY_PATH_SEPARATOR)) };
  return out;
}

function decodeSegment(s: string): string {
  return s.replace(/~1/g, '/').replace(/~0/g, '~');
}

type Container = Record<string, unknown> | unknown[];

function isObject(x: unknown): x is Record<string, unknown> {
  return !!x && typeof x === 'object' && !Array.isArray(x);
}

/**
 * What a patch's added elements start a missing nested key field's parent with: a key
 * `attribution␟source` named only by the path becomes the element's
 * `attribution: {...fill.attribution, source}` (DataHub's MetadataAttribution needs its time
 * and actor: the write's own).
 */
export type KeyParentFill = Readonly<Record<string, Readonly<Record<string, unknown>>>>;

/**
 * Applies the patch to a copy of `doc`; the original is never modified, so a failing
 * operation leaves nothing half-applied. `aspectKeys`: the aspect's own keyed arrays.
 */
export function applyPatch<T>(doc: T, document: PatchDocument, aspectKeys: KeyedArrays = {}, fill: KeyParentFill = {}): T {
  let root: unknown = structuredClone(doc);
  const keyed = keyedArraysOf(document, aspectKeys);
  document.patch.forEach((operation, i) => {
    root = applyOne(root, operation, keyed, `patch[${i}]`, fill);
  });
  return root as T;
}

type Fail = (reason: string) => never;

function applyOne(root: unknown, operation: PatchOperation, keyed: KeyedArrays, field: string, fill: KeyParentFill): unknown {
  const fail: Fail = (reason) => {
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
  for (let s = 0; s < segments.length; ) {
    const spec = Array.isArray(container) ? keyed[containerName] : undefined;
    if (spec) {
      const levels = Math.max(1, spec.keys.length);
      const given = segments.slice(s, s + levels);
      if (s + given.length === segments.length) {
        applyKeyed(container as unknown[], spec, given, operation, fail, fill);
        return root;
      }
      const element = (container as unknown[]).find((e) => matchesKeys(e, spec, given));
      if (element === undefined) fail(`no element with ${describeKeys(spec, given)}`);
      container = element;
      containerName = '';
      s += levels;
      continue;
    }
    // An aspect's keyed array that is absent is an empty one (DataHub's templates start from it).
    if (isObject(container) && keyed[segments[s]!] && !Object.hasOwn(container, segments[s]!) && s < segments.length - 1) container[segments[s]!] = [];
    if (s === segments.length - 1) {
      applyAt(container, segments[s]!, operation, fail);
      return root;
    }
    const next = child(container, segments[s]!);
    if (next === undefined) fail(`path segment ${segments[s]} does not exist`);
    containerName = Array.isArray(container) ? '' : segments[s]!;
    container = next;
    s++;
  }
  return root;
}

/** An operation on a member of an object or an index of an array (RFC 6902). */
function applyAt(container: unknown, last: string, operation: PatchOperation, fail: Fail): void {
  if (!container || typeof container !== 'object') fail('parent is not an object or array');
  const target = container as Container;
  if (Array.isArray(target)) {
    const index = last === '-' ? target.length : /^(0|[1-9]\d*)$/.test(last) ? Number(last) : -1;
    if (index < 0) fail(`${last} is not an array index`);
    switch (operation.op) {
      case 'add':
        if (index > target.length) fail('index out of range');
        target.splice(index, 0, operation.value);
        return;
      case 'replace':
        if (index >= target.length) fail('index out of range');
        target[index] = operation.value;
        return;
      case 'remove':
        if (index >= target.length) fail('index out of range');
        target.splice(index, 1);
        return;
      case 'test':
        if (!deepEqual(target[index], operation.value)) fail('test failed');
        return;
    }
  }
  const obj = target as Record<string, unknown>;
  switch (operation.op) {
    case 'add':
      obj[last] = operation.value;
      return;
    case 'replace':
      if (!Object.hasOwn(obj, last)) fail(`${last} does not exist`);
      obj[last] = operation.value;
      return;
    case 'remove':
      if (!Object.hasOwn(obj, last)) fail(`${last} does not exist`);
      delete obj[last];
      return;
    case 'test':
      if (!deepEqual(obj[last], operation.value)) fail('test failed');
      return;
  }
}

/** The key of an element at one level: its key field's value (the element itself in an array of strings). */
function keyOf(element: unknown, spec: KeyedArray, level: number): unknown {
  if (spec.keys.length === 0) return element;
  let node: unknown = element;
  for (const part of spec.keys[level]!) {
    if (!isObject(node)) return undefined;
    node = part === '*' ? Object.values(node)[0] : node[part];
  }
  return node;
}

/** Whether an element's key equals a path segment: an absent key is '', numbers compare as numbers (`30` is `30.0`). */
function keyEquals(actual: unknown, given: string): boolean {
  if (actual === undefined || actual === null) return given === '';
  if (typeof actual === 'number') return given.trim() !== '' && Number(given) === actual;
  return String(actual) === given;
}

function matchesKeys(element: unknown, spec: KeyedArray, given: readonly string[]): boolean {
  return given.every((key, level) => keyEquals(keyOf(element, spec, level), key));
}

function describeKeys(spec: KeyedArray, given: readonly string[]): string {
  if (spec.keys.length === 0) return `value ${given[0]}`;
  return given.map((key, level) => `${spec.keys[level]!.join('.')} ${key}`).join(' and ');
}

/**
 * An element as an add stores it: in an array of objects, an object whose key fields the
 * path names are filled in when absent and must agree when present. A nested key field
 * (`attribution␟source`) is filled only for a key that is not empty, its parent started
 * from `fill`: so that an entry a client's path attributes to a source is found by that
 * source next time, and replaced rather than listed twice.
 */
function elementOf(value: unknown, spec: KeyedArray, given: readonly string[], fail: Fail, fill: KeyParentFill): unknown {
  if (spec.keys.length === 0) return value;
  if (!isObject(value)) fail(`value must be an object keyed by ${spec.keys.map((k) => k.join('.')).join(' and ')}`);
  const element = { ...(value as Record<string, unknown>) };
  given.forEach((key, level) => {
    const path = spec.keys[level]!;
    // `*` (an allowed value's only member) names no field to fill.
    if (path.includes('*')) return;
    if (path.length === 1) {
      const name = path[0]!;
      if (element[name] === undefined) element[name] = key;
      else if (!keyEquals(element[name], key)) fail(`value.${name} must equal the path key ${key}`);
      return;
    }
    if (key === '' || path.length !== 2) return;
    const [parent, name] = path as [string, string];
    const holder = element[parent];
    if (holder === undefined || holder === null) element[parent] = { ...(fill[parent] ?? {}), [name]: key };
    else if (!isObject(holder)) fail(`value.${parent} must be an object`);
    else if (holder[name] === undefined) element[parent] = { ...holder, [name]: key };
    else if (!keyEquals(holder[name], key)) fail(`value.${parent}.${name} must equal the path key ${key}`);
  });
  return element;
}

/** An operation on the element (all keys given) or the group (some) of a keyed array. */
function applyKeyed(array: unknown[], spec: KeyedArray, given: readonly string[], operation: PatchOperation, fail: Fail, fill: KeyParentFill): void {
  const levels = Math.max(1, spec.keys.length);
  const whole = given.length === levels;
  const matching = array.map((e, i) => (matchesKeys(e, spec, given) ? i : -1)).filter((i) => i >= 0);
  switch (operation.op) {
    case 'add':
    case 'replace': {
      if (operation.op === 'replace' && matching.length === 0) fail(`no element with ${describeKeys(spec, given)}`);
      const value = operation.value;
      const elements = !whole && Array.isArray(value) ? value.map((v) => elementOf(v, spec, given, fail, fill)) : [elementOf(value, spec, given, fail, fill)];
      const at = matching.length > 0 ? matching[0]! : array.length;
      for (const i of [...matching].reverse()) array.splice(i, 1);
      array.splice(Math.min(at, array.length), 0, ...elements);
      return;
    }
    case 'remove':
      for (const i of [...matching].reverse()) array.splice(i, 1);
      return;
    case 'test': {
      const found = whole ? array[matching[0] ?? -1] : matching.map((i) => array[i]);
      if (matching.length === 0 || !deepEqual(found, operation.value)) fail('test failed');
      return;
    }
  }
}

function child(container: unknown, segment: string): unknown {
  if (Array.isArray(container)) return /^(0|[1-9]\d*)$/.test(segment) ? container[Number(segment)] : undefined;
  if (isObject(container)) return Object.prototype.hasOwnProperty.call(container, segment) ? container[segment] : undefined;
  return undefined;
}
