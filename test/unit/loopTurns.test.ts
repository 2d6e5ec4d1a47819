import { inTurn, loopTurn, SLICE_MS } from '../../src/loopTurns.js';

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

describe('inTurn', () => {
  test('hands the value back at once while the slice has time left, and at its turn once the slice is spent', async () => {
    const list = [1, 2, 3];
    // Just after a turn the slice has time left, unless the machine took the CPU away for
    // longer than the slice in between (seen beside the full suite): then at a later turn.
    let atOnce = false;
    for (let attempt = 0; attempt < 50 && !atOnce; attempt++) {
      await take();
      atOnce = inTurn(list) === list;
    }
    expect(atOnce).toBe(true);
    busy(SLICE_MS + 1);
    let ran = false;
    setImmediate(() => {
      ran = true;
    });
    const later = inTurn(list);
    expect(later).toBeInstanceOf(Promise);
    expect(await later).toBe(list);
    expect(ran).toBe(true);
  });
});
