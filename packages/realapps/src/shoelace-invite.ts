// An invitation form as a real app builds it with Shoelace web components (shadow DOM throughout): an input whose
// label is an attribute drawn inside its shadow root, a select whose listbox lives in another shadow root, a checkbox
// and a button whose label is slotted in.
import '@shoelace-style/shoelace/dist/components/button/button.js';
import '@shoelace-style/shoelace/dist/components/checkbox/checkbox.js';
import '@shoelace-style/shoelace/dist/components/input/input.js';
import '@shoelace-style/shoelace/dist/components/option/option.js';
import '@shoelace-style/shoelace/dist/components/select/select.js';
import { setBasePath } from '@shoelace-style/shoelace/dist/utilities/base-path.js';

// Icons (the select's chevron) are not served here: no request for them.
setBasePath('/realapps/shoelace');

const root = document.getElementById('root')!;
root.innerHTML = `
  <h1>Invite a friend</h1>
  <sl-input id="email" label="Email address" type="email"></sl-input>
  <sl-select id="role" label="Role" value="viewer">
    <sl-option value="viewer">Viewer</sl-option>
    <sl-option value="editor">Editor</sl-option>
    <sl-option value="owner">Owner</sl-option>
  </sl-select>
  <sl-checkbox id="welcome">Send a welcome email</sl-checkbox>
  <p><sl-button id="send" variant="primary">Send invitation</sl-button></p>
  <p id="state">No invitation sent</p>
`;
const field = <T>(id: string) => document.getElementById(id) as unknown as T;
document.getElementById('send')!.addEventListener('click', () => {
  const email = field<{ value: string }>('email').value;
  const role = field<{ value: string }>('role').value;
  const welcome = field<{ checked: boolean }>('welcome').checked;
  const state = document.getElementById('state')!;
  state.dataset.email = email;
  state.dataset.role = role;
  state.dataset.welcome = String(welcome);
  state.textContent = `Invited ${email} as ${role}${welcome ? ' with a welcome email' : ''}`;
});
