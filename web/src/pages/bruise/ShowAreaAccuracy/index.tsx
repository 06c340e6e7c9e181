/**
 * /showarea/accuracy: the Bruised Area Calculation results table. Rows come from the navigation
 * state (with overlays) or, failing that, from local storage uploadedFiles (without overlays, but
 * a batch job's rows still name the full-size overlays kept with their run).
 */
import { useState } from 'react';
import { Link, useLocation, useNavigate } from 'react-router-dom';
import Layout from '#web/components/Layout.tsx';
import TableHead, { metaHeadColumns } from '#web/components/TableHead.tsx';
import { metaCell, metaColumnsOf } from '#web/lib/meta.ts';
import OverlayImage from '#web/components/OverlayImage.tsx';
import { downloadBlob } from '#web/lib/download.ts';
import { fetchFullExport, fetchOverlay } from '#web/lib/runs.ts';
import {
  BRUISE_ZIP_NAME,
  buildBruiseZip,
  loadUploadedFiles,
  saveUploadedFiles,
  toRows,
  type BruiseRow,
} from '#web/lib/bruiseResults.ts';
import '../../tool-pages.css';
import { useTranslation } from 'react-i18next';
import { useFormat } from '#web/i18n/index.ts';

function initialRows(state: unknown): BruiseRow[] | null {
  const fromState = toRows((state as { results?: unknown } | null)?.results);
  return fromState ?? loadUploadedFiles();
}

const COLUMNS = [
  { label: 'Filename' },
  { label: 'Total Mango Pixels', numeric: true },
  { label: 'Bruise %', numeric: true },
  { label: 'Non-Bruise %', numeric: true },
];
const ACTIONS = { label: 'Actions' };

export default function ShowAreaAccuracy() {
  const { t } = useTranslation();
  const fmt = useFormat();
  const location = useLocation();
  const navigate = useNavigate();
  const [rows, setRows] = useState<BruiseRow[] | null>(() => initialRows(location.state));
  const [viewing, setViewing] = useState<BruiseRow | null>(null);
  const [downloading, setDownloading] = useState(false);
  // The run these results were stored as (every item of one answer carries the same run_id).
  const runId = rows?.find((r) => r.run_id)?.run_id;
  // The photos' experiment metadata (a pattern or CSV on the upload page): one column per name.
  const metaNames = metaColumnsOf(rows ?? []);

  const remove = (index: number) => {
    if (!rows) return;
    const next = rows.filter((_, i) => i !== index);
    setRows(next);
    saveUploadedFiles(next);
    // Keep the history entry in step, so a reload does not bring the deleted row back.
    navigate(location.pathname, { replace: true, state: { results: next } });
  };

  const openDetails = (row: BruiseRow) => navigate('/viewphoto/result', { state: { imageData: row } });

  const download = async () => {
    if (!rows || rows.length === 0) {
      alert(t('No data available to download.'));
      return;
    }
    setDownloading(true);
    try {
      const { blob, missing } = await buildBruiseZip(rows, fetchOverlay, fetchFullExport);
      downloadBlob(blob, BRUISE_ZIP_NAME);
      if (missing) alert(t('The zip has no full-resolution overlays and masks: {{reason}}', { reason: t(missing) }));
    } catch (e) {
      console.error('Could not build the results zip', e);
      alert(t('Could not build the results zip.'));
    } finally {
      setDownloading(false);
    }
  };

  return (
    <Layout>
      <section className="tool-page">
        <h1>{t('Bruised Area Results')}</h1>
        {!rows || rows.length === 0 ? (
          <div className="card empty-state">
            <p>{t('No information available')}</p>
            <button type="button" className="btn btn-primary" onClick={() => navigate('/bruise')}>
              {t('Calculate bruised area')}
            </button>
          </div>
        ) : (
          <div className="card">
            <div className="table-wrap">
              <table className="results-table" aria-label={t('Bruised area results')}>
                <TableHead columns={[...COLUMNS, ...metaHeadColumns(metaNames), ACTIONS]} />
                <tbody>
                  {rows.map((row, i) => (
                    <tr key={`${row.filename}-${i}`} data-testid="result-row">
                      <td>
                        <button
                          type="button"
                          className="btn-link file-name"
                          title={row.filename}
                          onClick={() => openDetails(row)}
                        >
                          {row.filename}
                        </button>
                      </td>
                      <td className="num">{fmt.integer(row.total_mango_pixels)}</td>
                      <td className="num">{fmt.fixed(row.bruise_percent)}</td>
                      <td className="num">{fmt.fixed(row.non_bruise_percent)}</td>
                      {metaNames.map((name) => (
                        <td key={name} data-testid="meta-cell">
                          {metaCell(row, name)}
                        </td>
                      ))}
                      <td>
                        <div className="row-actions">
                          <button
                            type="button"
                            className="btn btn-secondary btn-small"
                            aria-label={t('View {{name}}', { name: row.filename })}
                            onClick={() => setViewing(row)}
                          >
                            {t('View')}
                          </button>
                          <button
                            type="button"
                            className="btn btn-danger btn-small"
                            aria-label={t('Delete {{name}}', { name: row.filename })}
                            onClick={() => remove(i)}
                          >
                            {t('Delete')}
                          </button>
                        </div>
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          </div>
        )}
        <div className="tool-actions">
          <button type="button" className="btn btn-secondary" onClick={() => navigate('/bruise')}>
            {t('New calculation')}
          </button>
          {runId && (
            <Link className="btn btn-secondary" to={`/results/${runId}`}>
              {t('Open stored run')}
            </Link>
          )}
          <button type="button" className="btn btn-primary" onClick={() => void download()} disabled={downloading}>
            {t(downloading ? 'Preparing...' : 'Download Results')}
          </button>
        </div>
      </section>
      {viewing && (
        <div className="modal-backdrop" role="presentation" onClick={() => setViewing(null)}>
          <div
            className="modal"
            role="dialog"
            aria-modal="true"
            aria-labelledby="overlay-title"
            onClick={(e) => e.stopPropagation()}
            onKeyDown={(e) => e.key === 'Escape' && setViewing(null)}
          >
            <h2 id="overlay-title" className="file-name">
              {viewing.filename}
            </h2>
            <OverlayImage row={viewing} />
            <p>
              {t('Bruise')} {fmt.fixed(viewing.bruise_percent)}% · {t('Non-bruise')}{' '}
              {fmt.fixed(viewing.non_bruise_percent)}%
            </p>
            <div className="modal-actions">
              <button type="button" className="btn btn-secondary" onClick={() => openDetails(viewing)}>
                {t('Details')}
              </button>
              <button type="button" className="btn btn-primary" autoFocus onClick={() => setViewing(null)}>
                {t('Close')}
              </button>
            </div>
          </div>
        </div>
      )}
    </Layout>
  );
}
