/** Entry of the widget bundle: registers <mango-bruise-widget> and exports its class and helpers. */
import { defineMangoBruiseWidget } from './element.ts';

export { MangoBruiseWidget, defineMangoBruiseWidget, TAG_NAME, isAcceptedImage } from './element.ts';
export type { MangoErrorDetail, WidgetMode } from './element.ts';
export { LOCALES, stringsFor, formatPercent } from './strings.ts';
export { BRUISE_PATH } from './server.ts';

defineMangoBruiseWidget();
