// Kubernetes quantities as numbers for the test server: cpu in millicores, everything else in
// units, rounded up as the kubelet rounds requests. Doubles are exact enough for test sizes.
'use strict';

const SUFFIXES = {
  '': 1, n: 1e-9, u: 1e-6, m: 1e-3, k: 1e3, M: 1e6, G: 1e9, T: 1e12, P: 1e15, E: 1e18,
  Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30, Ti: 2 ** 40, Pi: 2 ** 50, Ei: 2 ** 60,
};

function quantityValue(text, resource) {
  const match = /^([+-]?[0-9.]+)(?:[eE]([+-]?[0-9]+))?([a-zA-Z]*)$/.exec(String(text).trim());
  if (!match || !(match[3] in SUFFIXES)) throw new Error(`not a quantity: ${text}`);
  const value = Number(match[1]) * 10 ** Number(match[2] || 0) * SUFFIXES[match[3]];
  return Math.ceil(resource === 'cpu' ? value * 1000 - 1e-9 : value - 1e-9);
}

module.exports = { quantityValue };
