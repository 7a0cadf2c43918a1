// A chat box as a real app builds it with Tiptap (ProseMirror): the editor's only label is its placeholder, drawn by
// CSS generated content on its empty first line; messages are sent with Enter. Beside it, a long list of past
// conversations, virtualised with TanStack Virtual (only the rows in view exist), each opened with a click.
import { useVirtualizer } from '@tanstack/react-virtual';
import { Extension } from '@tiptap/core';
import { Placeholder } from '@tiptap/extensions';
import { EditorContent, useEditor } from '@tiptap/react';
import StarterKit from '@tiptap/starter-kit';
import { useRef, useState } from 'react';
import { createRoot } from 'react-dom/client';

const style = document.createElement('style');
style.textContent = `
  .tiptap { border: 1px solid #888; min-height: 3em; padding: 4px; }
  .tiptap p.is-editor-empty:first-child::before { content: attr(data-placeholder); color: #999; float: left; height: 0; pointer-events: none; }
  .row { height: 32px; display: flex; align-items: center; border-bottom: 1px solid #eee; }
`;
document.head.append(style);

function History({ open }: { open: (n: number) => void }) {
  const scroller = useRef<HTMLDivElement>(null);
  const rows = useVirtualizer({ count: 5000, getScrollElement: () => scroller.current, estimateSize: () => 32 });
  return (
    <div ref={scroller} style={{ height: 200, overflow: 'auto' }}>
      <div style={{ height: rows.getTotalSize(), position: 'relative' }}>
        {rows.getVirtualItems().map((row) => (
          <div
            key={row.key}
            className="row"
            onClick={() => open(row.index + 1)}
            style={{ position: 'absolute', top: 0, width: '100%', transform: `translateY(${row.start}px)` }}
          >
            Conversation {row.index + 1}
          </div>
        ))}
      </div>
    </div>
  );
}

function App() {
  const [sent, setSent] = useState<string[]>([]);
  const [opened, setOpened] = useState(0);
  const editor = useEditor({
    extensions: [
      StarterKit,
      Placeholder.configure({ placeholder: 'Ask anything' }),
      Extension.create({
        name: 'send',
        addKeyboardShortcuts() {
          return {
            Enter: ({ editor }) => {
              const text = editor.getText().trim();
              if (text) setSent((s) => [...s, text]);
              editor.commands.clearContent();
              return true;
            },
          };
        },
      }),
    ],
  });
  return (
    <main style={{ padding: 24, maxWidth: 520, fontFamily: 'sans-serif' }}>
      <h1>Assistant</h1>
      <EditorContent editor={editor} />
      <ul id="sent">
        {sent.map((m, i) => (
          <li key={i}>{m}</li>
        ))}
      </ul>
      <h2>Past conversations</h2>
      <History open={setOpened} />
      <p id="state" data-sent={sent.join('|')} data-opened={opened}>
        Opened {opened || 'none'}
      </p>
    </main>
  );
}

createRoot(document.getElementById('root')!).render(<App />);
