package frontier

import (
	"time"

	"github.com/deltaq/deltaq/repo"
)

// entry is a queued URL as held in memory: just what ordering and handing
// out need. The key is the repository key; it orders entries as Pebble does
// and encodes the due time.
type entry struct {
	key    string
	url    string
	reason repo.Reason
	// enqueued is when the entry was queued (repo.QueueEntry.Enqueued).
	enqueued time.Time
	// requesting marks an in-flight entry whose request may still be
	// under way: handed out and not yet Released.
	requesting bool
}

func entryOf(it repo.QueueItem) entry {
	return entry{key: string(it.Key()), url: it.URL, reason: it.Reason, enqueued: it.Enqueued}
}

func (e entry) due() time.Time { return repo.QueueKeyDue(e.key) }

// hostQueue is the in-memory head of one host's queue. For each class it
// holds at most frontier.host_buffer entries: always a prefix, in key order,
// of what Pebble holds for that class minus the entries in flight. The rest
// stays on disk, so memory does not grow with the length of a host's queue.
type hostQueue struct {
	host      string
	buf       [repo.NumClasses][]entry
	inflight  []entry               // handed out, not yet Done or Deferred
	requests  int                   // inflight entries not yet Released: the host's politeness slots in use
	notBefore int64                 // politeness: no request may start earlier (unix ns)
	readyAt   int64                 // heap key (unix ns), valid while index >= 0
	index     int32                 // position in the ready heap, -1 if absent
	more      [repo.NumClasses]bool // Pebble holds entries beyond buf
}

func newHostQueue(host string) *hostQueue { return &hostQueue{host: host, index: -1} }

// empty reports whether the host has nothing queued and nothing in flight.
func (h *hostQueue) empty() bool {
	if len(h.inflight) > 0 {
		return false
	}
	for c := range h.buf {
		if len(h.buf[c]) > 0 || h.more[c] {
			return false
		}
	}
	return true
}

// insert places e into its class buffer if it belongs to the buffered
// prefix; otherwise it stays on disk only. capacity bounds the buffer.
// An entry already buffered or in flight is left alone: a refill may read
// a committed entry from Pebble before its writer publishes it.
func (h *hostQueue) insert(e entry, capacity int) {
	if h.isInflight(e.key) {
		return
	}
	c := e.reason.Class()
	buf := h.buf[c]
	i := len(buf)
	for i > 0 && e.key < buf[i-1].key {
		i--
	}
	if i > 0 && buf[i-1].key == e.key {
		return
	}
	if h.more[c] && i == len(buf) {
		return // sorts after the buffered prefix: disk only
	}
	buf = append(buf, entry{})
	copy(buf[i+1:], buf[i:])
	buf[i] = e
	if len(buf) > capacity {
		buf[len(buf)-1] = entry{}
		buf = buf[:capacity]
		h.more[c] = true
	}
	h.buf[c] = buf
}

// isInflight reports whether key belongs to an entry handed out.
func (h *hostQueue) isInflight(key string) bool {
	for _, e := range h.inflight {
		if e.key == key {
			return true
		}
	}
	return false
}

// removeInflight drops the in-flight entry with key, reporting whether it
// was there, and frees its politeness slot if it still held one.
func (h *hostQueue) removeInflight(key string) (entry, bool) {
	for i, e := range h.inflight {
		if e.key == key {
			h.inflight = append(h.inflight[:i], h.inflight[i+1:]...)
			h.release(&e)
			return e, true
		}
	}
	return entry{}, false
}

// release frees the politeness slot of in-flight entry e, once.
func (h *hostQueue) release(e *entry) {
	if e.requesting {
		e.requesting = false
		h.requests--
	}
}

// hostHeap orders hosts by the time their next fetch may start.
type hostHeap []*hostQueue

func (h hostHeap) Len() int { return len(h) }
func (h hostHeap) Less(i, j int) bool {
	if h[i].readyAt != h[j].readyAt {
		return h[i].readyAt < h[j].readyAt
	}
	return h[i].host < h[j].host
}
func (h hostHeap) Swap(i, j int) {
	h[i], h[j] = h[j], h[i]
	h[i].index = int32(i)
	h[j].index = int32(j)
}
func (h *hostHeap) Push(x any) {
	q := x.(*hostQueue)
	q.index = int32(len(*h))
	*h = append(*h, q)
}
func (h *hostHeap) Pop() any {
	old := *h
	q := old[len(old)-1]
	old[len(old)-1] = nil
	*h = old[:len(old)-1]
	q.index = -1
	return q
}
