// A task list as a Vue 3 app writes it: list items that react to clicks (@click, which Vue adds as a listener: no
// attribute, no role, no pointer cursor), and an item that opens on a double-click-free click of its text.
import { createApp, h, ref } from 'vue';

const App = {
  setup() {
    const tasks = ['Water the plants', 'Call the plumber', 'Pay the rent'];
    const done = ref<string[]>([]);
    return () =>
      h('main', [
        h('h1', 'Today'),
        h(
          'ul',
          tasks.map((task) =>
            h('li', { key: task, class: done.value.includes(task) ? 'done' : '', onClick: () => (done.value = [...done.value, task]) }, task),
          ),
        ),
        h('p', { id: 'done' }, `Done: ${done.value.join(', ') || 'nothing yet'}`),
      ]);
  },
};

createApp(App).mount('#root');
