/**
 * The form's checks before anything is sent: the JSON Schema keywords the form uses (type, minLength, maxLength,
 * pattern, format date, const, required, anyOf of required lists), with a message per field. Anything else is left
 * to the server, which validates again with the full schema.
 */
import type { FieldSchema, FormSchema } from './config.js';

export type FormData = Record<string, string | boolean>;

export interface Problems {
  /** A message per invalid field. */
  fields: Record<string, string>;
  /** What the buyer must give when no alternative of `anyOf` is complete; empty otherwise. */
  summary: string;
}

export interface FormRules {
  props: Record<string, FieldSchema>;
  names: string[];
  required: string[];
  /** The `anyOf` alternatives, each a list of fields given together. */
  groups: string[][];
  titleOf(name: string): string;
  inGroup(name: string): boolean;
  /** "Give A and B, or C and D." */
  groupsText(): string;
  validate(data: FormData): Problems;
}

export function formRules(schema: FormSchema): FormRules {
  const props = schema.properties || {};
  const names = Object.keys(props);
  const required = Array.isArray(schema.required) ? schema.required : [];
  const groups = (Array.isArray(schema.anyOf) ? schema.anyOf : [])
    .filter((branch) => branch && Array.isArray(branch.required))
    .map((branch) => branch.required as string[]);

  const titleOf = (name: string) => {
    const p = props[name];
    return (p && p.title) || name;
  };
  const groupText = (group: string[]) => group.map(titleOf).join(' and ');
  const groupsText = () => `Give ${groups.map(groupText).join(', or ')}.`;

  function check(name: string, value: string | boolean): string | null {
    const p = props[name]!;
    if (p.type === 'string') {
      if (typeof value !== 'string') return 'Enter text.';
      const length = Array.from(value).length;
      if (typeof p.minLength === 'number' && length < p.minLength) {
        return p.minLength === 1 ? 'Required.' : `Enter at least ${p.minLength} characters.`;
      }
      if (typeof p.maxLength === 'number' && length > p.maxLength) return `Enter at most ${p.maxLength} characters.`;
      if (typeof p.pattern === 'string' && !new RegExp(p.pattern, 'u').test(value)) {
        return `Not in the expected form.${p.description ? ` ${p.description}` : ''}`;
      }
      if (p.format === 'date' && !isDate(value)) return 'Enter a real date (YYYY-MM-DD).';
    } else if (p.type === 'boolean' && typeof value !== 'boolean') {
      return 'Check or clear this box.';
    }
    if (Object.prototype.hasOwnProperty.call(p, 'const') && value !== p.const) {
      return p.const === true ? 'Check this box to continue.' : 'This value is not accepted.';
    }
    return null;
  }

  function validate(data: FormData): Problems {
    const has = (name: string) => Object.prototype.hasOwnProperty.call(data, name);
    const found: Record<string, string> = {};
    let summary = '';
    for (const name of required) if (props[name] && !has(name)) found[name] = 'Required.';
    for (const name of names) {
      if (has(name) && !found[name]) {
        const problem = check(name, data[name]!);
        if (problem) found[name] = problem;
      }
    }
    const complete = groups.some((group) => group.every(has));
    if (groups.length && !complete) {
      // The pair the buyer started is the one to finish; with none started, the first.
      let best = groups[0]!;
      let bestCount = -1;
      for (const group of groups) {
        const count = group.filter(has).length;
        if (count > bestCount) {
          best = group;
          bestCount = count;
        }
      }
      const given = best.filter(has);
      const others = groups
        .filter((group) => group !== best)
        .map(groupText)
        .join(' or ');
      for (const name of best) {
        if (has(name) || found[name]) continue;
        found[name] = given.length
          ? `Required with ${given.map(titleOf).join(' and ')}.`
          : `Required, unless you give ${others}.`;
      }
      summary = groupsText();
    }
    return { fields: found, summary };
  }

  return {
    props,
    names,
    required,
    groups,
    titleOf,
    inGroup: (name) => groups.some((group) => group.includes(name)),
    groupsText,
    validate,
  };
}

/** `YYYY-MM-DD` naming a real calendar day. */
export function isDate(value: string): boolean {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value);
  if (!m) return false;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const date = new Date(0);
  date.setUTCFullYear(y, mo - 1, d);
  return date.getUTCFullYear() === y && date.getUTCMonth() === mo - 1 && date.getUTCDate() === d;
}
