/** /api-docs: a readable reference rendered from the server's OpenAPI document (/api/openapi.json). */
import { useEffect, useState } from 'react';
import { Link } from 'react-router-dom';
import Layout from '#web/components/Layout.tsx';
import { SchemaView, schemaName, type OpenApiDocument, type Schema } from './schema.tsx';
import { anchor, groupEndpoints, type Endpoint } from './endpoints.ts';
import './api-docs.css';
import { useTranslation } from 'react-i18next';

function Body({ content }: { content: Record<string, { schema?: Schema }> }) {
  return (
    <>
      {Object.entries(content).map(([type, media]) => (
        <div key={type} className="media">
          <span className="media-type">{type}</span>
          {media.schema && <SchemaView schema={media.schema} />}
        </div>
      ))}
    </>
  );
}

function EndpointView({ e, doc }: { e: Endpoint; doc: OpenApiDocument }) {
  const { t } = useTranslation();
  const { op } = e;
  const security = op.security ?? doc.security ?? [];
  const schemes = security.flatMap((s) => Object.keys(s));
  return (
    <article className="endpoint card" id={anchor(e)} aria-labelledby={`${anchor(e)}-title`}>
      <h3 id={`${anchor(e)}-title`}>
        <span className={`method method-${e.method}`}>{e.method.toUpperCase()}</span> <code>{e.path}</code>
      </h3>
      {op.summary && <p className="summary">{op.summary}</p>}
      {op.description && <p className="description">{t(op.description)}</p>}
      <p className="auth">
        {schemes.length ? t('Authentication: {{schemes}}', { schemes: schemes.join(' or ') }) : t('No authentication')}
      </p>
      {op.parameters && op.parameters.length > 0 && (
        <section>
          <h4>{t('Parameters')}</h4>
          <ul className="params">
            {op.parameters.map((p) => (
              <li key={`${p.in}-${p.name}`}>
                <code>{p.name}</code> <span className="muted">({p.in})</span>
                {p.required && <span className="required">{t('required')}</span>}
                {p.schema && <span className="type"> {schemaName(p.schema)}</span>}
                {p.description && <span className="muted"> — {p.description}</span>}
              </li>
            ))}
          </ul>
        </section>
      )}
      {op.requestBody?.content && (
        <section>
          <h4>{t('Request body')}</h4>
          <Body content={op.requestBody.content} />
        </section>
      )}
      <section>
        <h4>{t('Responses')}</h4>
        <dl className="responses">
          {Object.entries(op.responses ?? {}).map(([status, r]) => (
            <div key={status} className="response">
              <dt>
                <span className={`status status-${status[0]}xx`}>{status}</span> {r.description}
              </dt>
              <dd>{r.content && <Body content={r.content} />}</dd>
            </div>
          ))}
        </dl>
      </section>
    </article>
  );
}

export default function ApiDocs() {
  const { t } = useTranslation();
  const [doc, setDoc] = useState<OpenApiDocument | null>(null);
  const [error, setError] = useState('');

  useEffect(() => {
    let cancelled = false;
    fetch('/api/openapi.json')
      .then(async (res) => {
        if (!res.ok) throw new Error(`status ${res.status}`);
        return (await res.json()) as OpenApiDocument;
      })
      .then((d) => !cancelled && setDoc(d))
      .catch((e: unknown) => !cancelled && setError(`Could not load the API description (${String(e)}).`));
    return () => {
      cancelled = true;
    };
  }, []);

  const groups = doc ? groupEndpoints(doc) : [];
  const schemes = Object.entries(doc?.components?.securitySchemes ?? {});
  const components = Object.entries(doc?.components?.schemas ?? {});

  return (
    <Layout className="api-docs-page">
      <h1>{t('API reference')}</h1>
      {error && (
        <p className="alert" role="alert">
          {t(error)}
        </p>
      )}
      {!doc && !error && <p className="page-loading">{t('Loading...')}</p>}
      {doc && (
        <>
          <p className="intro">
            {doc.info.title} {doc.info.version && <span className="muted">version {doc.info.version}</span>}
          </p>
          {doc.info.description && <p className="intro">{doc.info.description}</p>}
          <p className="intro">
            {t('The machine-readable document is at')} <a href="/api/openapi.json">{t('/api/openapi.json')}</a>
            {t('. Partner keys are managed on the')} <Link to="/apikeys">{t('API keys')}</Link> {t('page.')}
          </p>
          <nav className="toc card" aria-label={t('Endpoints')}>
            {groups.map(([group, endpoints]) => (
              <div key={group}>
                <h2 className="toc-group">{group}</h2>
                <ul>
                  {endpoints.map((e) => (
                    <li key={anchor(e)}>
                      <a href={`#${anchor(e)}`}>
                        <span className={`method method-${e.method}`}>{e.method.toUpperCase()}</span> {e.path}
                      </a>
                    </li>
                  ))}
                </ul>
              </div>
            ))}
          </nav>
          {schemes.length > 0 && (
            <section aria-labelledby="auth-title">
              <h2 id="auth-title">{t('Authentication')}</h2>
              <dl className="schemes">
                {schemes.map(([name, s]) => (
                  <div key={name}>
                    <dt>
                      <code>{name}</code> <span className="muted">{[s.type, s.scheme].filter(Boolean).join(' ')}</span>
                    </dt>
                    <dd>{s.description}</dd>
                  </div>
                ))}
              </dl>
            </section>
          )}
          {groups.map(([group, endpoints]) => (
            <section key={group} aria-labelledby={`group-${group}`}>
              <h2 id={`group-${group}`}>{group}</h2>
              {endpoints.map((e) => (
                <EndpointView key={anchor(e)} e={e} doc={doc} />
              ))}
            </section>
          ))}
          {components.length > 0 && (
            <section aria-labelledby="schemas-title">
              <h2 id="schemas-title">{t('Schemas')}</h2>
              {components.map(([name, schema]) => (
                <article key={name} id={`schema-${name}`} className="card component">
                  <h3>{name}</h3>
                  <SchemaView schema={schema} />
                </article>
              ))}
            </section>
          )}
        </>
      )}
    </Layout>
  );
}
