// An agent written from the design document alone: the design document's ClusterMetadataService (section
// 3.4) as printed, plus the definitions of the messages it leaves undefined, loaded by the
// official @grpc/proto-loader and spoken by @grpc/grpc-js.
// Usage: node design_client.js HOST:PORT PROTO_FILE INCLUDE_DIR CLUSTER TOKEN OTHER_CLUSTER OTHER_TOKEN [throttled]
// Prints one line per step ("ok STEP ..."); exits 1 on a failure. With "throttled" it only pushes
// faster than a hub started with a low --cluster-update-rate allows.
'use strict';
const grpc = require('@grpc/grpc-js');
const protoLoader = require('@grpc/proto-loader');

const [address, protoFile, includeDir, cluster, token, otherCluster, otherToken, mode] =
  process.argv.slice(2);
const definition = protoLoader.loadSync(protoFile, {
  keepCase: true, longs: String, enums: String, defaults: true, oneofs: true,
  includeDirs: [includeDir],
});
// No package in the design document's text: the service is at the root, /ClusterMetadataService/...
const design = grpc.loadPackageDefinition(definition);
const client = new design.ClusterMetadataService(address, grpc.credentials.createInsecure());

function bearer(value = token) {
  const metadata = new grpc.Metadata();
  metadata.set('authorization', `Bearer ${value}`);
  return metadata;
}
function fail(message) {
  console.log(`FAIL ${message}`);
  process.exit(1);
}
const deadline = () => new Date(Date.now() + 10000);
function node(name, allocatedCpu) {
  return {
    name, nodeGroup: 'pool', allocatableCpuMilli: '8000',
    allocatableMemoryBytes: String(32 * 2 ** 30), maxPods: 110,
    allocatedCpuMilli: String(allocatedCpu), allocatedMemoryBytes: '0', podCount: 0,
    schedulable: true,
    accelerators: [{ type: 'GPU', resource: 'nvidia.com/gpu', model: 'A100-SXM4-80GB',
                     memoryBytes: String(80 * 2 ** 30), interconnect: 'NVLINK', linkGeneration: 4 }],
  };
}
function update(version, nodeDeltas, extra = {}) {
  return { clusterID: cluster, version: String(version), nodeDeltas, ...extra };
}
const whole = () => update(1, [{ op: 'ADD', node: node('n1', 0) }, { op: 'ADD', node: node('n2', 0) }],
  { healthStatus: 'HEALTHY',
    resourceDelta: { resources: { storage: [{ storageClass: 'ssd', capacityBytes: String(2 ** 40), usedBytes: '0' }] } } });
const rest = () => [
  update(2, [{ op: 'UPDATE', node: node('n1', 1500) }]),
  update(3, [{ op: 'ADD', node: node('n3', 500) }], { healthStatus: 'HEALTHY' }),
];

// Client streaming, as the design document prints it: every update goes out, one Ack comes back.
function push(updates, metadata = bearer()) {
  return new Promise((resolve) => {
    const call = client.PushIncrementalUpdates(metadata, { deadline: deadline() },
      (error, ack) => resolve(error ? { code: error.code, details: error.details } : { code: 0, ack }));
    for (const u of updates) call.write(u);
    call.end();
  });
}
const unary = (method, request, metadata = bearer()) =>
  new Promise((resolve) => {
    client[method](request, metadata, { deadline: deadline() },
      (error, reply) => resolve({ error, reply }));
  });
function expectAck(step, result, status, version, applied) {
  if (result.code !== 0 || result.ack.status !== status || result.ack.version !== String(version) ||
      result.ack.updatesApplied !== String(applied)) {
    fail(`${step}: ${JSON.stringify(result)}`);
  }
  console.log(`ok ${step} ${status} version ${version}: ${result.ack.detail}`);
}
function expectStatus(step, result, code, text) {
  const details = result.details || (result.error && result.error.details) || '';
  const got = result.code !== undefined ? result.code : (result.error ? result.error.code : 0);
  if (got !== code || !details.includes(text)) fail(`${step}: ${got} ${details}`);
  console.log(`ok ${step} ${Object.keys(grpc.status).find((k) => grpc.status[k] === code)}: ${details}`);
}

