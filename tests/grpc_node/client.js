// A ClusterMetadataService client that nobody in this project wrote the library of: the
// official @grpc/grpc-js and @grpc/proto-loader, loading the project's own .proto file.
// Usage: node client.js HOST:PORT PROTO_FILE CLUSTER TOKEN
// Runs the agent's side of the protocol and the server's edge cases; prints one line per step
// ("ok STEP ...") and ends with "state {json}" (the nodes it holds); exits 1 on a failure.
'use strict';
const grpc = require('@grpc/grpc-js');
const protoLoader = require('@grpc/proto-loader');

const [address, protoFile, cluster, token] = process.argv.slice(2);
const definition = protoLoader.loadSync(protoFile, {
  keepCase: true, longs: String, enums: String, defaults: true, oneofs: true,
});
const v1 = grpc.loadPackageDefinition(definition).unisched.v1;
const client = new v1.ClusterMetadataService(address, grpc.credentials.createInsecure());
const epoch = String(Date.now());

function auth(value = token) {
  const metadata = new grpc.Metadata();
  if (value) metadata.set('x-cluster-token', value);
  metadata.set('x-cluster-region', 'us-east');
  return metadata;
}
function fail(message) {
  console.log(`FAIL ${message}`);
  process.exit(1);
}
function deadline() {
  return new Date(Date.now() + 10000);
}
function node(name, allocatedCpu) {
  return {
    name, node_group: 'pool', allocatable_cpu_milli: '8000',
    allocatable_memory_bytes: String(32 * 2 ** 30), max_pods: 110,
    allocated_cpu_milli: String(allocatedCpu), allocated_memory_bytes: '0', pod_count: 0,
    schedulable: true,
  };
}
function update(version, deltas, forCluster = cluster) {
  return {
    cluster_id: forCluster, epoch, version: String(version), base_version: String(version - 1),
    node_deltas: deltas,
  };
}
const unary = (method, request, metadata = auth()) =>
  new Promise((resolve) => {
    client[method](request, metadata, { deadline: deadline() },
                   (error, reply) => resolve({ error, reply }));
  });

// Streams `updates`, one at a time (each waits for its Ack); resolves with the acks and the
// status the stream ended with.
function stream(updates, metadata = auth()) {
  return new Promise((resolve) => {
    const call = client.PushIncrementalUpdates(metadata, { deadline: deadline() });
    const acks = [];
    let next = 0;
    const sendNext = () => {
      if (next < updates.length) call.write(updates[next++]);
      else call.end();
    };
    call.on('data', (ack) => { acks.push(ack); sendNext(); });
    call.on('error', (error) => resolve({ acks, code: error.code, details: error.details }));
    call.on('end', () => resolve({ acks, code: grpc.status.OK }));
    sendNext();
  });
}
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

