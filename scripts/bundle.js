// Bundles the `guru-mcp` command into dist/bin/. IDE clients spawn it often and
// most of a Node start-up goes into resolving and compiling module files, so the
// command ships as a few large files instead of hundreds of small ones. Code
// splitting keeps the commands' dynamic imports lazy.
//
// The web interface (src/web/) is loaded by `serve` only, through a dynamic import,
// so it stays out of the chunks the stdio server loads; its browser files are copied
// to dist/bin/web/.
//
// The extraction worker (HTML and documents to Markdown, in worker threads) is a
// second entry point, dist/bin/extraction-worker.js; src/engine/ingest/extract/
// extraction-pool.ts finds it there whether the engine runs from this bundle, from
// tsc's dist/ or from the TypeScript sources under vitest. Its worker carries faster versions
// of the libraries extraction spends its time in (LIBRARY_EDITS below). The writer thread
// (ingestion's SQLite writes, src/engine/ingest/writer/) is a third, dist/bin/writer-thread.js,
// found the same way. The MP3 encoder of speech (src/engine/speech/mp3-encoders.ts) is a fourth,
// dist/bin/mp3-worker.js.
import { chmodSync, cpSync, existsSync, readFileSync, rmSync } from 'node:fs';
import { fileURLToPath, URL } from 'node:url';
import { build } from 'esbuild';

// Paths come from this file's place in the project, never from the working directory:
// run from anywhere else, a relative dist/bin would delete that directory's files.
const root = fileURLToPath(new URL('..', import.meta.url));
const outdir = fileURLToPath(new URL('../dist/bin/', import.meta.url));

/**
 * Exact edits to the libraries that extraction spends its time in, made as the bundle is built
 * (changing their classes at run time does not do: V8 then builds every node on a slow path).
 * Each edit's text must be found as it is, so that an upgrade of one of these libraries (pinned
 * in package.json) that moves it fails the build instead of silently losing the change.
 * @type {Array<{ file: RegExp, why: string, edits: Array<[string, string]> }>}
 */
