package live

import "sync"

// Hub fans snapshots out to the subscribers of each project. Publishing
// never blocks: a subscriber whose buffer is full is dropped (its channel
// is closed), so one slow dashboard cannot hold up the others or the
// judgment write path; its client reconnects and starts from a fresh
// snapshot.
type Hub struct {
	buffer int
	mu     sync.Mutex
	subs   map[int64]map[*Subscriber]struct{}
}

// Subscriber receives one project's messages on C until it is dropped or
// unsubscribed, when C is closed.
type Subscriber struct {
	C       <-chan Snapshot
	c       chan Snapshot
	project int64
	closed  bool
}

// NewHub makes a hub whose subscribers buffer up to buffer messages.
func NewHub(buffer int) *Hub {
	return &Hub{buffer: max(buffer, 1), subs: map[int64]map[*Subscriber]struct{}{}}
}

// Subscribe adds a subscriber to a project.
func (h *Hub) Subscribe(projectID int64) *Subscriber {
	c := make(chan Snapshot, h.buffer)
	s := &Subscriber{C: c, c: c, project: projectID}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.subs[projectID] == nil {
		h.subs[projectID] = map[*Subscriber]struct{}{}
	}
	h.subs[projectID][s] = struct{}{}
	return s
}

// Unsubscribe removes a subscriber (a no-op when it was dropped).
func (h *Hub) Unsubscribe(s *Subscriber) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.remove(s)
}

func (h *Hub) remove(s *Subscriber) {
	if s.closed {
		return
	}
	s.closed = true
	close(s.c)
	delete(h.subs[s.project], s)
	if len(h.subs[s.project]) == 0 {
		delete(h.subs, s.project)
	}
}

// Publish sends msg to every subscriber of a project and returns how many
// got it and how many were dropped for being too slow.
func (h *Hub) Publish(projectID int64, msg Snapshot) (delivered, dropped int) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for s := range h.subs[projectID] {
		select {
		case s.c <- msg:
			delivered++
		default:
			h.remove(s)
			dropped++
		}
	}
	return delivered, dropped
}

// Subscribers counts a project's subscribers.
func (h *Hub) Subscribers(projectID int64) int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.subs[projectID])
}

// CloseAll drops every subscriber (server shutdown: event streams end so
// that in-flight requests can drain).
func (h *Hub) CloseAll() {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, subs := range h.subs {
		for s := range subs {
			h.remove(s)
		}
	}
}
