/**
 * Runs in the page with `this` = a file input (sent as source text: self-contained, web-platform APIs only): sets its
 * files from contents, as a person's choice would, with the input and change events.
 */
export function setInputFiles(this: HTMLInputElement, files: Array<{ name: string; mimeType: string; data: string }>): void {
  const transfer = new DataTransfer();
  for (const file of files) {
    const binary = atob(file.data);
    const bytes = new Uint8Array(binary.length);
    for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
    transfer.items.add(new File([bytes], file.name, { type: file.mimeType }));
  }
  this.files = transfer.files;
  this.dispatchEvent(new Event('input', { bubbles: true, composed: true }));
  this.dispatchEvent(new Event('change', { bubbles: true }));
}
