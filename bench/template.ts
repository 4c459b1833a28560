/**
 * The template engine's speed once a template is parsed: a typical prompt (fields, a range over
 * the steps, an `if eq`) rendered 10,000 times, the way every agent step renders its prompt. It
 * was a timed assertion in test/unit/template until the suite, run beside other work, missed it;
 * speed targets live here (issue 22). Baseline in the same run: the same text built by a
 * hand-written function, the floor any renderer of that prompt starts from. Each pass is timed
 * alone and the median pass is reported, so one scheduling stall does not decide the figure.
 */
import { parseTemplate } from '../lib/template/index.js';
import { median, now } from './lib/stats.js';

export interface TemplateResult {
  renders: number;
  /** Each pass's wall time for `renders` renders, in ms. */
  passMs: number[];
  baselineMs: number[];
  /** Parsing the template once, the median of the passes. */
  parseMs: number;
  /** Empty when every render printed what the hand-written function prints. */
  problems: string[];
}

const SOURCE =
  'Task {{.Task.ID}}: {{.Task.Title}}\n{{range $id, $s := .Steps}}- {{$id}}: {{$s.Status}}\n{{end}}{{if eq .Task.Fields.kind "bug"}}Fix it.{{else}}Build it.{{end}}';

interface Data {
  Task: { ID: string; Title: string; Fields: Record<string, string> };
  Steps: Record<string, { Status: string }>;
}

const DATA: Data = {
  Task: { ID: 't1', Title: 'Title', Fields: { kind: 'bug' } },
  Steps: { a: { Status: 'succeeded' }, b: { Status: 'skipped' } },
};

/** What the template prints, written by hand: Go ranges over a map in key order. */
function byHand(d: Data): string {
  let out = `Task ${d.Task.ID}: ${d.Task.Title}\n`;
  for (const id of Object.keys(d.Steps).sort()) out += `- ${id}: ${d.Steps[id]?.Status}\n`;
  return out + (d.Task.Fields.kind === 'bug' ? 'Fix it.' : 'Build it.');
}

export function templateSpeed(opts: { renders: number; passes: number }): TemplateResult {
  const expected = byHand(DATA);
  const problems: string[] = [];
  const passMs: number[] = [];
  const baselineMs: number[] = [];
  const parses: number[] = [];
  let sink = 0;
  for (let pass = 0; pass < opts.passes; pass++) {
    let t0 = now();
    const t = parseTemplate(SOURCE);
    parses.push(now() - t0);
    const got = t.execute(DATA);
    if (got !== expected && problems.length === 0)
      problems.push(`rendered ${JSON.stringify(got)}, expected ${JSON.stringify(expected)}`);
    // Interleaved with its baseline so a busy moment slows both alike.
    t0 = now();
    for (let i = 0; i < opts.renders; i++) sink += t.execute(DATA).length;
    passMs.push(now() - t0);
    t0 = now();
    for (let i = 0; i < opts.renders; i++) sink += byHand(DATA).length;
    baselineMs.push(now() - t0);
  }
  // The sink keeps the loops from being optimised away; its value is known.
  if (sink !== expected.length * opts.renders * opts.passes * 2)
    problems.push('a render printed a different length');
  return { renders: opts.renders, passMs, baselineMs, parseMs: median(parses), problems };
}
