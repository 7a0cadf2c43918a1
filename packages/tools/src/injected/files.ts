/**
 * Sets a file input's files from contents (base64), as a person's choice would, with the input and change events.
 * The one in-page function sent on its own rather than called by name (CDP names the chooser's input only by node
 * id): it stays self-contained.
 */
export function setInputFiles(input: Element, files: Array<{ name: string; mimeType: string; data: string }>): string | undefined {
  if (!(input instanceof HTMLInputElement) || input.type !== 'file') return 'not a file input';
  const transfer = new DataTransfer();
  for (const file of files) {
    const binary = atob(file.data);
    const bytes = new Uint8Array(binary.length);
    for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
    transfer.items.add(new File([bytes], file.name, { type: file.mimeType }));
  }
  input.files = transfer.files;
  input.dispatchEvent(new Event('input', { bubbles: true, composed: true }));
  input.dispatchEvent(new Event('change', { bubbles: true }));
  return undefined;
}

/**
 * Drops data and files onto an element as a drag from outside the page would: dragenter, dragover and drop events
 * carrying a DataTransfer, the same in every host (files come as contents, read under the host's file policy).
 */
export function dropOn(el: Element, data: Record<string, string>, files: Array<{ name: string; mimeType: string; data: string }>): void {
  const transfer = new DataTransfer();
  for (const [type, value] of Object.entries(data)) transfer.setData(type, value);
  for (const file of files) {
    const binary = atob(file.data);
    const bytes = new Uint8Array(binary.length);
    for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
    transfer.items.add(new File([bytes], file.name, { type: file.mimeType }));
  }
  const r = el.getBoundingClientRect();
  const at = { clientX: r.left + r.width / 2, clientY: r.top + r.height / 2 };
  for (const type of ['dragenter', 'dragover', 'drop']) {
    el.dispatchEvent(new DragEvent(type, { bubbles: true, cancelable: true, composed: true, dataTransfer: transfer, ...at }));
  }
}
