// tryon's fit viewer: the draped garment on the body in 3D (three.js), its fit maps with their
// legends and the value under the cursor, panels coloured and named, seams, the report's quality
// figures, and a batch's jobs one by one. Bundled with three.js by esbuild (web/package.json);
// `tryon view` serves it or writes it into one self-contained page.
//
// Data: either window.TRYON_DATA = {jobs: [{name, glb_base64, report}]} (the self-contained
// page), or the server's /jobs.json = [{name, glb, report}] with URLs.
import * as THREE from 'three';
import {GLTFLoader} from 'three/examples/jsm/loaders/GLTFLoader.js';
import {OrbitControls} from 'three/examples/jsm/controls/OrbitControls.js';

const state = {ready: false, job: null, map: 'strain', vertexCount: 0, panels: [], errors: []};
window.tryonViewer = state;  // read by the browser test

const $ = (id) => document.getElementById(id);

// ---------------------------------------------------------------------------------------------
// Scene

const renderer = new THREE.WebGLRenderer({antialias: true, preserveDrawingBuffer: true});
renderer.setPixelRatio(window.devicePixelRatio);
$('view').appendChild(renderer.domElement);
const scene = new THREE.Scene();
scene.background = new THREE.Color(0xf4f4f2);
const camera = new THREE.PerspectiveCamera(35, 1, 0.01, 100);
const controls = new OrbitControls(camera, renderer.domElement);
controls.enableDamping = true;
scene.add(new THREE.HemisphereLight(0xffffff, 0x888880, 2.2));
const sun = new THREE.DirectionalLight(0xffffff, 1.6);
sun.position.set(1.5, 3, 2.5);
scene.add(sun);
const clock = new THREE.Clock();
let mixer = null;
let root = null;  // the loaded glTF scene

function resize() {
  const el = $('view');
  renderer.setSize(el.clientWidth, el.clientHeight);
  camera.aspect = el.clientWidth / Math.max(el.clientHeight, 1);
  camera.updateProjectionMatrix();
}
window.addEventListener('resize', resize);

function animate() {
  requestAnimationFrame(animate);
  if (mixer) mixer.update(clock.getDelta());
  controls.update();
  renderer.render(scene, camera);
}

// ---------------------------------------------------------------------------------------------
// Colours

const srgb = (c) => new THREE.Color().setRGB(c[0] / 255, c[1] / 255, c[2] / 255, THREE.SRGBColorSpace);

function colorAt(legend, value) {
  const stops = legend.stops;
  if (!Number.isFinite(value)) return srgb([128, 128, 128]);
  if (value <= stops[0][0]) return srgb(stops[0][1]);
  const last = stops[stops.length - 1];
  if (value >= last[0]) return srgb(last[1]);
  let i = 1;
  while (stops[i][0] < value) ++i;
  const [va, ca] = stops[i - 1], [vb, cb] = stops[i];
  const t = (value - va) / (vb - va);
  return srgb(ca.map((a, k) => a + t * (cb[k] - a)));
}

function panelColor(index) {
  return new THREE.Color().setHSL((index * 0.618034) % 1, 0.55, 0.6, THREE.SRGBColorSpace);
}

function formatValue(legend, v) {
  if (!Number.isFinite(v)) return 'no data';
  const x = v * legend.display_factor;
  return legend.name === 'strain' ? `${x.toFixed(1)} %` : `${x.toFixed(1)} cm`;
}

// ---------------------------------------------------------------------------------------------
// The loaded garment

function garmentParts() {
  const panels = [], seams = [], body = [];
  root.traverse((o) => {
    if (o.isMesh && o.userData.panel !== undefined) panels.push(o);
    else if (o.isLineSegments || o.isLine) seams.push(o);
    else if (o.isMesh && o.name.startsWith('body')) body.push(o);
  });
  return {panels, seams, body};
}

