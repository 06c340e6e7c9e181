/**
 * Local mode's model loader: the same ModelLoader contract as the server's, on onnxruntime-web.
 * Nothing is bundled: the first photo fetches the manifest, onnxruntime-web's WebAssembly build and
 * the model from the widget's api-base (GET /widget/ort/..., /widget/models/...), checks the model's
 * sha256 against the manifest, and keeps the session for the next photos. A server without a model
 * gives an empty manifest, and the plugin's `auto` method then runs the classical method.
 */
import type { LoadedModel, ModelLoader, ModelManifestEntry, Tensor } from '@mango/core';
import type * as OrtWeb from 'onnxruntime-web';

async function sha256Hex(bytes: ArrayBuffer): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', bytes));
  return Array.from(digest, (b) => b.toString(16).padStart(2, '0')).join('');
}

export function webModelLoader(apiBase: string): ModelLoader {
  const base = apiBase.replace(/\/+$/, '');
  let manifest: Promise<ModelManifestEntry[]> | null = null;
  let ort: Promise<typeof OrtWeb> | null = null;
  const sessions = new Map<string, Promise<LoadedModel>>();

  const entries = () =>
    (manifest ??= fetch(`${base}/widget/models/manifest.json`)
      .then((r) => (r.ok ? (r.json() as Promise<{ models: ModelManifestEntry[] }>) : { models: [] }))
      .then((m) => m.models ?? [])
      .catch(() => []));

  const runtime = () =>
    (ort ??= (import(/* @vite-ignore */ `${base}/widget/ort/ort.wasm.bundle.min.mjs`) as Promise<typeof OrtWeb>).then(
      (m) => {
        // Only the .wasm is fetched: the glue module is inside the bundle (no second dynamic import).
        m.env.wasm.wasmPaths = { wasm: `${base}/widget/ort/ort-wasm-simd-threaded.wasm` };
        // A partner page is not cross-origin isolated: no SharedArrayBuffer, so one thread.
        m.env.wasm.numThreads = 1;
        return m;
      },
    ));

  const open = async (entry: ModelManifestEntry): Promise<LoadedModel> => {
    const [rt, bytes] = await Promise.all([
      runtime(),
      fetch(`${base}/widget/models/${encodeURIComponent(entry.file)}`).then((r) => {
        if (!r.ok) throw new Error(`the bruise model could not be fetched (${r.status})`);
        return r.arrayBuffer();
      }),
    ]);
    if ((await sha256Hex(bytes)) !== entry.sha256)
      throw new Error(`the bruise model ${entry.id} failed its sha256 check`);
    const session = await rt.InferenceSession.create(new Uint8Array(bytes), {
      executionProviders: ['wasm'],
      graphOptimizationLevel: 'all',
    });
    const inputName = entry.input.name ?? session.inputNames[0];
    const outputName = entry.output.name ?? session.outputNames[0];
    return {
      entry,
      async run(input: Tensor): Promise<Tensor> {
        const out = (await session.run({ [inputName]: new rt.Tensor('float32', input.data, input.dims) }))[outputName];
        return { data: out.data as Float32Array, dims: [...out.dims] };
      },
    };
  };

  return {
    async available(task) {
      return (await entries()).filter((m) => m.task === task);
    },
    async load(id) {
      const entry = (await entries()).find((m) => m.id === id);
      if (!entry) throw new Error(`model ${id} is not offered by ${base}`);
      let s = sessions.get(id);
      if (!s) {
        s = open(entry);
        sessions.set(id, s);
        s.catch(() => sessions.delete(id));
      }
      return s;
    },
  };
}
