/** The Long scalar: a 64-bit count, serialised as a JSON number (safe up to 2^53). */
import { GraphQLScalarType, Kind } from 'graphql';

export const Long = new GraphQLScalarType({
  name: 'Long',
  description: 'A 64-bit integer',
  serialize: (value) => (typeof value === 'bigint' ? Number(value) : Number(value)),
  parseValue: (value) => {
    if (typeof value !== 'number' || !Number.isInteger(value)) throw new TypeError('Long must be an integer');
    return value;
  },
  parseLiteral: (ast) => {
    if (ast.kind !== Kind.INT) throw new TypeError('Long must be an integer');
    return Number(ast.value);
  },
});