function applyMap() {
  const extras = state.job.extras;
  const legends = extras.fit_maps || [];
  const legend = legends.find((l) => l.name === state.map);
  const {panels} = garmentParts();
  panels.forEach((mesh, k) => {
    const g = mesh.geometry;
    const n = g.attributes.position.count;
    const colors = new Float32Array(3 * n);
    const values = legend ? g.attributes[legend.attribute.toLowerCase()] : null;
    const panelIndex = state.panels.indexOf(mesh.userData.panel);
    for (let i = 0; i < n; ++i) {
      const c = values ? colorAt(legend, values.getX(i)) : panelColor(panelIndex);
      colors[3 * i] = c.r;
      colors[3 * i + 1] = c.g;
      colors[3 * i + 2] = c.b;
    }
    g.setAttribute('color', new THREE.BufferAttribute(colors, 3));
    mesh.material = new THREE.MeshStandardMaterial({vertexColors: true, side: THREE.DoubleSide, roughness: 0.9});
  });
  drawLegend(legend);
  document.querySelectorAll('#maps button').forEach((b) => b.classList.toggle('on', b.dataset.map === state.map));
}

function drawLegend(legend) {
  const el = $('legend');
  el.innerHTML = '';
  if (!legend) {  // panel colours: a key from colour to name
    state.panels.forEach((name, k) => {
      const row = document.createElement('div');
      row.className = 'key';
      row.innerHTML = `<span class="swatch" style="background:#${panelColor(k).getHexString(THREE.SRGBColorSpace)}"></span>${name}`;
      el.appendChild(row);
    });
    return;
  }
  const lo = legend.stops[0][0], hi = legend.stops[legend.stops.length - 1][0];
  const grad = legend.stops.map(([v, c]) => `rgb(${c.join(',')}) ${(100 * (v - lo) / (hi - lo)).toFixed(1)}%`);
  const ticks = legend.ticks.map((v) => `<span style="left:${(100 * (v - lo) / (hi - lo)).toFixed(1)}%">${
      +(v * legend.display_factor).toFixed(2)}</span>`).join('');
  const range = `${formatValue(legend, legend.min)} to ${formatValue(legend, legend.max)}`;
  const clipped = legend.min < lo || legend.max > hi ? ' (the scale saturates beyond its ends)' : '';
  el.innerHTML = `<div class="title">${legend.title}</div>
    <div class="bar" style="background:linear-gradient(to right, ${grad.join(',')})"></div>
    <div class="ticks">${ticks}</div>
    <div class="ends"><span>${legend.low_label}</span><span>${legend.high_label}</span></div>
    <div class="range">this garment: ${range}${clipped}</div>`;
}

function showReport(report) {
  const failures = report.failures || [];
  const fmt = (k, v) => (typeof v !== 'number' ? String(v)
                         : k.endsWith('_m') ? `${(1000 * v).toFixed(1)} mm`
                         : k.startsWith('strain') || k.endsWith('fraction') ? `${(100 * v).toFixed(2)} %`
                         : Number.isInteger(v) ? String(v) : v.toFixed(3));
  const rows = [['status', report.status ?? '?'], ['failures', failures.length ? failures.join(', ') : 'none']];
  for (const [k, v] of Object.entries(report.quality || {})) rows.push([k.replace(/_m$/, '').replaceAll('_', ' '), fmt(k, v)]);
  if (report.simulation?.frames !== undefined) rows.push(['frames', report.simulation.frames]);
  $('report').innerHTML = rows.map(([k, v]) => `<tr><th>${k}</th><td>${v}</td></tr>`).join('');
}

function frame(object) {
  const box = new THREE.Box3().setFromObject(object);
  const size = box.getSize(new THREE.Vector3()), center = box.getCenter(new THREE.Vector3());
  const d = 1.2 * Math.max(size.y, size.x) / (2 * Math.tan(THREE.MathUtils.degToRad(camera.fov / 2)));
  camera.position.set(center.x, center.y, center.z + d + size.z / 2);
  controls.target.copy(center);
  camera.near = d / 100;
  camera.far = d * 100;
  camera.updateProjectionMatrix();
}

