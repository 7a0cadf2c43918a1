import { describe, expect, it } from 'vitest';
import { renderLocator, renderStep, type CodeStep, type LocatorChain } from '../src/index.js';

// The code that replays an action, in each language Playwright writes tests in (pure rendering, no browser).

const save: LocatorChain = [{ kind: 'role', role: 'button', name: "Save 'draft'" }];
const framed: LocatorChain = [
  { kind: 'css', value: 'iframe[title="Editor"]' },
  { kind: 'testId', value: 'body' },
];

describe('locators', () => {
  it('writes a role and name, a test id, text and CSS in every language', () => {
    expect(renderLocator(save, 'typescript')).toBe("page.getByRole('button', { name: 'Save \\'draft\\'' })");
    expect(renderLocator(save, 'python')).toBe('page.get_by_role("button", name="Save \'draft\'")');
    expect(renderLocator(save, 'java')).toBe('page.getByRole(AriaRole.BUTTON, new Page.GetByRoleOptions().setName("Save \'draft\'"))');
    expect(renderLocator(save, 'csharp')).toBe('page.GetByRole(AriaRole.Button, new() { Name = "Save \'draft\'" })');
    expect(renderLocator([{ kind: 'text', value: 'Hello "you"' }], 'python')).toBe('page.get_by_text("Hello \\"you\\"")');
    expect(renderLocator([{ kind: 'css', value: '#a > b' }], 'typescript')).toBe("page.locator('#a > b')");
    expect(renderLocator([{ kind: 'role', role: 'link' }], 'csharp')).toBe('page.GetByRole(AriaRole.Link)');
  });

  it('enters frames with contentFrame, whose locators take FrameLocator options in Java', () => {
    expect(renderLocator(framed, 'typescript')).toBe("page.locator('iframe[title=\"Editor\"]').contentFrame().getByTestId('body')");
    expect(renderLocator(framed, 'python')).toBe('page.locator("iframe[title=\\"Editor\\"]").content_frame.get_by_test_id("body")');
    expect(renderLocator([framed[0]!, save[0]!], 'java')).toContain('.contentFrame().getByRole(AriaRole.BUTTON, new FrameLocator.GetByRoleOptions()');
    expect(renderLocator(framed, 'csharp')).toBe('page.Locator("iframe[title=\\"Editor\\"]").ContentFrame.GetByTestId("body")');
  });
});

describe('steps', () => {
  const cases: Array<[CodeStep, Record<'typescript' | 'python' | 'java' | 'csharp', string>]> = [
    [
      { on: 'page', method: 'goto', args: [{ kind: 'string', value: 'https://example.com/' }] },
      {
        typescript: "await page.goto('https://example.com/');",
        python: 'page.goto("https://example.com/")',
        java: 'page.navigate("https://example.com/");',
        csharp: 'await page.GotoAsync("https://example.com/");',
      },
    ],
    [
      { on: { locator: save }, method: 'click', args: [{ kind: 'options', values: { button: { value: 'right', enumType: 'MouseButton' } } }] },
      {
        typescript: "await page.getByRole('button', { name: 'Save \\'draft\\'' }).click({ button: 'right' });",
        python: 'page.get_by_role("button", name="Save \'draft\'").click(button="right")',
        java: 'page.getByRole(AriaRole.BUTTON, new Page.GetByRoleOptions().setName("Save \'draft\'")).click(new Locator.ClickOptions().setButton(MouseButton.RIGHT));',
        csharp: 'await page.GetByRole(AriaRole.Button, new() { Name = "Save \'draft\'" }).ClickAsync(new() { Button = MouseButton.Right });',
      },
    ],
    [
      { on: { locator: framed }, method: 'fill', args: [{ kind: 'env', name: 'PASSWORD' }] },
      {
        typescript: "await page.locator('iframe[title=\"Editor\"]').contentFrame().getByTestId('body').fill(process.env['PASSWORD']!);",
        python: 'page.locator("iframe[title=\\"Editor\\"]").content_frame.get_by_test_id("body").fill(os.environ["PASSWORD"])',
        java: 'page.locator("iframe[title=\\"Editor\\"]").contentFrame().getByTestId("body").fill(System.getenv("PASSWORD"));',
        csharp: 'await page.Locator("iframe[title=\\"Editor\\"]").ContentFrame.GetByTestId("body").FillAsync(Environment.GetEnvironmentVariable("PASSWORD"));',
      },
    ],
    [
      { on: 'keyboard', method: 'press', args: [{ kind: 'string', value: 'Control+a' }] },
      {
        typescript: "await page.keyboard.press('Control+a');",
        python: 'page.keyboard.press("Control+a")',
        java: 'page.keyboard().press("Control+a");',
        csharp: 'await page.Keyboard.PressAsync("Control+a");',
      },
    ],
    [
      { on: { locator: [{ kind: 'css', value: '#color' }] }, method: 'selectOption', args: [{ kind: 'strings', value: ['red', 'blue'] }] },
      {
        typescript: "await page.locator('#color').selectOption(['red', 'blue']);",
        python: 'page.locator("#color").select_option(["red", "blue"])',
        java: 'page.locator("#color").selectOption(new String[] {"red", "blue"});',
        csharp: 'await page.Locator("#color").SelectOptionAsync(new[] { "red", "blue" });',
      },
    ],
    [
      { on: { locator: save }, method: 'dragTo', args: [{ kind: 'locator', chain: [{ kind: 'text', value: 'Bin' }] }] },
      {
        typescript: "await page.getByRole('button', { name: 'Save \\'draft\\'' }).dragTo(page.getByText('Bin'));",
        python: 'page.get_by_role("button", name="Save \'draft\'").drag_to(page.get_by_text("Bin"))',
        java: 'page.getByRole(AriaRole.BUTTON, new Page.GetByRoleOptions().setName("Save \'draft\'")).dragTo(page.getByText("Bin"));',
        csharp: 'await page.GetByRole(AriaRole.Button, new() { Name = "Save \'draft\'" }).DragToAsync(page.GetByText("Bin"));',
      },
    ],
  ];
  for (const [step, expected] of cases) {
    it(`${step.method} on ${typeof step.on === 'string' ? step.on : 'a locator'}`, () => {
      for (const lang of ['typescript', 'python', 'java', 'csharp'] as const) expect(renderStep(step, lang), lang).toBe(expected[lang]);
    });
  }

  it('escapes what would end a TypeScript string or line', () => {
    expect(renderStep({ on: 'page', method: 'goto', args: [{ kind: 'string', value: "a'b\\c\nd" }] }, 'typescript')).toBe("await page.goto('a\\'b\\\\c\\nd');");
  });
});
