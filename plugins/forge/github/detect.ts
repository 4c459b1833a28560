/**
 * Which GitHub repository a remote URL names. Accepted forms, each with or without `.git`:
 * `https://github.com/o/r`, `http://…`, `ssh://git@github.com/o/r`, `ssh://git@github.com:22/o/r`,
 * `git@github.com:o/r`, `git://github.com/o/r`. Besides github.com, the host named by `GH_HOST`
 * (the gh CLI's own variable) or by `GITHUB_SERVER_URL` counts, for GitHub Enterprise.
 */
import type { ForgeRepo } from '../../../kernel/plugin/index.js';

export function githubHosts(env: Record<string, string> = {}): string[] {
  const hosts = ['github.com'];
  const gh = env.GH_HOST?.trim().toLowerCase();
  if (gh) hosts.push(gh.replace(/^https?:\/\//, '').replace(/\/.*$/, ''));
  const server = env.GITHUB_SERVER_URL?.trim();
  if (server) {
    try {
      hosts.push(new URL(server).host.toLowerCase());
    } catch {}
  }
  return [...new Set(hosts)];
}

const SEGMENT = /^[A-Za-z0-9_.-]+$/;

function repoOf(host: string, path: string): ForgeRepo | null {
  const parts = path
    .replace(/^\/+/, '')
    .replace(/\/+$/, '')
    .replace(/\.git$/, '')
    .split('/');
  if (parts.length !== 2) return null;
  const [owner, name] = parts as [string, string];
  if (!SEGMENT.test(owner) || !SEGMENT.test(name) || name === '.' || name === '..') return null;
  return { host, owner, name, full_name: `${owner}/${name}` };
}

export function detectGithub(remoteUrl: string, env?: Record<string, string>): ForgeRepo | null {
  const url = remoteUrl.trim();
  const hosts = githubHosts(env);
  const scp = /^[A-Za-z0-9._-]+@([^:/]+):(.+)$/.exec(url);
  if (scp) {
    const host = (scp[1] as string).toLowerCase();
    return hosts.includes(host) ? repoOf(host, scp[2] as string) : null;
  }
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return null;
  }
  if (!['https:', 'http:', 'ssh:', 'git:'].includes(u.protocol)) return null;
  const host = u.hostname.toLowerCase();
  if (!hosts.includes(host)) return null;
  return repoOf(host, decodeURIComponent(u.pathname));
}

/** The REST base URL: `GITHUB_API_URL` when set (tests, GHE), else the host's default. */
export function apiBase(host: string, env: Record<string, string>): string {
  const override = env.GITHUB_API_URL?.trim();
  if (override) return override.replace(/\/+$/, '');
  return host === 'github.com' ? 'https://api.github.com' : `https://${host}/api/v3`;
}
