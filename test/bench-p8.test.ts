import { execFileSync } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { tempDir } from '../packages/core/src/testing/temp-dir.js';

/**
 * The bench's P8 (Shop on PostgreSQL against DBOS) judges both sides by the same stub step's
 * log and prints ratios whose direction depends on the figure: these are the parts a wrong
 * edit would silently turn into wrong figures.
 */
const root = join(import.meta.dirname, '..');
type Step = { step: string; us: number };
interface StepStub {
  writeStub(dir: string): { stub: string; log: string };
  readSteps(log: string): Map<string, Step[]>;
  perStepMs(byWorkflow: Map<string, Step[]>, steps: number): number[];
}
interface Row {
  ratio: number | null;
  goal: string | null;
  meets: boolean | null;
  note: string | null;
}
interface Table {
  versusDbos(
    figure: string,
    name: string,
    unit: string,
    shop: number[],
    dbos: number[] | null,
    opts?: { higher?: boolean; p?: number; atLeast?: number; note?: string },
  ): Row;
  formatTable(rows: Row[], title: string, peer?: string): string;
}
const load = async <T>(file: string) => (await import(pathToFileURL(join(root, file)).href)) as T;
const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

describe('bench P8', () => {
  it('the stub step logs its tag with a microsecond time and reports DONE as an agent does', async () => {
    const { writeStub, readSteps } = await load<StepStub>('bench/pg/step-stub.mjs');
    const dir = tempDir('shop-bench-test-');
    dirs.push(dir);
    const { stub, log } = writeStub(dir);
    const signal = join(dir, 'signal.json');
    const before = Date.now() * 1000;
    const out = execFileSync(stub, ['w-1 3'], {
      env: { ...process.env, BENCH_STEP_LOG: log, SHOP_SIGNAL_FILE: signal },
      encoding: 'utf8',
    });
    execFileSync(stub, ['w-1 4'], { env: { ...process.env, BENCH_STEP_LOG: log, SHOP_SIGNAL_FILE: '' } });
    expect(JSON.parse(out.trim())).toMatchObject({ type: 'result', is_error: false });
    expect(JSON.parse(readFileSync(signal, 'utf8'))).toEqual({ status: 'DONE' });
    const steps = readSteps(log).get('w-1') ?? [];
    expect(steps.map((s) => s.step)).toEqual(['3', '4']);
    expect(steps[0].us).toBeGreaterThanOrEqual(before - 1000);
    expect(steps[1].us).toBeGreaterThanOrEqual(steps[0].us);
  });

  it('per-step latency is first to last start over the gaps, for finished workflows only', async () => {
    const { perStepMs } = await load<StepStub>('bench/pg/step-stub.mjs');
    const at = (...ms: number[]) => ms.map((m, i) => ({ step: String(i + 1), us: m * 1000 }));
    const byWorkflow = new Map([
      ['a', at(0, 10, 30)],
      ['b', at(5, 25)],
    ]);
    expect(perStepMs(byWorkflow, 3)).toEqual([15]);
  });

  it('ratios say which side did better: a rate is Shop ÷ DBOS, a time DBOS ÷ Shop', async () => {
    const { versusDbos, formatTable } = await load<Table>('bench/table.mjs');
    const rate = versusDbos('P8', 'workflows/s', '/s', [4, 4, 4], [2, 2, 2], { higher: true, atLeast: 1 });
    expect(rate).toMatchObject({ ratio: 2, goal: 'Shop ≥ 1× DBOS', meets: true });
    const time = versusDbos('P8', 'per step', 'ms', [30, 30, 30], [10, 10, 10], { atLeast: 1 });
    expect(time.ratio).toBeCloseTo(1 / 3);
    expect(time).toMatchObject({ goal: 'Shop ≤ DBOS', meets: false });
    const none = versusDbos('P8', 'takeover', 'ms', [14000], null, { note: 'never' });
    expect(none.ratio).toBeNull();
    const table = formatTable([rate, time, none], 'title', 'DBOS');
    expect(table).toMatch(/Shop 2\.00× DBOS\s+Shop ≥ 1× DBOS\s+ok/);
    expect(table).toMatch(/DBOS 0\.33× Shop\s+Shop ≤ DBOS\s+OVER/);
    expect(table).toMatch(/takeover, ms\s+14000 \(14000–14000\)\s+never/);
  });
});