async function main() {
  // The standard health service answers for the metadata service.
  const healthDefinition = protoLoader.loadSync(require('path').join(__dirname, 'health.proto'),
                                                { keepCase: true, enums: String });
  const health = new (grpc.loadPackageDefinition(healthDefinition).grpc.health.v1.Health)(
    address, grpc.credentials.createInsecure());
  const serving = await new Promise((resolve) => {
    health.Check({ service: 'unisched.v1.ClusterMetadataService' }, { deadline: deadline() },
                 (error, reply) => resolve(error ? error.details : reply.status));
  });
  if (serving !== 'SERVING') fail(`grpc.health.v1: ${serving}`);
  console.log('ok health SERVING');

  // Server reflection lists the metadata service.
  const reflectionDefinition = protoLoader.loadSync(
    require('path').join(__dirname, 'reflection.proto'), { keepCase: true, oneofs: true });
  const reflection = new (grpc.loadPackageDefinition(reflectionDefinition)
    .grpc.reflection.v1alpha.ServerReflection)(address, grpc.credentials.createInsecure());
  const services = await new Promise((resolve) => {
    const call = reflection.ServerReflectionInfo({ deadline: deadline() });
    call.on('data', (response) => {
      resolve((response.list_services_response || { service: [] }).service.map((s) => s.name));
      call.end();
    });
    call.on('error', (error) => resolve([error.details]));
    call.write({ list_services: '' });
  });
  if (!services.includes('unisched.v1.ClusterMetadataService')) {
    fail(`reflection: ${JSON.stringify(services)}`);
  }
  console.log(`ok reflection ${services.join(',')}`);

  // Identity: without the token, or with another cluster's, nothing gets in.
  let result = await stream([update(1, [])], auth('not-the-right-token-at-all'));
  if (result.code !== grpc.status.UNAUTHENTICATED) fail(`wrong token: ${result.code} ${result.details}`);
  result = await stream([update(1, [])], auth(''));
  if (result.code !== grpc.status.UNAUTHENTICATED) fail(`no token: ${result.code}`);
  console.log(`ok unauthenticated ${result.details}`);

  // Unknown clusters are NOT_FOUND; a request without a cluster is INVALID_ARGUMENT.
  let reply = await unary('HealthCheck', { cluster_id: cluster, sequence: '1' });
  if (!reply.error || reply.error.code !== grpc.status.NOT_FOUND) fail('health of an unknown cluster');
  reply = await unary('PullFullSnapshot', { cluster: { cluster_id: '' } });
  if (!reply.error || reply.error.code !== grpc.status.INVALID_ARGUMENT) fail('pull without a cluster');
  console.log(`ok not-found ${reply.error.details}`);

  // Ids that are not DNS-1123 labels are refused where they enter, and echoed back briefly.
  for (const id of ['a"b', 'x\ny', 'nul\0', '../../etc', 'UPPER', 'x'.repeat(2 ** 20)]) {
    reply = await unary('HealthCheck', { cluster_id: id, sequence: '1' });
    if (!reply.error || reply.error.code !== grpc.status.INVALID_ARGUMENT ||
        !reply.error.details.startsWith('cluster_id: Invalid value: ') ||
        reply.error.details.length > 400) {
      fail(`hostile id ${JSON.stringify(id.slice(0, 20))}: ${JSON.stringify(reply.error)}`);
    }
    result = await stream([update(1, [], id)]);
    if (result.code !== grpc.status.INVALID_ARGUMENT) fail(`hostile id streamed: ${result.code}`);
  }
  console.log('ok hostile-ids refused');

  // Register by streaming: the first update lists the nodes.
  result = await stream([
    update(1, [{ op: 'ADD', node: node('n1', 0) }, { op: 'ADD', node: node('n2', 0) }]),
    update(2, [{ op: 'UPDATE', node: node('n1', 1500) }]),
  ]);
  if (result.code !== grpc.status.OK || result.acks.length !== 2 ||
      result.acks.some((ack) => ack.status !== 'APPLIED')) {
    fail(`first updates: ${JSON.stringify(result)}`);
  }
  console.log(`ok streamed version ${result.acks[1].version}`);

  // A malformed delta names its field.
  result = await stream([update(3, [{ op: 9, node: node('n1', 0) }])]);
  if (result.code !== grpc.status.INVALID_ARGUMENT || !result.details.includes('node_deltas[0].op')) {
    fail(`bad op: ${result.code} ${result.details}`);
  }
  result = await stream([update(3, [{ op: 'UPDATE', node: node('ghost', 0) }])]);
  if (result.code !== grpc.status.INVALID_ARGUMENT) fail(`unknown node: ${result.code}`);
  console.log(`ok invalid-argument ${result.details}`);

  // An update of more node changes than one may carry gets a clear status, not a timeout.
  const many = [];
  for (let i = 0; i < 10001; ++i) many.push({ op: 'ADD', node: node(`bulk-${i}`, 0) });
  result = await stream([update(3, many)]);
  if (result.code !== grpc.status.INVALID_ARGUMENT ||
      !result.details.startsWith('node_deltas: Too many: 10001: must have at most 10000 items')) {
    fail(`too many deltas: ${result.code} ${result.details}`);
  }
  console.log(`ok too-many ${result.details}`);

  // One stream speaks for one cluster.
  result = await stream([update(3, [], cluster), update(4, [], 'someone-else')]);
  if (result.code !== grpc.status.INVALID_ARGUMENT || !result.details.startsWith('cluster_id:')) {
    fail(`switching clusters: ${result.code} ${result.details}`);
  }
  console.log(`ok one-cluster-per-stream ${result.details}`);
  // Messages over the size bound are refused before they are read.
  const huge = node('n1', 1500);
  huge.labels = { padding: 'x'.repeat(17 * 2 ** 20) };
  result = await stream([update(4, [{ op: 'UPDATE', node: huge }])]);
  if (result.code !== grpc.status.RESOURCE_EXHAUSTED) fail(`oversize: ${result.code} ${result.details}`);
  console.log(`ok resource-exhausted ${result.details}`);

  // A gap: version 5 does not apply to 3 (the last one the centre holds). The centre acks GAP and ends the stream.
  result = await stream([update(5, [{ op: 'UPDATE', node: node('n2', 500) }])]);
  if (result.code !== grpc.status.FAILED_PRECONDITION || result.acks.length !== 1 ||
      result.acks[0].status !== 'GAP') {
    fail(`gap: ${JSON.stringify(result)}`);
  }
  console.log(`ok gap ${result.details}`);

  // The heartbeat says a snapshot is wanted; the agent sends its whole state.
  let wanted = false;
  for (let i = 0; i < 50 && !wanted; ++i) {
    reply = await unary('HealthCheck', { cluster_id: cluster, sequence: String(i), epoch, version: '5' });
    if (reply.error) fail(`health: ${reply.error.details}`);
    wanted = reply.reply.snapshot_wanted;
    if (!wanted) await sleep(100);
  }
  if (!wanted) fail('the centre never asked for a snapshot');
  reply = await unary('PushFullSnapshot', {
    cluster_id: cluster, epoch, version: '5',
    nodes: [node('n1', 1500), node('n2', 500), node('n3', 0)],
  });
  if (reply.error) fail(`snapshot: ${reply.error.details}`);
  console.log('ok snapshot sent');

  // Streaming resumes on top of the snapshot.
  result = await stream([update(6, [{ op: 'UPDATE', node: node('n3', 2000) }])]);
  if (result.code !== grpc.status.OK || result.acks[0].status !== 'APPLIED') {
    fail(`after the snapshot: ${JSON.stringify(result)}`);
  }
  console.log(`ok resumed at version ${result.acks[0].version}`);

  // The centre's view, read back over gRPC.
  reply = await unary('PullFullSnapshot', { cluster: { cluster_id: cluster } });
  if (reply.error) fail(`pull: ${reply.error.details}`);
  const nodes = {};
  for (const n of reply.reply.nodes) nodes[n.name] = Number(n.allocated_cpu_milli);
  if (nodes.n3 !== 2000 || nodes.n2 !== 500 || nodes.n1 !== 1500) fail(`view: ${JSON.stringify(nodes)}`);
  console.log(`state ${JSON.stringify(nodes)}`);
  // Keep answering for the supervisor a while, so the caller can read the view while healthy.
  for (let i = 0; i < 30; ++i) {
    await unary('HealthCheck', { cluster_id: cluster, sequence: String(100 + i), epoch, version: '6' });
    await sleep(100);
  }
  client.close();
}

main().catch((error) => fail(error.stack));
