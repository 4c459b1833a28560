import {
  isTemplateError,
  renderTemplate,
  type TemplateError,
  type TemplateOptions,
} from '../../../lib/template/index.js';

/** Renders with the test name 't', so expected messages read `template: t:…`. */
export function render(source: string, data?: unknown, opts: TemplateOptions = {}): string {
  return renderTemplate(source, data, { name: 't', ...opts });
}

/** The TemplateError a render throws; fails the test when it renders instead. */
export function renderError(source: string, data?: unknown, opts: TemplateOptions = {}) {
  try {
    const out = render(source, data, opts);
    throw new Error(`expected a template error, rendered ${JSON.stringify(out)}`);
  } catch (e) {
    if (isTemplateError(e)) return e as TemplateError;
    throw e;
  }
}
