// Worker-thread entry for piscina, CommonJS on purpose. piscina loads its handler with require()
// first, and Node 20's require() of an ES module can abort a worker thread that is stopped while the
// module loads (FATAL "v8::Module::IsGraphAsync must be used on an instantiated module", which
// takes the whole process down). Plain CommonJS never takes that path; the ES module (the job code)
// is loaded with import() on the first job.
let handler;
module.exports = async function runJob(job) {
  handler ??= import('./worker.mjs').then((m) => m.default);
  return (await handler)(job);
};