async function loadJob(job) {
  const data = job.glb_base64 ? Uint8Array.from(atob(job.glb_base64), (c) => c.charCodeAt(0)).buffer
                              : await (await fetch(job.glb)).arrayBuffer();
  const report = job.report_json ?? (job.report ? await (await fetch(job.report)).json() : {});

  const gltf = await new GLTFLoader().parseAsync(data, '');
  if (root) scene.remove(root);
  if (mixer) mixer.stopAllAction();
  root = gltf.scene;
  scene.add(root);
  const extras = gltf.scene.userData.tryon || {};
  state.job = {name: job.name, extras, report};
  state.panels = (extras.panels || []).map((p) => p.name);
  const {panels, seams} = garmentParts();
  state.vertexCount = panels.reduce((s, m) => s + m.geometry.attributes.position.count, 0);
  seams.forEach((s) => { s.material = new THREE.LineBasicMaterial({color: 0x111111}); s.renderOrder = 1; });
  mixer = null;
  state.animations = gltf.animations.length;
  if (gltf.animations.length) {
    mixer = new THREE.AnimationMixer(root);
    gltf.animations.forEach((clip) => mixer.clipAction(clip).play());
  }
  const maps = (extras.fit_maps || []).map((l) => l.name).concat(['panels']);
  $('maps').innerHTML = maps.map((m) => `<button data-map="${m}">${m}</button>`).join('');
  document.querySelectorAll('#maps button').forEach((b) => b.addEventListener('click', () => setMap(b.dataset.map)));
  if (!maps.includes(state.map)) state.map = maps[0];
  applyMap();
  showReport(Object.keys(report).length ? report : (extras.report ?? {}));
  $('title').textContent = job.name;
  const hasBody = garmentParts().body.length > 0;
  $('show-body').disabled = !hasBody;
  $('show-body').checked = hasBody;
  $('body-note').textContent = hasBody ? '' : '(not in this file: drape with --with-body)';
  if (job.index !== undefined) $('jobs').value = String(job.index);
  frame(root);
  state.ready = true;
  document.body.dataset.state = 'ready';
}

function setMap(name) {
  state.map = name;
  applyMap();
}
state.setMap = setMap;

function toggle(kind, visible) {
  const parts = garmentParts();
  parts[kind].forEach((o) => { o.visible = visible; });
}

// The value under the cursor: the hit triangle's attribute interpolated barycentrically.
function pick(event) {
  if (!root) return;
  const rect = renderer.domElement.getBoundingClientRect();
  const pointer = new THREE.Vector2(((event.clientX - rect.left) / rect.width) * 2 - 1,
                                    -((event.clientY - rect.top) / rect.height) * 2 + 1);
  const ray = new THREE.Raycaster();
  ray.setFromCamera(pointer, camera);
  const hit = ray.intersectObjects(garmentParts().panels, false)[0];
  if (!hit) { $('probe').textContent = ''; return; }
  const g = hit.object.geometry, f = hit.face;
  const bary = new THREE.Triangle(
      new THREE.Vector3().fromBufferAttribute(g.attributes.position, f.a),
      new THREE.Vector3().fromBufferAttribute(g.attributes.position, f.b),
      new THREE.Vector3().fromBufferAttribute(g.attributes.position, f.c))
      .getBarycoord(hit.object.worldToLocal(hit.point.clone()), new THREE.Vector3());
  const parts = [`panel ${hit.object.userData.panel}`];
  for (const legend of state.job.extras.fit_maps || []) {
    const a = g.attributes[legend.attribute.toLowerCase()];
    if (!a) continue;
    const v = bary.x * a.getX(f.a) + bary.y * a.getX(f.b) + bary.z * a.getX(f.c);
    parts.push(`${legend.name} ${formatValue(legend, v)}`);
  }
  $('probe').textContent = parts.join(' · ');
}

// ---------------------------------------------------------------------------------------------
// Start

async function jobs() {
  if (window.TRYON_DATA) return window.TRYON_DATA.jobs;
  const r = await fetch('jobs.json');
  if (!r.ok) throw new Error(`jobs.json: ${r.status}`);
  return r.json();
}

async function main() {
  resize();
  animate();
  const list = (await jobs()).map((j, index) => ({...j, index}));
  if (!list.length) throw new Error('no garment.glb in this folder');
  const select = $('jobs');
  select.innerHTML = list.map((j, i) => `<option value="${i}">${j.name}</option>`).join('');
  select.hidden = list.length < 2;
  select.addEventListener('change', () => loadJob(list[+select.value]));
  state.jobNames = list.map((j) => j.name);
  state.loadJob = (i) => loadJob(list[i]);
  $('show-body').addEventListener('change', (e) => toggle('body', e.target.checked));
  $('show-seams').addEventListener('change', (e) => toggle('seams', e.target.checked));
  renderer.domElement.addEventListener('pointermove', pick);
  await loadJob(list[0]);
}

main().catch((e) => {
  state.errors.push(String(e));
  $('title').textContent = `error: ${e.message}`;
  document.body.dataset.state = 'error';
  console.error(e);
});
