// Worker-thread entry: TypeScript sources are loaded through tsx, so no build step is needed.
import { register } from 'tsx/esm/api';

register();
const { runImageJob } = await import('./jobs.ts');
export default runImageJob;
