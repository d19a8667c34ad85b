import { appendFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { LogTail } from './log-tail.js';
import { describeTool, finalResult, newStreamState, readStreamLine } from './stream-events.js';
import { tempDir } from '../testing/temp-dir.js';

const assistant = (...content: unknown[]) =>
  JSON.stringify({ type: 'assistant', message: { role: 'assistant', content } });
const result = {
  type: 'result',
  subtype: 'success',
  is_error: false,
  result: 'done <promise>DONE: x</promise>',
  total_cost_usd: 0.42,
  num_turns: 3,
  session_id: 's',
};

describe('stream-json events', () => {
  it('an assistant tool use is the activity, its text when it uses no tool; each message a turn', () => {
    const state = newStreamState();
    expect(readStreamLine(state, JSON.stringify({ type: 'system', subtype: 'init', session_id: 's' }))).toBe(false);
    expect(
      readStreamLine(state, assistant({ type: 'text', text: 'Let me look at the login form.\nThen the tests.' })),
    ).toBe(true);
    expect(state).toMatchObject({ activity: 'Let me look at the login form.', turns: 1 });
    readStreamLine(
      state,
      assistant(
        { type: 'text', text: 'Editing.' },
        { type: 'tool_use', name: 'Edit', input: { file_path: 'src/login.ts', old_string: 'a' } },
      ),
    );
    expect(state).toMatchObject({ activity: 'Edit src/login.ts', turns: 2 });
    readStreamLine(
      state,
      JSON.stringify({ type: 'user', message: { content: [{ type: 'tool_result', content: 'ok' }] } }),
    );
    expect(state.turns).toBe(2);
    expect(readStreamLine(state, 'not json at all')).toBe(false);
    expect(readStreamLine(state, JSON.stringify(result))).toBe(true);
    expect(state.result).toMatchObject({ total_cost_usd: 0.42, num_turns: 3 });
  });

  it('describes tools by what they touch', () => {
    expect(describeTool('Bash', { command: 'npm test\nnpm run lint', description: 'x' })).toBe('Bash npm test');
    expect(describeTool('Grep', { pattern: 'TODO', path: 'src' })).toBe('Grep TODO');
    expect(describeTool('TodoWrite', { todos: [] })).toBe('TodoWrite');
  });

  it('finds the final result in json output and in a stream', () => {
    expect(finalResult(JSON.stringify(result))).toMatchObject({ result: 'done <promise>DONE: x</promise>' });
    expect(
      finalResult(
        [JSON.stringify({ type: 'system' }), assistant({ type: 'text', text: 'hi' }), JSON.stringify(result)].join(
          '\n',
        ),
      ),
    ).toMatchObject({ num_turns: 3 });
    expect(finalResult('plain text')).toBeNull();
    expect(
      finalResult([JSON.stringify({ type: 'system' }), assistant({ type: 'text', text: 'cut off' })].join('\n')),
    ).toBeNull();
  });
});

describe('LogTail', () => {
  it('hands over each complete line as the file grows, the last one on stop, multi-byte characters whole', async () => {
    const file = join(tempDir('shop-tail-'), 'out.log');
    writeFileSync(file, '');
    const lines: string[] = [];
    // Its reads are synchronous on an interval: fake timers make each one happen exactly when the test says.
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    try {
      const tail = new LogTail(file, (l) => lines.push(l), 20);
      appendFileSync(file, 'one\ntw');
      vi.advanceTimersByTime(20);
      expect(lines).toEqual(['one']);
      appendFileSync(file, Buffer.from('o\nthree é'.slice(0, 10)));
      appendFileSync(file, Buffer.from([0xc3]));
      // A read ends between the two bytes of an é: it must not come out as two broken characters.
      vi.advanceTimersByTime(20);
      appendFileSync(file, Buffer.from([0xa9]));
      tail.stop();
      expect(lines).toEqual(['one', 'two', 'three éé']);
    } finally {
      vi.useRealTimers();
    }
  });
});
