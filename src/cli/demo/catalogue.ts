/**
 * The demo catalogue of `propgraph demo load`: a small, realistic company catalogue
 * (datasets with schema fields across five platforms, a dozen structured properties
 * covering every value type and both cardinalities, two metadata tests), generated from
 * a fixed seed so every load writes exactly the same entities and a second load changes
 * nothing. `marketing.invoices` on BigQuery is pinned: the README evaluates it and shows
 * it failing both tests.
 */
import type { PropertyDefinition } from '../../domain/propertyDefinition.js';
import { seededRandom } from './seededRandom.js';

export interface DemoEntity {
  readonly urn: string;
  /** Aspect name to value, in the REST v3 (unwrapped) form. */
  readonly aspects: Record<string, unknown>;
}

export interface DemoCatalogue {
  readonly properties: DemoEntity[];
  readonly datasets: DemoEntity[];
  /** Schema fields that hold structured property values. */
  readonly fields: DemoEntity[];
  readonly tests: DemoEntity[];
  /** Schema fields listed in the datasets' schemaMetadata (with or without values). */
  readonly schemaFieldCount: number;
}

type ValueType = 'string' | 'rich_text' | 'number' | 'date' | 'urn';
type Value = { string: string } | { double: number };

const P = (name: string) => `urn:li:structuredProperty:${name}`;
const DATASET = 'urn:li:entityType:svc.dataset';
const SCHEMA_FIELD = 'urn:li:entityType:svc.schemaField';

interface PropertySpec {
  readonly name: string;
  readonly type: ValueType;
  readonly multiple?: boolean;
  readonly displayName: string;
  readonly description: string;
  readonly entityTypes?: readonly string[];
  readonly allowed?: ReadonlyArray<readonly [string | number, string]>;
  readonly urnTypes?: readonly string[];
  /** Offered as a default facet (structuredPropertySettings.showInSearchFilters). */
  readonly facet?: boolean;
}

export const DEMO_PROPERTIES: readonly PropertySpec[] = [
  { name: 'acme.governance.tier', type: 'string', displayName: 'Tier', description: 'How critical the data is to the business', facet: true,
    allowed: [['gold', 'Business critical: monitored, owned, documented'], ['silver', 'Used in regular reporting'], ['bronze', 'Raw or exploratory data']] },
  { name: 'acme.governance.domain', type: 'string', displayName: 'Business domain', description: 'The part of the business that owns the data', facet: true,
    allowed: [['marketing', 'Campaigns, leads, attribution'], ['finance', 'Invoices, payments, ledgers'], ['sales', 'Orders, accounts, pipeline'], ['product', 'Usage and events'], ['logistics', 'Shipments and stock'], ['people', 'Employees and hiring']] },
  { name: 'acme.governance.labels', type: 'string', multiple: true, displayName: 'Labels', description: 'Free labels for finding data' },
  { name: 'acme.ownership.team', type: 'urn', displayName: 'Owning team', description: 'The team answerable for the data', urnTypes: ['urn:li:entityType:svc.corpGroup'], facet: true },
  { name: 'acme.ownership.stewards', type: 'urn', multiple: true, displayName: 'Data stewards', description: 'People to ask about the data', urnTypes: ['urn:li:entityType:svc.corpuser'] },
  { name: 'acme.privacy.retentionDays', type: 'number', displayName: 'Retention (days)', description: 'How long records are kept', facet: true,
    allowed: [[30, 'Ephemeral data, may contain personal data'], [90, 'Monthly reporting'], [365, 'Yearly reporting'], [1825, 'Kept five years for audits']] },
  { name: 'acme.quality.freshnessHours', type: 'number', displayName: 'Freshness SLA (hours)', description: 'Largest acceptable delay between source and table' },
  { name: 'acme.usage.peakHours', type: 'number', multiple: true, displayName: 'Peak hours', description: 'Hours of the day (UTC) when the table is read most' },
  { name: 'acme.lifecycle.deprecationDate', type: 'date', displayName: 'Deprecation date', description: 'After this date the data is no longer maintained', entityTypes: [DATASET, SCHEMA_FIELD] },
  { name: 'acme.compliance.auditDates', type: 'date', multiple: true, displayName: 'Audit dates', description: 'Dates of compliance audits that covered the data' },
  { name: 'acme.docs.summary', type: 'rich_text', displayName: 'Summary', description: 'What the data is for, in a few lines of Markdown' },
  { name: 'acme.docs.caveats', type: 'rich_text', multiple: true, displayName: 'Caveats', description: 'Known pitfalls when using the data' },
  { name: 'acme.privacy.classification', type: 'string', displayName: 'Classification', description: 'Sensitivity of a field', entityTypes: [SCHEMA_FIELD], facet: true,
    allowed: [['public', 'May be shared outside the company'], ['internal', 'For employees'], ['confidential', 'Need to know'], ['pii', 'Personal data: access is logged']] },
];

