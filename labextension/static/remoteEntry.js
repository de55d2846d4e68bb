// The entry JupyterLab loads for this extension (package.json: jupyterlab._build.load).
//
// JupyterLab loads a prebuilt extension as a webpack module-federation container:
// window._JUPYTERLAB[name] with init(sharedScope) and get("./extension"), the latter giving
// a factory of the module whose default export is the list of plugins. This extension has
// no build step: this file is that container, written by hand, and the plugin is a plain
// ES module beside it (plugin.mjs). The plugin needs two of JupyterLab's tokens, which
// must be JupyterLab's own objects: they come from the shared scope JupyterLab passes to
// init, where it shares one copy of each of its packages.
(function () {
  "use strict";
  var NAME = "illustrated-lab";
  var base = document.currentScript.src.replace(/[^/]*$/, "");
  var shared = null;

  function load(pkg) {
    var versions = shared && shared[pkg];
    if (!versions) return Promise.reject(new Error(NAME + ": JupyterLab shares no " + pkg));
    var entry = versions[Object.keys(versions)[0]];
    return Promise.resolve(entry.get()).then(function (factory) { return factory(); });
  }

  window._JUPYTERLAB = window._JUPYTERLAB || {};
  window._JUPYTERLAB[NAME] = {
    init: function (scope) { shared = scope; },
    get: function (module) {
      if (module !== "./extension") {
        return Promise.reject(new Error(NAME + " has no module " + module));
      }
      return Promise.all([import(base + "plugin.mjs"), load("@jupyterlab/notebook"),
                          load("@jupyterlab/rendermime")]).then(function (loaded) {
        var plugin = loaded[0].plugin(loaded[1].INotebookTracker,
                                      loaded[2].IRenderMimeRegistry, base);
        return function () { return {__esModule: true, default: [plugin]}; };
      });
    },
  };
})();
