import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lazyModule } from '../../src/project/index.js';

let dir: string;
const loads = (): number => (globalThis as { lazyModuleLoads?: number }).lazyModuleLoads ?? 0;

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'ai-lazy-module-'));
  await writeFile(
    path.join(dir, 'counted.cjs'),
    'globalThis.lazyModuleLoads = (globalThis.lazyModuleLoads ?? 0) + 1;\nexports.value = 42;\n',
  );
  await writeFile(path.join(dir, 'esm.mjs'), 'export const value = 7;\n');
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('lazyModule', () => {
  it('loads nothing until first called, then loads once and returns the same module', () => {
    const loader = lazyModule<{ value: number }>(path.join(dir, 'counted.cjs'));
    expect(loads()).toBe(0);
    const first = loader();
    expect(first.value).toBe(42);
    expect(loader()).toBe(first);
    expect(loads()).toBe(1);
  });

  it('loads an ES module too (require of ESM, Node >= 20.19 as package.json engines says)', () => {
    expect(lazyModule<{ value: number }>(path.join(dir, 'esm.mjs'))().value).toBe(7);
  });

  it('throws the resolution error on first call when the module is missing, not at creation', () => {
    const loader = lazyModule<unknown>(path.join(dir, 'missing.cjs'));
    expect(() => loader()).toThrow(/Cannot find module/);
  });
});
