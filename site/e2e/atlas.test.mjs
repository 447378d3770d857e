// Browser tests of kwire's Kafka protocol atlas: headless Chromium (Debian's
// chromium package) driven by playwright-core, against `kwire serve --dir`
// of a site written by `kwire site`. run.sh sets the environment:
//
//   KWIRE_URL        the server's base URL, ending in "/"
//   KWIRE_SITE       the directory of the generated site (for file:// and weights)
//   KWIRE_ARTIFACTS  where screenshots and figures go
//   CHROMIUM         the browser (default /usr/bin/chromium)
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { chromium } from "playwright-core";

const base = process.env.KWIRE_URL;
const siteDir = process.env.KWIRE_SITE;
const artifacts = process.env.KWIRE_ARTIFACTS || path.resolve("artifacts");
const executablePath = process.env.CHROMIUM || "/usr/bin/chromium";
if (!base || !siteDir) throw new Error("KWIRE_URL and KWIRE_SITE must be set (see run.sh)");
fs.mkdirSync(artifacts, { recursive: true });

// A seed vector of docs/wire-cases.md: the smallest VoteRequest v2, 83 bytes.
const voteRequestV2 =
  "0000004f 00340002 00000000 00000001 00000000 02010200 00000000 00000000 00000000 00000000 " +
  "00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 000000";

let context, userDataDir;
const figures = {};

before(async () => {
  userDataDir = fs.mkdtempSync(path.join(os.tmpdir(), "kwire-chromium-"));
  context = await chromium.launchPersistentContext(userDataDir, {
    executablePath,
    headless: true,
    args: [
      "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
      "--disable-background-networking", "--disable-component-update", "--disable-sync",
    ],
    viewport: { width: 1440, height: 900 },
  });
  // Nothing but the site itself and file:// may be fetched: no CDN, no network.
  await context.route("**/*", (route) => {
    const u = route.request().url();
    if (u.startsWith(base) || u.startsWith("file://")) return route.continue();
    figures.blocked = (figures.blocked || []).concat(u);
    return route.abort();
  });
});

after(async () => {
  if (context) await context.close();
  fs.rmSync(userDataDir, { recursive: true, force: true });
  fs.writeFileSync(path.join(artifacts, "figures.json"), JSON.stringify(figures, null, 2) + "\n");
  console.log("figures: " + JSON.stringify(figures));
});

// row finds a tree row by its id (ids hold dots, so no #id selector).
const row = (page, id) => page.locator(`tr[id="${id}"]`);
const cell = (page, id) => page.locator(`.grid span[id="${id}"]`);
const shot = (page, name, fullPage = true) => page.screenshot({ path: path.join(artifacts, name), fullPage });

async function newPage(viewport) {
  const page = await context.newPage();
  if (viewport) await page.setViewportSize(viewport);
  const errors = [];
  page.on("pageerror", (e) => errors.push(String(e)));
  page.on("console", (m) => { if (m.type() === "error") errors.push(m.text()); });
  page.errors = errors;
  return page;
}

test("the index lists every API and its search finds Vote", async () => {
  const page = await newPage();
  await page.goto(base);
  await page.getByRole("link", { name: /Apache Kafka 4\.4\.0/ }).click();
  await page.waitForURL(/4\.4\.0\/index\.html$/);
  const apis = page.locator("table[data-filter]").first().locator("tbody tr");
  assert.ok((await apis.count()) > 80, "the API table lists the APIs");
  await page.locator("#q").fill("vote");
  await assert.doesNotReject(page.getByRole("link", { name: "Vote", exact: true }).waitFor({ state: "visible" }));
  const visible = await page.locator("table[data-filter] tbody tr:not([hidden])").allInnerTexts();
  assert.ok(visible.length >= 1 && visible.every((t) => /vote/i.test(t)), `rows shown for "vote": ${visible}`);
  assert.equal(await page.getByRole("link", { name: "Produce", exact: true }).isVisible(), false);
  assert.match(await page.locator("#qn").innerText(), /shown/);
  await shot(page, "index-search-vote.png", false);
  await page.getByRole("link", { name: "Vote", exact: true }).click();
  await page.waitForURL(/4\.4\.0\/Vote\/v2\/request\.html$/);
  assert.deepEqual(page.errors, []);
  await page.close();
});

