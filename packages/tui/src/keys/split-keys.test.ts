import { describe, expect, it } from 'vitest';
import { splitKeys } from './split-keys.js';

const plain = {
  upArrow: false,
  downArrow: false,
  leftArrow: false,
  rightArrow: false,
  pageDown: false,
  pageUp: false,
  home: false,
  end: false,
  return: false,
  escape: false,
  ctrl: false,
  shift: false,
  tab: false,
  backspace: false,
  delete: false,
  meta: false,
  super: false,
  hyper: false,
  capsLock: false,
  numLock: false,
};

describe('splitKeys', () => {
  it('takes text that came at once apart into the keys it was typed as', () => {
    const keys = splitKeys('jA\r\x7f\x15', plain);
    expect(keys.map(([input]) => input)).toEqual(['j', 'A', '', '', 'u']);
    expect(keys.map(([, k]) => [k.shift, k.return, k.backspace, k.ctrl])).toEqual([
      [false, false, false, false],
      [true, false, false, false],
      [false, true, false, false],
      [false, false, true, false],
      [false, false, false, true],
    ]);
  });

  it('in a text field keeps runs of text together and still tells Enter and Backspace', () => {
    expect(splitKeys('fine by me\x7f\rok', plain, true).map(([input, k]) => [input, k.return, k.backspace])).toEqual([
      ['fine by me', false, false],
      ['', false, true],
      ['', true, false],
      ['ok', false, false],
    ]);
  });

  it('leaves single keys and named keys as they came', () => {
    expect(splitKeys('j', plain)).toEqual([['j', plain]]);
    const up = { ...plain, upArrow: true };
    expect(splitKeys('', up)).toEqual([['', up]]);
    const meta = { ...plain, meta: true };
    expect(splitKeys('ab', meta)).toEqual([['ab', meta]]);
  });
});
