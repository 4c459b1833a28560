/**
 * The web board (issue 23, docs/web.md): a browser client of the daemon's HTTP API and nothing
 * else. Signing in: `svc ui` opens `/ui/#code=<code>`; the code is taken out of the address bar
 * and the history at once and traded for a session credential kept in `sessionStorage`.
 */
import { render } from 'preact';
import { App } from './components/app.js';
import './styles.css';

const root = document.getElementById('app');
if (root) render(<App />, root);
