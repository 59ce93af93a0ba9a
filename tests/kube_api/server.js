// A small Kubernetes API server for tests: Nodes and Pods with real list/watch semantics
// (resourceVersion, limit/continue pages, chunked watch events with bookmarks, 410 for a version
// older than the event log), pod create, binding and delete with the kubelet's admission, and
// the discovery documents kubectl reads. HTTPS with a client certificate, on loopback.
// Usage: node server.js --cert F --key F --ca F [--port N] [--nodes FILE]... [--pods FILE]...
//          [--generate-nodes N] [--log-length N] [--bookmark-ms N]
// Prints "listening on 127.0.0.1:PORT". Test controls (same TLS) live under /unisched-test/:
// nodes (put/delete), drop-watches, compact (410 for older versions), raw-event, and
// hold-watches / release-watches (watch events wait, in order, until released: a lagging watch),
// and hostile (a broken or hostile server: {mode: 'gzip-bomb' | 'endless-line' |
// 'endless-continue' | 'duplicate-nodes'} for every later list or watch; {mode: ''} ends it).
'use strict';

const fs = require('fs');
const https = require('https');
const zlib = require('zlib');
const { Store } = require('./store');
const discovery = require('./discovery');

function parseArgs(argv) {
  const args = { port: 0, nodes: [], pods: [], generateNodes: 0, logLength: 1000, bookmarkMs: 1000 };
  for (let i = 0; i < argv.length; i += 2) {
    const [flag, value] = [argv[i], argv[i + 1]];
    if (flag === '--nodes') args.nodes.push(value);
    else if (flag === '--pods') args.pods.push(value);
    else if (flag === '--generate-nodes') args.generateNodes = Number(value);
    else if (flag === '--log-length') args.logLength = Number(value);
    else if (flag === '--bookmark-ms') args.bookmarkMs = Number(value);
    else args[flag.replace(/^--/, '')] = value;
  }
  return args;
}

function status(code, reason, message) {
  return { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason, code };
}

function send(res, code, body) {
  const text = JSON.stringify(body);
  res.writeHead(code, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text) });
  res.end(text);
}

function readBody(req) {
  return new Promise((resolve, reject) => {
    const chunks = [];
    req.on('data', (chunk) => chunks.push(chunk));
    req.on('end', () => {
      try {
        resolve(chunks.length ? JSON.parse(Buffer.concat(chunks).toString()) : {});
      } catch (error) {
        reject(error);
      }
    });
  });
}

class ApiServer {
  constructor(args) {
    this.args = args;
    this.store = new Store(args.logLength);
    this.streams = new Set();
    this.holding = false;
  }

  load() {
    // A file holds a list (kubectl's List, a NodeList, a PodList) or one object.
    const objects = (file) => {
      const document = JSON.parse(fs.readFileSync(file));
      return document.items || [document];
    };
    for (const file of this.args.nodes) {
      for (const node of objects(file)) this.store.put('Node', node, 'ADDED');
    }
    for (const file of this.args.pods) {
      for (const pod of objects(file)) this.store.put('Pod', pod, 'ADDED');
    }
    for (let i = 0; i < this.args.generateNodes; ++i) {
      this.store.put('Node', generatedNode(i), 'ADDED');
    }
  }

  // GET of a collection: a page of it, or a watch.
  list(kind, namespace, query, res) {
    const watching = query.get('watch') === 'true' || query.get('watch') === '1';
    if (this.hostile && hostileAnswer(this.hostile, kind, watching, res)) return undefined;
    if (watching) {
      return this.watch(kind, namespace, query, res);
    }
    const limit = Number(query.get('limit') || 0);
    let start = '';
    let listRv = String(this.store.rv);
    if (query.get('continue')) {
      const token = JSON.parse(Buffer.from(query.get('continue'), 'base64').toString());
      if (this.store.tooOld(token.rv)) {
        return send(res, 410, status(410, 'Expired', 'The provided continue parameter is too old ' +
          'to display a consistent list result. You can start a new list without the continue parameter.'));
      }
      [start, listRv] = [token.start, token.rv];
    }
    const keys = [...this.store.collection(kind).keys()]
      .filter((key) => kind === 'Node' || !namespace || key.startsWith(`${namespace}/`))
      .sort().filter((key) => key > start);
    const page = limit > 0 ? keys.slice(0, limit) : keys;
    const metadata = { resourceVersion: listRv };
    if (limit > 0 && keys.length > limit) {
      metadata.continue = Buffer.from(JSON.stringify({ rv: listRv, start: page[page.length - 1] }))
        .toString('base64');
    }
    const items = page.map((key) => this.store.collection(kind).get(key));
    send(res, 200, { kind: `${kind}List`, apiVersion: 'v1', metadata, items });
  }

