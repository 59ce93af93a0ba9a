// The discovery documents kubectl reads before it lists or creates anything: the version, the
// core group and its resources. Only what this server serves is announced.
'use strict';

const RESOURCES = [
  { name: 'nodes', singularName: 'node', namespaced: false, kind: 'Node', shortNames: ['no'],
    verbs: ['get', 'list', 'watch'] },
  { name: 'pods', singularName: 'pod', namespaced: true, kind: 'Pod', shortNames: ['po'],
    verbs: ['create', 'delete', 'get', 'list', 'watch'], categories: ['all'] },
  { name: 'pods/binding', singularName: '', namespaced: true, kind: 'Binding', verbs: ['create'] },
];

// OpenAPI v3, only as much as kubectl reads: it sends ?fieldValidation=Strict (server-side
// validation) when the Pod's PATCH operation lists that parameter.
const GVK = { group: '', version: 'v1', kind: 'Pod' };
const OPENAPI_V1 = {
  openapi: '3.0.0',
  info: { title: 'unisched test API server', version: 'v1.30.0' },
  paths: {
    '/api/v1/namespaces/{namespace}/pods/{name}': {
      patch: {
        operationId: 'patchCoreV1NamespacedPod',
        'x-kubernetes-action': 'patch',
        'x-kubernetes-group-version-kind': GVK,
        parameters: [{ name: 'fieldValidation', in: 'query', schema: { type: 'string', uniqueItems: true } }],
        responses: { 200: { description: 'OK' } },
      },
    },
    '/api/v1/namespaces/{namespace}/pods': {
      post: {
        operationId: 'createCoreV1NamespacedPod',
        'x-kubernetes-action': 'post',
        'x-kubernetes-group-version-kind': GVK,
        parameters: [{ name: 'fieldValidation', in: 'query', schema: { type: 'string', uniqueItems: true } }],
        responses: { 201: { description: 'Created' } },
      },
    },
  },
  components: { schemas: {} },
};

function document(path) {
  switch (path) {
    case '/openapi/v3':
      return { paths: { 'api/v1': { serverRelativeURL: '/openapi/v3/api/v1?hash=unisched-test' } } };
    case '/openapi/v3/api/v1':
      return OPENAPI_V1;
    case '/version':
      return { major: '1', minor: '30', gitVersion: 'v1.30.0-unisched-test', platform: 'linux/amd64' };
    case '/api':
      return { kind: 'APIVersions', versions: ['v1'],
        serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress: '127.0.0.1' }] };
    case '/apis':
      return { kind: 'APIGroupList', apiVersion: 'v1', groups: [] };
    case '/api/v1':
      return { kind: 'APIResourceList', groupVersion: 'v1', resources: RESOURCES };
    default:
      return null;
  }
}

module.exports = { document };
