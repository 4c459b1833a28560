/**
 * Every route module, in the order they register. One file per resource. Only the kernel's
 * assembly (kernel.ts) imports this list; the http door does not re-export it, so a room that
 * needs the door (MCP) never reaches every route and, through them, the services type.
 */
import type { RouteModule } from '../route-module.js';
import { agentsRoutes } from './agents.js';
import { backupRoutes } from './backup.js';
import { chatRoutes } from './chats.js';
import { configRoutes } from './config.js';
import { daemonRoutes } from './daemon.js';
import { doctorRoutes } from './doctor.js';
import { eventsRoutes } from './events.js';
import { maintenanceRoutes } from './maintenance.js';
import { projectRoutes } from './projects.js';
import { reviewRoutes } from './review.js';
import { taskRoutes } from './tasks.js';
import { triggerRoutes } from './triggers.js';
import { uiRoutes } from './ui.js';
import { updateRoutes } from './update.js';
import { workflowsRoutes } from './workflows.js';

export const routeModules: RouteModule[] = [
  daemonRoutes,
  configRoutes,
  eventsRoutes,
  projectRoutes,
  taskRoutes,
  reviewRoutes,
  chatRoutes,
  triggerRoutes,
  doctorRoutes,
  backupRoutes,
  maintenanceRoutes,
  updateRoutes,
  workflowsRoutes,
  agentsRoutes,
  uiRoutes,
];
