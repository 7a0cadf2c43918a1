// Started by speculation.html: it answers the page, and fetches from outside every tab (to the blocked name).
globalThis.onconnect = (event) => {
  event.ports[0].postMessage('running');
  fetch(`http://blocked.localhost:${location.port}/from-shared-worker`, { mode: 'no-cors' }).catch(() => {});
};
