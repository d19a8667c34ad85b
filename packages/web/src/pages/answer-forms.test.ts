import { agentAsk, pauseAsk, pendingJson } from '@shop/core/testing';
import { describe, expect, it } from 'vitest';
import { answerForms, type FormTarget } from './answer-forms.js';

const target: FormTarget = { action: '/answer', csrf: 'tok', nameField: false, back: '/' };
const render = (exec: Parameters<typeof pendingJson>[1], t = target) => answerForms(pendingJson(7, exec), t).text;
/** The markup of one decision's fieldset. */
const fieldset = (page: string, id: string) => page.split('<fieldset').find((f) => f.includes(`name="d.${id}"`)) ?? '';

const allTypes = pauseAsk({
  message: 'Ship the release?',
  decisions: [
    { id: 'go', type: 'approval', prompt: 'Ship it?' },
    {
      id: 'env',
      type: 'choice',
      prompt: 'Where?',
      options: ['staging', { value: 'prod', label: 'Production', description: 'the real one' }],
    },
    { id: 'region', type: 'choice', prompt: 'Region?', options: ['a', 'b', 'c', 'd', 'e', 'f'], default: 'c' },
    {
      id: 'checks',
      type: 'multi_choice',
      prompt: 'Which checks?',
      options: ['lint', 'unit', 'e2e'],
      default: ['unit'],
      constraints: { min: 1, max: 2 },
    },
    { id: 'note', type: 'text', prompt: 'Release note', constraints: { min: 3, max: 80 }, required: false },
    { id: 'ticket', type: 'text', prompt: 'Ticket', constraints: { pattern: '^[A-Z]+-\\d+$' } },
    { id: 'pct', type: 'number', prompt: 'Rollout %', constraints: { min: 1, max: 100 }, default: 10 },
    { id: 'day', type: 'date', prompt: 'When?' },
  ],
});

describe('answer forms', () => {
  it('a pause with decisions: one decide form with the right input per type, and reject', () => {
    const page = render(allTypes);
    expect(page.match(/<form /g)).toHaveLength(2);
    expect(page).toContain('name="verb" value="decide"');
    expect(page).toContain('name="verb" value="reject"');
    expect(page).not.toContain('value="approve"');
    expect(page).toContain('data-check="decisions"');
    expect(page).toContain('name="csrf" value="tok"');
    expect(page).toContain('name="handle" value="7.2"');
    expect(page).toContain('name="back" value="/"');

    const go = fieldset(page, 'go');
    expect(go.match(/type="radio" name="d.go" value="(true|false)" required/g)).toHaveLength(2);
    expect(go).toContain('name="c.go"');

    const env = fieldset(page, 'env');
    expect(env).toContain('type="radio" name="d.env" value="prod" required');
    expect(env).toContain('Production');
    expect(env).toContain('the real one');

    const region = fieldset(page, 'region');
    expect(region).toContain('<select');
    expect(region).toContain('<option value="c" selected>');
    expect(region).not.toMatch(/<select[^>]*required/); // a default answers it

    const checks = fieldset(page, 'checks');
    expect(checks).toContain('data-min="1" data-max="2"');
    expect(checks).toContain('type="checkbox" name="d.checks" value="unit" checked');
    expect(checks).toContain('type="checkbox" name="d.checks" value="e2e">');
    expect(checks).toContain('choose at least 1, choose at most 2');

    const note = fieldset(page, 'note');
    expect(note).toMatch(
      /<textarea id="([^"]+)" name="d.note" aria-labelledby="\1-l" rows="3" minlength="3" maxlength="80">/,
    );
    expect(note).toContain('(optional)');

    const ticket = fieldset(page, 'ticket');
    // Checked by the page's script as the server checks it; no pattern attribute a browser would compile otherwise.
    expect(ticket).toContain('data-pattern="^[A-Z]+-\\d+$"');
    expect(ticket).not.toMatch(/ pattern=/);
    expect(ticket).toMatch(/name="d.ticket"[^>]* required/);

    const pct = fieldset(page, 'pct');
    expect(pct).toContain('type="number"');
    expect(pct).toMatch(/step="any"[^>]* min="1" max="100" value="10">/);

    expect(fieldset(page, 'day')).toMatch(/type="date"[^>]*name="d.day" aria-labelledby="[^"]+-l" required>/);
  });

  it('an optional approval or choice without a default offers "No answer"; one with a default or a required one does not', () => {
    const page = render(
      pauseAsk({
        message: 'm',
        decisions: [
          { id: 'a', type: 'approval', prompt: 'A?', required: false },
          { id: 'b', type: 'choice', prompt: 'B?', options: ['x', 'y'], required: false, default: 'y' },
          { id: 'c', type: 'approval', prompt: 'C?' },
        ],
      }),
    );
    expect(fieldset(page, 'a')).toContain(
      '<input type="radio" name="d.a" value="" checked> <span class="muted">No answer</span>',
    );
    expect(fieldset(page, 'b')).not.toContain('No answer');
    expect(fieldset(page, 'b')).toContain('value="y" checked');
    expect(fieldset(page, 'c')).not.toContain('No answer');
  });

  it('a plain pause: approve and reject (stop it), words optional', () => {
    const page = render(pauseAsk('Deploy now?'));
    expect(page).toContain('value="approve"');
    expect(page).toContain('Reject (stop it)');
    expect(page).not.toContain(' required');
    expect(page).not.toContain('v-decide');
    expect(page).toContain('In a terminal: <code>shop continue 7.2</code> (decide here)');
  });

  it('an agent asking for approval: approve, and reject whose feedback is required (it goes back to the agent)', () => {
    const page = render(agentAsk({ awaiting: 'approval', waitingFor: 'Merge the PR?' }));
    const [approve, reject] = page.split('<form ').slice(1);
    expect(approve).toContain('value="approve"');
    expect(approve).not.toContain('required');
    expect(approve).toContain('returns APPROVED to the workflow');
    expect(reject).toContain('value="reject"');
    expect(reject).toMatch(/<textarea [^>]*name="message"[^>]* required>/);
    expect(reject).toContain('goes back to the agent');
    expect(page).toContain(
      '<p class="hint terminal">In a terminal: <code>shop continue 7.2</code> (talk to the agent)</p>',
    );
  });

  it('an agent asking for input: a required answer, and reject that closes it (words optional)', () => {
    const page = render(agentAsk({ awaiting: 'input' }));
    const [answer, reject] = page.split('<form ').slice(1);
    expect(answer).toContain('value="answer"');
    expect(answer).toMatch(/name="message"[^>]* required>/);
    expect(reject).not.toContain('required');
    expect(reject).toContain('returns REJECTED to the workflow');
  });

  it("an agent's question with choices of its own (AskUserQuestion): a decide form with them, and the words' answer form", () => {
    const ask = agentAsk({
      awaiting: 'input',
      waitingFor: 'Which database?',
      askDecisions: [
        {
          id: 'q1',
          type: 'choice',
          prompt: 'Which database?',
          required: true,
          options: [
            { value: 'Postgres', label: 'Postgres', description: undefined },
            { value: 'SQLite', label: 'SQLite', description: undefined },
          ],
        },
      ],
    });
    const page = render(ask);
    expect(page).toContain('name="verb" value="decide"');
    expect(fieldset(page, 'q1').match(/type="radio" name="d.q1" value="(Postgres|SQLite)"/g)).toHaveLength(2);
    expect(page).toContain('value="answer"');
  });

  it('an answer link asks for the name (required) and posts to its own action', () => {
    const page = render(pauseAsk('Deploy?'), { action: '/a/xyz', csrf: 'c', nameField: true });
    expect(page.match(/name="by" required/g)).toHaveLength(2);
    expect(page.match(/action="\/a\/xyz"/g)).toHaveLength(2);
    expect(page).not.toContain('name="back"');
    expect(page).not.toContain('In a terminal');
  });
});

