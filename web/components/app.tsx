/**
 * Signing in, then the page: the header strip and the view the address names. Without a valid
 * session the page shows how to sign in (`svc ui`) and reads nothing.
 */
import { useEffect, useState } from 'preact/hooks';
import { Api, exchangeCode, storedSession, storeSession } from '../api.js';
import { useHash } from '../hooks.js';
import { Live } from '../live.js';
import { BoardView } from './board.js';
import { ChatsView, ChatView } from './chats.js';
import { Header } from './header.js';
import { NewTaskView } from './new-task.js';
import { TaskView } from './task.js';

type Phase = { kind: 'starting' } | { kind: 'out'; reason?: string } | { kind: 'in'; live: Live };

const REFUSED: Record<string, string> = {
  code_used: 'That sign-in link was already used.',
  code_expired: 'That sign-in link expired (links last 60 seconds).',
  code_unknown: 'That sign-in link is not one this daemon issued (was it restarted?).',
};

export function App() {
  const [phase, setPhase] = useState<Phase>({ kind: 'starting' });

  useEffect(() => {
    let live: Live | null = null;
    const start = async () => {
      const m = /^#code=([^&]*)/.exec(location.hash);
      if (m) {
        live?.stop();
        live = null;
        // Out of the address bar and this history entry before anything else happens.
        history.replaceState(null, '', `${location.pathname}#/`);
        try {
          storeSession(await exchangeCode(decodeURIComponent(m[1] ?? '')));
        } catch (err) {
          const reason = (err as { details?: { reason?: string } }).details?.reason ?? '';
          storeSession(null);
          setPhase({ kind: 'out', reason: REFUSED[reason] ?? (err as Error).message });
          return;
        }
      } else if (live) return;
      const session = storedSession();
      if (!session) {
        setPhase({ kind: 'out' });
        return;
      }
      const api = new Api(session);
      const current = new Live(api);
      live = current;
      api.onSignedOut = () => {
        storeSession(null);
        current.stop();
        setPhase({
          kind: 'out',
          reason:
            'Your session ended (it lasts 24 hours, and ends when the daemon’s token changes).',
        });
      };
      current.start();
      setPhase({ kind: 'in', live: current });
    };
    // A sign-in link opened in a tab that already shows the board arrives as a hash change.
    const onHash = () => {
      if (location.hash.startsWith('#code=')) void start();
    };
    addEventListener('hashchange', onHash);
    void start();
    return () => {
      removeEventListener('hashchange', onHash);
      live?.stop();
    };
  }, []);

  if (phase.kind === 'starting') return <div class="splash">svc</div>;
  if (phase.kind === 'out') return <SignIn reason={phase.reason} />;
  return <Signed live={phase.live} />;
}

function SignIn({ reason }: { reason?: string }) {
  useEffect(() => {
    document.title = 'svc — sign in';
  }, []);
  return (
    <main class="signin" data-testid="signin">
      <div class="signin-card">
        <div class="brand big">svc</div>
        {reason && <p class="signin-reason">{reason}</p>}
        <p>To open the board, run this in a terminal on this machine:</p>
        <pre class="signin-cmd">svc ui</pre>
        <p class="muted">
          It opens this page with a single-use sign-in link. The link works once, within 60 seconds;
          the session it starts lasts until you close this tab (at most 24 hours).
        </p>
      </div>
    </main>
  );
}

function Signed({ live }: { live: Live }) {
  const hash = useHash();
  const route = hash.replace(/^#\/?/, '');
  const parts = route.split('/');
  let view = <BoardView live={live} />;
  if (parts[0] === 'tasks' && /^\d+$/.test(parts[1] ?? ''))
    view = <TaskView key={parts[1]} live={live} id={Number(parts[1])} tab={parts[2] ?? 'output'} />;
  else if (parts[0] === 'new') view = <NewTaskView live={live} />;
  else if (parts[0] === 'chats' && /^\d+$/.test(parts[1] ?? ''))
    view = <ChatView key={parts[1]} live={live} id={Number(parts[1])} />;
  else if (parts[0] === 'chats') view = <ChatsView live={live} />;
  return (
    <div class="shell">
      <Header live={live} route={parts[0] ?? ''} />
      <main class="view">{view}</main>
    </div>
  );
}