const TEAM_OWNED_TEST = 'urn:li:test:acme-production-data-has-an-owner';
const RETENTION_TEST = 'urn:li:test:acme-retention-is-set';

const DOMAINS: Record<string, readonly string[]> = {
  marketing: ['invoices', 'campaigns', 'leads', 'attribution', 'newsletter_signups', 'ad_spend', 'web_sessions', 'coupons', 'audiences', 'surveys'],
  finance: ['invoices', 'payments', 'ledger_entries', 'refunds', 'budgets', 'exchange_rates', 'tax_reports', 'payroll', 'vendors', 'expenses'],
  sales: ['orders', 'accounts', 'opportunities', 'quotes', 'contracts', 'order_lines', 'territories', 'forecasts', 'renewals', 'discounts'],
  product: ['events', 'feature_flags', 'page_views', 'signups', 'experiments', 'errors', 'sessions', 'releases', 'feedback', 'search_queries'],
  logistics: ['shipments', 'warehouses', 'stock_levels', 'carriers', 'returns', 'deliveries', 'suppliers', 'purchase_orders', 'routes', 'inventory_moves'],
  people: ['employees', 'departments', 'candidates', 'interviews', 'time_off', 'trainings', 'reviews', 'offices', 'badges', 'headcount'],
};
const VARIANTS = ['', '_daily', '_raw', '_snapshot', '_v2'] as const;
const PLATFORMS = ['bigquery', 'snowflake', 'postgres', 'hive', 'kafka'] as const;
const TEAMS = ['data-platform', 'growth', 'finance-analytics', 'sales-ops', 'product-analytics', 'supply-chain', 'people-ops'];
const PEOPLE = ['ada', 'grace', 'linus', 'margaret', 'ken', 'barbara', 'dennis', 'frances'];
const LABELS = ['customer-facing', 'regulated', 'experimental', 'board-reporting', 'gdpr', 'cost-centre', 'ml-feature'];

/** Columns every table has, then some by the table's name. */
const COMMON_COLUMNS: ReadonlyArray<readonly [string, string]> = [['id', 'STRING'], ['created_at', 'TIMESTAMP'], ['updated_at', 'TIMESTAMP']];
const EXTRA_COLUMNS: ReadonlyArray<readonly [string, string]> = [
  ['customer_email', 'STRING'], ['customer_id', 'STRING'], ['amount', 'NUMERIC'], ['currency', 'STRING'], ['country', 'STRING'],
  ['status', 'STRING'], ['user_id', 'STRING'], ['phone_number', 'STRING'], ['quantity', 'INT64'], ['notes', 'STRING'],
  ['legacy_code', 'STRING'], ['ip_address', 'STRING'],
];
const PII_COLUMNS = new Set(['customer_email', 'phone_number', 'ip_address']);

const text = (s: string): Value => ({ string: s });
const num = (n: number): Value => ({ double: n });
const assign = (name: string, values: Value[]) => ({ propertyUrn: P(name), values });

function definitionOf(spec: PropertySpec): PropertyDefinition {
  const def: PropertyDefinition = {
    qualifiedName: spec.name,
    valueType: `urn:li:dataType:svc.${spec.type}`,
    entityTypes: [...(spec.entityTypes ?? [DATASET])],
    displayName: spec.displayName,
    description: spec.description,
    cardinality: spec.multiple ? 'MULTIPLE' : 'SINGLE',
  };
  if (spec.allowed) def.allowedValues = spec.allowed.map(([v, description]) => ({ value: typeof v === 'number' ? num(v) : text(v), description }));
  if (spec.urnTypes) def.typeQualifier = { allowedTypes: [...spec.urnTypes] };
  return def;
}

function testInfo(name: string, description: string, rules: unknown): Record<string, unknown> {
  const definition = { on: { types: ['dataset'], conditions: [{ property: 'datasetKey.origin', operator: 'equals', values: ['PROD'] }] }, rules };
  return { name, category: 'Governance', description, definition: { type: 'JSON', json: JSON.stringify(definition) } };
}