test("Vote v2: 83 request bytes, PreVote at 0x4f, hover and keys link grid and tree", async () => {
  const page = await newPage();
  await page.goto(base + "4.4.0/Vote/v2/request.html");
  assert.equal(await page.locator("#request .grid span[id]").count(), 83);
  assert.equal(await page.locator("#response .grid span[id]").count(), 32);
  const preVote = row(page, "Topics.0.Partitions.0.PreVote");
  assert.equal(await preVote.locator("td").nth(0).innerText(), "PreVote");
  assert.equal(await preVote.locator("td.rg").innerText(), "[0x004f, 1B]");
  assert.equal(await preVote.locator("td").nth(4).innerText(), "request body");

  // Hovering byte 0x4f lights its node; the status line names its region.
  await cell(page, "b-0x4f").hover();
  assert.match(await preVote.getAttribute("class"), /\bon\b/);
  assert.match(await cell(page, "b-0x4f").getAttribute("class"), /\bat\b/);
  assert.match(await page.locator("#request .status").innerText(), /PreVote.*bool.*region: request body/);
  assert.match(await cell(page, "b-0x4f").getAttribute("title"), /PreVote/);
  await shot(page, "vote-v2-hover-prevote.png", false);

  // Hovering a row lights its bytes: ReplicaDirectoryId is 16 bytes at 0x23.
  await row(page, "Topics.0.Partitions.0.ReplicaDirectoryId").hover();
  assert.equal(await page.locator("#request .grid span.on").count(), 16);
  assert.match(await cell(page, "b-0x23").getAttribute("class"), /\bon\b/);
  assert.match(await cell(page, "b-0x32").getAttribute("class"), /\bon\b/);
  assert.doesNotMatch(await cell(page, "b-0x33").getAttribute("class"), /\bon\b/);

  // Keyboard: focus a byte, move with the arrows, Enter goes to its row.
  await cell(page, "b-0x4f").click();
  await page.keyboard.press("ArrowLeft");
  assert.equal(await page.evaluate(() => document.activeElement.id), "b-0x4e");
  assert.match(await row(page, "Topics.0.Partitions.0.LastOffset").getAttribute("class"), /\bon\b/);
  await page.keyboard.press("ArrowUp");
  assert.equal(await page.evaluate(() => document.activeElement.id), "b-0x3e");
  await page.keyboard.press("Enter");
  assert.equal(await page.evaluate(() => document.activeElement.closest("tr").id), "Topics.0.Partitions.0.VoterDirectoryId");
  await page.keyboard.press("ArrowDown");
  assert.equal(await page.evaluate(() => document.activeElement.closest("tr").id), "Topics.0.Partitions.0.LastOffsetEpoch");
  assert.equal(await page.locator("#request .grid span.on").count(), 4);

  // The grid and the tree are one tab stop each: Tab from the focused
  // byte goes to the tree, Shift+Tab back.
  await cell(page, "b-0x4f").focus();
  await page.keyboard.press("Tab");
  assert.equal(await page.evaluate(() => document.activeElement.closest("tr") && document.activeElement.closest("tr").id), "Topics.0.Partitions.0.LastOffsetEpoch");
  await page.keyboard.press("Shift+Tab");
  assert.equal(await page.evaluate(() => document.activeElement.id), "b-0x4f");

  // Focusing a response row lights the response's bytes only.
  await row(page, "response.Topics.0.Partitions.0.VoteGranted").locator("a").focus();
  assert.match(await cell(page, "response.b-0x1c").getAttribute("class"), /\bon\b/);
  assert.deepEqual(page.errors, []);
  await page.close();
});

