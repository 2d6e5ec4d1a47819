/**
 * The error a call throws, so a test can assert its class, code and exact message
 * separately. Fails the test when the call does not throw.
 */
export function thrown(fn: () => unknown): Error {
  try {
    fn();
  } catch (err) {
    if (err instanceof Error) return err;
    throw new Error(`expected an Error to be thrown, got ${String(err)}`);
  }
  throw new Error('expected the call to throw, but it returned normally');
}
