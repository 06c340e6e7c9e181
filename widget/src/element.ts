/**
 * <mango-bruise-widget>: a dropzone that measures the bruised share of mango photos, either on the
 * product's server with a partner API key (mode="server") or in this browser (mode="local").
 *
 * Attributes: api-base, api-key, mode ("server" | "local"), locale ("en" | "th").
 * Events (bubbling, composed): mango-result (detail: BruiseResultItem[]), mango-error (detail: {message}).
 */
import { isAcceptedType, WIDGET_UPLOAD } from '@mango/core';
import { formatCount, formatPercent, stringsFor, type WidgetStrings } from './strings.ts';
import { WIDGET_CSS } from './styles.ts';
import { scoreOnServer, WidgetError } from './server.ts';
import { LocalScorer } from './local.ts';
import { type BruiseFruit, type BruiseResultItem } from '@mango/plugin-bruise/results';

export type WidgetMode = 'server' | 'local';
export const TAG_NAME = 'mango-bruise-widget';

export interface MangoErrorDetail {
  message: string;
}

/**
 * Where the widget script came from: the default api-base, so embedding needs only api-key.
 * The ES module knows its URL; the classic script (where import.meta is empty) asks currentScript.
 */
const scriptUrl: string | undefined =
  (import.meta as { url?: string }).url ??
  (typeof document === 'undefined' ? undefined : (document.currentScript as HTMLScriptElement | null)?.src);

function defaultApiBase(): string {
  try {
    const u = new URL(scriptUrl ?? '');
    if (u.protocol === 'http:' || u.protocol === 'https:') return u.origin;
  } catch {
    // fall through to the page's origin
  }
  return location.origin;
}

/** JPEG, PNG or WebP by type, or by name when the browser gives no type (WIDGET_UPLOAD). */
export function isAcceptedImage(file: File): boolean {
  return isAcceptedType(WIDGET_UPLOAD, file);
}

function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  props: Partial<Record<string, string>> = {},
  text?: string,
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(props)) if (v !== undefined) node.setAttribute(k, v);
  if (text !== undefined) node.textContent = text;
  return node;
}

/** Lets the module load where there is no DOM (server rendering the React wrapper); define() needs one. */
const ElementBase: typeof HTMLElement =
  typeof HTMLElement === 'undefined' ? (class {} as unknown as typeof HTMLElement) : HTMLElement;

export class MangoBruiseWidget extends ElementBase {
  static readonly observedAttributes = ['locale', 'mode'];

  private readonly root: ShadowRoot;
  private readonly heading: HTMLHeadingElement;
  private readonly dropzone: HTMLDivElement;
  private readonly prompt: HTMLSpanElement;
  private readonly hint: HTMLSpanElement;
  private readonly note: HTMLParagraphElement;
  private readonly input: HTMLInputElement;
  private readonly status: HTMLParagraphElement;
  private readonly alert: HTMLParagraphElement;
  private readonly progress: HTMLProgressElement;
  private readonly list: HTMLUListElement;
  private local: LocalScorer | null = null;
  private abort: AbortController | null = null;
  private busy = false;
  private items: BruiseResultItem[] = [];

  constructor() {
    super();
    this.root = this.attachShadow({ mode: 'open' });
    const style = el('style', {}, WIDGET_CSS);
    const box = el('section', { class: 'root', part: 'root', 'aria-labelledby': 'title' });
    this.heading = el('h2', { class: 'title', id: 'title', part: 'title' });
    this.dropzone = el('div', {
      class: 'dropzone',
      part: 'dropzone',
      role: 'button',
      tabindex: '0',
      'aria-labelledby': 'prompt',
      'aria-describedby': 'hint note',
    });
    this.prompt = el('span', { class: 'prompt', id: 'prompt' });
    this.hint = el('span', { class: 'hint', id: 'hint' });
    this.dropzone.append(this.prompt, this.hint);
    this.note = el('p', { class: 'note', id: 'note' });
    this.input = el('input', { type: 'file', accept: WIDGET_UPLOAD.accept, multiple: '', tabindex: '-1' });
    this.input.setAttribute('aria-hidden', 'true');
    this.progress = el('progress', { max: '1', part: 'progress' });
    this.progress.hidden = true;
    this.status = el('p', { class: 'status', role: 'status', 'aria-live': 'polite', part: 'status' });
    this.alert = el('p', { class: 'status error', role: 'alert', part: 'error' });
    this.alert.hidden = true;
    this.list = el('ul', { class: 'results', part: 'results' });
    box.append(this.heading, this.dropzone, this.note, this.input, this.progress, this.status, this.alert, this.list);
    this.root.append(style, box);
    this.wireEvents();
    this.renderText();
  }