test("anchors: …/Vote/v2/request#Topics.0.Partitions.0.PreVote and byte links resolve", async () => {
  const page = await newPage();
  await page.goto(base + "4.4.0/Vote/v2/request#Topics.0.Partitions.0.PreVote");
  assert.match(await row(page, "Topics.0.Partitions.0.PreVote").getAttribute("class"), /\bon\b/);
  assert.match(await cell(page, "b-0x4f").getAttribute("class"), /\bon\b/);
  await page.goto(base + "4.4.0/Vote/v2/request#b-0x10-0x13");
  assert.equal(await page.locator("#request .grid span.on").count(), 4);
  // response.html forwards to the response side, keeping the anchor.
  await page.goto(base + "4.4.0/Vote/v2/response#Topics.0.Partitions.0.VoteGranted");
  await page.waitForURL(/request\.html#response\.Topics\.0\.Partitions\.0\.VoteGranted$/);
  assert.match(await row(page, "response.Topics.0.Partitions.0.VoteGranted").getAttribute("class"), /\bon\b/);
  assert.deepEqual(page.errors, []);
  await page.close();
});

test("the version switcher: v1 has another size", async () => {
  const page = await newPage();
  await page.goto(base + "4.4.0/Vote/v2/request.html");
  const size = () => page.locator(".summary div", { hasText: "Request size" }).locator("dd").innerText();
  assert.equal(await size(), "83 bytes");
  await page.getByRole("navigation", { name: "Versions" }).getByRole("link", { name: "v1", exact: true }).click();
  await page.waitForURL(/Vote\/v1\/request\.html$/);
  const n = await page.locator("#request .grid span[id]").count();
  assert.notEqual(n, 83);
  assert.equal(await size(), `${n} bytes`);
  assert.equal(await row(page, "Topics.0.Partitions.0.PreVote").count(), 0, "v1 has no PreVote");
  figures.voteV1RequestBytes = n;
  assert.deepEqual(page.errors, []);
  await page.close();
});

test("EndQuorumEpoch v1 is the seed page", async () => {
  const page = await newPage();
  await page.goto(base + "4.4.0/EndQuorumEpoch/v1/request.html");
  assert.equal(await page.locator("#request .grid span[id]").count(), 62);
  assert.equal(await page.locator("#response .grid span[id]").count(), 31);
  assert.equal(await row(page, "Topics.0.Partitions.0.PreferredCandidates.0.CandidateDirectoryId").locator("td.rg").innerText(), "[0x0024, 16B]");
  // The legend lists the regions the page has, and only those: no records here.
  assert.deepEqual(await page.locator(".legend li").allInnerTexts(), ["frame", "rpc header", "request body", "response body", "tagged_fields"]);
  await shot(page, "endquorumepoch-v1.png");
  await cell(page, "b-0x24").hover();
  await shot(page, "endquorumepoch-v1-hover.png", false);
  assert.deepEqual(page.errors, []);
  await page.close();
});

// clipped measures, in the page as laid out, every cell of every object
// tree: a cell is clipped when its content is wider than the cell
// (scrollWidth over clientWidth), when it ends right of its tree's box
// (the tree scrolls sideways) or right of the window. It returns the cells
// measured and the clipped ones, with their text and widths.
async function clipped(page) {
  return page.evaluate(() => {
    const view = document.documentElement.clientWidth;
    const out = { cells: 0, trees: 0, clipped: [], pageOverflow: document.documentElement.scrollWidth - view };
    for (const tw of document.querySelectorAll(".tw")) {
      out.trees++;
      const box = tw.getBoundingClientRect();
      if (tw.scrollWidth > tw.clientWidth + 1) out.clipped.push({ tree: tw.closest("section").id, scrollWidth: tw.scrollWidth, clientWidth: tw.clientWidth });
      for (const c of tw.querySelectorAll("th, td")) {
        out.cells++;
        const r = c.getBoundingClientRect();
        if (c.scrollWidth > c.clientWidth + 1 || r.right > box.right + 1 || r.right > view + 1 || r.width < 1) {
          out.clipped.push({ row: c.parentElement.id, col: c.cellIndex, text: c.innerText.slice(0, 40), scrollWidth: c.scrollWidth, clientWidth: c.clientWidth, right: Math.round(r.right), treeRight: Math.round(box.right) });
        }
      }
    }
    return out;
  });
}

// Every column of both object trees is visible at 1280 px and up: no
// cell is cut off or scrolled out of view (the sides stack, the about
// text wraps), on a small page, the seed page, a deep one with records,
// the largest of the site and the decode page.
test("no object tree cell is clipped at 1280, 1440 and 1920 px", async () => {
  const pages = ["4.4.0/Vote/v2/request.html", "4.4.0/EndQuorumEpoch/v1/request.html", "4.4.0/Produce/v13/request.html", largestPage(),
    "decode?hex=" + voteRequestV2.replaceAll(" ", "")];
  figures.clipping = [];
  for (const width of [1280, 1440, 1920]) {
    const page = await newPage({ width, height: 900 });
    for (const p of pages) {
      await page.goto(base + p);
      const m = await clipped(page);
      figures.clipping.push({ width, page: p.slice(0, 60), trees: m.trees, cells: m.cells, clipped: m.clipped.length, pageOverflow: m.pageOverflow });
      assert.ok(m.trees >= 1 && m.cells > 20, `${p} at ${width} px: ${m.trees} trees, ${m.cells} cells`);
      assert.deepEqual(m.clipped, [], `${p} at ${width} px: clipped cells`);
      assert.ok(m.pageOverflow <= 0, `${p} at ${width} px overflows the window by ${m.pageOverflow} px`);
    }
    await page.goto(base + "4.4.0/Vote/v2/request.html");
    await shot(page, `vote-v2-${width}px.png`);
    await page.goto(base + "4.4.0/Produce/v13/request.html");
    await shot(page, `produce-v13-${width}px.png`, false);
    assert.deepEqual(page.errors, []);
    await page.close();
  }
});

test("works at 375 px wide", async () => {
  const page = await newPage({ width: 375, height: 812 });
  for (const p of ["4.4.0/index.html", "4.4.0/Vote/v2/request.html"]) {
    await page.goto(base + p);
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    assert.ok(overflow <= 0, `${p} overflows 375 px by ${overflow} px`);
  }
  const box = await page.locator("#request .grid").boundingBox();
  assert.ok(box.x >= 0 && box.x + box.width <= 375, `the grid fits: ${JSON.stringify(box)}`);
  await shot(page, "vote-v2-375px.png", false);
  assert.deepEqual(page.errors, []);
  await page.close();
});

test("the decode page decodes pasted hex into the same view", async () => {
  const page = await newPage();
  await page.goto(base + "decode");
  await page.locator("#hex").fill(voteRequestV2);
  await page.getByRole("button", { name: "Decode" }).click();
  await page.waitForURL(/decode\?/);
  assert.equal(await page.locator("#decoded .grid span[id]").count(), 83);
  const preVote = row(page, "Topics.0.Partitions.0.PreVote");
  assert.equal(await preVote.locator("td.rg").innerText(), "[0x004f, 1B]");
  assert.equal(await preVote.locator("td").nth(2).innerText(), "false");
  await cell(page, "b-0x4f").hover();
  assert.match(await preVote.getAttribute("class"), /\bon\b/);
  await shot(page, "decode-vote-v2.png");
  assert.deepEqual(page.errors, []);
  await page.close();
});

test("pages work from file:// too", async () => {
  const page = await newPage();
  await page.goto("file://" + path.join(siteDir, "4.4.0/EndQuorumEpoch/v1/request.html") + "#Topics.0.Partitions.0.LeaderEpoch");
  assert.match(await row(page, "Topics.0.Partitions.0.LeaderEpoch").getAttribute("class"), /\bon\b/);
  await page.getByRole("navigation", { name: "Versions" }).getByRole("link", { name: "v0", exact: true }).click();
  await page.waitForURL(/EndQuorumEpoch\/v0\/request\.html$/);
  assert.ok((await page.locator("#request .grid span[id]").count()) > 0);
  assert.deepEqual(page.errors, []);
  await page.close();
});

// largestPage is the largest version page of the generated site.
function largestPage() {
  let best = { size: 0, rel: "" };
  const walk = (dir) => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name.endsWith(".html")) {
        const size = fs.statSync(p).size;
        if (size > best.size) best = { size, rel: path.relative(siteDir, p) };
      }
    }
  };
  walk(siteDir);
  return best.rel;
}

