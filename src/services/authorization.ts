/**
 * Authorization as a wrapper around services (STYLE.md): each service gets a policy
 * naming the scope every public method needs, and `authorize` returns the same
 * service with the check in front of each call. Handlers and resolvers hold no
 * permission logic; a service method without a policy entry does not compile.
 */
import { scopeAllows } from '../domain/accessToken.js';
import { ForbiddenError } from '../domain/errors.js';
import type { Caller, Scope } from './caller.js';

type AnyFunction = (...args: never[]) => unknown;
type MethodKeys<S> = { [K in keyof S]: S[K] extends AnyFunction ? K : never }[keyof S];

/**
 * A method's rule: the scope it needs (its first argument is the Caller), a function of
 * its arguments giving that scope, or 'unchecked' for helpers that take no caller and
 * only read (they are reachable only from already-authorized requests).
 */
export type Rule<F> = Scope | 'unchecked' | (F extends (...args: infer A) => unknown ? (...args: A) => Scope : never);
export type Policy<S> = { readonly [K in MethodKeys<S>]: Rule<S[K]> };

export function authorize<S extends object>(service: S, name: string, policy: Policy<S>): S {
  return new Proxy(service, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver);
      if (typeof value !== 'function' || typeof prop !== 'string' || !(prop in policy)) return value;
      const rule = policy[prop as MethodKeys<S>] as Rule<AnyFunction>;
      return (...args: unknown[]) => {
        if (rule !== 'unchecked') {
          const caller = args[0] as Caller | undefined;
          if (!caller || typeof caller.scope !== 'string') throw new Error(`${name}.${prop} called without a caller`);
          const need = typeof rule === 'function' ? (rule as (...a: unknown[]) => Scope)(...args) : rule;
          if (!scopeAllows(caller.scope, need)) {
            throw new ForbiddenError(`${name}.${prop} needs a token with ${need} scope; this token has ${caller.scope} scope`);
          }
        }
        // Called on the target so the service's own internal calls are not re-checked.
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
}
