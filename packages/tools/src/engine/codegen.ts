import { CODEGEN_LANGUAGES } from '@browsermcp/protocol';
import type { LocatorSpec } from '../injected/locator.js';

/**
 * The Playwright code that replays what a tool did (--codegen), so an agent's session can become a test script. A
 * step is written once, language-neutral, and rendered in the language the user chose, as Playwright's own codegen
 * targets: TypeScript (the library, async), Python (sync API), Java and C#.
 */

export { CODEGEN_LANGUAGES };
export type CodegenLanguage = (typeof CODEGEN_LANGUAGES)[number];
export type { LocatorSpec };

/** An element as a test reaches it: through the frames that hold it (outermost first), then the element itself. */
export type LocatorChain = readonly LocatorSpec[];

export type CodeArg =
  | { kind: 'string'; value: string }
  | { kind: 'number'; value: number }
  | { kind: 'strings'; value: readonly string[] }
  /** A secret (--secrets): read from the environment variable of its name, never written in the code. */
  | { kind: 'env'; name: string }
  | { kind: 'locator'; chain: LocatorChain }
  /** Named options; `enumType` marks a value Java and C# write as an enum member (MouseButton.RIGHT). */
  | { kind: 'options'; values: Readonly<Record<string, { value: string | number; enumType?: string }>> };

export interface CodeStep {
  /** Who the method is called on. */
  on: 'page' | 'keyboard' | 'mouse' | { locator: LocatorChain };
  /** Its name in TypeScript; the other languages derive theirs from it. */
  method: string;
  args?: readonly CodeArg[];
}

/** The Markdown fence each language is shown in. */
export const CODE_FENCE: Record<CodegenLanguage, string> = { typescript: 'js', python: 'python', java: 'java', csharp: 'csharp' };

const pascal = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);
const snake = (s: string) => s.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

function str(value: string, lang: CodegenLanguage): string {
  // JSON's escapes are valid string escapes in Python, Java and C#; TypeScript code uses single quotes by convention.
  if (lang !== 'typescript') return JSON.stringify(value);
  return `'${value.replace(/\\/g, '\\\\').replace(/'/g, "\\'").replace(/\n/g, '\\n').replace(/\r/g, '\\r')}'`;
}

/** The role as each language names it: a string, or a member of AriaRole. */
function role(name: string, lang: CodegenLanguage): string {
  if (lang === 'java') return `AriaRole.${name.toUpperCase()}`;
  if (lang === 'csharp') return `AriaRole.${pascal(name)}`;
  return str(name, lang);
}

/** Where a language's API names a method differently from TypeScript's. */
const RENAMED: Partial<Record<string, Partial<Record<CodegenLanguage, string>>>> = { goto: { java: 'navigate' } };

/** A method name in the language: the final call of a C# statement is awaited and ends in Async. */
function methodName(method: string, lang: CodegenLanguage, awaited: boolean): string {
  const renamed = RENAMED[method]?.[lang];
  if (renamed) return renamed;
  if (lang === 'python') return snake(method);
  if (lang === 'csharp') return `${pascal(method)}${awaited ? 'Async' : ''}`;
  return method;
}

/** `receiver` is the Java class whose options type a call takes (Page.GetByRoleOptions, FrameLocator.…). */
function locatorCall(spec: LocatorSpec, lang: CodegenLanguage, receiver: 'Page' | 'Locator' | 'FrameLocator'): string {
  const call = (method: string, args: string) => `${methodName(method, lang, false)}(${args})`;
  switch (spec.kind) {
    case 'testId':
      return call('getByTestId', str(spec.value, lang));
    case 'text':
      return call('getByText', str(spec.value, lang));
    case 'css':
      return call('locator', str(spec.value, lang));
    case 'role': {
      if (spec.name === undefined) return call('getByRole', role(spec.role, lang));
      const name = str(spec.name, lang);
      const options = {
        typescript: `{ name: ${name} }`,
        python: `name=${name}`,
        java: `new ${receiver}.GetByRoleOptions().setName(${name})`,
        csharp: `new() { Name = ${name} }`,
      }[lang];
      return call('getByRole', `${role(spec.role, lang)}, ${options}`);
    }
  }
}

