/**
 * The strip at the top (issue 23 points 3 and 7): navigation, each agent's verdict and quota
 * (used %, reset time), the count of tasks waiting on a person (also in the page title), the
 * stream's state, and the opt-in for desktop notifications.
 */
import { useEffect } from 'preact/hooks';
import type { AgentRecord } from '../../shared/wire-types.js';
import { useLive, useNow } from '../hooks.js';
import { needsYouCount } from '../lib/board.js';
import { clock, isZeroTime } from '../lib/format.js';
import type { Live } from '../live.js';

function agentBadge(
  a: AgentRecord,
  now: number,
): { text: string; tone: string; pct: number | null; title: string } {
  if (!a.available)
    return { text: 'not installed', tone: 'muted', pct: null, title: `${a.name} is not installed` };
  if (a.logged_in === false)
    return { text: 'signed out', tone: 'bad', pct: null, title: `${a.name} is not logged in` };
  const q = a.quota;
  const version = `${a.name}${a.version ? ` ${a.version}` : ''}${a.version_verdict ? ` (${a.version_verdict})` : ''}`;
  if (a.version_verdict === 'incompatible')
    return { text: 'incompatible version', tone: 'bad', pct: null, title: version };
  if (!q)
    return { text: 'ready', tone: 'good', pct: null, title: `${version}: no quota reading yet` };
  const reset = isZeroTime(q.resets_at) ? '' : clock(q.resets_at, now);
  if (q.spent)
    return {
      text: reset ? `spent until ${reset}` : 'spent',
      tone: 'bad',
      pct: 100,
      title: `${version}: usage limit reached`,
    };
  if (q.used_percent !== null) {
    const pct = Math.round(q.used_percent);
    return {
      text: `${pct}%${q.window ? ` of ${q.window}` : ''}${reset ? ` · resets ${reset}` : ''}`,
      tone: pct >= 80 ? 'warn' : 'good',
      pct,
      title: `${version}: ${pct}% used`,
    };
  }
  return { text: 'ready', tone: 'good', pct: null, title: version };
}

export function Header({ live, route }: { live: Live; route: string }) {
  useLive(live);
  const now = useNow(30_000);
  const waiting = needsYouCount(live.tasks.values());
  useEffect(() => {
    document.title =
      waiting > 0 ? `(${waiting}) svc — ${waiting} need${waiting === 1 ? 's' : ''} you` : 'svc';
  }, [waiting]);
  const canNotify = typeof Notification !== 'undefined';
  return (
    <header class="top">
      <a class="brand" href="#/">
        svc
      </a>
      <nav class="nav">
        <a href="#/" class={route === '' ? 'on' : ''}>
          Board
        </a>
        <a href="#/chats" class={route === 'chats' ? 'on' : ''}>
          Chats
        </a>
      </nav>
      <a
        class={`needs ${waiting > 0 ? 'hot' : ''}`}
        href="#/"
        data-testid="needs-you"
        title="tasks waiting on you"
      >
        <span class="count">{waiting}</span> need{waiting === 1 ? 's' : ''} you
      </a>
      <div class="agents" data-testid="agents">
        {live.agents.map((a) => {
          const b = agentBadge(a, now);
          return (
            <span class={`agent ${b.tone}`} title={b.title} key={a.name}>
              <span class="dot" />
              <span class="agent-name">{a.name}</span>
              <span class="agent-quota">{b.text}</span>
              {b.pct !== null && (
                <span class="meter">
                  <span class="fill" style={{ width: `${Math.min(100, b.pct)}%` }} />
                </span>
              )}
            </span>
          );
        })}
      </div>
      <div class="top-right">
        <span
          class={`live ${live.status}`}
          data-testid="stream"
          title={`event stream: ${live.status}`}
        >
          {live.status === 'live' ? 'live' : live.status === 'lost' ? 'reconnecting' : 'connecting'}
        </span>
        {canNotify && (
          <button
            type="button"
            class={`ghost small ${live.notifying ? 'on' : ''}`}
            title="desktop notifications when a task starts waiting on you"
            onClick={() => void live.setNotifying(!live.notifying)}
          >
            {live.notifying ? 'Notifications on' : 'Notify me'}
          </button>
        )}
        <a class="button primary" href="#/new" data-testid="new-task">
          New task
        </a>
      </div>
    </header>
  );
}
