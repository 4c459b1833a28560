import type { FastifyInstance } from 'fastify';
import type { Services } from '../services.js';

/** One resource's routes, registered on the app with every service at hand. */
export type RouteModule = (app: FastifyInstance, s: Services) => void;
