/**
 * A JSON parser that keeps the difference between `30` and `30.0`, which JSON.parse
 * erases. DataHub's smoke-test runner compares value types strictly (Python int vs
 * float), so the conformance replay must too.
 */
export class JsonNumber {
  constructor(readonly text: string) {}
  get isFloat(): boolean {
    return /[.eE]/.test(this.text);
  }
  get value(): number {
    return Number(this.text);
  }
}

export type StrictJson = null | boolean | string | JsonNumber | StrictJson[] | { [key: string]: StrictJson };

export function parseStrictJson(text: string): StrictJson {
  let i = 0;
  const ws = () => {
    while (i < text.length && /\s/.test(text[i]!)) i++;
  };
  const fail = (msg: string): never => {
    throw new SyntaxError(`${msg} at ${i}`);
  };
  const value = (): StrictJson => {
    ws();
    const c = text[i];
    if (c === '{') {
      i++;
      const obj: { [key: string]: StrictJson } = {};
      ws();
      if (text[i] === '}') {
        i++;
        return obj;
      }
      for (;;) {
        ws();
        const key = string();
        ws();
        if (text[i++] !== ':') fail('expected :');
        obj[key] = value();
        ws();
        if (text[i] === ',') i++;
        else if (text[i] === '}') {
          i++;
          return obj;
        } else fail('expected , or }');
      }
    }
    if (c === '[') {
      i++;
      const arr: StrictJson[] = [];
      ws();
      if (text[i] === ']') {
        i++;
        return arr;
      }
      for (;;) {
        arr.push(value());
        ws();
        if (text[i] === ',') i++;
        else if (text[i] === ']') {
          i++;
          return arr;
        } else fail('expected , or ]');
      }
    }
    if (c === '"') return string();
    if (text.startsWith('true', i)) {
      i += 4;
      return true;
    }
    if (text.startsWith('false', i)) {
      i += 5;
      return false;
    }
    if (text.startsWith('null', i)) {
      i += 4;
      return null;
    }
    const m = /^-?\d+(\.\d+)?([eE][+-]?\d+)?/.exec(text.slice(i));
    if (!m) return fail('unexpected token');
    i += m[0].length;
    return new JsonNumber(m[0]);
  };
  const string = (): string => {
    if (text[i] !== '"') fail('expected string');
    const start = i;
    i++;
    while (text[i] !== '"') {
      if (text[i] === '\\') i++;
      i++;
      if (i >= text.length) fail('unterminated string');
    }
    i++;
    return JSON.parse(text.slice(start, i)) as string;
  };
  const result = value();
  ws();
  if (i !== text.length) fail('trailing characters');
  return result;
}

/**
 * Differences between expected and actual, DataHub-runner style: same keys at every
 * level, list order ignored, number types strict, paths matching `exclude` skipped.
 */
export function diffStrict(expected: StrictJson, actual: StrictJson, exclude: RegExp[] = [], path = 'root'): string[] {
  if (exclude.some((r) => r.test(path))) return [];
  if (expected instanceof JsonNumber || actual instanceof JsonNumber) {
    if (!(expected instanceof JsonNumber && actual instanceof JsonNumber)) return [`${path}: expected ${show(expected)}, got ${show(actual)}`];
    if (expected.isFloat !== actual.isFloat) return [`${path}: type differs, expected ${expected.text}, got ${actual.text}`];
    return expected.value === actual.value ? [] : [`${path}: expected ${expected.text}, got ${actual.text}`];
  }
  if (Array.isArray(expected)) {
    if (!Array.isArray(actual)) return [`${path}: expected a list, got ${show(actual)}`];
    if (expected.length !== actual.length) return [`${path}: expected ${expected.length} items, got ${actual.length}: ${show(actual)}`];
    const unused = actual.map((_, k) => k);
    for (const [k, e] of expected.entries()) {
      const match = unused.findIndex((j) => diffStrict(e, actual[j]!, exclude, `${path}[${k}]`).length === 0);
      if (match < 0) return [`${path}: no item matches ${show(e)} in ${show(actual)}`];
      unused.splice(match, 1);
    }
    return [];
  }
  if (expected && typeof expected === 'object') {
    if (!actual || typeof actual !== 'object' || Array.isArray(actual) || actual instanceof JsonNumber) {
      return [`${path}: expected an object, got ${show(actual)}`];
    }
    const out: string[] = [];
    for (const key of new Set([...Object.keys(expected), ...Object.keys(actual)])) {
      const child = `${path}['${key}']`;
      if (exclude.some((r) => r.test(child))) continue;
      if (!(key in expected)) out.push(`${child}: unexpected key`);
      else if (!(key in actual)) out.push(`${child}: missing`);
      else out.push(...diffStrict(expected[key]!, actual[key]!, exclude, child));
    }
    return out;
  }
  return expected === actual ? [] : [`${path}: expected ${show(expected)}, got ${show(actual)}`];
}

function show(v: StrictJson | undefined): string {
  return JSON.stringify(v, (_k, x) => (x instanceof JsonNumber ? x.text : x));
}