// load opens p once and returns its navigation timing and the weight of
// HTML, CSS and JS.
async function load(p, cold) {
  const page = await newPage();
  const cdp = await context.newCDPSession(page);
  await cdp.send("Network.setCacheDisabled", { cacheDisabled: cold });
  await page.goto(base + p, { waitUntil: "load" });
  const m = await page.evaluate(() => {
    const nav = performance.getEntriesByType("navigation")[0];
    const res = performance.getEntriesByType("resource");
    const size = (ext) => res.filter((r) => r.name.endsWith(ext)).reduce((a, r) => a + r.decodedBodySize, 0);
    return {
      load: nav.loadEventEnd - nav.startTime,
      render: nav.loadEventEnd - nav.responseEnd,
      html: nav.decodedBodySize,
      css: size(".css"),
      js: size(".js"),
      resources: res.map((r) => r.name),
    };
  });
  await cdp.detach();
  await page.close();
  return m;
}

// measure loads p once with an empty cache (its weight: HTML, CSS and JS)
// then n times as one browses the site (the style sheet and script
// cached), and returns the median times: navigation start to the end of
// the load event, and the part after the HTML arrived (parse, style,
// layout, the script).
async function measure(p, n = 7) {
  const first = await load(p, true);
  const runs = [];
  for (let i = 0; i < n; i++) runs.push(await load(p, false));
  const median = (k) => +runs.map((t) => t[k]).sort((a, b) => a - b)[Math.floor(n / 2)].toFixed(1);
  return {
    page: p, html: first.html, css: first.css, js: first.js, total: first.html + first.css + first.js,
    resources: first.resources, coldLoadMs: +first.load.toFixed(1), loadMs: median("load"), renderMs: median("render"),
  };
}

