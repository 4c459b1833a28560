/**
 * The web board's routes (issue 23, decisions 240–241): `GET /` sends a browser to `/ui/`, the
 * page and its assets are served under `/ui/`, `POST /v1/ui/codes` issues a sign-in code to a
 * holder of the daemon token (`svc ui`), and `POST /v1/ui/session` trades a code for a session
 * credential. Everything else the page does goes through the same routes as the CLI.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { SvcError } from '../../errors.js';
import { parseWith } from '../../input/index.js';
import type { Services } from '../../services.js';
import { tokenMatches } from '../guard.js';
import { UI_CODE_PATTERN } from '../ui-auth.js';

export const UiSessionBodySchema = z.strictObject({
  code: z
    .string()
    .regex(UI_CODE_PATTERN, 'must be a sign-in code from `svc ui` (43 URL-safe characters)')
    .describe('The single-use code from the sign-in link `svc ui` printed (after `#code=`).'),
});

function sendAsset(s: Services, name: string, req: FastifyRequest, reply: FastifyReply) {
  const asset = s.uiAssets.get(name);
  if (!asset) {
    const why = s.uiAssets.dir()
      ? `no web board file named ${name.slice(0, 100)}`
      : 'the web board is not built: run `npm run build`';
    throw new SvcError('not_found', why);
  }
  void reply
    .header('content-type', asset.type)
    .header('cache-control', asset.cacheControl)
    .header('etag', asset.etag);
  if (req.headers['if-none-match'] === asset.etag) return reply.code(304).send();
  return reply.send(asset.body);
}

export function uiRoutes(app: FastifyInstance, s: Services): void {
  app.get('/', async (_req, reply) => reply.redirect('/ui/', 302));

  // With ignoreTrailingSlash, `/ui` and `/ui/` are one route; the page names its assets absolutely.
  app.get('/ui', async (req, reply) => sendAsset(s, 'index.html', req, reply));
  app.get<{ Params: { file: string } }>('/ui/:file', async (req, reply) =>
    sendAsset(s, req.params.file, req, reply),
  );

  app.post('/v1/ui/codes', async (req, reply) => {
    // The guard lets only the token through here; checked again so no spelling of the path
    // (percent-encoding) could let a session credential issue itself a code.
    if (!tokenMatches(s.daemon.token, req.headers.authorization))
      throw new SvcError('unauthorized', 'sign-in codes are issued to the daemon token only');
    return reply.code(201).send(s.uiAuth.issueCode());
  });

  app.post('/v1/ui/session', async (req, reply) => {
    const body = parseWith(UiSessionBodySchema, req.body);
    return reply.send(s.uiAuth.exchange(body.code));
  });
}
