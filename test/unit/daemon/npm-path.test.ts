// Issue 19 point 1 (decision 200): a daemon started by an npm script drops what npm put in front
// of PATH — node_modules/.bin of the package and of every folder above it, and npm's node-gyp-bin —
// and nothing else.
import { delimiter } from 'node:path';
import { describe, expect, it } from 'vitest';
import { pathWithoutNpmPrefix } from '../../../kernel/daemon/index.js';

const GYP = '/usr/lib/node_modules/npm/node_modules/@npmcli/run-script/lib/node-gyp-bin';
const join = (...p: string[]) => p.join(delimiter);

describe('pathWithoutNpmPrefix', () => {
  it('takes off the .bin chain and node-gyp-bin npm prepended for the package it ran', () => {
    const r = pathWithoutNpmPrefix({
      npm_package_json: '/home/me/src/svc/package.json',
      PATH: join(
        '/home/me/src/svc/node_modules/.bin',
        '/home/me/src/node_modules/.bin',
        '/home/me/node_modules/.bin',
        '/home/node_modules/.bin',
        '/node_modules/.bin',
        GYP,
        '/home/me/.local/bin',
        '/usr/bin',
      ),
    });
    expect(r.path).toBe(join('/home/me/.local/bin', '/usr/bin'));
    expect(r.removed).toHaveLength(6);
  });

  it('takes the prefix of nested npm scripts too, and keeps the same folder when the user named it', () => {
    const chain = ['/w/svc/node_modules/.bin', '/w/node_modules/.bin', '/node_modules/.bin', GYP];
    const r = pathWithoutNpmPrefix({
      npm_package_json: '/w/svc/package.json',
      PATH: join(...chain, ...chain, '/opt/tools', '/w/svc/node_modules/.bin', '/usr/bin'),
    });
    expect(r.path).toBe(join('/opt/tools', '/w/svc/node_modules/.bin', '/usr/bin'));
  });

  it('leaves PATH alone when no npm script started the daemon', () => {
    const PATH = join('/w/svc/node_modules/.bin', '/usr/bin');
    expect(pathWithoutNpmPrefix({ PATH })).toEqual({ path: PATH, removed: [] });
  });
});
