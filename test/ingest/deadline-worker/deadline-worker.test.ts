import { afterAll, describe, expect, it } from 'vitest';
import { DeadlineWorker } from '../../../src/ingest/index.js';
import type { DeadlineWorkerOptions } from '../../../src/ingest/index.js';

// Hang guard only: a spinning request that is not stopped never ends.
const GUARD = 20_000;
const entry = new URL('./fixtures/shout-worker.ts', import.meta.url);

const workers: DeadlineWorker<string, string>[] = [];
const newWorker = (options: Partial<DeadlineWorkerOptions> = {}): DeadlineWorker<string, string> => {
  const worker = new DeadlineWorker<string, string>({
    entry,
    name: 'shout worker',
    task: 'shouting',
    fallbackNote: 'nobody shouts',
    ...options,
  });
  workers.push(worker);
  return worker;
};
afterAll(async () => {
  await Promise.all(workers.map((worker) => worker.close()));
});
// Starting a worker on a .ts entry loads tsx (about a second of CPU), so the tests that need a working worker
// share this one; each leaves it with a live worker, and counts the workers it starts itself.
let shared: DeadlineWorker<string, string> | undefined;
const sharedWorker = (): DeadlineWorker<string, string> => (shared ??= newWorker());

describe('DeadlineWorker', () => {
  it('answers requests in order from one reused worker', async () => {
    // The first test, so the shared worker starts here.
    const worker = sharedWorker();
    const outcomes = await Promise.all(['a', 'b', 'c'].map((text) => worker.run(text, 10_000)));
    expect(outcomes).toEqual(['A', 'B', 'C'].map((answer) => ({ kind: 'answered', answer })));
    expect(worker.workersStarted).toBe(1);
  });

  it(
    'terminates the worker of a request past its deadline; the next request gets a fresh worker',
    async () => {
      const worker = sharedWorker();
      expect(await worker.run('before', 10_000)).toEqual({ kind: 'answered', answer: 'BEFORE' });
      const before = worker.workersStarted;
      // A spin never answers, so however slow the machine it times out: a short deadline cannot fail falsely.
      const [first, second, third] = await Promise.all([
        worker.run('spin', 50),
        worker.run('spin', 50),
        worker.run('after', 10_000),
      ]);
      expect(first).toEqual({ kind: 'timed-out' });
      expect(second).toEqual({ kind: 'timed-out' });
      expect(third).toEqual({ kind: 'answered', answer: 'AFTER' });
      // The live worker took the first spin; one fresh worker after each of the two terminated.
      expect(worker.workersStarted).toBe(before + 2);
    },
    GUARD,
  );

  it('rejects a request whose handler throws, naming the task and the worker, and serves the next', async () => {
    const worker = sharedWorker();
    await expect(worker.run('throw')).rejects.toThrow(
      /^shouting failed in the shout worker: Error: asked to throw/,
    );
    const started = worker.workersStarted;
    expect(await worker.run('next')).toEqual({ kind: 'answered', answer: 'NEXT' });
    // The worker that threw serves the next request: no worker is started for it.
    expect(worker.workersStarted).toBe(started);
  });

  it('answers unavailable to every request when no worker starts, and warns once', async () => {
    const warnings: string[] = [];
    const worker = newWorker({
      entry: new URL('./fixtures/no-such-worker.js', import.meta.url),
      warn: (message) => warnings.push(message),
    });
    const outcomes = await Promise.all([worker.run('a'), worker.run('b')]);
    const reasons = outcomes.map((outcome) =>
      outcome.kind === 'unavailable' ? outcome.reason : outcome.kind,
    );
    expect(reasons).toEqual([
      expect.stringMatching(/^cannot start the shout worker .*no-such-worker/),
      expect.stringMatching(/^cannot start the shout worker .*no-such-worker/),
    ]);
    expect(await worker.run('c')).toMatchObject({ kind: 'unavailable' });
    expect(warnings).toEqual([expect.stringMatching(/no-such-worker.*; nobody shouts$/)]);
    expect(worker.workersStarted).toBe(0);
  });
});

describe('DeadlineWorker with requests sent ahead (maxInFlight)', () => {
  it(
    'sends requests before the first is answered; the worker still serves them one after another, in order',
    async () => {
      // With one at a time, "slow" would be answered having seen only itself.
      const one = newWorker();
      expect(await Promise.all([one.run('slow'), one.run('x')])).toEqual([
        { kind: 'answered', answer: 'SLOW 1' },
        { kind: 'answered', answer: 'X' },
      ]);
      const ahead = newWorker({ maxInFlight: 4 });
      const outcomes = await Promise.all(['slow', 'a', 'slow', 'b', 'c'].map((text) => ahead.run(text)));
      // The first "slow" saw the four sent with it; the fifth went once the first was answered.
      expect(outcomes).toEqual(
        ['SLOW 4', 'A', 'SLOW 5', 'B', 'C'].map((answer) => ({ kind: 'answered', answer })),
      );
    },
    GUARD,
  );

  it(
    'fails every request sent or waiting when the worker is lost, so none runs out of order on the next worker',
    async () => {
      const worker = newWorker({ maxInFlight: 2 });
      const outcomes = await Promise.allSettled(['exit', 'a', 'b'].map((text) => worker.run(text)));
      expect(outcomes.map((outcome) => outcome.status)).toEqual(['rejected', 'rejected', 'rejected']);
      expect(String((outcomes[2] as PromiseRejectedResult).reason)).toMatch(
        /the shout worker exited with code 3 while shouting/,
      );
      // The next request gets a fresh worker.
      expect(await worker.run('after')).toEqual({ kind: 'answered', answer: 'AFTER' });
      expect(worker.workersStarted).toBe(2);
    },
    GUARD,
  );

  it('refuses a deadline: a request sent ahead cannot be stopped alone', () => {
    const worker = newWorker({ maxInFlight: 2 });
    expect(() => worker.run('a', 1_000)).toThrow(/takes several requests at once: none can have a deadline/);
  });
});