async function main() {
  expectStatus('wrong-token', await push([whole()], bearer('not-the-right-token-at-all')),
    grpc.status.UNAUTHENTICATED, 'token');

  // A new cluster: versions 1 to 3 in one stream, one Ack.
  expectAck('pushed 1..3', await push([whole(), ...rest()]), 'APPLIED', 3, 3);

  let reply = await unary('HealthCheck', { clusterID: cluster });
  if (reply.error || reply.reply.version !== '3' || !reply.reply.viewOnly) {
    fail(`health: ${JSON.stringify(reply)}`);
  }
  console.log(`ok health ${reply.reply.status} version 3 view-only`);

  reply = await unary('PullFullSnapshot', { clusterID: cluster });
  const cpu = {};
  for (const n of (reply.reply || { nodes: [] }).nodes) cpu[n.name] = Number(n.allocatedCpuMilli);
  const device = reply.reply ? reply.reply.nodes[0].accelerators[0] : {};
  if (reply.error || reply.reply.version !== '3' || cpu.n1 !== 1500 || cpu.n2 !== 0 || cpu.n3 !== 500 ||
      device.resource !== 'nvidia.com/gpu' || device.linkGeneration !== 4 ||
      reply.reply.resources.storage[0].storageClass !== 'ssd') {
    fail(`snapshot: ${JSON.stringify(reply)}`);
  }
  console.log(`ok snapshot version 3 ${JSON.stringify(cpu)}`);

  expectStatus('not-found', await unary('HealthCheck', { clusterID: otherCluster }, bearer(otherToken)),
    grpc.status.NOT_FOUND, otherCluster);

  // A gap and a version going back each end the stream with an Ack saying so.
  expectAck('gap', await push([update(5, [])]), 'GAP', 3, 0);
  expectAck('back', await push([update(2, [])]), 'BEHIND', 3, 0);

  // healthStatus is free text in the IDL: known states in any case, anything else UNKNOWN.
  expectAck('free-text health', await push([update(4, [], { healthStatus: 'Healthy' }),
    update(5, [], { healthStatus: 'GREAT' })]), 'APPLIED', 5, 2);

  // Malformed updates end the call with INVALID_ARGUMENT naming the field; nothing is lost.
  expectStatus('bad-version', await push([update(0, [])]), grpc.status.INVALID_ARGUMENT, 'version');
  expectStatus('bad-start', await push([update(1, [{ op: 'UPDATE', node: node('n1', 0) }])]),
    grpc.status.INVALID_ARGUMENT, 'nodeDeltas[0].op');
  expectStatus('bad-node', await push([update(6, [{ op: 'UPDATE', node: node('ghost', 0) }])]),
    grpc.status.INVALID_ARGUMENT, 'ghost');
  reply = await unary('HealthCheck', { clusterID: cluster });
  if (reply.error || reply.reply.version !== '5') fail(`after refusals: ${JSON.stringify(reply)}`);
  console.log('ok nothing lost: version 5');

  // A stream applies what comes before a gap, and says how far it got.
  expectAck('partial', await push([update(6, []), update(8, [])]), 'GAP', 6, 1);
  // The agent restarts at 1 with its whole state, and goes on.
  expectAck('restart', await push([whole(), ...rest()]), 'APPLIED', 3, 3);
  client.close();
}

// Over the cluster's update rate a stream ends RESOURCE_EXHAUSTED and nothing of it is taken:
// the agent waits and streams the same version again, and no version is skipped or lost.
async function throttled() {
  expectAck('pushed 1..3', await push([whole(), ...rest()]), 'APPLIED', 3, 3);
  const last = 40;
  let refusals = 0;
  for (let version = 4; version <= last;) {
    const result = await push([update(version, [{ op: 'UPDATE', node: node('n1', version) }])]);
    if (result.code === grpc.status.RESOURCE_EXHAUSTED) {
      if (++refusals > 1000) fail(`still refused at version ${version}: ${result.details}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
      continue;
    }
    expectAck(`pushed ${version}`, result, 'APPLIED', version, 1);
    ++version;
  }
  if (refusals === 0) fail('never throttled');
  const reply = await unary('PullFullSnapshot', { clusterID: cluster });
  const n1 = reply.reply ? reply.reply.nodes.find((n) => n.name === 'n1') : undefined;
  if (reply.error || reply.reply.version !== String(last) || Number(n1.allocatedCpuMilli) !== last) {
    fail(`after throttling: ${JSON.stringify(reply)}`);
  }
  console.log(`ok throttled ${refusals} times, every version applied up to ${last}`);
  client.close();
}

(mode === 'throttled' ? throttled() : main()).catch((error) => fail(error.stack));
