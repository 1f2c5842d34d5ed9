// Loads the fit viewer in headless Chromium (Debian's, driven by playwright-core) and prints one
// JSON object: whether the scene loaded, console errors, the garment's vertex count, the jobs,
// and per fit map and job a screenshot (saved in SHOTDIR) with how much of it is not background.
// usage: node test_viewer.mjs URL SHOTDIR [CHROMIUM]
import fs from 'node:fs';
import path from 'node:path';
import {chromium} from 'playwright-core';

const [url, shotdir, executable = '/usr/bin/chromium'] = process.argv.slice(2);
if (!url || !shotdir) {
  console.error('usage: node test_viewer.mjs URL SHOTDIR [CHROMIUM]');
  process.exit(2);
}
fs.mkdirSync(shotdir, {recursive: true});

// The canvas, copied 160 pixels wide: a fingerprint of its pixels (to tell whether the picture
// changes), the share of pixels that differ from the background (the top-left pixel's colour),
// and the distinct colours seen.
async function canvasSummary(page) {
  return page.evaluate(() => {
    const src = document.querySelector('#view canvas');
    const c = document.createElement('canvas');
    c.width = 160;
    c.height = Math.max(1, Math.round(160 * src.height / src.width));
    const ctx = c.getContext('2d');
    ctx.drawImage(src, 0, 0, c.width, c.height);
    const px = ctx.getImageData(0, 0, c.width, c.height).data;
    const bg = [px[0], px[1], px[2]];
    let hash = 0, differ = 0;
    const colours = new Set();
    for (let i = 0; i < px.length; i += 4) {
      for (let k = 0; k < 4; ++k) hash = (hash * 31 + px[i + k]) >>> 0;
      if (Math.abs(px[i] - bg[0]) + Math.abs(px[i + 1] - bg[1]) + Math.abs(px[i + 2] - bg[2]) > 12) ++differ;
      colours.add((px[i] >> 3) << 10 | (px[i + 1] >> 3) << 5 | (px[i + 2] >> 3));
    }
    return {hash, covered: differ / (px.length / 4), colours: colours.size};
  });
}
const fingerprint = async (page) => (await canvasSummary(page)).hash;
const coverage = async (page) => {
  const {covered, colours} = await canvasSummary(page);
  return {covered, colours};
};

const out = {url, loaded: false, errors: [], jobs: [], shots: []};
const browser = await chromium.launch({
  executablePath: executable,
  args: ['--use-angle=swiftshader', '--enable-unsafe-swiftshader', '--no-sandbox', '--allow-file-access-from-files'],
});
try {
  const page = await browser.newPage({viewport: {width: 1100, height: 800}});
  page.on('console', (m) => { if (m.type() === 'error') out.errors.push(m.text()); });
  page.on('pageerror', (e) => out.errors.push(String(e)));
  await page.goto(url);
  await page.waitForFunction(() => ['ready', 'error'].includes(document.body.dataset.state), null, {timeout: 60000});
  out.loaded = await page.evaluate(() => document.body.dataset.state === 'ready');
  out.jobs = await page.evaluate(() => window.tryonViewer.jobNames);
  for (let j = 0; out.loaded && j < out.jobs.length; ++j) {
    if (j > 0) {
      await page.evaluate((i) => window.tryonViewer.loadJob(i), j);
    }
    const job = await page.evaluate(() => ({
      name: window.tryonViewer.job.name,
      animations: window.tryonViewer.animations,
      vertices: window.tryonViewer.vertexCount,
      panels: window.tryonViewer.panels,
      maps: [...document.querySelectorAll('#maps button')].map((b) => b.dataset.map),
      report: document.querySelector('#report').innerText,
    }));
    if (job.animations > 0) {  // playing: the picture changes from one moment to the next
      const a = await fingerprint(page);
      await page.waitForTimeout(250);
      const b = await fingerprint(page);
      await page.waitForTimeout(250);
      job.moving = a !== b || b !== await fingerprint(page);
    }
    job.shots = [];
    for (const map of job.maps) {
      await page.click(`#maps button[data-map="${map}"]`);
      await page.waitForTimeout(300);  // a few frames drawn
      // The value under the cursor, at the middle of the picture.
      const box = await page.locator('#view canvas').boundingBox();
      await page.mouse.move(box.x + box.width / 2, box.y + box.height * 0.35);
      await page.waitForTimeout(100);
      const shot = path.join(shotdir, `${String(j).padStart(2, '0')}_${job.name}_${map}.png`.replace(/[^\w.-]/g, '_'));
      await page.screenshot({path: shot});
      job.shots.push({map, file: shot, legend: await page.locator('#legend').innerText(),
                      probe: await page.locator('#probe').innerText(), ...(await coverage(page))});
    }
    out.shots.push(job);
  }
} finally {
  await browser.close();
}
console.log(JSON.stringify(out, null, 1));
