// The test API server's state: Nodes and Pods with one resourceVersion counter, an event log of
// bounded length (a watch or continue token older than the log gets 410, as from etcd after
// compaction), and the kubelet's admission rule: a pod bound to a node is refused when the
// node's allocatable minus what its running pods request cannot hold it.
'use strict';

const { quantityValue } = require('./quantity');

class Store {
  constructor(logLength = 1000) {
    this.rv = 1;
    this.nodes = new Map();
    this.pods = new Map();  // "namespace/name" -> pod
    this.log = [];          // {rv, kind, type, object}
    this.logLength = logLength;
    this.oldest = 1;        // a watch may start from any version >= oldest - 1
    this.watchers = new Set();
    this.uid = 0;
  }

  collection(kind) {
    return kind === 'Node' ? this.nodes : this.pods;
  }

  static key(kind, object) {
    return kind === 'Node' ? object.metadata.name
                           : `${object.metadata.namespace || 'default'}/${object.metadata.name}`;
  }

  // Records a change: a new resourceVersion, the log entry, every matching watcher told.
  record(kind, type, object) {
    this.rv += 1;
    object.metadata.resourceVersion = String(this.rv);
    const map = this.collection(kind);
    if (type === 'DELETED') map.delete(Store.key(kind, object));
    else map.set(Store.key(kind, object), object);
    this.log.push({ rv: this.rv, kind, type, object: JSON.parse(JSON.stringify(object)) });
    while (this.log.length > this.logLength) this.oldest = this.log.shift().rv + 1;
    for (const watcher of this.watchers) watcher(kind, type, object, this.rv);
    return object;
  }

  // Forgets the log past every version a client holds now (as etcd's compaction overtakes a
  // client that fell behind): any watch or continue token from before now gets 410.
  compact() {
    this.rv += 1;
    this.log = [];
    this.oldest = this.rv + 1;
  }

  tooOld(rv) {
    return Number(rv) < this.oldest - 1;
  }

  since(kind, rv) {
    return this.log.filter((entry) => entry.kind === kind && entry.rv > Number(rv));
  }

  put(kind, object, type) {
    object.metadata = object.metadata || {};
    if (!object.metadata.uid) object.metadata.uid = `uid-${++this.uid}`;
    if (!object.metadata.creationTimestamp) object.metadata.creationTimestamp = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
    if (kind === 'Pod' && !object.metadata.namespace) object.metadata.namespace = 'default';
    object.kind = kind;
    object.apiVersion = 'v1';
    const exists = this.collection(kind).has(Store.key(kind, object));
    return this.record(kind, type || (exists ? 'MODIFIED' : 'ADDED'), object);
  }

  // What the pods running on `nodeName` request, by resource (cpu in milli, others in units).
  used(nodeName, except) {
    const used = { pods: 0 };
    for (const pod of this.pods.values()) {
      const phase = (pod.status || {}).phase;
      if (pod === except || pod.spec.nodeName !== nodeName || phase === 'Succeeded' ||
          phase === 'Failed') continue;
      used.pods += 1;
      for (const [resource, amount] of Object.entries(podRequests(pod))) {
        used[resource] = (used[resource] || 0) + amount;
      }
    }
    return used;
  }

  // The kubelet's admission: null when the pod fits its node, else the reason ("OutOfcpu").
  admit(pod) {
    const node = this.nodes.get(pod.spec.nodeName);
    if (!node) return 'NodeNotFound';
    const allocatable = node.status.allocatable || {};
    const used = this.used(pod.spec.nodeName, pod);
    const wanted = podRequests(pod);
    wanted.pods = 1;
    for (const [resource, amount] of Object.entries(wanted)) {
      if (amount === 0) continue;
      const room = quantityValue(allocatable[resource] || '0', resource) - (used[resource] || 0);
      if (amount > room) return resource === 'pods' ? 'OutOfpods' : `OutOf${resource}`;
    }
    return null;
  }

  // Binds `pod` to `nodeName` and runs it, or fails it as the kubelet does.
  bind(pod, nodeName) {
    pod.spec.nodeName = nodeName;
    const refusal = this.admit(pod);
    pod.status = refusal
      ? { phase: 'Failed', reason: refusal,
          message: `Pod was rejected: Node didn't have enough resource: ${refusal.slice(5)}` }
      : { phase: 'Running',
          conditions: [{ type: 'PodScheduled', status: 'True' }, { type: 'Ready', status: 'True' }] };
    return this.put('Pod', pod, 'MODIFIED');
  }
}

// Kubernetes' rule: the larger of the containers (with sidecars) and the init peak, plus overhead.
function podRequests(pod) {
  const spec = pod.spec || {};
  const requestsOf = (container) => {
    const resources = container.resources || {};
    const out = {};
    for (const [resource, quantity] of Object.entries({ ...(resources.limits || {}),
      ...(resources.requests || {}) })) {
      out[resource] = quantityValue(quantity, resource);
    }
    return out;
  };
  const add = (to, more) => { for (const [r, v] of Object.entries(more)) to[r] = (to[r] || 0) + v; };
  const total = {};
  for (const container of spec.containers || []) add(total, requestsOf(container));
  const sidecars = {};
  const peak = {};
  for (const container of spec.initContainers || []) {
    let wanted = requestsOf(container);
    if (container.restartPolicy === 'Always') {
      add(total, wanted);
      add(sidecars, wanted);
      wanted = { ...sidecars };
    } else {
      add(wanted, sidecars);
    }
    for (const [r, v] of Object.entries(wanted)) peak[r] = Math.max(peak[r] || 0, v);
  }
  for (const [r, v] of Object.entries(peak)) total[r] = Math.max(total[r] || 0, v);
  for (const [r, q] of Object.entries(spec.overhead || {})) total[r] = (total[r] || 0) + quantityValue(q, r);
  return total;
}

module.exports = { Store, podRequests };
