import { describe, expect, it } from 'vitest';
import { ExitCode, UsageError } from '../errors.js';
import { parseSchedule } from './parse-schedule.js';
import { hostTimeZone } from './zone.js';

/** The one line parseSchedule refuses `cron` in `tz` with (failing the test when it takes it). */
function refusal(cron: string, tz = 'UTC'): string {
  try {
    parseSchedule({ cron, tz });
  } catch (e) {
    expect(e).toBeInstanceOf(UsageError);
    expect((e as UsageError).exitCode).toBe(ExitCode.usage);
    const line = (e as Error).message;
    expect(line).not.toMatch(/\n/);
    return line;
  }
  throw new Error(`parseSchedule took ${JSON.stringify(cron)} in ${tz}`);
}

describe('parseSchedule', () => {
  it('takes 5 fields, 6 with seconds first, and nicknames; keeps the expression as one spaced line', () => {
    expect(parseSchedule({ cron: '0 9 * * 1-5', tz: 'Europe/Berlin' }).spec()).toEqual({
      cron: '0 9 * * 1-5',
      tz: 'Europe/Berlin',
    });
    expect(parseSchedule({ cron: ' */5  *\t* * * * ', tz: 'UTC' }).cron).toBe('*/5 * * * * *');
    expect(parseSchedule({ cron: '@daily', tz: 'UTC' }).cron).toBe('@daily');
    expect(parseSchedule({ cron: '0 9 * * MON-FRI', tz: 'UTC' }).cron).toBe('0 9 * * MON-FRI');
  });

  it('names a time zone as Intl does: "UTC" and any spelling of it, aliases too', () => {
    expect(parseSchedule({ cron: '0 9 * * *', tz: 'UTC' }).tz).toBe('UTC');
    expect(parseSchedule({ cron: '0 9 * * *', tz: 'utc' }).tz).toBe('UTC');
    expect(parseSchedule({ cron: '0 9 * * *', tz: 'europe/berlin' }).tz).toBe('Europe/Berlin');
    expect(parseSchedule({ cron: '0 9 * * *', tz: 'Etc/GMT+1' }).tz).toBe('Etc/GMT+1');
    expect(parseSchedule({ cron: '0 9 * * *', tz: hostTimeZone() }).tz).toBeTruthy();
  });

  it('refuses a wrong number of fields, saying how many and how it should look', () => {
    expect(refusal('* * *')).toBe(
      'cron "* * *" is not a cron expression: it has 3 fields, not 5 (minute hour day-of-month month day-of-week) ' +
        'or 6 (a second first); e.g. "0 9 * * 1-5" (09:00 on weekdays) or "*/15 * * * *" (every 15 minutes); ' +
        'fields: [second] minute hour day-of-month month day-of-week',
    );
    expect(refusal('0 0 9 1 1 * 2030')).toMatch(
      /^cron "0 0 9 1 1 \* 2030" is not a cron expression: it has 7 fields, not 5/,
    );
    expect(refusal('   ')).toMatch(/^cron " *" is not a cron expression: it is empty; e\.g\. "0 9 \* \* 1-5"/);
  });

  it("refuses a bad field with the cron library's reason, as a clause of the line", () => {
    expect(refusal('0 25 * * *')).toMatch(
      /^cron "0 25 \* \* \*" is not a cron expression: invalid value for hour: 25; e\.g\./,
    );
    expect(refusal('*/0 * * * *')).toMatch(/: syntax error, illegal stepping: 0; e\.g\./);
    expect(refusal('0 a * * *')).toMatch(/: field "a" contains illegal characters; e\.g\./);
    expect(refusal('@reboot')).toMatch(
      /^cron "@reboot" is not a cron expression: @reboot is not one of @yearly, @annually, @monthly, @weekly, @daily, @midnight, @hourly; e\.g\./,
    );
    expect(refusal('@daily 5')).toMatch(/: it has 2 fields, not 5/);
  });

  it('refuses an expression that never fires, and one with characters that are not printable ASCII', () => {
    expect(refusal('0 0 30 2 *')).toMatch(/: it matches no date \(like the 30th of February\); e\.g\./);
    expect(refusal('0 9 * * 1\u20135')).toMatch(
      /^cron "0 9 \* \* 1–5" .*: it holds "–" \(U\+2013\), which is not printable ASCII; e\.g\./,
    );
    // A control character is named, never sent to the terminal.
    const esc = refusal('0 9 * * \x1b[2J');
    expect(esc).toMatch(/^cron "0 9 \* \* \\x1b\[2J" .*: it holds "\\x1b" \(U\+001B\), which is not printable ASCII/);
    expect(esc).not.toMatch(/\x1b/);
  });

  it('refuses an expression longer than 100 characters before reading it', () => {
    const long = `0 ${Array.from({ length: 40 }, (_, i) => i).join(',')} * * *`;
    expect(long.length).toBeGreaterThan(100);
    expect(refusal(long)).toMatch(/^cron "0 0,1,2,.*" is \d+ characters long, more than 100$/);
  });

  it('refuses an unknown time zone, an offset and a name longer than 64 characters', () => {
    const unknown = (tz: string) =>
      `time zone "${tz}" is unknown: give an IANA name such as "Europe/Berlin", "America/New_York" or "UTC"`;
    expect(refusal('0 9 * * *', 'Mars/Olympus_Mons')).toBe(unknown('Mars/Olympus_Mons'));
    expect(refusal('0 9 * * *', '+01:00')).toBe(unknown('+01:00'));
    expect(refusal('0 9 * * *', '')).toBe(unknown(''));
    expect(refusal('0 9 * * *', `Europe/${'x'.repeat(60)}`)).toMatch(
      /^time zone "Europe\/x+….*" is 67 characters long, more than 64$/,
    );
  });
});