const LIBRARY_EDITS = [
  {
    // Every node linkedom creates (every element and text of a page) got an entry in a WeakMap of
    // event listeners, with a Map of its own, in case a listener is ever added. Extraction never
    // adds one, and those entries were a third of parsing time and most of its garbage collection:
    // the map now appears on first use.
    file: /[\\/]linkedom[\\/]esm[\\/]interface[\\/]event-target\.js$/,
    why: 'listener maps made on first use',
    edits: [
      ['  constructor() {\n    wm.set(this, new Map);\n  }', '  constructor() {\n  }'],
      [
        '  addEventListener(type, listener, options) {\n    const map = wm.get(this);',
        '  addEventListener(type, listener, options) {\n    let map = wm.get(this);\n    if (!map) wm.set(this, map = new Map);',
      ],
      ['  removeEventListener(type, listener) {\n    const map = wm.get(this);\n    if (map.has(type)) {', '  removeEventListener(type, listener) {\n    const map = wm.get(this);\n    if (map && map.has(type)) {'],
    ],
  },
  {
    // Each class attribute parsed went through the className setter: a token set built for the
    // element, cleared, filled and joined back into the attribute. The attribute now gets the value
    // that setter would leave (tokens once each, single spaces), and the set is built from it, as
    // before, when classList is first read.
    // The parser's handlers (onopentag, ontext, onclosetag…) were closures made anew for every
    // parse. V8 keeps a function's optimized code only while a closure that runs it lives, so after
    // each full garbage collection every page's handlers ran unoptimized until TurboFan compiled
    // them again (some six times each per worker over the PostgreSQL manual): they are now the methods of
    // one class, the same functions for every parse, with the parse's state in its fields.
    file: /[\\/]linkedom[\\/]esm[\\/]shared[\\/]parse-from-string\.js$/,
    why: 'class attributes parsed without a token set; one tree builder class for every parse',
    edits: [
      [
        "  if (attribute.name === 'class')\n    element.className = value;",
        "  if (attribute.name === 'class')\n    attribute[VALUE] = /\\s/.test(value) ? [...new Set(value.split(/\\s+/).filter(Boolean))].join(' ') : value;",
      ],
      [
        'export const isNotParsing = () => notParsing;',
        `class TreeBuilder {
  constructor(document, isHTML, active, registry) {
    this.document = document;
    this.isHTML = isHTML;
    this.active = active;
    this.registry = registry;
    this.node = document;
    this.ownerSVGElement = null;
    this.parsingCData = false;
  }

  // <!DOCTYPE ...>
  onprocessinginstruction(name, data) {
    if (name.toLowerCase() === '!doctype')
      this.document.doctype = data.slice(name.length).trim();
  }

  // <tagName>
  onopentag(name, attributes) {
    const {document, active} = this;
    let create = true;
    if (this.isHTML) {
      if (this.ownerSVGElement) {
        this.node = append(this.node, document.createElementNS(SVG_NAMESPACE, name), active);
        this.node.ownerSVGElement = this.ownerSVGElement;
        create = false;
      }
      else if (name === 'svg' || name === 'SVG') {
        this.ownerSVGElement = document.createElementNS(SVG_NAMESPACE, name);
        this.node = append(this.node, this.ownerSVGElement, active);
        create = false;
      }
      else if (active) {
        const ce = name.includes('-') ? name : (attributes.is || '');
        if (ce && this.registry.has(ce)) {
          const {Class} = this.registry.get(ce);
          this.node = append(this.node, new Class, active);
          delete attributes.is;
          create = false;
        }
      }
    }

    if (create)
      this.node = append(this.node, document.createElement(name), false);

    const node = this.node;
    let end = node[END];
    for (const name of keys(attributes))
      attribute(node, end, document.createAttribute(name), attributes[name], active);
  }

  // #text, #comment
  oncomment(data) { append(this.node, this.document.createComment(data), this.active); }
  ontext(text) {
    if (this.parsingCData) {
      append(this.node, this.document.createCDATASection(text), this.active);
    } else {
      append(this.node, this.document.createTextNode(text), this.active);
    }
  }

  // #cdata
  oncdatastart() { this.parsingCData = true; }
  oncdataend() { this.parsingCData = false; }

  // </tagName>
  onclosetag() {
    if (this.isHTML && this.node === this.ownerSVGElement)
      this.ownerSVGElement = null;
    this.node = this.node.parentNode;
  }
}

export const isNotParsing = () => notParsing;`,
      ],
      [
        `  let node = document;
  let ownerSVGElement = null;
  let parsingCData = false;

  notParsing = false;

  const content = new Parser({
    // <!DOCTYPE ...>
    onprocessinginstruction(name, data) {
      if (name.toLowerCase() === '!doctype')
        document.doctype = data.slice(name.length).trim();
    },

    // <tagName>
    onopentag(name, attributes) {
      let create = true;
      if (isHTML) {
        if (ownerSVGElement) {
          node = append(node, document.createElementNS(SVG_NAMESPACE, name), active);
          node.ownerSVGElement = ownerSVGElement;
          create = false;
        }
        else if (name === 'svg' || name === 'SVG') {
          ownerSVGElement = document.createElementNS(SVG_NAMESPACE, name);
          node = append(node, ownerSVGElement, active);
          create = false;
        }
        else if (active) {
          const ce = name.includes('-') ? name : (attributes.is || '');
          if (ce && registry.has(ce)) {
            const {Class} = registry.get(ce);
            node = append(node, new Class, active);
            delete attributes.is;
            create = false;
          }
        }
      }

      if (create)
        node = append(node, document.createElement(name), false);

      let end = node[END];
      for (const name of keys(attributes))
        attribute(node, end, document.createAttribute(name), attributes[name], active);
    },

    // #text, #comment
    oncomment(data) { append(node, document.createComment(data), active); },
    ontext(text) {
      if (parsingCData) {
        append(node, document.createCDATASection(text), active);
      } else {
        append(node, document.createTextNode(text), active);
      }
    },

    // #cdata
    oncdatastart() { parsingCData = true; },
    oncdataend() { parsingCData = false; },

    // </tagName>
    onclosetag() {
      if (isHTML && node === ownerSVGElement)
        ownerSVGElement = null;
      node = node.parentNode;
    }
  }, {`,
        '  notParsing = false;\n\n  const content = new Parser(new TreeBuilder(document, isHTML, active, registry), {',
      ],
    ],
  },
  {
    // nodeName and tagName of an HTML element upper-case its name on every read, and Readability reads
    // them several times per element: the upper-case names are kept.
    file: /[\\/]linkedom[\\/]esm[\\/]shared[\\/]utils\.js$/,
    why: 'upper-case tag names kept',
    edits: [
      [
        'export const localCase = ({localName, ownerDocument}) => {\n  return ownerDocument[MIME].ignoreCase ? localName.toUpperCase() : localName;\n};',
        `const upperCaseNames = new Map;
export const localCase = ({localName, ownerDocument}) => {
  if (!ownerDocument[MIME].ignoreCase) return localName;
  let name = upperCaseNames.get(localName);
  if (name === undefined) {
    name = localName.toUpperCase();
    // Pages may make up any number of names; the usual few hundred are plenty to keep.
    if (upperCaseNames.size < 1024) upperCaseNames.set(localName, name);
  }
  return name;
};`,
      ],
    ],
  },
  {
    // querySelectorAll, querySelector and closest compiled their selectors again on every call
    // (a fifth of the time of a '*' walk over a page): compiled ones are kept, except those that
    // name :scope, which depend on the element.
    file: /[\\/]linkedom[\\/]esm[\\/]shared[\\/]matches\.js$/,
    why: 'compiled selectors kept',
    edits: [
      [
        'export const prepareMatch = (element, selectors) => CSSselect.compile(\n  selectors,\n  {\n    context: selectors.includes(\':scope\') ? element : void 0,\n    xmlMode: !ignoreCase(element),\n    adapter\n  }\n);',
        `const compiledSelectors = new Map;
export const prepareMatch = (element, selectors) => {
  const xmlMode = !ignoreCase(element);
  if (selectors.includes(':scope')) return CSSselect.compile(selectors, {context: element, xmlMode, adapter});
  const key = (xmlMode ? 'xml ' : 'html ') + selectors;
  let match = compiledSelectors.get(key);
  if (match === undefined) {
    // cacheResults off: a kept :has() or descendant :is() would otherwise answer from a page already changed.
    match = CSSselect.compile(selectors, {context: void 0, xmlMode, adapter, cacheResults: false});
    // Pages bring no selectors of their own: those of the code (ours, Readability's) are a few dozen.
    if (compiledSelectors.size < 256) compiledSelectors.set(key, match);
  }
  return match;
};`,
      ],
    ],
  },
  {
    // Readability runs on pages without a content container (no <main>, no single <article>).
    // Two of its checks did costly work for nothing on every element it walks:
    // - _isValidByline read the element's whole text (the page's, for <html> and <body>) before
    //   looking at the cheap signs that decide first whether it can be a byline;
    // - _isProbablyVisible read node.style, for which linkedom builds a CSSStyleDeclaration proxy
    //   per element and parses the style attribute on every property read. The declared value is
    //   now read from the attribute as linkedom parses it (the last non-empty declaration wins).
    // - _fixRelativeUris resolved every link anew, though pages repeat theirs (half of sqlite's
    //   77,717 links): each page's resolutions are kept for the rest of it.
    // - parse() serialized the whole article for a debug message it then did not print.
    // Together a sixth of extracting the sqlite documentation; the Markdown is unchanged.
    file: /[\\/]@mozilla[\\/]readability[\\/]Readability\.js$/,
    why: 'bylines and visibility checked without reading text or building style objects; links resolved once a page; no article serialized for a debug message',
    edits: [
      ['    this.log("Grabbed: " + articleContent.innerHTML);', '    if (this._debug) {\n      this.log("Grabbed: " + articleContent.innerHTML);\n    }'],
      [
        '    function toAbsoluteURI(uri) {\n      // Leave hash links alone if the base URI matches the document URI:\n      if (baseURI == documentURI && uri.charAt(0) == "#") {\n        return uri;\n      }\n\n      // Otherwise, resolve against base URI:\n      try {\n        return new URL(uri, baseURI).href;\n      } catch (ex) {\n        // Something went wrong, just return the original:\n      }\n      return uri;\n    }',
        `    var resolved = new Map();
    function toAbsoluteURI(uri) {
      // Leave hash links alone if the base URI matches the document URI:
      if (baseURI == documentURI && uri.charAt(0) == "#") {
        return uri;
      }
      var absolute = resolved.get(uri);
      if (absolute === undefined) {
        // Otherwise, resolve against base URI:
        try {
          absolute = new URL(uri, baseURI).href;
        } catch (ex) {
          // Something went wrong, just return the original:
          absolute = uri;
        }
        resolved.set(uri, absolute);
      }
      return absolute;
    }`,
      ],
      [
        '    var bylineLength = node.textContent.trim().length;\n\n    return (\n      (rel === "author" ||\n        (itemprop && itemprop.includes("author")) ||\n        this.REGEXPS.byline.test(matchString)) &&\n      !!bylineLength &&\n      bylineLength < 100\n    );',
        '    if (!(rel === "author" || (itemprop && itemprop.includes("author")) || this.REGEXPS.byline.test(matchString))) {\n      return false;\n    }\n    var bylineLength = node.textContent.trim().length;\n    return !!bylineLength && bylineLength < 100;',
      ],
      [
        '  _isProbablyVisible(node) {\n    // Have to null-check node.style and node.className.includes to deal with SVG and MathML nodes.\n    return (\n      (!node.style || node.style.display != "none") &&\n      (!node.style || node.style.visibility != "hidden") &&',
        `  _declaredStyle(node, property) {
    var declarations = node.getAttribute("style");
    var value = "";
    if (declarations) {
      for (var rule of declarations.split(/\\s*;\\s*/)) {
        var [name, ...rest] = rule.split(":");
        if (rest.length > 0 && name.trim() === property) {
          var declared = rest.join(":").trim();
          if (declared) value = declared;
        }
      }
    }
    return value;
  },

  _isProbablyVisible(node) {
    // Have to null-check node.className.includes to deal with SVG and MathML nodes.
    return (
      this._declaredStyle(node, "display") != "none" &&
      this._declaredStyle(node, "visibility") != "hidden" &&`,
      ],
    ],
  },
];

