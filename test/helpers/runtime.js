'use strict';
const { createHash } = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');
const vm = require('node:vm');
const { default: JestRuntime } = require('jest-runtime');

/**
 * Jest's runtime with V8's code cache for the modules it compiles.
 *
 * Every test file loads the whole app (about 1,600 modules) into a fresh context, and Jest compiles
 * each module's source from scratch each time: V8's own cache does not apply when a compiled
 * function has a dynamic-import callback, as Jest's do. Here the first compile of a source keeps
 * V8's cached data, in memory for the worker's next files and on disk (Jest's cache folder) for the
 * other workers and later runs; the same source then deserialises instead of parsing. The code and
 * its context are exactly Jest's: only the compile step is given the cached data, and V8 rejects
 * data that does not match the source or the V8 build (then it compiles as usual).
 *
 * The compile step is a method of Jest's internal module executor: when a Jest version lacks it,
 * this runtime is Jest's own unchanged.
 */
class CodeCachingRuntime extends JestRuntime {
  constructor(config, ...rest) {
    super(config, ...rest);
    const executor = this.executor;
    if (typeof executor?.compile !== 'function' || typeof executor.dynamicImport !== 'function') return;
    const cacheFolder = path.join(config.cacheDirectory, `code-cache-${process.version}`);
    const compileAsJest = executor.compile.bind(executor);
    executor.compile = (source, filename) => {
      const vmContext = executor.environment.getVmContext();
      if (vmContext == null || executor.resolution.isCoreModule(filename)) return compileAsJest(source, filename);
      const key = createHash('sha1').update(filename).update('\0').update(source).digest('hex');
      const cachedData = cachedDataFor(cacheFolder, key);
      let compiled;
      try {
        compiled = vm.compileFunction(source, executor.injectedModuleParameters, {
          filename,
          parsingContext: vmContext,
          cachedData,
          produceCachedData: cachedData === undefined,
          importModuleDynamically: (specifier, _function, attributes, phase) => executor.dynamicImport(specifier, filename, vmContext, attributes, phase),
        });
      } catch {
        // Jest's own compile turns a syntax error into its readable message.
        return compileAsJest(source, filename);
      }
      if (cachedData === undefined) keep(cacheFolder, key, compiled.cachedData);
      else if (compiled.cachedDataRejected) forget(cacheFolder, key);
      return compiled;
    };
  }
}

/** Per worker: what this process compiled or read, by the source's key. */
const inMemory = new Map();

function cachedDataFor(folder, key) {
  let data = inMemory.get(key);
  if (data === undefined) {
    try {
      data = fs.readFileSync(path.join(folder, key));
      inMemory.set(key, data);
    } catch {
      return undefined;
    }
  }
  return data;
}

function keep(folder, key, data) {
  if (!data) return;
  inMemory.set(key, data);
  try {
    fs.mkdirSync(folder, { recursive: true });
    // Written aside and renamed, so a worker reading it never sees half a file.
    const aside = path.join(folder, `${key}.${process.pid}`);
    fs.writeFileSync(aside, data);
    fs.renameSync(aside, path.join(folder, key));
  } catch {
    // A cache that cannot be written only costs the next compile.
  }
}

/** Data V8 rejected (another build or flags): the next compile of that source produces it anew. */
function forget(folder, key) {
  inMemory.delete(key);
  fs.rm(path.join(folder, key), { force: true }, () => undefined);
}

module.exports = CodeCachingRuntime;
