/**
 * Long lists are completed each in a turn of the event loop (src/platform/turns.ts). graphql-js
 * completes a list that holds no promise in one synchronous run: 1,000 hits, their
 * interfaces resolved and fields collected, are a few milliseconds, and ten aliases of
 * `scrollAcrossEntities(count: 1000)` whose searches answer together were ten such runs
 * back to back while nothing else was answered. A list of LONG_LIST items or more waits
 * for a turn shared with the rest of the process, so that one such run at most goes by
 * between two reads of the sockets. Handing graphql-js the items one promise each
 * instead (it completes each as it settles) split the runs finer, but doubled the CPU
 * of completing them and kept so many objects alive across turns that V8's full
 * collections came more often and took longer.
 */
import { defaultFieldResolver, getNullableType, isListType, isObjectType, type GraphQLSchema } from 'graphql';
import { inTurn } from '../platform/turns.js';

/** Lists from this length on wait for a turn (shorter ones complete in well under a slice). */
export const LONG_LIST = 100;

const isThenable = (value: unknown): value is PromiseLike<unknown> => typeof (value as PromiseLike<unknown> | null)?.then === 'function';

const ignore = () => undefined;

function inTurnIfLong(result: unknown): unknown {
  if (!Array.isArray(result) || result.length < LONG_LIST) return result;
  // Items may be promises (`_entities` resolves each representation on its own). graphql-js
  // handles their failures once it has the list; until then, a failure must not count as
  // an unhandled rejection, on which Node ends the process.
  for (const item of result) if (isThenable(item)) item.then(undefined, ignore);
  return inTurn(result);
}

/** Wraps the resolver of every field of a list type so that a long list is completed in a turn of its own. */
export function completeListsInTurns(schema: GraphQLSchema): void {
  for (const type of Object.values(schema.getTypeMap())) {
    if (!isObjectType(type) || type.name.startsWith('__')) continue;
    for (const field of Object.values(type.getFields())) {
      if (!isListType(getNullableType(field.type))) continue;
      const resolve = field.resolve ?? defaultFieldResolver;
      field.resolve = (source, args, context, info) => {
        const result = resolve(source, args, context, info);
        return isThenable(result) ? result.then(inTurnIfLong) : inTurnIfLong(result);
      };
    }
  }
}
