/** template: Go's text/template language (SPEC §2.8 workflow templates, §2.10 branch_template),
 *  so workflow files written for the Go system keep working. Parse once with parseTemplate,
 *  execute many times; parse and execution failures are TemplateError with Go-shaped messages and
 *  1-based positions. Data is plain JS values, objects acting as Go maps. Builtins are Go's plus
 *  svc's `slug`. Reference: docs/templates.md. Uses: nothing. Decisions: 101. */

export { isTemplateError, TemplateError, type TemplateErrorKind } from './errors.js';
export {
  MAX_RANGE_ITERATIONS,
  MAX_TEMPLATE_DEPTH,
  type MissingKey,
  type TemplateFunc,
} from './exec.js';
export { slug } from './slug.js';
export {
  isTainted,
  keyPrinterOf,
  Tainted,
  type TaintPolicy,
  type TaintPrinter,
  taint,
  taintKeys,
  taintTree,
} from './taint.js';
export {
  checkTemplate,
  parseTemplate,
  renderTemplate,
  type Template,
  type TemplateOptions,
} from './template.js';
