import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';

/** A round button that appears after `threshold` px of scroll and scrolls back to the top. */
export default function ScrollTopButton({ threshold }: { threshold: number }) {
  const { t } = useTranslation();
  const [visible, setVisible] = useState(false);
  useEffect(() => {
    const onScroll = () => setVisible(window.scrollY > threshold);
    onScroll();
    window.addEventListener('scroll', onScroll, { passive: true });
    return () => window.removeEventListener('scroll', onScroll);
  }, [threshold]);
  if (!visible) return null;
  return (
    <button
      type="button"
      className="btn btn-primary scroll-top"
      aria-label={t('Scroll to top')}
      title={t('Scroll to top')}
      onClick={() => window.scrollTo({ top: 0, behavior: 'smooth' })}
    >
      ↑
    </button>
  );
}