const libraryEdits = {
  name: 'library-edits',
  setup(plugin) {
    // esbuild loads a file through the first plugin that matches it, so an entry whose file another
    // entry took, or whose file the bundle no longer loads (a package now resolving elsewhere, a
    // require made at run time), would silently not apply: the build fails instead.
    const applied = new Set();
    plugin.onEnd((result) => {
      if (result.errors.length > 0) return;
      const missed = LIBRARY_EDITS.filter((entry) => !applied.has(entry)).map(({ file }) => file.source);
      if (missed.length > 0) throw new Error(`LIBRARY_EDITS never applied to ${missed.join(', ')}: the bundle no longer loads that file through its entry`);
    });
    for (const entry of LIBRARY_EDITS) {
      const { file, why, edits } = entry;
      plugin.onLoad({ filter: file }, ({ path }) => {
        applied.add(entry);
        let contents = readFileSync(path, 'utf8');
        for (const [from, to] of edits) {
          if (!contents.includes(from)) throw new Error(`${path} no longer reads as scripts/bundle.js expects (${why}); revisit LIBRARY_EDITS`);
          contents = contents.replace(from, () => to);
        }
        return { contents, loader: 'js' };
      });
    }
  },
};

/**
 * The JSON Schemas `tools/list` shows, converted now rather than on each stdio start-up
 * (src/mcp/listed-schemas.ts), from tsc's output of the same sources (`npm run build` runs tsc
 * first). Every tool is registered: a server with guru administration and no bearer-key scope;
 * registering touches neither the assistant nor the administration, so stand-ins do.
 */
