/**
 * The pages the server renders, from packages/web/src/pages: the one place the routes take
 * them from.
 */
export { layout, partialBody, type Page, type PageView } from './pages/layout.js';
export { inboxPage } from './pages/inbox.js';
export { runsPage } from './pages/runs.js';
export { runPage } from './pages/run.js';
export { askPage } from './pages/ask.js';
export { loginPage } from './pages/login.js';
export { errorPage } from './pages/error.js';
export { formAnswer } from './pages/form-answer.js';
