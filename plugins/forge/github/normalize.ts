/** GitHub's REST shapes turned into the forge contract's issues and pull requests. */
import type { ForgeIssue, ForgePull } from '../../../kernel/plugin/index.js';

type Json = Record<string, unknown>;

const str = (v: unknown): string => (typeof v === 'string' ? v : '');
const obj = (v: unknown): Json => (v !== null && typeof v === 'object' ? (v as Json) : {});

function labels(v: unknown): string[] {
  if (!Array.isArray(v)) return [];
  return v.map((l) => (typeof l === 'string' ? l : str(obj(l).name))).filter((l) => l !== '');
}

export function isIssueJson(v: unknown): v is Json {
  const o = obj(v);
  return typeof o.number === 'number' && typeof o.title === 'string';
}

export function toIssue(v: Json): ForgeIssue {
  return {
    number: v.number as number,
    title: str(v.title),
    body: str(v.body),
    url: str(v.html_url),
    state: v.state === 'closed' ? 'closed' : 'open',
    labels: labels(v.labels),
    author: str(obj(v.user).login),
    created_at: str(v.created_at),
    updated_at: str(v.updated_at),
  };
}

export function toPull(v: Json): ForgePull {
  const head = obj(v.head);
  const base = obj(v.base);
  const headRepo =
    head.repo === null || head.repo === undefined ? null : str(obj(head.repo).full_name);
  const baseRepo = str(obj(base.repo).full_name);
  return {
    number: v.number as number,
    title: str(v.title),
    body: str(v.body),
    url: str(v.html_url),
    state: v.merged_at ? 'merged' : v.state === 'closed' ? 'closed' : 'open',
    draft: v.draft === true,
    labels: labels(v.labels),
    author: str(obj(v.user).login),
    head_ref: str(head.ref),
    head_sha: str(head.sha),
    head_repo: headRepo || null,
    base_ref: str(base.ref),
    fork: headRepo === null || headRepo === '' || headRepo.toLowerCase() !== baseRepo.toLowerCase(),
    created_at: str(v.created_at),
    updated_at: str(v.updated_at),
  };
}
