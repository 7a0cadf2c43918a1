// An inbox as a real app builds it with Headless UI (unstyled, ARIA from the library): a listbox to pick an
// assignee, a menu of actions, a switch and a combobox that filters as the person types.
import {
  Combobox,
  ComboboxInput,
  ComboboxOption,
  ComboboxOptions,
  Listbox,
  ListboxButton,
  ListboxOption,
  ListboxOptions,
  Menu,
  MenuButton,
  MenuItem,
  MenuItems,
  Switch,
} from '@headlessui/react';
import { useState } from 'react';
import { createRoot } from 'react-dom/client';

const people = ['Wade Cooper', 'Arlene Mccoy', 'Devon Webb', 'Tom Cook'];
const cities = ['Amsterdam', 'Berlin', 'Copenhagen', 'Dublin', 'Edinburgh'];

function App() {
  const [assignee, setAssignee] = useState(people[0]!);
  const [action, setAction] = useState('none');
  const [notify, setNotify] = useState(false);
  const [city, setCity] = useState<string | null>(null);
  const [query, setQuery] = useState('');
  const shown = cities.filter((c) => c.toLowerCase().includes(query.toLowerCase()));
  return (
    <main style={{ padding: 24, fontFamily: 'sans-serif' }}>
      <h1>Inbox</h1>
      <Listbox value={assignee} onChange={setAssignee}>
        <ListboxButton aria-label="Assignee">{assignee}</ListboxButton>
        <ListboxOptions anchor="bottom start" style={{ background: 'white', border: '1px solid #ccc' }}>
          {people.map((p) => (
            <ListboxOption key={p} value={p} style={{ padding: 4 }}>
              {p}
            </ListboxOption>
          ))}
        </ListboxOptions>
      </Listbox>{' '}
      <Menu>
        <MenuButton>Actions</MenuButton>
        <MenuItems anchor="bottom" style={{ background: 'white', border: '1px solid #ccc' }}>
          {['Archive', 'Mark as spam', 'Delete'].map((a) => (
            <MenuItem key={a}>
              <button style={{ display: 'block' }} onClick={() => setAction(a)}>
                {a}
              </button>
            </MenuItem>
          ))}
        </MenuItems>
      </Menu>
      <p>
        <Switch checked={notify} onChange={setNotify} aria-label="Notify me" style={{ width: 40, height: 20, background: notify ? 'green' : 'gray' }} /> Notify
        me
      </p>
      <Combobox value={city} onChange={setCity} onClose={() => setQuery('')}>
        <ComboboxInput aria-label="City" displayValue={(c: string | null) => c ?? ''} onChange={(e) => setQuery(e.target.value)} />
        <ComboboxOptions anchor="bottom" style={{ background: 'white', border: '1px solid #ccc' }}>
          {shown.map((c) => (
            <ComboboxOption key={c} value={c} style={{ padding: 4 }}>
              {c}
            </ComboboxOption>
          ))}
        </ComboboxOptions>
      </Combobox>
      <p id="state" data-assignee={assignee} data-action={action} data-notify={String(notify)} data-city={city ?? ''}>
        Assignee {assignee}; action {action}; notify {notify ? 'yes' : 'no'}; city {city ?? 'none'}
      </p>
    </main>
  );
}

createRoot(document.getElementById('root')!).render(<App />);
