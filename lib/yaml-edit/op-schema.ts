import { z } from 'zod';

/** §8: one workflow or trigger PATCH carries at most this many ops. */
export const MAX_EDIT_OPS = 512;

/** §8: a written workflow file is bounded like the registry load (the caller answers 413). */
export const MAX_YAML_BYTES = 1024 * 1024;

export const JsonValueSchema = z.json();
export type JsonValue = z.infer<typeof JsonValueSchema>;

const SetOpSchema = z
  .strictObject({
    op: z.literal('set'),
    path: z.string(),
    value: JsonValueSchema,
    block: z.boolean().optional(),
  })
  // A `|` block scalar can only carry text; refusing here keeps the editor from guessing.
  .refine((op) => op.block !== true || typeof op.value === 'string', {
    message: 'block:true needs a string value',
    path: ['value'],
  });

const InsertItemSchema = z
  .array(z.strictObject({ key: z.string(), value: JsonValueSchema }))
  // The item becomes one YAML mapping, whose keys must be unique to parse at all.
  .superRefine((entries, ctx) => {
    const seen = new Set<string>();
    entries.forEach((entry, i) => {
      if (seen.has(entry.key)) {
        ctx.addIssue({ code: 'custom', message: `duplicate key "${entry.key}"`, path: [i, 'key'] });
      }
      seen.add(entry.key);
    });
  });

const InsertOpSchema = z.strictObject({
  op: z.literal('insert'),
  path: z.string(),
  item: InsertItemSchema,
});

const RemoveOpSchema = z.strictObject({ op: z.literal('remove'), path: z.string() });

const MoveOpSchema = z.strictObject({
  op: z.literal('move'),
  path: z.string(),
  to: z.number().int().min(0),
});

export const EditOpSchema = z.discriminatedUnion('op', [
  SetOpSchema,
  InsertOpSchema,
  RemoveOpSchema,
  MoveOpSchema,
]);
export type EditOp = z.infer<typeof EditOpSchema>;
export type SetOp = z.infer<typeof SetOpSchema>;
export type InsertOp = z.infer<typeof InsertOpSchema>;
export type RemoveOp = z.infer<typeof RemoveOpSchema>;
export type MoveOp = z.infer<typeof MoveOpSchema>;

export const EditOpsSchema = z.array(EditOpSchema).max(MAX_EDIT_OPS);