/** `page.getByRole(…)`, through the frames that hold the element. */
export function renderLocator(chain: LocatorChain, lang: CodegenLanguage): string {
  let code = 'page';
  let receiver: 'Page' | 'FrameLocator' = 'Page';
  chain.forEach((spec, i) => {
    code += `.${locatorCall(spec, lang, receiver)}`;
    if (i < chain.length - 1) {
      code += { typescript: '.contentFrame()', python: '.content_frame', java: '.contentFrame()', csharp: '.ContentFrame' }[lang];
      receiver = 'FrameLocator';
    }
  });
  return code;
}

function renderArg(arg: CodeArg, lang: CodegenLanguage, javaOptionsClass: string): string {
  switch (arg.kind) {
    case 'string':
      return str(arg.value, lang);
    case 'number':
      return String(arg.value);
    case 'strings': {
      const items = arg.value.map((v) => str(v, lang)).join(', ');
      return { typescript: `[${items}]`, python: `[${items}]`, java: `new String[] {${items}}`, csharp: `new[] { ${items} }` }[lang];
    }
    case 'env':
      return {
        typescript: `process.env[${str(arg.name, lang)}]!`,
        python: `os.environ[${str(arg.name, lang)}]`,
        java: `System.getenv(${str(arg.name, lang)})`,
        csharp: `Environment.GetEnvironmentVariable(${str(arg.name, lang)})`,
      }[lang];
    case 'locator':
      return renderLocator(arg.chain, lang);
    case 'options': {
      const entries = Object.entries(arg.values);
      const value = (v: { value: string | number; enumType?: string }) => {
        if (v.enumType && typeof v.value === 'string') {
          if (lang === 'java') return `${v.enumType}.${v.value.toUpperCase()}`;
          if (lang === 'csharp') return `${v.enumType}.${pascal(v.value)}`;
        }
        return typeof v.value === 'string' ? str(v.value, lang) : String(v.value);
      };
      if (lang === 'typescript') return `{ ${entries.map(([k, v]) => `${k}: ${value(v)}`).join(', ')} }`;
      if (lang === 'python') return entries.map(([k, v]) => `${snake(k)}=${value(v)}`).join(', ');
      if (lang === 'java') return `new ${javaOptionsClass}()${entries.map(([k, v]) => `.set${pascal(k)}(${value(v)})`).join('')}`;
      return `new() { ${entries.map(([k, v]) => `${pascal(k)} = ${value(v)}`).join(', ')} }`;
    }
  }
}

/** One statement of the chosen language. */
export function renderStep(step: CodeStep, lang: CodegenLanguage): string {
  let receiver: string;
  let receiverClass: string;
  if (step.on === 'page') [receiver, receiverClass] = ['page', 'Page'];
  else if (step.on === 'keyboard' || step.on === 'mouse') {
    receiver = { typescript: `page.${step.on}`, python: `page.${step.on}`, java: `page.${step.on}()`, csharp: `page.${pascal(step.on)}` }[lang];
    receiverClass = pascal(step.on);
  } else [receiver, receiverClass] = [renderLocator(step.on.locator, lang), 'Locator'];
  const optionsClass = `${receiverClass}.${pascal(step.method)}Options`;
  const args = (step.args ?? []).map((a) => renderArg(a, lang, optionsClass)).join(', ');
  const call = `${receiver}.${methodName(step.method, lang, true)}(${args})`;
  return { typescript: `await ${call};`, python: call, java: `${call};`, csharp: `await ${call};` }[lang];
}

export const codeArg = {
  string: (value: string): CodeArg => ({ kind: 'string', value }),
  number: (value: number): CodeArg => ({ kind: 'number', value }),
  strings: (value: readonly string[]): CodeArg => ({ kind: 'strings', value }),
  locator: (chain: LocatorChain): CodeArg => ({ kind: 'locator', chain }),
  options: (values: Record<string, { value: string | number; enumType?: string }>): CodeArg => ({ kind: 'options', values }),
};
