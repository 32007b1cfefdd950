import type { Locator, Page } from 'playwright-core';

/** What a person on a laptop, a keyboard or a screen reader would trip over on the page. */
export async function problems(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const found: string[] = [];
    const visible = (el: Element) => el.getClientRects().length > 0;
    if (document.documentElement.scrollWidth > window.innerWidth)
      found.push(`page is ${document.documentElement.scrollWidth} px wide in a ${window.innerWidth} px window`);
    for (const control of Array.from(document.querySelectorAll('input, select, textarea'))) {
      const c = control as HTMLInputElement;
      if (c.type === 'hidden' || !visible(c)) continue;
      if (!(c.labels?.length || c.getAttribute('aria-label') || c.getAttribute('aria-labelledby')))
        found.push(`unlabelled ${c.tagName.toLowerCase()} ${c.id || c.name}`);
    }
    for (const button of Array.from(document.querySelectorAll('button, a'))) {
      if (visible(button) && !(button.textContent?.trim() || button.getAttribute('aria-label'))) found.push(`nameless ${button.outerHTML.slice(0, 120)}`);
    }
    for (const image of Array.from(document.querySelectorAll('[role="img"], img'))) {
      if (!(image.getAttribute('aria-label') || image.getAttribute('alt'))) found.push('an image without a text alternative');
    }
    if (!document.querySelector('h1')) found.push('no h1');
    // WCAG 2 contrast of text against the first opaque background behind it (4.5:1, large text 3:1)
    const rgb = (color: string) => (color.match(/[\d.]+/g) ?? []).map(Number);
    const luminance = ([r, g, b]: number[]) =>
      [r, g, b].map((v) => ((v /= 255) <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4)).reduce((sum, v, i) => sum + v * [0.2126, 0.7152, 0.0722][i], 0);
    const background = (el: Element | null): number[] => {
      for (; el; el = el.parentElement) {
        const c = rgb(getComputedStyle(el).backgroundColor);
        if (c.length === 3 || c[3] === 1) return c.slice(0, 3);
      }
      return [255, 255, 255];
    };
    for (const el of Array.from(document.querySelectorAll('body *'))) {
      const text = Array.from(el.childNodes).some((n) => n.nodeType === Node.TEXT_NODE && n.textContent!.trim());
      if (!text || !visible(el) || (el as HTMLButtonElement).disabled || el.closest('[role="img"], .uplot, svg, option')) continue;
      const style = getComputedStyle(el);
      const [fg, bg] = [luminance(rgb(style.color)), luminance(background(el))];
      const ratio = (Math.max(fg, bg) + 0.05) / (Math.min(fg, bg) + 0.05);
      const size = parseFloat(style.fontSize);
      const large = size >= 24 || (size >= 18.66 && Number(style.fontWeight) >= 700);
      if (ratio < (large ? 3 : 4.5)) found.push(`contrast ${ratio.toFixed(2)} for "${el.textContent.trim().slice(0, 40)}"`);
    }
    return found;
  });
}

/** Moves the mouse across a plot until its read-out matches `pattern` (names an evaluation); that read-out. */
export async function hoverUntilRead(page: Page, testId: string, pattern: RegExp): Promise<string> {
  const over = page.getByTestId(testId).locator('.u-over');
  const box = (await over.boundingBox())!;
  const readout = page.locator('figure', { has: page.getByTestId(testId) }).getByTestId('readout');
  for (let y = 4; y < box.height; y += 14) {
    for (let x = 4; x < box.width; x += 14) {
      await page.mouse.move(box.x + x, box.y + y);
      const text = await readout.innerText();
      if (pattern.test(text)) return text;
    }
  }
  throw new Error(`no read-out of ${testId} matching ${pattern}: the last read "${await readout.innerText()}"`);
}

/**
 * Waits (up to 5 s: the page scrolls a new answer into view after drawing it) until `locator` lies
 * wholly inside the window as it is scrolled, and returns its box; fails with the box last seen.
 */
export async function inWindow(locator: Locator, what: string): Promise<{ x: number; y: number; width: number; height: number }> {
  const window = locator.page().viewportSize()!;
  const deadline = Date.now() + 5_000;
  for (;;) {
    const box = await locator.boundingBox();
    if (box && box.x >= 0 && box.y >= 0 && box.x + box.width <= window.width && box.y + box.height <= window.height) return box;
    if (Date.now() > deadline) throw new Error(`${what} is not in the ${window.width}×${window.height} window: ${JSON.stringify(box)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