  watch(kind, namespace, query, res) {
    const from = query.get('resourceVersion') || String(this.store.rv);
    if (Number(from) > this.store.rv) {
      // A version this server never reached (it restarted from an older state), as the
      // apiserver's watch cache answers it.
      return send(res, 504, status(504, 'Timeout',
        `Too large resource version: ${from}, current: ${this.store.rv}`));
    }
    res.writeHead(200, { 'Content-Type': 'application/json', 'Transfer-Encoding': 'chunked' });
    // While watches are held (a lagging informer), events wait in order, bookmarks included.
    const held = [];
    const write = (event) => {
      if (this.holding) held.push(event);
      else res.write(`${JSON.stringify(event)}\n`);
    };
    res.release = () => {
      for (const event of held.splice(0)) res.write(`${JSON.stringify(event)}\n`);
    };
    if (this.store.tooOld(from)) {
      write({ type: 'ERROR', object: status(410, 'Expired',
        `too old resource version: ${from} (${this.store.oldest - 1})`) });
      return res.end();
    }
    const matches = (object) => kind === 'Node' || !namespace || object.metadata.namespace === namespace;
    for (const entry of this.store.since(kind, from)) {
      if (matches(entry.object)) write({ type: entry.type, object: entry.object });
    }
    const watcher = (eventKind, type, object) => {
      if (eventKind === kind && matches(object)) write({ type, object });
    };
    this.store.watchers.add(watcher);
    const bookmarks = query.get('allowWatchBookmarks') === 'true' ? setInterval(() => write({
      type: 'BOOKMARK', object: { kind, apiVersion: 'v1',
        metadata: { resourceVersion: String(this.store.rv) }, spec: { containers: null }, status: {} },
    }), this.args.bookmarkMs) : null;
    const close = () => {
      this.store.watchers.delete(watcher);
      clearInterval(bookmarks);
      clearTimeout(timeout);
      this.streams.delete(res);
      res.end();
    };
    const timeout = setTimeout(close, Number(query.get('timeoutSeconds') || 1800) * 1000);
    res.on('close', close);
    this.streams.add(res);
    res.dropWatch = close;
  }

  async pods(method, parts, query, req, res) {
    // parts: [namespace] or [namespace, name] or [namespace, name, 'binding']
    const [namespace, name, sub] = parts;
    if (method === 'GET' && !name) return this.list('Pod', namespace, query, res);
    const key = `${namespace}/${name}`;
    const existing = this.store.pods.get(key);
    if (method === 'GET') {
      return existing ? send(res, 200, existing) : send(res, 404, status(404, 'NotFound', `pods "${name}" not found`));
    }
    if (method === 'DELETE') {
      if (!existing) return send(res, 404, status(404, 'NotFound', `pods "${name}" not found`));
      return send(res, 200, this.store.record('Pod', 'DELETED', existing));
    }
    const body = await readBody(req);
    if (method === 'POST' && !name) return this.createPod(namespace, body, res, query);
    if (method === 'POST' && sub === 'binding') {
      if (!existing) return send(res, 404, status(404, 'NotFound', `pods "${name}" not found`));
      if (existing.spec.nodeName) {
        return send(res, 409, status(409, 'Conflict',
          `Operation cannot be fulfilled on pods/binding "${name}": pod ${name} is already assigned to node "${existing.spec.nodeName}"`));
      }
      this.store.bind(existing, body.target.name);
      return send(res, 201, status(201, '', 'bound'));
    }
    return send(res, 405, status(405, 'MethodNotAllowed', `${method} is not supported here`));
  }

  createPod(namespace, pod, res, query) {
    if (query.get('fieldValidation') === 'Strict') {
      const unknown = Object.keys(pod).filter((field) => !['apiVersion', 'kind', 'metadata', 'spec', 'status'].includes(field));
      if (unknown.length) {
        return send(res, 400, status(400, 'BadRequest', `strict decoding error: unknown field "${unknown[0]}"`));
      }
    }
    if (!pod.metadata || !pod.metadata.name || !pod.spec || !Array.isArray(pod.spec.containers)) {
      return send(res, 422, status(422, 'Invalid', 'Pod is invalid: metadata.name and spec.containers are required'));
    }
    pod.metadata.namespace = namespace;
    if (this.store.pods.has(`${namespace}/${pod.metadata.name}`)) {
      return send(res, 409, status(409, 'AlreadyExists', `pods "${pod.metadata.name}" already exists`));
    }
    pod.status = { phase: 'Pending' };
    const created = this.store.put('Pod', pod, 'ADDED');
    if (pod.spec.nodeName) this.store.bind(created, pod.spec.nodeName);
    return send(res, 201, created);
  }

  // Test controls: change nodes, end pods, drop watches, forget the event log.
  async control(action, req, res) {
    const body = await readBody(req);
    if (action === 'nodes') {
      for (const node of body.put || []) this.store.put('Node', node);
      for (const name of body.delete || []) {
        const node = this.store.nodes.get(name);
        if (node) this.store.record('Node', 'DELETED', node);
      }
    } else if (action === 'pods') {
      // The kubelet reports pods whose containers ended ("namespace/name" -> phase).
      for (const [key, phase] of Object.entries(body.phase || {})) {
        const pod = this.store.pods.get(key);
        if (pod) this.store.record('Pod', 'MODIFIED', { ...pod, status: { ...pod.status, phase } });
      }
    } else if (action === 'drop-watches') {
      for (const stream of [...this.streams]) stream.dropWatch();
    } else if (action === 'compact') {
      this.store.compact();
      for (const stream of [...this.streams]) stream.dropWatch();
    } else if (action === 'hold-watches') {
      this.holding = true;
    } else if (action === 'release-watches') {
      this.holding = false;
      for (const stream of this.streams) stream.release();
    } else if (action === 'hostile') {
      this.hostile = body.mode || '';
    } else if (action === 'raw-event') {
      for (const stream of this.streams) stream.write(`${body.line}\n`);
    } else {
      return send(res, 404, status(404, 'NotFound', action));
    }
    return send(res, 200, { rv: String(this.store.rv) });
  }

