/**
 * prisma/schema.prisma is the checked description of the database: a fresh database,
 * migrated the way the server migrates it (the SQL migrations), has exactly the tables,
 * views, columns (types, nullability, defaults), primary keys, unique constraints,
 * indexes and foreign keys schema.prisma says. The store's row types come from the
 * model types Prisma generates from that file, so a migration that changes a table
 * without it (or the other way round) fails here.
 */
import { readFileSync } from 'node:fs';
import { postgresAvailableForTests } from '../../support/server.js';
import { describeDatabase, describeSchema, schemaDifferences, type SchemaDescription } from '../../support/schemaDescription.js';
import { openStoreDatabase, type StoreDatabase } from '../../support/storeDatabase.js';

const SCHEMA = readFileSync('prisma/schema.prisma', 'utf8');

/** Indexes schema.prisma cannot express, each with what it is. */
const NOT_EXPRESSIBLE = new Map([
  ['change_log_pending_idx', 'a partial index (WHERE indexed_on IS NULL): the indexer scans only the pending tail of the log'],
  ['aspect_time_idx', "a partial index (structuredProperties versions only) in time order: the history of a widely held property, newest first"],
  ['aspect_structured_properties_idx', "a partial GIN index on an expression (metadata->'properties', structuredProperties versions only): the versions that name a property, for its value history and the hard delete's scrubbing"],
]);

(postgresAvailableForTests() ? describe : describe.skip)('schema.prisma matches the migrated database', () => {
  let s: StoreDatabase;
  let database: SchemaDescription;

  beforeAll(async () => {
    s = await openStoreDatabase('schema_match');
    database = await describeDatabase((text) => s.query(text), new Set(NOT_EXPRESSIBLE.keys()));
  }, 60_000);

  afterAll(async () => {
    await s?.close();
  });

  test('every table, view, column, key, index and foreign key agrees', () => {
    expect(schemaDifferences(describeSchema(SCHEMA), database)).toEqual([]);
  });

  test('the indexes left out are in the database, as their migrations say', async () => {
    const found = await s.query<{ name: string }>("SELECT indexname AS name FROM pg_indexes WHERE schemaname = 'public' AND indexname = ANY($1)", [[...NOT_EXPRESSIBLE.keys()]]);
    expect(found.map((r) => r.name).sort()).toEqual([...NOT_EXPRESSIBLE.keys()].sort());
  });

  describe('a disagreement fails, naming it', () => {
    const changed = (from: string, to: string) => {
      expect(SCHEMA).toContain(from);
      return schemaDifferences(describeSchema(SCHEMA.replace(from, to)), database);
    };

    test('a column made required in schema.prisma only', () => {
      expect(changed('lastError   String?   @map("last_error")', 'lastError   String    @map("last_error")')).toEqual([
        'job.last_error: schema.prisma says text NOT NULL, the database has text NULL',
      ]);
    });

    test('another type', () => {
      expect(changed('total       Int?', 'total       BigInt?')).toEqual(['job.total: schema.prisma says int8 NULL, the database has int4 NULL']);
    });

    test('a column the database does not have', () => {
      expect(changed('  holder    String\n', '  holder    String\n  note      String?\n')).toEqual([
        'worker_lease.note: schema.prisma says text NULL, the database has no such column',
      ]);
    });

    test('a unique constraint and an index', () => {
      expect(changed('searchField   String  @unique @map("search_field")', 'searchField   String  @map("search_field")')).toEqual([
        'structured_property: the database has UNIQUE structured_property_search_field_key (search_field), schema.prisma does not',
      ]);
      expect(changed('@@index([propertyUrn, entityUrn])', '@@index([propertyUrn, entityType])')).toEqual([
        'property_value: schema.prisma has INDEX property_value_property_urn_entity_type_idx (property_urn, entity_type), the database does not',
        'property_value: the database has INDEX property_value_property_urn_entity_urn_idx (property_urn, entity_urn), schema.prisma does not',
      ]);
    });

    test('a primary key and a foreign key', () => {
      expect(changed('@@id([entityUrn, propertyUrn])', '@@id([propertyUrn, entityUrn])')).toEqual([
        'property_value: schema.prisma has PRIMARY KEY property_value_pkey (property_urn, entity_urn), the database does not',
        'property_value: the database has PRIMARY KEY property_value_pkey (entity_urn, property_urn), schema.prisma does not',
      ]);
      expect(changed('onDelete: Cascade', 'onDelete: Restrict')).toEqual([
        'aspect: schema.prisma has FOREIGN KEY aspect_urn_fkey (urn) REFERENCES entity (urn) ON DELETE RESTRICT ON UPDATE CASCADE, the database does not',
        'aspect: the database has FOREIGN KEY aspect_urn_fkey (urn) REFERENCES entity (urn) ON DELETE CASCADE ON UPDATE CASCADE, schema.prisma does not',
      ]);
    });

    test('a view column', () => {
      expect(changed('  entityVersion BigInt  @map("entity_version")', '  entityVersion Int     @map("entity_version")')).toEqual([
        'registered_property.entity_version: schema.prisma says int4 NULL, the database has int8 NULL',
      ]);
    });
  });
});
