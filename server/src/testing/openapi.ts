/**
 * Answers checked against the OpenAPI document (GET /api/openapi.json): a JSON Schema validator of
 * the document's schemas, every object that lists its properties closed, so a field the document
 * does not describe is a failure. The contract test (openapi/contract.test.ts) checks every route's
 * example answers with it; other tests check the answers they get with `problemsOfJson`.
 */
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';

export interface OpenApiOperation {
  responses: Record<string, { content?: Record<string, { schema?: object }> }>;
}
export interface OpenApiDocument {
  paths: Record<string, Record<string, OpenApiOperation>>;
  components: { schemas: Record<string, object> };
}

/**
 * `schema` with every object that lists its properties closed (additionalProperties: false): the
 * document must describe every field an answer carries.
 */
export function closed(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(closed);
  if (!schema || typeof schema !== 'object') return schema;
  const out: Record<string, unknown> = Object.fromEntries(Object.entries(schema).map(([k, v]) => [k, closed(v)]));
  if (out.type === 'object' && out.properties && !('additionalProperties' in out)) out.additionalProperties = false;
  return out;
}

export interface DocumentValidator {
  /** The validator of a schema of the document (its $refs resolved in the document's components). */
  validatorOf(schema: object): ValidateFunction;
  /** The errors of the last validation as text. */
  errorsText(validate: ValidateFunction): string;
  /**
   * What is wrong with a JSON answer `body` of `METHOD path` (as the document writes the path) with
   * `status`: nothing ([]), or the reasons (not documented, or not valid against its schema).
   */
  problemsOfJson(method: string, path: string, status: number, body: unknown): string[];
}

/** A validator of answers against `doc` (the document is read from `doc()` when first needed). */
export function documentValidator(doc: () => OpenApiDocument): DocumentValidator {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv);
  ajv.addFormat('binary', true);
  const validators = new Map<string, ValidateFunction>();
  let components: unknown;
  const validatorOf = (schema: object): ValidateFunction => {
    const key = JSON.stringify(schema);
    let v = validators.get(key);
    if (!v) {
      components ??= closed(doc().components);
      v = ajv.compile({ ...(closed(schema) as object), components });
      validators.set(key, v);
    }
    return v;
  };
  const errorsText = (validate: ValidateFunction) => ajv.errorsText(validate.errors);
  return {
    validatorOf,
    errorsText,
    problemsOfJson(method, path, status, body) {
      const op = doc().paths[path]?.[method.toLowerCase()];
      if (!op) return [`${method} ${path} is not documented`];
      const schema = op.responses[String(status)]?.content?.['application/json']?.schema;
      if (!schema) return [`a JSON answer with status ${status} of ${method} ${path} is not documented`];
      const validate = validatorOf(schema);
      return validate(body) ? [] : [`body: ${errorsText(validate)}`];
    },
  };
}
