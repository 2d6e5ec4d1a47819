/**
 * Long lists are completed in turns of the event loop. graphql-js completes a list that
 * holds no promise in one synchronous run: ten aliases of `scrollAcrossEntities(count:
 * 1000)` are 10,000 objects, interfaces resolved and fields collected, while nothing
 * else is answered. Every list field's result of LONG_LIST items or more is handed to
 * graphql-js as items that settle in turns shared with the rest of the process
 * (loopTurns.ts); it completes each as it settles, in order, to the same answer.
 */
import { defaultFieldResolver, getNullableType, isListType, isObjectType, type GraphQLSchema } from 'graphql';
import { itemsInTurns } from '../loopTurns.js';

const inTurns = (result: unknown): unknown => (Array.isArray(result) ? itemsInTurns(result) : result);

const isThenable = (value: unknown): value is PromiseLike<unknown> => typeof (value as PromiseLike<unknown> | null)?.then === 'function';

/** Wraps the resolver of every field of a list type so that a long list comes back in turns. */
export function completeListsInTurns(schema: GraphQLSchema): void {
  for (const type of Object.values(schema.getTypeMap())) {
    if (!isObjectType(type) || type.name.startsWith('__')) continue;
    for (const field of Object.values(type.getFields())) {
      if (!isListType(getNullableType(field.type))) continue;
      const resolve = field.resolve ?? defaultFieldResolver;
      field.resolve = (source, args, context, info) => {
        const result = resolve(source, args, context, info);
        return isThenable(result) ? result.then(inTurns) : inTurns(result);
      };
    }
  }
}