describe('a form the server refused', () => {
  it('comes back as it was posted — every value, choice, comment and the message — with why, escaped', () => {
    const posted = new URLSearchParams([
      ['verb', 'decide'],
      ['d.go', 'false'],
      ['d.env', 'prod'],
      ['d.region', 'e'],
      ['d.checks', 'lint'],
      ['d.checks', 'e2e'],
      ['d.note', '<b>hi</b>'],
      ['d.ticket', 'bad ticket'],
      ['d.pct', '20'],
      ['c.pct', 'slowly'],
      ['d.day', '2026-12-01'],
      ['message', 'see "the plan"'],
    ]);
    const page = render(allTypes, {
      ...target,
      refused: { posted, error: 'invalid answers, nothing recorded: ticket: must match /^[A-Z]+-\\d+$/' },
    });
    expect(page).toContain(
      '<p class="problems" role="alert">Not sent — please fix:\ninvalid answers, nothing recorded: ticket: must match /^[A-Z]+-\\d+$/</p>',
    );
    expect(fieldset(page, 'go')).toMatch(/value="false" required checked>/);
    expect(fieldset(page, 'go')).not.toMatch(/value="true" required checked/);
    expect(fieldset(page, 'env')).toMatch(/value="prod"[^>]* checked>/);
    expect(fieldset(page, 'region')).toMatch(/<option value="e" selected>/);
    expect(fieldset(page, 'checks')).toMatch(/value="lint" checked>/);
    expect(fieldset(page, 'checks')).toMatch(/value="e2e" checked>/);
    expect(fieldset(page, 'checks')).not.toMatch(/value="unit" checked>/);
    expect(fieldset(page, 'note')).toContain('>&lt;b&gt;hi&lt;/b&gt;</textarea>');
    expect(fieldset(page, 'ticket')).toContain('value="bad ticket"');
    expect(fieldset(page, 'pct')).toContain('value="20"');
    expect(fieldset(page, 'pct')).toMatch(/<details class="comment" id="[^"]+" open>/);
    expect(fieldset(page, 'pct')).toContain('name="c.pct" maxlength="2000" autocomplete="off" value="slowly"');
    expect(fieldset(page, 'day')).toContain('value="2026-12-01"');
    expect(page).toContain('name="message" rows="1" maxlength="20000">see &quot;the plan&quot;</textarea>');
  });

  it('a refused reject comes back unfolded with the feedback typed; the other forms as they were', () => {
    const ask = agentAsk({ awaiting: 'approval' });
    const posted = new URLSearchParams([
      ['verb', 'reject'],
      ['message', 'not like this'],
    ]);
    const page = render(ask, { ...target, refused: { posted, error: 'something was wrong' } });
    expect(page).toMatch(/<details class="more v-reject" id="[^"]+" open>/);
    expect(page).toContain('>not like this</textarea>');
    expect(page.match(/class="problems"/g)).toHaveLength(1);
  });
});
