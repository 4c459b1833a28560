/**
 * The input room's door: the rules every value from outside meets before the kernel uses it —
 * byte bounds with messages naming the field and the limit, control characters and field names,
 * branch and path fields, nesting depth, how much of an input an error may quote, and whether a
 * path lies within another; `parseWith` turns a zod refusal into the 400 envelope. It sits on the ground floor so domain schemas (tasks, projects,
 * chats, triggers, backups) and the HTTP layer share one set of rules without importing upward.
 */

export { clipEchoes, clipInput, clipText, ECHO_BYTES } from '../../lib/clip.js';
export { BOUNDS, boundedString, boundedStringMap, describeBytes } from './bounds.js';
export { jsonNestsDeeper, MAX_JSON_DEPTH, valueNestsDeeper } from './depth.js';
export {
  type Finding,
  findingsFromZod,
  formatPath,
  type IssueFinding,
  type IssueReading,
  issueCode,
  readIssues,
  summarizeFindings,
  valueAt,
} from './findings.js';
export { idOrNull, parseId, parseWith } from './parse.js';
export {
  BRANCH_BYTES,
  branchField,
  PATH_BYTES,
  PATH_NAME_BYTES,
  pathField,
  pathProblem,
} from './refs.js';
export {
  controlProblem,
  FIELD_NAME_PATTERN,
  FIELD_NAME_RULE,
  fieldNameProblem,
  type TextKind,
} from './text.js';
export { isWithin } from './within.js';