  async handle(req, res) {
    const url = new URL(req.url, 'https://localhost');
    const path = url.pathname.replace(/\/$/, '');
    const parts = path.split('/').filter(Boolean);
    try {
      if (parts[0] === 'unisched-test') return await this.control(parts[1], req, res);
      const document = discovery.document(path, url.searchParams);
      if (document) return send(res, 200, document);
      if (path === '/api/v1/nodes' && req.method === 'GET') return this.list('Node', '', url.searchParams, res);
      if (path.startsWith('/api/v1/nodes/') && req.method === 'GET') {
        const node = this.store.nodes.get(parts[3]);
        return node ? send(res, 200, node) : send(res, 404, status(404, 'NotFound', `nodes "${parts[3]}" not found`));
      }
      if (path === '/api/v1/pods' && req.method === 'GET') return this.list('Pod', '', url.searchParams, res);
      if (parts[0] === 'api' && parts[2] === 'namespaces' && parts[4] === 'pods') {
        return await this.pods(req.method, [parts[3], parts[5], parts[6]], url.searchParams, req, res);
      }
      return send(res, 404, status(404, 'NotFound', `the server could not find the requested resource (${req.method} ${path})`));
    } catch (error) {
      return send(res, 400, status(400, 'BadRequest', String(error.message || error)));
    }
  }
}

// What a broken or hostile server answers; false when `mode` leaves this request alone.
let bomb = null;
function hostileAnswer(mode, kind, watching, res) {
  if (mode === 'gzip-bomb' && !watching) {
    // 256 MiB of spaces in about 250 KiB: made once, on first use.
    bomb = bomb || zlib.gzipSync(Buffer.alloc(256 << 20, 0x20), { level: 9 });
    res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Encoding': 'gzip',
      'Content-Length': bomb.length });
    res.end(bomb);
    return true;
  }
  if (mode === 'endless-line' && watching) {
    // A watch event that never ends its line: 64 MiB, a MiB at a time, then the stream ends.
    res.writeHead(200, { 'Content-Type': 'application/json', 'Transfer-Encoding': 'chunked' });
    const chunk = Buffer.alloc(1 << 20, 0x61);
    let sent = 0;
    const more = () => {
      while (sent < 64 && !res.destroyed) {
        sent += 1;
        if (!res.write(sent === 1 ? `{"type":"ADDED","object":"${chunk}` : chunk)) {
          return res.once('drain', more);
        }
      }
      return res.end();
    };
    res.on('close', () => { sent = 64; });
    more();
    return true;
  }
  if (mode === 'duplicate-nodes' && !watching) {
    // A broken server: one node listed twice under its name.
    send(res, 200, { kind: `${kind}List`, apiVersion: 'v1', metadata: { resourceVersion: '1' },
      items: kind === 'Node' ? [generatedNode(0), generatedNode(0), generatedNode(1)] : [] });
    return true;
  }
  if (mode === 'endless-continue' && !watching) {
    // Every page says there is another.
    const item = generatedNode(0);
    send(res, 200, { kind: `${kind}List`, apiVersion: 'v1',
      metadata: { resourceVersion: '1', continue: Buffer.from('{"rv":"1","start":""}').toString('base64') },
      items: kind === 'Node' ? [item] : [] });
    return true;
  }
  return false;
}

function generatedNode(i) {
  const name = `node-${String(i).padStart(5, '0')}`;
  return {
    metadata: { name, labels: { 'kubernetes.io/hostname': name, 'topology.kubernetes.io/zone': `zone-${i % 3}` } },
    spec: {},
    status: {
      allocatable: { cpu: '32', memory: '128Gi', pods: '110', 'nvidia.com/gpu': i % 4 === 0 ? '8' : '0' },
      conditions: [{ type: 'Ready', status: 'True' }],
      nodeInfo: { kubeletVersion: 'v1.30.2', containerRuntimeVersion: 'containerd://1.7.18' },
    },
  };
}

const args = parseArgs(process.argv.slice(2));
const api = new ApiServer(args);
api.load();
const server = https.createServer({
  cert: fs.readFileSync(args.cert), key: fs.readFileSync(args.key), ca: fs.readFileSync(args.ca),
  requestCert: true, rejectUnauthorized: true,
}, (req, res) => { api.handle(req, res); });
server.listen(Number(args.port), '127.0.0.1', () => {
  console.log(`listening on 127.0.0.1:${server.address().port}`);
});
process.on('SIGTERM', () => process.exit(0));
