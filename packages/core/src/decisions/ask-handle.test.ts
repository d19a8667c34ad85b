import { describe, expect, it } from 'vitest';
import { agentAsk, pauseAsk } from '../engine/testing/executions.js';
import { answerSuggestions, suggestionCommand } from './answer-hint.js';
import { askHandle, parseAskRef, parseCallRef, runIdOf, runIdOfHandle } from './ask-handle.js';

describe('ask handles', () => {
  it('name run, call and (after the first) which ask; branch keys keep their slashes', () => {
    expect(askHandle(33, '4', 1)).toBe('33.4');
    expect(askHandle(33, '4', 2)).toBe('33.4.2');
    expect(askHandle(33, '4/1/2', 3)).toBe('33.4/1/2.3');
  });

  it('name their run; text that is no handle names none (no number read off its front, as parseInt would)', () => {
    expect(runIdOfHandle('33.4/1/2.3')).toBe(33);
    expect(runIdOfHandle('33')).toBe(33);
    for (const bad of ['33abc', '1e3', '0x3', ' 3', '', '0.1', '-1.2']) expect(runIdOfHandle(bad), bad).toBeNull();
  });

  it('parse back exactly; a bare run id has no call; the first ask is 1', () => {
    expect(parseAskRef('33')).toEqual({ runId: 33, key: null, ask: null });
    expect(parseAskRef('33.4')).toEqual({ runId: 33, key: '4', ask: 1 });
    expect(parseAskRef('33.4.1')).toEqual({ runId: 33, key: '4', ask: 1 });
    expect(parseAskRef('33.4/1/2.2')).toEqual({ runId: 33, key: '4/1/2', ask: 2 });
    expect(parseCallRef('4/1/2.2')).toEqual({ key: '4/1/2', ask: 2 });
    for (const bad of [
      '',
      '0',
      '0x3',
      '1e3',
      '3.',
      '3..4',
      '3.4.0',
      '3.4.2.1',
      '3.4/',
      '3./4',
      ' 3',
      '3 ',
      '-3',
      '99999999999999999999',
    ]) {
      expect(parseAskRef(bad), bad).toBeNull();
    }
    expect(parseCallRef('4.0')).toBeNull();
    expect(runIdOf('0x3')).toBeNull();
    expect(runIdOf('1e3')).toBeNull();
    expect(runIdOf('12')).toBe(12);
  });
});

describe('answer suggestions are data', () => {
  it("an agent's approval ask: continue, approve (words optional), reject (feedback required), each with the handle", () => {
    const exec = agentAsk({ awaiting: 'approval', ask: 2 });
    const s = answerSuggestions(exec);
    expect(s.map((x) => [x.verb, x.handle, x.needs_text, x.effect])).toEqual([
      ['continue', '7.2.2', 'none', null],
      ['approve', '7.2.2', 'optional', 'returns APPROVED to the workflow'],
      ['reject', '7.2.2', 'required', 'goes back to the agent'],
    ]);
    expect(s.map(suggestionCommand)).toEqual([
      'shop continue 7.2.2',
      'shop approve 7.2.2 [--message "…"]',
      'shop reject 7.2.2 "feedback"',
    ]);
  });

  it("a structured pause: its decisions for signal --answers; an escalation's approve needs the direction", () => {
    const pause = pauseAsk({ message: 'Go?', decisions: [{ id: 'go', type: 'approval', prompt: 'Go?' }] });
    expect(answerSuggestions(pause).map(suggestionCommand)).toEqual([
      'shop continue 7.2',
      `shop signal 7.2 --answers '{"go": …}'`,
      'shop reject 7.2 "why"',
    ]);
    expect(suggestionCommand(answerSuggestions(agentAsk({ awaiting: 'escalation' }))[1])).toBe(
      'shop approve 7.2 --message "…"',
    );
  });
});
