#include "runtime/status_page.hpp"

namespace unisched::runtime {

// Every value from the hub is set as text (textContent), never as markup: cluster ids, request
// ids and reasons come from users.
const char* const kStatusPage = R"HTML(<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>unisched status</title>
<style>
  body { font: 14px/1.4 system-ui, sans-serif; margin: 1.5em; color: #1d2330; background: #f7f8fa; }
  h1 { font-size: 1.4em; margin: 0 0 .2em; }
  h2 { font-size: 1.1em; margin: 1.4em 0 .4em; }
  table { border-collapse: collapse; background: #fff; min-width: 40em; }
  th, td { text-align: left; padding: .3em .8em; border-bottom: 1px solid #e3e6eb; vertical-align: top; }
  th { background: #eef1f5; font-weight: 600; }
  .healthy { color: #17803d; } .unhealthy { color: #b42318; font-weight: 600; }
  .bar { display: inline-block; width: 14em; height: .9em; background: #e3e6eb; vertical-align: middle; }
  .bar > span { display: block; height: 100%; background: #3b6fd8; }
  .muted { color: #6b7280; } #updated { color: #6b7280; }
  ul { margin: 0; padding-left: 1.1em; }
</style>
</head>
<body>
<h1>unisched</h1>
<div id="updated">loading&hellip;</div>
<h2>Clusters</h2>
<table id="clusters"><thead><tr><th>cluster</th><th>health</th><th>version</th><th>staleness</th><th>nodes</th></tr></thead><tbody></tbody></table>
<h2>GPU use by model</h2>
<table id="gpus"><thead><tr><th>cluster</th><th>model</th><th>in use</th><th></th></tr></thead><tbody></tbody></table>
<h2>Queue</h2>
<div id="queue"></div>
<table id="waiting"><thead><tr><th>request</th><th>phase</th><th>detail</th></tr></thead><tbody></tbody></table>
<h2>Recent decisions</h2>
<table id="decisions"><thead><tr><th>request</th><th>outcome</th><th>placements</th><th>reasons by cluster</th></tr></thead><tbody></tbody></table>
<h2>Quotas</h2>
<table id="quotas"><thead><tr><th>quota</th><th>queue</th><th>used / hard</th><th>waiting requests</th></tr></thead><tbody></tbody></table>
<script>
"use strict";
function cell(row, text, className) {
  const td = document.createElement("td");
  td.textContent = text;
  if (className) td.className = className;
  row.appendChild(td);
  return td;
}
function listCell(row, items) {
  const td = cell(row, "");
  const ul = document.createElement("ul");
  for (const item of items) { const li = document.createElement("li"); li.textContent = item; ul.appendChild(li); }
  td.appendChild(ul);
}
function fill(id, items, render) {
  const body = document.querySelector("#" + id + " tbody");
  body.replaceChildren();
  for (const item of items) { const row = document.createElement("tr"); render(row, item); body.appendChild(row); }
  if (items.length === 0) {
    const row = document.createElement("tr");
    const td = cell(row, "none", "muted");
    td.colSpan = document.querySelectorAll("#" + id + " thead th").length;
    body.appendChild(row);
  }
}
function show(status) {
  fill("clusters", status.clusters, (row, c) => {
    row.dataset.cluster = c.id;
    cell(row, c.id);
    cell(row, c.healthy ? "healthy" : "unhealthy", c.healthy ? "healthy" : "unhealthy");
    cell(row, String(c.version));
    cell(row, (c.staleness_ms / 1000).toFixed(1) + " s");
    cell(row, String(c.nodes));
  });
  const gpus = [];
  for (const c of status.clusters) for (const m of c.models) gpus.push({cluster: c.id, model: m});
  fill("gpus", gpus, (row, g) => {
    const used = g.model.devices - g.model.free_devices;
    cell(row, g.cluster);
    cell(row, g.model.model);
    cell(row, used + " of " + g.model.devices);
    const bar = document.createElement("span");
    bar.className = "bar";
    const fillBar = document.createElement("span");
    fillBar.style.width = (g.model.devices ? 100 * used / g.model.devices : 0) + "%";
    bar.appendChild(fillBar);
    cell(row, "").appendChild(bar);
  });
  const waiting = status.schedulers.reduce((n, s) => n + s.waiting, 0);
  const forQuota = status.schedulers.reduce((n, s) => n + s.waiting_for_quota, 0);
  document.getElementById("queue").textContent = waiting + " waiting in " + status.schedulers.length +
      " scheduler(s), " + forQuota + " waiting for quota";
  fill("waiting", status.waiting, (row, r) => { cell(row, r.id); cell(row, r.phase); cell(row, r.detail); });
  fill("decisions", status.decisions, (row, r) => {
    cell(row, r.id); cell(row, r.phase); listCell(row, r.placements); listCell(row, r.reasons);
  });
  fill("quotas", status.quotas, (row, q) => {
    const quota = q.quota || {}, used = q.used || {}, hard = quota.hard || {};
    cell(row, quota.name || "");
    cell(row, quota.queue || "");
    listCell(row, Object.keys(hard).map(r => r + ": " + (used[r] || 0) + " / " + hard[r]));
    cell(row, String(q.pending_requests || 0));
  });
  document.getElementById("updated").textContent = "updated " + new Date().toLocaleTimeString() +
      (status.missing_sources ? " (" + status.missing_sources + " source(s) did not answer)" : "");
}
async function poll() {
  try {
    const reply = await fetch("/status.json", {cache: "no-store"});
    show(await reply.json());
  } catch (error) {
    document.getElementById("updated").textContent = "cannot reach the hub: " + error;
  }
  setTimeout(poll, 1000);
}
poll();
</script>
</body>
</html>
)HTML";

}  // namespace unisched::runtime
