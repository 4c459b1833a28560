/** One reason an edit could not be applied; callers surface these and write nothing. */
export interface EditFinding {
  /** Index into the submitted ops, or -1 for a finding about the source or the whole list. */
  op_index: number;
  path: string;
  code: EditFindingCode;
  message: string;
}

export type EditFindingCode =
  | 'invalid_op'
  | 'too_many_ops'
  | 'bad_path'
  | 'source_unparseable'
  | 'root_not_editable'
  | 'path_not_found'
  | 'index_out_of_range'
  | 'not_a_mapping'
  | 'not_a_sequence'
  | 'aliased_node'
  | 'anchor_in_use'
  | 'unsupported_layout'
  | 'unrepresentable_value'
  | 'result_unparseable'
  | 'result_mismatch';

export type EditResult = { ok: true; text: string } | { ok: false; findings: EditFinding[] };

/**
 * Thrown inside one op's application and turned into a finding by applyEdits, so the deep
 * helpers can stop at the first problem without threading result types through every call.
 */
export class EditFailure extends Error {
  constructor(
    readonly code: EditFindingCode,
    message: string,
  ) {
    super(message);
    this.name = 'EditFailure';
  }
}
