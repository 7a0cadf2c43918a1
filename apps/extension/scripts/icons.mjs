// Renders static/icon.svg into the PNG sizes Chrome asks of an extension (toolbar 16/32, extensions page 48,
// store and notifications 128), with the test Chromium: `node scripts/icons.mjs` after changing the SVG.
import { readFile, writeFile } from 'node:fs/promises';
import { launchTestBrowser } from '@browsermcp/testkit';

const here = new URL('../static/', import.meta.url);
const svg = await readFile(new URL('icon.svg', here), 'utf8');
const browser = await launchTestBrowser();
try {
  const page = await browser.newPage();
  for (const size of [16, 32, 48, 128]) {
    await page.setViewport({ width: size, height: size, deviceScaleFactor: 1 });
    await page.setContent(`<style>html,body{margin:0;background:transparent}svg{display:block;width:${size}px;height:${size}px}</style>${svg}`);
    const png = await page.screenshot({ type: 'png', omitBackground: true, clip: { x: 0, y: 0, width: size, height: size } });
    await writeFile(new URL(`icon${size}.png`, here), png);
  }
} finally {
  await browser.close();
}
