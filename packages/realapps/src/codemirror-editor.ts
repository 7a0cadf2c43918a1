// A code editor as real apps embed it: CodeMirror 6 (a contenteditable that keeps its own document and selection).
// The page exposes the editor's own document for the test to judge by.
import { basicSetup, EditorView } from 'codemirror';

const view = new EditorView({
  doc: 'const answer = 42;\nconsole.log(answer);',
  extensions: [basicSetup],
  parent: document.getElementById('root')!,
});
const heading = document.createElement('h1');
heading.textContent = 'Editor';
document.body.prepend(heading);
(window as unknown as { editorDocument: () => string }).editorDocument = () => view.state.doc.toString();
