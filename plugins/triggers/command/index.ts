/**
 * command: a trigger source that runs a program every `poll_interval` and reads one JSON event
 * per line from its output (SPEC §2.6, §4.6). The program is argv — never a shell line — run in
 * the project directory with the daemon's environment policy plus `SVC_TRIGGER_ID`,
 * `SVC_TRIGGER_CURSOR` (the last watermark it printed, empty on the first poll after arming) and
 * `SVC_TRIGGER_SEEDING` (`1` on that first poll). A failing, timed-out or over-talkative program
 * is a failed poll with nothing judged. Uses only the plugin door. Decision 085.
 */
import { z } from 'zod';
import {
  definePlugin,
  defineTriggerSource,
  durationField,
  durationMs,
  type TriggerFieldRow,
} from '../../../kernel/plugin/index.js';
import { droppedEvents, nextCursor, parseCommandOutput } from './parse.js';

export const CommandSourceSchema = z.strictObject({
  type: z.literal('command'),
  command: z
    .array(z.string().min(1, 'command items must not be empty'), {
      error: 'command is argv: a list of strings (no shell)',
    })
    .min(1, 'command must name a program'),
  poll_interval: durationField('poll_interval', '5m', 1000),
  timeout: durationField('timeout', '1m', 100),
});
export type CommandSource = z.infer<typeof CommandSourceSchema>;

/** Output past this is a failed poll: twenty events never need more. */
export const MAX_OUTPUT_BYTES = 4 * 1024 * 1024;

const rows: TriggerFieldRow[] = [
  {
    name: 'command',
    control: 'list',
    required: true,
    help: 'argv, no shell. Prints one JSON object per line with an id; may print {"cursor": "..."}.',
  },
  { name: 'poll_interval', control: 'duration', default: '5m' },
  { name: 'timeout', control: 'duration', default: '1m', help: 'A poll taking longer fails.' },
];

function tail(text: string): string {
  return text.trim().split('\n').slice(-3).join(' ').slice(0, 500);
}

export const commandSource = defineTriggerSource<CommandSource>({
  type: 'command',
  schema: CommandSourceSchema,
  meta: {
    kind: 'poll',
    help: 'Runs a program each poll_interval and reads one JSON event per line from it.',
    rows,
    trusted: ['id'],
  },
  interval: (def) => durationMs(def.poll_interval),
  async poll(ctx, def, cursor) {
    const seeding = cursor === null;
    const r = await ctx.run(def.command, {
      env: {
        SVC_TRIGGER_ID: ctx.triggerId,
        SVC_TRIGGER_CURSOR: cursor ?? '',
        SVC_TRIGGER_SEEDING: seeding ? '1' : '0',
      },
      timeoutMs: durationMs(def.timeout),
      maxOutputBytes: MAX_OUTPUT_BYTES,
    });
    const program = def.command[0];
    if (r.spawnError) return { ok: false, error: `cannot run ${program}: ${r.spawnError}` };
    if (r.timedOut) return { ok: false, error: `${program} did not finish within ${def.timeout}` };
    if (r.overflow)
      return { ok: false, error: `${program} printed more than ${MAX_OUTPUT_BYTES} bytes` };
    if (r.code !== 0)
      return {
        ok: false,
        error: `${program} exited ${r.code ?? 'on a signal'}${r.stderr.trim() ? `: ${tail(r.stderr)}` : ''}`,
      };
    const parsed = parseCommandOutput(r.stdout, ctx.maxEvents);
    const dropped = droppedEvents(parsed, seeding);
    return {
      ok: true,
      events: parsed.events,
      cursor: nextCursor(parsed, seeding),
      truncated: parsed.truncated,
      refused: parsed.refused,
      ...(dropped.length > 0 ? { dropped } : {}),
    };
  },
});

export default definePlugin({
  name: 'svc:triggers/command',
  svc: '^2.0.0',
  setup(api) {
    api.registerTriggerSource(commandSource);
  },
});
