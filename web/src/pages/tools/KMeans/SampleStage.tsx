import { useMemo } from 'react';
import { Image as KonvaImage, Layer, Rect, Stage } from 'react-konva';
import type { RasterImage } from '@mango/core';
import { rasterToCanvas } from '#web/lib/canvas.ts';
import { rgbCss } from './colors.ts';
import type { KMeansState } from './useKMeans.ts';

const OUTLINE_WIDTH = 2;

type Props = Pick<KMeansState, 'shown' | 'fit' | 'classes' | 'selected' | 'regions' | 'drag' | 'stage'> & {
  image: RasterImage;
};

/** The image (or its recoloured result) with the sample rectangles, and the one being dragged. */
export default function SampleStage({ image, shown, fit, classes, selected, regions, drag, stage }: Props) {
  const canvas = useMemo(() => rasterToCanvas(shown ?? image), [shown, image]);
  const drawColor = selected !== null && classes[selected] ? rgbCss(classes[selected].color) : '#ffffff';
  return (
    <div className="kmeans-stage" data-testid="kmeans-stage">
      <Stage
        width={Math.round(image.width * fit)}
        height={Math.round(image.height * fit)}
        onMouseDown={stage.onDown}
        onMouseMove={stage.onMove}
        onMouseUp={stage.onUp}
        onTouchStart={stage.onDown}
        onTouchMove={stage.onMove}
        onTouchEnd={stage.onUp}
      >
        <Layer>
          <KonvaImage image={canvas} scaleX={fit} scaleY={fit} />
        </Layer>
        <Layer listening={false}>
          {regions.map((r, i) => (
            <Rect
              key={i}
              x={r.x * fit}
              y={r.y * fit}
              width={r.width * fit}
              height={r.height * fit}
              stroke={classes[r.classIndex] ? rgbCss(classes[r.classIndex].color) : '#ffffff'}
              strokeWidth={OUTLINE_WIDTH}
            />
          ))}
          {drag && (
            <Rect
              x={Math.min(drag.start.x, drag.end.x)}
              y={Math.min(drag.start.y, drag.end.y)}
              width={Math.abs(drag.end.x - drag.start.x)}
              height={Math.abs(drag.end.y - drag.start.y)}
              stroke={drawColor}
              strokeWidth={OUTLINE_WIDTH}
              dash={[6, 4]}
            />
          )}
        </Layer>
      </Stage>
    </div>
  );
}