export function demoCatalogue(): DemoCatalogue {
  const random = seededRandom(20240614);
  const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)]!;
  const chance = (p: number) => random() < p;
  const date = (fromYear: number) => `${fromYear + Math.floor(random() * 3)}-${String(1 + Math.floor(random() * 12)).padStart(2, '0')}-${String(1 + Math.floor(random() * 28)).padStart(2, '0')}`;

  const properties = DEMO_PROPERTIES.map((spec) => ({
    urn: P(spec.name),
    aspects: { propertyDefinition: definitionOf(spec), structuredPropertySettings: { showInSearchFilters: spec.facet === true } },
  }));

  const datasets: DemoEntity[] = [];
  const fields: DemoEntity[] = [];
  let schemaFieldCount = 0;
  for (const [domain, tables] of Object.entries(DOMAINS)) {
    tables.forEach((table, t) => {
      for (const variant of VARIANTS) {
        const name = `${domain}.${table}${variant}`;
        const pinned = name === 'marketing.invoices';
        const platform = pinned ? 'bigquery' : PLATFORMS[(t + VARIANTS.indexOf(variant) + domain.length) % PLATFORMS.length]!;
        const urn = `urn:li:dataset:(urn:li:dataPlatform:${platform},${name},PROD)`;
        const columns = [...COMMON_COLUMNS, ...EXTRA_COLUMNS.filter(() => chance(0.35))];
        schemaFieldCount += columns.length;
        const values = [assign('acme.governance.domain', [text(domain)])];
        const tier = variant === '_raw' ? 'bronze' : variant === '' ? pick(['gold', 'gold', 'silver']) : pick(['silver', 'bronze']);
        values.push(assign('acme.governance.tier', [text(tier)]));
        // The pinned table misses exactly what both tests ask for.
        if (!pinned && chance(0.85)) values.push(assign('acme.ownership.team', [text(`urn:li:corpGroup:${pick(TEAMS)}`)]));
        if (!pinned && chance(0.8)) values.push(assign('acme.privacy.retentionDays', [num(pick([30, 90, 365, 1825]))]));
        if (chance(0.5)) values.push(assign('acme.ownership.stewards', [...new Set([pick(PEOPLE), pick(PEOPLE)])].map((p) => text(`urn:li:corpuser:${p}`))));
        if (chance(0.6)) values.push(assign('acme.quality.freshnessHours', [num(pick([1, 6, 12, 24, 48]))]));
        if (chance(0.4)) values.push(assign('acme.usage.peakHours', [...new Set([pick([8, 9, 10]), pick([13, 14, 15, 16])])].map(num)));
        if (chance(0.5)) values.push(assign('acme.governance.labels', [...new Set([pick(LABELS), pick(LABELS)])].map(text)));
        if (variant === '_v2' || chance(0.05)) values.push(assign('acme.lifecycle.deprecationDate', [text(date(2026))]));
        if (chance(0.3)) values.push(assign('acme.compliance.auditDates', [...new Set([date(2023), date(2024)])].sort().map(text)));
        if (tier === 'gold') values.push(assign('acme.docs.summary', [text(`**${table.replaceAll('_', ' ')}** for ${domain}: the reference table, refreshed ${variant === '_daily' ? 'daily' : 'hourly'}.`)]));
        if (variant === '_raw') values.push(assign('acme.docs.caveats', [text('Not deduplicated.'), text('Times are in the *source* time zone.')]));
        datasets.push({
          urn,
          aspects: {
            datasetProperties: { description: `${table.replaceAll('_', ' ')} of the ${domain} team${variant ? ` (${variant.slice(1)})` : ''}` },
            schemaMetadata: {
              schemaName: name,
              platform: `urn:li:dataPlatform:${platform}`,
              version: 0,
              fields: columns.map(([fieldPath, nativeDataType]) => ({ fieldPath, nativeDataType })),
            },
            structuredProperties: { properties: values },
          },
        });
        for (const [fieldPath] of columns) {
          const fieldValues = [];
          if (PII_COLUMNS.has(fieldPath)) fieldValues.push(assign('acme.privacy.classification', [text('pii')]));
          else if (fieldPath === 'amount' || fieldPath === 'customer_id') fieldValues.push(assign('acme.privacy.classification', [text('confidential')]));
          if (fieldPath === 'legacy_code') fieldValues.push(assign('acme.lifecycle.deprecationDate', [text(date(2025))]));
          if (fieldValues.length > 0) fields.push({ urn: `urn:li:schemaField:(${urn},${fieldPath})`, aspects: { structuredProperties: { properties: fieldValues } } });
        }
      }
    });
  }

  const tests: DemoEntity[] = [
    {
      urn: TEAM_OWNED_TEST,
      aspects: {
        testInfo: testInfo('Production data has an owning team', 'Every production dataset names the team answerable for it', [
          { property: `structuredProperties.${P('acme.ownership.team')}`, operator: 'exists' },
        ]),
      },
    },
    {
      urn: RETENTION_TEST,
      aspects: {
        testInfo: testInfo('Retention is set', 'Every production dataset says how long its records are kept', [
          { property: `structuredProperties.${P('acme.privacy.retentionDays')}`, operator: 'exists' },
        ]),
      },
    },
  ];
  return { properties, datasets, fields, tests, schemaFieldCount };
}
