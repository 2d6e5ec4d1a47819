import { stdDataType, urnNamespace } from '../../domain/typeUrns.js';
import type { DataTypeInfoResolvers } from '../generated/resolvers-types.js';

const DISPLAY: Record<string, string> = { string: 'String', rich_text: 'Rich Text', number: 'Number', date: 'Date', urn: 'Urn' };

export const DataTypeInfo: DataTypeInfoResolvers = {
  type: (m) => stdDataType(m.type),
  qualifiedName: (m) => `${urnNamespace()}.${m.type}`,
  displayName: (m) => DISPLAY[m.type] ?? m.type,
};
