import { useEffect, useRef } from 'react';

export interface AuroraProps {
  /** three colour stops, left to right */
  colorStops?: [string, string, string];
  /** how strongly the bands mix into the page background, 0..1 */
  blend?: number;
  /** height of the waves relative to the default */
  amplitude?: number;
  /** animation speed relative to the default */
  speed?: number;
}

const DEFAULT_STOPS: [string, string, string] = ['#f4a300', '#3a8d2f', '#ffd166'];

/**
 * A slow aurora behind the recovery screens: three colour bands on a canvas whose top edge waves.
 * With prefers-reduced-motion: reduce it draws one still frame and stops.
 */
export default function Aurora({ colorStops = DEFAULT_STOPS, blend = 0.5, amplitude = 1, speed = 0.5 }: AuroraProps) {
  const canvasRef = useRef<HTMLCanvasElement>(null);
  const [c0, c1, c2] = colorStops;

  useEffect(() => {
    const canvas = canvasRef.current;
    const ctx = canvas?.getContext('2d');
    if (!canvas || !ctx) return;
    const motion = window.matchMedia('(prefers-reduced-motion: reduce)');
    let frame = 0;
    let start = performance.now();

    const draw = (now: number) => {
      const w = (canvas.width = canvas.clientWidth || 1);
      const h = (canvas.height = canvas.clientHeight || 1);
      const t = ((now - start) / 1000) * speed;
      ctx.clearRect(0, 0, w, h);
      ctx.globalAlpha = blend;
      const gradient = ctx.createLinearGradient(0, 0, w, 0);
      gradient.addColorStop(0, c0);
      gradient.addColorStop(0.5, c1);
      gradient.addColorStop(1, c2);
      ctx.fillStyle = gradient;
      // three overlapping waves of different phase give the curtain look
      for (let band = 0; band < 3; band++) {
        ctx.beginPath();
        ctx.moveTo(0, h);
        for (let x = 0; x <= w; x += 8) {
          const u = x / w;
          const y =
            h * 0.45 +
            Math.sin(u * 4 + t + band * 1.7) * h * 0.08 * amplitude +
            Math.sin(u * 9 - t * 1.3 + band) * h * 0.04 * amplitude -
            band * h * 0.06;
          ctx.lineTo(x, y);
        }
        ctx.lineTo(w, h);
        ctx.closePath();
        ctx.fill();
      }
      ctx.globalAlpha = 1;
    };

    const loop = (now: number) => {
      draw(now);
      if (!motion.matches) frame = requestAnimationFrame(loop);
    };
    const restart = () => {
      cancelAnimationFrame(frame);
      start = performance.now();
      frame = requestAnimationFrame(loop);
    };
    // a still aurora still has to fill the new size
    const onResize = () => motion.matches && draw(performance.now());
    restart();
    motion.addEventListener('change', restart);
    window.addEventListener('resize', onResize);
    return () => {
      cancelAnimationFrame(frame);
      motion.removeEventListener('change', restart);
      window.removeEventListener('resize', onResize);
    };
  }, [c0, c1, c2, blend, amplitude, speed]);

  return <canvas ref={canvasRef} className="aurora" aria-hidden="true" data-testid="aurora" />;
}
