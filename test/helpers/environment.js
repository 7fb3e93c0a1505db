const vm = require('node:vm');
const { TestEnvironment } = require('jest-environment-node');

/**
 * Jest's Node environment with an ordinary global object. Jest contextifies a Proxy as each test
 * file's global, so every global a module reads (Math, JSON, Buffer, Promise…) goes through an
 * interceptor and a Proxy: tight loops ran 80 times slower than in Node. A context made with
 * `vm.constants.DONT_CONTEXTIFY` (Node 22.8+) has a plain global; each test file still gets its own.
 */
class PlainGlobalEnvironment extends TestEnvironment {
  constructor(config, context) {
    const createContext = vm.createContext;
    vm.createContext = () => createContext(vm.constants.DONT_CONTEXTIFY);
    try {
      super(config, context);
    } finally {
      vm.createContext = createContext;
    }
  }
}

module.exports = PlainGlobalEnvironment;
