import { itemsInTurns, LONG_LIST, loopTurn, SLICE_MS } from '../../src/loopTurns.js';

const busy = (ms: number) => {
  const until = performance.now() + ms;
  while (performance.now() < until);
};

/** Waits for what loopTurn() asks, if anything. */
async function take(): Promise<void> {
  const wait = loopTurn();
  if (wait) await wait;
}

describe('loopTurn', () => {
  test('past a slice of work, what waits on the event loop runs first; right after the turn a new slice begins', async () => {
    await take();
    busy(SLICE_MS + 1);
    let ran = false;
    setImmediate(() => {
      ran = true;
    });
    const wait = loopTurn();
    expect(wait).toBeInstanceOf(Promise);
    await wait;
    expect(ran).toBe(true);
    // No pause of a loaded machine comes between the resumption and this line that often; allow one.
    const again = loopTurn();
    if (again) await again;
    expect(loopTurn()).toBeUndefined();
  });

  test('pieces that ran out resume one per pass of the event loop, with what else waits in between', async () => {
    const events: string[] = [];
    let probing = true;
    const probe = () => {
      events.push('probe');
      if (probing) setImmediate(probe);
    };
    const piece = async (name: string) => {
      for (let step = 0; step < 5; step++) {
        // Every step spends the slice: each asks for a turn.
        busy(SLICE_MS + 0.5);
        await take();
        events.push(name);
      }
    };
    setImmediate(probe);
    await Promise.all([piece('a'), piece('b'), piece('c')]);
    probing = false;
    const slices = events.filter((e) => e !== 'probe');
    expect(slices).toHaveLength(15);
    // Turns each piece took on its own would resume a, b and c in the same pass, one after the other.
    for (let i = 1; i < events.length; i++) {
      if (events[i] !== 'probe') expect(events[i - 1]).toBe('probe');
    }
    // Round robin: a piece that ran out goes behind the others.
    expect(slices.slice(0, 6)).toEqual(['a', 'b', 'c', 'a', 'b', 'c']);
  });
});

describe('itemsInTurns', () => {
  test('a short list is handed back as it is', () => {
    const list = Array.from({ length: LONG_LIST - 1 }, (_, i) => i);
    expect(itemsInTurns(list)).toBe(list);
  });

  test('a long list settles to the same items in order, a promised item to what it settles to', async () => {
    const list: Array<number | Promise<number>> = Array.from({ length: LONG_LIST * 3 }, (_, i) => i);
    list[7] = Promise.resolve(7);
    const items = itemsInTurns(list);
    expect(items).toHaveLength(list.length);
    expect(await Promise.all(items)).toEqual(Array.from({ length: LONG_LIST * 3 }, (_, i) => i));
  });

  // That its own rejection does not count as unhandled meanwhile (Node would end the process)
  // cannot be seen from a test: Jest's process takes the event for itself.
  test('an item that fails fails in its place only, however far down the list', async () => {
    const list: Array<number | Promise<number>> = Array.from({ length: LONG_LIST * 2 }, (_, i) => i);
    list[LONG_LIST + 5] = Promise.reject(new Error('item failed'));
    // As graphql-js does: a handler on every item at once, and work on each once it settles (here, a good part of a
    // slice), so that passes of the event loop go by before the list gets to the failed item.
    const settled = await Promise.allSettled(
      itemsInTurns(list).map((item) =>
        Promise.resolve(item).then((v) => {
          busy(SLICE_MS / 2);
          return v;
        }),
      ),
    );
    expect(settled.filter((s) => s.status === 'rejected')).toEqual([{ status: 'rejected', reason: new Error('item failed') }]);
    expect(settled.findIndex((s) => s.status === 'rejected')).toBe(LONG_LIST + 5);
  });

  test('items whose work spends the slice give the event loop turns before the list is done', async () => {
    await take();
    let passes = 0;
    let counting = true;
    const count = () => {
      passes++;
      if (counting) setImmediate(count);
    };
    setImmediate(count);
    // What graphql-js does: complete each item once it settles; here each takes a slice's worth.
    await Promise.all(itemsInTurns(Array.from({ length: LONG_LIST }, (_, i) => i)).map((item) => Promise.resolve(item).then(() => busy(SLICE_MS / 4))));
    counting = false;
    // 100 items of a quarter slice each are 25 slices or more: at least that many passes, less slack for stretches a pause cut short.
    expect(passes).toBeGreaterThanOrEqual(20);
  });
});