async function listedToolSchemas() {
  if (!existsSync(new URL('../dist/mcp/server.js', import.meta.url))) {
    throw new Error('dist/mcp/server.js is missing: run tsc first (`npm run build` does: tsc -p tsconfig.build.json, then this script)');
  }
  const { createMcpServer } = await import(new URL('../dist/mcp/server.js', import.meta.url).href);
  const { toolSchemaTable } = await import(new URL('../dist/mcp/listed-schemas.js', import.meta.url).href);
  const { silentLogger } = await import(new URL('../dist/log.js', import.meta.url).href);
  const server = createMcpServer({ backend: { assistant: {}, admin: {} }, logger: silentLogger, era: 'modern' });
  return toolSchemaTable(server);
}

const toolSchemas = await listedToolSchemas();

rmSync(outdir, { recursive: true, force: true });

await build({
  absWorkingDir: root,
  entryPoints: {
    'guru-mcp': fileURLToPath(new URL('../src/cli/main.ts', import.meta.url)),
    'extraction-worker': fileURLToPath(new URL('../src/engine/ingest/extract/extraction-worker.ts', import.meta.url)),
    'writer-thread': fileURLToPath(new URL('../src/engine/ingest/writer/writer-thread.ts', import.meta.url)),
    'mp3-worker': fileURLToPath(new URL('../src/engine/speech/mp3-worker.ts', import.meta.url)),
  },
  outdir,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  sourcemap: 'linked',
  logLevel: 'warning',
  // Native addons and packages that locate files of their own at run time stay in node_modules.
  // Keyv and its SQLite store are bundled: their engines field asks for Node 22, so as dependencies
  // every install on Node 20 warns, although they run there (the suite runs on 20). Their store
  // is given a better-sqlite3 driver (src/state/keyv.ts): Bun's driver is never loaded.
  external: ['better-sqlite3', 'sqlite-vec', 'bun:sqlite'],
  plugins: [libraryEdits],
  define: { GURU_LISTED_TOOL_SCHEMAS: JSON.stringify(JSON.stringify(toolSchemas)) },
  // CommonJS dependencies inside an ES module bundle still need a `require` for Node's built-ins.
  banner: { js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);" },
});

// The web interface's pages, styles and browser modules, served as they are (src/web/assets-store.ts finds them here).
cpSync(new URL('../src/web/assets/', import.meta.url), new URL('../dist/bin/web/', import.meta.url), { recursive: true });

// The MCP Apps answer view (src/mcp/apps/answer-view.ts reads it on the first resources/read).
cpSync(new URL('../src/mcp/apps/answer-view.html', import.meta.url), new URL('../dist/bin/mcp-apps/answer-view.html', import.meta.url));

chmodSync(new URL('../dist/bin/guru-mcp.js', import.meta.url), 0o755);
