import { parseDataTypeUrn, stdDataType, NAMESPACE } from '../../domain/typeUrns.js';
import type { DataTypeEntityResolvers, DataTypeInfoResolvers } from '../generated/resolvers-types.js';
import { entityTypeOf } from './entityModel.js';

const DISPLAY: Record<string, string> = { string: 'String', rich_text: 'Rich Text', number: 'Number', date: 'Date', urn: 'Urn' };

export const DataTypeEntity: DataTypeEntityResolvers = {
  type: entityTypeOf,
  info: (m) => ({ type: parseDataTypeUrn(m.urn) }),
};

export const DataTypeInfo: DataTypeInfoResolvers = {
  type: (m) => stdDataType(m.type),
  qualifiedName: (m) => `${NAMESPACE}.${m.type}`,
  displayName: (m) => DISPLAY[m.type] ?? m.type,
};