  get strings(): WidgetStrings {
    return stringsFor(this.getAttribute('locale') ?? (document.documentElement.lang || 'en'));
  }
  get mode(): WidgetMode {
    return this.getAttribute('mode') === 'local' ? 'local' : 'server';
  }
  set mode(value: WidgetMode) {
    this.setAttribute('mode', value);
  }
  get apiBase(): string {
    return this.getAttribute('api-base') || defaultApiBase();
  }
  get apiKey(): string {
    return this.getAttribute('api-key') ?? '';
  }
  /** The items of the last successful measurement. */
  get results(): BruiseResultItem[] {
    return this.items;
  }

  attributeChangedCallback(): void {
    this.renderText();
  }

  disconnectedCallback(): void {
    this.abort?.abort();
    this.local?.dispose();
    this.local = null;
  }

  /** Measures the photos, shows them, fires mango-result; on failure fires mango-error and rejects. */
  async score(input: File[] | FileList): Promise<BruiseResultItem[]> {
    const t = this.strings;
    const files = [...input].filter(isAcceptedImage);
    try {
      if (this.busy) throw new WidgetError('busy');
      if (files.length === 0) throw new WidgetError(t.noImages);
      if (this.mode === 'server' && !this.apiKey) throw new WidgetError(t.missingKey);
    } catch (e) {
      this.fail(e);
      throw e;
    }
    this.setBusy(true);
    this.abort = new AbortController();
    const signal = this.abort.signal;
    try {
      let items: BruiseResultItem[];
      if (this.mode === 'local') {
        this.local ??= new LocalScorer(this.apiBase);
        this.showProgress(0, t.analysingLocal(0, files.length));
        items = await this.local.score(
          files,
          (done, total, fraction) =>
            this.showProgress(
              (done + Math.min(1, fraction)) / total,
              t.analysingLocal(Math.min(done + 1, total), total),
            ),
          signal,
        );
      } else {
        this.showProgress(0, t.uploading(0));
        items = await scoreOnServer({
          apiBase: this.apiBase,
          apiKey: this.apiKey,
          files,
          signal,
          messages: t,
          onUploadProgress: (f) => {
            if (f < 1) this.showProgress(f, t.uploading(Math.round(f * 100)));
            else this.showProgress(null, t.analysing);
          },
        });
      }
      this.items = items;
      this.renderResults(items);
      this.status.textContent = t.done(items.length);
      this.dispatchEvent(new CustomEvent('mango-result', { detail: items, bubbles: true, composed: true }));
      return items;
    } catch (e) {
      this.fail(e);
      throw e;
    } finally {
      this.abort = null;
      this.setBusy(false);
    }
  }

  /** Clears the results and messages. */
  reset(): void {
    this.items = [];
    this.list.replaceChildren();
    this.status.textContent = '';
    this.alert.hidden = true;
    this.alert.textContent = '';
  }

  private fail(e: unknown): void {
    if (e instanceof DOMException && e.name === 'AbortError') return;
    const message = e instanceof Error ? e.message : String(e);
    if (message === 'busy') return;
    this.status.textContent = '';
    this.alert.textContent = this.strings.error(message);
    this.alert.hidden = false;
    const detail: MangoErrorDetail = { message };
    this.dispatchEvent(new CustomEvent('mango-error', { detail, bubbles: true, composed: true }));
  }

  private wireEvents(): void {
    const open = () => {
      if (!this.busy) this.input.click();
    };
    this.dropzone.addEventListener('click', open);
    this.dropzone.addEventListener('keydown', (e) => {
      if (e.key === 'Enter') {
        e.preventDefault();
        open();
      } else if (e.key === ' ') {
        e.preventDefault(); // no page scroll; a button activates on key up
      }
    });
    this.dropzone.addEventListener('keyup', (e) => {
      if (e.key === ' ') {
        e.preventDefault();
        open();
      }
    });
    this.input.addEventListener('change', () => {
      const files = this.input.files ? [...this.input.files] : [];
      this.input.value = '';
      if (files.length) this.score(files).catch(() => {});
    });
    this.dropzone.addEventListener('dragenter', (e) => {
      e.preventDefault();
      this.setOver(true);
    });
    this.dropzone.addEventListener('dragover', (e) => {
      e.preventDefault();
      if (e.dataTransfer) e.dataTransfer.dropEffect = this.busy ? 'none' : 'copy';
      this.setOver(true);
    });
    this.dropzone.addEventListener('dragleave', (e) => {
      if (!this.dropzone.contains(e.relatedTarget as Node | null)) this.setOver(false);
    });
    this.dropzone.addEventListener('drop', (e) => {
      e.preventDefault();
      this.setOver(false);
      const files = e.dataTransfer?.files;
      if (files && files.length && !this.busy) this.score(files).catch(() => {});
    });
  }

  private setOver(over: boolean): void {
    this.dropzone.classList.toggle('over', over);
    this.prompt.textContent = over ? this.strings.dropping : this.strings.prompt;
  }

