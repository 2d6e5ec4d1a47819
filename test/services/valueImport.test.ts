/**
 * Value imports at the service (docs/contract.md §3, "Value imports"): every row checked
 * in one pass, every problem answered at once (issue #39: the fifth bad row, an unknown
 * URN, showed up only after the other four were fixed); a dry run lists every change and
 * writes nothing; a write with any problem is refused whole; a clean one writes every
 * row in one write, keeping the properties the file does not name.
 */
import { ForbiddenError, ValidationError } from '../../src/domain/errors.js';
import { ADMIN, READER, startTestRuntime, WRITER, type TestRuntime } from '../support/runtime.js';
import { datasetUrn, propertyUrn, rejection, serviceCatalog, type ServiceCatalog } from '../support/serviceCatalog.js';

let runtime: TestRuntime;
let catalog: ServiceCatalog;
let seq = 0;
const unique = (prefix: string) => `${prefix}${++seq}`;

beforeAll(async () => {
  runtime = await startTestRuntime();
  catalog = serviceCatalog(runtime);
});
afterAll(async () => {
  await runtime?.stop();
});

const imports = () => runtime.services.valueImports;

interface Setup {
  tier: string;
  days: string;
  other: string;
  datasets: string[];
}

async function setup(count = 6): Promise<Setup> {
  const p = unique('io.imp.');
  const tier = await catalog.define(`${p}.tier`, { allowedValues: [{ value: { string: 'gold' } }, { value: { string: 'silver' } }] });
  const days = await catalog.define(`${p}.days`, { valueType: 'number' });
  const other = await catalog.define(`${p}.other`);
  const datasets = Array.from({ length: count }, (_, i) => datasetUrn(`${p}.t${i}`));
  await catalog.createDatasets(datasets);
  for (const d of datasets) await catalog.setValues(d, { [`${p}.other`]: ['kept'], [`${p}.tier`]: ['silver'] });
  return { tier, days, other, datasets };
}

const row = (line: number, urn: string, ...cells: string[][]) => ({ line, urn, cells });

