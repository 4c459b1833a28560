/** The review functions' view of the daemon's services, as the routes and the MCP tools pass it. */

import type { ReviewDeps } from '../review/index.js';
import type { Services } from '../services.js';

export function reviewDeps(s: Services): ReviewDeps {
  return {
    task: (id) => s.engine.get(id),
    runs: s.engine.runs,
    projects: s.projects,
    store: s.store,
    openChat: (id) => s.engine.openChat(id),
    followUp: (id, body) => s.engine.actions.followUp(id, body),
    reject: (id) => s.engine.actions.reject(id),
    repair: (id, body) => s.engine.actions.repair(id, body),
  };
}
