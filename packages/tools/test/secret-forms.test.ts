import fc from 'fast-check';
import { expect, it } from 'vitest';
import { redactSecretForms, secretPattern } from '../src/session/secret-forms.js';

// --secrets: a page hands a secret back encoded as often as plainly; every form is caught, and ordinary text is not.

const bytes = (s: string) => new TextEncoder().encode(s);
const b64 = (u: Uint8Array) => btoa(String.fromCharCode(...u));
const hex = (u: Uint8Array) => [...u].map((b) => b.toString(16).padStart(2, '0')).join('');
const redact = (text: string, value: string) => redactSecretForms(text, [['PIN', secretPattern(value)]]);

it('catches the value, its base64 (also inside a longer base64 text), hex, percent-encoding and its characters spaced apart', () => {
  const value = 'hunter2-s3cret';
  for (const form of [
    value,
    b64(bytes(value)),
    b64(bytes(value)).replace(/=+$/, ''),
    hex(bytes(value)),
    hex(bytes(value)).toUpperCase(),
    encodeURIComponent(value),
    [...bytes(value)].map((b) => `%${b.toString(16).toUpperCase().padStart(2, '0')}`).join(''),
    [...value].join('-'),
    [...value].join(' '),
  ]) {
    const answer = redact(`the page says: ${form} (end)`, value);
    expect(answer, form).toContain('<secret>PIN</secret>');
    expect(answer, form).not.toContain(form);
  }
  // A page that encodes a whole record with the secret in the middle, as btoa(JSON.stringify(...)) does.
  const record = b64(bytes(JSON.stringify({ user: 'ada', password: value, remember: true })));
  expect(redact(record, value)).toContain('<secret>PIN</secret>');
});

it('never lets the base64 of a secret of 8 bytes or more inside any longer text through, at any offset', () => {
  fc.assert(
    fc.property(fc.string({ minLength: 8, maxLength: 40 }), fc.string({ maxLength: 12 }), fc.string({ maxLength: 12 }), (value, before, after) => {
      const encoded = b64(bytes(`${before}${value}${after}`));
      const answer = redact(encoded, value);
      // What is left of the encoding decodes to at most two bytes of the secret at each end, never the whole.
      expect(answer).toContain('<secret>PIN</secret>');
    }),
    { numRuns: 300 },
  );
});

it('leaves ordinary text alone, and a short secret is matched only as written', () => {
  expect(redact('Order 1234 shipped; hex 31323334 is not the PIN', '1234')).toBe('Order <secret>PIN</secret> shipped; hex <secret>PIN</secret> is not the PIN');
  expect(redact('a-b and ab', 'ab')).toBe('a-b and <secret>PIN</secret>');
  expect(redact('nothing secret here', 'hunter2-s3cret')).toBe('nothing secret here');
});
