'use strict';
/**
 * onnxruntime-node's install script (script/install.js) calls global-agent's bootstrap() before it
 * reads its install flag. This package replaces global-agent for onnxruntime-node only (the root
 * package.json's `overrides`), and its bootstrap() sets that flag to `skip` unless the environment
 * already says otherwise: the CPU build inside the npm package is used and nothing is downloaded
 * (its CUDA download cannot be reached from the project's machines and would fail `npm install`).
 * This replaces the `.npmrc` key `onnxruntime-node-install=skip`, which npm warns about on every call.
 */
exports.bootstrap = () => {
  if (!process.env.ONNXRUNTIME_NODE_INSTALL) process.env.ONNXRUNTIME_NODE_INSTALL = 'skip';
  return true;
};
exports.createGlobalProxyAgent = () => ({});
