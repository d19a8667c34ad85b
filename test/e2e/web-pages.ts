import type { Page } from 'playwright-core';
import { expect } from 'vitest';
import type { Project } from './harness.js';
import { addPerson } from './serve-harness.js';

/** What the browser tests of the web pages share: workflows, and how a person finds an ask and signs in. */
export const GATE =
  'function workflow(prompt)\n  local r = pause("Ship " .. prompt .. "?")\n  return { shipped = r.continue }\nend\n';
export const RELEASE = `function workflow(prompt)
  local r = pause{message = "Release " .. prompt .. "?", decisions = {
    { id = "go", type = "approval", prompt = "Go ahead?" },
    { id = "env", type = "choice", prompt = "Where to?", options = { "staging", "prod" } },
    { id = "pct", type = "number", prompt = "Rollout %", constraints = { min = 1, max = 100 } },
    { id = "checks", type = "multi_choice", prompt = "Checks first", options = { "lint", "unit", "e2e" }, constraints = { min = 1 } },
    { id = "ticket", type = "text", prompt = "Ticket", constraints = { pattern = "^[A-Z]+-\\\\d+$" } },
    { id = "day", type = "date", prompt = "Launch day", required = false },
  }}
  return { answers = r.answers, comments = r.comments, responder = r.responder }
end
`;
export const MIGRATE =
  'function workflow(p)\n  local r = run("coder", "add the users table")\n  return r.status .. "|" .. (r.summary or "")\nend\n';

/** The open ask whose question holds `text`, on the page as it is now. */
export const askOn = (page: Page, text: string) => page.locator('article.ask', { hasText: text });

export async function signIn(page: Page, base: string, p: Project, name: string) {
  await page.goto(`${base}/login/${addPerson(p, name)}`);
  await page.getByRole('button', { name: `Sign in as ${name}` }).click();
  await page.waitForURL(`${base}/`);
  await expect.poll(() => page.locator('header.top').innerText()).toContain(`signed in as ${name}`);
}