  private setBusy(busy: boolean): void {
    this.busy = busy;
    this.dropzone.setAttribute('aria-disabled', String(busy));
    this.setAttribute('aria-busy', String(busy));
    if (busy) {
      this.alert.hidden = true;
      this.alert.textContent = '';
    } else {
      this.progress.hidden = true;
    }
  }

  /** fraction null shows an indeterminate bar (the server is measuring). */
  private showProgress(fraction: number | null, message: string): void {
    this.progress.hidden = false;
    if (fraction === null) this.progress.removeAttribute('value');
    else this.progress.value = fraction;
    this.progress.setAttribute('aria-label', message);
    this.status.textContent = message;
  }

  private renderText(): void {
    const t = this.strings;
    this.heading.textContent = t.label;
    this.prompt.textContent = t.prompt;
    this.hint.textContent = t.hint;
    this.note.textContent = this.mode === 'local' ? t.localNote : '';
    this.note.hidden = this.mode !== 'local';
    if (this.items.length) this.renderResults(this.items);
  }

  private renderResults(items: BruiseResultItem[]): void {
    const t = this.strings;
    this.list.replaceChildren(
      ...items.map((item, i) => {
        const li = el('li', { class: 'result', part: 'result', 'aria-labelledby': `result-${i}` });
        li.append(el('h3', { class: 'filename', id: `result-${i}` }, item.filename));
        if (item.overlay_img) {
          const img = el('img', { class: 'overlay', alt: t.overlayAlt(item.filename), part: 'overlay' });
          img.src = item.overlay_img;
          li.append(img);
        }
        const dl = el('dl', { class: 'figures' });
        const figure = (cls: string, label: string, value: string) => {
          const div = el('div', { class: cls });
          div.append(el('dt', {}, label), el('dd', { 'data-field': cls }, value));
          dl.append(div);
        };
        figure('bruise', t.bruise, formatPercent(item.bruise_percent));
        figure('healthy', t.healthy, formatPercent(item.non_bruise_percent));
        figure('pixels', t.fruitPixels, formatCount(item.total_mango_pixels));
        const card = item.colour_card;
        if (card?.found) {
          const median = (d: typeof card.delta_e_after) => (d ? d.median.toFixed(1) : '–');
          figure(
            'card',
            t.colourCard,
            t.cardFound(card.patches, median(card.delta_e_before), median(card.delta_e_after)),
          );
        }
        if (item.scale_source === 'colour-card' && item.px_per_cm !== undefined) {
          figure('scale', t.scale, t.scaleFromCard(item.px_per_cm.toFixed(2)));
        }
        li.append(dl);
        const flags = item.quality?.flags ?? [];
        if (flags.length) {
          const box = el('div', { class: 'quality', part: 'quality', role: 'note' });
          const list = el('ul');
          for (const f of flags) list.append(el('li', { 'data-flag': f.id }, f.message));
          box.append(el('strong', {}, t.quality(flags.length)), list);
          li.append(box);
        }
        if (item.fruits?.length) li.append(this.fruitTable(item.fruits, t));
        return li;
      }),
    );
  }

  private fruitTable(fruits: BruiseFruit[], t: WidgetStrings): HTMLTableElement {
    const withArea = fruits.some((f) => f.area_cm2 !== undefined);
    const table = el('table', { class: 'fruits', part: 'fruits' });
    table.append(el('caption', {}, t.fruits));
    const head = el('tr');
    for (const h of [t.fruit, t.bruisePercent, t.lesions, t.pixels, ...(withArea ? [t.area] : [])]) {
      head.append(el('th', { scope: 'col' }, h));
    }
    table.createTHead().append(head);
    const body = table.createTBody();
    fruits.forEach((f, i) => {
      const row = el('tr');
      row.append(el('th', { scope: 'row' }, String(i + 1)));
      row.append(el('td', {}, formatPercent(f.bruise_percent)));
      row.append(el('td', {}, String(f.lesion_count)));
      row.append(el('td', {}, formatCount(f.pixels)));
      if (withArea) row.append(el('td', {}, f.area_cm2 === undefined ? '' : f.area_cm2.toFixed(2)));
      body.append(row);
    });
    return table;
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'mango-bruise-widget': MangoBruiseWidget;
  }
  interface HTMLElementEventMap {
    'mango-result': CustomEvent<BruiseResultItem[]>;
    'mango-error': CustomEvent<MangoErrorDetail>;
  }
}

/** Registers the element once (safe to call when the bundle is loaded twice). */
export function defineMangoBruiseWidget(tag = TAG_NAME): void {
  if (typeof customElements !== 'undefined' && !customElements.get(tag)) {
    customElements.define(tag, MangoBruiseWidget);
  }
}
