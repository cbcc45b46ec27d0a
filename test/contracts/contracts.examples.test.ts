import assert from 'node:assert/strict';
import {
  apis,
  collectExamples,
  contractAjv,
  escapePointer,
  loadBundled,
  resolvePointer,
} from '../helpers/contracts.js';

describe('contracts.examples', () => {
  for (const api of apis) {
    it(`${api}: every example validates against its schema`, () => {
      const doc = loadBundled(api);
      const ajv = contractAjv(doc);
      const sites = collectExamples(doc);
      assert.ok(sites.length > 0, 'the contract has examples');
      const failures: string[] = [];
      for (const site of sites) {
        const validate = ajv.compile({ $ref: `contract${site.schemaPointer}` });
        if (!validate(site.value)) failures.push(`${site.where}: ${ajv.errorsText(validate.errors)}`);
      }
      assert.deepEqual(failures, []);
    });

    it(`${api}: every operation has an operationId, summary, description and examples`, () => {
      const doc = loadBundled(api);
      const sites = collectExamples(doc);
      const hasExample = (pointer: string, node: unknown): boolean => {
        const ref = (node as { $ref?: string } | undefined)?.$ref;
        return sites.some(
          (s) => s.where.startsWith(`${pointer}/`) || (ref !== undefined && s.where.startsWith(`${ref}/`)),
        );
      };
      const problems: string[] = [];
      for (const section of ['paths', 'webhooks'] as const) {
        const items = (doc[section] ?? {}) as Record<string, Record<string, Record<string, unknown>>>;
        for (const [path, item] of Object.entries(items)) {
          for (const [method, op] of Object.entries(item)) {
            if (!['get', 'post', 'put', 'patch', 'delete'].includes(method)) continue;
            const name = `${method.toUpperCase()} ${path}`;
            const pointer = `#/${section}/${escapePointer(path)}/${method}`;
            for (const field of ['operationId', 'summary', 'description'])
              if (!op[field]) problems.push(`${name}: no ${field}`);
            if (op.requestBody && !hasExample(`${pointer}/requestBody`, op.requestBody))
              problems.push(`${name}: no request example`);
            const responses = (op.responses ?? {}) as Record<string, { content?: unknown; $ref?: string }>;
            for (const [status, response] of Object.entries(responses)) {
              const resolved = response.$ref ? resolvePointer(doc, response.$ref) : response;
              if (!(resolved as { content?: unknown }).content) continue;
              if (!hasExample(`${pointer}/responses/${status}`, response))
                problems.push(`${name}: response ${status} has no example`);
            }
          }
        }
      }
      assert.deepEqual(problems, []);
    });
  }
});
