/**
 * /k-means (public): define colour classes by dragging sample rectangles on a photo, then run the
 * kmeans plugin in a Web Worker; the canvas is recoloured and the 'Class Area %' table filled. The
 * classes file exported and imported here is the one `mango kmeans --classes` reads. Public page:
 * no guard and no Layout, only the navigation bar. The state lives in useKMeans.
 */
import { KMEANS_UPLOAD } from '@mango/core';
import NavBar from '#web/components/NavBar.tsx';
import FilePickerButton from '#web/components/FilePickerButton.tsx';
import { useKMeans } from './useKMeans.ts';
import ClassManager from './ClassManager.tsx';
import SampleStage from './SampleStage.tsx';
import ResultsTable from './ResultsTable.tsx';
import '../../tool-pages.css';
import './kmeans.css';
import { useTranslation } from 'react-i18next';

export default function KMeans() {
  const { t } = useTranslation();
  const k = useKMeans();
  return (
    <div className="kmeans-page">
      {/* The shared navigation bar: on /k-means nothing is highlighted and the avatar's menu is empty. */}
      <NavBar />
      <main className="page tool-page">
        <h1>{t('K-Means Clustering')}</h1>
        <p className="tool-intro">
          {t(
            'Add a class for each kind of surface, select it, and drag rectangles over examples of it on the image. Run K-Means to split the whole image into those classes. Everything runs in your browser.',
          )}
        </p>
        <div className="kmeans-grid">
          <ClassManager {...k} />

          <section className="card kmeans-canvas-card" aria-label={t('Image')}>
            <div className="kmeans-image-actions">
              <FilePickerButton accept={KMEANS_UPLOAD.accept} testId="file-input" onFile={(f) => void k.onFile(f)}>
                {t(k.image ? 'Change Image' : 'Upload Image')}
              </FilePickerButton>
              {k.image && (
                <button type="button" className="btn btn-danger" onClick={k.clearImage}>
                  {t('Delete Image')}
                </button>
              )}
              <span className="kmeans-file-name">
                {k.fileName}
                {k.image ? ` (${k.image.width} x ${k.image.height})` : ''}
              </span>
            </div>
            {k.error && (
              <div className="alert" role="alert">
                {k.error}
              </div>
            )}
            {k.image ? (
              <SampleStage {...k} image={k.image} />
            ) : (
              <div className="empty-state">{t('Upload a JPG or PNG image (max 5MB) to start.')}</div>
            )}
            <div className="tool-actions">
              {k.selected === null && (
                <span className="tool-status">{t('Select a class to draw samples and run.')}</span>
              )}
              <button
                type="button"
                className="btn btn-primary"
                onClick={k.run}
                disabled={k.selected === null || k.running}
              >
                {t(k.running ? 'Running...' : 'Run K-Means Clustering')}
              </button>
            </div>
          </section>
        </div>

        {k.results && <ResultsTable results={k.results} elapsed={k.elapsed} exportResults={k.exportResults} />}
      </main>
    </div>
  );
}
