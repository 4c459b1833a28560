/**
 * Byte-preserving YAML edits: the one way workflow, trigger and config writes change a file.
 * Ops are spliced into the file's own text; everything outside the touched entries keeps its
 * bytes (comments, blank lines, quoting, block scalars, CRLF, a BOM).
 */
export { applyEdits } from './apply-edits.js';
export type { EditFinding, EditFindingCode, EditResult } from './finding.js';
export {
  type EditOp,
  EditOpSchema,
  EditOpsSchema,
  type InsertOp,
  type JsonValue,
  JsonValueSchema,
  MAX_EDIT_OPS,
  MAX_YAML_BYTES,
  type MoveOp,
  type RemoveOp,
  type SetOp,
} from './op-schema.js';
export { formatPath, type PathSegment, PathSyntaxError, parsePath } from './path.js';
export { type JsonObject, type SetLeavesOptions, setLeaves } from './set-leaves.js';
