/** The pages the server renders (packages/web/src/pages), in one import for the routes. */
export { askPage } from './pages/ask.js';
export { errorPage } from './pages/error.js';
export { formAnswer } from './pages/form-answer.js';
export { inboxPage } from './pages/inbox.js';
export { layout, renderPage as pageHtml, type Page, type PageView } from './pages/layout.js';
export { loginConfirmPage, loginPage } from './pages/login.js';
export { runPage } from './pages/run.js';
export { runsPage } from './pages/runs.js';
