// An order form as a real app builds it with react-select: a single select of a size and a multi-select of
// toppings. Its input is the combobox; the chosen value is drawn beside it, and the options are divs.
import { useState } from 'react';
import { createRoot } from 'react-dom/client';
import Select from 'react-select';

const sizes = ['Ten', 'Twenty', 'Thirty'].map((s) => ({ value: s.toLowerCase(), label: s }));
const toppings = ['Olives', 'Mushrooms', 'Peppers', 'Onions'].map((s) => ({ value: s.toLowerCase(), label: s }));

function App() {
  const [size, setSize] = useState(sizes[1]!);
  const [chosen, setChosen] = useState<readonly { value: string; label: string }[]>([]);
  return (
    <main style={{ padding: 24, maxWidth: 420, fontFamily: 'sans-serif' }}>
      <h1>Order a pizza</h1>
      <label htmlFor="size">Size (cm)</label>
      <Select inputId="size" options={sizes} value={size} onChange={(v) => v && setSize(v)} />
      <label htmlFor="toppings">Toppings</label>
      <Select inputId="toppings" isMulti options={toppings} value={chosen} onChange={setChosen} />
      <p id="state" data-size={size.label} data-toppings={chosen.map((t) => t.label).join(',')}>
        Size {size.label}; toppings {chosen.map((t) => t.label).join(', ') || 'none'}
      </p>
    </main>
  );
}

createRoot(document.getElementById('root')!).render(<App />);
