import type { EventId, EventStore, JSONRPCMessage, StreamId } from '@modelcontextprotocol/server';

/**
 * Resumability for one MCP session: the last events of each SSE stream, so a client that lost its connection can
 * ask for what it missed with Last-Event-ID. Bounded: the oldest events go first.
 */
export class BoundedEventStore implements EventStore {
  private readonly events = new Map<EventId, { streamId: StreamId; message: JSONRPCMessage }>();
  private next = 0;

  constructor(private readonly maxEvents = 1000) {}

  async storeEvent(streamId: StreamId, message: JSONRPCMessage): Promise<EventId> {
    // The stream id is part of the event id so a replay never mixes streams up.
    const id = `${streamId}_${(this.next++).toString(36)}`;
    this.events.set(id, { streamId, message });
    if (this.events.size > this.maxEvents) this.events.delete(this.events.keys().next().value!);
    return id;
  }

  async getStreamIdForEventId(eventId: EventId): Promise<StreamId | undefined> {
    return this.events.get(eventId)?.streamId;
  }

  async replayEventsAfter(lastEventId: EventId, { send }: { send: (id: EventId, message: JSONRPCMessage) => Promise<void> }): Promise<StreamId> {
    const last = this.events.get(lastEventId);
    if (!last) return '';
    let after = false;
    for (const [id, event] of this.events) {
      if (id === lastEventId) {
        after = true;
        continue;
      }
      if (after && event.streamId === last.streamId) await send(id, event.message);
    }
    return last.streamId;
  }
}