// The render goal (under 100 ms after the HTML arrived) is measured and
// reported, not asserted: a timing depends on what else the machine does, and
// a test that fails on a busy machine is a flaky test. The figures go to the
// output and the figures file; the weight and the resources are asserted.
test("pages weigh under 200 KB and load only their stylesheet and script (times reported)", async () => {
  // Timing without the request interception of the other tests, which
  // routes every request through this process.
  await context.unrouteAll();
  for (const p of ["4.4.0/Vote/v2/request.html", largestPage()]) {
    const m = await measure(p);
    console.log(`page ${m.page}: ${m.total} B (HTML ${m.html} + CSS ${m.css} + JS ${m.js}); first load (empty cache) ${m.coldLoadMs} ms; ` +
      `then median of 7: load ${m.loadMs} ms, render after the HTML arrived ${m.renderMs} ms`);
    (figures.pages = figures.pages || []).push(m);
    assert.ok(m.total < 200_000, `${p} weighs ${m.total} B`);
    if (m.renderMs >= 100) console.log(`note: ${p} rendered in ${m.renderMs} ms, over the 100 ms goal (a busy machine, or a regression: compare with a quiet run)`);
    assert.deepEqual(m.resources, [base + "assets/site.css", base + "assets/site.js"], "one stylesheet and one script, nothing else");
  }
  assert.equal(figures.blocked, undefined, "no request left the site");
});
