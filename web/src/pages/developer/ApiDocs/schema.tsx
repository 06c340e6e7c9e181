import { useTranslation } from 'react-i18next';
/** Minimal OpenAPI 3.x types and a schema renderer: properties, types, limits, $ref links to components. */
export interface Schema {
  $ref?: string;
  type?: string | string[];
  format?: string;
  description?: string;
  enum?: unknown[];
  const?: unknown;
  default?: unknown;
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  additionalProperties?: Schema | boolean;
  anyOf?: Schema[];
  oneOf?: Schema[];
  allOf?: Schema[];
  nullable?: boolean;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  minItems?: number;
  maxItems?: number;
  pattern?: string;
}

export interface Operation {
  summary?: string;
  description?: string;
  tags?: string[];
  security?: Record<string, string[]>[];
  parameters?: { name: string; in: string; required?: boolean; description?: string; schema?: Schema }[];
  requestBody?: { content?: Record<string, { schema?: Schema }> };
  responses?: Record<string, { description?: string; content?: Record<string, { schema?: Schema }> }>;
}

export interface OpenApiDocument {
  openapi: string;
  info: { title: string; version?: string; description?: string };
  paths?: Record<string, Partial<Record<'get' | 'post' | 'put' | 'patch' | 'delete', Operation>>>;
  security?: Record<string, string[]>[];
  components?: {
    schemas?: Record<string, Schema>;
    securitySchemes?: Record<string, { type?: string; scheme?: string; description?: string }>;
  };
}

const refName = (ref: string) => ref.split('/').pop() ?? ref;

/** A one-line type: "string", "integer[]", "BruiseResultItem", "string | null". */
export function schemaName(s: Schema): string {
  if (s.$ref) return refName(s.$ref);
  const variants = s.anyOf ?? s.oneOf;
  if (variants) return variants.map(schemaName).join(' | ');
  if (s.allOf) return s.allOf.map(schemaName).join(' & ');
  if (s.enum) return s.enum.map((v) => JSON.stringify(v)).join(' | ');
  if (s.const !== undefined) return JSON.stringify(s.const);
  const types = Array.isArray(s.type) ? s.type : s.type ? [s.type] : [];
  const named = types.map((t) => {
    if (t === 'array') return `${s.items ? schemaName(s.items) : 'any'}[]`;
    if (t === 'object' && !s.properties && s.additionalProperties && typeof s.additionalProperties === 'object') {
      return `map of ${schemaName(s.additionalProperties)}`;
    }
    return s.format ? `${t} (${s.format})` : t;
  });
  if (s.nullable) named.push('null');
  return named.join(' | ') || 'any';
}

/** Limits and defaults, as short text. */
export function constraints(s: Schema): string {
  const parts: string[] = [];
  if (s.minimum !== undefined) parts.push(`≥ ${s.minimum}`);
  if (s.maximum !== undefined) parts.push(`≤ ${s.maximum}`);
  if (s.minLength !== undefined) parts.push(`min length ${s.minLength}`);
  if (s.maxLength !== undefined) parts.push(`max length ${s.maxLength}`);
  if (s.minItems !== undefined) parts.push(`min ${s.minItems} items`);
  if (s.maxItems !== undefined) parts.push(`max ${s.maxItems} items`);
  if (s.pattern) parts.push(`pattern ${s.pattern}`);
  if (s.default !== undefined) parts.push(`default ${JSON.stringify(s.default)}`);
  return parts.join(', ');
}

function TypeLabel({ s }: { s: Schema }) {
  if (s.$ref) return <a href={`#schema-${refName(s.$ref)}`}>{refName(s.$ref)}</a>;
  const isArray = s.type === 'array' || (Array.isArray(s.type) && s.type.includes('array'));
  if (isArray && s.items && (s.items.$ref || s.items.anyOf || s.items.oneOf)) {
    return (
      <>
        {(s.items.anyOf ?? s.items.oneOf) && '('}
        <TypeLabel s={s.items} />
        {(s.items.anyOf ?? s.items.oneOf) && ')'}[]
      </>
    );
  }
  // A union of components (e.g. a result item or a failed item): each variant linked.
  const variants = s.anyOf ?? s.oneOf;
  if (variants?.some((v) => v.$ref)) {
    return (
      <>
        {variants.map((v, i) => (
          <span key={i}>
            {i > 0 && ' | '}
            <TypeLabel s={v} />
          </span>
        ))}
      </>
    );
  }
  return <>{schemaName(s)}</>;
}

/** An object's properties as a list (nested objects indented); anything else as its type. */
export function SchemaView({ schema }: { schema: Schema }) {
  const { t } = useTranslation();
  const props = schema.properties;
  const itemProps = schema.items?.properties;
  if (!props && itemProps && schema.items) {
    return (
      <div className="schema">
        <span className="type">{t('array of objects:')}</span>
        <SchemaView schema={schema.items} />
      </div>
    );
  }
  if (!props) {
    return (
      <div className="schema">
        <span className="type">
          <TypeLabel s={schema} />
        </span>
        {constraints(schema) && <span className="muted"> ({constraints(schema)})</span>}
        {schema.description && <span className="muted"> — {schema.description}</span>}
      </div>
    );
  }
  const required = new Set(schema.required ?? []);
  return (
    <ul className="schema props">
      {Object.entries(props).map(([name, p]) => (
        <li key={name}>
          <code>{name}</code>{' '}
          <span className="type">
            <TypeLabel s={p} />
          </span>
          {required.has(name) ? (
            <span className="required">{t('required')}</span>
          ) : (
            <span className="optional">{t('optional')}</span>
          )}
          {constraints(p) && <span className="muted"> ({constraints(p)})</span>}
          {p.description && <span className="muted"> — {p.description}</span>}
          {(p.properties || p.items?.properties) && <SchemaView schema={p} />}
        </li>
      ))}
    </ul>
  );
}