describe('importValues', () => {
  test('a dry run reports every problem of every row in one pass, with the line, the URN and the column; nothing is written', async () => {
    const s = await setup();
    const missing = datasetUrn(unique('io.imp.missing'));
    const answer = await imports().importValues(WRITER, {
      columns: [s.tier, s.days],
      dryRun: true,
      rows: [
        row(2, s.datasets[0]!, ['gold'], ['365']),
        row(3, s.datasets[1]!, ['platinum'], ['30']),
        row(4, s.datasets[2]!, ['gold'], ['a year']),
        row(5, 'shop.orders', ['gold'], ['1']),
        row(6, s.datasets[3]!, ['gold', 'silver'], ['1']),
        row(7, missing, ['gold'], ['1']),
        row(8, s.datasets[0]!, ['silver'], ['2']),
      ],
    });
    expect(answer.result.written).toBe(false);
    expect(answer.result.problems.map((p) => [p.line, p.column, p.reason])).toEqual([
      [3, s.tier, expect.stringMatching(/value: \{string=platinum\} should be one of/)],
      [4, s.days, expect.stringMatching(/value: \{string=a year\} should be a number/)],
      [5, null, expect.stringMatching(/^'shop\.orders' is not a valid urn/)],
      [6, s.tier, expect.stringMatching(/has cardinality SINGLE, but 2 values were given/)],
      [7, null, 'does not exist; values are set on existing entities only'],
      [8, null, 'is on line 2 already; give each entity one row'],
    ]);
    expect(answer.result.problems[4]!.urn).toBe(missing);
    // The one good row is still previewed, value by value.
    expect(answer.result.changes).toEqual([
      { line: 2, urn: s.datasets[0], change: { propertyUrn: s.tier, before: [{ string: 'silver' }], after: [{ string: 'gold' }] } },
      { line: 2, urn: s.datasets[0], change: { propertyUrn: s.days, before: [], after: [{ double: 365 }] } },
    ]);
    expect(await catalog.valuesOf(s.datasets[0]!)).toContainEqual({ propertyUrn: s.tier, values: [{ string: 'silver' }] });
  });

  test('columns that do not exist or are soft deleted are problems of the header', async () => {
    const s = await setup(1);
    const gone = propertyUrn(unique('io.imp.gone'));
    const soft = await catalog.define(unique('io.imp.soft'));
    await catalog.softDelete(soft.slice('urn:li:structuredProperty:'.length));
    const answer = await imports().importValues(WRITER, { columns: [s.tier, gone, soft], dryRun: true, rows: [row(2, s.datasets[0]!, ['gold'], ['x'], ['y'])] });
    expect(answer.result.problems).toEqual([
      { line: null, urn: null, column: gone, reason: `structured property ${gone} does not exist` },
      { line: null, urn: null, column: soft, reason: `structured property ${soft} is soft deleted; restore it first` },
    ]);
  });

  test('a write with any problem is a ValidationError naming them, and writes no row', async () => {
    const s = await setup(2);
    const err = await rejection(
      imports().importValues(WRITER, { columns: [s.tier], dryRun: false, rows: [row(2, s.datasets[0]!, ['gold']), row(3, s.datasets[1]!, ['bronze'])] }),
      ValidationError,
    );
    expect(err.message).toMatch(/^1 problem in the import, nothing was written \(a dry run lists them all\): line 3: .*bronze/);
    expect(await catalog.valuesOf(s.datasets[0]!)).toContainEqual({ propertyUrn: s.tier, values: [{ string: 'silver' }] });
  });

  test('a clean import writes every row: each column set as its cell says, an empty cell removes, other properties kept', async () => {
    const s = await setup(3);
    const answer = await imports().importValues(WRITER, {
      columns: [s.tier, s.days],
      dryRun: false,
      rows: [row(2, s.datasets[0]!, ['gold'], ['365']), row(3, s.datasets[1]!, [], ['30']), row(4, s.datasets[2]!, ['silver'], [])],
    });
    expect(answer.result).toMatchObject({ written: true, rows: 3, changed: 2, unchanged: 1, problems: [] });
    expect(await catalog.valuesOf(s.datasets[0]!)).toEqual([
      { propertyUrn: s.other, values: [{ string: 'kept' }] },
      { propertyUrn: s.tier, values: [{ string: 'gold' }] },
      { propertyUrn: s.days, values: [{ double: 365 }] },
    ]);
    expect(await catalog.valuesOf(s.datasets[1]!)).toEqual([
      { propertyUrn: s.other, values: [{ string: 'kept' }] },
      { propertyUrn: s.days, values: [{ double: 30 }] },
    ]);
    expect(await catalog.valuesOf(s.datasets[2]!)).toEqual([
      { propertyUrn: s.other, values: [{ string: 'kept' }] },
      { propertyUrn: s.tier, values: [{ string: 'silver' }] },
    ]);
    const history = await runtime.services.history.valueHistory(ADMIN, { urn: s.datasets[0]!, property: null, count: 1, scrollId: null });
    expect(history.entries[0]).toMatchObject({ actor: WRITER.actor });
  });

  test('more rows than the limit are refused before anything is read; a read token may not import', async () => {
    const s = await setup(1);
    const many = Array.from({ length: 10_001 }, (_, i) => row(i + 2, s.datasets[0]!, ['gold']));
    const err = await rejection(imports().importValues(WRITER, { columns: [s.tier], dryRun: true, rows: many }), ValidationError);
    expect(err.message).toMatch(/more than the limit of 10000 in one import; split the file/);
    const refused = await rejection((async () => imports().importValues(READER, { columns: [s.tier], dryRun: true, rows: [row(2, s.datasets[0]!, ['gold'])] }))(), ForbiddenError);
    expect(refused.message).toMatch(/needs a token with write scope/);
  });
});
